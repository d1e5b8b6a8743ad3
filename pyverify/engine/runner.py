"""The runner: select claims, check them serially or in worker processes, with progress.

The one entry point for every caller — the command line, the pytest plugin, the report and the
meta-tests — so that they all check a claim the same way: with the conventions the registry resolved
at load, inside the numeric settings the engine needs (float64 work, TF32 off, one intra-op thread),
which are set for the run and restored afterwards (importing pyverify changes no global torch state).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import torch

from ..registry import Registry
from ..checks.samplers.data import set_data_root
from . import entailment
from .claim import run_claim
from .result import Result


class UnknownClaims(ValueError):
    """Claim ids that the registry does not have."""

    def __init__(self, ids: list[str]):
        self.ids = ids
        super().__init__(f"unknown claim id(s): {', '.join(ids)}")


@contextmanager
def numeric_settings(threads: int | None = 1) -> Iterator[None]:
    """TF32 off (checks are float64, and a TF32 matmul would hide or fake violations) and one intra-op
    thread (many small matrices: threads only contend); both restored on exit."""
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32, torch.get_num_threads())
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved[0], saved[1]
        if threads is not None:
            torch.set_num_threads(saved[2])


def check_claim(registry: Registry, claim_id: str, budget: str = "default", seed: int = 0, device: str = "cpu") -> Result:
    """Check one claim of the registry (its resolved conventions included). A claim about other claims
    (``check.entails``) is judged from theirs, checked here with the same budget and seed."""
    if claim_id not in registry.claims:
        raise UnknownClaims([claim_id])
    claim = registry.claims[claim_id]
    if entailment.entailed(claim):
        start = time.perf_counter()
        results = {i: check_claim(registry, i, budget, seed, device) for i in entailment.entailed(claim)}
        return entailment.judge(claim, results, registry, time.perf_counter() - start)
    set_data_root(registry.source)
    with numeric_settings():
        return run_claim(claim, registry.conventions[claim_id], budget, seed, device)


TIGHTNESS_SEEDS_THOROUGH = 3  # seeds whose tightness spread the thorough budget reports


def check_claims(registry: Registry, ids: Sequence[str] = (), budget: str = "default", seed: int = 0,
                 device: str = "cpu", jobs: int = 1, progress: bool = False,
                 tightness_seeds: int | None = None) -> list[Result]:
    """Check the selected claims (all when ``ids`` is empty); results in registry order.

    ``jobs`` > 1 spreads claims over worker processes; every claim has its own seed, so verdicts and
    witnesses do not depend on the number of jobs. ``tightness_seeds`` > 1 re-checks every holding
    bound (and constant) with that many seeds in all and reports the spread of its tightness
    (``details.tightness_spread``); by default 3 at the thorough budget, 1 (no spread) otherwise."""
    results = _check_claims(registry, ids, budget, seed, device, jobs, progress)
    n_seeds = tightness_seeds if tightness_seeds is not None else (TIGHTNESS_SEEDS_THOROUGH if budget == "thorough" else 1)
    if n_seeds > 1:
        _tightness_spread(registry, results, budget, seed, device, jobs, n_seeds)
    return results


def _tightness_key(res: Result) -> str | None:
    for key in ("tightness", "constant"):
        if res.details.get(key) is not None and res.verdict.value in ("holds", "symbolic"):
            return key
    return None


def _tightness_spread(registry: Registry, results: list[Result], budget: str, seed: int, device: str, jobs: int,
                      n_seeds: int) -> None:
    """The supremum found is a lower bound that depends on the seed: report it over several seeds."""
    tight = {r.id: r for r in results if _tightness_key(r)}
    if not tight:
        return
    values = {i: [r.details[_tightness_key(r)]] for i, r in tight.items()}
    for extra in range(1, n_seeds):
        for r in _check_claims(registry, list(tight), budget, seed + extra, device, jobs, False):
            key = _tightness_key(r)
            values[r.id].append(r.details[key] if key else None)
    for i, r in tight.items():
        found = [v for v in values[i] if v is not None]
        r.details["tightness_spread"] = {"seeds": list(range(seed, seed + n_seeds)), "values": values[i],
                                         "min": min(found), "max": max(found)}


def _check_claims(registry: Registry, ids: Sequence[str], budget: str, seed: int, device: str, jobs: int,
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
        by_id = {r.id: r for r in _check_claims(registry, plain, budget, seed, device, jobs, progress)}
        for c in about:
            spent = sum(by_id[i].elapsed_s for i in entailment.entailed(c))
            by_id[c.id] = entailment.judge(c, by_id, registry, spent)
        return [by_id[c.id] for c in selected]
    set_data_root(registry.source)  # tensor_file(...) reads below the registry's folder (forked workers inherit it)
    bar = _progress_bar(len(selected)) if progress else None
    try:
        if jobs > 1 and len(selected) > 1 and device == "cpu":
            from .parallel import run_parallel

            return run_parallel(registry, selected, budget, seed, device, jobs, bar)
        results = []
        with numeric_settings():
            for claim in selected:
                if bar is not None:
                    bar.set_postfix_str(claim.id)
                results.append(run_claim(claim, registry.conventions[claim.id], budget, seed, device))
                if bar is not None:
                    bar.update()
        return results
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(total: int):
    from tqdm import tqdm

    return tqdm(total=total, unit="claim", leave=False, dynamic_ncols=True)
