"""A user's function against pyverify's reference mechanism, conventions mapped (examples/toy_rope TOY.8)."""

from __future__ import annotations

import pytest

from pyverify.checks import plugins
from pyverify.engine import check_claim
from pyverify.registry import load_registry

from conftest import REPO

TOY = REPO / "examples" / "toy_rope"


@pytest.fixture
def toy(monkeypatch, request):
    import sys

    monkeypatch.setenv("TOY_ROPE_FIXED", "1" if request.param == "fixed" else "0")
    for name in ("toy_layer", "toy_layer_fixed"):
        sys.modules.pop(name, None)
    plugins.load_plugin(str(TOY / "plugin.py"), "--plugin")
    yield load_registry(TOY / "claims")
    plugins.unload_all()
    sys.modules.pop("pyverify_plugin_plugin", None)


def _with_conventions(reg, cid, **conventions):
    """The same claim under other conventions (what a claim's `conventions:` would set)."""
    reg.conventions[cid] = {**reg.conventions[cid], **conventions}
    return reg


@pytest.mark.parametrize("toy", ["defective"], indirect=True)
def test_the_product_of_sums_passes_invariance_but_not_the_reference(toy):
    assert check_claim(toy, "TOY.7", "quick").verdict.value == "holds"
    res = check_claim(toy, "TOY.8", "quick")
    assert res.verdict.value == "refuted" and res.witness["relations"][0]["measure"] > 1e-3


@pytest.mark.parametrize("toy", ["fixed"], indirect=True)
def test_the_twin_matches_the_reference_in_either_layout(toy):
    assert check_claim(toy, "TOY.8", "quick").verdict.value == "holds"
    # pairing is mapped onto both sides (rope's pairing, the toy's layout): still the same logit
    assert check_claim(_with_conventions(toy, "TOY.8", pairing="half"), "TOY.8", "quick").verdict.value == "holds"


@pytest.mark.parametrize("toy", ["fixed"], indirect=True)
def test_a_mismatched_convention_is_caught(toy):
    # the toy reads the displacement sign from the registry; the reference does not depend on it, so the
    # other sign makes the two disagree — the mapping is live, not decoration
    res = check_claim(_with_conventions(toy, "TOY.8", displacement="ri-rj"), "TOY.8", "quick")
    assert res.verdict.value == "refuted"
