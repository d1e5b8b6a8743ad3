"""Tests of pyverify.attention.rotations against independent oracles: scipy.linalg.expm, hand-written
per-element loops in numpy, extended-precision closed forms and brute-force minimisation."""

import math

import numpy as np
import pytest
import scipy.linalg as sla
from scipy.optimize import minimize_scalar
import torch

from pyverify.attention import rotations as rot

F64 = torch.float64


# ----------------------------------------------------------------------------- numpy oracles

def np_orthogonal(d, rng):
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def np_block(freq_row, d):
    """⊕_u f_u J ⊕ 0 built entry by entry."""
    D = np.zeros((d, d))
    for u, f in enumerate(freq_row):
        D[2 * u, 2 * u + 1] = -f
        D[2 * u + 1, 2 * u] = f
    return D


def np_generators(U, freqs):
    return np.stack([U @ np_block(freqs[k], U.shape[0]) @ U.T for k in range(freqs.shape[0])])


def np_expm_apply(L, r, x):
    """R_STR(r_i) x_i for every token by scipy's matrix exponential.  r (n, d_c), x (n, d)."""
    return np.stack([sla.expm(np.einsum("k,kij->ij", r[i], L)) @ x[i] for i in range(len(x))])


def np_cayley(S):
    eye = np.eye(S.shape[-1])
    return (eye - S) @ np.linalg.inv(eye + S)


def t(a):
    return torch.as_tensor(np.asarray(a), dtype=F64)


@pytest.fixture
def family():
    """A commuting family with a null block: d = 8, d_c = 3, m = 3 (d_null = 2)."""
    rng = np.random.default_rng(0)
    U = np_orthogonal(8, rng)
    freqs = rng.uniform(-2, 2, size=(3, 3))
    return U, freqs, np_generators(U, freqs), rng


# ----------------------------------------------------------------------------- generators

def test_commuting_generators_match_entrywise_construction(family):
    U, freqs, L_np, _ = family
    L = rot.commuting_generators(t(U), t(freqs))
    assert L.shape == (3, 8, 8) and L.dtype == F64
    np.testing.assert_allclose(L.numpy(), L_np, atol=1e-14)
    np.testing.assert_allclose(L.numpy(), -L.mT.numpy(), atol=1e-14)
    assert rot.commutator_norms(L).max() < 1e-13


def test_commuting_generators_planted_sign_error_is_caught(family):
    U, freqs, L_np, _ = family
    wrong = rot.commuting_generators(t(U), t(freqs)).mT  # J^T instead of J
    assert np.abs(wrong.numpy() - L_np).max() > 0.5


def test_commutator_norms_match_loop_and_detect_free_generators():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((3, 5, 5))
    L = rot.free_generators(t(M))
    Ln = (M - M.transpose(0, 2, 1)) / 2
    expected = np.array([[np.linalg.norm(Ln[a] @ Ln[b] - Ln[b] @ Ln[a], 2) for b in range(3)] for a in range(3)])
    np.testing.assert_allclose(rot.commutator_norms(L).numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(rot.commutator_norms(L, ord="fro").numpy(),
                               [[np.linalg.norm(Ln[a] @ Ln[b] - Ln[b] @ Ln[a]) for b in range(3)] for a in range(3)],
                               atol=1e-12)
    assert expected.max() > 0.1


def test_generator_combination_batched_and_shared(family):
    U, freqs, L_np, rng = family
    r = rng.standard_normal((4, 2, 3))
    expected = np.einsum("abk,kij->abij", r, L_np)
    np.testing.assert_allclose(rot.A(t(L_np), t(r)).numpy(), expected, atol=1e-13)
    L_batched = t(L_np).expand(4, 2, 3, 8, 8)
    np.testing.assert_allclose(rot.generator_combination(L_batched, t(r)).numpy(), expected, atol=1e-13)


# ----------------------------------------------------------------------------- R_STR and the fast path

def test_rstr_and_closed_form_equal_scipy_expm(family):
    U, freqs, L_np, rng = family
    r = rng.standard_normal((5, 3))
    expected = np.stack([sla.expm(np.einsum("k,kij->ij", ri, L_np)) for ri in r])
    np.testing.assert_allclose(rot.rstr(t(L_np), t(r)).numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(rot.rstr_closed_form(t(U), t(freqs), t(r)).numpy(), expected, atol=1e-12)


@pytest.mark.parametrize("with_basis", [True, False])
def test_fast_path_equals_scipy_expm_definition(with_basis):
    rng = np.random.default_rng(2)
    d, d_c, m, n = 9, 2, 4, 6
    U = np_orthogonal(d, rng) if with_basis else np.eye(d)
    freqs = rng.uniform(-1, 1, (d_c, m))
    x, r = rng.standard_normal((2, n, d)), 3 * rng.standard_normal((2, n, d_c))
    expected = np.stack([np_expm_apply(np_generators(U, freqs), r[b], x[b]) for b in range(2)])
    got = rot.rstr_apply(t(x), t(r), t(U) if with_basis else None, t(freqs))
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-12)
    back = rot.rstr_apply(got, t(r), t(U) if with_basis else None, t(freqs), inverse=True)
    np.testing.assert_allclose(back.numpy(), x, atol=1e-12)


def test_fast_path_error_growth_with_norm_and_dtype(capsys):
    """Error of the fast path and of the dense matrix exponential against an extended-precision closed form,
    as |r| grows, in float32 and float64.  Both grow linearly in max|theta| (argument rounding); the
    assertions bound them by c * eps * (1 + max|theta|) and check that the growth is visible in float32."""
    rng = np.random.default_rng(3)
    d, d_c, m, n = 12, 2, 6, 16
    U0, f0 = np_orthogonal(d, rng), rng.uniform(0.1, 1, (d_c, m))
    x0, dirs = rng.standard_normal((n, d)), rng.standard_normal((n, d_c))
    ld = np.longdouble
    rows, errs = [], {}
    for dtype in (torch.float32, torch.float64):
        eps = torch.finfo(dtype).eps
        for scale in (1.0, 10.0, 100.0, 1e3, 1e4):
            U, f, x, r = (torch.as_tensor(a * s, dtype=dtype) for a, s in ((U0, 1), (f0, 1), (x0, 1), (dirs, scale)))
            # ground truth: the rounded inputs, closed form (T2.7) evaluated in long double
            Ul, fl, xl, rl = (a.double().numpy().astype(ld) for a in (U, f, x, r))
            theta = rl @ fl
            c = xl @ Ul
            y = c.copy()
            y[:, 0:2 * m:2] = np.cos(theta) * c[:, 0:2 * m:2] - np.sin(theta) * c[:, 1:2 * m:2]
            y[:, 1:2 * m:2] = np.sin(theta) * c[:, 0:2 * m:2] + np.cos(theta) * c[:, 1:2 * m:2]
            truth = (y @ Ul.T).astype(np.float64)
            fast = rot.rstr_apply(x, r, U, f).double().numpy()
            L = rot.commuting_generators(U, f, check_orthogonal=False)
            dense = (torch.linalg.matrix_exp(rot.A(L, r)) @ x[..., None])[..., 0].double().numpy()
            tmax = float(np.abs(theta).max())
            e_fast, e_dense = np.abs(fast - truth).max(), np.abs(dense - truth).max()
            errs[dtype, scale] = e_fast
            rows.append(f"{str(dtype):14s} |r|~{scale:8.0f} max|theta|={tmax:9.1f}  "
                        f"fast={e_fast:9.2e} ({e_fast / eps / (1 + tmax):5.2f} eps(1+t))  "
                        f"dense={e_dense:9.2e} ({e_dense / eps / (1 + tmax):5.2f} eps(1+t))")
            assert e_fast <= 8 * eps * (1 + tmax) * np.abs(x0).max(), rows[-1]
            assert e_dense <= 64 * eps * (1 + tmax) * np.abs(x0).max(), rows[-1]
    with capsys.disabled():
        print("\n" + "\n".join(rows))
    assert errs[torch.float32, 1e4] > 100 * errs[torch.float32, 1.0]
    assert errs[torch.float64, 1e4] < 1e-8 < errs[torch.float32, 1e4]


def test_relative_law_holds_for_commuting_and_fails_otherwise(family):
    U, freqs, L_np, rng = family
    L = t(L_np)
    ri, rj = t(rng.standard_normal((4, 3))), t(rng.standard_normal((4, 3)))
    lhs = rot.rstr(L, ri).mT @ rot.rstr(L, rj)
    np.testing.assert_allclose(lhs.numpy(), rot.rstr(L, rj - ri).numpy(), atol=1e-12)
    # planted convention error: r_i - r_j instead of r_j - r_i
    assert (lhs - rot.rstr(L, ri - rj)).abs().max() > 0.1
    free = rot.free_generators(t(rng.standard_normal((3, 7, 7))))
    lhs_free = rot.rstr(free, ri).mT @ rot.rstr(free, rj)
    assert (lhs_free - rot.rstr(free, rj - ri)).abs().max() > 1e-2


def test_rope_equals_per_pair_loop_and_rstr_special_case():
    rng = np.random.default_rng(4)
    n, d, base = 5, 8, 500.0
    x, pos = rng.standard_normal((2, n, d)), rng.integers(0, 50, size=(2, n)).astype(float)
    expected = np.empty_like(x)
    for b in range(2):
        for i in range(n):
            for p in range(d // 2):
                ang = pos[b, i] * base ** (-2 * p / d)
                a, c = x[b, i, 2 * p], x[b, i, 2 * p + 1]
                expected[b, i, 2 * p] = math.cos(ang) * a - math.sin(ang) * c
                expected[b, i, 2 * p + 1] = math.sin(ang) * a + math.cos(ang) * c
    got = rot.rope(t(x), t(pos), theta=base)
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-12)
    # RoPE is R_STR with U = I, d_c = 1 (checked against scipy's expm, not against rope itself)
    freqs = rot.rope_frequencies(d, base)[None]
    L = np_generators(np.eye(d), freqs.numpy())
    np.testing.assert_allclose(np_expm_apply(L, pos[0][:, None], x[0]), expected[0], atol=1e-11)
    # planted errors: the opposite rotation sense and the "half" pairing both disagree with the loop
    assert np.abs(rot.rope(t(x), -t(pos), theta=base).numpy() - expected).max() > 0.1
    half = np.concatenate([x[..., 0::2], x[..., 1::2]], -1)
    assert np.abs(rot.rope(t(half), t(pos), theta=base).numpy() - expected).max() > 0.1


def test_dtype_and_input_validation():
    x32 = torch.randn(3, 4)
    assert rot.rope(x32, torch.arange(3)).dtype == torch.float32
    assert rot.rope(np.ones((3, 4)), np.arange(3)).dtype == F64
    with pytest.raises(ValueError, match="even"):
        rot.rope(torch.randn(3, 5), torch.arange(3))
    with pytest.raises(ValueError, match="2m <= d"):
        rot.commuting_generators(torch.eye(4), torch.ones(2, 3))
    with pytest.raises(ValueError, match="orthogonal"):
        rot.commuting_generators(2 * torch.eye(4), torch.ones(2, 2))
    with pytest.raises(ValueError, match="disagree"):
        rot.rstr(torch.zeros(2, 4, 4), torch.ones(3))
    with pytest.raises(ValueError, match=r"\(\.\.\., d, d\)"):
        rot.cayley(torch.zeros(3, 4))
    with pytest.raises(ValueError, match="convention"):
        rot.rsp(torch.zeros(1, 2, 2), torch.ones(1), torch.eye(2), convention="left")


# ----------------------------------------------------------------------------- projectors and block structure

def test_projectors(family):
    U, freqs, L_np, rng = family
    Pa, Pn = rot.Pi_act(t(U), 3), rot.Pi_null(t(U), 3)
    np.testing.assert_allclose(Pa.numpy(), U[:, :6] @ U[:, :6].T, atol=1e-14)
    np.testing.assert_allclose((Pa + Pn).numpy(), np.eye(8), atol=1e-14)
    np.testing.assert_allclose((Pa @ Pa).numpy(), Pa.numpy(), atol=1e-14)
    np.testing.assert_allclose((Pa @ Pn).numpy(), 0, atol=1e-14)
    assert round(torch.trace(Pa).item()) == 6
    R = rot.rstr(t(L_np), t(rng.standard_normal(3)))
    np.testing.assert_allclose((R @ Pa).numpy(), (Pa @ R).numpy(), atol=1e-13)  # T2.11
    np.testing.assert_allclose(rot.Pi_act_from_generators(t(L_np)).numpy(), Pa.numpy(), atol=1e-12)


def test_joint_block_decomposition_recovers_structure(family):
    U, freqs, L_np, _ = family
    V, lam = rot.joint_block_decomposition(t(L_np))
    assert lam.shape == (3, 3)
    np.testing.assert_allclose((V.mT @ V).numpy(), np.eye(8), atol=1e-12)
    rebuilt = np_generators(V.numpy(), lam.numpy())
    np.testing.assert_allclose(rebuilt, L_np, atol=1e-10)
    np.testing.assert_allclose(rot.Pi_act(V, 3).numpy(), U[:, :6] @ U[:, :6].T, atol=1e-10)
    # the plane frequency vectors beta_u agree up to order and sign
    key = lambda B: sorted(tuple(np.round(np.abs(B[:, u]), 8)) for u in range(B.shape[1]))  # noqa: E731
    assert key(lam.numpy()) == key(freqs)
    # a non-commuting family is not block-diagonalised by the basis found
    free = rot.free_generators(t(np.random.default_rng(5).standard_normal((3, 6, 6))))
    V2, lam2 = rot.joint_block_decomposition(free)
    assert np.abs(np_generators(V2.numpy(), lam2.numpy()) - free.numpy()).max() > 1e-2


def test_joint_eigenbasis_diagonalises_against_numpy_eigenvalues(family):
    _, _, L_np, _ = family
    Uc = rot.joint_eigenbasis(t(L_np)).numpy()
    np.testing.assert_allclose(Uc.conj().T @ Uc, np.eye(8), atol=1e-12)
    for Lk in L_np:
        D = Uc.conj().T @ Lk @ Uc
        np.testing.assert_allclose(D - np.diag(np.diag(D)), 0, atol=1e-10)
        np.testing.assert_allclose(np.diag(D).real, 0, atol=1e-10)
        # the same spectrum as numpy's eigenvalue routine (an independent oracle), as multisets
        np.testing.assert_allclose(np.sort_complex(np.round(np.diag(D), 8)), np.sort_complex(np.round(np.linalg.eigvals(Lk), 8)), atol=1e-7)
        # each column is an eigenvector: L u = (i lambda) u
        np.testing.assert_allclose(Lk @ Uc, Uc * np.diag(D), atol=1e-10)


# ----------------------------------------------------------------------------- Cayley and the structured family

def test_cayley_is_orthogonal_and_matches_inverse_formula():
    rng = np.random.default_rng(6)
    M = 0.3 * rng.standard_normal((4, 6, 6))
    S = (M - M.transpose(0, 2, 1)) / 2
    P = rot.cayley(t(S))
    np.testing.assert_allclose(P.numpy(), np.stack([np_cayley(s) for s in S]), atol=1e-13)
    np.testing.assert_allclose((P.mT @ P).numpy(), np.broadcast_to(np.eye(6), (4, 6, 6)), atol=1e-13)
    np.testing.assert_allclose(torch.linalg.det(P).numpy(), 1.0, atol=1e-12)
    np.testing.assert_allclose(rot.cayley(P).numpy(), S, atol=1e-12)  # T3.3: the transform is an involution
    E = 0.2 * rng.standard_normal((6, 6))  # not skew: still the same formula (T5.4 setting)
    np.testing.assert_allclose(rot.cayley(t(E)).numpy(), np_cayley(E), atol=1e-13)
    # planted error: (I + S)(I - S)^{-1} is the inverse, not P
    assert np.abs(np.linalg.inv(np_cayley(S[0])) - P[0].numpy()).max() > 1e-2


def test_structured_family_membership_distance_and_projection(family):
    U, freqs, L_np, rng = family
    U5 = t(np_orthogonal(7, rng))
    m = 2  # d_null = 3
    P = rot.structured_post_rotation(U5, m, t(rng.standard_normal((3, 3))))
    Pa = rot.Pi_act(U5, m)
    np.testing.assert_allclose((P.mT @ P).numpy(), np.eye(7), atol=1e-13)
    np.testing.assert_allclose((Pa @ P @ Pa).numpy(), Pa.numpy(), atol=1e-13)  # T3.6
    assert rot.distance_to_structured(P, U5, m) < 1e-7
    assert rot.mixing(P, U5, m) < 1e-13
    Pc = rot.structured_post_rotation(U5, m, t(0.5 * rng.standard_normal((3, 3))), param="cayley")
    assert rot.distance_to_structured(Pc, U5, m) < 1e-7
    free = rot.cayley(rot.skew(t(rng.standard_normal((7, 7)))))
    dist = rot.distance_to_structured(free, U5, m)
    proj = rot.project_to_structured(free, U5, m)
    assert dist > 0.5
    np.testing.assert_allclose(torch.linalg.matrix_norm(free - proj).item(), dist.item(), rtol=1e-10)
    assert rot.distance_to_structured(proj, U5, m) < 1e-7
    for _ in range(200):  # no random member of 𝒜 is closer than the projection
        other = rot.structured_post_rotation(U5, m, t(rng.standard_normal((3, 3))))
        assert torch.linalg.matrix_norm(free - other) >= dist - 1e-12
    Q = U5.mT @ free @ U5
    B, C = Q[:4, 4:].numpy(), Q[4:, :4].numpy()
    np.testing.assert_allclose(rot.mixing(free, U5, m).item(), np.linalg.norm(B, 2) + np.linalg.norm(C, 2), rtol=1e-12)
    np.testing.assert_allclose(rot.mixing(free, U5, m, kind="max").item(),
                               max(np.linalg.norm(B, 2), np.linalg.norm(C, 2)), rtol=1e-12)


def test_distance_to_structured_brute_force_in_so2():
    """d_null = 2: 𝒜 is a circle; minimise over a fine angle grid, then refine (independent oracle)."""
    rng = np.random.default_rng(7)
    U, m = np_orthogonal(6, rng), 2
    P = np_cayley((lambda M: (M - M.T) / 2)(rng.standard_normal((6, 6))))
    for P_test in (P, P @ np.diag([1, 1, 1, 1, 1, -1.0])):  # an SO and an improper orthogonal matrix

        def dist(phi):
            Rn = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
            return np.linalg.norm(P_test - U @ sla.block_diag(np.eye(4), Rn) @ U.T)

        grid = np.linspace(-np.pi, np.pi, 4001)
        c, s = np.cos(grid)[:, None, None], np.sin(grid)[:, None, None]
        Un = U[:, 4:]
        Rg = np.concatenate([np.concatenate([c, -s], 2), np.concatenate([s, c], 2)], 1)  # (g, 2, 2)
        X = U[:, :4] @ U[:, :4].T + Un @ Rg @ Un.T
        phi0 = grid[np.argmin(np.linalg.norm(P_test - X, axis=(1, 2)))]
        step = grid[1] - grid[0]
        best = minimize_scalar(dist, bounds=(phi0 - 2 * step, phi0 + 2 * step), method="bounded",
                               options={"xatol": 1e-12}).fun
        np.testing.assert_allclose(rot.distance_to_structured(t(P_test), t(U), m).item(), best, rtol=1e-9)
    # d_null = 1: SO(1) = {1}, so 𝒜 = {I}
    U7 = np_orthogonal(7, rng)
    P7 = np_cayley((lambda M: (M - M.T) / 2)(rng.standard_normal((7, 7))))
    np.testing.assert_allclose(rot.distance_to_structured(t(P7), t(U7), 3).item(), np.linalg.norm(P7 - np.eye(7)),
                               rtol=1e-12)


def test_rsp_conventions_and_theorem1_logits(family):
    U, freqs, L_np, rng = family
    L, Ut, m = t(L_np), t(U), 3
    Pa = rot.Pi_act(Ut, m)
    P_struct = rot.structured_post_rotation(Ut, m, t(rng.standard_normal((2, 2))))
    assert (P_struct - torch.eye(8, dtype=F64)).abs().max() > 0.1
    r = t(rng.standard_normal(3))
    R = rot.rstr(L, r)
    P_free = rot.cayley(rot.skew(t(rng.standard_normal((8, 8)))))
    np.testing.assert_allclose(rot.rsp(L, r, P_free).numpy(), (R @ P_free).numpy(), atol=1e-13)
    np.testing.assert_allclose(rot.rsp(L, r, P_free, convention="conjugate").numpy(),
                               (P_free @ R @ P_free.mT).numpy(), atol=1e-13)
    # logits against a per-entry numpy loop with scipy expm (T4.3-T4.4), free P
    n = 4
    q, k = rng.standard_normal((n, 8)), rng.standard_normal((n, 8))
    rq, rk = rng.standard_normal((n, 3)), rng.standard_normal((n, 3))
    Pn, Pan = P_free.numpy(), Pa.numpy()
    Rs = lambda ri: sla.expm(np.einsum("k,kij->ij", ri, L_np)) @ Pn  # noqa: E731
    expected = np.array([[(Pan @ Rs(rq[i]) @ Pan @ q[i]) @ (Pan @ Rs(rk[j]) @ Pan @ k[j]) / np.sqrt(6)
                          for j in range(n)] for i in range(n)])
    got = rot.espr_logits(t(q), t(k), t(rq), t(rk), L, P=P_free, Pi=Pa)
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-12)
    # Theorem 1 / T4.5: with P in 𝒜 the logit is q^T Pi R_STR(r_j - r_i) Pi k / sqrt(2m)
    thm = np.array([[q[i] @ Pan @ sla.expm(np.einsum("k,kij->ij", rk[j] - rq[i], L_np)) @ Pan @ k[j] / np.sqrt(6)
                     for j in range(n)] for i in range(n)])
    np.testing.assert_allclose(rot.espr_logits(t(q), t(k), t(rq), t(rk), L, P=P_struct, Pi=Pa).numpy(), thm,
                               atol=1e-12)
    assert np.abs(got.numpy() - thm).max() > 1e-2  # a free post-rotation breaks the Theorem-1 form
    # defects (integrand of IR_spec): zero for commuting + 𝒜, positive otherwise
    delta = t(rng.standard_normal(3))
    assert rot.relative_defect(L, r, delta, P=P_struct, Pi=Pa) < 1e-12
    assert rot.relative_defect(L, r, delta, P=P_free, Pi=Pa) > 1e-2
    assert rot.relative_defect(L, r, delta, P=P_struct, Pi=Pa, convention="conjugate") < 1e-12
    assert rot.relative_defect(L, r, delta, P=P_free, Pi=Pa, convention="conjugate") > 1e-2


# ----------------------------------------------------------------------------- gradients

def test_gradients_finite_and_correct():
    rng = np.random.default_rng(8)
    U = t(np_orthogonal(5, rng))
    x = t(rng.standard_normal((3, 5))).requires_grad_()
    r = t(rng.standard_normal((3, 2))).requires_grad_()
    f = t(rng.standard_normal((2, 2))).requires_grad_()
    torch.autograd.gradcheck(lambda x, r, f: rot.rstr_apply(x, r, U, f), (x, r, f))
    S = t(0.3 * rng.standard_normal((4, 4))).requires_grad_()
    torch.autograd.gradcheck(rot.cayley, (S,))
    torch.autograd.gradcheck(lambda f: rot.rstr(rot.commuting_generators(U, f), r.detach()), (f,))
    torch.autograd.gradcheck(lambda x, p: rot.rope(x, p), (x[:, :4].detach().requires_grad_(), r[:, 0]))
    P = rot.cayley(rot.skew(t(rng.standard_normal((5, 5))))).requires_grad_()
    torch.autograd.gradcheck(lambda P: rot.distance_to_structured(P, U, 1), (P,))
    g, = torch.autograd.grad(rot.mixing(P, U, 1).sum(), P)
    assert torch.isfinite(g).all()
