"""`pyverify certify --adapter / --tensors / --form`: any rotary layer, each failing hypothesis named."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from pyverify.certify import general as cl
from pyverify.attention.rotations import commuting_generators, skew
from pyverify.checks.plugins import unload_all
from pyverify.cli import main

OK = {"T2.9": "symbolic", "T3.6": "holds", "T5.3.half": "holds"}
D, M = 6, 2  # two rotation planes and a 2-dimensional null block


def _rope_layer(P=None, free=False, seed=0):
    """Tensors of a one-position-axis layer: standard RoPE planes, optionally non-commuting generators."""
    gen = torch.Generator().manual_seed(seed)
    freqs = torch.tensor([[1.0, 0.1]], dtype=torch.float64)
    L = commuting_generators(torch.eye(D, dtype=torch.float64), freqs)
    out = {"U": torch.eye(D, dtype=torch.float64), "freqs": freqs}
    if free:
        out = {"L": torch.cat([L, skew(torch.randn(1, D, D, generator=gen, dtype=torch.float64))])}
    if P is not None:
        out["P"] = P
    return out


def _reflection(active: bool) -> torch.Tensor:
    P = torch.eye(D, dtype=torch.float64)
    P[0 if active else D - 1, 0 if active else D - 1] = -1.0
    return P


def test_commuting_layer_gets_every_guarantee_and_states_its_allowance():
    reps = cl.certify_layer(cl.describe(_rope_layer()), OK)
    g = reps[0].guarantees
    assert [x["status"] for x in g] == ["holds", "holds", "holds"]
    assert g[0]["observed"] <= g[0]["allowance"] and g[0]["allowance"] > 0


def test_reflection_in_the_null_block_is_allowed_and_reported():
    reps = cl.certify_layer(cl.describe(_rope_layer(P=_reflection(active=False))), OK)
    assert reps[0].measured["P_is_reflection"] and reps[0].measured["det_P"] == pytest.approx(-1)
    assert reps[0].guarantees[1]["status"] == "holds"


def test_reflection_inside_the_active_block_is_caught():
    reps = cl.certify_layer(cl.describe(_rope_layer(P=_reflection(active=True))), OK)
    post = reps[0].guarantees[1]
    assert post["status"] == "hypothesis fails" and "fixes the active subspace" in post["failing_hypotheses"][0]


def test_non_orthogonal_P_is_named():
    reps = cl.certify_layer(cl.describe(_rope_layer(P=1.1 * torch.eye(D, dtype=torch.float64))), OK)
    assert any("P orthogonal" in f for f in reps[0].guarantees[1]["failing_hypotheses"])


def test_non_commuting_generators_break_the_product_form_but_not_the_difference_form():
    mats = cl.describe(_rope_layer(free=True))
    product = cl.certify_layer(mats, OK, form="product")[0].guarantees
    assert product[0]["status"] == "hypothesis fails" and "commuting" in product[0]["failing_hypotheses"][0]
    assert product[0]["observed"] > 1e-3  # the measured translation defect agrees
    assert product[2]["observed_within_bound"]
    difference = cl.certify_layer(mats, OK, form="difference")[0].guarantees
    assert difference[0]["status"] == "holds" and difference[0]["observed"] <= difference[0]["allowance"]
    assert [g["guarantee"] for g in difference] == ["relative-law", "post-rotation-drops-out"]


def test_a_difference_form_that_is_not_relative_is_caught(monkeypatch):
    # planted: the "difference" layer really computes the product form with non-commuting generators
    product = cl.logits
    monkeypatch.setattr(cl, "logits", lambda mats, h, q, k, ri, rj, form: product(mats, h, q, k, ri, rj, "product"))
    rel = cl.certify_layer(cl.describe(_rope_layer(free=True)), OK, form="difference")[0].guarantees[0]
    assert rel["observed_within_bound"] is False


def test_bad_descriptions_are_refused():
    with pytest.raises(cl.LayerDescriptionError, match="no generators"):
        cl.describe({"P": torch.eye(4)})
    with pytest.raises(cl.LayerDescriptionError, match="unknown tensor name"):
        cl.describe({"L": torch.zeros(1, 4, 4), "Q": torch.eye(4)})


ADAPTER = '''
import torch
PYVERIFY_PLUGIN = "mylayer"

def adapter(state):
    """My layer stores rotary frequencies per head as 'attn.inv_freq' (H, m) and an output mixing 'attn.mix'."""
    inv = state["attn.inv_freq"].double()
    H, m = inv.shape
    d = 2 * m + 2
    return {"U": torch.eye(d, dtype=torch.float64).expand(H, d, d), "freqs": inv[:, None, :], "P": state["attn.mix"].double()}
'''


@pytest.fixture
def adapter_plugin(tmp_path):
    (tmp_path / "mylayer.py").write_text(ADAPTER)
    yield tmp_path / "mylayer.py"
    unload_all()


def _state_file(tmp_path, mix):
    path = tmp_path / "ckpt.pt"
    torch.save({"attn.inv_freq": torch.tensor([[1.0, 0.01], [0.5, 0.05]]), "attn.mix": mix}, path)
    return path


def test_cli_adapter_certifies_a_foreign_layer(tmp_path, adapter_plugin, capsys):
    mix = torch.eye(D).expand(2, D, D).clone()
    mix[1, D - 1, D - 1] = -1.0  # head 1: a reflection in the null block
    state = _state_file(tmp_path, mix)
    assert main(["certify", str(state), "--plugin", str(adapter_plugin), "--adapter", "mylayer:adapter", "--format", "json"]) == 0
    heads = json.loads(capsys.readouterr().out)["heads"]
    assert [h["measured"]["P_is_reflection"] for h in heads] == [False, True]
    assert all(g["status"] == "holds" for h in heads for g in h["guarantees"])


def test_cli_adapter_names_the_failing_hypothesis(tmp_path, adapter_plugin, capsys):
    mix = torch.eye(D).expand(2, D, D).clone()
    mix[0, :2, :2] = torch.tensor([[0.0, -1.0], [1.0, 0.0]])  # head 0 turns an active plane
    state = _state_file(tmp_path, mix)
    assert main(["certify", str(state), "--plugin", str(adapter_plugin), "--adapter", "mylayer:adapter"]) == 0
    out = capsys.readouterr().out
    assert "fails: P fixes the active subspace" in out and "rounding allowance" in out
    assert "tensor-only: the layer is rebuilt from its tensors, its code is not run" in out


def test_cli_adapter_needs_the_plugin_opt_in(tmp_path, adapter_plugin, capsys):
    state = _state_file(tmp_path, torch.eye(D).expand(2, D, D))
    assert main(["certify", str(state), "--adapter", "mylayer:adapter"]) == 2
    assert "not loaded" in capsys.readouterr().err


def test_cli_tensors_file_difference_form(tmp_path, capsys):
    layer = _rope_layer(free=True)
    np.savez(tmp_path / "layer.npz", **{k: v.numpy() for k, v in layer.items()})
    args = ["certify", "--tensors", str(tmp_path / "layer.npz"), "--format", "json"]
    assert main(args + ["--form", "difference"]) == 0
    assert json.loads(capsys.readouterr().out)["heads"][0]["guarantees"][0]["status"] == "holds"
    assert main(args) == 0
    rel = json.loads(capsys.readouterr().out)["heads"][0]["guarantees"][0]
    assert rel["status"] == "hypothesis fails"
    (tmp_path / "bad.npz").write_bytes(b"junk")
    assert main(["certify", "--tensors", str(tmp_path / "bad.npz")]) == 2
