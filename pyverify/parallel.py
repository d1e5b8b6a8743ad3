"""Claims checked in worker processes (CPU only): one registry load per worker, one torch thread each."""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor

_REG = None


def _init(registry_root) -> None:
    global _REG
    import torch

    from .registry import load_registry

    torch.set_num_threads(1)
    _REG = load_registry(registry_root)


def _one(args):
    from .engine import run_claim

    cid, budget, seed, device = args
    claim = _REG.claims[cid]
    return run_claim(claim, budget=budget, seed=seed, device=device, conventions=_REG.conventions(cid))


def run_parallel(reg, claims, budget, seed, device, jobs, bar):
    root = reg.source
    # forkserver: workers fork from a server that imported the engine once (plain fork after torch
    # initialisation is unsafe; spawn would import torch again in every worker)
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["pyverify.engine", "pyverify.symbolic", "pyverify.interval", "pyverify.necessity"])
    work = [(c.id, budget, seed, device) for c in claims]
    # expensive claims first would balance better; registry order keeps the output stable anyway
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init, initargs=(root,)) as pool:
        results = []
        for res in pool.map(_one, work, chunksize=1):
            if bar:
                bar.step(res.id)
            results.append(res)
    return results
