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


# the claimed value subtracts two numbers near exp(|x|^2), one of them computed by the bound code: bfloat16
# rounding of that one moves the claimed value by a few percent of its own size (T7.5's claimed variance
# exp(2a)(exp(s + 2a) - 1) cancels in the same way around a bfloat16 logit a)
CANCELLING = {"given": {"x": "vec(2, hi=0.5)", "W": "gaussian(256, 2)"}, "samples": 20000,
              "assert": "E(phi(x, W) @ phi(x, W) - exp(x @ x) + x @ x) == "
                        "1 / (phi(x, 0 * ones(256, 2)) @ phi(x, 0 * ones(256, 2))) - exp(x @ x) + {c} * x @ x"}


def _batched_features(norm_factor: float):
    """The random-feature map written batchably (the hostile fixture's index-put version is evaluated one
    sample at a time, minutes at this sample size), in the dtype it is given."""
    def features(x, W):
        return torch.exp(x @ W.to(x.dtype).T - norm_factor * (x * x).sum(-1, keepdim=True)) / math.sqrt(W.shape[0])
    return features


@pytest.mark.parametrize("seed", [1, 2])
def test_a_claimed_value_that_bfloat16_code_moves_is_judged_to_its_precision_and_a_wrong_one_is_still_refuted(seed):
    """The rounding of the claimed value counts, not only the mean's: on float64 arguments the same code
    gives the claimed value the precision moved. With only the mean's shift allowed, the correct map was
    refuted at 9 to 12 standard errors at these seeds. A wrong constant in the claim, or the map with the full
    norm in the exponent, is refuted far beyond what bfloat16 moves."""
    def run(norm_factor: float, c: float):
        roles.unbind_all()
        roles.bind("random_features", _batched_features(norm_factor), f"batched({norm_factor})", {}, "bfloat16",
                   "test")
        return run_claim(compiled_claim({**CANCELLING, "assert": CANCELLING["assert"].format(c=c)}), budget="quick",
                         seed=seed)

    correct = run(0.5, 1)
    assert correct.verdict is Verdict.holds and "at bfloat16 precision" in correct.message, correct.message
    shrunk = run(0.5, 1.5)
    assert shrunk.verdict is Verdict.refuted and "at bfloat16 precision" in shrunk.message, shrunk.message
    wrong = run(1.0, 1)
    assert wrong.verdict is Verdict.refuted, wrong.message


@pytest.mark.parametrize("seed", [1, 2])
def test_a_claimed_value_smaller_than_what_bfloat16_is_forgiven_is_not_checkable_there_and_holds_in_float64(seed):
    """The same statement with its claimed value shrunk to 0.02 |x|^2 (on both sides, so it stays true): in
    float64 the test has power and holds; in bfloat16 the rounding bias it must forgive is larger than the
    claimed value itself, so no sample size lets it fail, and it says so instead of holding."""
    statement = {**CANCELLING, "assert": CANCELLING["assert"].replace("+ x @ x)", "+ 0.02 * x @ x)").format(c=0.02)}
    verdicts = {}
    for dtype in ("float64", "bfloat16"):
        roles.unbind_all()
        roles.bind("random_features", _batched_features(0.5), "batched(0.5)", {}, dtype, "test")
        verdicts[dtype] = run_claim(compiled_claim(statement), budget="quick", seed=seed)
    assert verdicts["float64"].verdict is Verdict.holds, verdicts["float64"].message
    low = verdicts["bfloat16"]
    assert low.verdict is Verdict.not_checkable, low.message
    assert "with the rounding bias its precision allows" in low.message and "could not have failed" in low.message


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


def test_an_instance_outside_the_range_of_the_codes_precision_is_inconclusive_not_an_error_or_a_refutation():
    """Positions 2^-200 are 0 in float32: code in float32 cannot be given them, so what it returns there shows
    nothing about it (T8'.19's positions 2^-k, k up to 256, were an `error` at float32). In range, the same
    code and claim hold; a NaN of float64 code stays an error."""
    tiny = {"given": {"r": "vec(1, lo=0.5, hi=1)"},
            "assert": "R_str(generators(I(2), ones(1, 1)), r * 2 ** -200)[1, 0] / (r[0] * 2 ** -200) == 1"}
    _bind("rotation", "rotation", "float32")
    result = run_claim(compiled_claim(tiny), budget="quick", seed=0)
    assert result.verdict is Verdict.inconclusive, result.message
    assert "outside the range of float32" in result.message and "rounds to 0" in result.message, result.message
    in_range = {**tiny, "assert": tiny["assert"].replace("2 ** -200", "2 ** -20")}
    assert run_claim(compiled_claim(in_range), budget="quick", seed=0).verdict is Verdict.holds
    roles.unbind_all()
    nan = {"given": {"r": "vec(1, lo=0.5, hi=1)"}, "assert": "(r - r) / (r - r) == 1"}
    assert run_claim(compiled_claim(nan), budget="quick", seed=0).verdict is Verdict.error


def test_a_constant_made_of_the_code_paths_rounding_is_read_on_a_second_path(shipped):
    """T6.2.corrected against correct float64 code whose unbatched matrix_exp errs by 1e-11: at d = 4 the exact
    left side is 0, and the search drove the right side to 1e-9, so the rounding read as a constant of 0.004
    growing to 0.2 at d = 8 (refuted at seed 0). On the second path (the kernels in a batch) that constant
    collapses; a constant that really grows along the sweep, in the same code, is still refuted."""
    _bind("rotation", "rotation", "float64")
    _bind("relative_logits", "relative_logits", "float64")
    result = run_claim(compile_checked(shipped, shipped.claims["T6.2.corrected"]), budget="quick", seed=0)
    assert result.verdict is Verdict.holds, result.message
    growing = {"given": {"r": "vec(1, lo=0.5, hi=1)"},
               "assert": "norm(R_str(generators(I(2), ones(1, 1)), r) - I(2)) <= 1e-3 / n",
               "relation": "constant", "dims": {"n": [1, 10, 100]}}
    result = run_claim(compiled_claim(growing), budget="quick", seed=0)
    assert result.verdict is Verdict.refuted and "grows with size" in result.message, result.message


def test_a_constant_partly_made_of_the_code_paths_rounding_counts_with_its_smaller_path(monkeypatch):
    """T6.2.corrected against the correct float64 layer at thorough seed 5: at d = 6, ep = 0, k = 100 the
    tightest instances read 2.66 on the one-instance path and 0.45 in a batch (a left side of 5e-11 against
    9e-12 over a right side of 2e-11) -- a fall of 6x, short of the 10x the search's estimate once needed
    before it was read on both paths -- and the constant "grew" 0.45 -> 2.59 along the sweep (a false
    refutation; 4 minutes to reproduce, recorded in the closing note of 2026-11-28). Each tightest instance
    now counts with the smaller of its two paths' ratios; a ratio both paths agree on is kept."""
    from types import SimpleNamespace

    from pyverify.engine import pipeline
    from pyverify.engine.falsify import Candidate, SearchOutcome

    on_two_paths = {"rounded": 0.45, "rounded too": 0.44, "real": 0.7}
    monkeypatch.setattr(pipeline, "ratio_on_two_paths", lambda run, comp, theta, j: (on_two_paths[theta], True))
    bound = SimpleNamespace(functions={"rotation": SimpleNamespace(binding=object())})
    reference = SimpleNamespace(functions={"rotation": SimpleNamespace(binding=None)})

    def searched(*ratios):
        names = ("rounded", "rounded too", "real", "unreadable")
        return SearchOutcome([0.0], [max(ratios)], None, 1, True,
                             tightest=[[Candidate(n, r) for n, r in zip(names, ratios)]])

    partly = searched(2.66, 2.64)
    agreed = searched(0.45, 0.44, 0.7)
    unreadable = searched(0.45, 0.44, 0.7, 0.9)  # the second path raises on this one: its own ratio stays
    own = searched(2.66, 2.64)
    pipeline._tightness_on_two_paths(None, [(bound, partly), (bound, agreed), (bound, unreadable), (reference, own)])
    assert partly.worst_ratio == [0.45]
    assert agreed.worst_ratio == [0.7]
    assert unreadable.worst_ratio == [0.9]
    assert own.worst_ratio == [2.66]  # the reference's float64 is its exact meaning's check: not re-read


def test_the_polished_constant_is_the_climbs_own_not_its_starting_score():
    """Polishing starts from the search's tightest instances. Their scores are the caller's to read (on two
    paths where the user's code runs: ``_tightness_on_two_paths``); were the polished constant to start from
    them, a start's one-path rounding (2.66 where the instance's ratio is 0.45) would come back as the
    reported constant. The climb reports only the ratios it measured itself, resolved above rounding."""
    from conftest import compile_check
    from pyverify.engine.context import CPU64
    from pyverify.engine.falsify import Candidate, generate
    from pyverify.engine.polish import polish

    comp = compile_check({"given": {"x": "vec(3, lo=0.5, hi=1)"}, "assert": "norm(x) <= 2 * norm(x)",
                          "relation": "constant"})
    drawn = generate(comp, 8, CPU64.seeded(0), None).tightest[0][0]
    start = Candidate(drawn.theta, 2.66)  # a score no instance of this claim has
    found = polish(comp, {0: [start]}, 5, CPU64.seeded(0), None)
    assert found.ratio[0] == pytest.approx(0.5), found.ratio


def test_the_reference_alone_on_one_instance_takes_the_batched_kernel_path():
    """The reference's own expm on the one-instance path (where code vmap cannot batch sends every instance)
    is as exact as under vmap: torch's unbatched float64 matrix_exp of this generator errs by more than
    1e-13, the batched one (what the reference now runs) by less than 1e-15."""
    from conftest import compile_check
    from pyverify.engine.context import CPU64

    generator = torch.tensor([[0.0, -0.03, 0.0, 0.0], [0.03, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -3e-4],
                              [0.0, 0.0, 3e-4, 0.0]], dtype=torch.float64)
    exact = torch.eye(4, dtype=torch.float64)
    for at, angle in ((0, 0.03), (2, 3e-4)):
        exact[at:at + 2, at:at + 2] = torch.tensor([[math.cos(angle), -math.sin(angle)],
                                                    [math.sin(angle), math.cos(angle)]], dtype=torch.float64)
    assert float((torch.linalg.matrix_exp(generator) - exact).abs().max()) > 1e-13  # the kernel alone
    comp = compile_check({"given": {"A": "mat(4, 4)"}, "assert": "expm(A) == A"})
    (_, lhs, _), = comp.evaluate_values({"A": generator.reshape(1, 4, 4)}, CPU64).relation_sides()
    assert float((lhs[0] - exact).abs().max()) < 1e-15


def test_a_mean_squared_error_of_bfloat16_code_allows_the_square_of_its_rounding(shipped):
    """ESPR.RF-mse.corrected at inputs of size 1e-3: the claimed MSE is 6.5e-6 and bfloat16 rounding of
    features near 1/sqrt(m) adds about u^2 to every squared error (measured 9.6e-6, refuted at 21 standard
    errors). The same samples on float64 arguments measure that shift, and the verdict says what it allowed."""
    _bind("random_features", "random_features", "bfloat16")
    result = run_claim(compile_checked(shipped, shipped.claims["ESPR.RF-mse.corrected"]), budget="quick", seed=0)
    assert result.verdict is Verdict.holds, result.message
    assert "at bfloat16 precision" in result.message and "rounding bias of the mean" in result.message


def test_a_violation_made_of_the_codes_float32_path_alone_is_inconclusive_and_a_small_real_defect_is_refuted(shipped):
    """T8'.7 against a correct float32 rotation at quick seed 7: torch's unbatched float32 matrix_exp of the
    rotation by -0.556 there errs by about 700 unit roundoffs (a batch of two: under 1), far past the
    precision's error model, and both evaluation paths agree on it (score 36.8, refuted before). The same
    code on float64 arguments satisfies the claim: the violation is made of float32 and is inconclusive at
    that precision. A rotation stretched by 3e-5 — a few hundred float32 unit roundoffs, near the tolerance
    too — keeps its violation on float64 arguments and is still refuted."""
    _bind("rotation", "rotation", "float32")
    result = run_claim(compile_checked(shipped, shipped.claims["T8'.7"]), budget="quick", seed=7)
    assert result.verdict is Verdict.inconclusive, result.message
    assert "vanishes when the same code runs on float64 arguments" in result.message, result.message
    roles.unbind_all()

    def stretched(L: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return hostile.rotation(L, r) * (1 + 3e-5)

    roles.bind("rotation", stretched, "test:stretched", {}, "float32", "test")
    result = run_claim(compile_checked(shipped, shipped.claims["T8'.7"]), budget="quick", seed=7)
    assert result.verdict is Verdict.refuted, result.message
    assert "at float32 precision" in result.message, result.message


def test_a_false_claim_that_holds_only_to_bfloat16_precision_is_inconclusive_not_satisfied(shipped):
    """PE.Rem8 is false (the reference refutes it in float64, the registry's finding); against correct
    bfloat16 code its violation lies within bfloat16's error model, and the search found none beyond it —
    "holds at bfloat16 precision" read as the code satisfying a false statement. The reference is run on
    the same claim: it refutes, so the verdict on the code is inconclusive at bfloat16 and says why. A true
    claim (ESPR.Def-R2-J) stays consistent on the same code; in float64 the false one is refuted, as on the
    reference."""
    from pyverify.engine import check_claims

    _bind("mds_encoding", "mds_encoding", "bfloat16")
    _bind("rotary", "rotary", "bfloat16")
    results = {r.id: r for r in check_claims(shipped, ["PE.Rem8", "ESPR.Def-R2-J"], budget="quick", seed=0)}
    false = results["PE.Rem8"]
    assert false.verdict is Verdict.inconclusive, false.message
    assert "the reference refutes this claim in float64" in false.message
    assert false.details["reference_in_float64"]["verdict"] == "refuted"
    assert results["ESPR.Def-R2-J"].verdict is Verdict.consistent, results["ESPR.Def-R2-J"].message
    roles.unbind_all()
    _bind("mds_encoding", "mds_encoding", "float64")
    (again,) = check_claims(shipped, ["PE.Rem8"], budget="quick", seed=0)
    assert again.verdict is Verdict.refuted, again.message
