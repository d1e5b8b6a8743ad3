"""The shape of a defect, recognised at a refutation's witness: pure functions over the two sides of a
violated identity (float64 tensors) and over the same sides evaluated at chosen variations of the witness
(``engine/probe.py`` computes those). Each recogniser returns one sentence a user can act on, or None;
each says nothing where the sides agree, so a correct implementation never gets a diagnosis.

The shapes: a transposition, two hypotheses exchanged (a reversed displacement sign), a constant factor,
one rotation plane (a frequency) wrong, a factor per plane growing with the position (a decay, compared
with the one the binding declares), a row or column pattern (queries against keys), a defect that enters
through one hypothesis alone, a product of sums in place of a dot product, and a value that depends on
the call history (a cache).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch

from .evidence import Diagnosis

# two float64 evaluations of the same mathematics agree to this relative size (code under test may run in
# float32 inside: 1e-6 leaves it room, and every defect recognised here is far larger)
EQUAL_RTOL = 1e-6
Pair = tuple[torch.Tensor, torch.Tensor]  # (left side, right side) at one instance


@dataclass
class RelationProbe:
    """One violated identity at the witness and at the variations the engine evaluated (each a Pair)."""

    relation: str
    left: str  # how the sentences call the two sides
    right: str
    at_witness: Pair
    again: Pair | None = None  # the witness evaluated once more, after other instances
    history: str | None = None  # a bound call whose result changed when replayed after another call
    # the witness with its scalars at 0 moved to 1: a shrunk witness often has a position at 0, where
    # exchanging or zeroing positions would be degenerate; the next two variations start from it
    base: Pair | None = None
    exchanged: dict[tuple[str, str], Pair] = field(default_factory=dict)  # two like hypotheses swapped
    # the same exchange at a fresh instance: (the sides there, the sides exchanged there)
    exchanged_elsewhere: dict[tuple[str, str], tuple[Pair, Pair]] = field(default_factory=dict)
    zeroed: dict[str, Pair] = field(default_factory=dict)  # one scalar hypothesis set to 0
    sum_fixed: dict[str, Pair] = field(default_factory=dict)  # one vector moved with its sum kept
    half_zeroed: dict[str, Pair] = field(default_factory=dict)  # one vector with its even entries at 0
    others: list[Pair] = field(default_factory=list)  # fresh instances of the hypotheses
    others_scalars: list[dict[str, float]] = field(default_factory=list)  # their scalar hypotheses, in order
    vectors: dict[str, torch.Tensor] = field(default_factory=dict)  # the witness's vector hypotheses
    scalars: dict[str, float] = field(default_factory=dict)  # the witness's scalar hypotheses
    # the decay a binding of the claim's code declares: head size d -> (d/2,) rates log(zeta_i) / scale
    # (the query's factor in plane i at position p is exp(rate_i p)); None: none declared
    decay_rates: Callable[[int], torch.Tensor] | None = None


def _size(x: torch.Tensor) -> float:
    return float(torch.linalg.vector_norm(x.reshape(-1))) if x.numel() else 0.0


def _largest(x: torch.Tensor) -> float:
    return float(x.abs().max()) if x.numel() else 0.0


def close(a: torch.Tensor, b: torch.Tensor, rtol: float = EQUAL_RTOL) -> bool:
    """Equal up to rounding, relative to the larger of the two (broadcast, or unequal when they cannot)."""
    try:
        a, b = torch.broadcast_tensors(a, b)
    except RuntimeError:
        return False
    scale = max(_size(a), _size(b))
    return _size(a - b) <= rtol * scale if scale > 0 else True


def _num(x: float) -> str:
    return f"{x:.4g}"


def transposed(p: RelationProbe) -> str | None:
    lhs, rhs = p.at_witness
    if lhs.dim() != 2 or lhs.shape[0] != lhs.shape[1] or lhs.shape[0] < 2 or close(lhs, lhs.T) or close(lhs, rhs):
        return None
    if not close(lhs, rhs.T):
        return None
    return (f"{p.left} equals {p.right} transposed: check the order of the contraction (S[i, j] = ⟨q_i, k_j⟩: "
            "queries index the rows, keys the columns), an einsum or matmul with its two indices swapped.")


def _matches_exchanged(sides: Pair, swapped: Pair) -> bool:
    return close(swapped[0], sides[1]) or close(sides[0], swapped[1])


def _matches_elsewhere(p: RelationProbe, pair: tuple[str, str]) -> bool:
    """The exchange explains the fresh instance too, where the sides differ there (a shrunk witness's round
    values can make one exchange match by coincidence)."""
    if pair not in p.exchanged_elsewhere:
        return True
    there, swapped = p.exchanged_elsewhere[pair]
    return close(*there) or _matches_exchanged(there, swapped)


def exchanged(p: RelationProbe) -> str | None:
    """Left equals right with two like hypotheses traded; positions (scalars) named before vectors."""
    lhs, rhs = p.base if p.base is not None else p.at_witness
    if close(lhs, rhs):
        return None
    found = [pair for pair, swapped in p.exchanged.items()
             if _matches_exchanged((lhs, rhs), swapped) and _matches_elsewhere(p, pair)]
    if not found:
        return None
    found.sort(key=lambda pair: pair[0] not in p.scalars)
    (a, b), rest = found[0], found[1:]
    also = f" (equally with {', '.join(f'{x} and {y}' for x, y in rest)} exchanged)" if rest else ""
    if a in p.scalars:
        return (f"{p.left} equals {p.right} with {a} and {b} exchanged{also}: check the sign of the displacement "
                f"({b} − {a} against {a} − {b}).")
    return (f"{p.left} equals {p.right} with {a} and {b} exchanged{also}: check which of {a}, {b} the code takes "
            "first (queries against keys), or the sign of the displacement between them.")


def constant_factor(p: RelationProbe) -> str | None:
    """One factor c ≠ 1 with left = c · right at the witness and at every fresh instance (two at least),
    where the right side varies between them (two constants always have a ratio: that says nothing)."""
    pairs = [pr for pr in [p.at_witness, *p.others] if pr[0].shape == pr[1].shape and _size(pr[1]) > 0]
    if len(pairs) < 3 or any(x.is_complex() or not torch.isfinite(x).all() for pr in pairs for x in pr):
        return None
    if all(close(pr[1], pairs[0][1]) for pr in pairs[1:]):
        return None
    lhs = torch.cat([pr[0].reshape(-1) for pr in pairs])
    rhs = torch.cat([pr[1].reshape(-1) for pr in pairs])
    c = float(lhs @ rhs / (rhs @ rhs))
    if abs(c - 1) <= 1e-3 or not close(lhs, c * rhs):
        return None
    if abs(c + 1) <= 1e-6:
        return f"{p.left} is the negative of {p.right} at every instance tried: a sign error."
    square = round(c * c) if abs(c * c - round(c * c)) < 1e-6 else None
    root = f", {'-' if c < 0 else ''}√{square}" if square not in (None, 0, 1) and abs(abs(c) - round(abs(c))) > 1e-6 else ""
    return (f"{p.left} is {_num(c)} times {p.right} at every instance tried (a constant factor{root}): check the "
            "scaling, e.g. 1/√d against 1/√(2m), or a factor 2 dropped or doubled.")


def _coordinates_that_differ(lhs: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor | None:
    """Indices of the last axis where some entry differs (over every leading index)."""
    try:
        lhs, rhs = torch.broadcast_tensors(lhs, rhs)
    except RuntimeError:
        return None
    if lhs.dim() == 0:
        return None
    scale = max(_largest(lhs), _largest(rhs))
    bad = ((lhs - rhs).abs() > EQUAL_RTOL * scale).reshape(-1, lhs.shape[-1]).any(0)
    return torch.nonzero(bad).reshape(-1)


def one_plane(p: RelationProbe) -> str | None:
    lhs, rhs = p.at_witness
    if lhs.dim() == 0 or lhs.shape[-1] < 4 or lhs.shape[-1] % 2:
        return None
    idx = _coordinates_that_differ(lhs, rhs)
    if idx is None or idx.numel() == 0:
        return None
    d, coords = lhs.shape[-1], set(idx.tolist())
    for k in range(d // 2):
        if coords <= {2 * k, 2 * k + 1}:
            return (f"the sides agree except in coordinates {2 * k} and {2 * k + 1} (plane {k} of the adjacent "
                    f"pairing): check that plane's frequency or rotation; the other planes are right.")
        if coords <= {k, k + d // 2}:
            return (f"the sides agree except in coordinates {k} and {k + d // 2} (plane {k} of the half pairing): "
                    "check that plane's frequency or rotation; the other planes are right.")
    return None


def _plane_factors(lhs: torch.Tensor, rhs: torch.Tensor) -> tuple[str, torch.Tensor] | None:
    """(pairing, (d/2,) factors c_i) with left = c_i · right in every plane i of one pairing, where the
    right side is nonzero in every plane; None when no pairing splits the sides so."""
    if lhs.shape != rhs.shape or lhs.dim() == 0 or lhs.shape[-1] < 2 or lhs.shape[-1] % 2 or lhs.is_complex() \
            or rhs.is_complex() or not (torch.isfinite(lhs).all() and torch.isfinite(rhs).all()):
        return None
    d = lhs.shape[-1]
    h = d // 2
    for pairing, order in (("adjacent", [c for i in range(h) for c in (2 * i, 2 * i + 1)]),
                           ("half", [c for i in range(h) for c in (i, i + h)])):
        left = lhs[..., order].reshape(-1, h, 2).transpose(0, 1).reshape(h, -1)
        right = rhs[..., order].reshape(-1, h, 2).transpose(0, 1).reshape(h, -1)
        energy = (right * right).sum(1)
        if bool((energy <= 0).any()):
            return None
        c = (left * right).sum(1) / energy
        if close(left, c[:, None] * right):
            return pairing, c
    return None


# what a fitted decay of k times the declared one means: the decay the code applies, against the declared
DECAY_MULTIPLES = {
    -2: ("is applied to the wrong side: the code divides the query by the declared factor and multiplies "
         "the key (xpos's ζ^(p/s) and ζ^(−p/s) exchanged) — apply the decay to the query and its inverse to "
         "the key"),
    -1: "is not applied at all, though the binding declares it — apply it, or drop the declaration",
    1: "is applied twice — apply it once, or declare the decay the code really applies",
}


def plane_decay(p: RelationProbe) -> str | None:
    """Each plane's left side is its right side times a factor of its own, growing or shrinking with the
    position: a decay (xpos) where the claim has a rotation. Against a decay the binding declares (divided
    out before the claim ran), the rate left over says how the code applied it."""
    lhs, rhs = p.at_witness
    found = _plane_factors(lhs, rhs)
    if found is None:
        return None
    pairing, c = found
    if bool((c <= 0).any()) or bool(((c - 1).abs() <= EQUAL_RTOL).all()):
        return None
    positions = [(n, v) for n, v in p.scalars.items() if v != 0]
    if len(positions) != 1:
        return None
    name, at = positions[0]
    rates = c.log() / at
    factors = ", ".join(_num(float(x)) for x in c)
    if p.decay_rates is not None:
        try:
            declared = p.decay_rates(lhs.shape[-1]).to(rates.dtype)
        except ValueError:
            declared = None
        if declared is not None and bool((declared != 0).all()):
            multiple = rates / declared
            for k, meaning in DECAY_MULTIPLES.items():
                if bool(((multiple - k).abs() <= 1e-3 * abs(k)).all()):
                    return (f"plane by plane ({pairing} pairing), {p.left} is {p.right} times ({factors}) at "
                            f"{name} = {_num(at)}: exp({k} × the declared decay's rate × {name}) in every plane. "
                            f"The decay the binding declares {meaning}.")
    if c.numel() >= 2 and not bool(((c - c[0]).abs() <= 1e-3 * c.abs().max()).all()):
        shown = ", ".join(_num(math.exp(float(r))) for r in rates)
        return (f"plane by plane ({pairing} pairing), {p.left} is {p.right} times its own factor ({factors}) at "
                f"{name} = {_num(at)}, i.e. ({shown})^{name}: a per-plane decay (xpos-like) where the claim has an "
                "orthogonal rotation. If the code means it, declare it in the binding (decay=xpos:SCALE, or "
                "pyverify_decay); else find the factor applied per plane.")
    # one factor for every plane: a decay only if the same rate explains the fresh instances, at their own
    # positions (else a constant factor, said elsewhere)
    agreeing = 0
    for pair, scalars in zip(p.others, p.others_scalars):
        there, elsewhere = _plane_factors(*pair), scalars.get(name, 0.0)
        if there is None or there[0] != pairing or elsewhere == 0 or bool((there[1] <= 0).any()):
            return None
        if not bool(((there[1].log() / elsewhere - rates).abs() <= 1e-3 * rates.abs().max()).all()):
            return None
        agreeing += 1
    if agreeing < 2:
        return None
    return (f"{p.left} is {p.right} times {_num(math.exp(float(rates.mean())))}^{name} at every instance tried "
            f"({factors} at {name} = {_num(at)}): a factor that grows with the position (a decay, xpos-like) where "
            "the claim has an orthogonal rotation. If the code means it, declare it in the binding "
            "(decay=xpos:SCALE, or pyverify_decay); else find where the vectors are scaled by their position.")


def _agreeing(diff: torch.Tensor, sides: tuple[torch.Tensor, torch.Tensor], scale: float, dim: int) -> list[int]:
    """The rows (dim=1) or columns (dim=0) in which the sides agree and are not both zero (a row of a zero
    query agrees whatever the defect: it says nothing)."""
    agree = (diff.abs() <= EQUAL_RTOL * scale).all(dim)
    alive = torch.maximum(sides[0].abs(), sides[1].abs()).amax(dim) > EQUAL_RTOL * scale
    return torch.nonzero(agree & alive).reshape(-1).tolist()


def _where_zero(p: RelationProbe, indices: list[int], length: int) -> str | None:
    """The hypothesis (a vector of ``length``, e.g. the positions) that is zero exactly at ``indices``."""
    for name, v in p.vectors.items():
        if v.shape == (length,) and (0 < len(indices) < length) and \
                torch.nonzero(v == 0).reshape(-1).tolist() == indices:
            return name
    return None


def rows_columns(p: RelationProbe) -> str | None:
    """A score-like matrix whose disagreement sits in whole columns (keys) or whole rows (queries)."""
    lhs, rhs = p.at_witness
    if lhs.dim() != 2 or lhs.shape != rhs.shape or min(lhs.shape) < 2:
        return None
    scale = max(_largest(lhs), _largest(rhs))
    diff = lhs - rhs
    rows, cols = _agreeing(diff, (lhs, rhs), scale, 1), _agreeing(diff, (lhs, rhs), scale, 0)
    n, m = lhs.shape
    if cols and len(cols) < m and not rows:
        zero = _where_zero(p, cols, m)
        if zero is not None:
            decay = (f", or scaled by a decay of {zero} on the wrong side (the binding declares a decay)"
                     if p.decay_rates is not None else "")
            return (f"the sides agree exactly in the columns whose {zero} is 0 ({', '.join(map(str, cols))}) and "
                    f"differ in the others: the keys are rotated wrongly by their {zero} — a key rotated by "
                    f"-{zero} (a key-only sign flip) or at another position{decay}; check the keys' rotation"
                    + (" and decay." if decay else "."))
        return (f"the sides agree in column(s) {', '.join(map(str, cols))} and differ in the others: the defect "
                "follows the column index — check how the keys (the second index: their rotation, position or "
                "sign) are treated.")
    if rows and len(rows) < n and not cols:
        zero = _where_zero(p, rows, n)
        if zero is not None:
            return (f"the sides agree exactly in the rows whose {zero} is 0 ({', '.join(map(str, rows))}) and differ "
                    f"in the others: the queries are rotated wrongly by their {zero} — a query rotated by "
                    f"-{zero} or at another position; check the queries' rotation.")
        return (f"the sides agree in row(s) {', '.join(map(str, rows))} and differ in the others: the defect "
                "follows the row index — check how the queries (the first index) are treated.")
    return None


def _follows(agree: torch.Tensor, alive: torch.Tensor, zeroed: list[int]) -> bool:
    """Among the lines that are not zero on both sides, the agreeing ones are exactly the zeroed ones (some
    of each kind present)."""
    mask = torch.zeros_like(agree)
    mask[zeroed] = True
    live = alive.nonzero().reshape(-1)
    return bool(len(live)) and bool((agree[live] == mask[live]).all()) and bool(mask[live].any()) \
        and bool((~mask[live]).any())


def through_entries(p: RelationProbe) -> str | None:
    """With one vector's even entries set to 0 (the positions of every other token), the score-like sides agree
    in exactly those columns (or rows): the defect enters through that vector on the keys' (queries') side."""
    for name, (lhs, rhs) in p.half_zeroed.items():
        if lhs.dim() != 2 or lhs.shape != rhs.shape or min(lhs.shape) < 2:
            continue
        scale = max(_largest(lhs), _largest(rhs))
        if scale == 0.0:
            continue
        agree = (lhs - rhs).abs() <= EQUAL_RTOL * scale
        alive = torch.maximum(lhs.abs(), rhs.abs()) > EQUAL_RTOL * scale
        columns, rows = list(range(0, lhs.shape[1], 2)), list(range(0, lhs.shape[0], 2))
        if _follows(agree.all(0), alive.any(0), columns):
            decay = (f", or scaled by a decay of {name} on the wrong side (the binding declares a decay)"
                     if p.decay_rates is not None else "")
            return (f"with {name} set to 0 at entries {', '.join(map(str, columns))}, the sides agree in exactly "
                    f"those columns: the keys are treated wrongly through their {name} — a key rotated by -{name} "
                    f"(a key-only sign flip) or at another position{decay}; check the keys' rotation"
                    + (" and decay." if decay else "."))
        if _follows(agree.all(1), alive.any(1), rows):
            return (f"with {name} set to 0 at entries {', '.join(map(str, rows))}, the sides agree in exactly those "
                    f"rows: the queries are treated wrongly through their {name} — check the queries' rotation.")
    return None


def _rank_one(x: torch.Tensor) -> bool | None:
    """Is a matrix (numerically) of rank one; None when it is too small or zero to tell."""
    if x.dim() != 2 or min(x.shape) < 2:
        return None
    s = torch.linalg.svdvals(x.to(torch.complex128 if x.is_complex() else torch.float64))
    if float(s[0]) == 0.0:
        return None
    return float(s[1]) <= 1e-6 * float(s[0])


def enters_through(p: RelationProbe) -> str | None:
    """From an instance where the sides differ and no scalar is 0: they agree once one scalar hypothesis is
    set to 0 and still differ when any other is (with a single nonzero position, zeroing it would make
    every relative defect vanish at once, which says nothing)."""
    zeroed = p.zeroed
    if len(zeroed) < 2 or p.base is None or close(*p.base):
        return None
    agree = [name for name, (lhs, rhs) in zeroed.items() if close(lhs, rhs)]
    if len(agree) != 1:
        return None
    name = agree[0]
    others = ", ".join(n for n in zeroed if n != name)
    return (f"the sides agree when {name} = 0 and still differ when {others} = 0: the defect enters through "
            f"{name} — check how {name} is applied (for a key's position: the key's rotation and its sign).")


def product_of_sums(p: RelationProbe) -> str | None:
    lhs, rhs = p.at_witness
    if close(lhs, rhs):
        return None
    for name, (lhs_s, rhs_s) in p.sum_fixed.items():
        if close(lhs_s, lhs) and not close(rhs_s, rhs):
            return (f"{p.left} does not change when {name} moves with the sum of its entries kept: it depends on "
                    f"{name} only through Σ{name} — a product of sums, (Σ{name})(Σ…), where the claim has a dot "
                    "product: check the contraction (an einsum summing each vector on its own).")
    if _rank_one(lhs) and _rank_one(rhs) is False:
        return (f"{p.left} is a rank-one matrix, an outer product a bᵀ, where {p.right} is not: every score is a "
                "product of one number per query and one per key, as a product of sums (Σq)(Σk) is — check the "
                "contraction (an einsum summing q and k each on its own where the claim has qᵀk).")
    if lhs.numel() != 1:
        return None
    names = list(p.vectors)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            va, vb = p.vectors[a], p.vectors[b]
            if va.shape == vb.shape and close(lhs.reshape(()), va.sum() * vb.sum()):
                return (f"{p.left} equals (Σ{a})(Σ{b}), the product of the sums of their entries: a contraction "
                        f"that sums {a} and {b} separately where the claim has {a}ᵀ{b}.")
    return None


def call_history(p: RelationProbe) -> str | None:
    if p.history is not None:
        return p.history
    if p.again is None:
        return None
    (lhs, rhs), (lhs2, rhs2) = p.at_witness, p.again
    for side, first, second in ((p.left, lhs, lhs2), (p.right, rhs, rhs2)):
        if not close(first, second, 1e-12):
            return (f"{side} gives different values at the same inputs, evaluated twice with other calls between: "
                    "it depends on the call history (a cache or state kept between calls) — key the cache by "
                    "every input it depends on (positions, offsets, dtype) or check with it off.")
    return None


RECOGNISERS = (("transposed", transposed), ("exchanged", exchanged), ("constant-factor", constant_factor),
               ("one-plane", one_plane), ("plane-decay", plane_decay), ("rows-columns", rows_columns), ("enters-through", enters_through),
               ("through-entries", through_entries),
               ("product-of-sums", product_of_sums))


def diagnose(probe: RelationProbe) -> list[Diagnosis]:
    """What the probe's evaluations recognise. A value that depends on the call history makes every other
    comparison unreliable: then that alone is said."""
    history = call_history(probe)
    if history is not None:
        return [Diagnosis("call-history", probe.relation, history)]
    found = []
    for kind, recognise in RECOGNISERS:
        if kind == "exchanged" and found and found[-1].kind == "transposed":
            continue  # a transposed score matrix is its two factors exchanged: one sentence says it
        message = recognise(probe)
        if message is not None:
            found.append(Diagnosis(kind, probe.relation, message))
    return found


def where_they_differ(lhs: torch.Tensor, rhs: torch.Tensor, limit: int = 8) -> str | None:
    """The entries at which two arrays of one shape differ beyond rounding, when only some do."""
    if lhs.shape != rhs.shape or lhs.dim() == 0 or lhs.numel() < 2:
        return None
    scale = max(_largest(lhs), _largest(rhs))
    bad = torch.nonzero((lhs - rhs).abs() > EQUAL_RTOL * scale)
    if len(bad) == 0 or len(bad) == lhs.numel():
        return None
    shown = ", ".join("[" + ", ".join(map(str, i.tolist())) + "]" for i in bad[:limit])
    more = f" and {len(bad) - limit} more" if len(bad) > limit else ""
    return f"they differ at {len(bad)} of {lhs.numel()} entries: {shown}{more}; the others agree."
