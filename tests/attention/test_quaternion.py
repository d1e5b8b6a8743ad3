"""Tests of pyverify.attention.quaternion against independent oracles.

Oracles: the Hamilton multiplication table of the basis units written out by hand, scipy's Rotation
(scalar-LAST quaternions, rotation vectors), the definitional 2 arccos|<q,k>|, rotation angles from the
trace of a rotation matrix, per-element loops for attention and truncation.
"""

import math

import numpy as np
import pytest
import torch
from scipy.spatial.transform import Rotation

from pyverify.attention import quaternion as qt


def gen(seed):
    return torch.Generator().manual_seed(seed)


def rand_q(*shape, seed=0):
    return qt.random_unit_quaternions(*shape, generator=gen(seed))


# Hamilton table: UNIT[(a, b)] = (sign, c) means e_a e_b = sign * e_c, with e_0 = 1, e_1 = i, e_2 = j, e_3 = k.
UNIT = {(0, b): (1, b) for b in range(4)}
UNIT.update({(a, 0): (1, a) for a in range(1, 4)})
UNIT.update({(1, 1): (-1, 0), (2, 2): (-1, 0), (3, 3): (-1, 0),
             (1, 2): (1, 3), (2, 3): (1, 1), (3, 1): (1, 2),
             (2, 1): (-1, 3), (3, 2): (-1, 1), (1, 3): (-1, 2)})


def hamilton_table(a, b):
    """Oracle: expand both factors in the basis and multiply unit by unit."""
    out = [0.0] * 4
    for i in range(4):
        for j in range(4):
            sign, c = UNIT[(i, j)]
            out[c] += sign * a[i] * b[j]
    return out


def scipy_rotation(q):
    """scipy uses (x, y, z, w)."""
    q = np.asarray(q)
    return Rotation.from_quat(np.concatenate([q[..., 1:], q[..., :1]], axis=-1))


def angle_from_matrix(M):
    """Rotation angle in [0, pi]: cos = (tr - 1)/2, sin = |axial vector of M - M^T| / 2."""
    axial = np.stack([M[..., 2, 1] - M[..., 1, 2], M[..., 0, 2] - M[..., 2, 0], M[..., 1, 0] - M[..., 0, 1]], -1)
    return np.arctan2(np.linalg.norm(axial, axis=-1) / 2, (np.trace(M, axis1=-2, axis2=-1) - 1) / 2)


# ----------------------------------------------------------------------------- algebra

def test_qmul_matches_hamilton_table():
    g = gen(1)
    a = torch.randn(20, 4, dtype=torch.float64, generator=g)
    b = torch.randn(20, 4, dtype=torch.float64, generator=g)
    prod = qt.qmul(a, b).numpy()
    for r in range(20):
        np.testing.assert_allclose(prod[r], hamilton_table(a[r].tolist(), b[r].tolist()), rtol=1e-13, atol=1e-14)


def test_qmul_associative_and_norm_multiplicative():
    g = gen(2)
    a, b, c = (torch.randn(3, 5, 4, dtype=torch.float64, generator=g) for _ in range(3))
    torch.testing.assert_close(qt.qmul(qt.qmul(a, b), c), qt.qmul(a, qt.qmul(b, c)), rtol=1e-13, atol=1e-13)
    torch.testing.assert_close(qt.qmul(a, b).norm(dim=-1), a.norm(dim=-1) * b.norm(dim=-1), rtol=1e-13, atol=0)
    assert qt.qmul(a[:1, :1], b).shape == (3, 5, 4)   # broadcasting


def test_planted_reversed_product_passes_algebra_but_fails_table():
    """The reversed (JPL-like) product b*a is associative and norm-multiplicative too: only the
    multiplication table (i j = k) tells it from the Hamilton product."""
    g = gen(3)
    a, b, c = (torch.randn(4, 4, dtype=torch.float64, generator=g) for _ in range(3))
    rev = lambda x, y: qt.qmul(y, x)  # noqa: E731
    torch.testing.assert_close(rev(rev(a, b), c), rev(a, rev(b, c)), rtol=1e-13, atol=1e-13)
    torch.testing.assert_close(rev(a, b).norm(dim=-1), a.norm(dim=-1) * b.norm(dim=-1), rtol=1e-13, atol=0)
    i, j = torch.eye(4, dtype=torch.float64)[1], torch.eye(4, dtype=torch.float64)[2]
    assert hamilton_table(i.tolist(), j.tolist()) == [0.0, 0.0, 0.0, 1.0]
    assert qt.qmul(i, j).tolist() == [0.0, 0.0, 0.0, 1.0]
    assert rev(i, j).tolist() != [0.0, 0.0, 0.0, 1.0]


def test_conj_inverse_normalize():
    q = torch.randn(6, 4, dtype=torch.float64, generator=gen(4))
    one = torch.tensor([1.0, 0, 0, 0], dtype=torch.float64)
    torch.testing.assert_close(qt.qmul(q, qt.qinv(q)), one.expand(6, 4), rtol=0, atol=1e-14)
    torch.testing.assert_close(qt.qmul(qt.qinv(q), q), one.expand(6, 4), rtol=0, atol=1e-14)
    assert qt.qconj(q)[:, 0].equal(q[:, 0]) and qt.qconj(q)[:, 1:].equal(-q[:, 1:])
    torch.testing.assert_close(qt.qnormalize(q).norm(dim=-1), torch.ones(6, dtype=torch.float64))


def test_rotation_matrix_and_rotate_match_scipy():
    q = rand_q(10, seed=5)
    expected = scipy_rotation(q.numpy()).as_matrix()
    np.testing.assert_allclose(qt.rotation_matrix(q).numpy(), expected, atol=1e-14)
    x = torch.randn(10, 3, dtype=torch.float64, generator=gen(6))
    np.testing.assert_allclose(qt.rotate(q, x).numpy(), np.einsum("nij,nj->ni", expected, x.numpy()), atol=1e-13)


# ----------------------------------------------------------------------------- exp / log

def test_qexp_formula_and_rotor_conventions():
    u = torch.randn(8, 3, dtype=torch.float64, generator=gen(7))
    q = qt.qexp(u)
    for r in range(8):
        th = math.sqrt(sum(c * c for c in u[r].tolist()))
        want = [math.cos(th)] + [math.sin(th) / th * c for c in u[r].tolist()]
        np.testing.assert_allclose(q[r].numpy(), want, rtol=1e-13, atol=1e-15)
    # exp_half_u: u is a rotation vector (angle |u|), as scipy's from_rotvec
    half = qt.qexp(u, rotor="exp_half_u")
    np.testing.assert_allclose(qt.rotation_matrix(half).numpy(), Rotation.from_rotvec(u.numpy()).as_matrix(), atol=1e-13)
    # exp_u: |u| is the half-angle, so the rotation vector is 2u
    np.testing.assert_allclose(qt.rotation_matrix(q).numpy(), Rotation.from_rotvec(2 * u.numpy()).as_matrix(), atol=1e-13)
    assert qt.qexp(torch.zeros(3, dtype=torch.float64)).tolist() == [1.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("rotor, bound", [("exp_u", math.pi), ("exp_half_u", 2 * math.pi)])
def test_qlog_inverts_qexp_on_principal_branch(rotor, bound):
    g = gen(8)
    direction = torch.randn(200, 3, dtype=torch.float64, generator=g)
    direction = direction / direction.norm(dim=-1, keepdim=True)
    radius = torch.cat([torch.tensor([0.0, 1e-300, 1e-12, 1e-6]),
                        torch.rand(196, dtype=torch.float64, generator=g) * 0.999 * bound]).to(torch.float64)
    u = radius[:, None] * direction
    torch.testing.assert_close(qt.qlog(qt.qexp(u, rotor=rotor), rotor=rotor), u, rtol=1e-9, atol=1e-12)
    q = rand_q(50, seed=9)
    torch.testing.assert_close(qt.qexp(qt.qlog(q, rotor=rotor), rotor=rotor), q, rtol=0, atol=1e-13)
    # outside the principal branch the log returns another generator of the same rotor
    u_out = 1.2 * bound * direction[:5]
    assert not torch.allclose(qt.qlog(qt.qexp(u_out, rotor=rotor), rotor=rotor), u_out)


def test_qlog_canonical_sign_gives_shortest_generator():
    q = rand_q(100, seed=10)
    u = qt.qlog(q, canonical_sign=True)
    assert (u.norm(dim=-1) <= math.pi / 2 + 1e-12).all()
    back = qt.qexp(u)
    sign = torch.sign((back * q).sum(-1, keepdim=True))
    torch.testing.assert_close(sign * back, q, rtol=0, atol=1e-13)


def test_exp_log_gradients_finite_at_identity_and_correct_elsewhere():
    u0 = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    qt.qexp(u0).sum().backward()
    assert torch.isfinite(u0.grad).all() and u0.grad.tolist() == [1.0, 1.0, 1.0]
    q0 = torch.tensor([1.0, 0, 0, 0], dtype=torch.float64, requires_grad=True)
    qt.qlog(q0).sum().backward()
    assert q0.grad.tolist() == [0.0, 1.0, 1.0, 1.0]
    u = torch.randn(4, 3, dtype=torch.float64, generator=gen(11), requires_grad=True)
    assert torch.autograd.gradcheck(qt.qexp, (u,))
    q = rand_q(4, seed=12).requires_grad_(True)
    assert torch.autograd.gradcheck(qt.qlog, (q,))


# ----------------------------------------------------------------------------- bracket, BCH

def test_bracket_conventions():
    g = gen(13)
    u, v = torch.randn(2, 5, 3, dtype=torch.float64, generator=g)
    cross = np.cross(u.numpy(), v.numpy())
    np.testing.assert_allclose(qt.bracket(u, v).numpy(), cross, rtol=1e-14)
    np.testing.assert_allclose(qt.bracket(u, v, convention="commutator").numpy(), 2 * cross, rtol=1e-14)
    # on pure quaternions the quaternion form agrees with the vector form
    pu = torch.cat([torch.zeros(5, 1, dtype=torch.float64), u], -1)
    pv = torch.cat([torch.zeros(5, 1, dtype=torch.float64), v], -1)
    full = qt.bracket(pu, pv, convention="commutator").numpy()
    np.testing.assert_allclose(full[:, 0], 0, atol=1e-14)
    np.testing.assert_allclose(full[:, 1:], 2 * cross, rtol=1e-13)


def bch_error(rotor, convention, eps, seed=14):
    g = gen(seed)
    u = qt.random_small_generators(300, radius=eps, generator=g)
    v = qt.random_small_generators(300, radius=eps, generator=g)
    w = qt.qlog(qt.qmul(qt.qexp(u, rotor=rotor), qt.qexp(v, rotor=rotor)), rotor=rotor)
    return (w - qt.bch_second_order(u, v, convention=convention)).norm(dim=-1).max().item()


@pytest.mark.parametrize("rotor, convention, order", [
    ("exp_u", "commutator", 3), ("exp_half_u", "half_commutator", 3),
    # the RGAT document's pairing (exp(u) with [u,v] = u x v) leaves an O(eps^2) error: planted/found error
    ("exp_u", "half_commutator", 2), ("exp_half_u", "commutator", 2),
])
def test_bch_second_order_pairings(rotor, convention, order):
    e1, e2 = bch_error(rotor, convention, 1e-2), bch_error(rotor, convention, 1e-3)
    slope = math.log10(e1 / e2)
    assert abs(slope - order) < 0.2, slope


# ----------------------------------------------------------------------------- distance

def definitional(q, k):
    return 2 * np.arccos(np.abs((q * k).sum(-1)))


def test_distance_matches_definition_where_it_is_accurate():
    q, k = rand_q(500, seed=15), rand_q(500, seed=16)
    dot = (q * k).sum(-1).abs().numpy()
    ok = dot < 0.9   # arccos is well conditioned away from |<q,k>| = 1
    d = qt.geodesic_distance(q, k).numpy()
    np.testing.assert_allclose(d[ok], definitional(q.numpy(), k.numpy())[ok], rtol=1e-12)
    assert ((d >= 0) & (d <= math.pi)).all()


def test_distance_is_rotation_angle_of_relative_rotor():
    q, k = rand_q(300, seed=17), rand_q(300, seed=18)
    rel = scipy_rotation(q.numpy()) * scipy_rotation(k.numpy()).inv()
    oracle = angle_from_matrix(rel.as_matrix())
    d = qt.geodesic_distance(q, k).numpy()
    np.testing.assert_allclose(d, oracle, atol=1e-12)
    # planted error: 2 atan2(...) (the spherical half-angle) in place of 4 atan2(...) is caught
    s = torch.where((q * k).sum(-1, keepdim=True) >= 0, 1.0, -1.0)
    wrong = 2 * torch.atan2((q - s * k).norm(dim=-1), (q + s * k).norm(dim=-1))
    assert np.abs(wrong.numpy() - oracle).max() > 0.1


def test_distance_sign_invariance_and_symmetry():
    q, k = rand_q(50, seed=19), rand_q(50, seed=20)
    d = qt.geodesic_distance(q, k)
    assert torch.equal(d, qt.geodesic_distance(q, -k))
    assert torch.equal(d, qt.geodesic_distance(-q, k))
    torch.testing.assert_close(d, qt.geodesic_distance(k, q), rtol=1e-14, atol=1e-15)


def test_distance_no_nan_at_degenerate_inputs():
    q = rand_q(4, seed=21)
    one = torch.tensor([1.0, 0, 0, 0], dtype=torch.float64)
    bumped = one * (1 + 4e-16)   # |<q,k>| slightly > 1 in floating point
    cases = [(q, q), (q, -q), (one, one), (one, bumped), (bumped, -one), (q, q * (1 + 1e-15))]
    for a, b in cases:
        a = a.clone().requires_grad_(True)
        d = qt.geodesic_distance(a, b)
        assert torch.isfinite(d).all() and (d.abs() < 1e-14).all()
        (d ** 2).sum().backward()
        assert torch.isfinite(a.grad).all() and (a.grad.abs() < 1e-13).all()
    with np.errstate(invalid="ignore"):
        assert np.isnan(definitional(one.numpy(), bumped.numpy()))   # what the naive formula gives


def test_distance_accurate_at_tiny_angles():
    one = torch.tensor([1.0, 0, 0, 0], dtype=torch.float64)
    for size in (1e-9, 1e-6, 1e-3):
        delta = torch.tensor([0.3, -0.5, 0.8], dtype=torch.float64)
        delta = size * delta / delta.norm()
        for s in (1.0, -1.0):
            d = float(qt.geodesic_distance(one, s * qt.qexp(delta)))
            assert d == pytest.approx(2 * size, rel=1e-12)
    # the definitional arccos loses all digits at 1e-9 (it returns 0 or an O(1e-8) value)
    naive = float(definitional(one.numpy(), qt.qexp(delta * 1e-6).numpy()))
    assert abs(naive - 2e-9) > 1e-10


def test_distance_gradient_finite_and_equals_riemannian_formula():
    """Theorem S10, with the oracle gradient written out: grad_R (d^2/2) = -2 d / sin(d/2) (r - s q)."""
    q, r = rand_q(20, seed=22), rand_q(20, seed=23)
    qv = q.clone().requires_grad_(True)
    (0.5 * qt.geodesic_distance(qv, r) ** 2).sum().backward()
    c = (q * r).sum(-1, keepdim=True)
    s = torch.sign(c)
    d = 2 * torch.acos(c.abs())
    eucl = qv.grad
    riem = eucl - (eucl * q).sum(-1, keepdim=True) * q
    oracle = -2 * d / torch.sin(d / 2) * (s * r - c.abs() * q)
    torch.testing.assert_close(riem, oracle, rtol=1e-9, atol=1e-12)
    torch.testing.assert_close(riem, -4 * qt.sphere_log(q, r, align_sign=True), rtol=1e-9, atol=1e-12)
    assert torch.autograd.gradcheck(lambda a: qt.geodesic_distance(a, r[:4]), (q[:4].clone().requires_grad_(True),))


def test_sphere_log_inverts_sphere_exp():
    q, r = rand_q(100, seed=24), rand_q(100, seed=25)
    t = qt.sphere_log(q, r)
    # tangent, norm = arc length, and the sphere exponential (written here) maps it back to r
    np.testing.assert_allclose((t * q).sum(-1).numpy(), 0, atol=1e-14)
    n = t.norm(dim=-1, keepdim=True)
    np.testing.assert_allclose(n.squeeze(-1).numpy(), np.arccos(np.clip((q * r).sum(-1).numpy(), -1, 1)), atol=1e-12)
    torch.testing.assert_close(torch.cos(n) * q + torch.sin(n) * t / n, r, rtol=0, atol=1e-12)
    # |Log_q(k)| = d_geo/2 (as the document states) only when <q,k> >= 0, or after aligning the sign
    d = qt.geodesic_distance(q, r)
    negative = (q * r).sum(-1) < 0
    assert negative.any()
    assert not torch.allclose(n.squeeze(-1)[negative], d[negative] / 2)
    torch.testing.assert_close(qt.sphere_log(q, r, align_sign=True).norm(dim=-1), d / 2, rtol=1e-12, atol=1e-14)
    # accurate at tiny arcs (an arccos-based log returns 0 here)
    one = torch.tensor([1.0, 0, 0, 0], dtype=torch.float64)
    delta = torch.tensor([3e-10, -4e-10, 1.2e-9], dtype=torch.float64)
    np.testing.assert_allclose(qt.sphere_log(one, qt.qexp(delta)).numpy(), [0.0, *delta.tolist()], rtol=1e-12, atol=0)


# ----------------------------------------------------------------------------- attention

def softmax_rows(logits):
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_gsm_logits_and_attention_match_loops():
    q, k = rand_q(5, seed=26), rand_q(7, seed=27)
    v = torch.randn(7, 3, dtype=torch.float64, generator=gen(28))
    tau = 0.7
    logits = np.zeros((5, 7))
    for i in range(5):
        for j in range(7):
            dij = 2 * math.acos(min(1.0, abs(sum(a * b for a, b in zip(q[i].tolist(), k[j].tolist())))))
            logits[i, j] = -dij ** 2 / (2 * tau)
    np.testing.assert_allclose(qt.gsm_logits(q, k, tau=tau).numpy(), logits, rtol=1e-10, atol=1e-12)
    P = qt.gsm_weights(q, k, tau=tau).numpy()
    np.testing.assert_allclose(P.sum(-1), 1, rtol=1e-14)
    np.testing.assert_allclose(qt.gsm_attention(q, k, v, tau=tau).numpy(), softmax_rows(logits) @ v.numpy(), rtol=1e-10)
    # step 1 (normalisation) makes the logits scale invariant
    np.testing.assert_allclose(qt.gsm_logits(3 * q, 0.2 * k, tau=tau).numpy(), logits, rtol=1e-10, atol=1e-12)


def test_gsm_per_head_temperature_and_rotor_values():
    q, k = rand_q(2, 4, seed=29), rand_q(2, 6, seed=30)
    tau = torch.tensor([0.5, 2.0], dtype=torch.float64).view(2, 1, 1)
    L = qt.gsm_logits(q, k, tau=tau)
    torch.testing.assert_close(L[1], qt.gsm_logits(q[1], k[1], tau=2.0))
    torch.testing.assert_close(L[0], qt.gsm_logits(q[0], k[0], tau=0.5))
    vals = rand_q(2, 6, seed=31)
    out = qt.gsm_attention(q, k, vals, tau=tau, renormalize_values=True)
    torch.testing.assert_close(out.norm(dim=-1), torch.ones(2, 4, dtype=torch.float64))


def test_gsm_gauge_invariance_and_layout_invariance():
    q, k = rand_q(5, seed=32), rand_q(6, seed=33)
    g = rand_q(seed=34)
    base = qt.gsm_logits(q, k, tau=1.0)
    torch.testing.assert_close(qt.gsm_logits(qt.qmul(g, q), qt.qmul(g, k), tau=1.0), base, rtol=1e-10, atol=1e-12)
    # rotor projection: any shared layout of the 4 components gives the same logits
    mv_q = torch.randn(5, 8, dtype=torch.float64, generator=gen(35))
    mv_k = torch.randn(6, 8, dtype=torch.float64, generator=gen(36))
    a = qt.gsm_logits(qt.rotor_projection(mv_q), qt.rotor_projection(mv_k), tau=1.0)
    # the same four components in another order (a different layout convention) agree ...
    b = qt.gsm_logits(qt.rotor_projection(mv_q, indices=(6, 0, 5, 4)), qt.rotor_projection(mv_k, indices=(6, 0, 5, 4)),
                      tau=1.0)
    torch.testing.assert_close(b, a, rtol=1e-12, atol=1e-14)
    # ... while other components (planted: taking the vector part) do not
    c = qt.gsm_logits(qt.rotor_projection(mv_q, indices=(1, 2, 3, 7)), qt.rotor_projection(mv_k, indices=(1, 2, 3, 7)),
                      tau=1.0)
    assert not torch.allclose(c, a)



def test_rotor_projection_function_matches_blade_oracle():
    """The DSL's `rotor_projection` (RGAT.Def-Prot, RGAT.Alg): pick the scalar and the three bivector blades by
    name from a multivector written as a blade -> coefficient table, normalise with math.sqrt."""
    from pyverify.checks.vocabulary import VOCABULARY

    blades = ["1", "e1", "e2", "e3", "e12", "e13", "e23", "e123"]
    f = VOCABULARY["rotor_projection"].torch
    mv = torch.randn(20, 8, dtype=torch.float64, generator=gen(48))
    for row in mv.tolist():
        coeff = dict(zip(blades, row))
        even = [coeff["1"], coeff["e12"], coeff["e13"], coeff["e23"]]
        n = math.sqrt(sum(c * c for c in even))
        np.testing.assert_allclose(f(torch.tensor(row, dtype=torch.float64)).numpy(), [c / n for c in even],
                                   rtol=1e-14, atol=1e-15)
    # batched and vmapped (as the engine calls it) agree with the row-by-row values
    torch.testing.assert_close(torch.func.vmap(f)(mv), torch.stack([f(r) for r in mv]), rtol=1e-15, atol=0)
    # odd blades (e1, e2, e3, e123) and a positive scale do not matter
    odd = torch.zeros(8, dtype=torch.float64)
    odd[[1, 2, 3, 7]] = torch.tensor([5.0, -2.0, 0.5, 3.0], dtype=torch.float64)
    torch.testing.assert_close(f(3.0 * mv[0] + odd), f(mv[0]), rtol=1e-14, atol=1e-15)

def test_euclidean_attention_matches_loops():
    g = gen(37)
    Q, K, V = torch.randn(4, 3, dtype=torch.float64, generator=g), torch.randn(5, 3, dtype=torch.float64, generator=g), \
        torch.randn(5, 2, dtype=torch.float64, generator=g)
    tau = 0.8
    logits = np.array([[sum(a * b for a, b in zip(Q[i].tolist(), K[j].tolist())) / tau for j in range(5)] for i in range(4)])
    np.testing.assert_allclose(qt.euclidean_logits(Q, K, tau=tau).numpy(), logits, rtol=1e-13)
    np.testing.assert_allclose(qt.euclidean_attention(Q, K, V, tau=tau).numpy(), softmax_rows(logits) @ V.numpy(), rtol=1e-12)


@pytest.mark.parametrize("rotor, factor", [("exp_u", 4.0), ("exp_half_u", 1.0)])
def test_small_angle_expansion_constant_depends_on_rotor(rotor, factor):
    """Lemma S2: d^2 = 4 |u - v|^2 + O(eps^4) holds for exp(u); for exp(u/2) the constant is 1."""
    errs = []
    for eps in (1e-2, 1e-3):
        g = gen(38)
        u = qt.random_small_generators(200, radius=eps, generator=g)
        v = qt.random_small_generators(200, radius=eps, generator=g)
        d2 = qt.geodesic_distance(qt.qexp(u, rotor=rotor), qt.qexp(v, rotor=rotor)) ** 2
        errs.append((d2 - factor * ((u - v) ** 2).sum(-1)).abs().max().item())
        wrong = (d2 - (5.0 - factor) * ((u - v) ** 2).sum(-1)).abs().max().item()
        assert wrong > 100 * errs[-1]   # the other constant is off at order eps^2
    assert math.log10(errs[0] / errs[1]) > 3.5


# ----------------------------------------------------------------------------- truncation

def truncation_loops(P, v, mask):
    n, T = P.shape
    out = {}
    for i in range(n):
        p = sum(P[i, j] for j in range(T) if mask[i, j])
        delta = sum(P[i, j] for j in range(T) if not mask[i, j])
        y = sum(P[i, j] * v[j] for j in range(T))
        mu_in = sum(P[i, j] * v[j] for j in range(T) if mask[i, j]) / p
        mu_out = sum(P[i, j] * v[j] for j in range(T) if not mask[i, j]) / delta if delta > 0 else np.zeros(v.shape[1])
        out[i] = (y, mu_in, p, delta, mu_out)
    return out


def test_truncation_identity_and_bound():
    q, k = rand_q(6, seed=39), rand_q(10, seed=40)
    v = torch.randn(10, 3, dtype=torch.float64, generator=gen(41))
    P = qt.gsm_weights(q, k, tau=0.5)
    mask = qt.topk_candidates(P, 4)
    np.testing.assert_array_equal(mask.sum(-1).numpy(), 4)
    order = np.argsort(-P.numpy(), axis=-1)[:, :4]
    for i in range(6):
        assert set(np.flatnonzero(mask[i].numpy())) == set(order[i])
    terms = qt.truncation_terms(P, v, mask)
    ref = truncation_loops(P.numpy(), v.numpy(), mask.numpy())
    for i, (y, mu_in, p, delta, mu_out) in ref.items():
        np.testing.assert_allclose(terms.full[i].numpy(), y, rtol=1e-12)
        np.testing.assert_allclose(terms.truncated[i].numpy(), mu_in, rtol=1e-12)
        np.testing.assert_allclose(terms.mean_out[i].numpy(), mu_out, rtol=1e-12)
        assert float(terms.retained[i]) == pytest.approx(p, rel=1e-13)
        assert float(terms.dropped[i]) == pytest.approx(delta, rel=1e-13)
        # Lemma S7, evaluated on the oracle's numbers
        np.testing.assert_allclose(y - mu_in, delta * (mu_out - mu_in), atol=1e-14)
    # Corollary S8
    gap = (terms.full - terms.truncated).norm(dim=-1)
    assert (gap <= qt.truncation_bound(v, terms.dropped) + 1e-15).all()
    # renormalised truncation == softmax restricted to the candidates (masked logits)
    masked = qt.gsm_logits(q, k, tau=0.5).masked_fill(~mask, float("-inf"))
    torch.testing.assert_close(qt.truncated_attention(P, v, mask), torch.softmax(masked, -1) @ v, rtol=1e-12, atol=1e-14)
    # planted error: forgetting to renormalise (y~ = sum_S P v) breaks the identity
    unnormalised = (P * mask) @ v
    lhs = (terms.full - unnormalised).numpy()
    rhs = (terms.dropped[:, None] * (terms.mean_out - terms.mean_in)).numpy()
    assert not np.allclose(lhs, rhs, atol=1e-6)


def test_truncation_full_candidate_set_is_exact():
    P = qt.gsm_weights(rand_q(3, seed=42), rand_q(5, seed=43), tau=1.0)
    v = torch.randn(5, 2, dtype=torch.float64, generator=gen(44))
    terms = qt.truncation_terms(P, v, torch.ones(3, 5, dtype=torch.bool))
    assert torch.equal(terms.dropped, torch.zeros(3, dtype=torch.float64))
    assert torch.equal(terms.mean_out, torch.zeros(3, 2, dtype=torch.float64))
    torch.testing.assert_close(terms.truncated, terms.full, rtol=1e-13, atol=1e-15)


# ----------------------------------------------------------------------------- sampling, validation

def test_samplers():
    q = qt.random_unit_quaternions(3, 1000, generator=gen(45))
    assert q.shape == (3, 1000, 4) and q.dtype == torch.float64
    torch.testing.assert_close(q.norm(dim=-1), torch.ones(3, 1000, dtype=torch.float64))
    assert abs(q.mean().item()) < 0.02
    u = qt.random_small_generators(5000, radius=0.1, generator=gen(46), dtype=torch.float32)
    assert u.dtype == torch.float32 and (u.norm(dim=-1) <= 0.1 + 1e-6).all()
    # uniform in the ball: P(|u| <= r/2) = 1/8
    assert abs((u.norm(dim=-1) <= 0.05).float().mean().item() - 0.125) < 0.025


def test_dtype_follows_input():
    q = rand_q(3, seed=47).float()
    assert qt.geodesic_distance(q, q).dtype == torch.float32
    assert qt.gsm_logits(q, q, tau=1.0).dtype == torch.float32


@pytest.mark.parametrize("call", [
    lambda: qt.qmul(torch.zeros(3), torch.zeros(4)),
    lambda: qt.qexp(torch.zeros(4)),
    lambda: qt.qexp(torch.zeros(3), rotor="half"),
    lambda: qt.qlog(torch.zeros(3)),
    lambda: qt.bracket(torch.zeros(3), torch.zeros(4)),
    lambda: qt.bracket(torch.zeros(3), torch.zeros(3), convention="lie"),
    lambda: qt.geodesic_distance(torch.zeros(4), torch.zeros(3)),
    lambda: qt.gsm_logits(torch.zeros(2, 4), torch.zeros(3, 4), tau=0.0),
    lambda: qt.gsm_logits(torch.zeros(2, 4), torch.zeros(3, 4), tau=torch.tensor([1.0, -1.0])),
    lambda: qt.gsm_attention(torch.zeros(2, 4), torch.zeros(3, 4), torch.zeros(2, 5), tau=1.0),
    lambda: qt.rotor_projection(torch.zeros(8), indices=(0, 0, 1, 2)),
    lambda: qt.truncation_terms(torch.zeros(2, 3), torch.zeros(3, 1), torch.ones(2, 3)),
    lambda: qt.topk_candidates(torch.zeros(2, 3), 4),
    lambda: qt.random_small_generators(3, radius=0.0),
])
def test_invalid_inputs_raise(call):
    with pytest.raises(ValueError):
        call()
