"""The evaluations a diagnosis needs (``engine/diagnose.py`` reads them): a confirmed counterexample's
violated identities evaluated once more at the witness, with two like hypotheses exchanged, with one
scalar hypothesis at 0, with one vector moved along a direction that keeps its sum, and at a few fresh
instances. All on the one-instance float64 path; a variation that fails to evaluate is left out, and the
whole probe never affects the refutation it explains (the caller keeps the counterexample whatever
happens here).
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from ..checks import roles
from ..checks.compiled import Compiled
from .context import CPU64
from .diagnose import Pair, RelationProbe, diagnose, where_they_differ
from .evidence import DefectDiagnosis
from .sandbox import ClaimOverBudget
from .scoring import score_sides

FRESH_INSTANCES = 4
MAX_EXCHANGES = 12  # pairs of like hypotheses tried (a check with many positions has many pairs)
MAX_REPLAYED = 16  # calls of bound code replayed to see whether their results depend on the call history
MAX_SIDE_NAME = 48  # a longer side expression is called "the left/right side"


def _name(text: str, fallback: str) -> str:
    return f"`{text}`" if len(text) <= MAX_SIDE_NAME else fallback


def _pairs(comp: Compiled, values: dict, wanted: list[int]) -> list[Pair] | None:
    try:
        with torch.no_grad():
            sides = comp.evaluate_values(values, CPU64).relation_sides()
    except ClaimOverBudget:
        raise  # the claim's time is up: no further variation
    except Exception:  # noqa: BLE001 - a variation outside what the code accepts tells nothing
        return None
    return [(_as64(sides[i][1][0]), _as64(sides[i][2][0])) for i in wanted]


def _as64(x: torch.Tensor) -> torch.Tensor:
    """float64, or complex128 for a complex side (its imaginary part is part of what differs)."""
    x = x.detach()
    return x.to(torch.complex128) if x.is_complex() else x.double()


def _like_pairs(comp: Compiled, values: dict) -> list[tuple[str, str]]:
    """Hypotheses of one kind (the same sampler written the same way) that can trade places."""
    names = [n for n, v in values.items() if torch.is_tensor(v)]
    spec = comp.check.given
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
            if spec.get(a, "").strip() == spec.get(b, "").strip() and values[a].shape == values[b].shape]


def _sum_keeping(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """x moved by a tenth of its size along a random direction whose entries sum to 0."""
    d = torch.randn(x.shape, generator=gen, dtype=torch.float64)
    d = d - d.mean()
    scale = 0.1 * max(float(torch.linalg.vector_norm(x)), 1.0)
    return x + scale * d / torch.linalg.vector_norm(d).clamp_min(1e-300)


def _with(values: dict, **changed: torch.Tensor) -> dict:
    return {**values, **changed}


def _admits(comp: Compiled, name: str, value: torch.Tensor) -> bool:
    sampler = comp.givens.get(name)
    try:
        return sampler is not None and bool(sampler.satisfied(value).all())
    except Exception:  # noqa: BLE001 - a sampler that cannot judge the value: no such variation
        return False


def _nonzero_base(comp: Compiled, values: dict, scalars: list[str]) -> dict:
    """The witness with each scalar at 0 moved to 1 (where its hypothesis admits 1): exchanging two positions
    or setting one to 0 then tells something, even when shrinking left a position at 0."""
    moved = {n: torch.ones_like(values[n]) for n in scalars
             if float(values[n][0]) == 0.0 and _admits(comp, n, torch.ones_like(values[n]))}
    return _with(values, **moved)


def _variations(comp: Compiled, values: dict, seed: int) -> dict[str, Any]:
    gen = torch.Generator().manual_seed(seed)
    tensors = {n: v for n, v in values.items() if torch.is_tensor(v)}
    scalars = [n for n, v in tensors.items() if v.dim() == 1]  # batch axis of 1 and nothing else
    base = _nonzero_base(comp, values, scalars)
    out: dict[str, Any] = {"exchanged": {}, "zeroed": {}, "sum_fixed": {}, "base": {"": base}}
    for a, b in _like_pairs(comp, values)[:MAX_EXCHANGES]:
        out["exchanged"][(a, b)] = _with(base, **{a: base[b], b: base[a]})
    for name in scalars:
        zero = torch.zeros_like(tensors[name])
        if float(base[name][0]) != 0.0 and _admits(comp, name, zero):
            out["zeroed"][name] = _with(base, **{name: zero})
    out["half_zeroed"] = {}
    for name, v in tensors.items():
        if v.dim() == 2 and v.shape[1] >= 2:  # a vector
            out["sum_fixed"][name] = _with(values, **{name: _sum_keeping(v[0], gen)[None]})
            # every other entry at 0 (positions: those tokens at index 0): a defect entering through the
            # entries of one side shows as agreement in exactly those rows or columns
            half = v.clone()
            half[:, 0::2] = 0
            if bool((half != v).any()) and _admits(comp, name, half):
                out["half_zeroed"][name] = _with(values, **{name: half})
    return out


def _scalars(values: dict) -> dict[str, float]:
    """The scalar hypotheses of one instance (batch axis of 1)."""
    return {n: float(v[0]) for n, v in values.items() if torch.is_tensor(v) and v.dim() == 1}


def _fresh(comp: Compiled, seed: int, wanted: list[int]) -> list[tuple[dict, list[Pair]]]:
    """The identities at a few fresh instances that meet the assumptions, with those instances' values."""
    gen = torch.Generator().manual_seed(seed + 1)
    try:
        theta = comp.init_theta(FRESH_INSTANCES, gen, CPU64)
    except Exception:  # noqa: BLE001
        return []
    found = []
    for i in range(FRESH_INSTANCES):
        try:
            with torch.no_grad():
                sides = comp.evaluate_one(theta, i, CPU64)
                if not bool(score_sides(sides, comp.check.tol, torch.float64).assume_ok[0]):
                    continue
        except ClaimOverBudget:
            raise
        except Exception:  # noqa: BLE001
            continue
        rel = sides.relation_sides()
        found.append((sides.values, [(_as64(rel[j][1][0]), _as64(rel[j][2][0])) for j in wanted]))
    return found


def diagnose_witness(comp: Compiled, values: dict, violated: list[int], names: list[tuple[str, str]],
                     seed: int) -> DefectDiagnosis:
    """The diagnosis of a counterexample: ``values`` its hypotheses (batch axis of 1), ``violated`` the
    indices of its violated identities, ``names`` the (left, right) text of every relation."""
    texts = [r.text for r in comp.relations]
    decays = {b.decay for b in roles.bindings_of(comp.functions) if b.decay is not None}
    decay_rates = next(iter(decays)).rates if len(decays) == 1 else None  # two decays: none to compare with
    with roles.recording() as calls:
        first = _pairs(comp, values, violated)
    if first is None:
        return DefectDiagnosis()
    history = roles.history_dependence(calls[:MAX_REPLAYED])
    fresh = _fresh(comp, seed, violated)
    again = _pairs(comp, values, violated)  # after other instances ran: a stale cache shows here
    variations = _variations(comp, values, seed)
    evaluate: Callable[[dict], list[Pair] | None] = lambda v: _pairs(comp, v, violated)  # noqa: E731
    if fresh:  # an exchange that matches at the witness is tried at a fresh instance too (no coincidence)
        elsewhere = fresh[0][0]
        variations["exchanged_fresh"] = {(a, b): _with(elsewhere, **{a: elsewhere[b], b: elsewhere[a]})
                                         for a, b in variations["exchanged"]}
    done = {kind: {key: evaluate(v) for key, v in table.items()} for kind, table in variations.items()}
    vectors = {n: _as64(v[0]) for n, v in values.items() if torch.is_tensor(v) and v.dim() == 2}
    diagnoses, located = [], []
    for k, i in enumerate(violated):
        left, right = names[i] if i < len(names) else ("", "")
        probe = RelationProbe(
            texts[i], _name(left, "the left side"), _name(right, "the right side"), first[k],
            again=None if again is None else again[k], history=history,
            exchanged={key: got[k] for key, got in done["exchanged"].items() if got is not None},
            exchanged_elsewhere={key: (fresh[0][1][k], got[k]) for key, got in done.get("exchanged_fresh", {}).items()
                                 if got is not None},
            zeroed={key: got[k] for key, got in done["zeroed"].items() if got is not None},
            sum_fixed={key: got[k] for key, got in done["sum_fixed"].items() if got is not None},
            half_zeroed={key: got[k] for key, got in done["half_zeroed"].items() if got is not None},
            others=[pairs[k] for _, pairs in fresh], vectors=vectors,
            others_scalars=[_scalars(v) for v, _ in fresh],
            scalars=_scalars(values),
            base=None if done["base"][""] is None else done["base"][""][k], decay_rates=decay_rates)
        diagnoses += diagnose(probe)
        where = where_they_differ(*first[k])
        if where is not None:
            located.append((texts[i], where))
    return DefectDiagnosis(tuple(diagnoses), tuple(located))
