"""The shipped registry bound to the worked example module (issue 22's "done when"), over seeds, budgets and
dtypes: `pyverify check --bind` of the module's `rope` and `rotary_scores` (examples/rotary_module.py), the
correct module (with and without its declared xpos decay) and each planted defect.

For every run it records the verdicts of the claims that exercised a bound role and, for a refutation, the
diagnosis kinds; it prints one row per (module, dtype, budget): the claims run, the seeds, how many runs
refuted anything, and the diagnoses seen. The correct module must never be refuted; each defect must be
refuted on every seed with a diagnosis that names it.

    python scripts/bound_module_matrix.py [--seeds 10] [--budgets quick default thorough]
        [--defect-seeds 3] [--workers 2] [--correct correct xpos] [--defects ...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/rotary_module.py"
CORRECT = ("correct", "xpos")  # the module, and the module with its declared xpos decay
DEFECTS = ("key_sign", "wrong_frequency", "non_orthogonal", "transposed_scores", "product_of_sums", "stale_cache",
           "xpos_wrong_side")


def run(variant: str, dtype: str, budget: str, seed: int) -> dict:
    suffix = (f"_{variant}" if variant != "correct" else "") + ("_float64" if dtype == "float64" else "")
    cmd = [sys.executable, "-m", "pyverify", "check", "--format", "json", "--budget", budget, "--seed", str(seed),
           "--bind", f"rotary={EXAMPLE}:rope{suffix},pairing=half",
           "--bind", f"rotary_scores={EXAMPLE}:scores{suffix},pairing=half"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"variant": variant, "dtype": dtype, "budget": budget, "seed": seed, "failed": done.stderr[-800:]}
    claims = {c["id"]: c for c in report["claims"]}
    diagnoses = {cid: [d.get("kind") for d in (c.get("details", {}).get("diagnosis", {}) or {}).get("defects", [])]
                 for cid, c in claims.items() if c["verdict"] == "refuted"}
    return {"variant": variant, "dtype": dtype, "budget": budget, "seed": seed,
            "verdicts": {cid: c["verdict"] for cid, c in claims.items()}, "diagnoses": diagnoses,
            "precision": sorted({b["precision"] for b in report.get("bindings", [])})}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--defect-seeds", type=int, default=3)
    ap.add_argument("--budgets", nargs="+", default=["quick", "default", "thorough"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--correct", nargs="*", default=list(CORRECT), choices=CORRECT, help="correct variants to run")
    ap.add_argument("--defects", nargs="*", default=list(DEFECTS), choices=DEFECTS)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    jobs = [(v, dt, b, s) for v in args.correct for dt in ("float32", "float64") for b in args.budgets
            for s in range(args.seeds)]
    jobs += [(v, dt, "default", s) for v in args.defects for dt in ("float32", "float64") for s in range(args.defect_seeds)]
    with ThreadPoolExecutor(args.workers) as pool:
        results = list(pool.map(lambda j: run(*j), jobs))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    rows: dict[tuple, list[dict]] = {}
    for r in results:
        rows.setdefault((r["variant"], r["dtype"], r["budget"]), []).append(r)
    print(f"{'module':18} {'dtype':8} {'budget':9} {'claims':>6} {'seeds':>5} {'refuted':>7}  diagnoses (claim: kinds)")
    bad = 0
    for (variant, dtype, budget), rs in rows.items():
        failed = [r for r in rs if "failed" in r]
        refuted = [r for r in rs if "failed" not in r and r["diagnoses"]]
        seen = sorted({f"{cid}: {'+'.join(k) or 'none'}" for r in refuted for cid, k in r["diagnoses"].items()})
        claims = max((len(r.get("verdicts", {})) for r in rs), default=0)
        print(f"{variant:18} {dtype:8} {budget:9} {claims:>6} {len(rs):>5} {len(refuted):>7}  {'; '.join(seen)}"
              + (f"  FAILED RUNS {len(failed)}" if failed else ""))
        bad += len(failed) + (len(refuted) if variant in CORRECT else len(rs) - len(refuted))
    print(f"\n{bad} run(s) off: a refutation of the correct module, a defect not refuted, or a failed run")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
