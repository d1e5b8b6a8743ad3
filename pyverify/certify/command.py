"""``pyverify certify``: a trained layer's measured hypotheses and the guarantees that then hold
(tensor-only: from its state dict or an adapter's tensors), or, with ``--module``, the laws checked on the
running layer."""

from __future__ import annotations

import argparse
import json
import sys

EXIT_OK, EXIT_INPUT = 0, 2


def _usage_error(msg: str) -> int:
    print(f"pyverify: {msg}", file=sys.stderr)
    return EXIT_INPUT


def _certify_verdicts(reg, args) -> dict[str, str]:
    from ..engine import check_claim
    from .layer import rests_on

    return {cid: check_claim(reg, cid, args.budget, args.seed).verdict.value
            for cid in sorted(set(rests_on().values())) if cid in reg.claims}


def _load_state(path):
    import torch

    state = torch.load(path, map_location="cpu", weights_only=True)
    return state.state_dict() if hasattr(state, "state_dict") else state


def _layer_description(args):
    """Matrices of a layer that is not an ESPRAttention state dict: --tensors FILE or --adapter PLUGIN:FUNC."""
    from ..checks.plugins import loaded_function
    from ..checks.samplers.data import read_tensors
    from .general import describe

    if args.tensors is not None:
        return describe(read_tensors(args.tensors))
    adapter = loaded_function(args.adapter)
    if args.state is None:
        raise ValueError("--adapter needs the state dict it reads (the positional STATE file)")
    try:
        answer = adapter(_load_state(args.state))
    except Exception as exc:  # noqa: BLE001 - the user's adapter failed: bad input, not a crash of pyverify
        raise ValueError(f"adapter {args.adapter} failed: {type(exc).__name__}: {exc}") from None
    return describe(answer)


def _module_command(args: argparse.Namespace) -> int:
    """``certify --module PLUGIN:ADAPTER [CHECKPOINT]``: run the layer; exit 0 every law holds, 1 a law fails,
    2 unusable input."""
    import torch

    from ..checks.plugins import PluginError, loaded_object
    from .module import AdapterError, ModuleAdapter
    from .running import certify_module

    source = f"{args.module}" + (f" + {args.state}" if args.state is not None else "")
    try:
        adapter = loaded_object(args.module)
        adapter = adapter() if isinstance(adapter, type) else adapter
        if not isinstance(adapter, ModuleAdapter):
            raise AdapterError(f"{args.module} is a {type(adapter).__name__}, not a pyverify.certify.module.ModuleAdapter")
        state = _load_state(args.state) if args.state is not None else None
    except (PluginError, AdapterError) as exc:
        return _usage_error(str(exc))
    except Exception as exc:  # noqa: BLE001 - torch.load raises many kinds (pickle, zip, runtime)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return _usage_error(f"{args.state}: cannot load a state dict (weights only): {first}")
    dtype = None if args.dtype == "module" else getattr(torch, args.dtype)
    try:
        report = certify_module(adapter, state, dtype=dtype, seed=args.seed, probes=args.probes)
    except AdapterError as exc:
        return _usage_error(f"{source}: {exc}")
    failing = report.failing
    if args.format == "json":
        json.dump({"mode": "module", "module": args.module, "state": None if args.state is None else str(args.state),
                   "ran": report.ran, "failing": failing, "findings": report.findings,
                   "heads": [{"head": h.head, "laws": h.laws} for h in report.heads]}, sys.stdout, indent=1)
        print()
        return 1 if failing else EXIT_OK
    ran = report.ran
    print(f"{source}: the layer's own code was run — {ran['heads']} head(s) of size {ran['head_dim']}, "
          f"dtype {ran['dtype']} (module's own: {ran['module_dtype']}; parameters stored in {ran['parameter_dtype']}), "
          f"{ran['probes']} probe(s) of batch {ran['batch']} x seq {ran['seq']}, positions {ran['positions']}; "
          f"{ran['cache']}")
    built = ran["construction"]
    print(f"construction: {'drew from' if built['used_global_rng'] else 'did not touch'} the global RNG (forked, restored)"
          + ("; changed the default dtype (restored)" if built["changed_default_dtype"] else ""))
    print(f"tolerance: {ran['tolerance_rule']} (u = {ran['unit_roundoff']:.3g}, max|angle| = {ran['max_angle']:.3g})")
    for h in report.heads:
        print(f"head {h.head}:")
        for law, r in h.laws.items():
            if r["status"] == "not applicable":
                print(f"  {'n/a':<6} {law}: {r['why']}")
                continue
            where = f" with the cache {' and '.join(r['failing_states'])}" if r["failing_states"] else ""
            print(f"  {r['status']:<6} {law}{where} (worst {r['worst_over_tolerance']:.3g} x tolerance)")
    for finding in report.findings:
        print(f"where: {finding}")
    where = "; ".join(f"head {h.head}: {', '.join(h.failing)}" for h in report.heads if h.failing)
    print("verdict: every law holds on every head" if not failing else f"verdict: fails — {where}")
    return 1 if failing else EXIT_OK


def certify_command(args: argparse.Namespace, reg) -> int:
    """``pyverify certify``: exit 0, or 2 for input that does not describe a layer (the message says why);
    with --module, 1 when a law fails on the running layer."""
    if args.module is not None:
        if args.adapter or args.tensors:
            return _usage_error("--module runs a layer; --adapter and --tensors describe one from tensors: give one")
        return _module_command(args)
    from . import layer
    from ..checks.plugins import PluginError
    from ..checks.samplers.base import SamplerError
    from .general import LayerDescriptionError, certify_layer

    general = args.adapter is not None or args.tensors is not None
    if args.adapter and args.tensors:
        return _usage_error("give --adapter or --tensors, not both")
    if not general and args.state is None:
        return _usage_error("certify needs a STATE file, --tensors FILE or --adapter PLUGIN:FUNC")
    if not general and args.form != "product":
        return _usage_error("--form difference describes a layer given by --adapter or --tensors")
    source = str(args.tensors or args.state)
    try:
        if general:
            mats = _layer_description(args)
        else:
            state = _load_state(args.state)
    except (PluginError, SamplerError, LayerDescriptionError, ValueError) as exc:
        return _usage_error(f"{source}: {exc}")
    except Exception as exc:  # noqa: BLE001 - torch.load raises many kinds (pickle, zip, runtime)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return _usage_error(f"{args.state}: cannot load a state dict (weights only): {first}")
    verdicts = _certify_verdicts(reg, args)
    try:
        reports = (certify_layer(mats, verdicts, form=args.form, radius=args.radius) if general
                   else layer.certify(state, verdicts, prefix=args.prefix, radius=args.radius))
    except ValueError as exc:
        return _usage_error(f"{source}: {exc}")
    if args.format == "json":
        json.dump({"mode": "tensor-only", "state": source, "form": args.form, "radius": args.radius, "verdicts": verdicts,
                   "heads": [{"head": r.head, "measured": r.measured, "guarantees": r.guarantees} for r in reports]},
                  sys.stdout, indent=1)
        print()
        return EXIT_OK
    print(f"{source} (tensor-only: the layer is rebuilt from its tensors, its code is not run; --module runs it): "
          f"{len(reports)} head(s), {args.form} form; guarantees rest on "
          f"{', '.join(f'{k} ({v})' for k, v in verdicts.items())}")
    for r in reports:
        print(f"head {r.head}: " + ", ".join(_measured_text(k, v) for k, v in r.measured.items()))
        for g in r.guarantees:
            why = f" — fails: {'; '.join(g['failing_hypotheses'])}" if g["failing_hypotheses"] else ""
            rests = f"rests on {g['rests_on']}: {g['claim_verdict']}" if g["rests_on"] else "by construction"
            print(f"  {g['status']:<17} {g['statement']} ({rests}){why}{_observed_text(g)}")
    return EXIT_OK


def _measured_text(key: str, value) -> str:
    if isinstance(value, bool):
        return f"{key} {'yes' if value else 'no'}"
    return f"{key} {value:.3g}"


def _observed_text(g: dict) -> str:
    """Observed defects beside their bound and the float64 rounding allowance they were compared with."""
    if "observed" not in g:
        return ""
    bound = g.get("bound", 0.0)
    if "allowance" not in g:
        return f" [bound {bound:.4g}, observed {g['observed']:.4g}]"
    return (f" [observed {g['observed']:.4g}, bound {bound:.4g} + rounding allowance {g['allowance']:.2g}"
            f"{'' if g['observed_within_bound'] is None else (': within' if g['observed_within_bound'] else ': EXCEEDED')}]")
