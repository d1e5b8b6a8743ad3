"""The ``pyverify`` command (contract: DESIGN.md, "Command line").

Exit status: 0 success, 1 a check failed (graph faults, verdicts that differ from ``expect``),
2 unusable input (a registry that does not load, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .registry import RegistryError, Verdict, claim_file_schema, load_registry

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2


def _print_registry_error(exc: RegistryError) -> None:
    print(f"pyverify: the registry has {len(exc.problems)} problem(s):", file=sys.stderr)
    for problem in exc.problems:
        print(f"  {problem}", file=sys.stderr)


def cmd_list(args: argparse.Namespace) -> int:
    reg = load_registry(args.registry)
    rows = [
        {
            "id": c.id,
            "document": c.document,
            "kind": c.kind.value,
            "title": c.title,
            "statement": c.statement,
            "deps": list(c.deps),
            "deps_truncated": c.deps_truncated,
            "restates": list(c.restates),
            "locator": c.locator,
            "file": str(reg.locations[c.id].file),
            "line": reg.locations[c.id].line,
            "checked": c.check is not None,
            "expect": c.expect,
        }
        for c in reg.claims.values()
    ]
    if args.format == "json":
        json.dump(rows, sys.stdout, indent=1, ensure_ascii=False)
        print()
        return EXIT_OK
    for doc, claims in reg.by_document().items():
        print(f"{doc} ({len(claims)} claims) — {reg.documents[doc].title}")
        for c in claims:
            print(f"  {c.id:<22} {c.kind.value:<11} {c.title}")
    print(f"{len(rows)} claims in {len(reg.documents)} documents")
    return EXIT_OK


def cmd_graph(args: argparse.Namespace) -> int:
    from .registry.graph import check_graph, to_dot

    reg = load_registry(args.registry)
    report = check_graph(reg)
    g = report.graph
    if args.format == "json":
        out = {
            "nodes": [{"id": n, **g.nodes[n]} for n in g.nodes],
            "edges": [{"from": a, "to": b} for a, b in g.edges],
            "findings": [
                {"id": f.claim_id, "type": f.finding, "key": f.key, "message": f.message, "note": note}
                for f, note in report.accepted
            ],
            "problems": [p.as_dict() for p in report.problems],
        }
        json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
        print()
    elif args.format == "dot":
        sys.stdout.write(to_dot(reg, g))
    else:
        if not args.check:
            for cid in g.nodes:
                deps = ", ".join(reg.claims[cid].deps) or "-"
                print(f"{cid:<22} <- {deps}")
        print(f"{g.number_of_nodes()} claims, {g.number_of_edges()} dependency edges, "
              f"{len(report.accepted)} recorded document finding(s)")
        if args.check and report.accepted:
            print("recorded findings (the documents' own defects):")
            for fault, note in report.accepted:
                print(f"  {reg.line_of(fault.claim_id)}: [{fault.claim_id}] {fault.finding}: {fault.message} — {note}")
    if args.check:
        if report.problems:
            print(f"{len(report.problems)} graph problem(s):", file=sys.stderr)
            for p in report.problems:
                print(f"  {p}", file=sys.stderr)
            return EXIT_FAIL
        print("graph check: ok")
    return EXIT_OK


def _usage_error(msg: str) -> int:
    print(f"pyverify: {msg}", file=sys.stderr)
    return EXIT_INPUT


def cmd_check(args: argparse.Namespace) -> int:
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        return _usage_error("--device cuda was asked for, but no CUDA device is available")
    from .engine import check_claims

    reg = load_registry(args.registry)
    progress = args.format == "text" and sys.stderr.isatty() and not args.no_progress
    results = check_claims(reg, args.ids, args.budget, args.seed, args.device, args.jobs, progress, args.tightness_seeds)
    payload = {"seed": args.seed, "device": args.device, "budget": args.budget,
               "claims": [_with_severity(r.as_dict(), reg.claims[r.id]) for r in results]}
    if args.out:
        Path(args.out).write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.format == "json":
        json.dump(payload, sys.stdout, indent=1, ensure_ascii=False)
        print()
    else:
        for r in results:
            flag = "" if r.matches else f"   <-- expected {r.expect}"
            sev = reg.claims[r.id].severity if r.verdict is Verdict.refuted else None
            grade = f" [{sev.level}: {sev.reason}]" if sev else (" [severity unassessed]" if r.verdict is Verdict.refuted else "")
            print(f"{r.id:<24} {r.verdict:<14} {r.message}{grade}{flag}")
        counts: dict[str, int] = {}
        for r in results:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        mism = sum(not r.matches for r in results)
        unrev = sum(r.expect is None for r in results)
        print(f"{len(results)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + f"; {mism} differ from expect; {unrev} unreviewed")
    return EXIT_OK if all(r.matches for r in results) else EXIT_FAIL


def _with_severity(row: dict, claim) -> dict:
    """A refuted claim's JSON carries the registry's severity of the error (null: not assessed)."""
    if row["verdict"] == Verdict.refuted.value:
        row["severity"] = claim.severity.model_dump() if claim.severity else None
    return row


def cmd_lean(args: argparse.Namespace) -> int:
    from .provers import lean

    reg = load_registry(args.registry)
    built, log = (False, "")
    chain = lean.toolchain()
    if args.build:
        built, log = lean.lake_build()
    decls = lean.index()
    formal, mismatches = lean.formal_status(reg, decls, built)
    if args.format == "json":
        json.dump({"toolchain": chain, "built": built, "claims": list(formal.values()),
                   "declarations": [d.as_dict() for d in decls], "mismatches": mismatches}, sys.stdout, indent=1)
        print()
    else:
        print(f"Lean toolchain: {chain or 'none installed (no proof can be checked here)'}")
        if args.build:
            print(f"lake build: {'passed' if built else 'FAILED or not run'}" + (f"\n{log}" if not built else ""))
        print(f"{len(decls)} declarations, {sum(d.sorry for d in decls)} containing sorry/admit")
        for d in decls:
            if d.sorry:
                print(f"  sorry: {d.file}:{d.line} {d.name}")
        linked = [f for f in formal.values() if f["lean"]]
        print(f"{len(linked)} claims linked to Lean declarations")
        for f in linked:
            print(f"  {f['id']:<22} {f['formal']:<14} {f['lean']}")
        for m in mismatches:
            print(f"  mismatch: {m}")
    if args.build and not built:
        return EXIT_FAIL
    return EXIT_FAIL if mismatches else EXIT_OK


def _compare(old_path: str, report: dict) -> dict:
    """What changed against an earlier report.json (the comparison itself is pyverify.report.compare's)."""
    import json

    from .report import compare

    old = json.loads(Path(old_path).read_text(encoding="utf-8"))
    changes = compare.compare(old, report)
    for section, entries in changes.items():
        for e in entries if isinstance(entries, list) else []:
            print(f"{section}: {e.get('id')}: {e.get('old')} -> {e.get('new')}" if isinstance(e, dict) else f"{section}: {e}")
    return changes


def cmd_report(args: argparse.Namespace) -> int:
    from .engine import check_claims
    from .provers import lean
    from .registry.graph import check_graph
    from .report import build
    from .report.writers import write_all

    reg = load_registry(args.registry)
    graph = check_graph(reg)
    results = check_claims(reg, (), args.budget, args.seed, args.device, args.jobs,
                           progress=sys.stderr.isatty() and not args.no_progress)
    built = False
    if args.lean_build:
        built, _ = lean.lake_build()
    formal, _ = lean.formal_status(reg, lean.index(), built)
    report = build(reg, results, graph, formal, {"budget": args.budget, "seed": args.seed, "device": args.device,
                                                  "toolchain": lean.toolchain(), "lean_built": built})
    out = Path(args.out)
    changes = _compare(args.compare, report) if args.compare else None
    write_all(report, out, changes)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    mism = [r.id for r in results if not r.matches]
    print(f"report written to {out}/ (index.html, report.json, report.md, graph.svg)")
    print(f"{len(results)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f"; graph problems: {len(graph.problems)}; verdicts differing from expect: {len(mism)}"
          + (f" ({', '.join(mism[:10])})" if mism else ""))
    return EXIT_OK if not mism and graph.ok else EXIT_FAIL


def cmd_certify(args: argparse.Namespace) -> int:
    import torch

    from .attention import certify
    from .engine import check_claim

    reg = load_registry(args.registry)
    try:
        state = torch.load(args.state, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch.load raises many kinds (pickle, zip, runtime)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return _usage_error(f"{args.state}: cannot load a state dict (weights only): {first}")
    if hasattr(state, "state_dict"):
        state = state.state_dict()
    verdicts = {}
    for cid in sorted(set(certify.RESTS_ON.values())):
        if cid in reg.claims:
            verdicts[cid] = check_claim(reg, cid, args.budget, args.seed).verdict.value
    try:
        reports = certify.certify(state, verdicts, prefix=args.prefix, radius=args.radius)
    except ValueError as exc:
        return _usage_error(f"{args.state}: {exc}")
    if args.format == "json":
        json.dump({"state": str(args.state), "radius": args.radius, "verdicts": verdicts,
                   "heads": [{"head": r.head, "measured": r.measured, "guarantees": r.guarantees} for r in reports]},
                  sys.stdout, indent=1)
        print()
        return EXIT_OK
    print(f"{args.state}: {len(reports)} head(s); guarantees rest on {', '.join(f'{k} ({v})' for k, v in verdicts.items())}")
    for r in reports:
        m = r.measured
        print(f"head {r.head}: eps_comm {m['eps_comm']:.3g}, eta_mix {m['eta_mix']:.3g}, dist to A {m['dist_A']:.3g}, "
              f"rho {m['rho']:.3g}, max |L_k| {m['lambda_max']:.3g}")
        for g in r.guarantees:
            extra = f" [bound {g['bound']:.4g}, observed {g['observed']:.4g}]" if "bound" in g else ""
            why = f" — fails: {'; '.join(g['failing_hypotheses'])}" if g["failing_hypotheses"] else ""
            print(f"  {g['status']:<17} {g['statement']} (rests on {g['rests_on']}: {g['claim_verdict']}){why}{extra}")
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    text = json.dumps(claim_file_schema(), indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return EXIT_OK


def _default_jobs() -> int:
    import os

    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)))


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--registry", type=Path, default=None,
                        help="registry YAML file or folder (default: the project's claims/)")
    parser = argparse.ArgumentParser(prog="pyverify", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", parents=[common], help="list the claims of the registry")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("graph", parents=[common], help="the dependency graph; --check lists every fault")
    p.add_argument("--check", action="store_true")
    p.add_argument("--format", choices=["text", "json", "dot"], default="text")
    p.set_defaults(func=cmd_graph)

    p = sub.add_parser("check", parents=[common], help="verify claims numerically (and symbolically where asked)")
    p.add_argument("ids", nargs="*", metavar="ID")
    p.add_argument("--budget", choices=["quick", "default", "thorough"], default="default")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda[:N]")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--out", default=None, help="also write the JSON result to this file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal")
    p.add_argument("--jobs", type=int, default=_default_jobs(), help="worker processes (default: CPU count, at most 4)")
    p.add_argument("--tightness-seeds", type=int, default=None, metavar="N",
                   help="report the spread of each holding bound's tightness over N seeds (default: 3 at thorough, else 1)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("report", parents=[common], help="check everything and write the report")
    p.add_argument("--out", default="report", help="output folder (default report/)")
    p.add_argument("--budget", choices=["quick", "default", "thorough"], default="default")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    p.add_argument("--lean-build", action="store_true", help="run `lake build` first (formal status `checked` needs it)")
    p.add_argument("--compare", metavar="OLD_REPORT_JSON", default=None,
                   help="list what changed against an earlier report.json (verdicts, refutations, standings)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--jobs", type=int, default=_default_jobs())
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("lean", parents=[common], help="Lean declarations, sorry audit, formal status per claim")
    p.add_argument("--build", action="store_true", help="run `lake build` (needs a Lean toolchain)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_lean)

    p = sub.add_parser("certify", parents=[common], help="measure a trained ESPR layer's hypotheses and state what holds")
    p.add_argument("state", type=Path, help="a saved state dict (torch.save(layer.state_dict(), FILE))")
    p.add_argument("--prefix", default="", help="key prefix of the layer inside a model's state dict, e.g. 'blocks.0.attn.'")
    p.add_argument("--radius", type=float, default=1.0, help="bound positions |r|_1 <= radius")
    p.add_argument("--budget", choices=["quick", "default", "thorough"], default="quick")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_certify)

    p = sub.add_parser("schema", parents=[common], help="print the JSON Schema of a registry file")
    p.add_argument("--out", default=None)
    p.set_defaults(func=cmd_schema)

    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from .engine.runner import UnknownClaims

    try:
        return args.func(args)
    except RegistryError as exc:
        _print_registry_error(exc)
        return EXIT_INPUT
    except UnknownClaims as exc:
        return _usage_error(str(exc))
    except BrokenPipeError:  # `pyverify list | head`
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
