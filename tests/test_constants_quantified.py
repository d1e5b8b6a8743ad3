"""Constants quantified as printed (issue 13 §2): one constant before the data, one per parameter value,
existential constants chosen by the statement, and a constant chosen after the data (vacuous)."""

from __future__ import annotations

from pyverify.engine import run_claim
from pyverify.registry import Claim, load_registry

# |lhs| grows like t at fixed |x|: no constant uniform in t exists, one per value of t does
GROWING = {"given": {"x": "vec(2, lo=0.5, hi=1)"}, "assert": "t * norm(x) <= norm(x)", "relation": "constant",
           "dims": {"t": [1, 10, 100]}}
# (1 + C1 t)|x| <= C |x|: some C works for every t only with C1 = 0
WITH_C1 = {"given": {"x": "vec(2, lo=0.5, hi=1)"}, "assert": "(1 + C1 * t) * norm(x) <= norm(x)",
           "relation": "constant", "dims": {"t": [1, 10, 100], "C1": [0, 1]}}


def _verdict(check: dict) -> str:
    claim = Claim.model_validate({"id": "X.1", "title": "t", "document": "d", "locator": "l", "kind": "bound",
                                  "statement": "s", "check": check})
    return run_claim(claim, {}, budget="quick").verdict.value


def test_a_constant_before_the_data_may_not_grow_along_the_sweep():
    assert _verdict({**GROWING, "constant": {"quantified": "before-data"}}) == "refuted"
    assert _verdict(GROWING) == "refuted"  # before-data is the default reading


def test_a_constant_per_parameter_value_may_grow_across_that_parameter():
    assert _verdict({**GROWING, "constant": {"quantified": "per-parameter", "depends_on": ["t"]}}) == "holds"


def test_a_constant_chosen_after_the_data_is_vacuous():
    assert _verdict({**GROWING, "constant": {"quantified": "after-data"}}) == "vacuous"


def test_an_existential_constant_of_the_statement_is_chosen_and_a_universal_one_is_not():
    assert _verdict({**WITH_C1, "constant": {"chosen": ["C1"]}}) == "holds"  # there is C1 (= 0)
    assert _verdict(WITH_C1) == "refuted"  # for every C1 in {0, 1}: fails at C1 = 1


def test_every_constant_check_of_the_registry_says_how_its_constant_is_quantified():
    reg = load_registry()
    missing = [c.id for c in reg.claims.values() if c.check and c.check.relation == "constant" and c.check.constant is None]
    assert missing == []
