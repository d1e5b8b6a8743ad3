"""tensor_file(...): fixed tensors of the user's model, read without running code, inside the registry folder."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from pyverify.checks.samplers import SamplerError, parse_sampler
from pyverify.engine import check_claim
from pyverify.registry import load_registry


class _RunsCode:
    def __reduce__(self):
        return (print, ("pickled code ran",))


@pytest.fixture
def root(tmp_path):
    (tmp_path / "claims").mkdir()
    return tmp_path / "claims"


def test_tensors_are_read_from_each_format(root):
    from safetensors.torch import save_file

    w = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    save_file({"blocks.0.w": w}, str(root / "w.safetensors"))
    np.savez(root / "w.npz", w=w.numpy())
    torch.save({"w": w}, root / "w.pt")
    for spec in ('tensor_file("w.safetensors", key="blocks.0.w")', 'tensor_file("w.npz", "w")', 'tensor_file("w.pt", key="w")'):
        s = parse_sampler(spec, {}, root)
        theta = s.init(4, torch.Generator().manual_seed(0), {"dtype": torch.float64})
        value = s.value(theta)
        assert value.shape == (4, 2, 3) and torch.equal(value[3], w), spec


def test_files_carrying_pickled_code_are_refused(root, capsys):
    (root / "evil.pt").write_bytes(pickle.dumps({"w": _RunsCode()}))
    torch.save({"w": _RunsCode()}, root / "evil2.pt")
    np.savez(root / "evil.npz", w=np.array([_RunsCode()], dtype=object))
    for name in ("evil.pt", "evil2.pt", "evil.npz"):
        with pytest.raises(SamplerError, match="refused"):
            parse_sampler(f'tensor_file("{name}", key="w")', {}, root)
    assert "pickled code ran" not in capsys.readouterr().out


def test_paths_outside_the_registry_folder_and_large_files_are_refused(root, monkeypatch):
    torch.save({"w": torch.ones(2)}, root.parent / "outside.pt")
    with pytest.raises(SamplerError, match="leaves the registry folder"):
        parse_sampler('tensor_file("../outside.pt", key="w")', {}, root)
    with pytest.raises(SamplerError, match="absolute"):
        parse_sampler(f'tensor_file("{root.parent / "outside.pt"}", key="w")', {}, root)
    torch.save({"w": torch.ones(2)}, root / "big.pt")
    monkeypatch.setattr("pyverify.checks.samplers.data.MAX_BYTES", 10)
    with pytest.raises(SamplerError, match="larger than"):
        parse_sampler('tensor_file("big.pt", key="w")', {}, root)
    monkeypatch.undo()
    with pytest.raises(SamplerError, match="no tensor 'v'"):
        parse_sampler('tensor_file("big.pt", key="v")', {}, root)


def test_a_claim_about_a_stored_tensor_holds_and_fails_as_the_tensor_says(root):
    torch.save({"U": torch.linalg.qr(torch.randn(3, 3, dtype=torch.float64))[0], "M": torch.ones(3, 3)}, root / "w.pt")
    (root / "r.yaml").write_text(
        "documents:\n  - {key: d, title: t, files: [x]}\nclaims:\n"
        + "".join(f"  - id: W.{k}\n    title: t\n    document: d\n    locator: l\n    kind: identity\n    statement: s\n"
                  f"    check:\n      given: {{x: vec(3), W: 'tensor_file(\"w.pt\", key=\"{k}\")'}}\n"
                  f"      assert: 'vnorm(W @ x) == vnorm(x)'\n" for k in ("U", "M")))
    reg = load_registry(root / "r.yaml")
    assert check_claim(reg, "W.U", budget="quick").verdict == "holds"
    assert check_claim(reg, "W.M", budget="quick").verdict == "refuted"
