"""Tests of pyverify.attention.positional against independent oracles (loops, numpy/scipy)."""

import itertools
import math

import numpy as np
import pytest
import scipy.linalg
import torch

from pyverify.attention import positional as pe

RNG = np.random.default_rng(12345)


def random_distributions(n, V, rng=RNG, zeros=False):
    mu = rng.gamma(0.7, size=(n, V))
    if zeros:
        mu[rng.random((n, V)) < 0.3] = 0.0
        mu[:, 0] += 1e-3  # keep every row non-empty
    return mu / mu.sum(1, keepdims=True)


def hellinger_loop(mu):
    n, V = mu.shape
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = math.sqrt(sum((math.sqrt(mu[i, v]) - math.sqrt(mu[j, v])) ** 2 for v in range(V)))
    return out


def dist_loop(P):
    n = len(P)
    return np.array([[math.sqrt(sum((P[i][k] - P[j][k]) ** 2 for k in range(len(P[i])))) for j in range(n)]
                     for i in range(n)])


def stress_loop(P, D):
    E = dist_loop(P)
    n = len(D)
    num = sum((E[i, j] - D[i, j]) ** 2 for i in range(n) for j in range(i + 1, n))
    den = sum(D[i, j] ** 2 for i in range(n) for j in range(i + 1, n))
    return num / den


def euclidean_points(n, k, rng=RNG):
    X = rng.normal(size=(n, k))
    return X, dist_loop(X)


# ----------------------------------------------------------------------------------- Hellinger

def test_hellinger_matches_double_loop_and_metric_axioms():
    mu = random_distributions(9, 13, zeros=True)
    D = pe.hellinger(torch.tensor(mu))
    oracle = hellinger_loop(mu)
    np.testing.assert_allclose(D.numpy(), oracle, rtol=1e-12, atol=1e-14)
    assert D.dtype == torch.float64
    assert torch.equal(D, D.T)
    assert torch.all(D.diagonal() == 0)
    assert float(D.max()) <= math.sqrt(2) + 1e-15
    n = len(mu)
    for i, j, k in itertools.product(range(n), repeat=3):
        assert oracle[i, k] <= oracle[i, j] + oracle[j, k] + 1e-12
        assert float(D[i, k]) <= float(D[i, j] + D[j, k]) + 1e-12


def test_hellinger_maximum_on_disjoint_supports_and_normalisation():
    mu = torch.tensor([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.25, 0.75], [0.5, 0.5, 0.0, 0.0]], dtype=torch.float64)
    D = pe.hellinger(mu)
    assert float(D[0, 1]) == pytest.approx(math.sqrt(2), abs=1e-15)   # paper: d_H in [0, sqrt 2]
    assert float(D[0, 2]) == 0.0
    Dn = pe.hellinger(mu, normalized=True)
    assert float(Dn[0, 1]) == pytest.approx(1.0, abs=1e-15)
    torch.testing.assert_close(Dn, D / math.sqrt(2))


def test_hellinger_planted_error_is_caught():
    # Planted error: Euclidean distance of the distributions themselves instead of their square roots.
    mu = random_distributions(6, 7)
    wrong = dist_loop(mu)
    assert np.abs(wrong - hellinger_loop(mu)).max() > 1e-2
    np.testing.assert_allclose(pe.hellinger(torch.tensor(mu)).numpy(), hellinger_loop(mu), atol=1e-13)


def test_hellinger_batched_dtype_and_validation():
    mus = np.stack([random_distributions(5, 6) for _ in range(3)])
    Db = pe.hellinger(torch.tensor(mus))
    assert Db.shape == (3, 5, 5)
    for b in range(3):
        np.testing.assert_allclose(Db[b].numpy(), hellinger_loop(mus[b]), atol=1e-13)
    assert pe.hellinger(torch.tensor(mus, dtype=torch.float32)).dtype == torch.float32
    with pytest.raises(ValueError, match="sum to 1"):
        pe.hellinger(torch.ones(3, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="non-negative"):
        pe.hellinger(torch.tensor([[1.5, -0.5]], dtype=torch.float64))
    with pytest.raises(ValueError, match="shape"):
        pe.hellinger(torch.ones(4, dtype=torch.float64))


def test_fisher_rao_is_twice_arccos_of_bhattacharyya():
    mu = random_distributions(5, 8)
    bc = np.sqrt(mu[:, None, :] * mu[None, :, :]).sum(-1)
    np.testing.assert_allclose(pe.fisher_rao(torch.tensor(mu)).numpy(), 2 * np.arccos(np.clip(bc, -1, 1)), atol=1e-7)


def test_hellinger_gradient_is_finite_and_matches_finite_differences():
    mu = torch.tensor(random_distributions(4, 5), requires_grad=True)
    assert torch.autograd.gradcheck(lambda m: pe.hellinger(m, validate=False), (mu,))
    zero_mu = torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=torch.float64, requires_grad=True)
    pe.hellinger(zero_mu).sum().backward()
    assert torch.isfinite(zero_mu.grad).all()


# -------------------------------------------------------------------------- positional distributions

def test_positional_distributions_counts_like_a_loop():
    corpus = RNG.integers(0, 6, size=(40, 7))
    corpus[RNG.random(corpus.shape) < 0.1] = -1
    mu = pe.positional_distributions(torch.tensor(corpus), 5, 6, ignore_index=-1)
    for i in range(5):
        column = [t for t in corpus[:, i] if t != -1]
        for v in range(6):
            assert float(mu[i, v]) == pytest.approx(column.count(v) / len(column), abs=1e-15)
    plain = pe.positional_distributions(torch.tensor(np.abs(corpus)), 7, 6)
    np.testing.assert_allclose(plain.sum(-1).numpy(), 1.0, atol=1e-14)
    smooth = pe.positional_distributions(torch.tensor(np.abs(corpus)), 7, 6, smoothing=0.5)
    col = list(np.abs(corpus)[:, 2])
    assert float(smooth[2, 4]) == pytest.approx((col.count(4) + 0.5) / (40 + 3.0), abs=1e-15)


def test_positional_distributions_validation():
    with pytest.raises(ValueError, match="integer"):
        pe.positional_distributions(torch.zeros(3, 4), 4, 2)
    with pytest.raises(ValueError, match=r"\[0, V"):
        pe.positional_distributions(torch.tensor([[0, 5]]), 2, 3)
    with pytest.raises(ValueError, match="no counted token"):
        pe.positional_distributions(torch.tensor([[0, -1], [1, -1]]), 2, 2, ignore_index=-1)
    with pytest.raises(ValueError, match="n must"):
        pe.positional_distributions(torch.tensor([[0, 1]]), 3, 2)


def test_synthetic_corpus_regimes_and_determinism():
    c1 = pe.synthetic_corpus(n=12, V=30, N=400, regimes=3, seed=3)
    c2 = pe.synthetic_corpus(n=12, V=30, N=400, regimes=3, seed=3)
    assert c1.shape == (400, 12) and c1.dtype == torch.int64 and torch.equal(c1, c2)
    mu_true, regime = pe.synthetic_positional_law(12, 30, 3, seed=3)
    assert regime.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    D = pe.hellinger(mu_true).numpy()
    same = [D[i, j] for i in range(12) for j in range(12) if i != j and regime[i] == regime[j]]
    other = [D[i, j] for i in range(12) for j in range(12) if regime[i] != regime[j]]
    assert max(same) < min(other)           # block structure of Figure 1
    emp = pe.positional_distributions(pe.synthetic_corpus(n=12, V=30, N=20000, seed=3), 12, 30)
    assert float((emp - mu_true).abs().max()) < 0.02


# ------------------------------------------------------------------------------------ Gram and MDS

def test_double_centred_gram_equals_eq5_loop_and_matrix_form():
    _, D = euclidean_points(7, 3)
    n = len(D)
    D2 = D ** 2
    loop = np.array([[-0.5 * (D2[i, j] - D2[i].mean() - D2[:, j].mean() + D2.mean()) for j in range(n)]
                     for i in range(n)])
    H = np.eye(n) - np.ones((n, n)) / n
    B = pe.double_centred_gram(torch.tensor(D)).numpy()
    np.testing.assert_allclose(B, loop, atol=1e-12)
    np.testing.assert_allclose(B, -0.5 * H @ D2 @ H, atol=1e-12)


def test_classical_mds_recovers_euclidean_distances_and_coordinates():
    X, D = euclidean_points(10, 3)
    for d in (3, 5, 10):
        P = pe.classical_mds(torch.tensor(D), d)
        assert P.shape == (10, d)
        np.testing.assert_allclose(dist_loop(P.numpy()), D, atol=1e-10)
        assert float(pe.stress(P, torch.tensor(D))) < 1e-20
    P3 = pe.classical_mds(torch.tensor(D), 3).numpy()
    Xc = X - X.mean(0)
    R, _ = scipy.linalg.orthogonal_procrustes(P3, Xc)
    np.testing.assert_allclose(P3 @ R, Xc, atol=1e-10)


def test_classical_mds_truncation_matches_independent_numpy_eigh():
    mu = random_distributions(12, 20)
    D = hellinger_loop(mu)
    n = len(D)
    H = np.eye(n) - np.ones((n, n)) / n
    lam, U = np.linalg.eigh(-0.5 * H @ (D ** 2) @ H)
    lam, U = lam[::-1], U[:, ::-1]
    for d, rank in ((2, None), (4, None), (6, 3)):
        r = d if rank is None else rank
        ref = U[:, :r] * np.sqrt(np.maximum(lam[:r], 0))
        P = pe.classical_mds(torch.tensor(D), d, rank=rank).numpy()
        assert P.shape == (n, d) and np.all(P[:, r:] == 0)
        np.testing.assert_allclose(dist_loop(P), dist_loop(ref), atol=1e-10)
    # Hellinger is Euclidean (chord of sqrt(mu)): B is PSD, full-rank MDS is an exact isometry.
    assert lam.min() > -1e-12
    assert float(pe.stress(pe.classical_mds(torch.tensor(D), n), torch.tensor(D))) < 1e-20
    assert float(pe.stress(pe.classical_mds(torch.tensor(D), 2), torch.tensor(D))) <= 1.0


def test_wrong_centering_planted_error_gives_wrong_distances():
    _, D = euclidean_points(8, 3)
    n = len(D)
    H = np.eye(n) - np.ones((n, n)) / n
    B_wrong = -0.5 * (D ** 2) @ H                      # planted: centring on one side only
    lam, U = np.linalg.eigh(0.5 * (B_wrong + B_wrong.T))
    wrong = U[:, ::-1][:, :3] * np.sqrt(np.maximum(lam[::-1][:3], 0))
    assert np.abs(dist_loop(wrong) - D).max() > 1e-2
    P = pe.classical_mds(torch.tensor(D), 3).numpy()
    assert np.abs(dist_loop(P) - D).max() < 1e-10


def test_classical_mds_squared_input_batch_and_validation():
    Ds = np.stack([euclidean_points(6, 2)[1] for _ in range(2)])
    Pb = pe.classical_mds(torch.tensor(Ds), 2)
    for b in range(2):
        np.testing.assert_allclose(dist_loop(Pb[b].numpy()), Ds[b], atol=1e-10)
        np.testing.assert_allclose(dist_loop(pe.classical_mds(torch.tensor(Ds[b] ** 2), 2, squared=True).numpy()),
                                   Ds[b], atol=1e-10)
    with pytest.raises(ValueError, match="symmetric"):
        pe.classical_mds(torch.tensor([[0.0, 1.0], [2.0, 0.0]]), 1)
    with pytest.raises(ValueError, match=r"\(\.\.\., n, n\)"):
        pe.classical_mds(torch.ones(3, 4), 2)
    with pytest.raises(ValueError, match="positive integer"):
        pe.classical_mds(torch.zeros(3, 3), 0)


def test_explained_variance_matches_numpy():
    D = hellinger_loop(random_distributions(8, 10))
    n = len(D)
    H = np.eye(n) - np.ones((n, n)) / n
    lam = np.maximum(np.linalg.eigvalsh(-0.5 * H @ D ** 2 @ H)[::-1], 0)
    np.testing.assert_allclose(pe.explained_variance(torch.tensor(D)).numpy(), np.cumsum(lam) / lam.sum(), atol=1e-12)


def test_low_rank_factor_full_rank_and_eckart_young():
    P = RNG.normal(size=(9, 6))
    A, B = pe.low_rank_factor(torch.tensor(P), 6)
    assert A.shape == (9, 6) and B.shape == (6, 6)
    np.testing.assert_allclose((A @ B.T).numpy(), P, atol=1e-12)
    U, S, Vt = np.linalg.svd(P)
    A2, B2 = pe.low_rank_factor(torch.tensor(P), 2)
    np.testing.assert_allclose((A2 @ B2.T).numpy(), (U[:, :2] * S[:2]) @ Vt[:2], atol=1e-12)
    with pytest.raises(ValueError):
        pe.low_rank_factor(torch.tensor(P), 7)


# ----------------------------------------------------------------------------------------- stress

def test_stress_matches_hand_loop_raw_and_normalised():
    P = RNG.normal(size=(7, 3))
    D = hellinger_loop(random_distributions(7, 9))
    s = pe.stress(torch.tensor(P), torch.tensor(D))
    assert s.shape == () and float(s) == pytest.approx(stress_loop(P, D), rel=1e-12)
    raw = pe.stress(torch.tensor(P), torch.tensor(D), normalized=False)
    den = sum(D[i, j] ** 2 for i in range(7) for j in range(i + 1, 7))
    assert float(raw) == pytest.approx(stress_loop(P, D) * den, rel=1e-12)
    assert float(pe.stress(torch.zeros(7, 3, dtype=torch.float64), torch.tensor(D))) == pytest.approx(1.0)
    # A planted error (squared distances in the numerator) gives another number.
    E = dist_loop(P)
    planted = sum((E[i, j] ** 2 - D[i, j] ** 2) ** 2 for i in range(7) for j in range(i + 1, 7)) / den
    assert abs(planted - float(s)) > 1e-3
    with pytest.raises(ValueError, match="match D"):
        pe.stress(torch.tensor(P[:5]), torch.tensor(D))
    with pytest.raises(ValueError, match="undefined"):
        pe.stress(torch.tensor(P), torch.zeros(7, 7, dtype=torch.float64))


def test_stress_is_differentiable():
    P = torch.tensor(RNG.normal(size=(5, 2)), requires_grad=True)
    D = torch.tensor(hellinger_loop(random_distributions(5, 6)))
    assert torch.autograd.gradcheck(lambda p: pe.stress(p, D), (P,))


def test_information_optimal_encoding_end_to_end():
    corpus = pe.synthetic_corpus(n=10, V=20, N=300, seed=1)
    P, s = pe.information_optimal_encoding(corpus, 10, 20, 4)
    D = hellinger_loop(pe.positional_distributions(corpus, 10, 20).numpy())
    assert float(s) == pytest.approx(stress_loop(P.numpy(), D), rel=1e-10)


# ----------------------------------------------------------------------------------------- SMACOF

def test_guttman_transform_matches_loop():
    X = RNG.normal(size=(5, 2))
    D = hellinger_loop(random_distributions(5, 6))
    E = dist_loop(X)
    n = 5
    Bm = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                Bm[i, j] = -D[i, j] / E[i, j]
        Bm[i, i] = -sum(Bm[i, j] for j in range(n) if j != i)
    np.testing.assert_allclose(pe.guttman_transform(torch.tensor(X), torch.tensor(D)).numpy(), Bm @ X / n, atol=1e-12)


def test_smacof_monotone_and_not_worse_than_mds():
    corpus = pe.synthetic_corpus(n=16, V=40, N=500, seed=2)
    D = pe.hellinger(pe.positional_distributions(corpus, 16, 40))
    for d in (1, 2, 3):
        mds_stress = float(pe.stress(pe.classical_mds(D, d), D))
        res = pe.smacof(D, d, max_iter=200)
        steps = res.history[1:] - res.history[:-1]
        assert float(steps.max()) <= 1e-13
        assert float(res.stress) <= mds_stress + 1e-12
        assert float(res.stress) == pytest.approx(stress_loop(res.P.numpy(), D.numpy()), rel=1e-10)
    rnd = pe.smacof(D, 2, init="random", generator=torch.Generator().manual_seed(0), max_iter=100)
    assert float((rnd.history[1:] - rnd.history[:-1]).max()) <= 1e-13
    with pytest.raises(ValueError, match="init"):
        pe.smacof(D, 2, init="bogus")


# ----------------------------------------------------------------------------------- monotonicity

def violation_loop(P, R):
    E = dist_loop(P)
    n = len(P)
    viol = total = 0
    for i, j, k in itertools.product(range(n), repeat=3):
        if j != i and R[i][j] < R[i][k]:
            total += 1
            viol += E[i, j] > E[i, k]
    return viol / total


def test_monotonicity_violation_rate_matches_triple_loop():
    P = RNG.normal(size=(8, 3))
    R = [[abs(i - j) for j in range(8)] for i in range(8)]
    assert float(pe.monotonicity_violation_rate(torch.tensor(P))) == pytest.approx(violation_loop(P, R), abs=1e-15)
    H = hellinger_loop(random_distributions(8, 5))
    assert float(pe.monotonicity_violation_rate(torch.tensor(P), reference=torch.tensor(H))) == \
        pytest.approx(violation_loop(P, H), abs=1e-15)
    line = torch.arange(8, dtype=torch.float64)[:, None]
    assert float(pe.monotonicity_violation_rate(line)) == 0.0
    assert float(pe.monotonicity_violation_rate(line, positions=-torch.arange(8.0))) == 0.0
    assert float(pe.monotonicity_violation_rate(line, positions=torch.arange(8.0) ** 0.5 * (-1) ** torch.arange(8.0))) > 0
    rates = pe.monotonicity_violation_rate(torch.randn(200, 12, 4, generator=torch.Generator().manual_seed(0),
                                                       dtype=torch.float64))
    assert abs(float(rates.mean()) - 0.5) < 0.02   # the paper's random baseline of ~50%


# -------------------------------------------------------------------------------------- baselines

def test_sinusoidal_matches_loop_and_planted_layout_differs():
    n, d = 6, 8
    P = pe.sinusoidal(n, d)
    loop = np.zeros((n, d))
    for i in range(n):
        for k in range(d // 2):
            w = 10000.0 ** (-2 * k / d)
            loop[i, 2 * k] = math.sin(w * i)
            loop[i, 2 * k + 1] = math.cos(w * i)
    np.testing.assert_allclose(P.numpy(), loop, atol=1e-15)
    concatenated = np.concatenate([loop[:, 0::2], loop[:, 1::2]], axis=1)   # planted: non-interleaved layout
    assert np.abs(P.numpy() - concatenated).max() > 0.1
    with pytest.raises(ValueError, match="even"):
        pe.sinusoidal(4, 5)
    assert pe.sinusoidal(3, 4, dtype=torch.float32).dtype == torch.float32


def test_rope_encoding_matches_rotation_loop_and_sinusoidal_distances():
    n, d = 5, 6
    x = RNG.normal(size=d)
    P = pe.rope_encoding(n, d, x=torch.tensor(x)).numpy()
    for i in range(n):
        for k in range(d // 2):
            a = i * 10000.0 ** (-2 * k / d)
            rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            np.testing.assert_allclose(P[i, 2 * k:2 * k + 2], rot @ x[2 * k:2 * k + 2], atol=1e-14)
    default = pe.rope_encoding(n, d).numpy()
    np.testing.assert_allclose(dist_loop(default), dist_loop(pe.sinusoidal(n, d).numpy()), atol=1e-13)


def test_alibi_and_random_baselines():
    np.testing.assert_allclose(pe.alibi_slopes(8).numpy(), [2.0 ** (-k) for k in range(1, 9)])
    assert pe.alibi_slopes(6).tolist() == pytest.approx([2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3])
    P = pe.alibi_encoding(5, slope=0.25, d=3)
    D = pe.alibi_distances(5, 0.25)
    np.testing.assert_allclose(dist_loop(P.numpy()), [[0.25 * abs(i - j) for j in range(5)] for i in range(5)], atol=1e-15)
    torch.testing.assert_close(pe.pairwise_distances(P), D)
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    R1 = pe.random_encoding(40, 30, std=2.0, generator=g1)
    torch.testing.assert_close(R1, 2.0 * torch.randn(40, 30, generator=g2, dtype=torch.float64))
