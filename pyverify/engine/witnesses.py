"""The evidence against a claim: counterexamples, growth, orders and Monte-Carlo rejections, each the
result's JSON ``witness`` (``engine/evidence.py`` holds the base classes and the evidence for a claim)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .evidence_base import Evidence, Values, Witness


# ------------------------------------------------------------------------------------------ witnesses
@dataclass(frozen=True)
class RelationAtWitness:
    """Both sides of one relation of the assertion at a counterexample, and its measure there."""

    relation: str
    op: str
    lhs: Any
    rhs: Any
    measure: float

    def as_dict(self) -> dict[str, Any]:
        return {"relation": self.relation, "op": self.op, "lhs": self.lhs, "rhs": self.rhs, "measure": self.measure}


@dataclass(frozen=True)
class Counterexample(Witness):
    """An instance violating a pointwise relation, re-checked in float64 on the one-instance path, with the
    exact (ball / 60-digit) certificate its rounding judgement computed. Found by the search (``params``:
    the samplers' parameters, shrunk where the violation survives rounding them) or one of the check's
    fixed ``examples`` (its index)."""

    seed: int
    dims: dict[str, Any]
    values: Values
    relations: tuple[RelationAtWitness, ...]
    certificate: dict[str, Any]
    params: dict[str, Any] | None = None
    example: int | None = None

    def witness(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seed": self.seed, "dims": self.dims}
        if self.example is not None:
            out["example"] = self.example
        else:
            out["params"] = self.params
        return {**out, "values": self.values, "relations": [r.as_dict() for r in self.relations],
                "certificate": self.certificate}


@dataclass(frozen=True)
class Diagnosis:
    """One recognised shape of a defect at a counterexample (``engine/diagnose.py``), as a sentence."""

    kind: str  # transposed | exchanged | constant-factor | one-plane | rows-columns | enters-through | through-entries | product-of-sums | call-history
    relation: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "relation": self.relation, "message": self.message}


@dataclass(frozen=True)
class DefectDiagnosis(Evidence):
    """What the counterexample's sides and their variations say about where the defect is: the entries
    where the two sides differ (``located``: relation -> sentence) and the recognised defect shapes. The
    JSON's ``details.diagnosis`` (added only when there is something to say)."""

    diagnoses: tuple[Diagnosis, ...] = ()
    located: tuple[tuple[str, str], ...] = ()

    def details(self) -> dict[str, Any]:
        if not self.diagnoses and not self.located:
            return {}
        return {"diagnosis": {"defects": [d.as_dict() for d in self.diagnoses],
                              "differ_at": [{"relation": r, "message": m} for r, m in self.located]}}


@dataclass(frozen=True)
class ConstantGrowth(Witness):
    """The smallest admissible constant of a relation growing along the sweep: no constant exists."""

    relation: str
    growth: tuple[tuple[dict[str, Any], float], ...]  # (sweep assignment, smallest constant there)
    slope: float

    def witness(self) -> dict[str, Any]:
        return {"relation": self.relation, "growth": [{"dims": d, "ratio": r} for d, r in self.growth],
                "slope": self.slope}


@dataclass(frozen=True)
class ConstantUnboundedAlongRay(ConstantGrowth):
    """The smallest admissible constant of a relation, infinite at one assignment: lhs / rhs rising as the
    named inputs of one instance are shrunk toward 0 (``growth``: ({"factor": f}, ratio) along the ray,
    from factor 1; built by ``engine/relations/vanishing.py``)."""

    dims: dict[str, Any]
    inputs: tuple[str, ...]
    recheck: str  # how the far end was evaluated again, and its ratio there
    values: dict[str, Any]  # the instance at the far end

    def witness(self) -> dict[str, Any]:
        return {"relation": self.relation, "dims": self.dims, "inputs": list(self.inputs),
                "ray": [{"factor": f["factor"], "ratio": r} for f, r in self.growth], "slope": self.slope,
                "recheck": self.recheck, "values": self.values}


@dataclass(frozen=True)
class OrderRefutation(Witness):
    """Measured log-log slopes outside the claimed order (``OrderEstimate`` has the summary)."""

    seed: int
    param: str
    values: tuple[float, ...]
    slopes: tuple[float, ...]
    series: list  # the quantity of the first instances at each value of the parameter
    dims: dict[str, Any] | None = None  # the assignment of the other sweep variables it was measured at

    def witness(self) -> dict[str, Any]:
        out = {"seed": self.seed, "param": self.param, "values": list(self.values), "slopes": list(self.slopes),
               "series": self.series}
        if self.dims is not None:
            out["dims"] = self.dims
        return out


@dataclass(frozen=True)
class OrderConstantGrowth(ConstantGrowth):
    """The claimed order holds at every sweep assignment, but its leading constant (the largest
    quantity / param^claimed) grows along the sweep: the O(.) is not uniform, no one constant works."""

    seed: int
    param: str
    values: tuple[float, ...]
    growth_along: str  # the sweep variable along which it grows

    def witness(self) -> dict[str, Any]:
        return {"seed": self.seed, "param": self.param, "values": list(self.values),
                "growth_along": self.growth_along, **super().witness()}


@dataclass(frozen=True)
class MonteCarloRefutation(Witness):
    """A Monte-Carlo mean that differs significantly from the claimed value, confirmed on fresh samples.
    ``values``: the instance's hypotheses (None when evaluating them failed after the confirmation)."""

    seed: int
    dims: dict[str, Any]
    instance: int
    mean: list
    claimed: list
    standard_error: list
    samples: int
    values: Values | None = None

    def witness(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seed": self.seed, "dims": self.dims}
        if self.values is not None:
            out["values"] = self.values
        return {**out, "instance": self.instance, "mean": self.mean, "claimed": self.claimed,
                "standard_error": self.standard_error, "samples": self.samples}


@dataclass(frozen=True)
class RefutedPremise:
    """A claim that a claim about other claims entails, refuted: its verdict, message, severity (None:
    unassessed) and its own witness."""

    id: str
    verdict: str
    message: str
    severity: str | None = None
    witness: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "verdict": self.verdict, "message": self.message}
        if self.severity is not None:
            out["severity"] = self.severity
        if self.witness is not None:
            out["witness"] = self.witness
        return out


@dataclass(frozen=True)
class EntailedRefutation(Witness):
    """A claim about other claims (``check.entails``) refuted: the entailed claims that are refuted."""

    refuted: tuple[RefutedPremise, ...]

    def witness(self) -> dict[str, Any]:
        return {"entailed": [p.as_dict() for p in self.refuted]}
