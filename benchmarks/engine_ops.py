"""What a claim's check asks of a device: aten operators and host synchronisations per claim, counted on the CPU.

Issue 20's CUDA measurement (benchmarks/README.md) found the whole registry at least 9x slower on an H200
than on its 16 CPU cores. On a GPU every aten operator is at least one kernel launch (some microseconds of
host time whatever the tensor's size) and every host synchronisation (``.item()``, ``float(t)``, a
``nonzero``, a copy to the host) also waits for the queue to drain; the engine's tensors are small (tens to
thousands of 4x4 to 16x16 instances), so those fixed costs, not arithmetic, decide its speed there. This
counts both per claim, on the CPU (the counts do not depend on the device), with the linear-algebra
operators among them (on CUDA small batched eigendecompositions, SVDs and solves go through cuSOLVER or
MAGMA, often with host round trips of their own), and prints, beside the CPU time of a plain run (timed
before the counted one, which the counting slows), the time the launches alone would take at ``--launch-us`` microseconds each (default 5, a typical
launch latency; a synchronisation is counted at ``--sync-us``, default 20): a floor under any CUDA run of
the same claims, and the ratio to the CPU time says which claims a GPU can never speed up.

    PYTHONPATH=. python benchmarks/engine_ops.py [--budget quick] [--seed 0] [--top 15] [ID ...]
    PYTHONPATH=. python benchmarks/engine_ops.py --profile [--device cuda] ID ...

Without ids: the whole registry (minutes at quick, in one process). ``--profile`` runs each claim once more
on ``--device`` under ``torch.profiler`` (CUDA activity too on a GPU) and prints the operators that took
the most time: where the counts leave off, on the machine that has the card.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _ops import OpCounter  # noqa: E402 - benchmarks/ is on sys.path when a script runs

from pyverify.checks.validate import load_valid_registry  # noqa: E402
from pyverify.engine.claim import run_registry_claim  # noqa: E402
from pyverify.engine.profiles import profile  # noqa: E402
from pyverify.engine.sandbox import numeric_settings  # noqa: E402

COPIES = {"_to_copy", "copy_"}
LINALG = ("linalg_", "_linalg_", "matrix_exp", "lu", "svd", "eig", "cholesky", "solve", "qr", "det")
LINALG_SEEN: collections.Counter = collections.Counter()  # linear-algebra operators of every claim counted


def count(registry, cid: str, budget, seed: int) -> tuple[int, int, int, int, float, str]:
    """(operators, host synchronisations, copies, linear-algebra operators, CPU seconds of a plain run,
    verdict) of one claim's check."""
    started = time.perf_counter()
    with numeric_settings():
        run_registry_claim(registry, cid, budget, seed, "cpu")
    seconds = time.perf_counter() - started
    counter = OpCounter()
    with numeric_settings(), counter:
        result = run_registry_claim(registry, cid, budget, seed, "cpu")
    ops = sum(counter.ops.values())
    syncs = counter.syncs()
    copies = sum(counter.ops[s] for s in COPIES)
    kernels = {name: n for name, n in counter.ops.items() if name.startswith(LINALG) or name.endswith(LINALG)}
    LINALG_SEEN.update(kernels)
    return ops, syncs, copies, sum(kernels.values()), seconds, result.verdict.value


def profile_on(registry, cid: str, budget, seed: int, device: str, rows: int) -> None:
    """One warm-up run, then one under torch.profiler; the operators by total time (on the device too)."""
    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as profiled

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.startswith("cuda") else [])
    with numeric_settings():
        run_registry_claim(registry, cid, budget, seed, device)
        started = time.perf_counter()
        with profiled(activities=activities) as prof:
            result = run_registry_claim(registry, cid, budget, seed, device)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
    key = "cuda_time_total" if device.startswith("cuda") else "cpu_time_total"
    print(f"\n{cid} on {device}: {result.verdict.value}, {time.perf_counter() - started:.2f} s under the profiler")
    print(prof.key_averages().table(sort_by=key, row_limit=rows))
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--budget", default="quick", choices=("quick", "default", "thorough"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=15, help="claims listed, by launch floor (default 15)")
    parser.add_argument("--launch-us", type=float, default=5.0)
    parser.add_argument("--sync-us", type=float, default=20.0)
    parser.add_argument("--profile", action="store_true", help="profile the given claims on --device instead")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    registry = load_valid_registry(None)
    ids = args.ids or list(registry.claims)
    unknown = [i for i in ids if i not in registry.claims]
    if unknown:
        parser.error(f"unknown claim ids: {', '.join(unknown)}")
    chosen = profile(args.budget)
    if args.profile:
        for cid in args.ids:
            profile_on(registry, cid, chosen, args.seed, args.device, args.top)
        return 0
    rows = []
    for cid in ids:
        ops, syncs, copies, linalg, seconds, verdict = count(registry, cid, chosen, args.seed)
        floor = (ops * args.launch_us + syncs * args.sync_us) * 1e-6
        rows.append((cid, ops, syncs, copies, linalg, seconds, floor, verdict))
    print(f"budget {args.budget}, seed {args.seed}, {len(rows)} claims, counted on the CPU (one process); the floor: "
          f"{args.launch_us:g} us a launch, {args.sync_us:g} us a host synchronisation")
    print(f"{'claim':<36} {'verdict':<14} {'operators':>10} {'syncs':>8} {'copies':>8} {'linalg':>8} {'CPU s':>8} "
          f"{'floor s':>8} {'floor/CPU':>9}")
    for cid, ops, syncs, copies, linalg, seconds, floor, verdict in sorted(rows, key=lambda r: -r[6])[: args.top]:
        print(f"{cid:<36} {verdict:<14} {ops:>10} {syncs:>8} {copies:>8} {linalg:>8} {seconds:>8.2f} {floor:>8.2f} "
              f"{floor / seconds:>9.2f}")
    ops, syncs, copies, linalg, seconds, floor = (sum(r[k] for r in rows) for k in range(1, 7))
    print(f"{'all':<36} {'':<14} {ops:>10} {syncs:>8} {copies:>8} {linalg:>8} {seconds:>8.1f} {floor:>8.1f} "
          f"{floor / seconds:>9.2f}")
    print("linear-algebra operators, all claims:", ", ".join(f"{n} {k}" for k, n in LINALG_SEEN.most_common(10)))
    slower = sum(1 for r in rows if r[6] > r[5])
    print(f"{slower} of {len(rows)} claims would spend longer launching their operators on a GPU than their whole "
          "check takes on one CPU core")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
