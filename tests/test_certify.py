"""`pyverify certify`: measured hypotheses of a trained layer, and guarantees that can fail."""

from __future__ import annotations

import json

import pytest
import torch

from pyverify.attention.rotations import ESPRAttention
from pyverify.certify.layer import certify, layer_matrices, measure
from pyverify.cli import main

OK = {"T2.9": "symbolic", "T3.6": "holds", "T5.3.half": "holds"}


def _state(post: str, gen: str, d_model=24, heads=2, d_c=2, n_planes=None, seed=0):
    torch.manual_seed(seed)
    layer = ESPRAttention(d_model, heads, d_c, post_rotation=post, generator_mode=gen, n_planes=n_planes)
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return layer.state_dict()


def test_commuting_structured_layer_gets_every_guarantee():
    reps = certify(_state("structured", "commuting", n_planes=4), OK)
    for r in reps:
        assert r.measured["eps_comm"] < 1e-12 and r.measured["dist_A"] < 1e-6
        assert [g["status"] for g in r.guarantees] == ["holds", "holds", "holds"]


def test_free_generators_fail_the_relative_law_and_the_bound_is_respected():
    reps = certify(_state("free", "free", n_planes=4), OK, radius=2.0)
    for r in reps:
        rel, post, bound = r.guarantees
        assert rel["status"] == "hypothesis fails" and "commuting" in rel["failing_hypotheses"][0]
        assert post["status"] == "hypothesis fails"
        assert bound["status"] == "holds" and bound["observed_within_bound"] and bound["observed"] > 1e-3


def test_free_post_rotation_inside_the_active_block_is_caught():
    # no null block (2m = d): eta_mix is 0 by construction, yet P is not structured — the gap of Theorem 2
    reps = certify(_state("free", "commuting"), OK)
    assert all(r.measured["eta_mix"] == 0 and r.measured["dist_A"] > 0.1 for r in reps)


def test_a_guarantee_resting_on_a_refuted_claim_is_not_established():
    reps = certify(_state("structured", "commuting", n_planes=4), {**OK, "T2.9": "refuted"})
    assert reps[0].guarantees[0]["status"] == "not established"


def test_measurements_match_the_layer():
    torch.manual_seed(1)
    layer = ESPRAttention(24, 2, 2, post_rotation="free", generator_mode="free", n_planes=4)
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(0.05 * torch.randn_like(p))
    mats = layer_matrices(layer.state_dict())
    assert torch.allclose(mats["L"], layer.generators().double(), atol=1e-6)
    assert torch.allclose(mats["P"], layer.post_rotation_matrix().double(), atol=1e-6)
    assert len(measure(mats)) == 2


def test_cli_certify(tmp_path, capsys):
    path = tmp_path / "layer.pt"
    torch.save(_state("structured", "commuting", n_planes=4), path)
    assert main(["certify", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdicts"]["T2.9"] in ("symbolic", "holds") and len(data["heads"]) == 2
    bad = tmp_path / "junk.pt"
    bad.write_text("not a tensor file")
    assert main(["certify", str(bad)]) == 2
    torch.save({"weight": torch.zeros(2)}, tmp_path / "other.pt")
    assert main(["certify", str(tmp_path / "other.pt")]) == 2
    assert "not an ESPRAttention layer" in capsys.readouterr().err


@pytest.mark.parametrize("prefix", ["blocks.0.attn."])
def test_prefix_inside_a_model(tmp_path, capsys, prefix):
    state = {prefix + k: v for k, v in _state("structured", "commuting", n_planes=4).items()}
    path = tmp_path / "model.pt"
    torch.save(state, path)
    assert main(["certify", str(path), "--prefix", prefix]) == 0
