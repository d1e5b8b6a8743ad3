"""The vocabulary of the check language: one record per function name, for every backend.

A record carries the function's torch implementation (required: it works on ONE instance, the engine
batches with ``torch.func.vmap``, and it is differentiable), its documentation, the registry conventions
that fill its keywords, and — where one exists — its SymPy meaning, its ball-arithmetic meaning and its
60-digit meaning. The provers register those with ``sympy_meaning`` / ``ball_meaning`` /
``precise_meaning`` (``provers/symbolic.py``, ``provers/interval.py``, ``provers/precise_meanings.py``);
registering a meaning for a name the vocabulary does not have is an error at import time, so the
backends cannot drift apart.

The built-ins are the mathematics of every check: elementwise functions, reductions, norms, linear
algebra. Mechanisms — a rotary embedding, an attention layer — enter the language from the code they
live in, registered through ``pyverify.plugin`` by a content package or a user's plugin, so a claim is
checked against the implementation users run, not a second copy of the mathematics.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from collections.abc import Iterable, Mapping
from typing import Any, Callable

import torch

from .precision import lowest


@dataclass
class Function:
    """One name of the check language with its meaning in each backend."""

    torch: Callable[..., Any]
    doc: str
    # gets the check's numeric context (the dtype/device keywords of torch's factories) as its first
    # argument: whatever makes a tensor from Python numbers or sizes alone must make it where the check runs
    needs_ctx: bool = False
    sizes: bool = False  # its arguments are sizes: their product is held to the element cap first
    # registry convention key -> (keyword of the torch implementation, {registry value: keyword value});
    # the claim's conventions (Registry.conventions) fill these keywords unless the check passes them
    conventions: tuple = ()
    name: str = ""
    sympy: Callable[..., Any] | None = None  # on SymPy matrices/expressions (provers/symbolic.py)
    ball: Callable[..., Any] | None = None  # on python-flint balls (provers/interval.py)
    precise: Callable[..., Any] | None = None  # on 60-digit mpmath values (provers/precise_meanings.py)
    # the relative condition number of the result (0-d tensor >= 1) from the same arguments: rounding in
    # the inputs is amplified this much, so the default tolerance of a check that calls it scales with it
    condition: Callable[..., Any] | None = None
    # the floating-point type the function computes in internally, where it is coarser than its outputs'
    # (a float32 cache cast to float64): the engine judges its results at that precision (engine/precision.py)
    precision: torch.dtype | None = None
    # the core language's or a content package's (the reference), not a user plugin's: evaluated on one
    # instance, its kernels take the path they take in a batch (``compiled.TorchBackend.call``)
    reference: bool = True

    # the user's code bound in place of this function (checks/roles.py), else None: the reference
    binding: Any = None
    # (keyword of the torch implementation, vocabulary name) of each function of the language its
    # implementation is defined through: the keyword receives that function as resolved, so a binding of
    # it reaches this one too (attention through its logits)
    through: tuple = ()

    @property
    def opaque(self) -> bool:
        """No exact meaning (ball or 60 digits) re-evaluates it: only floating-point paths judge it."""
        return self.ball is None and self.precise is None

    def __reduce__(self) -> tuple:
        # implementations are often lambdas: a record is pickled as its name, looked up on arrival (a worker
        # process loads the same vocabulary and plugins)
        return (lookup, (self.name,))

    def backends(self) -> list[str]:
        return ["torch"] + [b for b in ("sympy", "ball", "precise") if getattr(self, b) is not None]

    def convention_kwargs(self, conventions: dict[str, str]) -> dict[str, Any]:
        out = {}
        for key, kwarg, table in self.conventions:
            if key in conventions:
                out[kwarg] = table[conventions[key]]
        return out


_DISPLACEMENT = ("displacement", "convention", {"rj-ri": "rj-ri", "ri-rj": "ri-rj"})
_NORM = ("norm", "convention", {v: v for v in ("operator-2", "frobenius", "euclidean", "l1", "linf")})


def _mat_or_vec_norm(x: torch.Tensor, convention: str = "operator-2") -> torch.Tensor:
    """The overloaded |.| under the document's `norm` convention: |a| of a scalar; of a vector the
    Euclidean norm (l1 / max-abs under `l1` / `linf`); of a matrix the operator 2-norm, the Frobenius
    norm, or the norm induced by l1 / linf. `euclidean` names a norm of vectors only: a matrix under it
    is an error (the document did not say which matrix norm; pin one in the claim's conventions)."""
    if x.dim() == 0:
        return x.abs()
    vector_ord = {"l1": 1, "linf": float("inf")}.get(convention, 2)
    if x.dim() == 1:
        return torch.linalg.vector_norm(x, ord=vector_ord)
    if convention == "euclidean":
        raise ValueError("norm of a matrix under the convention norm: euclidean (a norm of vectors); "
                         "pin norm: operator-2 or frobenius, or write opnorm(...) / fro(...)")
    matrix_ord = {"operator-2": 2, "frobenius": "fro", "l1": 1, "linf": float("inf")}[convention]
    return torch.linalg.matrix_norm(x, ord=matrix_ord)


def _displacement(ri: torch.Tensor, rj: torch.Tensor, convention: str = "rj-ri") -> torch.Tensor:
    """The relative position of j seen from i, as the document writes it (rj - ri or ri - rj)."""
    if convention not in ("rj-ri", "ri-rj"):
        raise ValueError(f"displacement: convention must be 'rj-ri' or 'ri-rj', got {convention!r}")
    return rj - ri if convention == "rj-ri" else ri - rj


def _opnorm(x: torch.Tensor) -> torch.Tensor:
    # svdvals has a well-defined gradient where the top singular value is simple; matrix_norm(ord=2) is the same
    return torch.linalg.svdvals(x)[..., 0]


def kappa(a: torch.Tensor, *_: Any) -> torch.Tensor:
    """The 2-norm condition number sigma_max / sigma_min of a square matrix (inf when singular): the
    ``condition`` of the functions that factor it."""
    s = torch.linalg.svdvals(a)
    return s[..., 0] / s[..., -1]


def _eye(ctx: Mapping[str, Any], n: Any) -> torch.Tensor:
    return torch.eye(int(n), **ctx)


def _zeros(ctx: Mapping[str, Any], *shape: Any) -> torch.Tensor:
    return torch.zeros(*[int(s) for s in shape], **ctx)


def _ones(ctx: Mapping[str, Any], *shape: Any) -> torch.Tensor:
    return torch.ones(*[int(s) for s in shape], **ctx)


def _t(ctx: Mapping[str, Any], x: Any) -> torch.Tensor:
    return x if isinstance(x, torch.Tensor) else torch.as_tensor(x, **ctx)


def _comm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b - b @ a


def _sym_part(m: torch.Tensor) -> torch.Tensor:
    return (m + m.transpose(-1, -2)) / 2


def _max_comm(L: torch.Tensor) -> torch.Tensor:
    """max_{k,l} ||[L_k, L_l]||_2 over a family L (d_c, d, d)."""
    c = L.unsqueeze(0) @ L.unsqueeze(1) - L.unsqueeze(1) @ L.unsqueeze(0)
    return torch.linalg.matrix_norm(c, ord=2).amax()


def _rotation_angle(q: torch.Tensor) -> torch.Tensor:
    """Rotation angle of a unit quaternion's rotation, in [0, pi], by atan2 (sign-invariant)."""
    w = q[..., 0].abs()
    v = torch.linalg.vector_norm(q[..., 1:], dim=-1)
    return 2 * torch.atan2(v, w)


VOCABULARY: dict[str, Function] = {
    # constructors
    "I": Function(_eye, "identity matrix I(n)", needs_ctx=True, sizes=True),
    "zeros": Function(_zeros, "zeros(m, n)", needs_ctx=True, sizes=True),
    "ones": Function(_ones, "ones(m, n)", needs_ctx=True, sizes=True),
    # elementwise
    "abs": Function(lambda ctx, x: _t(ctx, x).abs(), "absolute value", needs_ctx=True),
    "exp": Function(lambda ctx, x: torch.exp(_t(ctx, x)), "elementwise exponential", needs_ctx=True),
    "log": Function(lambda ctx, x: torch.log(_t(ctx, x)), "elementwise natural log", needs_ctx=True),
    "sqrt": Function(lambda ctx, x: torch.sqrt(_t(ctx, x)), "elementwise square root", needs_ctx=True),
    "sin": Function(lambda ctx, x: torch.sin(_t(ctx, x)), "sine", needs_ctx=True),
    "cos": Function(lambda ctx, x: torch.cos(_t(ctx, x)), "cosine", needs_ctx=True),
    "tanh": Function(lambda ctx, x: torch.tanh(_t(ctx, x)), "tanh", needs_ctx=True),
    "atan2": Function(lambda ctx, y, x: torch.atan2(_t(ctx, y), _t(ctx, x)), "atan2(y, x)", needs_ctx=True),
    "acos": Function(lambda ctx, x: torch.acos(_t(ctx, x)), "arccos (inaccurate near +-1; prefer atan2)", needs_ctx=True),
    "sinc": Function(lambda ctx, x: torch.sinc(_t(ctx, x) / torch.pi), "sin(x)/x, 1 at 0", needs_ctx=True),
    "maximum": Function(lambda ctx, a, b: torch.maximum(_t(ctx, a), _t(ctx, b)), "elementwise max", needs_ctx=True),
    "minimum": Function(lambda ctx, a, b: torch.minimum(_t(ctx, a), _t(ctx, b)), "elementwise min", needs_ctx=True),
    # reductions over the elements of one tensor
    "total": Function(lambda ctx, x: _t(ctx, x).sum(), "sum of all elements", needs_ctx=True),
    "mean": Function(lambda ctx, x: _t(ctx, x).mean(), "mean of all elements", needs_ctx=True),
    "amax": Function(lambda ctx, x: _t(ctx, x).amax(), "largest element", needs_ctx=True),
    "amin": Function(lambda ctx, x: _t(ctx, x).amin(), "smallest element", needs_ctx=True),
    # norms
    "norm": Function(_mat_or_vec_norm, "overloaded norm |a|, |x|, |M| as the `norm` convention says",
                     conventions=(_NORM,)),
    "vnorm": Function(lambda x: torch.linalg.vector_norm(x), "Euclidean norm of all elements"),
    "opnorm": Function(_opnorm, "operator 2-norm (largest singular value)"),
    "fro": Function(lambda x: torch.linalg.matrix_norm(x, ord="fro"), "Frobenius norm"),
    "l1": Function(lambda x: x.abs().sum(), "l1 norm"),
    "linf": Function(lambda x: x.abs().amax(), "max-abs norm"),
    # linear algebra
    "expm": Function(torch.linalg.matrix_exp, "matrix exponential"),
    "inv": Function(torch.linalg.inv, "matrix inverse", condition=kappa),
    "solve": Function(torch.linalg.solve, "solve(A, B) = A^{-1} B", condition=kappa),
    "det": Function(torch.linalg.det, "determinant", condition=kappa),
    "tr": Function(lambda m: torch.diagonal(m, dim1=-2, dim2=-1).sum(-1), "trace"),
    "comm": Function(_comm, "commutator [A, B] = AB - BA"),
    "sym_part": Function(_sym_part, "(M + M^T)/2"),
    "dot": Function(lambda x, y: (x * y).sum(-1), "inner product over the last axis"),
    "outer": Function(lambda x, y: x.unsqueeze(-1) * y.unsqueeze(-2), "outer product"),
    "svdvals": Function(torch.linalg.svdvals, "singular values, descending"),
    "sigma_min": Function(lambda m: torch.linalg.svdvals(m)[..., -1], "smallest singular value"),
    "eigvalsh": Function(torch.linalg.eigvalsh, "eigenvalues of a symmetric matrix, ascending"),
    "diag": Function(torch.diag, "diagonal matrix from a vector / diagonal of a matrix"),
    "diagonal": Function(lambda m: torch.diagonal(m, dim1=-2, dim2=-1), "the diagonal of a matrix, as a vector"),
    "offdiag": Function(lambda m: m - torch.diag_embed(torch.diagonal(m, dim1=-2, dim2=-1)), "M with its diagonal set to 0"),
    "ct": Function(lambda m: m.mH, "conjugate transpose M^*"),
    "re": Function(lambda x: torch.real(x) if x.is_complex() else x, "real part"),
    "im": Function(lambda x: torch.imag(x) if x.is_complex() else torch.zeros_like(x), "imaginary part"),
    "max_comm": Function(_max_comm, "max_{k,l} ||[L_k, L_l]|| over a family of matrices"),
    # positions and rotations
    "displacement": Function(_displacement, "relative position displacement(ri, rj): rj - ri or ri - rj",
                             conventions=(_DISPLACEMENT,)),
    "rotation_angle": Function(_rotation_angle, "angle of the rotation of a unit quaternion"),
}

for _name, _record in VOCABULARY.items():
    _record.name = _name

# Special forms: the evaluator hands them their unevaluated argument (a hook of dsl.evaluate).
SPECIAL_FORMS = {"E": "expectation over the random hypotheses (Monte Carlo)"}


def names() -> set[str]:
    return set(VOCABULARY) | set(SPECIAL_FORMS)


# function name -> substitute(record, conventions) -> record: the user's code bound in place of a reference
# function, with the claim's conventions mapped (filled by checks/roles.py while a binding is active)
SUBSTITUTES: dict[str, Callable[[Function, Mapping[str, str]], Function]] = {}


def resolve(called: Iterable[str], conventions: Mapping[str, str] | None = None) -> dict[str, Function]:
    """The records of the functions a check calls: the one place a name of the language is bound to an
    implementation (a compiled check evaluates through this table in every backend). The special forms,
    which the backends evaluate themselves, have no record. A function bound to the user's code resolves
    to that code, adapted to ``conventions`` (the claim's); a function defined through a bound one
    (``Function.through``) resolves to its implementation calling that code."""
    out = {}
    for name in called:
        if name in VOCABULARY:
            out[name] = _resolve_one(VOCABULARY[name], dict(conventions or {}))
    return out


def _resolve_one(record: Function, conventions: dict[str, str]) -> Function:
    substitute = SUBSTITUTES.get(record.name)
    if substitute is not None:
        return substitute(record, conventions)
    if not record.through:
        return record
    inner = {kw: _resolve_one(VOCABULARY[name], conventions) for kw, name in record.through}
    bound = [r for r in inner.values() if r.binding is not None]
    if not bound:
        return record
    computes_in = lowest(r.precision for r in inner.values())
    # the user's code runs inside: no exact meaning (those are the reference's), no batched-kernel path of
    # the reference, the precision and the binding of the code it calls
    return ThroughFunction(**{**{f.name: getattr(record, f.name) for f in dataclasses.fields(Function)},
                              "torch": functools.partial(record.torch, **{kw: r.torch for kw, r in inner.items()}),
                              "sympy": None, "ball": None, "precise": None, "reference": False,
                              "binding": bound[0].binding,
                              "precision": computes_in if computes_in != torch.float64 else None},
                           wanted=tuple(sorted(conventions.items())))


@dataclass
class ThroughFunction(Function):
    """A reference function whose implementation calls bound code (``Function.through``)."""

    wanted: tuple = ()

    def __reduce__(self) -> tuple:
        return (_reresolved, (self.name, self.wanted))


def _reresolved(name: str, wanted: tuple) -> Function:
    """A record arriving in a worker process, which activated the same bindings."""
    return resolve([name], dict(wanted))[name]


def lookup(name: str) -> Function:
    """The record of one function name (how a record travels to a worker process: by its name)."""
    return VOCABULARY[name]


def _meaning(backend: str, name: str) -> Callable:
    def register(fn: Callable) -> Callable:
        record = VOCABULARY.get(name)
        if record is None:
            raise KeyError(f"{backend} meaning for {name!r}, which is not in the vocabulary")
        if getattr(record, backend) is not None:
            raise KeyError(f"{name!r} already has a {backend} meaning")
        setattr(record, backend, fn)
        return fn
    return register


def sympy_meaning(name: str) -> Callable:
    """Decorator: the SymPy meaning of vocabulary function ``name``."""
    return _meaning("sympy", name)


def ball_meaning(name: str) -> Callable:
    """Decorator: the ball-arithmetic meaning of vocabulary function ``name``."""
    return _meaning("ball", name)


def precise_meaning(name: str) -> Callable:
    """Decorator: the 60-digit (mpmath) meaning of vocabulary function ``name``."""
    return _meaning("precise", name)
