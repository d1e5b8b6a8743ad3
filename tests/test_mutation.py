"""The registry mutation pass: each operator plants the error it names in the compiled check; a sensitive
check kills its mutants; a check that passes by construction is flagged as one that cannot fail."""

from __future__ import annotations

import ast
import json

import pytest

from conftest import claim_yaml, compiled_claim
from pyverify.checks.validate import load_valid_registry
from pyverify.cli import main
from pyverify.engine.profiles import Profile
from pyverify.mutation import mutants, mutate_claim, mutate_registry, select

QUICK = Profile(name="test", instances=24, samples=500, mc_instances=2,
                phases=frozenset({"examples", "generate", "confirm", "judge"}))


def _changes(check: dict, kind: str = "bound") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in mutants(compiled_claim(check, kind=kind)):
        out.setdefault(m.operator, []).append(f"{m.site}: {m.change}")
    return out


# ------------------------------------------------------------------------------------ operators

def test_each_operator_plants_its_error_in_the_compiled_check():
    check = {"given": {"x": "scalar(0, 1)", "y": "scalar(0, 1)"}, "where": {"s": "x - y"},
             "assume": "y <= x", "assert": "s**2 <= 3 * x + -y"}
    found = _changes(check)
    assert "assert[0].lhs: s ** 2 -> s ** 6" in found["exponent"]
    assert "assert[0].rhs: 3 -> 1.5" in found["constant"]
    assert "where s: x - y -> x" in found["term"] and "where s: x - y -> -y" in found["term"]
    assert "assert[0].rhs: 3 * x + -y -> 3 * x" in found["term"]
    assert "where s: x - y -> x + y" in found["sign"] and "assert[0].rhs: -y -> y" in found["sign"]
    assert found["relation"] == ["assert[0]: s ** 2 <= 3 * x + -y -> s ** 2 >= 3 * x + -y"]
    assert found["bound"] == ["assert[0]: s ** 2 <= 3 * x + -y -> s ** 2 <= 0.5 * (3 * x + -y)"]
    assert found["hypothesis"] == ["assume[0]: dropped: y <= x"]


def test_a_mutant_changes_the_compiled_expressions_everywhere_and_the_original_nowhere():
    compiled = compiled_claim({"given": {"x": "scalar(0, 1)"}, "where": {"s": "x - 1"}, "assert": "s <= 0",
                               "dims": {"n": [1, 2]}}, kind="bound")
    before = ast.unparse(compiled.expressions.where[0][1])
    m = next(m for m in mutants(compiled) if m.operator == "sign")
    assert ast.unparse(m.compiled.expressions.where[0][1]) == "x + 1"
    assert all(ast.unparse(a.where[0][1]) == "x + 1" for a in m.compiled.assignments)  # every sweep assignment
    assert ast.unparse(compiled.expressions.where[0][1]) == before == "x - 1"
    assert all(ast.unparse(a.where[0][1]) == "x - 1" for a in compiled.assignments)


def test_sizes_and_indices_are_not_constants_of_the_statement():
    found = _changes({"given": {"v": "vec(3)"}, "assert": "norm(v[0:2] @ I(2)) <= 2.5 * norm(v)"})
    assert found["constant"] == ["assert[0].rhs: 2.5 -> 1.25"]


def test_an_order_check_has_its_claimed_order_mutated():
    check = {"given": {"x": "vec(2)"}, "assert": "eps**2 * norm(x)", "relation": "order",
             "dims": {}, "order": {"param": "eps", "values": [0.1, 0.01, 0.001], "claimed": 2}}
    compiled = compiled_claim(check, kind="bound")
    m = [m for m in mutants(compiled) if m.site == "order.claimed"]
    assert [x.change for x in m] == ["2 -> 6"]
    assert m[0].compiled.check.order.claimed == 6 and compiled.check.order.claimed == 2
    assert all(a.check.order.claimed == 6 for a in m[0].compiled.assignments)


def test_a_constant_check_gets_no_multiplicative_mutants():
    """"lhs <= C rhs for some C" cannot see a side scaled: such mutants would survive by its meaning."""
    found = _changes({"given": {"x": "scalar(0, 1)"}, "assert": "x <= 0.5 * n", "relation": "constant",
                      "dims": {"n": [1, 2, 4]}})
    assert "constant" not in found and "bound" not in found


def test_a_side_zero_as_written_is_not_scaled():
    """``X == 0.5 * 0`` is the same identity: no bound mutant for a zero side."""
    for rhs in ("0", "zeros(2, 2)", "0 * A"):
        found = _changes({"given": {"A": "mat(2, 2)"}, "assert": f"A - A == {rhs}"}, kind="identity")
        assert "bound" not in found and found["term"], rhs


def test_the_cap_takes_every_kind_of_error_in_turn():
    check = {"given": {"x": "scalar(0, 1)", "y": "scalar(0, 1)"}, "assume": "y <= x",
             "assert": "x**2 - y + 1 - 2 * x <= 3 * x + 4 * y"}
    chosen = select(mutants(compiled_claim(check, kind="bound")), 7)
    assert sorted(m.operator for m in chosen) == sorted(["exponent", "constant", "bound", "term", "sign",
                                                         "relation", "hypothesis"])


# ------------------------------------------------------------------------------------ the pass on planted registries

SENSITIVE = claim_yaml("S.1", kind="bound", extra="""\
    check:
      given: {x: 'scalar(0.5, 2)'}
      where: {q: 'x**2 - x'}
      assume: 'x >= 1'
      assert: 'q <= x**2 - 1'
    """)
# both sides from one fixed value: the stack of one discrepancy D at a fixed eps, bounded by C L eps**2
BY_CONSTRUCTION = claim_yaml("C.1", kind="bound", extra="""\
    check:
      given: {a: 'scalar(0, 1)'}
      where:
        D: '0.1**2 * 0.3'
        Delta: 'sum(a**l * D for l in range(L))'
      assert: 'Delta <= L * 0.1**2'
      relation: constant
      dims: {L: [1, 4, 16]}
    """)
# an assumption the sampler always meets and a bound its left side never nears: only a flipped relation
# is noticed, nothing the expressions say
NEVER_BINDS = claim_yaml("N.1", kind="bound", extra="""\
    check:
      given: {x: 'scalar(0, 1)'}
      assume: 'x <= 2'
      assert: 'x * 0 <= 1'
    """)
# hypotheses forcing both sides to zero: nothing planted anywhere changes the verdict
ZERO = claim_yaml("Z.1", kind="bound", extra="""\
    check:
      given: {x: 'scalar(0, 1)'}
      assume: 'x <= 2'
      assert: '0 * (x + 1) <= 0 * x'
    """)


@pytest.fixture
def planted(make_registry):
    return load_valid_registry(make_registry({"a.yaml": "claims:\n" + SENSITIVE + BY_CONSTRUCTION + NEVER_BINDS + ZERO}))


def test_a_sensitive_check_kills_its_mutants(planted):
    res = mutate_claim(planted, "S.1", QUICK, cap=20)
    assert res.verdict.value == "holds" and len(res.mutants) >= 8
    # the survivors only loosen the bound (x**2 - 1 -> x**2, x**6 - 1, x**2 - 0.5): 8 of 13 are killed
    assert res.count("killed") >= 8 and res.count("undecided") == 0, [m.as_dict() for m in res.mutants]
    survivors = {m.change for m in res.mutants if m.outcome == "survived"}
    assert "x ** 2 - 1 -> x ** 2 + 1" in survivors and "x ** 2 - x -> x ** 2" not in survivors
    killed = {m.operator for m in res.mutants if m.outcome == "killed"}
    assert {"exponent", "constant", "relation", "hypothesis", "sign", "term", "bound"} <= killed
    assert not res.flags


def test_a_check_built_to_pass_is_flagged(planted):
    stack = mutate_claim(planted, "C.1", QUICK, cap=20)
    assert stack.verdict.value == "holds"
    exponents = [m for m in stack.mutants if m.operator == "exponent"]
    assert exponents and all(m.outcome == "survived" for m in exponents)  # eps**2 -> eps**6 still holds
    assert "exponent untested" in stack.flags and stack.unexplained
    blind = mutate_claim(planted, "N.1", QUICK, cap=20)
    assert [m.operator for m in blind.mutants if m.outcome == "killed"] == ["relation"]
    assert blind.flags == ["content untested", "hypotheses unused"]
    assert any(m.operator == "hypothesis" and m.outcome == "survived" for m in blind.mutants)
    zero = mutate_claim(planted, "Z.1", QUICK, cap=20)
    assert zero.count("killed") == 0 and zero.count("survived") >= 5 and zero.flags == ["cannot fail", "hypotheses unused"]


def test_a_mutant_past_its_time_is_undecided(planted, monkeypatch):
    from pyverify.mutation import run

    monkeypatch.setattr(run, "MUTANT_SLOWDOWN", 0)
    monkeypatch.setattr(run, "MUTANT_SECONDS_MIN", 1e-4)
    res = mutate_claim(planted, "S.1", QUICK, cap=3)
    assert res.verdict.value == "holds" and res.count("undecided") == 3 and not res.flags
    assert all("ran past" in m.message for m in res.mutants)


def test_a_recorded_reason_explains_a_flag(make_registry):
    explained = NEVER_BINDS + "    mutation: {survives: 'the bound is trivial by design'}\n"
    reg = load_valid_registry(make_registry({"a.yaml": "claims:\n" + explained}))
    res = mutate_claim(reg, "N.1", QUICK)
    assert res.content_untested and res.reason == "the bound is trivial by design" and not res.unexplained


def test_the_registry_refuses_an_empty_reason(make_registry):
    from pyverify.registry import RegistryError, load_registry

    with pytest.raises(RegistryError, match="N.1"):
        load_registry(make_registry({"a.yaml": "claims:\n" + NEVER_BINDS + "    mutation: {survives: ''}\n"}))


def test_a_claim_that_does_not_hold_is_not_mutated(make_registry):
    refuted = claim_yaml("R.1", kind="bound", extra="check: {given: {x: 'scalar(0, 1)'}, assert: 'x <= 0.5'}\n")
    reg = load_valid_registry(make_registry({"a.yaml": "claims:\n" + refuted}))
    res = mutate_registry(reg, budget="quick").claims[0]
    assert res.verdict.value == "refuted" and not res.mutants and "only a holding check" in res.skipped


def test_the_command_reports_and_exits_1_on_an_unexplained_flag(make_registry, capsys):
    root = make_registry({"a.yaml": "claims:\n" + SENSITIVE + NEVER_BINDS})
    assert main(["mutate", "--registry", str(root), "--jobs", "1", "--format", "json", "--max-mutants", "6"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["content_untested"] == ["N.1"] and payload["summary"]["unexplained"] == ["N.1"]
    assert payload["summary"]["claims_mutated"] == 2 and payload["summary"]["mutants"] == 6 + 5  # S.1 capped, N.1 admits 5
    assert main(["mutate", "S.1", "--registry", str(root), "--jobs", "1", "--max-mutants", "6"]) == 0
    assert "flagged without a recorded reason: 0" in capsys.readouterr().out
    assert main(["mutate", "X.9", "--registry", str(root)]) == 2
