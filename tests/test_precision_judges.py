"""The precision model inside each judge (issue 23): the condition number measured on code below float64,
the rounding level of an order claim, the rounding bias of a Monte-Carlo mean, and the smallest constant at
the rounding level. Each is shown both ways: correct low-precision code is no longer refuted, and a planted
defect in the same code still is.
"""

from __future__ import annotations

import math

import pytest
import torch

from pyverify.checks import precision, roles
from pyverify.checks.validate import compile_checked
from pyverify.engine import run_claim
from pyverify.engine.relations.constant import RESOLVED_RATIO, judge_constant
from pyverify.registry import Verdict

from conftest import compiled_claim

import precision_fixtures.hostile_roles as hostile

FIXTURE = "tests/precision_fixtures/hostile_roles.py"
pytestmark = pytest.mark.usefixtures("unbound_after")


def _bind(role: str, name: str, dtype: str) -> None:
    roles.bind(role, getattr(hostile, name), f"{FIXTURE}:{name}", hostile.CONVENTIONS[role][1], dtype, "test")


def _rotation32(t: torch.Tensor) -> torch.Tensor:
    c = torch.zeros(2, 2, dtype=torch.float32)
    c[0, 1], c[1, 0] = -t.float(), t.float()
    return torch.linalg.matrix_exp(c).double()


@pytest.mark.parametrize("angle", [0.5, 8.0, 40.0])
def test_the_measured_condition_number_of_a_float32_rotation_grows_with_its_angle(angle):
    t = torch.tensor(angle, dtype=torch.float64)
    measured = float(precision.amplification(_rotation32, (t,), {}, _rotation32(t), torch.float32))
    # d exp(tJ) / dt = J exp(tJ): a relative move of t changes the result by |t| times as much, and the
    # float32 result's own rounding (a few t unit roundoffs, from the squarings) moves with it
    assert 0.3 * max(angle, 1) <= measured <= 6 * max(angle, 1), measured


def test_a_call_that_fails_on_moved_arguments_measures_one():
    def sized(n: torch.Tensor) -> torch.Tensor:  # a size read from a tensor: a moved size changes the shape
        return torch.ones(int(n.item()), dtype=torch.float32)

    n = torch.tensor(3.0, dtype=torch.float64)
    assert float(precision.amplification(sized, (n,), {}, sized(n), torch.float32)) == 1.0


def test_the_float32_rotation_at_large_angles_is_within_its_error_model_and_a_wrong_one_is_not(shipped):
    """T0.17 compares the bound rotation with expm(tJ) at t up to 20: a correct float32 matrix_exp errs by
    about 5 t unit roundoffs there, which the size model alone (4 unit roundoffs times 2) called a violation
    at every seed. The condition number measured on the call (about t) makes it its error model; the
    transposed generator, wrong by 2 sin t, is still refuted."""
    for seed in (0, 1):
        _bind("rotation", "rotation", "float32")
        result = run_claim(compile_checked(shipped, shipped.claims["T0.17"]), budget="quick", seed=seed)
        assert result.verdict is not Verdict.refuted, result.message
        roles.unbind_all()
    _bind("rotation", "rotation_transposed_generator", "float32")
    result = run_claim(compile_checked(shipped, shipped.claims["T0.17"]), budget="quick", seed=0)
    assert result.verdict is Verdict.refuted and "at float32 precision" in result.message, result.message


MONTE_CARLO = {"given": {"x": "vec(2, hi=0.5)", "W": "gaussian(16, 2)"}, "samples": 2000,
               "assert": "E(phi(x, W) @ phi(x, W)) == exp(x @ x)"}


def test_a_bfloat16_monte_carlo_mean_is_judged_to_its_precision_and_a_wrong_estimator_is_still_refuted():
    """A bfloat16 random-feature map's mean carries a bias of a few unit roundoffs that no sample size
    removes: within it the mean agrees; the map with the full norm in the exponent is off by far more."""
    _bind("random_features", "random_features", "bfloat16")
    result = run_claim(compiled_claim(MONTE_CARLO), budget="quick", seed=0)
    assert result.verdict is Verdict.holds, result.message
    roles.unbind_all()
    _bind("random_features", "random_features_full_norm", "bfloat16")
    result = run_claim(compiled_claim(MONTE_CARLO), budget="quick", seed=0)
    assert result.verdict is Verdict.refuted, result.message


def test_a_smallest_constant_at_the_rounding_level_anchors_no_growth():
    """A left side that is exactly 0 at the smallest size, computed as 2e-12 of the right side by an
    unbatched matrix_exp, then 0.2 at the other two: no power law; 1e-3, 0.2, 40 is one."""
    from pyverify.engine.pipeline import Searched

    def searched(ratios):
        return Searched(outcomes=[], satisfiable=True, worst_measure=[max(ratios)], worst_ratio=[max(ratios)],
                        ratios_by_size=[[({"d": d}, r) for d, r in zip((4, 6, 8), ratios)]], polished={},
                        message="", worst=max(ratios), tightness=None)

    assert 2.5e-12 < RESOLVED_RATIO * 10
    at_rounding = judge_constant(searched([2.5e-12, 0.2, 0.245]), ["lhs <= rhs"])
    assert at_rounding.verdict is Verdict.holds, at_rounding.message
    growing = judge_constant(searched([1e-3, 0.2, 40.0]), ["lhs <= rhs"])
    assert growing.verdict is Verdict.refuted, growing.message
    assert math.isfinite(growing.worst)
