"""Vacuity of a Lean statement, judged through the claim's numeric check.

The mapping pairs each hypothesis binder of the Lean statement with a name of the numeric check
(a ``given``, a ``where``, a ``dims`` size, an identifier of an ``assume``, or an ``assume`` text itself).
A hypothesis mapped to a name the check does not have, or to a bare ``none``, is flagged; ``none (why)``
says the check has no counterpart and why (the engine never tests that hypothesis): a note, not a finding.
Then the engine's own samplers draw instances (with the samplers' degenerate draws mixed in, so a zero
instance is among them) and the check's ``assume``s are scored as the engine scores them: if no draw
satisfies them, the hypotheses look unsatisfiable; if only draws whose inputs are all ≈ 0 satisfy them,
they look satisfiable only by the zero instance. Both are ``vacuity`` findings, as is a claim whose
reviewed verdict is ``vacuous``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable


from ...checks.claim import CompiledClaim
from ...registry import Claim, LeanLink, Verdict
from .faithful import Finding

# (compiled check, seed) -> (draws per assignment, draws meeting every assume, of those non-zero ones, draws
# whose evaluation raised and were skipped); None for a check without per-instance assumes
ModelCounter = Callable[[CompiledClaim, int], "tuple[int, int, int, int] | None"]


def check_names(claim: Claim, compiled: CompiledClaim | None) -> set[str]:
    """Names a hypothesis may map to: givens, wheres, sweep sizes (which the samplers' parameters name),
    the texts of the assumes and the identifiers they use (read from the compiled check)."""
    check = claim.check
    if check is None:
        return set()
    names = set(check.given) | set(check.where) | set(check.dims or {})  # dims: the sizes the check sweeps
    assumes = [check.assume] if isinstance(check.assume, str) else list(check.assume or [])
    names.update(text.strip() for text in assumes)
    if compiled is not None:  # its bound names include an order check's parameter, a sweep variable too
        names.update(compiled.names)
        names.update(n.id for rel in compiled.expressions.assumes for side in (rel.lhs, rel.rhs)
                     for n in ast.walk(side) if isinstance(n, ast.Name))
    return names


_NONE_WITH_REASON = re.compile(r"^none\s*\(\s*\S.*\)$", re.IGNORECASE | re.DOTALL)


def untested_hypotheses(cid: str, link: LeanLink) -> list[str]:
    """Notes: the hypotheses mapped to ``none (why)``, which the engine never tests."""
    return [f"{cid}: hypothesis {binder} has no counterpart in the numeric check ({target.strip()})"
            for binder, target in link.hypotheses.items() if _NONE_WITH_REASON.match(target.strip())]


def unmapped_hypotheses(cid: str, claim: Claim, compiled: CompiledClaim | None, link: LeanLink,
                        declaration: str | None) -> list[Finding]:
    names = check_names(claim, compiled)
    out = []
    for binder, target in link.hypotheses.items():
        if _NONE_WITH_REASON.match(target.strip()):
            continue  # a note (untested_hypotheses)
        if target.strip().lower().startswith("none"):  # a bare 'none'
            out.append(Finding(cid, "unmapped-hypothesis", f"hypothesis {binder} has no counterpart in the "
                               "numeric check and the mapping does not say why (write `none (why)`): the "
                               "engine never tests what it assumes", declaration))
        elif target.strip() in names or _mentioned(target) & names:
            continue
        else:
            shown = ", ".join(sorted(names)) or "no names (no check)"
            out.append(Finding(cid, "unmapped-hypothesis", f"hypothesis {binder} maps to {target!r}, which the "
                               f"check of {cid} does not have (it has: {shown})", declaration))
    return out


def _mentioned(target: str) -> set[str]:
    """The names a mapping value mentions outside parentheses (``post.U`` -> post; ``Sm, F (why)`` -> Sm, F)."""
    depth, kept = 0, []
    for ch in target:
        depth += ch == "("
        if depth == 0:
            kept.append(ch)
        depth -= ch == ")" and depth > 0
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "".join(kept)))


def sampled_vacuity(cid: str, claim: Claim, compiled: CompiledClaim | str | None, count_models: ModelCounter,
                    seed: int = 0, declaration: str | None = None) -> list[Finding]:
    """Flag assumes that no drawn instance meets, or that only zero inputs meet. ``compiled``: the claim's
    compiled check, or why it does not compile; ``count_models`` counts with the engine's samplers on it
    (``pyverify.engine.hypotheses.count_models``), handed in by the caller so that the provers do not
    import the engine (which imports them)."""
    check = claim.check
    if claim.expect == Verdict.vacuous:
        return [Finding(cid, "vacuity", "the engine's reviewed verdict of this claim is vacuous: its hypotheses "
                        "are unsatisfiable or its bound no better than the trivial one", declaration)]
    if check is None or check.not_checkable or not check.assume:
        return []
    try:
        if isinstance(compiled, str):
            raise ValueError(compiled)
        counted = count_models(compiled, seed) if compiled is not None else None
    except (ValueError, RuntimeError, TypeError) as exc:
        return [Finding(cid, "vacuity", f"the check could not be sampled to judge its hypotheses: {exc}", declaration)]
    if counted is None:
        return []
    draws, satisfied, nonzero, failed = counted
    skipped = f" ({failed} draws could not be evaluated and were skipped)" if failed else ""
    if satisfied == 0:
        return [Finding(cid, "vacuity", f"no instance of {draws} draws per assignment satisfies the check's "
                        f"assumes{skipped}: the mapped hypotheses look unsatisfiable", declaration)]
    if nonzero == 0:
        return [Finding(cid, "vacuity", f"only instances with every input ≈ 0 satisfy the check's assumes "
                        f"({satisfied} such draws{', ' + str(failed) + ' draws skipped' if failed else ''}): the mapped "
                        "hypotheses force the zero instance", declaration)]
    return []


