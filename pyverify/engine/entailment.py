"""Claims about other claims of the registry: a statement about the documents' own results — "Statements
S1-S14 are mechanically verified", "Theorem Y follows from Lemma X" — asserts (or presupposes) that those
results are true as printed. It is decided by their verdicts, computed in the same run (same budget and
seed): a refuted statement has no faithful proof, so one refuted entailed claim refutes the claim about
them; all of them true (vacuous included: a trivially true statement can be proved) make it hold."""

from __future__ import annotations

import time

from ..registry import Claim, Registry, Verdict
from .result import Result

TRUE = frozenset({Verdict.holds, Verdict.consistent, Verdict.symbolic, Verdict.proved, Verdict.vacuous})


def entailed(claim: Claim) -> list[str]:
    """The claims ``claim`` entails (``check.entails``); empty for an ordinary claim."""
    return list(claim.check.entails or []) if claim.check is not None else []


def judge(claim: Claim, results: dict[str, Result], registry: Registry, elapsed_s: float = 0.0) -> Result:
    """The verdict of a claim about other claims, from their results (``results`` holds every entailed id)."""
    start = time.perf_counter()
    ids = entailed(claim)
    res = Result(claim.id, Verdict.error, claim.expect, instances=0)
    res.details["entailed"] = {i: results[i].verdict.value for i in ids}
    refuted = [i for i in ids if results[i].verdict is Verdict.refuted]
    errors = [i for i in ids if results[i].verdict is Verdict.error]
    undecided = [i for i in ids if results[i].verdict not in TRUE and i not in refuted and i not in errors]
    if refuted:
        res.verdict = Verdict.refuted
        res.witness = {"entailed": [_evidence(i, results[i], registry) for i in refuted]}
        res.message = (f"it entails that {_names(ids)} are true as printed, and {len(refuted)} of them "
                       f"{'is' if len(refuted) == 1 else 'are'} refuted: "
                       + "; ".join(f"{i} ({_severity(registry, i)})" for i in refuted)
                       + " (their witnesses: `pyverify check` of each id)")
    elif errors:
        res.message = "an entailed claim could not be checked: " + "; ".join(f"{i}: {results[i].message}" for i in errors)
    elif undecided:
        res.verdict = Verdict.not_checkable
        res.message = ("inconclusive: no entailed claim is refuted, but "
                       + "; ".join(f"{i} is {results[i].verdict.value}" for i in undecided))
    else:
        res.verdict = Verdict.holds
        res.message = "every entailed claim is true: " + ", ".join(f"{i} {results[i].verdict.value}" for i in ids)
    res.elapsed_s = elapsed_s + time.perf_counter() - start
    return res


def _names(ids: list[str]) -> str:
    return ", ".join(ids) if len(ids) <= 4 else f"{', '.join(ids[:3])}, ... ({len(ids)} claims)"


def _severity(registry: Registry, cid: str) -> str:
    sev = registry.claims[cid].severity
    return f"{sev.level}: {sev.reason}" if sev is not None else "severity unassessed"


def _evidence(cid: str, r: Result, registry: Registry) -> dict:
    sev = registry.claims[cid].severity
    out = {"id": cid, "verdict": r.verdict.value, "message": r.message}
    if sev is not None:
        out["severity"] = sev.level
    if r.witness is not None:
        out["witness"] = r.witness
    return out
