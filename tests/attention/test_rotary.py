"""The rotary module against the dense definition R_STR(r) = expm(sum_k r_k L_k) (scipy, float64), its
translation invariance, and ESPRAttention with P = I, Pi = I as rotary + plain attention."""

import numpy as np
import pytest
import scipy.linalg as sla
import torch
import torch.nn.functional as F

from pyverify.attention.rotations import ESPRAttention, StructuredRotary, rotate

F64 = torch.float64


def _randomised(module, seed=0):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        if module.basis_skew is not None:
            module.basis_skew.copy_(0.5 * torch.randn(module.basis_skew.shape, generator=g, dtype=F64))
        module.freqs.mul_(1 + torch.rand(module.freqs.shape, generator=g, dtype=F64))
    return module


def dense(x, positions, U, freqs):
    """Per token: expm(sum_k r_k U D_k U^T) x with D_k = ⊕_u freqs[k, u] J ⊕ 0, by scipy; numpy float64."""
    x, positions, freqs = x.detach().numpy(), positions.detach().numpy(), freqs.detach().numpy()
    d = x.shape[-1]
    U = np.eye(d) if U is None else U.detach().numpy()
    d_c, m = freqs.shape
    L = []
    for k in range(d_c):
        D = np.zeros((d, d))
        for u in range(m):
            D[2 * u + 1, 2 * u], D[2 * u, 2 * u + 1] = freqs[k, u], -freqs[k, u]
        L.append(U @ D @ U.T)
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        A = sum(positions[idx][k] * L[k] for k in range(d_c))
        out[idx] = sla.expm(A) @ x[idx]
    return out


@pytest.mark.parametrize("dim, d_c, n_planes, learn_basis", [(6, 2, None, True), (7, 3, 2, True), (8, 1, None, False)])
def test_rotate_matches_the_dense_definition(dim, d_c, n_planes, learn_basis):
    rotary = _randomised(StructuredRotary(dim, d_c, n_planes=n_planes, learn_basis=learn_basis))
    g = torch.Generator().manual_seed(1)
    t = torch.randn(2, 5, dim, generator=g, dtype=F64)
    r = 3 * torch.randn(2, 5, d_c, generator=g, dtype=F64)
    expected = dense(t, r, rotary.basis(), rotary.freqs)
    np.testing.assert_allclose(rotary.rotate_queries_or_keys(t, r).detach().numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(rotate(t, r, rotary.basis(), rotary.freqs).detach().numpy(), expected, atol=1e-12)
    # a planted error the comparison sees: the inverse rotation
    assert np.abs(rotate(t, -r, rotary.basis(), rotary.freqs).detach().numpy() - expected).max() > 1e-3


def test_per_head_parameters_match_the_dense_definition_per_head():
    rotary = _randomised(StructuredRotary(6, 2, heads=3))
    g = torch.Generator().manual_seed(2)
    t = torch.randn(2, 3, 4, 6, generator=g, dtype=F64)  # (B, H, N, d)
    r = torch.randn(2, 4, 2, generator=g, dtype=F64)  # (B, N, d_c)
    out = rotary.rotate_queries_or_keys(t, r).detach().numpy()
    for h in range(3):
        expected = dense(t[:, h], r, rotary.basis()[h], rotary.freqs[h])
        np.testing.assert_allclose(out[:, h], expected, atol=1e-12)


def test_logits_are_translation_invariant():
    rotary = _randomised(StructuredRotary(8, 3, n_planes=3))
    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(2, 6, 8, generator=g, dtype=F64), torch.randn(2, 6, 8, generator=g, dtype=F64)
    r = torch.randn(2, 6, 3, generator=g, dtype=F64)
    shift = torch.tensor([0.7, -1.3, 2.1], dtype=F64)

    def logits(pos):
        return rotary.rotate_queries_or_keys(q, pos) @ rotary.rotate_queries_or_keys(k, pos).mT

    torch.testing.assert_close(logits(r + shift), logits(r), atol=1e-12, rtol=0)
    # rotating the queries alone is not invariant: the test can fail
    moved = rotary.rotate_queries_or_keys(q, r + shift) @ rotary.rotate_queries_or_keys(k, r).mT
    assert (moved - logits(r)).abs().max() > 1e-3


def test_rotation_is_orthogonal_and_the_basis_learns():
    rotary = _randomised(StructuredRotary(6, 2))
    t = torch.randn(3, 5, 6, dtype=F64)
    r = torch.randn(3, 5, 2, dtype=F64)
    out = rotary.rotate_queries_or_keys(t, r)
    torch.testing.assert_close(out.norm(dim=-1), t.norm(dim=-1), atol=1e-12, rtol=0)
    out.pow(3).sum().backward()
    assert rotary.basis_skew.grad.abs().max() > 0 and rotary.freqs.grad.abs().max() > 0


@pytest.mark.parametrize("causal", [False, True])
def test_espr_layer_without_post_rotation_is_rotary_plus_plain_attention(causal):
    torch.manual_seed(0)
    layer = ESPRAttention(12, 2, 2, post_rotation="none", project_active=False, causal=causal, bias=True)
    _randomised(layer.rotary())  # shares the layer's parameters: this randomises the layer
    g = torch.Generator().manual_seed(4)
    x, r = torch.randn(2, 5, 12, generator=g, dtype=F64), 3 * torch.randn(2, 5, 2, generator=g, dtype=F64)
    q, k, v = layer.qkv(x).view(2, 5, 3, 2, 6).permute(2, 0, 3, 1, 4)  # (B, H, N, d_h) each
    rotary = layer.rotary()
    q, k = rotary.rotate_queries_or_keys(q, r), rotary.rotate_queries_or_keys(k, r)
    att = F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # scale 1/sqrt(d_h), as the layer's
    expected = layer.out_proj(att.transpose(1, 2).reshape(2, 5, 12))
    torch.testing.assert_close(layer(x, r), expected, atol=1e-12, rtol=0)
