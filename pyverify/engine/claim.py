"""Check one claim: its compiled check judged by the judge of its kind of relation, inside the sandbox.

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

The judges (``relations/``): pointwise identities and bounds, unnamed constants and existence on the
adversarial search's phases (``pipeline.py``), measured orders, Monte-Carlo expectations.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from .. import limits
from ..checks import dsl
from ..checks.claim import CompiledClaim, compile_claim
from ..checks.compiled import CheckError
from ..checks.validate import CheckedRegistry, data_root
from ..registry import Claim, Kind, Registry, Verdict
from .context import NumericContext, on
from .evidence import Pending
from .profiles import Profile, profile
from .relations import JUDGES
from .result import Outcome, Result
from .run import ClaimRun
from .sandbox import ClaimOverBudget, claim_budget

__all__ = ["run_claim", "run_registry_claim", "Result"]

# kinds whose check can only show that the code realises what the document sets up
DEFINITIONAL = frozenset({Kind.definition, Kind.notation, Kind.hypothesis})


def run_claim(claim: Claim | CompiledClaim, conventions: dict[str, str] | None = None,
              budget: str | Profile = "default", seed: int = 0, device: str | NumericContext = "cpu",
              data_root: Path | None = None) -> Result:
    """Check one claim; never raises for a bad check (that is an ``error`` verdict).

    ``claim``: compiled (``CheckedRegistry.compiled``), or a registry claim compiled here with
    ``conventions``, the conventions in force for it as the registry resolved them at load
    (``Registry.conventions[claim.id]``; they fill the convention keywords of the vocabulary) and
    ``data_root``, the registry's folder. ``budget``: a profile, or the name of one."""
    start = time.perf_counter()
    compiled = claim if isinstance(claim, CompiledClaim) else None
    claim = compiled.claim if compiled is not None else claim
    ctx = device if isinstance(device, NumericContext) else on(device)
    run: ClaimRun | None = None
    try:
        with claim_budget(ctx.device):
            if compiled is None:
                compiled = compile_claim(claim, conventions, data_root)
            if compiled is None:
                outcome = _not_checkable(claim)
            else:
                run = ClaimRun(compiled, profile(budget), seed, ctx)
                outcome = JUDGES[compiled.kind]().judge(run)
    except ClaimOverBudget as exc:
        outcome = _after_failure(run, f"; a later step was stopped: {exc}", str(exc))
    except MemoryError:
        outcome = Outcome(Verdict.error, limits.CLAIM_MEMORY.message(limits.CLAIM_MEMORY.value + 1, "out of memory"))
    except (CheckError, dsl.DSLError) as exc:
        outcome = Outcome(Verdict.error, str(exc))
    except Exception as exc:  # noqa: BLE001 - a crashing check must not stop the other claims
        if run is not None and run.refutation is not None:
            # the refutation was confirmed before the failure: it stands, the failure is recorded
            outcome = run.refutation.noting(f"; a later step failed: {type(exc).__name__}: {exc}")
        elif "can't allocate memory" in str(exc):
            cap = limits.CLAIM_MEMORY
            outcome = Outcome(Verdict.error, f"out of memory: every instance needed more than the cap of "
                                             f"{cap.value:.3g} {cap.name} (raise it with the environment variable {cap.env}=N)")
        else:
            outcome = Outcome(Verdict.error, f"{type(exc).__name__}: {exc}")
    if outcome.verdict is Verdict.holds and claim.kind in DEFINITIONAL:
        outcome = dataclasses.replace(outcome, verdict=Verdict.consistent,
                                      message=f"the implementation agrees with this {claim.kind.value}: {outcome.message}")
    record = run.tally.record() if run is not None else None
    return Result(claim.id, outcome.verdict, claim.expect, outcome.worst, run.instances if run is not None else 0,
                  time.perf_counter() - start, outcome.message, ((record,) if record else ()) + outcome.evidence)


def _not_checkable(claim: Claim) -> Outcome:
    if claim.check is None:
        return Outcome(Verdict.not_checkable, "no executable check recorded for this claim yet", None, (Pending(),))
    if claim.check.entails and not claim.check.not_checkable:
        return Outcome(Verdict.error, "a claim about other claims (`entails`) is judged from their verdicts: check it "
                                      "with its registry (engine.check_claim / check_claims)")
    return Outcome(Verdict.not_checkable, claim.check.not_checkable or "")


def _after_failure(run: ClaimRun | None, note: str, otherwise: str) -> Outcome:
    """A confirmed refutation with the failure noted, else the failure as the claim's error."""
    if run is not None and run.refutation is not None:
        return run.refutation.noting(note)
    return Outcome(Verdict.error, otherwise)


def run_registry_claim(registry: Registry, claim_id: str, budget: str | Profile, seed: int,
                       device: str | NumericContext) -> Result:
    """One claim of a registry: its compiled check when the registry was checked at load (the usual
    case), else compiled now (a check that does not compile is then that claim's ``error``)."""
    if isinstance(registry, CheckedRegistry) and claim_id in registry.compiled:
        return run_claim(registry.compiled[claim_id], budget=budget, seed=seed, device=device)
    return run_claim(registry.claims[claim_id], registry.conventions[claim_id], budget, seed, device,
                     data_root(registry))
