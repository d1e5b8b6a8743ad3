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
import tempfile
from pathlib import Path

from .atomic import write_text_atomic
from .registry import RegistryError, Verdict, claim_file_schema, load_registry

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2


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


def _device_problem(spec: str) -> str | None:
    """Why ``--device spec`` cannot run the checks here (None: it can): checked before any work."""
    import torch

    try:
        device = torch.device(spec)
    except (RuntimeError, ValueError):
        return f"--device {spec}: not a device; give cpu or cuda[:N]"
    if device.type == "cpu":
        return None
    if device.type != "cuda":
        return f"--device {spec}: the checks run on cpu or cuda[:N], not {device.type}"
    if not torch.cuda.is_available():
        return f"--device {spec} was asked for, but no CUDA device is available (torch {torch.__version__})"
    if device.index is not None and device.index >= torch.cuda.device_count():
        return f"--device {spec}: there is no CUDA device {device.index} ({torch.cuda.device_count()} available)"
    return None


def _usage_error(msg: str) -> int:
    print(f"pyverify: {msg}", file=sys.stderr)
    return EXIT_INPUT


class OutputPathError(ValueError):
    """An --out path that cannot be written (checked before any work is done)."""


def _output_file(path: str | None) -> None:
    """A file to write: its folder is created and shown to take a file before any work is done; a
    folder in its place is refused."""
    if path is None:
        return
    target = Path(path)
    if not path or target.is_dir():
        raise OutputPathError(f"--out {path}: is a folder; give a file name")
    _make_folder(target.parent, path)
    try:  # a real write: permissions, a read-only mount, a full disk
        probe = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".probe")
        probe.close()
    except OSError as exc:
        raise OutputPathError(f"--out {path}: cannot write in the folder {target.parent}: {exc.strerror or exc}") from None


def _write_output(path: str, text: str) -> int:
    """The final write of an --out file; EXIT_INPUT (naming the path) when it fails, so that a job that
    reads the file later does not go on without it."""
    try:
        write_text_atomic(path, text)
    except OSError as exc:
        print(f"pyverify: --out {path}: the result could not be written: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    return EXIT_OK


def _output_folder(path: str) -> None:
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise OutputPathError(f"--out {path}: is a file, not a folder; give a folder (it is created if missing)")
    _make_folder(target, path)


def _make_folder(folder: Path, shown: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(f"--out {shown}: cannot create the folder {folder}: {exc.strerror or exc}") from None


def cmd_check(args: argparse.Namespace) -> int:
    _output_file(args.out)
    if (problem := _device_problem(args.device)) is not None:
        return _usage_error(problem)
    from .analysis import check_row
    from .checks.validate import load_valid_registry
    from .engine import check_claims

    if args.pin_witness and not args.ids:
        return _usage_error("--pin-witness writes into the claims named on the command line: give their IDs")
    reg = load_valid_registry(args.registry)
    progress = args.format == "text" and sys.stderr.isatty() and not args.no_progress
    results = check_claims(reg, args.ids, args.budget, args.seed, args.device, args.jobs, progress, args.tightness_seeds)
    payload = {"seed": args.seed, "device": args.device, "budget": args.budget,
               "claims": [check_row(r.as_dict(), reg.claims[r.id]) for r in results]}
    written = _write_output(args.out, json.dumps(payload, indent=1, ensure_ascii=False) + "\n") if args.out else EXIT_OK
    if args.pin_witness:
        _pin_witnesses(reg, results)
    if args.format == "json":
        json.dump(payload, sys.stdout, indent=1, ensure_ascii=False)
        print()
    else:
        for r, row in zip(results, payload["claims"]):
            flag = "" if r.matches else f"   <-- expected {r.expect}"
            sev = row.get("severity")
            grade = f" [{sev['level']}: {sev['reason']}]" if sev else (" [severity unassessed]" if r.verdict is Verdict.refuted else "")
            print(f"{r.id:<24} {r.verdict:<14} {r.message}{grade}{flag}")
        counts: dict[str, int] = {}
        for r in results:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        mism = sum(not r.matches for r in results)
        unrev = sum(r.expect is None for r in results)
        print(f"{len(results)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + f"; {mism} differ from expect; {unrev} unreviewed")
    if written != EXIT_OK:
        return written
    return EXIT_OK if all(r.matches for r in results) else EXIT_FAIL


def _pin_witnesses(reg, results) -> None:
    """Each refuted claim's counterexample becomes the last of its check's examples (told on stderr)."""
    from .engine.evidence import Counterexample
    from .registry.pin import PinError, pin_example, witness_example

    for r in results:
        found = r.find(Counterexample) if r.verdict is Verdict.refuted else None
        if r.verdict is not Verdict.refuted:
            continue
        if found is None:
            print(f"{r.id}: its witness is no instance of the hypotheses (a growth, an order, a Monte-Carlo mean): "
                  "nothing to pin", file=sys.stderr)
            continue
        if found.example is not None:
            print(f"{r.id}: refuted by its examples[{found.example}], already pinned", file=sys.stderr)
            continue
        try:
            path = pin_example(reg, r.id, witness_example(reg.claims[r.id].check, found.values, found.dims))
        except (PinError, OSError) as exc:
            print(f"{r.id}: witness not pinned: {exc}", file=sys.stderr)
            continue
        print(f"{r.id}: witness pinned as the last of check.examples in {path}", file=sys.stderr)


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
                        lean_built=built, toolchain=lean.toolchain())
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
