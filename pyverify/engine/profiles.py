"""Search budgets as values: how much each phase of a check may spend.

A ``Profile`` is built by keywords and passed to the engine as a value (the command line's
``--budget quick|default|thorough`` names one of ``PROFILES``; a test builds its own). ``phases`` says
which phases of the pipeline run (``engine/pipeline.py``):

* ``examples``: the check's fixed instances, before any random one;
* ``generate``: random and degenerate instances;
* ``confirm``: a candidate violation re-checked on the one-instance path and judged for rounding;
* ``ascend``: gradient ascent on the violation score from fresh starts;
* ``polish``: a holding bound's tightness climbed towards its supremum;
* ``toward_zero``: a holding constant's tightest instances shrunk toward 0, where the constant may be
  infinite at one size (``engine/relations/vanishing.py``);
* ``judge``: the verdict from what was found;
* ``symbolic``: a SymPy proof where the check asks for one;
* ``necessity``: each hypothesis weakened in turn.
"""

from __future__ import annotations

from dataclasses import dataclass

PHASES = ("examples", "generate", "confirm", "ascend", "polish", "toward_zero", "judge", "symbolic", "necessity")
REQUIRED = frozenset({"generate", "confirm", "judge"})  # without them there is no verdict to give


@dataclass(frozen=True, kw_only=True)
class Profile:
    name: str
    instances: int  # random and degenerate instances per claim (a sweep shares them out)
    restarts: int = 0  # gradient-ascent starts per claim
    steps: int = 0  # ascent steps per start
    polish: int = 0  # Adam steps climbing a holding bound's tightness, once per claim
    samples: int  # Monte-Carlo samples per instance for E(...)
    mc_instances: int  # instances of a Monte-Carlo check
    phases: frozenset[str]
    tightness_seeds: int = 1  # seeds whose spread of a holding bound's tightness is reported

    def __post_init__(self) -> None:
        unknown = set(self.phases) - set(PHASES)
        if unknown:
            raise ValueError(f"profile {self.name}: unknown phase(s) {', '.join(sorted(unknown))}; known: {', '.join(PHASES)}")
        missing = REQUIRED - set(self.phases)
        if missing:
            raise ValueError(f"profile {self.name}: needs the phase(s) {', '.join(sorted(missing))}")
        object.__setattr__(self, "phases", frozenset(self.phases))

    def runs(self, phase: str) -> bool:
        return phase in self.phases


_BASIC = frozenset({"examples", "generate", "confirm", "toward_zero", "judge", "symbolic"})
_ALL = frozenset(PHASES)

PROFILES = {
    # random and degenerate instances only: the smoke level
    "quick": Profile(name="quick", instances=40, samples=4000, mc_instances=3, phases=_BASIC),
    "default": Profile(name="default", instances=256, restarts=16, steps=12, polish=20, samples=20000,
                       mc_instances=6, phases=_ALL),
    "thorough": Profile(name="thorough", instances=2048, restarts=64, steps=150, polish=200, samples=200000,
                        mc_instances=16, phases=_ALL, tightness_seeds=3),
}


def profile(budget: "str | Profile") -> Profile:
    """A profile by name, or the profile given."""
    if isinstance(budget, Profile):
        return budget
    try:
        return PROFILES[budget]
    except KeyError:
        raise ValueError(f"unknown budget {budget!r}; known: {', '.join(PROFILES)}") from None
