"""Load-time validation of the checks: a misspelt sampler keyword, an unknown name, a shadowed constant
or a malformed expression is a registry problem naming file, line and claim id, found before anything
runs (the engine's compile error, an ``error`` verdict, stays as a second line of defence).

Nothing is evaluated: every check is compiled (names checked, expressions parsed, samplers bound to
their declared parameters) for its first sweep assignment, and its samplers are bound again for every
other assignment, the symbolic dimensions included (an order check's parameter takes its first value).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..registry import Check, Problem, Registry, RegistryError, load_registry
from .compiled import CheckError, bind_sampler, compile_check, relation_kind, sweep
from .examples import ExampleError, check_examples
from .samplers import SamplerError, parse_sampler
from .samplers.data import set_data_root


def _assignments(check: Check) -> list[dict[str, Any]]:
    out = sweep(check)
    if check.order is not None:
        out = [{**dims, check.order.param: check.order.values[0]} for dims in out]
    if check.symbolic is not None and check.symbolic.dims:
        out.append(dict(check.symbolic.dims))
    return out


def _stray_symbolic_dims(check: Check) -> str | None:
    """A symbolic dimension that names no sweep variable (a typo would prove a different instance)."""
    if check.symbolic is None or not check.symbolic.dims:
        return None
    return next((k for k in check.symbolic.dims if k not in (check.dims or {})), None)


def _bind_samplers(check: Check, dims: dict[str, Any]) -> None:
    """The samplers at one more sweep assignment (the expressions do not depend on it: parsed once)."""
    for name, spec in check.given.items():
        bind_sampler(name, spec, dims)


def validate_registry(registry: Registry) -> list[Problem]:
    """One problem per claim whose check does not compile, located at the offending key's line."""
    from .plugins import unloaded_plugin_problems

    set_data_root(registry.source)
    problems = unloaded_plugin_problems(registry)
    if problems:  # without its plugins the registry's checks name functions that do not exist
        return problems
    for cid, claim in registry.claims.items():
        check = claim.check
        if check is None or check.not_checkable:
            continue
        if check.entails:
            problem = _entailment_problem(registry, cid, check)
            if problem:
                problems.append(problem)
            continue
        stray = _stray_symbolic_dims(check)
        if stray:
            problems.append(Problem(registry.line_of(cid, f"check.symbolic.dims.{stray}"),
                                    f"symbolic.dims: {stray!r} is not a sweep variable of `dims` "
                                    f"({', '.join(check.dims or {}) or 'none'})", cid, "check"))
            continue
        relation = "order" if check.relation == "order" else "relation"
        try:
            assignments = _assignments(check)
        except CheckError as exc:
            problems.append(Problem(registry.line_of(cid, "check.dims"), str(exc), cid, "check"))
            continue
        for i, dims in enumerate(assignments):
            try:
                if i == 0:
                    compile_check(check, dims, relation, registry.conventions.get(cid))
                else:
                    _bind_samplers(check, dims)
            except CheckError as exc:
                key = ".".join(("check", *exc.key)) if exc.key else "check"
                at = f" (with {', '.join(f'{k}={v}' for k, v in dims.items())})" if len(assignments) > 1 else ""
                problems.append(Problem(registry.line_of(cid, key), f"{exc}{at}", cid, "check"))
                break
        else:
            problem = _example_problem(registry, cid, check, relation)
            if problem:
                problems.append(problem)
    return problems


def _entailment_problem(registry: Registry, cid: str, check: Check) -> Problem | None:
    """A claim about other claims names existing ordinary claims, and nothing else in its check."""
    where = registry.line_of(cid, "check.entails")
    others = sorted(k.rstrip("_") for k in check.model_fields_set if k not in ("entails", "conventions"))
    if others:
        return Problem(where, f"entails: a claim about other claims is judged by their verdicts alone; remove "
                              f"{', '.join(others)}", cid, "check")
    for other in check.entails or []:
        if other not in registry.claims:
            return Problem(where, f"entails: unknown claim {other!r}", cid, "check")
        if other == cid:
            return Problem(where, "entails: a claim cannot entail itself", cid, "check")
        target = registry.claims[other].check
        if target is not None and target.entails:
            return Problem(where, f"entails: {other!r} is itself a claim about other claims; name the claims it "
                                  "entails instead", cid, "check")
    return None


def _example_problem(registry: Registry, cid: str, check: Check, relation: str) -> Problem | None:
    """An example that does not fit its check (names, shapes, hypotheses), at the example's own line."""
    if not check.examples:
        return None
    if relation_kind(registry.claims[cid]) != "relation":
        return Problem(registry.line_of(cid, "check.examples"),
                       "examples: only identity and bound checks take fixed instances", cid, "check")
    try:
        assignments = []
        for dims in sweep(check):
            samplers = {name: parse_sampler(spec, dims) for name, spec in check.given.items()}
            assignments.append((dims, {n: s for n, s in samplers.items() if not s.random}))
        check_examples(check, assignments)
    except ExampleError as exc:
        return Problem(registry.line_of(cid, ".".join(("check", *exc.key))), str(exc), cid, "check")
    except SamplerError as exc:
        return Problem(registry.line_of(cid, "check.given"), str(exc), cid, "check")
    return None


def load_valid_registry(path: str | Path | None = None) -> Registry:
    """``load_registry`` followed by ``validate_registry``: RegistryError lists the problems of both."""
    registry = load_registry(path)
    problems = validate_registry(registry)
    if problems:
        raise RegistryError(problems)
    return registry
