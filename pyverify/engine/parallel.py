"""Claims checked in worker processes: the registry is shared, one torch thread per worker; on an accelerator
the workers share its one card, each with its own context."""

from __future__ import annotations

import importlib
import multiprocessing as mp
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed

from ..registry import Verdict
from .claim import run_registry_claim
from .result import Result
from .sandbox import numeric_settings

_REG = None
_PRELOAD = ["pyverify.engine.claim", "pyverify.provers.symbolic", "pyverify.provers.interval", "pyverify.engine.necessity"]


def _init(registry: bytes | None, plugins: list[tuple[str, str, str]], bindings: list[tuple] = ()) -> None:
    """A forkserver worker starts from the server's imports only: it loads the content packages and the
    plugins the parent opted into, activates its bindings, and only then unpickles the registry, whose
    function records travel by name (a forked worker inherits all)."""
    global _REG
    if registry is not None:
        from ..checks.binding_sources import import_target
        from ..checks.plugins import ensure_content, load_plugin
        from ..checks.roles import bind, parse_decay

        ensure_content()
        for origin, opted_in_by, name in plugins:
            load_plugin(origin, opted_in_by, name)
        for role, spec, conventions, precision, where, decay in bindings:
            bind(role, import_target(spec, where), spec, dict(conventions), precision, where,
                 parse_decay(decay, where) if decay is not None else None)
        _REG = pickle.loads(registry)


def _declared_text(binding) -> str | None:
    """The text of a decay the binding declared itself (``xpos:S``); None when none or the callable's own."""
    from ..checks.roles import DECAY_ATTRIBUTE

    decay = binding.decay
    if decay is None or getattr(binding.target, DECAY_ATTRIBUTE, None) is decay:
        return None
    return decay.name


def _one(args):
    cid, budget, seed, device = args
    with numeric_settings():
        return run_registry_claim(_REG, cid, budget, seed, device)


def _context(device: str = "cpu"):
    """fork where it is safe and cheap: Linux, the CPU, and no torch computation has run in this process yet
    (its thread pools would not survive a fork). Otherwise forkserver: workers fork from a server that
    imported the engine once (spawn would import torch again in every worker). An accelerator always takes
    the server: its runtime cannot be forked once this process has asked it anything (the command line asked
    whether the device exists), and the server never has."""
    if sys.platform.startswith("linux") and device == "cpu":
        # imported once here, before the fork, rather than once in every worker (SymPy alone takes ~1 s)
        for module in _PRELOAD:
            importlib.import_module(module)
        return mp.get_context("fork"), False
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx, True


def _cost_rank(claim) -> int:
    """Longest first balances the two workers: SymPy proofs and asymptotic sweeps are the slow ones."""
    chk = claim.check
    if chk is None or chk.not_checkable:
        return 2
    return 0 if (chk.symbolic is not None or chk.relation in ("order", "constant")) else 1


def run_parallel(reg, claims, budget, seed, device, jobs, bar):
    """The claims checked by ``jobs`` worker processes (``budget``: a Profile, sent to each worker)."""
    global _REG
    from ..checks.plugins import LOADED

    ctx, server = _context(device)
    # content packages load themselves in every process; the opted-in plugins are handed over
    plugins = [(p.origin, p.opted_in_by, p.name) for p in LOADED.values() if not p.content]
    from ..checks.roles import ACTIVE

    # a decay the binding declared (decay=xpos:S) travels as its text; one the callable declares itself is
    # read from the callable again
    bindings = [(b.role.name, b.spec, tuple(b.conventions.items()), b.precision, b.origin, _declared_text(b))
                for b in ACTIVE.values()]
    _REG = reg  # inherited by forked workers; a forkserver worker receives it pickled
    work = sorted(claims, key=_cost_rank)
    by_id = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init,
                             initargs=(pickle.dumps(reg) if server else None, plugins, bindings)) as pool:
        futures = {pool.submit(_one, (c.id, budget, seed, device)): c.id for c in work}
        for fut in as_completed(futures):
            try:
                res = fut.result()
            except Exception as exc:  # noqa: BLE001 - a worker killed (out of memory): that claim's error only
                cid = futures[fut]
                res = Result(cid, Verdict.error, reg.claims[cid].expect,
                             message=f"the worker process checking this claim failed: {type(exc).__name__}: {exc}")
            if bar is not None:
                bar.set_postfix_str(res.id)
                bar.update()
            by_id[res.id] = res
    return [by_id[c.id] for c in claims]

