"""Claims about other claims of the registry: a statement about the documents' own results — "Statements
S1-S14 are mechanically verified", "Theorem Y follows from Lemma X" — asserts (or presupposes) that those
results are true as printed. It is decided by their verdicts, computed in the same run (same budget and
seed): a refuted statement has no faithful proof, so one refuted entailed claim refutes the claim about
them; all of them true (vacuous included: a trivially true statement can be proved) make it hold."""

from __future__ import annotations

import time
from collections.abc import Mapping

from ..registry import Claim, Registry, Verdict
from .evidence import EntailedRefutation, EntailedVerdicts, RefutedPremise
from .result import Result

TRUE = frozenset({Verdict.holds, Verdict.consistent, Verdict.symbolic, Verdict.proved, Verdict.vacuous})


def entailed(claim: Claim) -> list[str]:
    """The claims ``claim`` entails (``check.entails``); empty for an ordinary claim."""
    check = claim.check
    return list(check.entails or []) if check is not None and not check.not_checkable else []


def judge(claim: Claim, results: Mapping[str, Result], registry: Registry, elapsed_s: float = 0.0) -> Result:
    """The verdict of a claim about other claims, from their results (``results`` holds every entailed id)."""
    start = time.perf_counter()
    ids = entailed(claim)
    verdicts = EntailedVerdicts(tuple((i, results[i].verdict.value) for i in ids))
    refuted = [i for i in ids if results[i].verdict is Verdict.refuted]
    errors = [i for i in ids if results[i].verdict is Verdict.error]
    undecided = [i for i in ids if results[i].verdict not in TRUE and i not in refuted and i not in errors]
    evidence: tuple = (verdicts,)
    if refuted:
        verdict = Verdict.refuted
        evidence += (EntailedRefutation(tuple(_premise(i, results[i], registry) for i in refuted)),)
        message = (f"it entails that {_names(ids)} are true as printed, and {len(refuted)} of them "
                   f"{'is' if len(refuted) == 1 else 'are'} refuted: "
                   + "; ".join(f"{i} ({_severity(registry, i)})" for i in refuted)
                   + " (their witnesses: `pyverify check` of each id)")
    elif errors:
        verdict = Verdict.error
        message = "an entailed claim could not be checked: " + "; ".join(f"{i}: {results[i].message}" for i in errors)
    elif undecided:
        verdict = Verdict.not_checkable
        message = ("inconclusive: no entailed claim is refuted, but "
                   + "; ".join(f"{i} is {results[i].verdict.value}" for i in undecided))
    else:
        verdict = Verdict.holds
        message = "every entailed claim is true: " + ", ".join(f"{i} {results[i].verdict.value}" for i in ids)
    return Result(claim.id, verdict, claim.expect, None, 0, elapsed_s + time.perf_counter() - start, message, evidence)


def _names(ids: list[str]) -> str:
    return ", ".join(ids) if len(ids) <= 4 else f"{', '.join(ids[:3])}, ... ({len(ids)} claims)"


def _severity(registry: Registry, cid: str) -> str:
    sev = registry.claims[cid].severity
    return f"{sev.level}: {sev.reason}" if sev is not None else "severity unassessed"


def _premise(cid: str, r: Result, registry: Registry) -> RefutedPremise:
    sev = registry.claims[cid].severity
    return RefutedPremise(cid, r.verdict.value, r.message, sev.level if sev is not None else None, r.witness)
