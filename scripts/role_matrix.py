"""Every role of the papers bound at once to a correct, batching-hostile implementation
(tests/precision_fixtures/hostile_roles.py), over seeds x budgets x precisions; and each role's planted
defect alone (issue 23's "done when": no refutation of a correct implementation, defects still refuted far
above their precision's noise).

Each run is ``pyverify check --format json --bind ROLE=tests/precision_fixtures/hostile_roles.py:NAME,...,
precision=P``. Per (precision, budget) it prints the runs, the claims run, the refutations the registry does
not expect (ids, with how many runs had each), the inconclusive and error verdicts, and the wall time per run;
per defect, whether it was refuted and its worst violation score (the multiple of the tolerance, which at
float32 or bfloat16 is already scaled by that precision's unit roundoff).

    python scripts/role_matrix.py [--seeds 0 1 ...] [--budgets quick default thorough]
        [--precisions float64 float32 bfloat16] [--defects] [--defect-budget quick] [--defect-seeds 0]
        [--naive] [--workers 1] [--jobs 2] [--tightness-seeds N] [--json OUT]

Exit status 1 when a correct implementation gets a refutation the registry does not expect, a run fails,
or (with --defects) a planted defect is not refuted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = "tests/precision_fixtures/hostile_roles.py"
sys.path.insert(0, str(ROOT / "tests" / "precision_fixtures"))
import hostile_roles  # noqa: E402  (the conventions and defects, one source)

PRECISIONS = ("float64", "float32", "bfloat16")
SCORE = re.compile(r"violation score ([0-9.eE+-]+)")


def bind_options(precision: str, swap: dict[str, str] | None = None, only: str | None = None) -> list[str]:
    """``--bind`` of every role to its correct function (``swap``: role -> another function of the fixture;
    ``only``: that role alone)."""
    out = []
    for role, (name, conventions) in hostile_roles.CONVENTIONS.items():
        if only and role != only:
            continue
        name = (swap or {}).get(role, name)
        options = "".join(f",{k}={v}" for k, v in conventions.items())
        out += ["--bind", f"{role}={FIXTURE}:{name}{options},precision={precision}"]
    return out


def run(kind: str, precision: str, budget: str, seed: int, binds: list[str], jobs: int, timeout: float | None,
        tightness_seeds: int | None = None) -> dict:
    cmd = [sys.executable, "-m", "pyverify", "check", "--format", "json", "--no-progress", "--budget", budget,
           "--seed", str(seed), "--jobs", str(jobs), *binds]
    if tightness_seeds is not None:
        cmd += ["--tightness-seeds", str(tightness_seeds)]
    env = {**os.environ, "HOSTILE_ROLES_DTYPE": precision}
    start = time.monotonic()
    row = {"kind": kind, "precision": precision, "budget": budget, "seed": seed}
    try:
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {**row, "wall_s": round(time.monotonic() - start, 1), "failed": f"stopped after {timeout} s (--timeout)"}
    row["wall_s"] = round(time.monotonic() - start, 1)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {**row, "failed": (done.stderr or done.stdout)[-1500:]}
    claims = []
    for c in report["claims"]:
        score = SCORE.search(c.get("message") or "")
        claims.append({"id": c["id"], "verdict": c["verdict"], "expect": c.get("expect"), "bound": c.get("bound", []),
                       "score": float(score.group(1)) if score else None, "message": (c.get("message") or "")[:600],
                       "elapsed_s": c.get("elapsed_s")})
    return {**row, "claims": claims}


def unexpected(r: dict) -> list[dict]:
    """Refutations the registry does not expect (a paper's own error is expected: the reference is refuted too)."""
    return [c for c in r.get("claims", []) if c["verdict"] == "refuted" and c["expect"] != "refuted"]


def satisfied_falsely(r: dict) -> list[dict]:
    """Claims the reference refutes (the registry expects it) that the bound code is said to satisfy: a
    correct implementation of a false statement must not hold it."""
    return [c for c in r.get("claims", []) if c["verdict"] in ("holds", "consistent") and c["expect"] == "refuted"]


def _ids(rows: list[dict], pick) -> str:
    seen: dict[str, int] = {}
    for r in rows:
        for c in pick(r):
            seen[c["id"]] = seen.get(c["id"], 0) + 1
    return ", ".join(f"{cid}" + (f" x{n}" if n > 1 else "") for cid, n in sorted(seen.items())) or "-"


def summarise_correct(results: list[dict]) -> int:
    groups: dict[tuple, list[dict]] = {}
    for r in results:
        groups.setdefault((r["precision"], r["budget"]), []).append(r)
    print(f"{'precision':9} {'budget':8} {'runs':>4} {'seeds':12} {'claims':>6} {'wall s/run':>14}  "
          "unexpected refutations | false claims held | inconclusive | error")
    bad = 0
    for (precision, budget), rows in sorted(groups.items(), key=lambda kv: (PRECISIONS.index(kv[0][0]), kv[0][1])):
        ok = [r for r in rows if "failed" not in r]
        walls = [r["wall_s"] for r in rows]
        claims = sorted({len(r["claims"]) for r in ok})
        refuted = sum(len(unexpected(r)) for r in ok)
        held = sum(len(satisfied_falsely(r)) for r in ok)
        inconclusive = sum(c["verdict"] == "inconclusive" for r in ok for c in r["claims"])
        errors = sum(c["verdict"] == "error" for r in ok for c in r["claims"])
        seeds = ",".join(str(r["seed"]) for r in sorted(rows, key=lambda r: r["seed"]))
        print(f"{precision:9} {budget:8} {len(rows):>4} {seeds:12} {'/'.join(map(str, claims)):>6} "
              f"{min(walls):6.0f}-{max(walls):<6.0f}  {refuted} [{_ids(ok, unexpected)}] | {held} "
              f"[{_ids(ok, satisfied_falsely)}] | {inconclusive} "
              f"[{_ids(ok, lambda r: [c for c in r['claims'] if c['verdict'] == 'inconclusive'])}] | {errors} "
              f"[{_ids(ok, lambda r: [c for c in r['claims'] if c['verdict'] == 'error'])}]"
              + (f"  FAILED RUNS: {len(rows) - len(ok)}" if len(ok) < len(rows) else ""))
        bad += refuted + held + len(rows) - len(ok)
    for r in results:
        for c in unexpected(r):
            print(f"  {r['precision']} {r['budget']} seed {r['seed']}: {c['id']} (bound {', '.join(c['bound'])}): "
                  f"{c['message'][:300]}")
        if "failed" in r:
            print(f"  {r['precision']} {r['budget']} seed {r['seed']}: FAILED: {r['failed'][-300:]}")
    return bad


def summarise_defects(results: list[dict]) -> int:
    print(f"\n{'defect':38} {'precision':9} {'budget':8} {'seed':>4} {'refuted':>7} {'worst score':>12}  claim (of those run)")
    bad = 0
    for r in results:
        name = r["kind"].split(":")[-1]
        hits = unexpected(r) if "failed" not in r else []
        scored = [c for c in hits if c["score"] is not None]
        worst = max(scored, key=lambda c: c["score"]) if scored else (hits[0] if hits else None)
        score = f"{worst['score']:.3g}" if worst and worst["score"] is not None else ("order/const" if worst else "-")
        print(f"{name:38} {r['precision']:9} {r['budget']:8} {r['seed']:>4} "
              f"{len(hits):>3}/{len(r.get('claims', [])):<3} {score:>12}  {worst['id'] if worst else ''}"
              + ("  FAILED" if "failed" in r else ""))
        bad += not hits
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    ap.add_argument("--budgets", nargs="+", default=["quick", "default", "thorough"])
    ap.add_argument("--precisions", nargs="+", default=list(PRECISIONS), choices=PRECISIONS)
    ap.add_argument("--defects", action="store_true", help="also each role's planted defect, bound alone")
    ap.add_argument("--defect-budget", default="quick")
    ap.add_argument("--defect-seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--naive", action="store_true", help="also the arccos geodesic distance (gsm_logits_arccos)")
    ap.add_argument("--no-correct", action="store_true", help="skip the correct implementations")
    ap.add_argument("--roles", nargs="+", choices=sorted(hostile_roles.DEFECTS), help="the defects of these roles only")
    ap.add_argument("--workers", type=int, default=1, help="runs at once")
    ap.add_argument("--jobs", type=int, default=2, help="pyverify's worker processes per run")
    ap.add_argument("--timeout", type=float, help="seconds after which a run is stopped (reported as failed)")
    ap.add_argument("--tightness-seeds", type=int, metavar="N",
                    help="pyverify's --tightness-seeds (the thorough profile re-checks every holding bound with 3 "
                         "seeds for its tightness spread; 1 spends the time on more seeds of the matrix instead)")
    ap.add_argument("--json", type=Path, help="write every run's verdicts here")
    ap.add_argument("--summarise", type=Path, nargs="+", help="print the tables of earlier --json files, run nothing")
    args = ap.parse_args()
    if args.summarise:
        return summarise([r for f in args.summarise for r in json.loads(f.read_text())])
    jobs = [] if args.no_correct else [("correct", p, b, s, bind_options(p)) for b in args.budgets
                                       for s in args.seeds for p in args.precisions]
    if args.naive:
        jobs += [("naive:gsm_logits", p, b, s, bind_options(p, {"gsm_logits": "gsm_logits_arccos"}, only="gsm_logits"))
                 for b in args.budgets for s in args.seeds for p in args.precisions]
    if args.defects:
        jobs += [(f"defect:{role}:{name}", p, args.defect_budget, s, bind_options(p, {role: name}, only=role))
                 for role, (name, _) in hostile_roles.DEFECTS.items() if not args.roles or role in args.roles
                 for p in args.precisions for s in args.defect_seeds]
    results: list[dict] = []

    def one(job):
        r = run(*job, jobs=args.jobs, timeout=args.timeout, tightness_seeds=args.tightness_seeds)
        results.append(r)
        print(f"# {r['kind']} {r['precision']} {r['budget']} seed {r['seed']}: {r['wall_s']} s, "
              f"{len(unexpected(r))} unexpected refutation(s)" + (" FAILED" if "failed" in r else ""), flush=True)
        if args.json:  # kept after every run: an interrupted matrix keeps what ran
            args.json.write_text(json.dumps(results, indent=1))
        return r

    with ThreadPoolExecutor(args.workers) as pool:
        list(pool.map(one, jobs))
    return summarise(results)


def summarise(results: list[dict]) -> int:
    bad = summarise_correct([r for r in results if r["kind"] == "correct"])
    naive = [r for r in results if r["kind"].startswith("naive:")]
    if naive:
        print("\nthe arccos geodesic distance (not counted: floating point, not a planted defect):")
        summarise_correct(naive)
    defects = [r for r in results if r["kind"].startswith("defect:")]
    if defects:
        bad += summarise_defects(defects)
    print(f"\n{bad} problem(s): a refutation of a correct implementation the registry does not expect, a failed run,"
          " or a defect not refuted")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
