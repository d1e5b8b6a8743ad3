"""What a verdict rests on, one class per kind of evidence.

A judge returns its verdict with typed evidence; the report reads these classes, never dictionary keys.
Each class says how it appears in the JSON contract: a *witness* (a counterexample: the ``witness``
object of a refuted claim) or entries of the ``details`` object. Values inside are already plain data
(numbers, nested lists; tensors were converted where the engine measured them); the JSON rounding to
10 significant digits happens once, in ``Result.as_dict``.

The evidence against a claim (the ``witness`` kinds) is in ``engine/witnesses.py``, re-exported here.
A new kind of evidence is one more class in one of them: the result, the JSON and the
report's evidence sentences pick it up by its type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .evidence_base import HELD_AT_WITNESS, Evidence, Values, Witness
# the evidence against a claim lives in witnesses.py; every kind is importable from here
from .witnesses import (ConstantGrowth, ConstantUnboundedAlongRay, Counterexample, DefectDiagnosis,  # noqa: F401
                        Diagnosis, EntailedRefutation, MonteCarloRefutation, OrderConstantGrowth, OrderRefutation, RefutedPremise, RelationAtWitness)


# ------------------------------------------------------------------------------------ measurements
@dataclass(frozen=True)
class SearchRecord(Evidence):
    """How the run went where it matters for trusting the verdict: fixed examples evaluated (and those
    outside the assumptions), instances skipped because their evaluation raised, an ascent stopped early,
    candidates the one-instance re-check did not confirm or the rounding judgement dismissed, Monte-Carlo
    instances outside the assumptions and rejections fresh samples did not confirm."""

    examples: int | None = None
    examples_outside_assumptions: tuple[int, ...] = ()
    rounding_candidates: tuple[str, ...] = ()
    failed_instances: int = 0
    ascent_stopped: str | None = None
    unconfirmed_candidates: int = 0
    instances_outside_assumptions: int | None = None
    unconfirmed_rejections: int = 0

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.examples is not None:
            out["examples"] = self.examples
        if self.examples_outside_assumptions:
            out["examples_outside_assumptions"] = list(self.examples_outside_assumptions)
        if self.rounding_candidates:
            out["rounding_candidates"] = list(self.rounding_candidates)
        if self.failed_instances:
            out["failed_instances"] = self.failed_instances
        if self.ascent_stopped is not None:
            out["ascent_stopped"] = self.ascent_stopped
        if self.unconfirmed_candidates:
            out["unconfirmed_candidates"] = self.unconfirmed_candidates
        if self.instances_outside_assumptions is not None:
            out["instances_outside_assumptions"] = self.instances_outside_assumptions
        if self.unconfirmed_rejections:
            out["unconfirmed_rejections"] = self.unconfirmed_rejections
        return out


@dataclass(frozen=True)
class Pending(Evidence):
    """The claim has no executable check yet."""

    def details(self) -> dict[str, Any]:
        return {"pending": True}


@dataclass(frozen=True)
class NaNInstance(Evidence):
    """An instance satisfying the hypotheses on which the check evaluates to NaN or infinity."""

    values: Values

    def details(self) -> dict[str, Any]:
        return {"nan_values": self.values}


@dataclass(frozen=True)
class Tightness(Evidence):
    """The largest lhs/rhs of the first bound found within the hypotheses (None: no bound resolved)."""

    value: float | None

    def details(self) -> dict[str, Any]:
        return {"tightness": self.value}


@dataclass(frozen=True)
class TightnessSpread(Evidence):
    """The tightness of a holding bound (or constant) found with several seeds: a supremum found by
    search is a lower bound that depends on the seed."""

    seeds: tuple[int, ...]
    values: tuple[float | None, ...]  # None where that seed's check did not hold
    verdicts: tuple[str, ...] = ()  # each seed's verdict

    @property
    def extent(self) -> tuple[float, float]:
        """The smallest and largest tightness found (the run's own seed always has one)."""
        found = [v for v in self.values if v is not None]
        return min(found), max(found)

    def details(self) -> dict[str, Any]:
        low, high = self.extent
        spread = {"seeds": list(self.seeds), "values": list(self.values), "min": low, "max": high}
        if self.verdicts:
            spread["verdicts"] = list(self.verdicts)
        return {"tightness_spread": spread}


@dataclass(frozen=True)
class ConstantOfRelation:
    """One relation's smallest admissible constant along the sweep."""

    relation: str
    constant: float
    by_size: tuple[tuple[dict[str, Any], float], ...]  # (sweep assignment, smallest constant there)
    growth_slope: float | None = None  # log-log slope along the sweep (None: fewer than three sizes)
    chosen: dict[str, Any] | None = None  # the existential constants' values that keep it bounded
    polished: tuple[dict[str, Any], float] | None = None  # a larger ratio the polishing found, and where
    growth_along: str | None = None  # the sweep variable along which the constant was found growing

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"relation": self.relation, "constant": self.constant,
                               "by_size": [{"dims": d, "ratio": r} for d, r in self.by_size]}
        if self.growth_slope is not None:
            out["growth_slope"] = self.growth_slope
        if self.chosen is not None:
            out["chosen"] = self.chosen
        if self.polished is not None:
            out["polished"] = {"dims": self.polished[0], "ratio": self.polished[1]}
        if self.growth_along is not None:
            out["growth_along"] = self.growth_along
        return out


@dataclass(frozen=True)
class ConstantEstimate(Evidence):
    """The smallest constants the search could not beat (``lhs <= C rhs`` for some C), per relation."""

    constants: tuple[ConstantOfRelation, ...]

    @property
    def constant(self) -> float:
        return max(c.constant for c in self.constants)

    def details(self) -> dict[str, Any]:
        return {"constants": [c.as_dict() for c in self.constants], "constant": self.constant}


@dataclass(frozen=True)
class AssignmentOrder:
    """The measured order at one assignment of the other sweep variables."""

    dims: dict[str, Any]
    measured_min: float
    measured_median: float
    measured_max: float
    leading_constant: float

    def as_dict(self) -> dict[str, Any]:
        return {"dims": self.dims, "measured_min": self.measured_min, "measured_median": self.measured_median,
                "measured_max": self.measured_max, "leading_constant": self.leading_constant}


@dataclass(frozen=True)
class OrderEstimate(Evidence):
    """The measured order of a quantity (median and range of the per-instance log-log slopes) against the
    claimed one; ``measured_median`` None when nothing could be measured (the quantity below rounding at
    every value, or no instance inside the assumptions)."""

    claimed: float
    param: str | None = None
    values: tuple[float, ...] = ()
    direction: str | None = None
    measured_min: float | None = None
    measured_median: float | None = None
    measured_max: float | None = None
    leading_constant: float | None = None
    # the quantity at each value of the worst instance and two others (for the report's plot), their slopes
    series: list | None = None
    baseline: tuple[str, float] | None = None  # a trivial baseline's expression and its measured order
    exact: bool = False  # the claim is an exact order (also refuted by a better one)
    tolerance: float | None = None  # the slack on the slope
    measured_worst: float | None = None  # the slope of the instance the verdict rests on
    series_slopes: tuple[float, ...] = ()
    # with a sweep: the order at every assignment (the summary above is that of the one the verdict rests on)
    by_assignment: tuple[AssignmentOrder, ...] = ()
    # with a sweep and a baseline of the claimed order: whether its leading constant is bounded along it
    baseline_uniform: bool | None = None

    def details(self) -> dict[str, Any]:
        if self.measured_median is None:
            return {"order": {"claimed": self.claimed, "measured": None}}
        order: dict[str, Any] = {
            "param": self.param, "values": list(self.values), "claimed": self.claimed, "direction": self.direction,
            "exact": self.exact, "tolerance": self.tolerance, "measured_worst": self.measured_worst,
            "measured_min": self.measured_min, "measured_median": self.measured_median,
            "measured_max": self.measured_max, "leading_constant": self.leading_constant, "series": self.series,
            "series_slopes": list(self.series_slopes)}
        if self.by_assignment:
            order["by_assignment"] = [a.as_dict() for a in self.by_assignment]
        if self.baseline is not None:
            order["baseline"] = {"expression": self.baseline[0], "measured_median": self.baseline[1]}
            if self.baseline_uniform is not None:
                order["baseline"]["uniform"] = self.baseline_uniform
        return {"order": order}


@dataclass(frozen=True)
class MonteCarloAgreement(Evidence):
    """A Monte-Carlo test: the largest z-score against the claim, the multiple-testing threshold, the
    number of tests, and the smallest effect (relative to the claimed value) the sample size could detect."""

    max_z: float
    z_crit: float
    tests: int
    detectable_effect: float

    def details(self) -> dict[str, Any]:
        return {"max_z": self.max_z, "z_crit": self.z_crit, "tests": self.tests,
                "detectable_effect": self.detectable_effect}


@dataclass(frozen=True)
class Inconclusive(Evidence):
    """A test that could not have decided the claim at its sample size: what it could detect, and what
    would decide it. (Its numbers are in ``MonteCarloAgreement``; this marks the outcome.)"""

    detectable_effect: float
    decides: str


@dataclass(frozen=True)
class Undecided(Evidence):
    """A near-tolerance violation that neither exact arithmetic nor a second floating-point path could
    confirm or dismiss (``engine/paths.py``): the instance, both sides there, and why it is undecided.
    Makes the verdict ``inconclusive`` when nothing refutes the claim."""

    seed: int
    dims: dict[str, Any]
    values: Values
    relations: tuple[RelationAtWitness, ...]
    why: str
    precision: Any = None  # the torch dtype the code computed in

    @property
    def summary(self) -> str:
        """The sentence of the judgement ("inconclusive: a discrepancy of ..." of two paths, or why the instance
        shows nothing about the code)."""
        at = self.why.rfind("inconclusive: ")
        return self.why[at:] if at >= 0 else f"inconclusive: {self.why}"

    def details(self) -> dict[str, Any]:
        from ..checks.precision import name

        return {"undecided": {"seed": self.seed, "dims": self.dims, "values": self.values,
                              "relations": [r.as_dict() for r in self.relations], "why": self.why,
                              "precision": name(self.precision) if self.precision is not None else "float64"}}


@dataclass(frozen=True)
class Precision(Evidence):
    """The lowest floating-point precision the code under test computed in, where it is below float64,
    and the largest tolerance its error model gave: the precision a verdict holds at."""

    dtype: Any
    tolerance: float

    def details(self) -> dict[str, Any]:
        from ..checks.precision import name

        return {"precision": {"dtype": name(self.dtype), "tolerance": self.tolerance}}


@dataclass(frozen=True)
class ReferenceVerdict(Evidence):
    """The reference functions' verdict on the same claim in float64, where a verdict on bound code below
    float64 was re-examined against it (``engine/resolution.py``)."""

    verdict: str
    message: str

    def details(self) -> dict[str, Any]:
        return {"reference_in_float64": {"verdict": self.verdict, "message": self.message}}


@dataclass(frozen=True)
class EntailedVerdicts(Evidence):
    """The verdicts of the claims a claim about other claims entails, which decide it."""

    verdicts: tuple[tuple[str, str], ...]  # (claim id, verdict)

    def details(self) -> dict[str, Any]:
        return {"entailed": dict(self.verdicts)}


@dataclass(frozen=True)
class SymbolicProof(Evidence):
    """A SymPy attempt at the identities, with its scope (dimensions, what was specialised)."""

    proved: bool
    scope: str
    message: str

    def details(self) -> dict[str, Any]:
        return {"symbolic": {"proved": self.proved, "scope": self.scope, "message": self.message}}


@dataclass(frozen=True)
class Necessity(Evidence):
    """Each hypothesis weakened in turn (relaxed sampler, dropped assumption) and what the search found."""

    findings: tuple[tuple[str, str], ...]  # (what was weakened, whether a violation followed)

    def details(self) -> dict[str, Any]:
        return {"necessity": dict(self.findings)}


@dataclass(frozen=True)
class TrivialDistance:
    """Where an existence witness lies relative to the trivial subfamily: one ``trivial`` relation's two
    sides at it (e.g. its distance from the unperturbed case against the radius the relation names)."""

    relation: str
    lhs: Any
    rhs: Any

    def as_dict(self) -> dict[str, Any]:
        return {"relation": self.relation, "lhs": self.lhs, "rhs": self.rhs}


@dataclass(frozen=True)
class ExistenceWitness(Evidence):
    """An instance satisfying every relation of an existence claim; ``trivial``: one of its trivial
    subfamily (the only kind found, which makes the claim vacuous); ``trivial_distance``: with a trivial
    subfamily named, the witness's place relative to it."""

    dims: dict[str, Any]
    values: Values
    trivial: bool = False
    trivial_distance: tuple[TrivialDistance, ...] | None = None

    def details(self) -> dict[str, Any]:
        found: dict[str, Any] = {"dims": self.dims, "values": self.values}
        if self.trivial_distance is not None:
            found["trivial_distance"] = [d.as_dict() for d in self.trivial_distance]
        return {"trivial_witness" if self.trivial else "example": found}
