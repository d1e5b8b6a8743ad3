"""Check one claim: compile its check, dispatch on the kind of relation, compute the verdict.

Verdict rules (README, "Verdicts"), for one claim:

* no ``check`` or ``check.not_checkable`` -> ``not-checkable`` (with the reason);
* a check that cannot be compiled or run -> ``error`` (the message says why; other claims still run);
* assumptions that no instance satisfies -> ``vacuous``; a bound never better than its named baseline,
  an order no better than its baseline's measured order, an existence met only by a trivial witness
  -> ``vacuous``;
* a Monte-Carlo test that could not have failed (or a strict comparison whose difference the sample
  size cannot see) -> ``not-checkable``, "inconclusive: ..." with the effect it could detect;
* a violation found by the search, confirmed on the independent one-instance path -> ``refuted`` with a
  witness (a failure of a later step — shrinking, certification — is recorded, never loses it);
* otherwise ``holds`` with the worst relative error / tightness (polished towards its supremum); upgraded to ``symbolic`` when a SymPy
  proof was requested and succeeded; ``consistent`` instead of ``holds`` for a definition, notation or
  modelling hypothesis (the check shows that the implementation realises it: evidence about the code).

The kinds of relation (``relations/``): pointwise identities and bounds, measured orders, unnamed
constants, Monte-Carlo expectations, existence.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import torch

from .. import limits

from ..checks import dsl
from ..checks.compiled import CheckError, compile_check, relation_kind, sweep
from ..registry import Claim, Kind, Verdict
from .relations import expectation, order, pointwise
from .result import BUDGETS, Budget, Result

__all__ = ["run_claim", "Result", "Budget", "BUDGETS"]


def run_claim(claim: Claim, conventions: dict[str, str], budget: str = "default", seed: int = 0,
              device: str = "cpu") -> Result:
    """Check one claim; never raises for a bad check (that is an ``error`` verdict).

    ``conventions``: the conventions in force for the claim, as the registry resolved them at load
    (``Registry.conventions[claim.id]``); they fill the convention keywords of the vocabulary."""
    start = time.perf_counter()
    res = Result(claim.id, Verdict.error, claim.expect)
    try:
        with wall_clock_budget(limits.CLAIM_SECONDS.value), memory_budget(limits.CLAIM_MEMORY.value, device):
            _run(claim, BUDGETS[budget], seed, torch.device(device), res, dict(conventions))
    except ClaimOverBudget as exc:
        if res.verdict is Verdict.refuted and res.witness is not None:
            res.message += f"; a later step was stopped: {exc}"
        else:
            res.verdict, res.message = Verdict.error, str(exc)
    except MemoryError:
        res.verdict, res.message = Verdict.error, limits.CLAIM_MEMORY.message(limits.CLAIM_MEMORY.value + 1, "out of memory")
    except (CheckError, dsl.DSLError) as exc:
        res.verdict, res.message = Verdict.error, str(exc)
    except Exception as exc:  # noqa: BLE001 - a crashing check must not stop the other claims
        if res.verdict is Verdict.refuted and res.witness is not None:
            # the refutation was confirmed before the failure: it stands, the failure is recorded
            res.message += f"; a later step failed: {type(exc).__name__}: {exc}"
        elif "can't allocate memory" in str(exc) or isinstance(exc, MemoryError):
            cap = limits.CLAIM_MEMORY
            res.verdict = Verdict.error
            res.message = (f"out of memory: every instance needed more than the cap of {cap.value:.3g} {cap.name} "
                           f"(raise it with the environment variable {cap.env}=N)")
        else:
            res.verdict, res.message = Verdict.error, f"{type(exc).__name__}: {exc}"
    if res.verdict is Verdict.holds and claim.kind in DEFINITIONAL:
        res.verdict = Verdict.consistent
        res.message = f"the implementation agrees with this {claim.kind.value}: {res.message}"
    res.elapsed_s = time.perf_counter() - start
    return res


class ClaimOverBudget(Exception):
    """A claim ran past its wall-clock budget (an ``error`` of that claim; the others still run)."""


@contextmanager
def wall_clock_budget(seconds: float) -> Iterator[None]:
    """Interrupt the claim after ``seconds`` (SIGALRM; only in a main thread, where signals arrive: the
    command line and the worker processes). A single long C call (one huge matmul) ends before the alarm
    is seen: the element caps keep every such call short."""
    def over() -> ClaimOverBudget:
        cap = limits.CLAIM_SECONDS
        return ClaimOverBudget(f"stopped at the cap of {seconds:g} {cap.name} (raise it with the environment "
                               f"variable {cap.env}=N)")

    with limits.time_limit(seconds, over):
        yield


@contextmanager
def memory_budget(extra_bytes: float, device: str = "cpu") -> Iterator[None]:
    """Cap the process's address space at its size when the claim starts plus ``extra_bytes`` (RLIMIT_AS,
    Linux; CPU only: a CUDA context reserves address space of its own). An allocation beyond it fails:
    the search skips an instance that fails, and a claim none of whose instances fit is an ``error``
    naming the cap. An existing, tighter limit is never loosened; the previous limit is restored."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * resource.getpagesize()
    except (ImportError, OSError, ValueError):
        yield
        return
    if not str(device).startswith("cpu"):
        yield
        return
    limit = int(size + extra_bytes)
    for bound in (hard, soft):
        if bound != resource.RLIM_INFINITY:
            limit = min(limit, bound)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# kinds whose check can only show that the code realises what the document sets up
DEFINITIONAL = frozenset({Kind.definition, Kind.notation, Kind.hypothesis})


def _run(claim: Claim, budget: Budget, seed: int, device: torch.device, res: Result, conv: dict[str, str]) -> None:
    check = claim.check
    if check is None:
        res.verdict, res.message = Verdict.not_checkable, "no executable check recorded for this claim yet"
        res.details["pending"] = True
        return
    if check.not_checkable:
        res.verdict, res.message = Verdict.not_checkable, check.not_checkable
        return
    if check.entails:
        raise CheckError("a claim about other claims (`entails`) is judged from their verdicts: check it with its "
                         "registry (engine.check_claim / check_claims)")
    ctx = {"dtype": torch.float64, "device": device}
    kind = relation_kind(claim)
    if check.trivial is not None and kind != "exists":
        raise CheckError("trivial: names the trivial witnesses of an existence check; it needs relation: exists")
    if kind == "order":
        return order.run(claim, budget, seed, ctx, res, conv)
    # compile every sweep assignment first: errors surface before any search
    compiled = [compile_check(check, dims, kind, conv) for dims in sweep(check)]
    if kind == "expectation":
        if len(compiled[0].relations) != 1:
            raise CheckError(f"an expectation check takes exactly one relation (got {len(compiled[0].relations)}); "
                             "split it into separate claims")
        return expectation.run(claim, compiled, budget, seed, ctx, res)
    pointwise.run(claim, compiled, kind, budget, seed, ctx, res)
