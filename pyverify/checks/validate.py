"""Load-time validation of the checks, which compiles them: a misspelt sampler keyword, an unknown name,
a shadowed constant or a malformed expression is a registry problem naming file, line and claim id,
found before anything runs.

Nothing is evaluated: every check is compiled once (``checks/claim.py``: names checked, expressions
parsed, samplers bound to their declared parameters at every sweep assignment, the symbolic dimensions
included), and its fixed ``examples`` are fitted to the hypotheses. The result is a ``CheckedRegistry``:
the registry with each claim's ``CompiledClaim``, which every later step reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from ..registry import Check, Claim, Problem, Registry, RegistryError, load_registry
from ..registry.citations import citation_problems
from .claim import CompiledClaim, compile_claim
from .compiled import CheckError
from .examples import ExampleError, check_examples


@dataclass
class CheckedRegistry(Registry):
    """A registry whose checks compiled: ``compiled`` holds the ``CompiledClaim`` of every claim with a
    runnable check (a claim without a check, or with a ``not_checkable`` reason, has none)."""

    compiled: dict[str, CompiledClaim] = field(default_factory=dict, repr=False)


def data_root(registry: Registry) -> Path | None:
    """The folder ``tensor_file(...)`` paths of this registry are read below: the registry's own."""
    if registry.source is None:
        return None
    source = Path(registry.source).resolve()
    return source if source.is_dir() else source.parent


def compile_checked(registry: Registry, claim: Claim) -> CompiledClaim | None:
    """One claim of the registry compiled with the conventions the registry resolved for it."""
    return compile_claim(claim, registry.conventions.get(claim.id), data_root(registry))


def check_registry(registry: Registry) -> tuple[CheckedRegistry, list[Problem]]:
    """The registry with every check that compiles, and one problem per claim whose check does not
    (located at the offending key's line)."""
    from .plugins import unloaded_plugin_problems

    checked = CheckedRegistry(**{f.name: getattr(registry, f.name) for f in fields(Registry)})
    problems = unloaded_plugin_problems(registry)
    if problems:  # without its plugins the registry's checks name functions that do not exist
        return checked, problems
    problems = citation_problems(registry)
    for cid, claim in registry.claims.items():
        if claim.check is not None and claim.check.entails and not claim.check.not_checkable:
            problem = _entailment_problem(registry, cid, claim.check)
            if problem:
                problems.append(problem)
            continue  # judged from the verdicts of the claims it entails: nothing to compile
        try:
            compiled = compile_checked(registry, claim)
        except CheckError as exc:
            key = ".".join(("check", *exc.key)) if exc.key else "check"
            problems.append(Problem(registry.line_of(cid, key), str(exc), cid, "check"))
            continue
        if compiled is None:
            continue
        problem = _example_problem(registry, compiled)
        if problem:
            problems.append(problem)
            continue
        checked.compiled[cid] = compiled
    return checked, problems


def validate_registry(registry: Registry) -> list[Problem]:
    """One problem per claim whose check does not compile, located at the offending key's line."""
    return check_registry(registry)[1]


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


def _example_problem(registry: Registry, compiled: CompiledClaim) -> Problem | None:
    """An example that does not fit its check (names, shapes, hypotheses), at the example's own line."""
    check = compiled.check
    if not check.examples:
        return None
    try:
        check_examples(check, [(c.dims, c.givens) for c in compiled.assignments], data_root(registry))
    except ExampleError as exc:
        return Problem(registry.line_of(compiled.id, ".".join(("check", *exc.key))), str(exc), compiled.id, "check")
    return None


def load_valid_registry(path: str | Path | None = None) -> CheckedRegistry:
    """``load_registry`` followed by the compilation of its checks: RegistryError lists the problems of both."""
    checked, problems = check_registry(load_registry(path))
    if problems:
        raise RegistryError(problems)
    return checked
