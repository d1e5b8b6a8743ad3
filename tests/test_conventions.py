"""Every convention key of the registry drives a function of the check language: for each key and each of
its values, some vocabulary function computes something different. A key that drives nothing (validated,
then silently ignored) fails here."""

from __future__ import annotations

import itertools

import pytest
import torch

from pyverify.checks.compiled import TorchBackend
from pyverify.checks.vocabulary import VOCABULARY
from pyverify.registry import CONVENTIONS

CTX = {"dtype": torch.float64, "device": torch.device("cpu")}
_gen = torch.Generator().manual_seed(7)


def _r(*shape):
    return torch.randn(*shape, generator=_gen, dtype=torch.float64)


_Pi = torch.diag(torch.tensor([1.0, 1.0, 0.0, 0.0], dtype=torch.float64))  # tr Pi = 2m = 2 != d = 4
_L = _r(2, 4, 4)
# one instance per convention-driven function, generic enough that every convention value differs on it
PROBES = {
    "norm": (_r(3, 3),),
    "rope": (_r(3, 4), torch.tensor([0.0, 1.0, 2.5], dtype=torch.float64), 1.0),
    "rope_scores": (_r(3, 4), _r(3, 4), torch.tensor([0.0, 1.0, 2.5], dtype=torch.float64), 100.0),
    "displacement": (_r(3), _r(3)),
    "espr_logits": (_r(2, 4), _r(2, 4), _r(2, 2), _r(2, 2), _L - _L.transpose(-1, -2)),
    "qexp": (_r(3),),
    "qlog": (torch.nn.functional.normalize(_r(4), dim=0),),
    "bracket": (_r(3), _r(3)),
    "bch2": (_r(3), _r(3)),
    "phi": (_r(3) / 2, _r(5, 3)),
    "rf_variance": (_r(3) / 2, _r(3) / 2),
}
PROBE_KWARGS = {"espr_logits": {"Pi": _Pi}}


def _outcome(name: str, key: str, value: str):
    """What the torch backend computes for the probe under ``{key: value}`` (an error is an outcome too)."""
    backend = TorchBackend(CTX, VOCABULARY, conventions={key: value})
    try:
        return backend.call(name, list(PROBES[name]), dict(PROBE_KWARGS.get(name, {})))
    except ValueError as exc:
        return f"error: {exc}"


def _differ(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a != b
    return a.shape != b.shape or not torch.allclose(a, b, rtol=1e-9, atol=1e-12)


def _driven() -> list[tuple[str, str]]:
    return [(name, key) for name, fn in VOCABULARY.items() for key, _, _ in fn.conventions]


@pytest.mark.parametrize("key", sorted(CONVENTIONS))
def test_every_key_drives_some_function(key):
    assert any(k == key for _, k in _driven()), f"convention {key!r} is validated but drives no function"


def _indistinguishable(key: str) -> list[tuple[str, str]]:
    """Pairs of values of ``key`` that no function driven by it tells apart on its probe."""
    names = [name for name, k in _driven() if k == key]
    outcomes = {name: {v: _outcome(name, key, v) for v in CONVENTIONS[key]} for name in names}
    return [(v1, v2) for v1, v2 in itertools.combinations(CONVENTIONS[key], 2)
            if not any(_differ(outcomes[n][v1], outcomes[n][v2]) for n in names)]


@pytest.mark.parametrize("key", sorted(CONVENTIONS))
def test_every_value_changes_some_output(key):
    # e.g. rf_variance is the same for both feature signs (w and -w have one distribution); phi is not
    assert _indistinguishable(key) == []


@pytest.mark.parametrize("name,key", _driven())
def test_every_driven_function_maps_every_value(name, key):
    table = next(t for k, _, t in VOCABULARY[name].conventions if k == key)
    assert set(table) == set(CONVENTIONS[key]), f"{name} must map every value of {key}"
    assert name in PROBES, f"add a probe instance for {name}"


def test_the_check_catches_a_key_that_drives_nothing(monkeypatch):
    # planted: a key whose keyword the function accepts and ignores
    from pyverify.checks.vocabulary import Function

    monkeypatch.setitem(CONVENTIONS, "planted", ("a", "b"))
    monkeypatch.setitem(VOCABULARY, "planted_fn", Function(lambda x, mode="a": x * 2, "ignores mode",
                                                           conventions=(("planted", "mode", {"a": "a", "b": "b"}),)))
    monkeypatch.setitem(PROBES, "planted_fn", (_r(2),))
    assert _indistinguishable("planted") == [("a", "b")]
    monkeypatch.setitem(CONVENTIONS, "unplanted", ("x",))  # a key no function declares
    with pytest.raises(AssertionError, match="drives no function"):
        test_every_key_drives_some_function("unplanted")


def test_meanings_of_the_conventions():
    x = torch.tensor([3.0, -4.0], dtype=torch.float64)
    assert float(_call("norm", [x], "norm", "l1")) == 7.0 and float(_call("norm", [x], "norm", "linf")) == 4.0
    assert float(_call("norm", [x], "norm", "euclidean")) == 5.0
    m = torch.tensor([[1.0, 2.0], [0.0, 0.0]], dtype=torch.float64)
    assert float(_call("norm", [m], "norm", "l1")) == 2.0 and float(_call("norm", [m], "norm", "linf")) == 3.0
    ri, rj = torch.tensor([1.0]), torch.tensor([3.0])
    assert float(_call("displacement", [ri, rj], "displacement", "rj-ri")) == 2.0
    assert float(_call("displacement", [ri, rj], "displacement", "ri-rj")) == -2.0
    # half split: plane 0 is (x0, x2) for d = 4
    e0 = torch.tensor([[1.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
    out = _call("rope", [e0, torch.tensor([torch.pi / 2], dtype=torch.float64), 1.0], "pairing", "half")
    assert torch.allclose(out, torch.tensor([[0.0, 0.0, 1.0, 0.0]], dtype=torch.float64), atol=1e-12)
    out = _call("rope", [e0, torch.tensor([torch.pi / 2], dtype=torch.float64), 1.0], "pairing", "adjacent")
    assert torch.allclose(out, torch.tensor([[0.0, 1.0, 0.0, 0.0]], dtype=torch.float64), atol=1e-12)


def _call(name, args, key, value):
    return TorchBackend(CTX, VOCABULARY, conventions={key: value}).call(name, args, {})
