"""The papers as a content package, and the parts of the plugin API it registers through: the default
registry, functions whose failures reach the engine as raised, a declared condition number, figures,
guarantees; the compiled claim's relation kind from the samplers' own flag; profiles as values."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from pyverify import contributions, plugin
from pyverify.checks import plugins, vocabulary
from pyverify.checks.claim import RelationKind
from pyverify.checks.compiled import CheckError
from pyverify.checks.samplers import Gaussian
from pyverify.engine import PROFILES, Profile, run_claim
from pyverify.engine.context import CPU64, NumericContext
from pyverify.registry import load_registry

from conftest import PAPERS, bare_claim, compiled_claim


pytestmark = pytest.mark.usefixtures("forget_plugins")
_claim = bare_claim


def test_the_default_registry_is_the_content_packages_and_its_functions_outlive_an_unload():
    assert contributions.default_registry() == PAPERS
    assert set(load_registry().claims) == set(load_registry(PAPERS).claims)
    assert {"R_str", "d_geo", "stress"} <= set(vocabulary.VOCABULARY)
    plugins.unload_all()  # a user's plugins go; the content stays, like the built-ins
    assert "R_str" in vocabulary.VOCABULARY and "commuting_skew" in plugins.SAMPLERS
    assert plugins.LOADED["papers"].content


def _sometimes_singular(x):
    """A planted function that fails, as a linear-algebra routine does, on part of the instances."""
    if float(x[0]) > 0:
        raise RuntimeError("singular on this instance")
    return x


def test_failures_as_raised_skip_the_instance_where_a_plugin_failure_is_the_claims_error():
    plugin.function("strict_f", _sometimes_singular, doc="fails on half the instances")
    plugin.function("lenient_f", _sometimes_singular, doc="fails on half the instances", failures="as-raised")
    strict = run_claim(_claim({"given": {"x": "vec(2)"}, "assert": "strict_f(x) == x"}), budget="quick")
    lenient = run_claim(_claim({"given": {"x": "vec(2)"}, "assert": "lenient_f(x) == x"}), budget="quick")
    assert strict.verdict.value == "error" and "plugin function strict_f" in strict.message
    assert lenient.verdict.value == "holds" and lenient.details["failed_instances"] > 0
    with pytest.raises(plugins.PluginError, match="failures"):
        plugin.function("other_f", _sometimes_singular, doc="d", failures="ignore")


def test_a_declared_condition_number_scales_the_default_tolerance():
    plugin.function("twice", lambda x: 2 * x, doc="2x", condition=lambda x: torch.tensor(1e4, dtype=x.dtype))
    plugin.function("twice_plain", lambda x: 2 * x, doc="2x")
    ctx = CPU64.seeded(0)
    conditioned = compiled_claim({"given": {"x": "vec(3)"}, "assert": "twice(x) == 2 * x"}).assignments[0]
    plain = compiled_claim({"given": {"x": "vec(3)"}, "assert": "twice_plain(x) == 2 * x"}).assignments[0]
    theta = conditioned.init_theta(2, ctx.gen, ctx)
    assert conditioned.evaluate(theta, ctx).conditioning.tolist() == [1e4, 1e4]
    assert plain.evaluate(theta, ctx).conditioning.tolist() == [1.0, 1.0]


class _Coin(Gaussian):
    """A planted random variable registered by a plugin: it must make the check an expectation."""

    name, hypothesis = "coin_flips", "i.i.d. N(0, 1) entries"


def test_the_relation_kind_comes_from_the_samplers_own_flag():
    plugin.sampler(_Coin)
    expectation = compiled_claim({"given": {"w": "coin_flips(3)", "x": "vec(3)"}, "assert": "E(dot(w, x)) == 0"})
    assert expectation.kind is RelationKind.expectation
    pointwise = compiled_claim({"given": {"x": "vec(3)"}, "assert": "x == x"})
    assert pointwise.kind is RelationKind.pointwise
    with pytest.raises(CheckError, match="needs a random hypothesis"):  # found when the check compiles
        compiled_claim({"given": {"x": "vec(3)"}, "assert": "x == x", "relation": "expectation"})


def test_figures_and_guarantees_are_contributed_and_forgotten_with_their_plugin():
    plugin.figure("planted-figure", lambda out: None, about=("pyverify.attention.positional.stress",))
    plugin.guarantees("planted.Mechanism", {"works": "C.1"}, meanings={"works": "it works"})
    assert contributions.FIGURES["planted-figure"].about == ("pyverify.attention.positional.stress",)
    assert contributions.GUARANTEES["planted.Mechanism"].rests_on == {"works": "C.1"}
    assert "positional-stress" in contributions.FIGURES  # the content's
    plugins.unload_all()
    assert "planted-figure" not in contributions.FIGURES and "planted.Mechanism" not in contributions.GUARANTEES
    assert "positional-stress" in contributions.FIGURES
    with pytest.raises(plugins.PluginError):
        plugin.guarantees("planted.Mechanism", {})


def test_a_profile_is_a_value_and_its_phases_are_checked():
    default = PROFILES["default"]
    no_ascent = dataclasses.replace(default, name="no-ascent", phases=default.phases - {"ascend"})
    assert "ascend" not in no_ascent.phases and default.runs("ascend")
    with pytest.raises(ValueError, match="unknown phase"):
        Profile(name="x", instances=8, samples=10, mc_instances=1, phases={"generate", "confirm", "judge", "guess"})
    with pytest.raises(ValueError, match="needs the phase"):
        Profile(name="x", instances=8, samples=10, mc_instances=1, phases={"generate", "judge"})
    claim = _claim({"given": {"x": "vec(3)"}, "assert": "norm(x) <= 2 * norm(x) + 1"})
    assert run_claim(claim, budget=no_ascent).verdict.value == "holds"


def test_the_numeric_context_is_the_torch_keywords_and_owns_its_stream():
    ctx = NumericContext(torch.float32).seeded(3)
    assert dict(ctx) == {"dtype": torch.float32, "device": torch.device("cpu")}
    assert torch.randn(2, **ctx).dtype == torch.float32
    assert ctx.gen.device == ctx.device
    assert torch.equal(torch.randn(4, generator=ctx.seeded(3).gen), torch.randn(4, generator=ctx.seeded(3).gen))
    with pytest.raises(ValueError, match="no random stream"):
        NumericContext().gen
