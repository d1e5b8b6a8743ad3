"""Engine performance, measured side by side in one run (ratios, not timed tests).

1. The batched check (vmap over a one-instance evaluator) against a per-instance Python loop over the
   same claim and the same instances.
2. The whole registry at --budget quick and default (wall time, 1 process and the default jobs).

    python benchmarks/bench_engine.py [--registry-only | --batch-only]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best_time  # noqa: E402 - benchmarks/ is on sys.path when a script runs
from pyverify.checks.claim import compile_claim  # noqa: E402
from pyverify.engine.context import CPU64  # noqa: E402
from pyverify.registry import Claim  # noqa: E402

CLAIMS = {
    "relative law (d=6, d_c=3)": {"given": {"g": "commuting_skew(6, 3)", "ri": "vec(3)", "rj": "vec(3)"},
                                  "assert": "R_str(g.L, ri).T @ R_str(g.L, rj) == R_str(g.L, rj - ri)"},
    "Cayley orthogonal (n=8)": {"given": {"S": "skew(8)"}, "assert": "cayley(S).T @ cayley(S) == I(8)"},
    "geodesic = rotation angle": {"given": {"q": "unit_quat()", "k": "unit_quat()"},
                                  "assert": "d_geo(q, k) == rotation_angle(qmul(q, qconj(k)))"},
}


def batch_vs_loop(n: int = 512) -> None:
    ctx = CPU64.seeded(0)
    print(f"batched check vs per-instance loop, {n} instances, same claim and instances")
    print(f"{'claim':<30} {'batched s':>10} {'loop s':>10} {'loop/batched':>13}")
    for name, spec in CLAIMS.items():
        claim = Claim.model_validate({"id": "B.1", "title": name, "document": "d", "locator": "l", "kind": "identity",
                                      "statement": name, "check": spec})
        comp = compile_claim(claim).assignments[0]
        theta = comp.init_theta(n, ctx.gen, ctx)
        with torch.no_grad():
            tb, _ = best_time(lambda: comp.evaluate(theta, ctx))
            tl, _ = best_time(lambda: [comp.evaluate_one(theta, i, ctx) for i in range(n)], repeat=1)
        print(f"{name:<30} {tb:>10.4f} {tl:>10.4f} {tl / tb:>13.1f}")


def whole_registry() -> None:
    print("\nwhole registry (wall time of `pyverify check`, including start-up)")
    for budget in ("quick", "default"):
        for jobs in (1, 2):
            t = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "pyverify", "check", "--budget", budget, "--jobs", str(jobs),
                                   "--no-progress"], cwd=ROOT, capture_output=True, text=True)
            dt = time.perf_counter() - t
            last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-200:]
            print(f"  budget {budget:<8} jobs {jobs}: {dt:7.1f} s   ({last})")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--registry-only", action="store_true")
    ap.add_argument("--batch-only", action="store_true")
    a = ap.parse_args()
    if not a.registry_only:
        batch_vs_loop()
    if not a.batch_only:
        whole_registry()
