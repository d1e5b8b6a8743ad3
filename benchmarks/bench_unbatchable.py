"""Code vmap cannot batch (``checks/looped.py``): that function alone one instance at a time inside the batched
evaluation, against the whole check one instance at a time (the engine's path before), side by side in one run
on the same instances and samples. The code is the role matrix's batching-hostile fixtures
(tests/precision_fixtures/hostile_roles.py: a per-instance ``matrix_exp`` of an index-put generator, features
written into preallocated tensors), bound in float64.

    PYTHONPATH=. python benchmarks/bench_unbatchable.py [--instances 64] [--samples 2000] [--statistic min]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from _timing import interleaved  # noqa: E402 - benchmarks/ is on sys.path when a script runs
import precision_fixtures.hostile_roles as hostile  # noqa: E402
from pyverify.checks import roles  # noqa: E402
from pyverify.checks.claim import compile_claim  # noqa: E402
from pyverify.checks.compiled import TorchBackend  # noqa: E402
from pyverify.engine.context import CPU64  # noqa: E402
from pyverify.checks.plugins import ensure_content  # noqa: E402
from pyverify.registry import Claim  # noqa: E402

FIXTURE = "tests/precision_fixtures/hostile_roles.py"
CASES = {
    "rotation, relative law": ("rotation", {
        "given": {"gen": "commuting_skew(4, 3, m=1)", "r": "vec(3, hi=2)", "s": "vec(3, hi=2)"},
        "assert": "R_str(gen.L, r).T @ R_str(gen.L, s) == R_str(gen.L, s - r)"}),
    "random features, E[phi phi]": ("random_features", {
        "given": {"x": "vec(4, hi=0.5)", "y": "vec(4, hi=0.5)", "W": "gaussian(8, 4)"},
        "assert": "E(phi(x, W) @ phi(y, W)) == exp(x @ y)"}),
}


def _compiled(spec: dict):
    claim = Claim.model_validate({"id": "B.1", "title": "b", "document": "d", "locator": "l", "kind": "identity",
                                  "statement": "b", "check": spec})
    return compile_claim(claim).assignments[0]


@contextlib.contextmanager
def _whole_check_per_instance():
    """The engine before ``looped``: no function is looped alone, so a refusal sends the whole check (an
    expectation's samples) one at a time."""
    original = TorchBackend._loop_after
    TorchBackend._loop_after = lambda self, *args: False
    try:
        yield
    finally:
        TorchBackend._loop_after = original


def _whole(comp, theta, ctx, randoms):
    with _whole_check_per_instance():
        return comp.evaluate(theta, ctx, randoms)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=64)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--statistic", choices=("median", "min"), default="median")
    args = ap.parse_args()
    ensure_content()
    ctx = CPU64.seeded(0)
    print(f"{args.instances} instances ({args.samples} samples each where the check is an expectation), "
          f"{torch.get_num_threads()} thread(s), {args.statistic} seconds per evaluation")
    print(f"{'check':<30} {'looped s':>10} {'whole s':>10} {'whole/looped':>13}")
    for name, (role, spec) in CASES.items():
        roles.unbind_all()
        function = hostile.CONVENTIONS[role][0]
        roles.bind(role, getattr(hostile, function), f"{FIXTURE}:{function}", hostile.CONVENTIONS[role][1],
                   "float64", "benchmark")
        looped, whole = _compiled(spec), _compiled(spec)
        theta = looped.init_theta(args.instances, ctx.gen, ctx)
        randoms = looped.draw_randoms(args.instances, args.samples, ctx.gen, ctx) if looped.randoms else None
        with torch.no_grad():
            a = looped.evaluate(theta, ctx, randoms)
            b = _whole(whole, theta, ctx, randoms)
            assert looped.looped and not looped.vmap_refused and whole.vmap_refused and not whole.looped, \
                "the two paths were not the ones compared"
            # (the whole path keeps a batch axis of 1 per instance)
            gap = max(float((x.reshape(-1) - y.reshape(-1)).abs().max()) for x, y in zip(a.flat, b.flat))
            times = interleaved({"looped": lambda: looped.evaluate(theta, ctx, randoms),
                                 "whole": lambda: _whole(whole, theta, ctx, randoms)},
                                reps=3, statistic=args.statistic)
        print(f"{name:<30} {times['looped']:>10.3f} {times['whole']:>10.3f} {times['whole'] / times['looped']:>13.1f}"
              f"   (largest difference of the two paths' values {gap:.1e})")
    roles.unbind_all()


if __name__ == "__main__":
    main()
