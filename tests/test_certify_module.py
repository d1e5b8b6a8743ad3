"""`pyverify certify --module`: the layer's own code is run, each law judged per head at the module's
precision; the correct example module holds, each planted defect fails with its law named."""

from __future__ import annotations

import importlib.util
import json

import pytest
import torch

from conftest import REPO
from pyverify.certify.locate import locate
from pyverify.certify.module import AdapterError, BuiltLayer, functions
from pyverify.certify.running import LAWS, certify_module
from pyverify.checks.plugins import unload_all
from pyverify.cli import main

EXAMPLE = REPO / "examples" / "rotary_module.py"


def _example():
    """The example module, loaded from its file (examples/ is not put on sys.path: its toy_rope folder
    would shadow the plugin of that name in other tests)."""
    spec = importlib.util.spec_from_file_location("rotary_module_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rm = _example()

# the laws each planted defect must break (and no other: a defect the laws confuse is not located)
BROKEN = {
    "key-sign": {"relative-law", "reference-law"},
    "wrong-frequency": {"reference-law"},
    "non-orthogonal": {"reference-law", "orthogonality"},
    "transposed-scores": {"reference-law"},
    "product-of-sums": {"relative-law", "reference-law", "post-rotation-drops-out"},
    "stale-cache": {"reference-law", "call-history"},
    "xpos-wrong-side": {"reference-law", "orthogonality"},
}


# the words the located defect must be named by
WHERE = {
    "key-sign": "key-only sign flip",
    "wrong-frequency": "plane 1 (coordinates 1, 5) (turns 0.01 per position, declared 0.1)",
    "non-orthogonal": "scaled by 1.05",
    "transposed-scores": "transposed",
    "product-of-sums": "product of sums",
    "stale-cache": "depend on the call before it",
    "xpos-wrong-side": "decay is applied to the wrong side",
}


@pytest.mark.parametrize("dtype", [None, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("adapter", [rm.ADAPTER, rm.XPOS_ADAPTER, rm.Adapter(positions="real")],
                         ids=["rope", "xpos", "real-positions"])
def test_the_correct_module_holds_over_seeds(adapter, dtype):
    for seed in range(3):
        report = certify_module(adapter, dtype=dtype, seed=seed, probes=1)
        assert report.failing == [], (seed, [h.laws for h in report.heads])
        assert report.ran["dtype"] == ("float64" if dtype else "float32")
        worst = max(r["worst_over_tolerance"] for h in report.heads for r in h.laws.values())
        assert 0 < worst < 0.2  # the layer's rounding is seen, and well inside what its precision explains


@pytest.mark.parametrize("defect", sorted(BROKEN))
def test_each_planted_defect_fails_with_its_law_named(defect):
    report = certify_module(rm.ADAPTERS[defect], seed=1, probes=1)
    assert set(report.failing) == BROKEN[defect]
    for h in report.heads:
        assert set(h.failing) == BROKEN[defect]
        for law in BROKEN[defect]:
            assert h.laws[law]["worst_over_tolerance"] > 100  # far beyond float32 rounding, not at its edge
    assert len(report.findings) == 1 and WHERE[defect] in report.findings[0]


@pytest.mark.parametrize("dtype", [None, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("adapter", [rm.ADAPTER, rm.XPOS_ADAPTER, rm.Adapter(positions="real")],
                         ids=["rope", "xpos", "real-positions"])
def test_locate_says_nothing_about_a_correct_module(adapter, dtype):
    layer = BuiltLayer(adapter, None, dtype)
    assert locate(layer, 8, torch.finfo(layer.dtype).eps / 2) == []


def test_a_bfloat16_module_is_judged_in_bfloat16_terms():
    class BF16(rm.Adapter):
        def factory(self):
            return rm.RotaryAttention().to(torch.bfloat16)

    report = certify_module(BF16(), probes=1)
    assert report.failing == [] and report.ran["dtype"] == "bfloat16" and report.ran["unit_roundoff"] == 2.0 ** -8


def test_a_planted_defect_fails_in_float64_too():
    assert set(certify_module(rm.ADAPTERS["wrong-frequency"], dtype=torch.float64, probes=1).failing) == {"reference-law"}


def test_a_stale_cache_is_found_warm_and_not_cold():
    head = certify_module(rm.ADAPTERS["stale-cache"], probes=1).heads[0]
    assert head.laws["reference-law"]["failing_states"] == ["warm"]
    assert head.laws["reference-law"]["cold_over_tolerance"] < 1
    assert head.laws["call-history"]["failing_states"] == ["warm"]


def test_what_it_ran_is_said():
    ran = certify_module(rm.ADAPTER, probes=1).ran
    assert ran["laws"] == list(LAWS) and ran["heads"] == 2 and ran["head_dim"] == 8
    assert ran["dtype"] == ran["module_dtype"] == "float32" and ran["unit_roundoff"] == 2.0 ** -24
    assert ran["construction"]["used_global_rng"] and "int_position" in ran["positions"]


def test_global_rng_and_default_dtype_are_left_as_they_were():
    class Careless(rm.Adapter):
        def factory(self):
            torch.set_default_dtype(torch.float64)  # as some research code does at import or construction
            return rm.RotaryAttention().float()

    torch.manual_seed(123)
    before = torch.get_rng_state()
    report = certify_module(Careless(), probes=1)
    assert torch.equal(before, torch.get_rng_state()) and torch.get_default_dtype() == torch.float32
    assert report.ran["construction"]["changed_default_dtype"] and report.failing == []


def test_sequence_layout_is_handled():
    class SeqFirst(rm.Adapter):
        layout = "batch seq heads dim"

        def project(self, module, x):
            return tuple(t.transpose(1, 2) for t in module.project(x)[:2])

        def rotate(self, module, x, positions, side):
            return module.rotary.rotate(x.transpose(1, 2), positions, side).transpose(1, 2)

    assert certify_module(SeqFirst(), probes=1).failing == []

    class WrongLayout(SeqFirst):
        layout = "batch heads seq dim"  # declared wrong: the rotation is read along the wrong axes

    with pytest.raises(AdapterError, match="is the layout declared right"):
        certify_module(WrongLayout(), probes=1)


def test_adapter_mistakes_are_named():
    class NoSpec(rm.Adapter):
        def spec(self, module):
            return {"frequencies": module.rotary.inv_freq}

    with pytest.raises(AdapterError, match="not a RotarySpec"):
        certify_module(NoSpec(), probes=1)

    class Broken(rm.Adapter):
        def logits(self, module, x, positions):
            raise KeyError("attn")

    with pytest.raises(AdapterError, match=r"logits\(\) failed: KeyError"):
        certify_module(Broken(), probes=1)
    with pytest.raises(AdapterError, match="layout"):
        BuiltLayer(type("Odd", (rm.Adapter,), {"layout": "seq batch"})())


def test_the_rope_callable_agrees_with_pyverify_rope_in_the_module_pairing():
    from pyverify.attention.rotations.core import rope

    module_rope = functions(rm.ADAPTER, dtype=torch.float64)["rope"]
    x, pos = torch.randn(3, 5, 8, dtype=torch.float64), torch.randint(0, 60, (3, 5)).double()
    assert module_rope.conventions["pairing"] == "half"
    # the module's inv_freq is computed in float32: the angles differ by ~1e-7 * position
    assert torch.allclose(module_rope.function(x, pos), rope(x, pos, pairing="half"), atol=1e-4)
    assert not torch.allclose(module_rope.function(x, pos), rope(x, pos, pairing="adjacent"), atol=1e-3)
    # integer-valued positions go through the module's integer table, others through its real-position path
    assert torch.allclose(module_rope.function(x, pos + 0.5), rope(x, pos + 0.5, pairing="half"), atol=1e-4)
    with pytest.raises(ValueError, match="works on vectors of size 8"):
        module_rope.function(torch.randn(5, 4, dtype=torch.float64), pos[0])
    # the example's module-level rope (real positions, float32): what a binding calls
    real = torch.rand(3, 5, dtype=torch.float64) * 60
    assert torch.allclose(rm.rope(x, real), rope(x, real, pairing="half"), atol=1e-4)


def test_vmap_refusing_a_module_is_left_to_the_batching_engine():
    # the factory draws random weights: vmap refuses, and must say so itself (an engine then goes one
    # instance at a time) rather than the refusal being reported as the user's code failing
    batched = torch.func.vmap(lambda x, p: functions(rm.Adapter(positions="real"))["rope"].function(x, p))
    with pytest.raises(RuntimeError, match="vmap") as raised:
        batched(torch.randn(2, 5, 8), torch.rand(2, 5))
    assert not isinstance(raised.value, AdapterError)


def test_functions_are_callables_on_cold_modules_on_request():
    fns, correct = functions(rm.ADAPTERS["stale-cache"], cache="cold"), functions(rm.ADAPTER)["logits"]  # the same weights
    logits = fns["logits"]
    assert logits.precision == "float32" and logits.conventions["pairing"] == "half"
    x = torch.randn(1, 5, 32)
    p = torch.arange(5)
    other = torch.tensor([0, 7, 3, 20, 1])  # not a shift of p: its logits differ
    first = logits.function(x, other)
    again = logits.function(x, p)  # a fresh module: the first call's cache cannot leak into this one
    assert first.shape == (1, 2, 5, 5)
    assert torch.allclose(again, correct.function(x, p), atol=1e-5)
    assert not torch.allclose(first, again, atol=1e-2)


def test_warm_functions_serve_every_call_from_one_module_so_a_stale_cache_shows():
    stale, correct = functions(rm.ADAPTERS["stale-cache"]), functions(rm.ADAPTER)
    x, p, later = torch.randn(1, 4, 8), torch.arange(4), torch.arange(4) + 9  # one length, other positions
    for fns in (stale, correct):
        fns["rope"].function(x, p)
    assert torch.allclose(correct["rope"].function(x, later), functions(rm.ADAPTER, cache="cold")["rope"].function(x, later))
    assert not torch.allclose(stale["rope"].function(x, later), correct["rope"].function(x, later), atol=1e-3)
    q, k = torch.randn(2, 4, 8), torch.randn(2, 4, 8)
    scores = correct["rotary_scores"].function(q, k, p)
    from pyverify.attention.rotations.core import rope_scores
    assert scores.shape == (2, 4, 4) and torch.allclose(scores, rope_scores(q, k, p, pairing="half").float(), atol=1e-5)


@pytest.fixture
def checkpoints(tmp_path):
    fixed, buggy = rm.write_checkpoints(tmp_path)
    yield fixed, buggy
    unload_all()


def _certify(capsys, *args) -> tuple[int, dict]:
    rc = main(["certify", *map(str, args), "--plugin", str(EXAMPLE), "--probes", "1", "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def test_buggy_and_fixed_checkpoints_get_different_answers(checkpoints, capsys):
    fixed, buggy = checkpoints
    rc, good = _certify(capsys, fixed, "--module", "rotary_module:ADAPTER")
    assert rc == 0 and good["failing"] == [] and good["mode"] == "module"
    rc, bad = _certify(capsys, buggy, "--module", "rotary_module:ADAPTER")
    assert rc == 1 and bad["failing"] == ["relative-law", "post-rotation-drops-out"]
    assert [h["laws"]["post-rotation-drops-out"]["status"] for h in bad["heads"]] == ["holds", "fails"]
    assert good["findings"] == [] and bad["findings"][0].startswith("head 1's post-rotation is not orthogonal")


def test_cli_names_the_failing_law_and_what_it_ran(checkpoints, capsys):
    fixed, _ = checkpoints
    rc = main(["certify", str(fixed), "--plugin", str(EXAMPLE), "--module", "rotary_module:ADAPTER_STALE_CACHE",
               "--probes", "1"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "the layer's own code was run" in out and "dtype float32" in out and "cold" in out
    assert "fails  call-history with the cache warm" in out and "verdict: fails — head 0: reference-law, call-history" in out


def test_cli_module_input_errors(checkpoints, tmp_path, capsys):
    fixed, _ = checkpoints
    assert main(["certify", str(fixed), "--plugin", str(EXAMPLE), "--module", "rotary_module:DEFECTS"]) == 2
    assert "not a pyverify.certify.module.ModuleAdapter" in capsys.readouterr().err
    assert main(["certify", str(fixed), "--module", "nosuch:ADAPTER"]) == 2
    assert "not loaded" in capsys.readouterr().err
    torch.save({"qkv.weight": torch.zeros(3, 3)}, tmp_path / "other.pt")
    assert main(["certify", str(tmp_path / "other.pt"), "--plugin", str(EXAMPLE), "--module", "rotary_module:ADAPTER"]) == 2
    assert "does not fit the module" in capsys.readouterr().err


def test_the_float32_tolerance_is_not_loose_enough_to_hide_a_small_defect():
    class SlightlyScaled(rm.Adapter):
        def rotate(self, module, x, positions, side):
            return 1.001 * module.rotary.rotate(x, positions, side)  # 0.1%: far above float32 rounding

    assert "orthogonality" in certify_module(SlightlyScaled(), probes=1).failing
