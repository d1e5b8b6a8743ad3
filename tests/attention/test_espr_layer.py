"""Tests of ESPRAttention against independent oracles: a numpy/scipy per-token, per-head re-implementation
of Tier 4, torch.nn.functional.scaled_dot_product_attention, and a hand-applied RoPE."""

import numpy as np
import pytest
import scipy.linalg as sla
import torch
import torch.nn.functional as F
from torch import nn

from pyverify.attention import rotations as rot
from pyverify.attention.rotations import ESPRAttention, FoldedESPRAttention

F64 = torch.float64


def randomise(layer, seed=0, scale=0.5):
    """Move U, P (and a free-generator perturbation) away from the identity."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in (layer.basis_skew, layer.post_skew, layer.generator_perturbation):
            if p is not None:
                p.copy_(scale * torch.randn(p.shape, generator=g, dtype=p.dtype))
        layer.freqs.mul_(1 + torch.rand(layer.freqs.shape, generator=g, dtype=layer.freqs.dtype))
    return layer


def oracle(layer, x, r, mask=None):
    """Tier 4 in numpy, one head and one token at a time, R_STR by scipy's expm; parameters read as documented:
    U = cayley(skew(basis_skew)), P = U cayley(skew(post_skew)) U^T (free) or U diag(I, cayley(.)) U^T."""
    x, r = x.detach().numpy(), r.detach().numpy()
    B, N, _ = x.shape
    H, hd, m = layer.n_heads, layer.head_dim, layer.n_planes
    W = layer.qkv.weight.detach().numpy()
    b = np.zeros(W.shape[0]) if layer.qkv.bias is None else layer.qkv.bias.detach().numpy()
    Wo = layer.out_proj.weight.detach().numpy()
    bo = np.zeros(Wo.shape[0]) if layer.out_proj.bias is None else layer.out_proj.bias.detach().numpy()

    def cay(M):
        S = (M - M.T) / 2
        return (np.eye(len(S)) - S) @ np.linalg.inv(np.eye(len(S)) + S)

    heads = []
    for h in range(H):
        U = np.eye(hd) if layer.basis_skew is None else cay(layer.basis_skew[h].detach().numpy())
        if layer.post_skew is None:
            P = np.eye(hd)
        elif layer.post_rotation == "free":
            P = U @ cay(layer.post_skew[h].detach().numpy()) @ U.T
        else:
            P = U @ sla.block_diag(np.eye(2 * m), cay(layer.post_skew[h].detach().numpy())) @ U.T
        L = []
        for k in range(layer.d_c):
            D = np.zeros((hd, hd))
            for u in range(m):
                f = layer.freqs[h, k, u].item()
                D[2 * u, 2 * u + 1], D[2 * u + 1, 2 * u] = -f, f
            if layer.generator_perturbation is not None:  # free generators: L_k + skew part of the perturbation
                E = layer.generator_perturbation[h, k].detach().numpy()
                D = D + U.T @ ((E - E.T) / 2) @ U
            L.append(U @ D @ U.T)
        Pi = U[:, : 2 * m] @ U[:, : 2 * m].T if layer.project_active else np.eye(hd)
        scale = 1 / np.sqrt(2 * m if layer.project_active else hd)
        out = np.zeros((B, N, hd))
        for bb in range(B):
            qs, ks, vs = [], [], []
            for i in range(N):
                proj = W @ x[bb, i] + b
                q, k, v = (proj[j * H * hd + h * hd: j * H * hd + (h + 1) * hd] for j in range(3))
                Rsp = sla.expm(sum(r[bb, i, kk] * L[kk] for kk in range(layer.d_c))) @ P
                qs.append(Pi @ Rsp @ Pi @ q)
                ks.append(Pi @ Rsp @ Pi @ k)
                vs.append(v)
            for i in range(N):
                logits = np.array([qs[i] @ ks[j] * scale for j in range(N)])
                allowed = np.ones(N, bool) if mask is None else mask[i].copy()
                if layer.causal:
                    allowed[i + 1:] = False
                logits[~allowed] = -np.inf
                w = np.exp(logits - logits.max())
                w /= w.sum()
                out[bb, i] = sum(w[j] * vs[j] for j in range(N))
        heads.append(out)
    concat = np.concatenate(heads, axis=-1)
    return concat @ Wo.T + bo


def inputs(B=2, N=5, d_model=12, d_c=2, seed=1, dtype=F64):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(B, N, d_model, generator=g, dtype=dtype),
            3 * torch.randn(B, N, d_c, generator=g, dtype=dtype))


CONFIGS = [
    dict(post_rotation="free", project_active=True, n_planes=None, causal=True, bias=True),
    dict(post_rotation="free", project_active=True, n_planes=2, causal=False, bias=False),
    dict(post_rotation="structured", project_active=False, n_planes=2, causal=True, bias=True),
    dict(post_rotation="free", project_active=False, n_planes=2, causal=False, bias=True, learn_basis=False),
    dict(post_rotation="none", project_active=True, n_planes=None, causal=False, bias=False, learn_basis=False),
]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_layer_matches_numpy_oracle(cfg):
    torch.manual_seed(0)
    layer = randomise(ESPRAttention(12, 2, 2, **cfg))
    x, r = inputs()
    expected = oracle(layer, x, r)
    np.testing.assert_allclose(layer(x, r).detach().numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(layer.reference_forward(x, r).detach().numpy(), expected, atol=1e-12)
    folded = layer.fold_post_rotation()
    assert isinstance(folded, FoldedESPRAttention)
    np.testing.assert_allclose(folded(x, r).detach().numpy(), expected, atol=1e-12)


def test_planted_error_caught_by_oracle():
    """A layer whose post-rotation differs from the one the oracle reads (P^T instead of P) is detected."""
    torch.manual_seed(0)
    layer = randomise(ESPRAttention(12, 2, 2))
    x, r = inputs()
    expected = oracle(layer, x, r)
    with torch.no_grad():
        layer.post_skew.neg_()  # cayley(-S) = cayley(S)^T
    assert np.abs(layer(x, r).detach().numpy() - expected).max() > 1e-3


@pytest.mark.parametrize("n_planes", [None, 2])
def test_zero_positions_identity_post_rotation_is_sdpa(n_planes):
    torch.manual_seed(0)
    layer = ESPRAttention(12, 2, 3, n_planes=n_planes, post_rotation="none", causal=True, bias=True)
    with torch.no_grad():
        layer.basis_skew.normal_()  # any basis U: at r = 0, R_STR = I
    x, _ = inputs(d_c=3)
    r = torch.zeros(2, 5, 3, dtype=F64)
    B, N, H, hd = 2, 5, 2, 6
    q, k, v = layer.qkv(x).view(B, N, 3, H, hd).permute(2, 0, 3, 1, 4)
    if n_planes is not None:  # only the active coordinates (in U's basis) enter the logits
        Ua = layer.basis()[:, :, : 2 * n_planes].detach()  # (H, hd, 2m)
        q, k = q @ Ua[None], k @ Ua[None]
    d_act = 2 * (n_planes or hd // 2)
    att = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=d_act ** -0.5)
    expected = layer.out_proj(att.transpose(1, 2).reshape(B, N, H * hd))
    torch.testing.assert_close(layer(x, r), expected, atol=1e-12, rtol=0)
    # with the default 1/sqrt(d_h) scale instead of 1/sqrt(2m) the answer differs when 2m < d_h
    if n_planes is not None:
        att_wrong = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=hd ** -0.5)
        wrong = layer.out_proj(att_wrong.transpose(1, 2).reshape(B, N, H * hd))
        assert (layer(x, r) - wrong).abs().max() > 1e-4


def test_rope_special_case_matches_hand_applied_rope():
    """d_c = 1, U = I, P = I, axial init: the layer is RoPE attention (adjacent pairs, base theta)."""
    torch.manual_seed(0)
    layer = ESPRAttention(16, 2, 1, learn_basis=False, post_rotation="none", theta=100.0, causal=True)
    x, _ = inputs(d_model=16, d_c=1, N=7)
    pos = torch.arange(7, dtype=F64).expand(2, 7)
    q, k, v = layer.qkv(x).view(2, 7, 3, 2, 8).permute(2, 0, 3, 1, 4)
    qr, kr = (rot.rope(z, pos[:, None, :], theta=100.0) for z in (q, k))
    att = F.scaled_dot_product_attention(qr, kr, v, is_causal=True)
    expected = layer.out_proj(att.transpose(1, 2).reshape(2, 7, 16))
    torch.testing.assert_close(layer(x, pos[..., None]), expected, atol=1e-12, rtol=0)


def test_shift_invariance_commuting_and_failure_for_non_commuting():
    x, r = inputs(d_c=3)
    shift = torch.tensor([0.7, -1.3, 2.1], dtype=F64)
    torch.manual_seed(0)
    layer = randomise(ESPRAttention(12, 2, 3, n_planes=2, causal=True))
    torch.testing.assert_close(layer(x, r + shift), layer(x, r), atol=1e-12, rtol=0)
    free = randomise(ESPRAttention(12, 2, 3, n_planes=2, causal=True, generator_mode="free"))
    assert rot.commutator_norms(free.generators()).max() > 0.1
    assert (free(x, r + shift) - free(x, r)).abs().max() > 1e-3
    # the free layer against the independent per-token oracle (scipy expm of the perturbed generators)
    expected = oracle(free, x, r)
    np.testing.assert_allclose(free(x, r).detach().numpy(), expected, atol=1e-12)
    with torch.no_grad():
        free.generator_perturbation.mul_(1.01)  # a planted 1% error in the generators is visible to it
    assert np.abs(free(x, r).detach().numpy() - expected).max() > 1e-6


def test_structured_post_rotation_is_invisible_on_the_active_block():
    """T3.6: P in 𝒜 drops out of the projected logits; a free P does not."""
    x, r = inputs()
    torch.manual_seed(0)
    layer = randomise(ESPRAttention(12, 2, 2, n_planes=2, post_rotation="structured"))
    P = layer.post_rotation_matrix()
    assert rot.distance_to_structured(P, layer.basis(), 2).max() < 1e-7
    assert (P - torch.eye(6, dtype=F64)).abs().max() > 0.1
    before = layer(x, r)
    with torch.no_grad():
        layer.post_skew.normal_()
    torch.testing.assert_close(layer(x, r), before, atol=1e-12, rtol=0)
    free = randomise(ESPRAttention(12, 2, 2, n_planes=2, post_rotation="free"))
    before = free(x, r)
    with torch.no_grad():
        free.post_skew.normal_()
    assert (free(x, r) - before).abs().max() > 1e-3


def test_causality_and_bool_mask():
    torch.manual_seed(0)
    layer = randomise(ESPRAttention(12, 2, 2, causal=True))
    x, r = inputs()
    x2 = x.clone()
    x2[:, 3:] += 1.0
    out, out2 = layer(x, r), layer(x2, r)
    torch.testing.assert_close(out[:, :3], out2[:, :3], atol=1e-12, rtol=0)
    mask = torch.rand(5, 5, generator=torch.Generator().manual_seed(3)) > 0.3
    mask |= torch.eye(5, dtype=torch.bool)
    expected = oracle(layer, x, r, mask=mask.numpy())
    np.testing.assert_allclose(layer(x, r, attn_mask=mask).detach().numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(layer.reference_forward(x, r, attn_mask=mask).detach().numpy(), expected, atol=1e-12)


def test_folded_form_equals_training_form_after_training_step():
    torch.manual_seed(0)
    layer = ESPRAttention(12, 2, 2, bias=True)
    x, r = inputs()
    opt = torch.optim.SGD(layer.parameters(), lr=0.5)
    layer(x, r).square().mean().backward()
    opt.step()
    assert layer.basis_skew.abs().max() > 0 and layer.post_skew.abs().max() > 0
    U = layer.basis()
    torch.testing.assert_close(U.mT @ U, torch.eye(6, dtype=F64).expand(2, 6, 6), atol=1e-12, rtol=0)
    folded = layer.fold_post_rotation()
    names = {n for n, _ in folded.named_parameters()}
    assert not any("skew" in n for n in names)
    torch.testing.assert_close(folded(x, r), layer(x, r), atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match="fold"):
        ESPRAttention(12, 2, 2, generator_mode="free").fold_post_rotation()


@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_gradients_finite_for_every_parameter(dtype):
    torch.manual_seed(0)
    layer = randomise(ESPRAttention(12, 2, 2, n_planes=2, bias=True, dtype=dtype))
    x, r = inputs(dtype=dtype)
    r.requires_grad_()
    layer(x, r).sum().backward()
    for name, p in layer.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), name
        assert p.grad.abs().max() > 0, name
    assert torch.isfinite(r.grad).all()


def test_gradcheck_through_layer_in_float64():
    torch.manual_seed(0)
    layer = randomise(ESPRAttention(8, 2, 2, n_planes=1, causal=True))
    x, r = inputs(B=1, N=3, d_model=8)
    assert torch.autograd.gradcheck(lambda x, r: layer(x, r), (x.requires_grad_(), r.requires_grad_()))


class Block(nn.Module):
    """A pre-norm Transformer block with ESPRAttention as its attention."""

    def __init__(self, d_model, n_heads, d_c):
        super().__init__()
        kw = dict(dtype=torch.float32)
        self.norm1, self.norm2 = nn.LayerNorm(d_model, **kw), nn.LayerNorm(d_model, **kw)
        self.attn = ESPRAttention(d_model, n_heads, d_c, causal=True, dtype=torch.float32)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model, **kw), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model, **kw))

    def forward(self, x, r):
        x = x + self.attn(self.norm1(x), r)
        return x + self.mlp(self.norm2(x))


def test_drop_in_transformer_block_trains():
    torch.manual_seed(0)
    block = Block(16, 4, 2)
    x, r = torch.randn(3, 10, 16), torch.randn(3, 10, 2)
    target = torch.randn(3, 10, 16)
    opt = torch.optim.Adam(block.parameters(), lr=1e-2)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        loss = (block(x, r) - target).square().mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.9 * losses[0]
    assert block(x, r).dtype == torch.float32


def test_input_validation():
    layer = ESPRAttention(12, 2, 2)
    x, r = inputs()
    with pytest.raises(ValueError, match="x must have shape"):
        layer(x[..., :10], r)
    with pytest.raises(ValueError, match="r must have shape"):
        layer(x, r[..., :1])
    with pytest.raises(ValueError, match="divisible"):
        ESPRAttention(10, 3, 2)
    with pytest.raises(ValueError, match="n_planes"):
        ESPRAttention(12, 2, 2, n_planes=4)
    with pytest.raises(ValueError, match="post_rotation"):
        ESPRAttention(12, 2, 2, post_rotation="left")
    assert ESPRAttention(12, 2, 2).qkv.weight.dtype == F64  # float64 unless asked otherwise


def test_plane_rotation_backward_against_finite_differences_and_a_planted_sign_error(monkeypatch):
    """The hand-written backward of the fused rotation (inverse rotation of the gradient, angle gradient from
    the saved cos and sin) matches finite differences; with theta's gradient negated it does not."""
    from pyverify.attention.rotations.layer import _PlaneRotation

    g = torch.Generator().manual_seed(5)
    a, b = (torch.randn(2, 3, 2, 2, 4, generator=g, dtype=F64, requires_grad=True) for _ in range(2))
    theta = (5 * torch.randn(2, 3, 1, 2, 4, generator=g, dtype=F64)).requires_grad_()
    assert torch.autograd.gradcheck(_PlaneRotation.apply, (a, b, theta))
    x, y = _PlaneRotation.apply(a, b, theta)
    (g,) = torch.autograd.grad((x * y).sum(), theta, create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable|twice"):  # no silently wrong second derivative
        g.sum().backward()
    backward = _PlaneRotation.backward

    def planted(ctx, g_x, g_y):
        g_a, g_b, g_theta = backward(ctx, g_x, g_y)
        return g_a, g_b, -g_theta

    monkeypatch.setattr(_PlaneRotation, "backward", staticmethod(planted))
    assert not torch.autograd.gradcheck(_PlaneRotation.apply, (a, b, theta), raise_exception=False)
