"""The shipped registry bound to the worked example module (issue 22, "done when"): the RoPE claims of the
ESPR paper's introduction run on the module's own rotation and scores; the correct module holds, each
planted defect is refuted with a diagnosis that names it. The whole matrix (10 seeds, three budgets,
float32 and float64) is scripts/bound_module_matrix.py."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import torch

from pyverify.checks import roles
from pyverify.checks.binding_sources import load_bindings
from pyverify.checks.precision import made_in_float32
from pyverify.checks.validate import compile_checked
from pyverify.engine import check_claims
from pyverify.engine.diagnose import RelationProbe, diagnose, plane_decay, product_of_sums, through_entries
from pyverify.registry import Verdict

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/rotary_module.py"
ROPE_CLAIMS = ["ESPR.Def-R2-J", "ESPR.Text-rope-rotations", "ESPR.Text-rope-scores", "ESPR.Text-rope-relative",
               "ESPR.Text-rope-kv-cache"]


@pytest.fixture
def bound(shipped):
    def bind(suffix: str = ""):
        load_bindings([f"rotary={EXAMPLE}:rope{suffix},pairing=half",
                       f"rotary_scores={EXAMPLE}:scores{suffix},pairing=half"], directory=REPO)
        return check_claims(shipped, ROPE_CLAIMS, budget="quick", seed=0)

    yield bind
    roles.unbind_all()


def _by_id(results):
    return {r.id: r for r in results}


@pytest.mark.parametrize("suffix", ["", "_float64"])
def test_the_correct_module_satisfies_every_rope_claim_at_its_measured_precision(bound, suffix):
    results = _by_id(bound(suffix))
    assert set(results) == set(ROPE_CLAIMS)  # every claim exercising a bound role ran
    for cid, r in results.items():
        assert r.verdict in (Verdict.holds, Verdict.consistent), (cid, r.verdict, r.message)
        # float32 arithmetic (its own dtype, or its float32-built frequency table in float64): said so
        assert "float32 precision" in r.message


@pytest.mark.parametrize("defect, claim, kind", [
    ("key_sign", "ESPR.Text-rope-scores", "through-entries"),
    ("wrong_frequency", "ESPR.Text-rope-rotations", "one-plane"),
    ("non_orthogonal", "ESPR.Text-rope-rotations", "constant-factor"),
    ("transposed_scores", "ESPR.Text-rope-scores", "transposed"),
    ("product_of_sums", "ESPR.Text-rope-scores", "product-of-sums"),
    ("stale_cache", "ESPR.Text-rope-kv-cache", "call-history"),
])
def test_each_planted_defect_is_refuted_with_a_diagnosis_that_names_it(bound, defect, claim, kind):
    results = _by_id(bound(f"_{defect}"))
    r = results[claim]
    assert r.verdict is Verdict.refuted, (claim, r.verdict, r.message)
    kinds = [d["kind"] for d in r.details.get("diagnosis", {}).get("defects", [])]
    assert kind in kinds, (kinds, r.message)


def test_the_xpos_module_holds_with_its_declared_decay_divided_out(bound):
    """The adapter's spec declares the decay (zeta, scale base 64), and the module's bindable functions carry
    it (``pyverify_decay``): the binding divides it out, and the rotation underneath satisfies every RoPE claim."""
    for cid, r in _by_id(bound("_xpos")).items():
        assert r.verdict in (Verdict.holds, Verdict.consistent), (cid, r.verdict, r.message)


def test_the_decay_on_the_wrong_side_is_refuted_and_named_against_the_declared_one(bound):
    """The seventh planted defect: the xpos decay multiplies the key and divides the query. With the declared
    decay divided out, the query is left scaled by zeta^(-2p/s): RoPE's rotations are refuted, and the
    factor left over, -2 times the declared rate in every plane, names the wrong side. Translation
    invariance still holds (the wrong decay is relative too), as for the correct layer."""
    results = _by_id(bound("_xpos_wrong_side"))
    r = results["ESPR.Text-rope-rotations"]
    assert r.verdict is Verdict.refuted, r.message
    named = [d for d in r.details["diagnosis"]["defects"] if d["kind"] == "plane-decay"]
    assert named and "applied to the wrong side" in named[0]["message"], r.details["diagnosis"]
    assert results["ESPR.Text-rope-relative"].verdict is Verdict.holds


def test_a_table_built_in_float32_and_cast_up_is_recognised():
    made_in_32 = (1.0 / 10000 ** (torch.arange(0, 8, 2, dtype=torch.float32) / 8)).double()
    made_in_64 = 1.0 / 10000 ** (torch.arange(0, 8, 2, dtype=torch.float64) / 8)
    assert made_in_float32(made_in_32) and not made_in_float32(made_in_64)
    assert not made_in_float32(torch.tensor([1.0, 0.5, 3.0], dtype=torch.float64))  # short fractions tell nothing


def test_a_binding_takes_the_precision_its_callable_declares(shipped):
    spec = importlib.util.spec_from_file_location("rotary_module_bound", REPO / EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.rope_float64.pyverify_precision == "float32"  # float64 module, float32-built frequencies
    try:
        (binding,) = load_bindings([f"rotary={EXAMPLE}:rope_float64,pairing=half"], directory=REPO)
        assert binding.computes_in is torch.float32 and binding.describe()["precision"] == "float32"
        compiled = compile_checked(shipped, shipped.claims["ESPR.Text-rope-rotations"])
        assert compiled.functions["rope"].precision is torch.float32
    finally:
        roles.unbind_all()


def _probe(lhs, rhs, **kw):
    return RelationProbe("a == b", "`a`", "`b`", (lhs, rhs), **kw)


def test_the_new_recognisers_say_nothing_where_the_sides_agree_and_fire_on_their_shape():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(5, 2, generator=g, dtype=torch.float64), torch.randn(5, 2, generator=g, dtype=torch.float64)
    correct = q @ k.T
    assert diagnose(_probe(correct, correct.clone(), half_zeroed={"p": (correct, correct.clone())})) == []
    sums = q.sum(1, keepdim=True) * k.sum(1)[None]  # rank one: (Σq)(Σk)
    assert product_of_sums(_probe(sums, correct)) is not None
    assert product_of_sums(_probe(correct + 1e-3, correct)) is None  # two full-rank sides: not this shape
    flipped = correct.clone()
    flipped[:, 1::2] *= -1  # differs exactly in the odd columns, the ones whose position was not zeroed
    assert "key-only sign flip" in through_entries(_probe(flipped, correct, half_zeroed={"p": (flipped, correct)}))
    assert through_entries(_probe(correct, correct, half_zeroed={"p": (correct, correct.clone())})) is None


def test_the_decay_recogniser_reads_the_multiple_of_the_declared_rate_and_says_nothing_on_agreement():
    g = torch.Generator().manual_seed(1)
    rhs = torch.randn(1, 8, generator=g, dtype=torch.float64)
    declared = torch.tensor([-0.02, -0.01, -0.005, -0.002], dtype=torch.float64)
    at = 7.0

    def left(multiple):  # half pairing: plane i is coordinates (i, i + 4)
        f = torch.exp(multiple * declared * at)
        return rhs * torch.cat((f, f))

    for multiple, words in ((-2, "wrong side"), (-1, "not applied at all"), (1, "applied twice")):
        said = plane_decay(_probe(left(multiple), rhs, scalars={"p": at}, decay_rates=lambda d: declared))
        assert said is not None and words in said and "half pairing" in said, (multiple, said)
    # undeclared: a per-plane factor, named as a decay without a side
    said = plane_decay(_probe(left(-2), rhs, scalars={"p": at}))
    assert said is not None and "per-plane decay" in said and "wrong side" not in said
    # agreement, one factor for every plane (a constant factor: said elsewhere), or no single position: nothing
    assert plane_decay(_probe(rhs.clone(), rhs, scalars={"p": at}, decay_rates=lambda d: declared)) is None
    assert plane_decay(_probe(1.05 * rhs, rhs, scalars={"p": at})) is None
    assert plane_decay(_probe(left(-2), rhs, scalars={"p": at, "t": 2.0})) is None
    # a factor of 3 times the declared rate matches no reading of the declaration: the generic sentence
    said = plane_decay(_probe(left(3), rhs, scalars={"p": at}, decay_rates=lambda d: declared))
    assert said is not None and "per-plane decay" in said


def test_one_plane_is_read_as_a_decay_only_where_the_same_rate_explains_fresh_instances():
    g = torch.Generator().manual_seed(2)
    rate = 0.0125

    def pair(at, factor=None):
        rhs = torch.randn(1, 2, generator=g, dtype=torch.float64)
        return rhs * (math.exp(rate * at) if factor is None else factor), rhs

    witness, fresh = pair(9.0), [pair(3.0), pair(20.0)]
    said = plane_decay(_probe(*witness, scalars={"p": 9.0}, others=fresh, others_scalars=[{"p": 3.0}, {"p": 20.0}]))
    assert said is not None and "grows with the position" in said, said
    # a normalisation factor (1.05 whatever the position) is no decay
    constant = [pair(at, 1.05) for at in (9.0, 3.0, 20.0)]
    assert plane_decay(_probe(*constant[0], scalars={"p": 9.0}, others=constant[1:],
                              others_scalars=[{"p": 3.0}, {"p": 20.0}])) is None
    # without fresh instances one factor tells nothing
    assert plane_decay(_probe(*witness, scalars={"p": 9.0})) is None
