"""``pyverify certify``: a trained layer's measured hypotheses and the guarantees that then hold."""

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


def certify_command(args: argparse.Namespace, reg) -> int:
    """``pyverify certify``: exit 0, or 2 for input that does not describe a layer (the message says why)."""
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
        json.dump({"state": source, "form": args.form, "radius": args.radius, "verdicts": verdicts,
                   "heads": [{"head": r.head, "measured": r.measured, "guarantees": r.guarantees} for r in reports]},
                  sys.stdout, indent=1)
        print()
        return EXIT_OK
    print(f"{source}: {len(reports)} head(s), {args.form} form; guarantees rest on "
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
