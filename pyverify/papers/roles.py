"""The roles of the papers' mechanisms: what a user binds their own code to (``pyverify check --bind``).

One role per mechanism the registry's checks exercise, at the granularity a user's code has it; each is
the reference function of ``functions.py`` that it replaces, with the calling convention the bound callable
follows and, for each convention the mechanism has, how a callable written under one value is turned into
one computing under the other (the conversions are exact: permutations, sign changes, rescalings).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import torch

from .. import plugin


def _halves_to_pairs(x: torch.Tensor) -> torch.Tensor:
    """(x_0..x_{h-1}, y_0..y_{h-1}) -> (x_0, y_0, x_1, y_1, ...): the half-split layout read as adjacent pairs."""
    h = x.shape[-1] // 2
    return torch.stack((x[..., :h], x[..., h:]), dim=-1).flatten(-2)


def _pairs_to_halves(x: torch.Tensor) -> torch.Tensor:
    return torch.cat((x[..., 0::2], x[..., 1::2]), dim=-1)


def _pairing(fn: Callable, have: str, want: str) -> Callable:
    """A rotary map written for the ``have`` pairing of planes, applied to vectors in the ``want`` layout."""
    into, back = (_pairs_to_halves, _halves_to_pairs) if have == "half" else (_halves_to_pairs, _pairs_to_halves)

    @functools.wraps(fn)
    def call(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return back(fn(into(x), *args, **kwargs))

    return call


def _pairing_of_scores(fn: Callable, have: str, want: str) -> Callable:
    """Rotary scores written for the ``have`` pairing, of q and k in the ``want`` layout: both permuted the
    same way, so the logits (inner products) need no conversion back."""
    into = _pairs_to_halves if have == "half" else _halves_to_pairs

    @functools.wraps(fn)
    def call(q: torch.Tensor, k: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return fn(into(q), into(k), *args, **kwargs)

    return call


def _negate(*positions: int) -> Callable:
    """The displacement convention of a map of positions: the opposite sign of rotation is the map at the
    negated positions (``positions``: the indices of the position arguments)."""

    def convert(fn: Callable, have: str, want: str) -> Callable:
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            args = tuple(-a if i in positions else a for i, a in enumerate(args))
            return fn(*args, **kwargs)

        return call

    return convert


def _transpose_scores(fn: Callable, have: str, want: str) -> Callable:
    """Scores written key-major (keys x queries) read query-major, or the other way: a transposition."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> torch.Tensor:
        return fn(*args, **kwargs).transpose(-1, -2)

    return call


def _logit_scale(fn: Callable, have: str, want: str) -> Callable:
    """Logits scaled by 1/sqrt(d) read as scaled by 1/sqrt(2m) = 1/sqrt(tr Pi), or the other way; an
    explicit ``scale=`` of the check is passed through unchanged."""

    @functools.wraps(fn)
    def call(q: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        out = fn(q, *args, **kwargs)
        if kwargs.get("scale") is not None:
            return out
        Pi = kwargs.get("Pi")
        active = torch.diagonal(torch.as_tensor(Pi), dim1=-2, dim2=-1).sum(-1) if Pi is not None \
            else torch.tensor(float(q.shape[-1]), dtype=q.dtype)
        full = math.sqrt(q.shape[-1])
        ratio = full / active.sqrt() if have == "1/sqrt(d)" else active.sqrt() / full
        return out * ratio

    return call


def _feature_sign(fn: Callable, have: str, want: str) -> Callable:
    """exp(-Wx - |x|^2/2) is exp(+(-W)x - |x|^2/2): the other sign is the map at -W."""

    @functools.wraps(fn)
    def call(x: torch.Tensor, W: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return fn(x, -W, *args, **kwargs)

    return call


def _rotor(fn: Callable, have: str, want: str) -> Callable:
    """exp(u/2) at u is exp(u) at u/2; exp(u) at u is exp(u/2) at 2u."""
    factor = 2.0 if have == "exp(u/2)" else 0.5

    @functools.wraps(fn)
    def call(u: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return fn(u * factor, *args, **kwargs)

    return call


def _per_coordinate(planes: torch.Tensor, pairing: str) -> torch.Tensor:
    """(..., d/2) one value per plane -> (..., d) per coordinate: plane i is (i, i + d/2) in the half
    pairing, (2i, 2i + 1) in the adjacent one."""
    return torch.cat((planes, planes), dim=-1) if pairing == "half" else planes.repeat_interleave(2, dim=-1)


def _decay_factor(decay: Any, pos: torch.Tensor, like: torch.Tensor, side: str, pairing: str) -> torch.Tensor:
    """(..., n, d) the declared decay's factor of every coordinate of vectors ``like`` (..., n, d) at ``pos``."""
    return _per_coordinate(decay.factor(pos, like.shape[-1], side), pairing).to(like.dtype)


def _undo_decay_of_rotary(fn: Callable, decay: Any, conventions: dict) -> Callable:
    """A query-side rotary map that scales plane i by zeta_i^(p/s) on top of the rotation, divided by it."""
    pairing = conventions.get("pairing", "adjacent")

    @functools.wraps(fn)
    def call(x: torch.Tensor, pos: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        out = fn(x, pos, *args, **kwargs)
        return out / _decay_factor(decay, pos, out, "query", pairing)

    return call


def _undo_decay_of_scores(fn: Callable, decay: Any, conventions: dict) -> Callable:
    """Rotary scores whose query i and key j are scaled by zeta^(p_i/s) and zeta^(-p_j/s) plane by plane,
    given queries and keys divided by those factors beforehand: the logits of the rotation alone (the
    factors act on each plane, which the rotation keeps)."""
    pairing = conventions.get("pairing", "adjacent")

    @functools.wraps(fn)
    def call(q: torch.Tensor, k: torch.Tensor, pos: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        q = q / _decay_factor(decay, pos, q, "query", pairing)
        k = k / _decay_factor(decay, pos, k, "key", pairing)
        return fn(q, k, pos, *args, **kwargs)

    return call


SCORES = ("query-major", "key-major")

ROLES = {
    "rotation": dict(function="R_str", doc="R(L, r) -> (d, d): the rotation at position r (d_c,) of the generators "
                     "L (d_c, d, d), exp(sum_k r_k L_k) in the reference", conventions={"displacement": ("rj-ri", _negate(1))}),
    "rotary": dict(function="rope", doc="rope(x, pos) -> (..., n, d): the rotary embedding of x (..., n, d) at integer "
                   "or real positions pos (..., n), frequencies 10000^(-2i/d); with a declared decay, the query's side",
                   conventions={"pairing": ("adjacent", _pairing), "displacement": ("rj-ri", _negate(1))},
                   decay=_undo_decay_of_rotary),
    "rotary_scores": dict(function="rope_scores", doc="scores(q, k, pos) -> (..., n, n): the pre-softmax logits of "
                          "rotary self-attention, rope(q, pos) rope(k, pos)^T / sqrt(d); q, k (..., n, d) of one sequence at "
                          "positions pos (..., n)",
                          conventions={"pairing": ("adjacent", _pairing_of_scores), "displacement": ("rj-ri", _negate(2)),
                                       "layout": ("query-major", _transpose_scores)}, layouts=SCORES,
                          decay=_undo_decay_of_scores),
    "structured_rotary": dict(function="rstr_apply", doc="apply(x, r, U, freqs) -> (..., n, d): R(r_i) x_i in U's "
                              "basis, x (..., n, d), r (..., n, d_c), U (d, d) or None, freqs (d_c, m)",
                              conventions={"displacement": ("rj-ri", _negate(1))}),
    "relative_logits": dict(function="espr_logits", doc="logits(q, k, r_q, r_k, L, P=None, Pi=None) -> (..., n, n'): "
                            "(Pi R(r_i) P Pi q_i)^T (Pi R(r_j) P Pi k_j) times the logit scale; q (..., n, d), "
                            "k (..., n', d), r_q (..., n, d_c), r_k (..., n', d_c), L (d_c, d, d)",
                            conventions={"displacement": ("rj-ri", _negate(2, 3)), "logit_scale": ("1/sqrt(2m)", _logit_scale),
                                         "layout": ("query-major", _transpose_scores)}, layouts=SCORES),
    "scores": dict(function="euclidean_logits", doc="scores(Q, K, tau=...) -> (n, n'): Q K^T / tau",
                   conventions={"layout": ("query-major", _transpose_scores)}, layouts=SCORES),
    "gsm_logits": dict(function="gsm_logits", doc="logits(q, k, tau=...) -> (n, n'): -d_geo(q_i, k_j)^2 / (2 tau) of "
                       "unit quaternions q (n, 4), k (n', 4)", conventions={"layout": ("query-major", _transpose_scores)},
                       layouts=SCORES),
    "random_features": dict(function="phi", doc="phi(x, W) -> (..., m): positive random features exp(Wx - |x|^2/2)/sqrt(m)",
                            conventions={"feature_sign": ("plus", _feature_sign)}),
    "rotor": dict(function="qexp", doc="qexp(u) -> (4,): the unit quaternion (scalar first) of the pure quaternion u (3,)",
                  conventions={"rotor": ("exp(u)", _rotor)}),
    "sinusoidal_encoding": dict(function="sinusoidal", doc="sinusoidal(n, d) -> (n, d): the sinusoidal positional encoding"),
    "mds_encoding": dict(function="mds", doc="mds(D, d) -> (n, d): positions from a distance matrix D (n, n) by "
                         "classical MDS (Algorithm 1)"),
}


def register() -> None:
    for name, spec in ROLES.items():
        plugin.role(name, **spec)
