"""Code vmap cannot batch is called one instance at a time inside the batched evaluation
(``checks/looped.py``): the same values as the one-instance path, gradients through it, nested maps (an
expectation over samples inside the map over instances), the budget caps of per-instance code kept, a genuine
failure still reported as the code's own, and float32 made inside a float64 result still seen.
"""

from __future__ import annotations

import pytest
import torch
from torch.func import vmap

from pyverify.checks import roles
from pyverify.checks.looped import LoopRefused, per_instance
from pyverify.engine import run_claim
from pyverify.engine.context import CPU64
from pyverify.registry import Verdict

from conftest import compiled_claim

import precision_fixtures.hostile_roles as hostile

pytestmark = pytest.mark.usefixtures("unbound_after")
FIXTURE = "tests/precision_fixtures/hostile_roles.py"


def _preallocated(x, w, scale=1.0):
    out = torch.empty(x.shape[0], dtype=x.dtype)
    out[:] = torch.exp(x * w).sum() * x * scale  # a batched value into an unbatched tensor: vmap refuses
    return out


def test_per_instance_gives_the_loops_values_and_gradients_through_nested_maps():
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(5, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="vmap"):
        vmap(_preallocated, in_dims=(0, None))(x, w[0])
    looped = per_instance(_preallocated)
    scale = torch.tensor(2.0, dtype=torch.float64)
    batched = vmap(lambda a: vmap(lambda b: looped(a, b, scale=scale))(w))(x)
    loop = torch.stack([torch.stack([_preallocated(x[i], w[j], 2.0) for j in range(5)]) for i in range(4)])
    assert torch.equal(batched, loop)
    (grad_batched,) = torch.autograd.grad(batched.square().sum(), x)
    (grad_loop,) = torch.autograd.grad(loop.square().sum(), x)
    assert torch.allclose(grad_batched, grad_loop, rtol=1e-14, atol=0)
    assert torch.equal(looped(x[0].detach(), w[0]), _preallocated(x[0].detach(), w[0]))  # outside vmap: the call


def test_per_instance_refuses_what_it_cannot_carry_as_a_batching_failure():
    def fails_on_negative_sums(x):
        if x.sum() < 0:
            raise ValueError("a negative sum")
        return x

    x = torch.tensor([[1.0, 2.0], [-3.0, 1.0]], dtype=torch.float64)
    with pytest.raises(LoopRefused, match=r"vmap: .*ValueError: a negative sum"):
        vmap(per_instance(fails_on_negative_sums))(x)
    with pytest.raises(LoopRefused, match="cannot be stacked"):
        vmap(per_instance(lambda v: float(v.sum())))(x)
    with pytest.raises(LoopRefused, match="container of batched tensors"):
        vmap(lambda v: per_instance(lambda pair: pair[0])([v, v]))(x)


ROTATION = {"given": {"gen": "commuting_skew(4, 3, m=1)", "r": "vec(3, hi=2)"},
            "assert": "R_str(gen.L, r) @ R_str(gen.L, r).T == I(4)"}


def _bind(role: str, name: str, precision: str = "float64", function=None) -> None:
    roles.bind(role, function or getattr(hostile, name), f"{FIXTURE}:{name}", hostile.CONVENTIONS[role][1],
               precision, "test")


def test_a_bound_function_vmap_refuses_is_looped_and_the_rest_of_the_check_stays_batched():
    calls = []

    def counted(L, r):
        calls.append(1)
        return hostile.rotation(L, r)

    _bind("rotation", "rotation", function=counted)
    comp = compiled_claim(ROTATION).assignments[0]
    theta = comp.init_theta(6, torch.Generator().manual_seed(0), CPU64)
    calls.clear()
    sides = comp.evaluate(theta, CPU64)
    assert not comp.vmap_refused and comp.looped == {"R_str"}
    # one refused batched call per use, then one call per instance and use (the check uses it twice)
    assert len(calls) == 2 * 6 + 1
    assert comp.unbatchable  # its cost is per instance: the search and the Monte-Carlo caps still apply
    for i in range(6):
        one = comp.evaluate_one(theta, i, CPU64)
        for batched, single in zip(sides.flat, one.flat):  # the check's own matmuls round as a batch does
            assert torch.allclose(batched[i], single[0], rtol=0, atol=1e-14)


def test_a_planted_defect_is_refuted_through_the_loop():
    _bind("rotation", "rotation_transposed_generator")
    check = {**ROTATION, "assert": "R_str(gen.L, r) == expm(sum(r[k] * gen.L[k] for k in range(3)))"}
    result = run_claim(compiled_claim(check), budget="quick", seed=0)
    assert result.verdict is Verdict.refuted, result.message
    roles.unbind_all()
    _bind("rotation", "rotation")
    assert run_claim(compiled_claim(check), budget="quick", seed=0).verdict is Verdict.holds


def test_a_genuine_failure_of_the_code_is_reported_as_its_own():
    def broken(L, r):
        out = torch.empty(L.shape[-1], L.shape[-1], dtype=L.dtype)
        out[:] = L.sum(0)
        raise ValueError("the layer's own bug")

    _bind("rotation", "rotation", function=broken)
    result = run_claim(compiled_claim(ROTATION), budget="quick", seed=0)
    assert result.verdict is Verdict.error
    assert "the layer's own bug" in result.message and "one instance at a time" not in result.message, result.message


def test_float32_made_inside_a_float64_result_is_seen_on_the_looped_path():
    def float32_inside(L, r):
        out = torch.empty(L.shape[-1], L.shape[-1], dtype=torch.float64)
        out[:] = hostile.rotation(L.float(), r.float()).double()
        return out

    roles.bind("rotation", float32_inside, "test:float32_inside", {}, "float64", "test")  # float32 inside undeclared
    comp = compiled_claim(ROTATION).assignments[0]
    sides = comp.evaluate(comp.init_theta(4, torch.Generator().manual_seed(0), CPU64), CPU64)
    assert comp.looped and sides.precision is torch.float32
