"""The shipped registry bound to the worked example module (issue 22, "done when"): the RoPE claims of the
ESPR paper's introduction run on the module's own rotation and scores; the correct module holds, each
planted defect is refuted with a diagnosis that names it. The whole matrix (10 seeds, three budgets,
float32 and float64) is scripts/bound_module_matrix.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from pyverify.checks import roles
from pyverify.checks.binding_sources import load_bindings
from pyverify.checks.precision import made_in_float32
from pyverify.checks.validate import compile_checked
from pyverify.engine import check_claims
from pyverify.engine.diagnose import RelationProbe, diagnose, product_of_sums, through_entries
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
