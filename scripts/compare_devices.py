"""The same claims on the CPU and on CUDA must reach the same verdicts: compare two runs claim by claim.

    python scripts/compare_devices.py CPU.json CUDA.json
    python scripts/compare_devices.py --run [--budget quick] [--seed 0] [--device cuda] [--jobs 4] [--device-jobs 1]
                                      [--chunk N [--deadline SECONDS]] [--keep DIR] [--only ID ...]

The first form reads two ``pyverify check --format json`` outputs; the second makes them (the CPU run with
``--jobs`` workers, the CUDA run with ``--device-jobs`` workers sharing the card), prints each run's wall time
and keeps them in ``--keep`` if given. With ``--chunk N`` the run on the device checks N claims at a time,
each chunk its own file: a device run cut short (issue 20's first CUDA runs did not finish within their
limit, and a cut ``pyverify check`` writes nothing) still compares the chunks that finished, and
``--deadline`` starts no chunk after that many seconds (the first always runs). A comparison of fewer claims than the CPU run's
says how many it left out and exits 3 where the claims it compared agree.

The random streams differ between devices (a generator on CUDA draws other numbers than one on the CPU
from the same seed), so witnesses, worst figures and messages may differ; verdicts may not. The script
exits 1 when any claim's verdict differs, when a claim ends in ``error`` on either device (on CUDA most
likely a tensor or generator left on the wrong device), or when the two runs do not hold the same claims
at the same seed and budget; 3 when a chunked device run left claims out and the rest agree; 0 otherwise;
2 on unusable input. Each difference is listed with both
messages; for the agreeing claims it prints the largest relative difference of the worst figures, a
measure of how far the two streams led the search apart.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _unusable(message: str) -> SystemExit:
    print(f"compare_devices: {message}", file=sys.stderr)
    return SystemExit(2)


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise _unusable(f"{path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise _unusable(f"{path}: not the JSON of `pyverify check --format json`")
    return data


def _relative(a, b) -> float | None:
    if not (isinstance(a, (int, float)) and isinstance(b, (int, float))) or not all(map(math.isfinite, (a, b))):
        return None
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def differences(cpu: dict, cuda: dict) -> tuple[list[str], float, str | None]:
    """(every disagreement, as lines; the largest relative difference of ``worst`` among agreeing
    claims; the claim it belongs to)."""
    out = [f"run field {key}: {cpu.get(key)!r} (cpu run) vs {cuda.get(key)!r} (cuda run)"
           for key in ("seed", "budget") if cpu.get(key) != cuda.get(key)]
    a = {c["id"]: c for c in cpu["claims"]}
    b = {c["id"]: c for c in cuda["claims"]}
    for cid in sorted(a.keys() ^ b.keys()):
        out.append(f"{cid}: only in the {'cuda' if cid in b else 'cpu'} run")
    spread, where = 0.0, None
    for cid in [c["id"] for c in cpu["claims"] if c["id"] in b]:
        x, y = a[cid], b[cid]
        errors = [side for side, c in (("cpu", x), ("cuda", y)) if c.get("verdict") == "error"]
        if x.get("verdict") != y.get("verdict") or errors:
            what = f"error on {' and '.join(errors)}" if errors else "verdicts differ"
            out.append(f"{cid}: {what}: cpu {x.get('verdict')} / cuda {y.get('verdict')}\n"
                       f"    cpu:  {(x.get('message') or '')[:300]}\n    cuda: {(y.get('message') or '')[:300]}")
            continue
        rel = _relative(x.get("worst"), y.get("worst"))
        if rel is not None and rel > spread:
            spread, where = rel, cid
    return out, spread, where


def _chunked(common: list[str], device: list[str], ids: list[str], size: int, deadline: float | None,
             folder: Path, name: str) -> dict:
    """The device run, ``size`` claims at a time (each chunk's JSON kept, ``NAME-000.json`` on), merged into
    one run; the first chunk always runs, and those not started before ``deadline`` seconds are left out
    (and said so). Without ``--chunk`` the one chunk is every claim of the CPU run."""
    started = time.monotonic()
    merged: dict | None = None
    chunks = [ids[i: i + size] for i in range(0, len(ids), size)]
    for k, chunk in enumerate(chunks):
        if k and deadline is not None and time.monotonic() - started > deadline:
            print(f"  deadline: {len(chunks) - k} of {len(chunks)} chunks not started", flush=True)
            break
        path = folder / f"{name}-{k:03d}.json"
        _check([*common, *chunk, *device], path)
        run = _load(path)
        merged = run if merged is None else merged | {"claims": merged["claims"] + run["claims"]}
    if merged is None:
        raise _unusable("the CPU run checked no claim: nothing to run on the device")
    return merged


def _check(args: list[str], out: Path) -> None:
    cmd = [sys.executable, "-m", "pyverify", "check", "--format", "json", "--no-progress", "--out", str(out), *args]
    print("running:", " ".join(cmd[1:]), flush=True)
    started = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if done.returncode not in (0, 1):  # 1: some verdict differs from its expect, still a complete run
        raise _unusable(f"`{' '.join(cmd[1:])}` exited {done.returncode}")
    print(f"  wall time {time.monotonic() - started:.1f} s", flush=True)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("files", nargs="*", type=Path, metavar="JSON", help="CPU.json CUDA.json (without --run)")
    p.add_argument("--run", action="store_true", help="run both checks here first")
    p.add_argument("--budget", default="quick", choices=["quick", "default", "thorough"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cuda", help="the device compared with the CPU (default cuda)")
    p.add_argument("--jobs", type=int, default=4, help="CPU workers for the CPU run (default 4)")
    p.add_argument("--device-jobs", type=int, default=1,
                   help="workers for the run on --device, all on the one card (default 1)")
    p.add_argument("--keep", type=Path, default=None, help="with --run: keep cpu.json and on-DEVICE-000.json (one per chunk) in this folder")
    p.add_argument("--only", nargs="+", default=[], metavar="ID", help="with --run: these claims only")
    p.add_argument("--chunk", type=int, default=None, metavar="N", help="with --run: the device run N claims at a time")
    p.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                   help="with --chunk: start no chunk of the device run after this many seconds")
    args = p.parse_args(argv)
    if args.run == bool(args.files) or (args.files and len(args.files) != 2):
        p.error("give two JSON files, or --run")
    if (args.chunk is not None and (not args.run or args.chunk < 1)) or (args.deadline is not None and args.chunk is None):
        p.error("--chunk N (N >= 1) goes with --run, and --deadline with --chunk")
    left_out = 0
    if args.run:
        folder = args.keep or Path(tempfile.mkdtemp(prefix="compare_devices-"))
        folder.mkdir(parents=True, exist_ok=True)
        name = f"on-{args.device.replace(':', '')}"
        common = ["--budget", args.budget, "--seed", str(args.seed)]
        device = ["--device", args.device, "--jobs", str(args.device_jobs)]
        _check([*common, *args.only, "--device", "cpu", "--jobs", str(args.jobs)], folder / "cpu.json")
        cpu = _load(folder / "cpu.json")
        ids = [c["id"] for c in cpu["claims"]]
        cuda = _chunked(common, device, ids, args.chunk or max(1, len(ids)), args.deadline, folder, name)
        left_out = len(ids) - len(cuda["claims"])
        done = {c["id"] for c in cuda["claims"]}
        cpu = cpu | {"claims": [c for c in cpu["claims"] if c["id"] in done]}
    else:
        cpu, cuda = (_load(path) for path in args.files)
    found, spread, where = differences(cpu, cuda)
    for line in found:
        print(line)
    print(f"{len(cpu['claims'])} claims on {cpu.get('device')} / {len(cuda['claims'])} on {cuda.get('device')}; "
          f"{len(found)} difference(s) in verdict, error or run; largest relative difference of the worst "
          f"figure among agreeing claims: {spread:.3g}" + (f" ({where})" if where else ""))
    if left_out:
        print(f"PARTIAL: {left_out} claim(s) of the CPU run were not run on {args.device} before the deadline "
              "and are not compared")
    return 1 if found else (3 if left_out else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
