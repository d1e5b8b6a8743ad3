"""A slice of scripts/role_matrix.py: batching-hostile implementations of the roles
(tests/precision_fixtures/hostile_roles.py) bound in float32 and bfloat16, at the quick budget, one seed.
The correct ones get no refutation the registry does not expect; a planted defect is refuted far beyond its
precision's tolerance. And the engine's answer to code vmap cannot batch: a plain shape error of an
in-place write under vmap, or inside an expectation, sends that code one instance (one sample) at a time
instead of making the claim an error.
"""

from __future__ import annotations

import pytest
import torch

from pyverify.checks import roles
from pyverify.checks.validate import compile_checked
from pyverify.engine import run_claim
from pyverify.engine.context import CPU64
from pyverify.engine.scoring import score_sides
from pyverify.registry import Verdict

from conftest import compiled_claim

import precision_fixtures.hostile_roles as hostile

FIXTURE = "tests/precision_fixtures/hostile_roles.py"
# a few cheap claims per role (each exercises only that role)
CLAIMS = {
    "rotation": ["T2.7", "ESPR.Def-RSTR"],
    "rotary": ["ESPR.Def-R2-J"],
    "rotary_scores": ["ESPR.Text-rope-relative"],
    "rotor": ["RGAT.Def-rotor"],
    "gsm_logits": ["RGAT.Def-tau-sharpness"],
    "mds_encoding": ["PE.Text-mds-exact-isometry"],
}


pytestmark = pytest.mark.usefixtures("unbound_after")


def _bind(role: str, name: str, precision: str) -> None:
    conventions = hostile.CONVENTIONS[role][1]
    roles.bind(role, getattr(hostile, name), f"{FIXTURE}:{name}", conventions, precision, "test")


def _run(reg, cid: str):
    return run_claim(compile_checked(reg, reg.claims[cid]), budget="quick", seed=0)


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_correct_hostile_implementations_get_no_unexpected_refutation(shipped, precision):
    for role in CLAIMS:
        _bind(role, hostile.CONVENTIONS[role][0], precision)
    for role, ids in CLAIMS.items():
        for cid in ids:
            result = _run(shipped, cid)
            assert result.verdict is not Verdict.refuted or shipped.claims[cid].expect is Verdict.refuted, \
                (role, cid, result.message)
            assert result.verdict is not Verdict.error, (role, cid, result.message)


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
@pytest.mark.parametrize("role, cid", [("rotary", "ESPR.Text-rope-rotations"), ("rotation", "T2.7")])
def test_a_planted_defect_is_refuted_far_beyond_its_precision(shipped, precision, role, cid):
    _bind(role, hostile.DEFECTS[role][0], precision)
    result = _run(shipped, cid)
    assert result.verdict is Verdict.refuted, result.message
    score = float(result.message.split("violation score ")[1].split()[0])
    # in multiples of a tolerance already scaled to the precision: 4 unit roundoffs times the larger of the
    # size model and twice the condition number measured on the code (a bfloat16 position of 50 is off by
    # up to 0.1 rad)
    assert score > 3, result.message
    # and far above what the correct implementation errs by at the same instance, in the same precision
    witness = result.witness
    defect_error = max(r["measure"] for r in witness["relations"] if r["op"] == "==")
    roles.unbind_all()
    _bind(role, hostile.CONVENTIONS[role][0], precision)
    compiled = compile_checked(shipped, shipped.claims[cid])
    comp = next(c for c in compiled.assignments if c.dims == (witness["dims"] or {}))
    def batched(v):
        if isinstance(v, dict):
            return {k: batched(x) for k, x in v.items()}
        return torch.tensor(v, dtype=torch.float64).unsqueeze(0)

    values = {k: batched(v) for k, v in witness["values"].items() if k in comp.givens}
    sides = comp.evaluate_values(values, CPU64)
    correct_error = max(float(score_sides(sides, None, torch.float64).measure[j][0])
                        for j, rel in enumerate(comp.relations) if rel.op == "==")
    assert defect_error > 10 * correct_error, (defect_error, correct_error, result.message)


def test_an_order_claim_is_not_refuted_by_bfloat16_rounding(shipped):
    """S2 (d_geo^2 - 4|u - v|^2 = O(eps^4)) against a correct rotor computing in bfloat16: the remainder of the
    small-angle expansion sinks into bfloat16 rounding at the small eps values, where the slope flattens to
    ~1.2 and used to refute it. The order judge measures that rounding level (bfloat16 rounding injected into
    the rotor's results) and says the order cannot be measured at this precision; the same rotor at float32
    still holds."""
    _bind("rotor", "rotor", "bfloat16")
    result = _run(shipped, "S2")
    assert result.verdict is Verdict.inconclusive, result.message
    assert result.message.startswith("inconclusive at bfloat16 precision") and "rounding level" in result.message
    roles.unbind_all()
    _bind("rotor", "rotor", "float32")
    assert _run(shipped, "S2").verdict is Verdict.holds


def test_an_order_claim_still_refutes_a_wrong_order_at_bfloat16(tmp_path):
    """The rounding level excludes only values where the quantity is the code's rounding: a quantity of a
    wrong order that stays far above it (eps^1 claimed as eps^2) is still refuted in bfloat16 code."""
    _bind("rotor", "rotor", "bfloat16")
    claim = {"given": {"u": "small_angle(eps)"}, "assert": "norm(qexp(u) - qexp(0 * u))", "relation": "order",
             "order": {"param": "eps", "values": [0.8, 0.4, 0.2], "claimed": 2, "direction": "zero"}}
    result = run_claim(compiled_claim(claim), budget="quick")
    assert result.verdict is Verdict.refuted, result.message


def test_an_index_put_generator_is_evaluated_one_instance_at_a_time_not_an_error(shipped):
    """rotation() adds each generator into a preallocated matrix in place: under vmap that is a plain shape
    error ("output with shape [3] doesn't match the broadcast shape [16, 3]"), which the engine used to
    turn into the claim's error."""
    _bind("rotation", "rotation", "float64")
    result = _run(shipped, "ESPR.Def-RSTR")
    assert result.verdict is Verdict.consistent, result.message


EXPECTATION = {"given": {"x": "vec(2, hi=0.5)", "W": "gaussian(4, 2)"}, "samples": 200,
               "assert": "E(phi(x, W) @ phi(x, W)) == exp(x @ x)"}


def test_an_expectation_over_unbatchable_code_is_taken_sample_by_sample():
    _bind("random_features", "random_features", "float64")
    assert run_claim(compiled_claim(EXPECTATION), budget="quick").verdict is Verdict.holds
    roles.unbind_all()
    _bind("random_features", "random_features_full_norm", "float64")  # the same route still refutes a defect
    assert run_claim(compiled_claim(EXPECTATION), budget="quick").verdict is Verdict.refuted


def test_sample_by_sample_is_bounded_and_says_on_how_many_samples_it_judged(monkeypatch):
    """ESPR.RF-orthogonal draws 400000 samples: one at a time, past the claim's wall-clock cap. Beyond the
    bound the test runs on the samples that fit and says so (here the bound is lowered to keep the test
    fast); its power is that of those samples, and a wrong estimator is still refuted on them."""
    from pyverify.engine.relations import expectation

    monkeypatch.setattr(expectation, "UNBATCHED_DRAWS", 100)
    _bind("random_features", "random_features", "float64")
    result = run_claim(compiled_claim({**EXPECTATION, "samples": 300}), budget="quick")
    assert result.verdict in (Verdict.holds, Verdict.not_checkable), result.message
    assert "of the 300 samples asked for per instance" in result.message, result.message
    roles.unbind_all()
    monkeypatch.setattr(expectation, "UNBATCHED_DRAWS", 2000)
    _bind("random_features", "random_features_full_norm", "float64")
    result = run_claim(compiled_claim({**EXPECTATION, "samples": 3000}), budget="quick")
    assert result.verdict is Verdict.refuted and "samples asked for" in result.message, result.message
    roles.unbind_all()  # batchable code (the reference) is not bounded
    assert run_claim(compiled_claim({**EXPECTATION, "samples": 300}), budget="quick").verdict is Verdict.holds


def test_the_rays_toward_zero_spare_a_correct_hostile_layer_and_refute_a_planted_error_in_its_claim(shipped, tmp_path):
    """A constant claim on the user's code (the per-instance matrix_exp rotation, float64) is judged along
    rays toward 0 too: the correct code still holds, and the claim with the difference dropped from its left
    side, whose constant is infinite at every size, is refuted there, its far end read on two paths."""
    from test_dodged_claims import _planted

    _bind("rotation", hostile.CONVENTIONS["rotation"][0], "float64")
    held = _run(shipped, "T5.3")
    assert held.verdict is Verdict.holds, held.message
    planted = _planted(tmp_path, "T5.3", [("R_str(gen.L, s) - R_str(gen.L, s - r))'", "R_str(gen.L, s))'")])
    assert planted.verdict is Verdict.refuted and "is infinite at" in planted.message, planted.message
    assert planted.witness["inputs"] and "paths" in planted.witness["recheck"], planted.witness["recheck"]
