"""The report on a small user registry (the toy example) before and after a change, side by side in one
run: each tree's ``pyverify report`` run in turn, so that a load change on the shared machine hits both.

    python benchmarks/bench_report.py [--before REV] [--rounds N] [--budget quick|default]

``--before`` is a git revision of this repository (default: the commit before the restructuring of
issue 18, 7f5f812), extracted with ``git archive`` into a temporary folder; "after" is this working
tree. Both run the same registry (``examples/toy_rope`` of each tree, with its plugin), with one worker,
and are timed as a user sees them: the whole command, start-up included. The report prints the median
and each round, and the ratio before/after.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "7f5f812"


def extract(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def report_seconds(tree: Path, out: Path, budget: str) -> float:
    toy = tree / "examples" / "toy_rope"
    cmd = [sys.executable, "-m", "pyverify", "report", "--registry", str(toy / "claims"), "--plugin",
           str(toy / "plugin.py"), "--out", str(out), "--budget", budget, "--jobs", "1", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(tree)}  # this tree's pyverify before any installed one
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if "report written" not in proc.stdout:
        raise SystemExit(f"{tree}: the report did not run:\n{proc.stdout}\n{proc.stderr}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default=BEFORE)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--budget", default="default", choices=["quick", "default", "thorough"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {f"before ({args.before})": extract(args.before, Path(tmp) / "before"), "after (this tree)": ROOT}
        times: dict[str, list[float]] = {name: [] for name in trees}
        for r in range(args.rounds):
            for name, tree in trees.items():
                times[name].append(report_seconds(tree, Path(tmp) / f"out-{r}-{len(times[name])}-{name[:5]}",
                                                  args.budget))
    print(f"pyverify report on examples/toy_rope (budget {args.budget}, 1 worker), wall time in seconds")
    for name, ts in times.items():
        print(f"  {name:<22} median {statistics.median(ts):6.2f}   rounds: {', '.join(f'{t:.2f}' for t in ts)}")
    before, after = (statistics.median(ts) for ts in times.values())
    print(f"  before / after: {before / after:.2f}x")


if __name__ == "__main__":
    main()
