"""The fixed part of ESPRAttention (Cayley transforms, basis, folded projection) is cached while the parameters
are unchanged and no graph to them is needed; gradients stay exact, and every way PyTorch changes parameters
invalidates the cache."""

import copy

import pytest
import torch
from torch.func import functional_call

from pyverify.attention.rotations import ESPRAttention

F64 = torch.float64


def layer_and_inputs(dtype=F64, **kw):
    torch.manual_seed(0)
    layer = ESPRAttention(8, 2, 2, n_planes=1, causal=True, bias=True, dtype=dtype, **kw)
    with torch.no_grad():
        for p in layer.parameters():
            p.normal_(std=0.5)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(1, 4, 8, generator=g, dtype=dtype)
    r = 3 * torch.randn(1, 4, 2, generator=g, dtype=dtype)
    return layer, x, r


def fresh(layer, x, r):
    """The output computed without any cache: a deep copy starts empty."""
    with torch.no_grad():
        return copy.deepcopy(layer)(x, r)


def test_inference_reuses_the_fixed_part_and_grad_mode_does_not():
    layer, x, r = layer_and_inputs()
    cache = layer._fold_cache
    with torch.no_grad():
        first = layer(x, r)
        layer(x, r + 1)
    assert cache.computed == 1
    with torch.inference_mode():
        layer(x, r)
        layer(x, r)
    assert cache.computed == 2  # inference tensors are kept apart from no_grad ones
    layer(x, r).sum().backward()  # training forward: computed afresh, cache emptied
    layer(x, r).sum().backward()
    assert cache.computed == 4
    with torch.no_grad():
        torch.testing.assert_close(layer(x, r), first, atol=0, rtol=0)
    assert cache.computed == 5


def test_gradcheck_of_every_parameter_after_the_cache_was_filled():
    layer, x, r = layer_and_inputs()
    with torch.no_grad():
        layer(x, r)  # fills the cache: grad mode must not reuse its detached values
    names = [n for n, _ in layer.named_parameters()]
    params = tuple(p.detach().clone().requires_grad_() for p in layer.parameters())

    def f(x, r, *ps):
        return functional_call(layer, dict(zip(names, ps)), (x, r))

    assert torch.autograd.gradcheck(f, (x.requires_grad_(), r.requires_grad_(), *params), fast_mode=True)


def gradients(layer, x, r) -> dict:
    layer.zero_grad()
    layer(x, r).square().sum().backward()
    return {n: p.grad for n, p in layer.named_parameters()}


def differing_gradients(layer, twin, x, r) -> list[str]:
    """Parameters whose gradient after a cached inference call differs from that of ``twin``, a copy that never
    cached."""
    with torch.no_grad():
        layer(x, r)
    mine, theirs = gradients(layer, x, r), gradients(twin, x, r)
    return [n for n in mine if mine[n] is None or not torch.equal(mine[n], theirs[n])]


def test_grad_mode_gradients_equal_those_of_a_layer_that_never_cached():
    layer, x, r = layer_and_inputs()
    twin = copy.deepcopy(layer)
    assert differing_gradients(layer, twin, x, r) == []
    single = gradients(twin, x, r)
    layer.zero_grad()
    for _ in range(2):  # gradient accumulation over two micro-batches without a step
        layer(x, r).square().sum().backward()
    for name, p in layer.named_parameters():
        torch.testing.assert_close(p.grad, 2 * single[name], msg=name)


def test_planted_cache_that_ignores_grad_mode_is_caught(monkeypatch):
    layer, x, r = layer_and_inputs()
    twin = copy.deepcopy(layer)
    with torch.no_grad():
        stale = layer._folded_qkv()
    monkeypatch.setattr(layer, "_cached_folded_qkv", lambda: stale)  # a detached value served in grad mode
    assert {"qkv.weight", "qkv.bias", "basis_skew", "post_skew"} <= set(differing_gradients(layer, twin, x, r))


def test_frozen_layer_caches_in_grad_mode_and_inputs_still_get_exact_gradients():
    layer, x, r = layer_and_inputs()
    layer.requires_grad_(False)
    layer(x, r)
    layer(x, r + 1)
    assert layer._fold_cache.computed == 1
    assert torch.autograd.gradcheck(lambda x, r: layer(x, r), (x.requires_grad_(), r.requires_grad_()))
    assert layer._fold_cache.computed == 1


def _sgd(layer):
    torch.optim.SGD(layer.parameters(), lr=0.1).step()


def _fused_adam(layer):  # writes the parameters without bumping their version counters
    torch.optim.Adam(layer.parameters(), lr=0.1, fused=True).step()


def _load_state_dict(layer):
    other = copy.deepcopy(layer)
    with torch.no_grad():
        for p in other.parameters():
            p.add_(0.1)
    layer.load_state_dict(other.state_dict())


def _in_place(layer):
    with torch.no_grad():
        layer.basis_skew.mul_(1.5)


def _assign_data(layer):  # a new tensor behind the same Parameter (adding to all entries would not move skew(W))
    layer.post_skew.data = 1.5 * layer.post_skew.data


def _to_float32(layer):
    layer.to(torch.float32)


CHANGES = [_sgd, _fused_adam, _load_state_dict, _in_place, _assign_data, _to_float32]


@pytest.mark.parametrize("change", CHANGES, ids=lambda f: f.__name__.strip("_"))
def test_every_parameter_change_invalidates_the_cache(change):
    layer, x, r = layer_and_inputs()
    layer(x, r).square().sum().backward()  # gradients for the optimizers
    with torch.no_grad():
        before = layer(x, r)
    change(layer)
    dtype = layer.qkv.weight.dtype
    with torch.no_grad():
        after = layer(x.to(dtype), r.to(dtype))
    if dtype == F64:
        assert (after - before).abs().max() > 1e-4, "the change should move the output"
    else:  # a stale float64 fold would give float64 output (or fail in the float32 projection)
        assert after.dtype == dtype
    torch.testing.assert_close(after, fresh(layer, x.to(dtype), r.to(dtype)), atol=0, rtol=0)


def test_a_write_through_data_is_invisible_until_clear_cache_or_a_mode_switch():
    """The one change PyTorch does not count (``p.data`` has its own version counter): the comparison with a
    fresh layer sees the stale cache, and ``clear_cache()`` or ``eval()`` repairs it."""
    layer, x, r = layer_and_inputs()
    for repair in (layer.clear_cache, layer.eval, layer.train):
        with torch.no_grad():
            layer(x, r)
        layer.basis_skew.data.mul_(1.5)
        with torch.no_grad():
            stale = layer(x, r)
        assert (stale - fresh(layer, x, r)).abs().max() > 1e-4  # the check can fail
        repair()
        with torch.no_grad():
            torch.testing.assert_close(layer(x, r), fresh(layer, x, r), atol=0, rtol=0)


def test_cache_is_not_saved_with_the_module():
    layer, x, r = layer_and_inputs()
    with torch.no_grad():
        layer(x, r)
    assert "_fold_cache" not in str(list(layer.state_dict()))
    clone = copy.deepcopy(layer)
    assert clone._fold_cache.computed == 0 and clone._fold_cache._value is None
