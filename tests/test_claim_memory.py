"""A memory budget per claim (issue 11): a claim whose instances need more than the cap is an `error`
naming the cap and how to raise it; the other claims of the run still run."""

from __future__ import annotations

from pyverify.engine import check_claims
from pyverify.registry import load_registry

from conftest import claim_yaml

HUNGRY = "check: {given: {x: 'vec(2)'}, assert: 'total(ones(3000, 3000) @ ones(3000, 3000)) * norm(x) >= 0'}\n"
SMALL = "check: {given: {x: 'vec(2)'}, assert: 'norm(x) >= 0'}\n"


def test_a_claim_over_its_memory_budget_is_an_error_and_the_others_still_run(make_registry, monkeypatch):
    reg = load_registry(make_registry({"a.yaml": "claims:\n" + claim_yaml("A.1", extra=HUNGRY, kind="bound")
                                       + claim_yaml("A.2", extra=SMALL, kind="bound")}))
    monkeypatch.setenv("PYVERIFY_MAX_ELEMENTS", "1e7")  # let the matrices past the element cap: the memory cap judges
    monkeypatch.setenv("PYVERIFY_CLAIM_MEMORY", "30e6")  # 30 MB: one instance needs three 72 MB matrices
    hungry, small = check_claims(reg, (), "quick", 0, "cpu", 1)
    assert hungry.verdict.value == "error" and "PYVERIFY_CLAIM_MEMORY" in hungry.message, hungry.message
    assert small.verdict.value == "holds"
    monkeypatch.setenv("PYVERIFY_CLAIM_MEMORY", str(8 * 2**30))  # the default: the same claim fits
    assert check_claims(reg, ("A.1",), "quick", 0, "cpu", 1)[0].verdict.value == "holds"
