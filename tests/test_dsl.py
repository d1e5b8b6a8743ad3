"""The check language is parsed, never evaluated: everything outside the whitelist is refused."""

from __future__ import annotations

import pytest
import torch

from pyverify.checks import dsl, vocabulary
from pyverify.engine import run_claim
from pyverify.registry import Check, Claim

NAMES = {"x", "M", "g"}
FUNCS = vocabulary.names()


@pytest.mark.parametrize("text", [
    "__import__('os').system('true') == 0",
    "x.__class__ == x",
    "eval('1') == 1",
    "open('/etc/passwd') == 1",
    "(lambda: 1)() == 1",
    "[i for i in range(3)] == 1",
    "x if x else x == 1",
    "1e300 == x",
    "M ** 1000 == M",
    "y == x",
    "exp == x",
    "x == x or x == x",
    "not x == x",
    "f'{x}' == x",
    "x[::-1].__len__() == 1",
    "sum(x for x in y) == 1",
    "norm(*x) == 1",
    "norm(**x) == 1",
    "(x, x) == x",
    "x := 3",
])
def test_forbidden_constructs_are_refused(text):
    with pytest.raises(dsl.DSLError):
        dsl.parse(text, NAMES, FUNCS)


@pytest.mark.parametrize("text", [
    "norm(M @ x) <= norm(M) * norm(x)",
    "M.T @ M == I(3)",
    "0 <= norm(x) <= 2 and norm(x) >= 0",
    "sum(M[k, k] for k in range(3)) == tr(M)",
    "g.L[0] @ x == x",
    "-x + 2 * x / 3 == x ** 2",
    "qexp(x, rotor='exp_u') == x",
])
def test_allowed_constructs_parse(text):
    tree = dsl.parse(text, NAMES, FUNCS)
    ops = [r.op for r in dsl.relations(tree, text)]
    assert ops and set(ops) <= {"==", "<=", ">="}


def test_relations_split_chains():
    text = "0 <= norm(x) <= 2 and x == x"
    tree = dsl.parse(text, NAMES, FUNCS)
    rels = dsl.relations(tree, text)
    assert [r.op for r in rels] == ["<=", "<=", "=="]


def _claim(check: dict, cid: str = "A.1") -> Claim:
    return Claim.model_validate({"id": cid, "title": "t", "document": "d", "locator": "l", "kind": "identity",
                                 "statement": "s", "check": check})


def test_bad_expression_is_an_error_verdict_not_a_crash():
    r = run_claim(_claim({"given": {"x": "vec(3)"}, "assert": "x.__class__ == x"}), {}, budget="quick")
    assert r.verdict == "error" and "__class__" in r.message


def test_attributes_of_tensors_are_refused_at_evaluation():
    # `.part` parses (composite hypotheses have parts) but a tensor has no parts: never a Python getattr
    r = run_claim(_claim({"given": {"M": "mat(3)"}, "assert": "M.data == M"}), {}, budget="quick")
    assert r.verdict == "error" and "attribute 'data'" in r.message


def test_unknown_sampler_and_bad_arguments_are_errors():
    r = run_claim(_claim({"given": {"x": "nosuch(3)"}, "assert": "x == x"}), {}, budget="quick")
    assert r.verdict == "error" and "unknown sampler" in r.message
    r = run_claim(_claim({"given": {"x": "vec(3, 4, 5)"}, "assert": "x == x"}), {}, budget="quick")
    assert r.verdict == "error" and "positional" in r.message


def test_shape_error_is_an_error_verdict():
    r = run_claim(_claim({"given": {"x": "vec(3)", "M": "mat(4)"}, "assert": "M @ x == x"}), {}, budget="quick")
    assert r.verdict == "error"


def test_nan_on_valid_instances_is_reported():
    r = run_claim(_claim({"given": {"x": "vec(3)"}, "assert": "log(-norm(x) - 1) == 0"}), {}, budget="quick")
    assert r.verdict == "error" and "NaN" in r.message


def test_no_check_and_not_checkable():
    r = run_claim(_claim(None), {}, budget="quick")
    assert r.verdict == "not-checkable" and r.details.get("pending")
    r = run_claim(_claim({"not_checkable": "a definition"}), {}, budget="quick")
    assert r.verdict == "not-checkable" and r.message == "a definition"


def test_batched_and_one_instance_paths_agree():
    from conftest import compile_check

    check = Check.model_validate({"given": {"g": "commuting_skew(4, 2)", "r": "vec(2)"}, "assert": "R_str(g.L, r) @ R_str(g.L, r).T == I(4)"})
    comp = compile_check(check)
    ctx = {"dtype": torch.float64, "device": torch.device("cpu")}
    theta = comp.init_theta(5, torch.Generator().manual_seed(1), ctx)
    batched = comp.evaluate(theta, ctx).flat
    for i in range(5):
        one = comp.evaluate_one(theta, i, ctx).flat
        for b, o in zip(batched, one):
            assert torch.allclose(b[i], o[0], atol=1e-14)


def test_every_whitelisted_function_is_documented():
    import re

    from pyverify.checks.vocabulary import VOCABULARY

    from conftest import REPO

    documented = set(re.findall(r"^\| `([A-Za-z_0-9]+)` \|", (REPO / "docs" / "checks.md").read_text(), re.M))
    assert not set(VOCABULARY) - documented, "add these to the function table of docs/checks.md"
