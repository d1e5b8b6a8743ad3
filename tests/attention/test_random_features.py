"""Tests of pyverify.attention.random_features against independent oracles.

Oracles: per-element loops with math.exp, explicit N x N kernel matrices built in numpy, Monte Carlo
confidence intervals, scipy.stats goodness-of-fit tests, the closed-form moments of a lognormal.
"""

import math

import numpy as np
import pytest
import torch
from scipy import stats
from scipy.special import logsumexp

from pyverify.attention import random_features as rf

Z_CRIT = 5.0   # width of the Monte Carlo confidence intervals, in standard errors


def gen(seed):
    return torch.Generator().manual_seed(seed)


def fixed_pair(d=4):
    """Query/key with moderate norms and a non-trivial inner product (x.y = 0.3 exactly not needed)."""
    x = torch.tensor([0.5, -0.3, 0.2, 0.1][:d], dtype=torch.float64)
    y = torch.tensor([0.4, 0.1, 0.3, -0.2][:d], dtype=torch.float64)
    return x, y


def per_draw_estimates(x, y, W, sign):
    """Z_t, one unbiased estimate of exp(x.y) per row of W (hand-written, not via the module)."""
    Wn, xn, yn = W.numpy(), x.numpy(), y.numpy()
    base = -0.5 * (xn @ xn + yn @ yn)
    plus = np.exp(Wn @ (xn + yn) + base)
    minus = np.exp(-Wn @ (xn + yn) + base)
    return {"plus": plus, "minus": minus, "both": 0.5 * (plus + minus)}[sign]


def ci_contains(samples, target):
    mean = samples.mean()
    se = samples.std(ddof=1) / math.sqrt(samples.size)
    return abs(mean - target) <= Z_CRIT * se, mean, se


# ----------------------------------------------------------------------------- draws

def test_draw_shapes_dtypes():
    W = rf.gaussian_iid(7, 3, gen(0))
    assert W.shape == (7, 3) and W.dtype == torch.float64
    W = rf.gaussian_orthogonal(7, 3, gen(0), dtype=torch.float32)
    assert W.shape == (7, 3) and W.dtype == torch.float32
    assert rf.gaussian_orthogonal(2, 5, gen(0)).shape == (2, 5)


def test_orthogonal_blocks_are_orthogonal_and_only_within_blocks():
    d, m = 4, 10
    W = rf.gaussian_orthogonal(m, d, gen(1)).numpy()
    for start in range(0, m, d):
        block = W[start:start + d]
        gram = block @ block.T
        off = gram - np.diag(np.diag(gram))
        assert np.abs(off).max() < 1e-12
    # rows of different blocks are independent, hence not orthogonal
    cross = W[:d] @ W[d:2 * d].T
    assert np.abs(cross).min() > 1e-6


def test_batched_orthogonal_draws_are_independent_orthogonal_blocks():
    d, m = 3, 5
    W = rf.gaussian_orthogonal(m, d, gen(3), batch=(4, 2))
    assert W.shape == (4, 2, m, d)
    # the unbatched draw is the batched one with an empty batch shape (same random stream)
    assert torch.equal(rf.gaussian_orthogonal(m, d, gen(3)), rf.gaussian_orthogonal(m, d, gen(3), batch=()))
    for draw in W.reshape(8, m, d):
        gram = draw[:d] @ draw[:d].T
        assert (gram - torch.diag(torch.diag(gram))).abs().max() < 1e-12
    # different draws of the batch are independent, hence not orthogonal to each other
    assert (W[0, 0, :d] @ W[0, 1, :d].T).abs().min() > 1e-6


def test_orthogonal_rows_are_marginally_standard_gaussian():
    d, m = 3, 9000
    W = rf.gaussian_orthogonal(m, d, gen(2)).numpy()
    for j in range(d):
        assert stats.kstest(W[:, j], "norm").pvalue > 1e-3
    assert stats.kstest((W ** 2).sum(1), stats.chi2(d).cdf).pvalue > 1e-3
    cov = W.T @ W / m
    assert np.abs(cov - np.eye(d)).max() < Z_CRIT * math.sqrt(2.0 / m)
    # planted error: fixed lengths sqrt(d) are not chi-distributed, and the test notices
    W_fixed = rf.gaussian_orthogonal(m, d, gen(2), norms="fixed").numpy()
    assert np.allclose((W_fixed ** 2).sum(1), d)
    assert stats.kstest((W_fixed ** 2).sum(1), stats.chi2(d).cdf).pvalue < 1e-6


# ----------------------------------------------------------------------------- feature map

@pytest.mark.parametrize("sign", ["plus", "minus", "both"])
def test_positive_features_match_elementwise_formula(sign):
    x = torch.randn(2, 3, 4, dtype=torch.float64, generator=gen(3))
    W = rf.gaussian_iid(5, 4, gen(4))
    phi = rf.positive_features(x, W, sign=sign).numpy()
    xs, Ws = x.numpy(), W.numpy()
    for idx in np.ndindex(2, 3):
        xv = xs[idx]
        sq = sum(c * c for c in xv)
        for t in range(5):
            wx = sum(Ws[t, c] * xv[c] for c in range(4))
            if sign == "plus":
                assert phi[idx][t] == pytest.approx(math.exp(wx - sq / 2) / math.sqrt(5), rel=1e-13)
            elif sign == "minus":
                assert phi[idx][t] == pytest.approx(math.exp(-wx - sq / 2) / math.sqrt(5), rel=1e-13)
            else:
                assert phi[idx][t] == pytest.approx(math.exp(wx - sq / 2) / math.sqrt(10), rel=1e-13)
                assert phi[idx][5 + t] == pytest.approx(math.exp(-wx - sq / 2) / math.sqrt(10), rel=1e-13)
    assert (phi > 0).all()


def test_sign_convention_plus_and_minus_differ_but_are_reflections():
    x = torch.randn(6, 4, dtype=torch.float64, generator=gen(5))
    W = rf.gaussian_iid(8, 4, gen(6))
    plus, minus = rf.positive_features(x, W), rf.positive_features(x, W, sign="minus")
    assert not torch.allclose(plus, minus)
    torch.testing.assert_close(minus, rf.positive_features(x, -W), rtol=1e-14, atol=0)


def test_printed_paper_sign_is_biased_and_t71_sign_is_not():
    """Planted error: the paper's Sec. 3 prints exp(+|x|^2/2); T7.1 has exp(-|x|^2/2)."""
    x, y = fixed_pair()
    W = rf.gaussian_iid(40000, 4, gen(7))
    target = math.exp(float(x @ y))
    ok, _, _ = ci_contains(per_draw_estimates(x, y, W, "plus"), target)
    assert ok
    Wn = W.numpy()
    wrong = np.exp(Wn @ (x + y).numpy() + 0.5 * float(x @ x + y @ y))
    ok_wrong, mean_wrong, _ = ci_contains(wrong, target)
    assert not ok_wrong
    assert mean_wrong == pytest.approx(target * math.exp(float(x @ x + y @ y)), rel=0.05)


# ----------------------------------------------------------------------------- unbiasedness, variance

@pytest.mark.parametrize("sign", ["plus", "minus", "both"])
def test_estimator_is_unbiased_iid(sign):
    x, y = fixed_pair()
    m = 40000
    W = rf.gaussian_iid(m, 4, gen(8))
    Z = per_draw_estimates(x, y, W, sign)
    ok, mean, se = ci_contains(Z, math.exp(float(x @ y)))
    assert ok, (mean, se)
    # the module's estimator is the mean of the per-draw estimates
    assert float(rf.softmax_kernel_estimate(x, y, W, sign=sign)) == pytest.approx(mean, rel=1e-12)


@pytest.mark.parametrize("sign", ["plus", "both"])
def test_estimator_is_unbiased_orthogonal(sign):
    x, y = fixed_pair()
    d, n_blocks = 4, 10000
    W = rf.gaussian_orthogonal(n_blocks * d, d, gen(9))
    # blocks are independent; rows inside a block are not, so the CI is over block means
    block_means = per_draw_estimates(x, y, W, sign).reshape(n_blocks, d).mean(1)
    ok, mean, se = ci_contains(block_means, math.exp(float(x @ y)))
    assert ok, (mean, se)


def test_softmax_kernel_is_exp_dot():
    x, y = fixed_pair()
    assert float(rf.softmax_kernel(x, y)) == pytest.approx(math.exp(sum(a * b for a, b in zip(x.tolist(), y.tolist()))))


@pytest.mark.parametrize("sign", ["plus", "both"])
def test_variance_formula_matches_monte_carlo(sign):
    x, y = fixed_pair()
    n = 200000
    Z = per_draw_estimates(x, y, rf.gaussian_iid(n, 4, gen(10)), sign)
    sample_var = Z.var(ddof=1)
    centred = Z - Z.mean()
    se = math.sqrt(max((centred ** 4).mean() - sample_var ** 2, 0.0) / n)
    formula = float(rf.positive_rf_variance(x, y, sign=sign))
    assert abs(sample_var - formula) <= Z_CRIT * se, (sample_var, formula, se)
    # with m draws the variance is divided by m
    assert float(rf.positive_rf_variance(x, y, 16, sign=sign)) == pytest.approx(formula / 16, rel=1e-14)
    if sign == "plus":
        # closed form by hand (T7.4): exp(|x|^2 + |y|^2 + 4 x.y) - exp(2 x.y)
        xx, yy, xy = float(x @ x), float(y @ y), float(x @ y)
        assert formula == pytest.approx(math.exp(xx + yy + 4 * xy) - math.exp(2 * xy), rel=1e-12)
        # planted error: |x|^2 + |y|^2 in place of |x + y|^2 is rejected by the same interval
        wrong = math.exp(2 * xy) * (math.exp(xx + yy) - 1)
        assert abs(sample_var - wrong) > Z_CRIT * se


def test_orthogonal_draws_reduce_variance():
    d, n_blocks = 8, 20000
    g = gen(11)
    x = torch.randn(d, dtype=torch.float64, generator=g)
    x = 0.5 * x / x.norm()
    y = 0.5 * x + 0.2 * torch.randn(d, dtype=torch.float64, generator=g)
    blocks = per_draw_estimates(x, y, rf.gaussian_orthogonal(n_blocks * d, d, g), "plus").reshape(n_blocks, d).mean(1)
    var = blocks.var(ddof=1)
    se = math.sqrt(((blocks - blocks.mean()) ** 4).mean() / n_blocks)
    iid_var = float(rf.positive_rf_variance(x, y, d))
    assert var + Z_CRIT * se < iid_var


# ----------------------------------------------------------------------------- attention

def explicit_kernel_attention(q, k, v, W, sign="plus", causal=False, scale=1.0, eps=0.0):
    """Oracle: features by numpy, the full N x N matrix A_ij = phi(q_i).phi(k_j), masked, normalised."""
    Wn = W.numpy()
    m = Wn.shape[0]

    def feats(x):
        x = x * math.sqrt(scale)
        proj = x @ Wn.T
        half = 0.5 * (x * x).sum(-1, keepdims=True)
        if sign == "plus":
            return np.exp(proj - half) / math.sqrt(m)
        if sign == "minus":
            return np.exp(-proj - half) / math.sqrt(m)
        return np.concatenate([np.exp(proj - half), np.exp(-proj - half)], -1) / math.sqrt(2 * m)

    A = feats(q.numpy()) @ np.swapaxes(feats(k.numpy()), -1, -2)
    if causal:
        A = A * np.tril(np.ones(A.shape[-2:]))
    return (A @ v.numpy()) / (A.sum(-1, keepdims=True) + eps)


def qkv(lead, n, nk, d=4, dv=3, seed=12, norm=0.4):
    g = gen(seed)
    q = norm * torch.randn(*lead, n, d, dtype=torch.float64, generator=g)
    k = norm * torch.randn(*lead, nk, d, dtype=torch.float64, generator=g)
    v = torch.randn(*lead, nk, dv, dtype=torch.float64, generator=g)
    return q, k, v


@pytest.mark.parametrize("sign", ["plus", "minus", "both"])
def test_linear_attention_equals_explicit_matrix(sign):
    q, k, v = qkv((2, 3), n=5, nk=7)
    W = rf.gaussian_orthogonal(16, 4, gen(13))
    out = rf.linear_attention(q, k, v, W, sign=sign, scale=0.5)
    np.testing.assert_allclose(out.numpy(), explicit_kernel_attention(q, k, v, W, sign, scale=0.5), rtol=1e-12)


@pytest.mark.parametrize("chunk_size", [None, 1, 3, 16])
def test_causal_linear_attention_equals_masked_matrix(chunk_size):
    q, k, v = qkv((2,), n=10, nk=10)
    W = rf.gaussian_iid(12, 4, gen(14))
    out = rf.linear_attention(q, k, v, W, causal=True, chunk_size=chunk_size)
    oracle = explicit_kernel_attention(q, k, v, W, causal=True)
    np.testing.assert_allclose(out.numpy(), oracle, rtol=1e-12)
    # planted error: the non-causal output differs from the causal oracle
    assert not np.allclose(rf.linear_attention(q, k, v, W).numpy(), oracle, rtol=1e-6)


def test_causal_broadcasts_leading_dims():
    g = gen(15)
    q = 0.3 * torch.randn(2, 1, 6, 4, dtype=torch.float64, generator=g)
    k = 0.3 * torch.randn(1, 3, 6, 4, dtype=torch.float64, generator=g)
    v = torch.randn(6, 2, dtype=torch.float64, generator=g)
    W = rf.gaussian_iid(8, 4, g)
    full = rf.linear_attention(q, k, v, W, causal=True)
    chunked = rf.linear_attention(q, k, v, W, causal=True, chunk_size=4)
    assert full.shape == chunked.shape == (2, 3, 6, 2)
    oracle = explicit_kernel_attention(*torch.broadcast_tensors(q, k), v, W, causal=True)
    np.testing.assert_allclose(full.numpy(), oracle, rtol=1e-12)
    np.testing.assert_allclose(chunked.numpy(), oracle, rtol=1e-12)


def softmax_attention_loops(q, k, v, causal, scale):
    q, k, v = q.numpy(), k.numpy(), v.numpy()
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        js = range(i + 1) if causal else range(k.shape[0])
        w = {j: math.exp(scale * sum(q[i, c] * k[j, c] for c in range(q.shape[1]))) for j in js}
        total = sum(w.values())
        for j, wj in w.items():
            out[i] += wj / total * v[j]
    return out


@pytest.mark.parametrize("causal", [False, True])
def test_softmax_attention_matches_loops(causal):
    q, k, v = qkv((), n=6, nk=6, norm=1.0)
    out = rf.softmax_attention(q, k, v, causal=causal, scale=0.5)
    np.testing.assert_allclose(out.numpy(), softmax_attention_loops(q, k, v, causal, 0.5), rtol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention_approximates_softmax_attention(causal):
    q, k, v = qkv((), n=8, nk=8, norm=0.3)
    exact = softmax_attention_loops(q, k, v, causal, 1.0)
    err = {m: np.abs(rf.linear_attention(q, k, v, rf.gaussian_orthogonal(m, 4, gen(16)), causal=causal).numpy()
                     - exact).max() for m in (8, 8192)}
    assert err[8192] < 0.02
    assert err[8192] < err[8]


def test_max_shift_leaves_output_unchanged_and_rescues_overflow():
    q, k, v = qkv((2,), n=6, nk=6)
    W = rf.gaussian_iid(16, 4, gen(17))
    for causal in (False, True):
        torch.testing.assert_close(rf.linear_attention(q, k, v, W, causal=causal, max_shift=True),
                                   rf.linear_attention(q, k, v, W, causal=causal), rtol=1e-12, atol=0)
    # large norms: the raw features underflow (|x|^2/2 ~ 1000 > 745), the ratio becomes 0/0
    big_q, big_k = 50 * q, 50 * k
    assert torch.isnan(rf.linear_attention(big_q, big_k, v, W)).any()
    shifted = rf.linear_attention(big_q, big_k, v, W, max_shift=True)
    assert torch.isfinite(shifted).all()
    # oracle in log space: log A_ij = logsumexp_t(w_t.(q_i + k_j)) - (|q_i|^2 + |k_j|^2)/2 - log m
    Wn, qn, kn, vn = W.numpy(), big_q.numpy(), big_k.numpy(), v.numpy()
    proj = (qn[..., :, None, :] + kn[..., None, :, :]) @ Wn.T                # (2, n, n, m)
    logA = logsumexp(proj, axis=-1) - 0.5 * (qn ** 2).sum(-1)[..., :, None] - 0.5 * (kn ** 2).sum(-1)[..., None, :]
    P = np.exp(logA - logA.max(-1, keepdims=True))
    np.testing.assert_allclose(shifted.numpy(), (P @ vn) / P.sum(-1, keepdims=True), rtol=1e-9)


def test_eps_changes_what_is_computed():
    q, k, v = qkv((), n=5, nk=5)
    W = rf.gaussian_iid(10, 4, gen(18))
    eps = 0.3
    out = rf.linear_attention(q, k, v, W, eps=eps).numpy()
    np.testing.assert_allclose(out, explicit_kernel_attention(q, k, v, W, eps=eps), rtol=1e-12)
    assert not np.allclose(out, explicit_kernel_attention(q, k, v, W), rtol=1e-3)


def test_gradients_are_exact():
    q, k, v = qkv((), n=4, nk=4)
    W = rf.gaussian_iid(6, 4, gen(19))
    for causal, chunk in ((False, None), (True, None), (True, 3)):
        inputs = tuple(t.clone().requires_grad_(True) for t in (q, k, v))
        assert torch.autograd.gradcheck(
            lambda a, b, c: rf.linear_attention(a, b, c, W, causal=causal, chunk_size=chunk, max_shift=True),
            inputs)
    x = q.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a: rf.positive_features(a, W, sign="both"), (x,))


def test_dtype_follows_input():
    q, k, v = (t.float() for t in qkv((), n=4, nk=4))
    out = rf.linear_attention(q, k, v, rf.gaussian_iid(6, 4, gen(20)))
    assert out.dtype == torch.float32


@pytest.mark.parametrize("call", [
    lambda: rf.positive_features(torch.zeros(3), torch.zeros(5, 4)),
    lambda: rf.positive_features(torch.zeros(4), torch.zeros(5, 4), sign="+"),
    lambda: rf.positive_features(torch.zeros(4), torch.zeros(2, 5, 4)),
    lambda: rf.linear_attention(torch.zeros(3, 4), torch.zeros(5, 4), torch.zeros(5, 2), torch.zeros(6, 4), causal=True),
    lambda: rf.linear_attention(torch.zeros(3, 4), torch.zeros(5, 4), torch.zeros(4, 2), torch.zeros(6, 4)),
    lambda: rf.linear_attention(torch.zeros(3, 4), torch.zeros(3, 4), torch.zeros(3, 2), torch.zeros(6, 4), eps=-1.0),
    lambda: rf.softmax_attention(torch.zeros(3, 4), torch.zeros(3, 4), torch.zeros(3, 2), scale=0.0),
    lambda: rf.gaussian_orthogonal(0, 4),
    lambda: rf.gaussian_orthogonal(3, 4, norms="unit"),
    lambda: rf.positive_rf_variance(torch.zeros(4), torch.zeros(4), 0),
])
def test_invalid_inputs_raise(call):
    with pytest.raises(ValueError):
        call()
