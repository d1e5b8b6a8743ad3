"""The runner: select claims, check them serially or in worker processes, with progress.

The one entry point for every caller — the command line, the pytest plugin, the report and the
meta-tests — so that they all check a claim the same way: with the conventions the registry resolved
at load, inside the numeric settings the engine needs (float64 work, TF32 off, one intra-op thread),
which are set for the run and restored afterwards (importing pyverify changes no global torch state).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from ..registry import Registry, Verdict
from . import entailment
from .claim import run_registry_claim
from .evidence import ConstantEstimate, Tightness, TightnessSpread
from .profiles import Profile, profile
from .resolution import unresolved_below_float64
from .result import Result
from .sandbox import numeric_settings


class UnknownClaims(ValueError):
    """Claim ids that the registry does not have."""

    def __init__(self, ids: list[str]):
        self.ids = ids
        super().__init__(f"unknown claim id(s): {', '.join(ids)}")


def check_claim(registry: Registry, claim_id: str, budget: str | Profile = "default", seed: int = 0,
                device: str = "cpu") -> Result:
    """Check one claim of the registry (its resolved conventions included). A claim about other claims
    (``check.entails``) is judged from theirs, checked here with the same budget and seed."""
    if claim_id not in registry.claims:
        raise UnknownClaims([claim_id])
    claim = registry.claims[claim_id]
    if entailment.entailed(claim):
        start = time.perf_counter()
        results = {i: check_claim(registry, i, budget, seed, device) for i in entailment.entailed(claim)}
        return entailment.judge(claim, results, registry, time.perf_counter() - start)
    with numeric_settings():
        return run_registry_claim(registry, claim_id, budget, seed, device)


def check_claims(registry: Registry, ids: Sequence[str] = (), budget: str | Profile = "default", seed: int = 0,
                 device: str = "cpu", jobs: int = 1, progress: bool = False,
                 tightness_seeds: int | None = None) -> list[Result]:
    """Check the selected claims (all when ``ids`` is empty); results in registry order.

    ``jobs`` > 1 spreads claims over worker processes; every claim has its own seed, so verdicts and
    witnesses do not depend on the number of jobs. ``tightness_seeds`` > 1 re-checks every holding
    bound (and constant) with that many seeds in all and reports the spread of its tightness
    (``TightnessSpread``); by default the profile's ``tightness_seeds``."""
    chosen = profile(budget)
    results = _check_claims(registry, ids, chosen, seed, device, jobs, progress)
    # a claim held only to the precision of bound code below float64: the reference in float64 says
    # whether that precision decided it (``resolution.py``)
    results = unresolved_below_float64(
        registry, results, lambda reg, chosen_ids: _check_claims(reg, chosen_ids, chosen, seed, device, jobs, False))
    n_seeds = tightness_seeds if tightness_seeds is not None else chosen.tightness_seeds
    if n_seeds > 1:
        results = _tightness_spread(registry, results, chosen, seed, device, jobs, n_seeds)
    return results


def tightness_of(res: Result) -> float | None:
    """A holding bound's tightness, or a holding constant's smallest constant; None otherwise."""
    if res.verdict.value not in ("holds", "symbolic"):
        return None
    tight, constant = res.find(Tightness), res.find(ConstantEstimate)
    if tight is not None and tight.value is not None:
        return tight.value
    return constant.constant if constant is not None else None


def _tightness_spread(registry: Registry, results: list[Result], chosen: Profile, seed: int, device: str, jobs: int,
                      n_seeds: int) -> list[Result]:
    """The supremum found is a lower bound that depends on the seed: report it over several seeds.

    The other seeds check the claim in full, so they can find what the first missed: a counterexample found
    at any of them is the verdict (refuted, with that seed's witness and confirmation), never a gap in the
    spread. Claims about other claims are judged again from the verdicts that changed."""
    tight = {r.id: tightness_of(r) for r in results if tightness_of(r) is not None}
    if not tight:
        return results
    values = {i: [v] for i, v in tight.items()}
    verdicts = {r.id: [r.verdict.value] for r in results if r.id in tight}
    refuted_at: dict[str, tuple[int, Result]] = {}
    for extra in range(1, n_seeds):
        for r in _check_claims(registry, list(tight), chosen, seed + extra, device, jobs, False):
            values[r.id].append(tightness_of(r))
            verdicts[r.id].append(r.verdict.value)
            if r.verdict is Verdict.refuted and r.id not in refuted_at:
                refuted_at[r.id] = (seed + extra, r)
    seeds = tuple(range(seed, seed + n_seeds))
    out = []
    for r in results:
        if r.id not in tight:
            out.append(r)
            continue
        spread = TightnessSpread(seeds, tuple(values[r.id]), tuple(verdicts[r.id]))
        if r.id in refuted_at:
            at, found = refuted_at[r.id]
            r = dataclasses.replace(
                found, elapsed_s=r.elapsed_s + found.elapsed_s,
                message=f"refuted at seed {at}, one of the {n_seeds} seeds of the tightness spread (seed {seed} "
                        f"held, tightness {tight[r.id]:.3g}): {found.message}")
        out.append(r.with_evidence(spread))
    return _judged_again(registry, out, set(refuted_at))


def _judged_again(registry: Registry, results: list[Result], changed: set[str]) -> list[Result]:
    """Claims about other claims whose entailed verdicts changed after they were judged, judged again."""
    if not changed:
        return results
    by_id = {r.id: r for r in results}
    for i, r in enumerate(results):
        claim = registry.claims[r.id]
        ids = entailment.entailed(claim)
        if ids and changed & set(ids) and all(j in by_id for j in ids):
            results[i] = entailment.judge(claim, by_id, registry, r.elapsed_s)
    return results


def _check_claims(registry: Registry, ids: Sequence[str], chosen: Profile, seed: int, device: str, jobs: int,
                  progress: bool) -> list[Result]:
    unknown = [i for i in ids if i not in registry.claims]
    if unknown:
        raise UnknownClaims(unknown)
    selected = [registry.claims[i] for i in ids] if ids else list(registry.claims.values())
    about = [c for c in selected if entailment.entailed(c)]
    if about:
        # claims about other claims last, from the verdicts of the claims they entail (checked once here)
        needed = {i for c in about for i in entailment.entailed(c)}
        plain = [c.id for c in selected if not entailment.entailed(c)]
        plain += [i for i in registry.claims if i in needed and i not in plain]
        by_id = {r.id: r for r in _check_claims(registry, plain, chosen, seed, device, jobs, progress)}
        for c in about:
            spent = sum(by_id[i].elapsed_s for i in entailment.entailed(c))
            by_id[c.id] = entailment.judge(c, by_id, registry, spent)
        return [by_id[c.id] for c in selected]
    bar = _progress_bar(len(selected)) if progress else None
    try:
        if jobs > 1 and len(selected) > 1:
            from .parallel import run_parallel

            return run_parallel(registry, selected, chosen, seed, device, jobs, bar)
        results = []
        with numeric_settings():
            for claim in selected:
                if bar is not None:
                    bar.set_postfix_str(claim.id)
                results.append(run_registry_claim(registry, claim.id, chosen, seed, device))
                if bar is not None:
                    bar.update()
        return results
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(total: int):
    from tqdm import tqdm

    return tqdm(total=total, unit="claim", leave=False, dynamic_ncols=True)
