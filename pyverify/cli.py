"""The ``pyverify`` command (contract: DESIGN.md, "Command line").

Exit status: 0 success, 1 a check failed (graph faults, verdicts that differ from ``expect``; for ``mutate``, a
flagged check without a recorded ``mutation.survives`` reason),
2 unusable input (a registry that does not load, bad arguments, an output path that cannot be used),
3 a bug in pyverify (the traceback and how to report it), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .cli_io import (EXIT_FAIL, EXIT_INPUT, EXIT_OK, OutputPathError, device_problem as _device_problem,
                     output_file as _output_file, output_folder as _output_folder, usage_error as _usage_error,
                     write_output as _write_output)
from .registry import RegistryError, Verdict, claim_file_schema, load_registry


def _print_registry_error(exc: RegistryError) -> None:
    print(f"pyverify: the registry has {len(exc.problems)} problem(s):", file=sys.stderr)
    for problem in exc.problems:
        print(f"  {problem}", file=sys.stderr)


def _load_registry_with_plugins(path):
    """The registry, refused when it names a plugin nobody opted into (list and certify do not validate
    the checks, but must not accept what check would refuse)."""
    from .checks.plugins import unloaded_plugin_problems

    reg = load_registry(path)
    problems = unloaded_plugin_problems(reg)
    if problems:
        raise RegistryError(problems)
    return reg


def cmd_list(args: argparse.Namespace) -> int:
    reg = _load_registry_with_plugins(args.registry)
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


def cmd_check(args: argparse.Namespace) -> int:
    _output_file(args.out)
    if (problem := _device_problem(args.device)) is not None:
        return _usage_error(problem)
    from .analysis import binding_summary, check_row
    from .cli_bindings import bound_selection, meets_expectation, print_bindings
    from .checks.validate import load_valid_registry
    from .engine import check_claims
    from .report.evidence import evidence_sentences

    if args.pin_witness and not args.ids:
        return _usage_error("--pin-witness writes into the claims named on the command line: give their IDs")
    reg = load_valid_registry(args.registry)
    progress = args.format == "text" and sys.stderr.isatty() and not args.no_progress
    bound = bound_selection(reg, args.ids)
    meets = meets_expectation(bound is not None)
    ids = args.ids if bound is None else bound["run"]
    results = check_claims(reg, ids, args.budget, args.seed, args.device, args.jobs, progress,
                           args.tightness_seeds) if ids or bound is None else []
    payload = {"seed": args.seed, "device": args.device, "budget": args.budget,
               "claims": [check_row(r.as_dict(), reg.claims[r.id]) for r in results]}
    if bound is not None:
        for row in payload["claims"]:
            row["bound"] = bound["exercised"].get(row["id"], [])
        payload["bindings"] = binding_summary(bound["bindings"], bound["exercised"], payload["claims"])
        payload["not_affected"] = bound["not_affected"]
    written = _write_output(args.out, json.dumps(payload, indent=1, ensure_ascii=False) + "\n") if args.out else EXIT_OK
    if args.format == "json":
        json.dump(payload, sys.stdout, indent=1, ensure_ascii=False)
        print()
    else:
        for r, row in zip(results, payload["claims"]):
            flag = "" if meets(r) else f"   <-- expected {r.expect}"
            sev = row.get("severity")
            grade = f" [{sev['level']}: {sev['reason']}]" if sev else (" [severity unassessed]" if r.verdict is Verdict.refuted else "")
            print(f"{r.id:<24} {r.verdict:<14} {r.message}{grade}{flag}")
            if r.verdict is Verdict.refuted:  # both sides at the witness, where they differ, the defect's shape
                for sentence in evidence_sentences(r, reg.compiled.get(r.id)):
                    print(f"    {sentence}")
        counts: dict[str, int] = {}
        for r in results:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        mism = sum(not meets(r) for r in results)
        unrev = sum(r.expect is None for r in results)
        print(f"{len(results)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + f"; {mism} differ from expect; {unrev} unreviewed")
        if bound is not None:
            print_bindings(payload["bindings"], payload["not_affected"])
    if args.pin_witness:  # after the verdicts are shown: a pin that fails loses none of them
        _pin_witnesses(reg, results)
    if written != EXIT_OK:
        return written
    return EXIT_OK if all(meets(r) for r in results) else EXIT_FAIL


def _pin_witnesses(reg, results) -> None:
    """Each refuted claim's counterexample becomes the last of its check's examples (told on stderr), all or
    nothing: when one pin cannot be written, no file is touched."""
    from .engine.evidence import Counterexample
    from .registry.pin import PinError, pin_examples, witness_example

    pins = {}
    for r in results:
        if r.verdict is not Verdict.refuted:
            continue
        found = r.find(Counterexample)
        if found is None:
            print(f"{r.id}: its witness is no instance of the hypotheses (a growth, an order, a Monte-Carlo mean): "
                  "nothing to pin", file=sys.stderr)
        elif found.example is not None:
            print(f"{r.id}: refuted by its examples[{found.example}], already pinned", file=sys.stderr)
        else:
            pins[r.id] = witness_example(reg.claims[r.id].check, found.values, found.dims)
    if not pins:
        return
    try:
        pin_examples(reg, pins)
    except (PinError, OSError) as exc:
        print(f"{', '.join(pins)}: witness not pinned (no file changed): {exc}", file=sys.stderr)
        return
    for cid in pins:
        print(f"{cid}: witness pinned as the last of check.examples in {reg.locations[cid].file}", file=sys.stderr)


def cmd_lean(args: argparse.Namespace) -> int:
    from .provers import lean
    from .engine.hypotheses import count_models
    from .provers.lean.report import print_audit

    if args.sources is not None:
        if not args.sources.exists():
            print(f"error: {args.sources}: no such file or folder", file=sys.stderr)
            return EXIT_INPUT
        audit = lean.audit_sources(args.sources, args.names, args.build, args.timeout)
    else:
        from .contributions import lean_sources

        lean_dir = args.lean_dir if args.lean_dir is not None else lean_sources()
        if lean_dir is None:
            return _usage_error("no Lean sources: give --lean-dir (or --sources for a project without a registry)")
        reg = load_registry(args.registry)
        audit = lean.audit_project(reg, lean_dir, args.mapping, args.names, args.build,
                                   count_models=None if args.no_sampling else count_models, timeout=args.timeout,
                                   shown_relative_to=lean_dir.resolve().parent)
    if args.format == "json":
        json.dump(audit.as_dict(), sys.stdout, indent=1, ensure_ascii=False)
        print()
    else:
        print_audit(audit, sources_only=args.sources is not None)
    if audit.input_problems:
        return EXIT_INPUT
    return EXIT_FAIL if audit.failed else EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    import time

    from .checks.validate import load_valid_registry
    from .engine import check_claims
    from .provers import lean
    from .registry.graph import check_graph
    from .report import build, collect_meta
    from .report.compare import CompareError, as_text, compare, load_report
    from .report.plots import write_plots
    from .report.writers import write_all

    started = time.time()
    _output_folder(args.out)
    if (problem := _device_problem(args.device)) is not None:
        return _usage_error(problem)
    old = None
    if args.compare:
        try:  # read the old report first: a bad path should not cost a whole run
            old = load_report(args.compare)
        except CompareError as exc:
            return _usage_error(str(exc))
    reg = load_valid_registry(args.registry)
    graph = check_graph(reg)
    results = check_claims(reg, (), args.budget, args.seed, args.device, args.jobs,
                           progress=sys.stderr.isatty() and not args.no_progress)
    formal, lean_build = lean.claim_formal_status(reg, build=args.lean_build)
    built = lean_build.ran and lean_build.passed
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    plots = write_plots(reg, results, out)
    meta = collect_meta(seed=args.seed, budget=args.budget, device=args.device, started=started,
                        lean_built=built, toolchain=lean.toolchain(),
                        registry=None if args.registry is None else str(args.registry.resolve()),
                        plugins=tuple(_absolute_plugin(spec) for spec in args.plugin))
    report = build(reg, results, graph, formal, meta, plots)
    if old is not None:
        report["changes"] = compare(old, report)
    write_all(report, out, report.get("changes"))
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    mism = [r.id for r in results if not r.matches]
    print(f"report written to {out}/ (index.html, report.json, report.md, graph.svg, plots/)")
    print(f"{len(results)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f"; graph problems: {len(graph.problems)}; verdicts differing from expect: {len(mism)}"
          + (f" ({', '.join(mism[:10])})" if mism else ""))
    if old is not None:
        print(as_text(report["changes"]))
    return EXIT_OK if not mism and graph.ok else EXIT_FAIL


def _absolute_plugin(spec: str) -> str:
    """A --plugin as a command run from another folder finds it: a .py file by its absolute path."""
    return str(Path(spec).resolve()) if spec.endswith(".py") else spec


def cmd_mutate(args: argparse.Namespace) -> int:
    """The registry mutation pass; exit 1 when a flagged check has no recorded reason (README, "Mutation")."""
    _output_file(args.out)
    if args.cap < 1:
        return _usage_error("--max-mutants must be at least 1")
    from .checks.validate import load_valid_registry
    from .mutation import mutate_registry, print_report

    reg = load_valid_registry(args.registry)
    unknown = [i for i in args.ids if i not in reg.claims]
    if unknown:
        return _usage_error(f"unknown claim id(s): {', '.join(unknown)}")
    tell = None
    if args.format == "text" and not args.no_progress and sys.stderr.isatty():
        def tell(res):  # noqa: E306 - one line per claim as it finishes
            print(f"  {res.id}: {res.count('killed')}/{len(res.mutants)} killed", file=sys.stderr)
    report = mutate_registry(reg, args.ids, args.budget, args.seed, args.cap, args.jobs, progress=tell)
    payload = report.as_dict()
    written = _write_output(args.out, json.dumps(payload, indent=1, ensure_ascii=False) + "\n") if args.out else EXIT_OK
    if args.format == "json":
        json.dump(payload, sys.stdout, indent=1, ensure_ascii=False)
        print()
    else:
        print_report(report, sys.stdout)
    if written != EXIT_OK:
        return written
    return EXIT_FAIL if payload["summary"]["unexplained"] else EXIT_OK


def cmd_certify(args: argparse.Namespace) -> int:
    from .certify.command import certify_command

    if args.module is not None:  # the laws are checked on the running layer: no claim verdict is needed
        return certify_command(args, None)
    return certify_command(args, _load_registry_with_plugins(args.registry))


def cmd_schema(args: argparse.Namespace) -> int:
    _output_file(args.out)
    text = json.dumps(claim_file_schema(), indent=1)
    if args.out:
        return _write_output(args.out, text + "\n")
    print(text)
    return EXIT_OK


def _default_jobs() -> int:
    import os

    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)))


def _binding_options(p: argparse.ArgumentParser, effect: str) -> None:
    p.add_argument("--bind", action="append", default=[], metavar="ROLE=MODULE:ATTR[,KEY=VALUE...]",
                   help="check your own function in a role's place (repeatable; keys: the role's conventions, "
                   f"layout, precision; docs/your-own-code.md); {effect}")
    p.add_argument("--bindings", action="append", default=[], type=Path, metavar="FILE",
                   help="a bindings file (YAML or TOML) of role entries (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--registry", type=Path, default=None,
                        help="registry YAML file or folder (default: the installed content package's, the five papers)")
    plugins = argparse.ArgumentParser(add_help=False)
    plugins.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_FILE",
                         help="load a plugin of your own functions/samplers (repeatable; docs/your-own-code.md)")
    parser = argparse.ArgumentParser(prog="pyverify", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", parents=[common, plugins], help="list the claims of the registry")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("graph", parents=[common], help="the dependency graph; --check lists every fault")
    p.add_argument("--check", action="store_true")
    p.add_argument("--format", choices=["text", "json", "dot"], default="text")
    p.set_defaults(func=cmd_graph)

    p = sub.add_parser("check", parents=[common, plugins], help="verify claims numerically (and symbolically where asked)")
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
    p.add_argument("--pin-witness", action="store_true",
                   help="write each refuted claim's witness into its check's `examples:` (a regression instance)")
    _binding_options(p, "only the claims exercising a bound role run")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("report", parents=[common, plugins], help="check everything and write the report")
    p.add_argument("--out", default="report", help="output folder (default report/)")
    p.add_argument("--budget", choices=["quick", "default", "thorough"], default="default")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda[:N]")
    p.add_argument("--lean-build", action="store_true", help="run `lake build` first (formal status `checked` needs it)")
    p.add_argument("--compare", metavar="OLD_REPORT_JSON", default=None,
                   help="list what changed against an earlier report.json (verdicts, refutations, standings)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--jobs", type=int, default=_default_jobs())
    _binding_options(p, "the claims exercising a bound role run on it, the report says what each function satisfies")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("lean", parents=[common], help="Lean declarations, sorry audit, formal status per claim, "
                       "mapping both ways, faithfulness audit, unlisted external names")
    p.add_argument("--build", action="store_true", help="run `lake build` (needs a Lean toolchain)")
    p.add_argument("--timeout", type=int, default=3600, help="seconds allowed for `lake build` (default 3600)")
    p.add_argument("--lean-dir", type=Path, default=None,
                   help="the registry's Lean folder (default: the installed content package's, lean/ of this checkout)")
    p.add_argument("--sources", type=Path, default=None,
                   help="audit the Lean files under this path instead (another project: no registry, no mapping)")
    p.add_argument("--mapping", type=Path, default=None,
                   help="also read claim links from the mapping *.yaml files of this folder (a Lean writer's, "
                   "before scripts/link_lean_mapping.py merges them; they override the registry's)")
    p.add_argument("--names", type=Path, default=None, help="folder of the *.tsv name lists (default lean/mathlib-names)")
    p.add_argument("--no-sampling", action="store_true", help="skip the engine's draws in the vacuity audit")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_lean)

    p = sub.add_parser("certify", parents=[common, plugins], help="a rotary layer: run it (--module) and check its laws, or "
                       "measure its hypotheses from tensors (tensor-only) and state what holds")
    p.add_argument("state", type=Path, nargs="?", default=None,
                   help="a saved state dict (torch.save(layer.state_dict(), FILE)); with --adapter, what the adapter reads")
    p.add_argument("--adapter", default=None, metavar="PLUGIN:FUNC",
                   help="a function of a loaded plugin mapping the state dict to per-head L (or U, freqs), P, Pi_act, scale")
    p.add_argument("--tensors", type=Path, default=None, metavar="FILE",
                   help="a tensor file (safetensors/npz/pt, weights only) with tensors named L or U+freqs, P, Pi_act, scale")
    p.add_argument("--module", default=None, metavar="PLUGIN:ADAPTER",
                   help="run the layer: a ModuleAdapter (object or class) of a loaded plugin builds it, STATE "
                   "(optional) is its checkpoint; per-head laws on its outputs, cache cold and warm")
    p.add_argument("--dtype", choices=["module", "float32", "float64"], default="module",
                   help="with --module: run the layer in its own dtype (default) or build it in this one")
    p.add_argument("--probes", type=int, default=3, help="with --module: probe batches per law (default 3)")
    p.add_argument("--form", choices=["product", "difference"], default="product",
                   help="score form: (R(r_i) q)^T R(r_j) k (product) or q^T R(r_j - r_i) k (difference)")
    p.add_argument("--prefix", default="", help="key prefix of the layer inside a model's state dict, e.g. 'blocks.0.attn.'")
    p.add_argument("--radius", type=float, default=1.0, help="bound positions |r|_1 <= radius")
    p.add_argument("--budget", choices=["quick", "default", "thorough"], default="quick")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_certify)

    p = sub.add_parser("mutate", parents=[common, plugins],
                       help="plant errors in each holding claim's check and list the checks that cannot fail")
    p.add_argument("ids", nargs="*", metavar="ID")
    p.add_argument("--budget", choices=["quick", "default", "thorough"], default="quick")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-mutants", dest="cap", type=int, default=10, metavar="N",
                   help="mutants per claim at most, taken in turn from each kind of error (default 10)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--out", default=None, help="also write the JSON result to this file")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--jobs", type=int, default=_default_jobs())
    p.set_defaults(func=cmd_mutate)

    p = sub.add_parser("schema", parents=[common], help="print the JSON Schema of a registry file")
    p.add_argument("--out", default=None)
    p.set_defaults(func=cmd_schema)

    return parser


BUG_REPORT = "this is a bug in pyverify: please report it with the command line and the traceback above"


def main(argv: list[str] | None = None) -> int:
    """Input mistakes end with a message and exit 2; a traceback is shown only for a bug in pyverify."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from .engine.runner import UnknownClaims

    if hasattr(args, "plugin"):
        from .checks.plugins import PluginError, load_opted_in

        try:
            load_opted_in(args.plugin)
        except PluginError as exc:
            return _usage_error(str(exc))
    if hasattr(args, "bind"):
        from .checks.binding_sources import load_bindings
        from .checks.roles import BindingError

        try:
            load_bindings(args.bind, args.bindings)
        except BindingError as exc:
            return _usage_error(str(exc))
    try:
        return args.func(args)
    except RegistryError as exc:
        _print_registry_error(exc)
        return EXIT_INPUT
    except (UnknownClaims, OutputPathError) as exc:
        return _usage_error(str(exc))
    except BrokenPipeError:  # `pyverify list | head`
        return EXIT_OK
    except KeyboardInterrupt:
        print("pyverify: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a file the user named cannot be written or read
        return _usage_error(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
    except Exception:  # noqa: BLE001 - a bug: the traceback, then how to report it
        import traceback

        traceback.print_exc()
        print(f"pyverify: {BUG_REPORT}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
