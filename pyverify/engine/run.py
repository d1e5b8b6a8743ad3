"""The state of one claim's run, which the phases read and add to: the compiled claim, the profile, the
seed and the numeric context; the instances spent and the record of what went wrong along the way; and a
confirmed refutation, which stands whatever fails after it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..checks.claim import CompiledClaim
from .context import NumericContext
from .evidence import SearchRecord, Undecided
from .profiles import Profile
from .result import Outcome, claim_seed


@dataclass
class Tally:
    """Counts and notes of a run (``SearchRecord`` once the run ends)."""

    examples: int | None = None
    examples_outside_assumptions: list[int] = field(default_factory=list)
    rounding_candidates: list[str] = field(default_factory=list)
    failed_instances: int = 0
    ascent_stopped: str | None = None
    unconfirmed_candidates: int = 0
    instances_outside_assumptions: int | None = None
    unconfirmed_rejections: int = 0

    def record(self) -> SearchRecord | None:
        out = SearchRecord(self.examples, tuple(self.examples_outside_assumptions), tuple(self.rounding_candidates),
                           self.failed_instances, self.ascent_stopped, self.unconfirmed_candidates,
                           self.instances_outside_assumptions, self.unconfirmed_rejections)
        return out if out.details() else None


@dataclass
class ClaimRun:
    compiled: CompiledClaim
    profile: Profile
    seed: int
    ctx: NumericContext
    instances: int = 0
    tally: Tally = field(default_factory=Tally)
    refutation: Outcome | None = None  # set the moment a refutation is confirmed
    # near-tolerance violations that two floating-point paths could not tell from the code's rounding
    inconclusive: list[Undecided] = field(default_factory=list)
    # (precision, tolerance) of one-instance re-checks that measured code computing below float64 where the
    # batched search could not (undeclared float32 internals are measured outside vmap only)
    rechecked_precisions: list[tuple[Any, float]] = field(default_factory=list)

    @property
    def tol(self) -> float | None:
        return self.compiled.check.tol

    def stream(self, offset: int) -> NumericContext:
        """The context with this claim's random stream number ``offset`` (per sweep assignment, per phase)."""
        return self.ctx.seeded(claim_seed(self.seed, self.compiled.id) + offset)

    def note_search(self, instances: int, failed: int, ascent_failure: str | None) -> None:
        """A search's instances, those skipped because their evaluation raised, and why an ascent stopped."""
        self.instances += instances
        self.tally.failed_instances += failed
        if ascent_failure is not None:
            self.tally.ascent_stopped = ascent_failure
