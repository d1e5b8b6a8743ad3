"""Diagnoses of a refutation (engine/diagnose.py, engine/probe.py): each defect shape is recognised on a
planted defect of that shape, checked through the engine as a user's plugin function is, and nothing is
said about the correct implementation (which holds), nor by any recogniser where the two sides agree."""

from __future__ import annotations

import pytest
import torch

from pyverify import plugin
from pyverify.checks import plugins
from pyverify.engine import run_claim
from pyverify.engine.diagnose import RECOGNISERS, RelationProbe, call_history, diagnose, where_they_differ
from pyverify.engine.evidence import DefectDiagnosis
from pyverify.registry import Claim
from pyverify.report.evidence import evidence_sentences

F64 = torch.float64


@pytest.fixture(autouse=True)
def _forget_plugins():
    yield
    plugins.unload_all()


def rope(x, p, wrong_plane=None):
    """Rotary embedding, adjacent pairing, base 100; ``wrong_plane``: that plane's frequency 1.5 times too big."""
    d = x.shape[-1]
    theta = 100.0 ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)
    if wrong_plane is not None:
        theta = theta * torch.where(torch.arange(d // 2) == wrong_plane, 1.5, 1.0).to(x.dtype)
    c, s = torch.cos(p * theta), torch.sin(p * theta)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], -1).reshape(x.shape)


def logit(q, k, ri, rj):
    return (rope(q, ri) * rope(k, rj)).sum()


LOGIT = "impl(q, k, ri, rj) == dot(rope_ref(q, ri), rope_ref(k, rj))"
LOGIT_GIVEN = {"q": "vec(6)", "k": "vec(6)", "ri": "scalar(-4, 4)", "rj": "scalar(-4, 4)"}


def _claim(assertion: str, given: dict) -> Claim:
    return Claim.model_validate({"id": "D.1", "title": "t", "document": "d", "locator": "l", "kind": "identity",
                                 "statement": "s", "check": {"given": given, "assert": assertion}})


def _run(impl, assertion: str, given: dict):
    plugins.unload_all()
    plugin.function("rope_ref", rope, doc="reference rotation")
    plugin.function("impl", impl, doc="the implementation under test")
    return run_claim(_claim(assertion, given), {}, budget="quick")


def _diagnosed(planted, correct, assertion: str = LOGIT, given: dict | None = None) -> tuple[list[str], list[str]]:
    """(kinds, evidence sentences) of the planted implementation's refutation; the correct one holds, with
    no diagnosis."""
    given = given or LOGIT_GIVEN
    good = _run(correct, assertion, given)
    assert good.verdict == "holds" and good.find(DefectDiagnosis) is None, good.message
    bad = _run(planted, assertion, given)
    assert bad.verdict == "refuted", bad.message
    found = bad.find(DefectDiagnosis)
    assert found is not None, bad.message
    assert bad.as_dict()["details"]["diagnosis"]["defects"] == [d.as_dict() for d in found.diagnoses]
    return [d.kind for d in found.diagnoses], evidence_sentences(bad)


def test_a_reversed_displacement_sign_is_the_positions_exchanged():
    kinds, text = _diagnosed(lambda q, k, ri, rj: (q * rope(k, ri - rj)).sum(), lambda q, k, ri, rj: (q * rope(k, rj - ri)).sum())
    assert kinds == ["exchanged"], text
    assert any("ri and rj exchanged" in t and "sign of the displacement" in t for t in text), text


def test_a_transposed_score_matrix():
    given = {"Q": "mat(3, 4)", "K": "mat(3, 4)"}
    kinds, text = _diagnosed(lambda Q, K: K @ Q.T, lambda Q, K: Q @ K.T, "impl(Q, K) == Q @ K.T", given)
    assert kinds == ["transposed"], text
    assert any("transposed" in t and "einsum or matmul" in t for t in text), text
    assert any(t.startswith("Where: They differ at") for t in text), text  # the diagonal agrees


def test_a_constant_factor():
    kinds, text = _diagnosed(lambda q, k, ri, rj: 2 ** 0.5 * logit(q, k, ri, rj), logit)
    assert kinds == ["constant-factor"], text
    assert any("1.414 times" in t and "(a constant factor, √2)" in t for t in text), text


def test_two_constants_have_a_ratio_but_no_constant_factor():
    """A right side that is the same at every instance (a constant) gives no factor to report."""
    one = torch.tensor(1.0, dtype=F64)
    probe = RelationProbe("a == 1", "a", "1", (2 * one, one), others=[(2 * one, one), (2 * one, one)])
    assert diagnose(probe) == []


def test_one_wrong_frequency_is_one_plane():
    given = {"x": "vec(8)", "p": "scalar(-4, 4)"}
    kinds, text = _diagnosed(lambda x, p: rope(x, p, wrong_plane=1), lambda x, p: rope(x, p), "impl(x, p) == rope_ref(x, p)", given)
    assert kinds == ["one-plane"], text
    assert any("coordinates 2 and 3 (plane 1" in t for t in text), text


def test_a_key_only_sign_flip_enters_through_the_key_position():
    kinds, text = _diagnosed(lambda q, k, ri, rj: logit(q, k, ri, -rj), logit)
    assert kinds == ["enters-through"], text
    assert any("agree when rj = 0" in t and "enters through rj" in t for t in text), text


def test_a_product_of_sums():
    """Each vector summed before the product (the sums of the rotated q and k): where a position is 0, the
    value depends on that vector only through the sum of its entries."""
    kinds, text = _diagnosed(lambda q, k, ri, rj: q.sum() * rope(k, rj - ri).sum(), logit)
    assert kinds == ["product-of-sums"], text
    assert any("only through Σq" in t and "product of sums" in t for t in text), text


def test_a_value_that_depends_on_the_call_history():
    """A cache keyed by nothing that serves the previous call's positions (stale after any other call)."""
    last: dict[str, float] = {}

    def cached(x, p):
        used = last.get("p", float(p))
        last["p"] = float(p)
        return rope(x, torch.as_tensor(used, dtype=x.dtype))

    given = {"x": "vec(6)", "p": "scalar(-4, 4)"}
    kinds, text = _diagnosed(cached, lambda x, p: rope(x, p), "impl(x, p) == rope_ref(x, p)", given)
    assert kinds == ["call-history"], text
    assert any("call history" in t for t in text), text


# ------------------------------------------------------------------- the recognisers on agreeing sides

def _agreeing_probe() -> RelationProbe:
    """Every variation evaluated on a correct implementation: the two sides equal everywhere."""
    g = torch.Generator().manual_seed(0)
    S = torch.randn(4, 4, generator=g, dtype=F64)
    v = torch.randn(6, generator=g, dtype=F64)
    same = (S, S.clone())
    return RelationProbe("a == b", "a", "b", same, again=same, exchanged={("ri", "rj"): same}, zeroed={"ri": same, "rj": same},
                         base=same, sum_fixed={"q": same}, others=[same, same, same], vectors={"q": v, "k": v},
                         scalars={"ri": 1.0, "rj": 2.0})


def test_no_recogniser_speaks_where_the_sides_agree():
    probe = _agreeing_probe()
    assert diagnose(probe) == []
    assert all(recognise(probe) is None for _, recognise in RECOGNISERS) and call_history(probe) is None
    assert where_they_differ(*probe.at_witness) is None


def test_rows_and_columns_name_the_index_the_defect_follows():
    g = torch.Generator().manual_seed(1)
    S = torch.randn(3, 4, generator=g, dtype=F64)
    keys = S.clone()
    keys[:, 1:] *= -1  # column 0 agrees (a key at position 0), the others do not
    probe = RelationProbe("S == T", "S", "T", (keys, S))
    assert [d.kind for d in diagnose(probe)] == ["rows-columns"] and "column(s) 0" in diagnose(probe)[0].message
    queries = S.clone()
    queries[1:] *= 2
    assert "row(s) 0" in diagnose(RelationProbe("S == T", "S", "T", (queries, S)))[0].message
    assert diagnose(RelationProbe("S == T", "S", "T", (S, S.clone()))) == []


def test_a_product_of_sums_is_recognised_from_the_values_alone():
    q = torch.tensor([1.0, 2.0, -0.5], dtype=F64)
    k = torch.tensor([0.5, -1.0, 3.0], dtype=F64)
    wrong = RelationProbe("l == r", "l", "r", (q.sum() * k.sum(), q @ k), vectors={"q": q, "k": k})
    assert [d.kind for d in diagnose(wrong)] == ["product-of-sums"]
    right = RelationProbe("l == r", "l", "r", (q @ k, q @ k), vectors={"q": q, "k": k})
    assert diagnose(right) == []


def test_the_report_shows_every_hypothesis_of_a_witness():
    """report.md dropped the hypotheses past the fourth."""
    given = {name: "scalar(-1, 1)" for name in ("a", "b", "c", "u", "v", "w")}
    result = _run(lambda a: a, "impl(a) + b + c + u + v + w == a + b + c + u + v + w + 1", given)
    assert result.verdict == "refuted"
    first = evidence_sentences(result)[0]
    assert all(f"{name} = " in first for name in given), first


def test_complex_sides_keep_their_imaginary_part():
    """Complex sides (the probe cast them to real, losing the imaginary part; the constant-factor recogniser
    raised on a complex ratio): compared whole, recognised as nothing, located where they differ."""
    z = torch.tensor([1 + 2j, 3 - 1j, 0.5 + 0j, -1 + 1j], dtype=torch.complex128)
    conj = z.conj()
    probe = RelationProbe("z == w", "z", "w", (z, conj), others=[(z, conj), (2 * z, 2 * conj)])
    assert diagnose(probe) == []  # no recognised shape, and no failure on complex values
    assert where_they_differ(z, conj) == "they differ at 3 of 4 entries: [0], [1], [3]; the others agree."


def test_an_exchange_that_matches_only_at_the_witness_is_a_coincidence():
    """Round shrunk values can make an exchange match at the witness: it must explain a fresh instance too."""
    a, b = torch.tensor(1.0, dtype=F64), torch.tensor(2.0, dtype=F64)
    at_witness = {("q", "k"): (b, a)}  # the exchanged left side equals the right side there
    probe = RelationProbe("l == r", "l", "r", (a, b), exchanged=at_witness,
                          exchanged_elsewhere={("q", "k"): ((a, b), (3 * a, b))})  # not at the fresh instance
    assert diagnose(probe) == []
    probe.exchanged_elsewhere = {("q", "k"): ((a, b), (b, a))}
    assert [d.kind for d in diagnose(probe)] == ["exchanged"]
