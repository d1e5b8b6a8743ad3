"""Issue 13 §3, §6, §7: vacuity by order and by trivial witness, sharp tightness (polishing), and the
power of Monte-Carlo tests (Holm correction, detectable effect, inconclusive comparisons)."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from pyverify.engine import run_claim
from pyverify.engine import PROFILES
from pyverify.engine.relations.expectation import _holm
from pyverify.registry import Claim, Verdict, load_registry


def _run(check: dict, budget: str = "quick", seed: int = 0):
    claim = Claim.model_validate({"id": "X.1", "title": "t", "document": "d", "locator": "l", "kind": "bound",
                                  "statement": "s", "check": check})
    return run_claim(claim, {}, budget=budget, seed=seed)


# ---------------------------------------------------------------------------------------- §3 order

# |3 eps^2 u-hat|: order 2 as eps -> 0
ORDER_TWO = {"relation": "order", "given": {"u": "small_angle(eps, lo=0.5)"}, "assert": "3 * norm(u) ** 2",
             "order": {"param": "eps", "values": [0.1, 0.03, 0.01, 0.003], "claimed": 2}}


def test_an_order_no_better_than_its_trivial_baseline_is_vacuous_with_both_slopes():
    res = _run({**ORDER_TWO, "baseline": "norm(u) ** 2"})
    assert res.verdict.value == "vacuous"
    assert "2.000" in res.message and "claimed order is 2" in res.message
    assert res.details["order"]["baseline"]["measured_median"] == pytest.approx(2, abs=1e-6)


def test_an_order_better_than_its_baseline_holds():
    res = _run({**ORDER_TWO, "baseline": "norm(u)"})  # the baseline is only first order
    assert res.verdict.value == "holds"
    assert res.details["order"]["baseline"]["measured_median"] == pytest.approx(1, abs=1e-6)


def test_a_wrong_order_is_refuted_whatever_the_baseline():
    res = _run({**ORDER_TWO, "order": {**ORDER_TWO["order"], "claimed": 3}, "baseline": "norm(u) ** 2"})
    assert res.verdict.value == "refuted"


# ---------------------------------------------------------------------------------------- §3 exists

# t = eps x: sin t >= t only at t = 0 (the unperturbed case); sin t <= t everywhere
def _exists(assertion: str, trivial: str | None) -> dict:
    check = {"relation": "exists", "given": {"x": "scalar(0.1, 1)"}, "where": {"t": "eps * x"},
             "assert": assertion, "dims": {"eps": [0, 0.5]}}
    return {**check, "trivial": trivial} if trivial else check


def test_an_existence_met_only_by_the_trivial_witness_is_vacuous_and_shows_it():
    res = _run(_exists("sin(t) >= t", "t == 0"))
    assert res.verdict.value == "vacuous"
    assert res.details["trivial_witness"]["dims"] == {"eps": 0}
    # without naming the trivial subfamily the unperturbed witness passes for one
    assert _run(_exists("sin(t) >= t", None)).verdict.value == "holds"


def test_an_existence_with_a_non_trivial_witness_holds():
    res = _run(_exists("sin(t) <= t", "t == 0"))
    assert res.verdict.value == "holds"
    assert res.details["example"]["dims"] == {"eps": 0.5}


def test_trivial_outside_an_existence_check_is_an_error():
    res = _run({"given": {"x": "scalar(0, 1)"}, "assert": "x <= 1", "trivial": "x == 0"})
    assert res.verdict.value == "error" and "relation: exists" in res.message


def test_the_reachability_claim_is_vacuous_once_its_trivial_family_is_drawn_by_its_content():
    """T8'.15 (issue 23): its trivial family is drawn by what makes its content hold automatically (H_STRING
    and the neighbourhood where the claimed bound follows by continuity), and then it is vacuous with leaked
    models as without them; with the former family (exactly commuting, no leak) the leaked models counted
    as non-trivial witnesses and it held."""
    reg = load_registry()
    claim = reg.claims["T8'.15"]
    conv = reg.conventions[claim.id]

    def verdict(**update) -> str:
        return run_claim(claim.model_copy(update={"check": claim.check.model_copy(update=update)}), conv,
                         budget="quick").verdict.value

    assert verdict(given={**claim.check.given, "post": "structured_post(d, 2, m=m, lam=0.25)"}) == "vacuous"
    assert run_claim(claim, conv, budget="quick").verdict.value == "vacuous"
    assert verdict(trivial="eps <= 0 and eta_mix <= 0") == "holds"


# ---------------------------------------------------------------------------------------- §6 tightness

# ESPR.Eq32's situation: |(I + S)^{-1} (S - S_-) (I + S_-)^{-1}| <= eta / (1 - eta), attained at S_- = 0, E = -I
def _resolvent(constant: str = "1") -> dict:
    return {"given": {"Sm": "skew(3, hi=4)", "E1": "mat(3, hi=1)", "eta": "scalar(0, 0.98)"},
            "where": {"S": "Sm + eta * E1"},
            "assert": f"opnorm(inv(I(3) + S) @ (S - Sm) @ inv(I(3) + Sm)) <= {constant} * eta / (1 - eta)"}


@pytest.mark.parametrize("seed", range(5))
def test_an_attained_bound_is_reported_at_its_supremum_at_every_seed(seed):
    res = _run(_resolvent(), budget="default", seed=seed)
    assert res.verdict.value == "holds"
    assert 0.999 <= res.details["tightness"] <= 1 + 1e-9


def test_polishing_is_what_reaches_the_supremum():
    """The same search without the polishing phase stops short of the supremum at some seed."""
    default = PROFILES["default"]
    unpolished = dataclasses.replace(default, name="unpolished", phases=default.phases - {"polish", "necessity"})
    assert min(_run(_resolvent(), budget=unpolished, seed=s).details["tightness"] for s in range(3)) < 0.999


@pytest.mark.parametrize("seed", range(3))
def test_a_constant_five_percent_too_small_is_refuted(seed):
    res = _run(_resolvent("0.95"), budget="default", seed=seed)
    assert res.verdict.value == "refuted" and res.witness is not None


def test_the_smallest_admissible_constant_is_polished_too():
    check = {**_resolvent(), "assert": "opnorm(inv(I(3) + S) @ (S - Sm) @ inv(I(3) + Sm)) <= eta / (1 - eta)",
             "relation": "constant", "dims": {"k": [1, 2, 3]}}
    res = _run(check, budget="default")
    assert res.verdict.value == "holds" and 0.999 <= res.details["constant"] <= 1 + 1e-9


# ---------------------------------------------------------------------------------------- §7 power

def test_holm_rejects_step_down_until_the_first_failure():
    p = torch.tensor([0.04, 0.001, 0.03, 0.01], dtype=torch.float64)
    # sorted 0.001, 0.01, 0.03, 0.04 against 0.05/4, 0.05/3, 0.05/2, 0.05/1: the third fails
    assert _holm(p, 0.05).tolist() == [False, True, False, True]
    assert not _holm(torch.tensor([0.02, 0.02], dtype=torch.float64), 0.03).any()


def _beats(factor: float, samples: int) -> dict:
    """The scaled estimator factor * g (g ~ N(0, x^2)) has a smaller second moment than g itself."""
    return {"given": {"x": "scalar(1, 2)", "g": "gaussian(1)"}, "samples": samples,
            "assert": f"E(({factor} * x * g[0]) ** 2) < x ** 2"}


def test_an_underpowered_comparison_is_inconclusive():
    res = _run(_beats(0.99, 1000))
    assert res.verdict.value == "not-checkable" and res.message.startswith("inconclusive")
    assert res.details["detectable_effect"] > 0.02  # the 2% reduction is below what 1000 samples see


def test_a_powered_true_comparison_holds():
    res = _run(_beats(0.99, 200000))
    assert res.verdict.value == "holds"
    assert res.details["detectable_effect"] < 0.02


def test_a_powered_false_comparison_is_refuted():
    res = _run(_beats(1.01, 200000))
    assert res.verdict.value == "refuted" and res.witness is not None


def test_an_equality_test_that_could_not_fail_is_inconclusive():
    check = {"given": {"g": "gaussian(1)"}, "samples": 100, "assert": "E(1000 * g[0] + 1) == 1"}
    res = _run(check)
    assert res.verdict.value == "not-checkable" and res.details["detectable_effect"] > 1
    # the same estimator with a sample size that can see errors of the claimed size holds
    assert _run({**check, "assert": "E(g[0] + 1) == 1"}).verdict.value == "holds"


def test_an_instance_whose_claimed_value_is_near_zero_does_not_blind_the_others():
    """T7.4 at default seed 9: one instance's claimed variance was 4.3e-5, where no sample size of the budget
    resolves a relative effect; the claim was called not checkable, though the other 11 instances could
    detect an effect of 0.22 of the claimed value. The power is that of the instances that have it; a claim
    none of whose instances has power stays not checkable, and a planted error is still refuted."""
    check = {"given": {"g": "gaussian(1)"}, "samples": 4000, "assert": "E(c + 0.01 * g[0]) == c",
             "dims": {"c": [1, 1e-6]}}
    res = _run(check)
    assert res.verdict.value == "holds", res.message
    assert "at 3 of the 6 instances" in res.message and res.details["detectable_effect"] < 0.01, res.message
    assert _run({**check, "dims": {"c": [1e-6]}}).verdict.value == "not-checkable"
    shrunk = _run({**check, "assert": "E(c + 0.01 * g[0]) == 1.01 * c"})
    assert shrunk.verdict.value == "refuted", shrunk.message


def test_the_tightness_spread_over_seeds_is_reported_on_request():
    from pyverify.engine import check_claims

    reg = load_registry()
    (res,) = check_claims(reg, ["ESPR.Eq32"], budget="quick", tightness_seeds=3)
    spread = res.details["tightness_spread"]
    assert spread["seeds"] == [0, 1, 2] and len(spread["values"]) == 3
    assert spread["values"][0] == res.details["tightness"]
    assert spread["min"] < spread["max"]  # quick does not polish: the seeds really differ
    (plain,) = check_claims(reg, ["ESPR.Eq32"], budget="quick")
    assert "tightness_spread" not in plain.details


def test_a_counterexample_found_by_another_seed_of_the_spread_is_the_verdict(tmp_path, monkeypatch):
    """The spread's other seeds check the claim in full: a refutation there was once recorded as a gap in the
    spread (tightness None) under a verdict of holds. It is the verdict now, with the seed that found it,
    and a claim about that claim is judged again."""
    from pyverify.engine import check_claims, runner

    (tmp_path / "r.yaml").write_text(
        "documents:\n  - {key: d, title: t, files: [none]}\nclaims:\n"
        "  - {id: B.1, title: t, document: d, locator: x, kind: bound, statement: x,"
        " check: {given: {x: 'vec(3)'}, assert: 'norm(x) <= 2 * norm(x) + 1'}}\n"
        "  - {id: E.1, title: t, document: d, locator: x, kind: remark, statement: x, check: {entails: [B.1]}}\n")
    reg = load_registry(tmp_path / "r.yaml")
    honest = runner.run_registry_claim

    def planted(registry, claim_id, chosen, seed, device):  # seed 2 alone "finds" a counterexample
        res = honest(registry, claim_id, chosen, seed, device)
        return dataclasses.replace(res, verdict=Verdict.refuted, message="planted") if seed == 2 else res

    monkeypatch.setattr(runner, "run_registry_claim", planted)
    first = {r.id: r for r in check_claims(reg, ["B.1", "E.1"], budget="quick")}
    assert first["B.1"].verdict.value == "holds" and first["E.1"].verdict.value == "holds"
    spread = {r.id: r for r in check_claims(reg, ["B.1", "E.1"], budget="quick", tightness_seeds=3)}
    bound = spread["B.1"]
    assert bound.verdict.value == "refuted" and bound.message.startswith("refuted at seed 2, one of the 3 seeds")
    assert bound.details["tightness_spread"]["verdicts"] == ["holds", "holds", "refuted"]
    assert spread["E.1"].verdict.value == "refuted" and spread["E.1"].details["entailed"] == {"B.1": "refuted"}
    # where every seed holds, the report says the spread in words
    monkeypatch.setattr(runner, "run_registry_claim", honest)
    (held,) = check_claims(reg, ["B.1"], budget="quick", tightness_seeds=3)
    from pyverify.report.evidence import evidence_sentences

    assert any(s.startswith("Over seeds 0, 1, 2 the tightness found ranges from") for s in evidence_sentences(held))


def test_the_report_shows_the_trivial_witness_of_a_vacuous_existence():
    from pyverify.report import html

    res = _run(_exists("sin(t) >= t", "t == 0")).as_dict()
    claim = {**res, "kind": "existence", "document": "doc", "deps": [], "restates": [], "corrects": None,
             "rests_on_refuted": [], "formal": "none", "title": "X", "statement": "x", "standing": "not-decided",
             "false_premises": [], "dependents": [], "edges_reduced": [], "reproduce": "pyverify check X"}
    page = html.render({"claims": [claim], "documents": {"doc": {"title": "D"}}, "counts": {}, "graph_problems": [],
                        "endangered": {"doc": []}, "seed": 0, "budget": "quick", "device": "cpu", "toolchain": None,
                        "lean_built": False})
    assert "trivial witness (the only kind found)" in page and "&#34;eps&#34;: 0" in page.replace("&quot;", "&#34;")


def test_a_confirmed_monte_carlo_refutation_survives_a_later_failure(monkeypatch):
    from pyverify.checks.compiled import Compiled

    def broken(*args, **kwargs):
        raise RuntimeError("planted failure after the confirmation")

    monkeypatch.setattr(Compiled, "evaluate_one", broken)
    res = _run(_beats(1.01, 200000))
    assert res.verdict.value == "refuted" and "planted failure" in res.message
    assert res.witness["samples"] == 800000


# ------------------------------------------------------------------ assumptions of order and MC checks

def test_an_expectation_check_honours_its_assumptions():
    # E(x g^2) = x <= 1 holds exactly for the admissible x <= 1 of the range [0, 2]: refuted without the
    # assumption, holds with it (the instances with x > 1 are set aside, and counted)
    check = {"given": {"x": "scalar(0, 2)", "g": "gaussian(1)"}, "samples": 20000, "assert": "E(x * g[0] ** 2) <= 1"}
    assert _run(check).verdict.value == "refuted"
    res = _run({**check, "assume": "x <= 0.9"})
    assert res.verdict.value == "holds", res.message
    assert res.details["instances_outside_assumptions"] > 0


def test_an_expectation_check_whose_assumptions_no_instance_meets_is_vacuous():
    res = _run({"given": {"x": "scalar(0, 1)", "g": "gaussian(1)"}, "samples": 1000,
                "assume": "x >= 2", "assert": "E(g[0] ** 2) == 1"})
    assert res.verdict.value == "vacuous" and "assumptions" in res.message


def test_an_order_check_whose_assumptions_no_instance_meets_is_vacuous():
    res = _run({**ORDER_TWO, "assume": "norm(u) >= 10"})
    assert res.verdict.value == "vacuous" and "assumptions" in res.message
