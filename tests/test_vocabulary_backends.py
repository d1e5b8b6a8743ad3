"""Every vocabulary name with a SymPy, ball or 60-digit meaning agrees with its torch implementation on
random inputs.

The provers register their meanings at import (provers/symbolic.py, provers/interval.py,
provers/precise_meanings.py), so all are imported first. Inputs are random but rounded to two decimals, so
SymPy works with exact rationals and torch with the nearest doubles; the ball meaning must enclose the
float64 value; the 60-digit value must agree with it to float64 accuracy.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
import torch

import pyverify.provers.interval as interval
import pyverify.provers.precise as precise
import pyverify.provers.precise_meanings  # noqa: F401 - registers the 60-digit meanings
import pyverify.provers.symbolic  # noqa: F401 - registers the SymPy meanings
from pyverify.checks.vocabulary import VOCABULARY

F64 = torch.float64
CTX = {"dtype": F64, "device": torch.device("cpu")}


def _rounded(t: torch.Tensor) -> torch.Tensor:
    return torch.round(t, decimals=2)


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def mat(n=3, m=None):
    return lambda g: _rounded(torch.randn(n, m or n, generator=g, dtype=F64))


def skew(n=3, scale=1.0):
    def make(g):
        a = torch.randn(n, n, generator=g, dtype=F64) * scale
        return _rounded(a - a.T)
    return make


def vec(n=3, lo=None):
    def make(g):
        v = torch.randn(n, generator=g, dtype=F64)
        return _rounded(v.abs() + lo if lo is not None else v)
    return make


def scalar(lo=-2.0, hi=2.0):
    return lambda g: _rounded(lo + (hi - lo) * torch.rand((), generator=g, dtype=F64))


def unit_quat(g):
    q = torch.randn(4, generator=g, dtype=F64)
    return q / q.norm()


def orth(n=4):
    return lambda g: torch.linalg.qr(torch.randn(n, n, generator=g, dtype=F64))[0]


def commuting_family(g):
    """Two 2x2 skew generators (they commute), as the (d_c, d, d) tensor a claim's g.L is."""
    f = _rounded(torch.rand(2, generator=g, dtype=F64) + 0.1)
    J = torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=F64)
    return f[:, None, None] * J


def skew_family(g):
    return torch.stack([skew(3)(g), skew(3)(g)])


def simplex(rows=3, cols=4):
    def make(g):
        p = torch.rand(rows, cols, generator=g, dtype=F64) + 0.1
        return p / p.sum(-1, keepdim=True)
    return make


def const(value):
    return lambda g: value


def sym(n=4):
    def make(g):
        a = torch.randn(n, n, generator=g, dtype=F64)
        return _rounded(a + a.T)
    return make


def distances(n=5, d=2):
    """A Euclidean distance matrix of n random points in R^d (MDS recovers them)."""
    def make(g):
        p = torch.randn(n, d, generator=g, dtype=F64)
        return torch.cdist(p, p)
    return make


def freqs(d_c=2, m=2):
    return lambda g: _rounded(torch.rand(d_c, m, generator=g, dtype=F64) + 0.1)


# name -> argument makers (one instance); every name with a SymPy or ball meaning must be here
ARGUMENTS = {
    "I": [const(3)], "zeros": [const(2), const(3)],
    "abs": [vec(3)], "exp": [scalar()], "log": [scalar(0.1, 3)], "sqrt": [scalar(0.1, 3)],
    "sin": [scalar()], "cos": [scalar()], "atan2": [scalar(), scalar()], "acos": [scalar(-0.9, 0.9)],
    "amax": [vec(5)], "norm": [mat(3)], "vnorm": [mat(3)], "opnorm": [mat(3)], "fro": [mat(3)], "l1": [vec(4)],
    "expm": [skew(2)], "inv": [mat(3)], "solve": [mat(3), mat(3, 2)], "det": [mat(3)], "tr": [mat(3)],
    "comm": [mat(3), mat(3)], "skew_part": [mat(3)], "sym_part": [mat(3)], "dot": [vec(3), vec(3)],
    "outer": [vec(3), vec(2)], "generator_sum": [skew_family, vec(2)], "R_str": [commuting_family, vec(2)],
    "cayley": [skew(3, 0.3)], "Pi_act": [orth(4), const(1)], "Pi_null": [orth(4), const(1)],
    "qmul": [unit_quat, unit_quat], "qconj": [unit_quat], "d_geo": [unit_quat, unit_quat],
    "rotation_angle": [unit_quat], "hellinger": [simplex()], "displacement": [vec(3), vec(3)],
}
# names with only a 60-digit meaning (besides torch)
PRECISE_ONLY = {
    "ones": [const(2), const(2)], "tanh": [vec(3)], "sinc": [vec(3)], "maximum": [vec(3), vec(3)],
    "minimum": [vec(3), vec(3)], "total": [mat(3)], "mean": [mat(3)], "amin": [vec(5)], "linf": [mat(3)],
    "svdvals": [mat(4, 3)], "sigma_min": [mat(3)], "eigvalsh": [sym(4)], "diag": [vec(3)],
    "generators": [orth(4), freqs()], "pairwise_distances": [mat(4, 2)], "gram": [distances()],
    "mds": [distances(), const(2)], "stress": [mat(5, 2), distances()], "fisher_rao": [simplex()],
    "low_rank_factor": [mat(4, 3), const(2)], "qinv": [unit_quat], "qexp": [vec(3)], "qlog": [unit_quat],
    "rstr_closed_form": [orth(4), freqs(), vec(2)], "rsp": [commuting_family, vec(2), orth(2)],
    "commutator_norms": [skew_family], "max_comm": [skew_family], "offdiag": [mat(3)], "diagonal": [mat(3)],
}
# the vector norm too, since `norm` is overloaded (T0.9)
EXTRA = [("norm", [vec(3)]), ("norm", [scalar()])]


def _with_meanings(backend: str) -> list[str]:
    return [name for name, record in VOCABULARY.items() if getattr(record, backend) is not None]


def test_every_name_lists_its_backends():
    table = {name: record.backends() for name, record in VOCABULARY.items()}
    assert all(b[0] == "torch" and set(b) <= {"torch", "sympy", "ball", "precise"} for b in table.values())
    with_meanings = set(_with_meanings("sympy")) | set(_with_meanings("ball"))
    assert with_meanings, "the provers registered no meanings"
    assert with_meanings == set(ARGUMENTS), "every name with a SymPy or ball meaning needs inputs in ARGUMENTS"
    assert set(_with_meanings("precise")) <= set(ARGUMENTS) | set(PRECISE_ONLY), \
        "every name with a 60-digit meaning needs inputs in ARGUMENTS or PRECISE_ONLY"


def _torch_value(name: str, args: list):
    record = VOCABULARY[name]
    return record.torch(CTX, *args) if record.needs_ctx else record.torch(*args)


def _to_sympy(x):
    if isinstance(x, int):
        return x
    if x.dim() == 3:
        return [_to_sympy(m) for m in x]
    exact = [sp.Rational(Fraction(v)) for v in x.reshape(-1).tolist()]  # the double itself, exactly
    if x.dim() == 0:
        return exact[0]
    if x.dim() == 1:
        return sp.Matrix(len(exact), 1, exact)
    return sp.Matrix(x.shape[0], x.shape[1], exact)


def _sympy_number_array(value) -> np.ndarray:
    if isinstance(value, sp.MatrixBase):
        return np.array(value.evalf(30).tolist(), dtype=float)
    return np.array(float(sp.N(value, 30)))


def _symbolic_cases():
    return [(name, ARGUMENTS[name]) for name in _with_meanings("sympy")]


def _ball_cases():
    return [(name, ARGUMENTS[name]) for name in _with_meanings("ball")] + EXTRA


def _exact_inputs(makers, seed):
    """One random instance of the arguments (SymPy reads each double exactly, as a rational)."""
    g = _gen(seed)
    return [m(g) for m in makers]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name, makers", _symbolic_cases(), ids=[n for n, _ in _symbolic_cases()])
def test_sympy_meaning_agrees_with_torch(name, makers, seed):
    args = _exact_inputs(makers, seed)
    expected = _torch_value(name, args).detach().numpy()
    got = _sympy_number_array(VOCABULARY[name].sympy(*[_to_sympy(a) for a in args]))
    if got.ndim == 2 and got.shape[1] == 1 and expected.ndim == 1:
        got = got[:, 0]
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def _ball_parts(b) -> tuple[np.ndarray, np.ndarray]:
    entries = b.entries()
    mids = np.array([float(e.mid()) for e in entries])
    rads = np.array([float(e.rad()) for e in entries])
    shape = {0: (), 1: (b.m.nrows(),), 2: (b.m.nrows(), b.m.ncols())}[b.ndim]
    return mids.reshape(shape), rads.reshape(shape)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name, makers", _ball_cases(), ids=[n for n, _ in _ball_cases()])
def test_ball_meaning_encloses_the_torch_value(name, makers, seed):
    args = _exact_inputs(makers, seed)
    expected = _torch_value(name, args).detach().numpy()
    old = interval.flint.ctx.prec
    interval.flint.ctx.prec = 200
    try:
        lifted = [interval._lift(a) if not isinstance(a, int) else interval.Ball.scalar(a) for a in args]
        mids, rads = _ball_parts(VOCABULARY[name].ball(*lifted))
    finally:
        interval.flint.ctx.prec = old
    assert mids.shape == expected.shape
    assert np.all(np.abs(mids - expected) <= rads + 1e-12 * (1 + np.abs(expected))), (mids, rads, expected)
    assert np.all(rads < 1e-6), "an enclosure this loose would certify nothing"


def test_a_wrong_meaning_is_caught(monkeypatch):
    """The agreement test can fail: a ball meaning of `tr` that drops the last diagonal entry."""
    wrong = lambda a: interval.Ball.scalar(sum((a.m[i, i] for i in range(a.m.nrows() - 1)), interval.arb(0)))  # noqa: E731
    monkeypatch.setattr(VOCABULARY["tr"], "ball", wrong)
    with pytest.raises(AssertionError):
        test_ball_meaning_encloses_the_torch_value("tr", ARGUMENTS["tr"], 0)


def _precise_cases():
    table = {**ARGUMENTS, **PRECISE_ONLY}
    return [(name, table[name]) for name in _with_meanings("precise")] + EXTRA + [("diag", [mat(3)])]


def _precise_value(name: str, args: list) -> np.ndarray:
    with precise.mp.workdps(precise.DIGITS):
        lifted = [a if isinstance(a, int) else precise.to_precise(a) for a in args]
        out = VOCABULARY[name].precise(*lifted)
    return np.array(out.tolist() if isinstance(out, np.ndarray) else out, dtype=float)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name, makers", _precise_cases(), ids=[n for n, _ in _precise_cases()])
def test_precise_meaning_agrees_with_torch(name, makers, seed):
    args = _exact_inputs(makers, seed)
    expected = _torch_value(name, args).detach().numpy()
    got = _precise_value(name, args)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-12)


def test_a_wrong_precise_meaning_is_caught(monkeypatch):
    """The agreement test can fail: a 60-digit determinant that drops the last row and column."""
    monkeypatch.setattr(VOCABULARY["det"], "precise", lambda a: precise.mp.det(precise.mp.matrix(a[:-1, :-1].tolist())))
    with pytest.raises(AssertionError):
        test_precise_meaning_agrees_with_torch("det", ARGUMENTS["det"], 0)
