"""The registry's data model: documents, claims, checks, findings and the verdict vocabulary.

The registry is data only (no torch here). A ``Registry`` is what ``loader.load_registry`` returns:
validated claims in file order, where each stands, and the conventions in force for each claim,
resolved once at load time (document defaults, then the claim's, then its check's).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from .. import limits
from . import ids
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictFloat, StrictInt, create_model, field_validator, model_validator

ID_PATTERN = r"^[A-Za-z][A-Za-z0-9']*(\.[A-Za-z0-9'][A-Za-z0-9'_\-]*)*$"
_ID_RE = re.compile(ID_PATTERN)


class Kind(str, Enum):
    definition = "definition"
    notation = "notation"
    hypothesis = "hypothesis"
    identity = "identity"
    bound = "bound"
    asymptotic = "asymptotic"
    existence = "existence"
    theorem = "theorem"
    algorithm = "algorithm"
    empirical = "empirical"
    conjecture = "conjecture"
    remark = "remark"


class Verdict(str, Enum):
    """The verdict vocabulary, defined once: the engine computes these, the registry's ``expect`` names one."""

    proved = "proved"  # Lean, only after `lake build` in the same run
    symbolic = "symbolic"  # SymPy reduced the identity to zero
    holds = "holds"  # no violation in the random and adversarial search
    # a definition or modelling hypothesis that the implementation agrees with: evidence about the code,
    # not about the document, so it is kept out of the `holds` counts
    consistent = "consistent"
    refuted = "refuted"  # a re-checked counterexample
    vacuous = "vacuous"  # unsatisfiable hypotheses, no better than the trivial baseline (value or order), trivial witness only
    not_checkable = "not-checkable"  # with the reason (also: a Monte-Carlo test too weak to have failed)
    # a near-tolerance violation of code no exact arithmetic re-evaluates, within the disagreement of two
    # floating-point paths of it: neither holds nor refuted
    inconclusive = "inconclusive"
    error = "error"  # the check could not run

    def __str__(self) -> str:  # f-strings and JSON show the registry spelling
        return self.value


# Convention keys and the values each may take; the same field drives the Python checks and Lean.
CONVENTIONS: dict[str, tuple[str, ...]] = {
    "pairing": ("adjacent", "half"),
    "displacement": ("rj-ri", "ri-rj"),
    "rotor": ("exp(u)", "exp(u/2)"),
    "norm": ("operator-2", "frobenius", "euclidean", "l1", "linf"),
    "bracket": ("AB-BA", "(AB-BA)/2"),
    "feature_sign": ("plus", "minus"),
    "logit_scale": ("1/sqrt(2m)", "1/sqrt(d)"),
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _ConventionsBase(_Strict):
    def given(self) -> dict[str, str]:
        """The keys set at this level, as a plain mapping."""
        return self.model_dump(exclude_none=True)


# Conventions set at one level (document, claim, check): one optional Literal field per key of CONVENTIONS,
# so a misspelt key or value is an error at its own line, naming the accepted keys or values.
Conventions = create_model(
    "Conventions", __base__=_ConventionsBase,
    **{key: (Optional[Literal[values]], None) for key, values in CONVENTIONS.items()})  # type: ignore[call-overload, valid-type]


class Document(_Strict):
    key: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$")
    title: str
    files: list[str] = Field(min_length=1)
    notes: str | None = None
    ambient_symbols: list[str] = Field(default_factory=list)
    conventions: Conventions = Field(default_factory=Conventions)
    # the id scheme of the document (registry/ids.py): the form of its ids, which orders them
    id_form: str | None = None
    # a claim depends only on claims of its own or an earlier tier ({tier} of id_form): else a forward-dep finding
    tier_order: bool = False
    # which of its claims with mathematical content should have a Lean statement: all, those whose id has
    # the document's id form, or none
    lean_statements: Literal["all", "id-form", "none"] = "none"

    @model_validator(mode="after")
    def _scheme(self) -> "Document":
        if self.id_form is not None:
            try:
                parts = ids.parse_form(self.id_form)
            except ids.FormError as exc:
                raise ValueError(str(exc)) from None
            if self.tier_order and "tier" not in ids.fields_of(parts):
                raise ValueError("tier_order: true needs an id_form with a {tier} field")
        elif self.tier_order or self.lean_statements == "id-form":
            raise ValueError("tier_order and lean_statements: id-form need an id_form")
        return self


FindingType = Literal["forward-dep", "unknown-dep", "cycle", "truncated-deps", "symbol-without-dep", "suspected-error"]


class Finding(_Strict):
    type: FindingType
    target: str | None = None
    symbol: str | None = None
    note: str = Field(min_length=1)


class Severity(_Strict):
    """How much a refutation matters: ``substantive`` (the mathematics is wrong), ``minor`` (a slip whose
    intended content holds, e.g. a hypothesis stated a line later), ``typo`` (an index, a sign of notation
    or a transposition whose intended reading is evident)."""

    level: Literal["substantive", "minor", "typo"]
    reason: str = Field(min_length=1)


class ConstantSpec(_Strict):
    """How the unnamed constant of a ``relation: constant`` check is quantified, as printed."""

    quantified: Literal["before-data", "per-parameter", "after-data"] = "before-data"
    depends_on: list[str] = Field(default_factory=list)  # per-parameter: sweep variables C may depend on
    chosen: list[str] = Field(default_factory=list)  # sweep variables that are existential constants (∃ C1)
    note: str | None = None  # why this reading of the quantifiers


# A sweep variable: a name usable in samplers and expressions (the checks layer also rejects names that
# shadow a constant, function or sampler of the language: checks/validate.py).
VariableName = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")]
Number = Union[StrictInt, StrictFloat]
PositiveNumber = Annotated[Number, Field(gt=0)]
def _dim_value(value: Any) -> Any:
    """One clear error instead of one per member of the union below."""
    def number(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)
    if not (number(value) or (isinstance(value, list) and value and all(number(x) for x in value))):
        raise ValueError(f"a sweep variable takes a number or a non-empty list of numbers, got {value!r}")
    return value


# one value, or the non-empty list of values the sweep runs through (smallest first)
DimValue = Annotated[Union[Number, Annotated[list[Number], Field(min_length=1)]], BeforeValidator(_dim_value)]


class Order(_Strict):
    """``relation: order``: the quantity's log-log slope in ``param`` over ``values`` against ``claimed``."""

    param: VariableName
    values: list[PositiveNumber] = Field(min_length=3)  # a slope needs >= 3 points; logs need > 0
    claimed: Number
    direction: Literal["zero", "infinity"] | None = None  # none: read from the order of ``values``
    tol: PositiveNumber = 0.25  # slack on the slope
    exact: bool = False  # also refute an order better than claimed

    @model_validator(mode="after")
    def _geometric(self) -> "Order":
        if len(set(self.values)) != len(self.values):
            raise ValueError("order.values: repeated value (the slope needs distinct points)")
        return self

    def resolved_direction(self) -> str:
        return self.direction or ("zero" if self.values[-1] < self.values[0] else "infinity")


def _within_cap(cap: limits.Cap, what: str):
    """A validator: the number is inside ``cap`` (read when the registry loads, so the variable applies)."""
    def check(value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                cap.check(value, what)
            except limits.CapExceeded as exc:
                raise ValueError(str(exc)) from None
        return value
    return check


class Symbolic(_Strict):
    """Also prove the identity with SymPy at the given (small) sweep values; default the smallest."""

    dims: dict[VariableName, Annotated[Number, AfterValidator(_within_cap(limits.SYMBOLIC_DIM, "symbolic dimension"))]] | None = None


class Check(BaseModel):
    """The executable part of a claim; its expressions are parsed and judged by the engine.

    The registry only checks the shape here; a malformed expression is an ``error`` verdict of that
    one claim (the engine's job), so the rest of the registry still runs.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    given: dict[str, str] = Field(default_factory=dict)
    where: dict[str, str] = Field(default_factory=dict)
    assume: str | list[str] | None = None
    assert_: str | None = Field(default=None, alias="assert")
    relation: Literal["auto", "identity", "bound", "order", "constant", "expectation", "exists"] = "auto"
    tol: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None
    order: Order | None = None
    baseline: str | None = None
    trivial: str | None = None  # exists: relations that mark a witness from the trivial (unperturbed) subfamily
    samples: Annotated[StrictInt, Field(gt=0), AfterValidator(_within_cap(limits.SAMPLES, "samples"))] | None = None
    symbolic: Symbolic | None = None
    not_checkable: str | None = None
    # a claim about other claims of the registry (their ids): it asserts or presupposes that they are true as
    # printed ("these lemmas are mechanically verified"); judged by their verdicts (engine/entailment.py)
    entails: Annotated[list[str], Field(min_length=1)] | None = None
    constant: ConstantSpec | None = None
    dims: dict[VariableName, DimValue] | None = None
    conventions: Conventions = Field(default_factory=Conventions)
    # fixed instances evaluated before the random ones: {given name: number, nested list or
    # 'tensor_file(...)'}, optional `_dims` {sweep variable: value} (pyverify/checks/examples.py)
    examples: list[dict[str, Any]] = Field(default_factory=list)


LEAN_NAME_PATTERN = r"^\S+$"  # a (qualified) Lean name; resolved against the index, not here


class LeanConstant(_Strict):
    """How an existential constant of a bound is quantified in the Lean statement."""

    quantified: Literal["before-data", "per-parameter", "after-data"]
    depends_on: list[str] = Field(default_factory=list)


class MutationNote(_Strict):
    """Why a holding claim's check is insensitive to the errors the mutation pass plants in it
    (``pyverify mutate``): shown with the claim wherever the pass flags it."""

    survives: str = Field(min_length=1)


class LeanLink(_Strict):
    """A claim's link to its Lean statement (a ``Prop``, or for a definition claim the Lean ``def`` that
    defines it), or ``skipped`` with the reason why the claim has no Lean counterpart."""

    statement: str | None = Field(default=None, pattern=LEAN_NAME_PATTERN)
    theorem: str | None = Field(default=None, pattern=LEAN_NAME_PATTERN)
    negation: str | None = Field(default=None, pattern=LEAN_NAME_PATTERN)
    # hypothesis binder of the statement -> the name in the numeric check it corresponds to, or 'none'
    hypotheses: dict[str, str] = Field(default_factory=dict)
    constants: dict[str, LeanConstant] = Field(default_factory=dict)
    reading: Literal["same", "stronger", "weaker"] = "same"
    differs: str | None = None
    skipped: str | None = None  # why the claim has no Lean statement (then nothing else is given)

    @model_validator(mode="after")
    def _differs_when_read_otherwise(self) -> "LeanLink":
        if self.reading != "same" and not (self.differs or "").strip():
            raise ValueError(f"lean.differs is required when lean.reading is {self.reading!r}")
        if (self.statement is None) == (self.skipped is None or not self.skipped.strip()):
            raise ValueError("lean: give either `statement` or `skipped` (the reason there is none), not both")
        if self.skipped is not None and (self.theorem or self.negation or self.hypotheses or self.constants):
            raise ValueError("lean.skipped: a skipped claim names no theorem, negation, hypotheses or constants")
        return self


class Claim(_Strict):
    id: str = Field(pattern=ID_PATTERN, max_length=limits.ID_LENGTH)
    title: str
    document: str
    locator: str
    kind: Kind
    statement: str = Field(min_length=1)
    reading: str | None = None
    deps: list[str] = Field(default_factory=list)
    deps_truncated: bool = False
    restates: list[str] = Field(default_factory=list)
    corrects: str | None = None
    sharpens: str | None = None
    defines: list[str] = Field(default_factory=list)
    uses: list[str] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    conventions: Conventions = Field(default_factory=Conventions)
    check: Check | None = None
    severity: Severity | None = None  # of a refuted claim: how much the error matters
    expect: Verdict | None = None
    # the Lean theorem's name, or the full link (statement, theorem, hypotheses, constants, reading)
    lean: str | LeanLink | None = None
    notes: str | None = None
    mutation: MutationNote | None = None  # why the mutation pass's planted errors do not change its verdict
    # plugins this claim's check needs; a registry names them, only the person running pyverify loads them
    requires_plugins: list[str] = Field(default_factory=list)


    @field_validator("deps", "restates")
    @classmethod
    def _ids(cls, value: list[str]) -> list[str]:
        for item in value:
            if not isinstance(item, str) or not _ID_RE.match(item):
                raise ValueError(f"{item!r} is not a claim id")
        return value


@dataclass(frozen=True)
class Location:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the registry, located to a file and line."""

    location: Location
    message: str
    claim_id: str | None = None
    code: str = "invalid"

    def __str__(self) -> str:
        who = f" [{self.claim_id}]" if self.claim_id else ""
        code = f" {self.code}:" if self.code not in ("invalid", "yaml", "io") else ""
        return f"{self.location}:{who}{code} {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.location.file,
            "line": self.location.line,
            "id": self.claim_id,
            "code": self.code,
            "message": self.message,
        }


class RegistryError(Exception):
    """The registry could not be used; ``problems`` lists every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass
class Registry:
    documents: dict[str, Document]
    claims: dict[str, Claim]  # in file order
    locations: dict[str, Location]
    key_lines: dict[str, dict[str, int]] = field(default_factory=dict)
    root: Path | None = None
    source: Path | None = None  # what was loaded (file or folder), to load it again elsewhere
    # the conventions in force for each claim, resolved once at load: document defaults, then the
    # claim's, then its check's (so no caller can drop a document's defaults)
    conventions: dict[str, dict[str, str]] = field(default_factory=dict)
    # plugins named by a top-level `plugins:` key -> where (checked against the loaded ones, checks/plugins.py)
    plugins: dict[str, Location] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for cid, claim in self.claims.items():
            if cid in self.conventions:
                continue
            doc = self.documents.get(claim.document)
            merged = doc.conventions.given() if doc is not None else {}
            merged.update(claim.conventions.given())
            if claim.check is not None:
                merged.update(claim.check.conventions.given())
            self.conventions[cid] = merged

    def id_order(self) -> "ids.IdOrder":
        """The order of this registry's claim ids (its documents' id forms, in document order)."""
        return ids.IdOrder([(ids.IdForm.of(d.id_form), d.tier_order) for d in self.documents.values()
                            if d.id_form is not None])

    def lean_expected(self, claim: Claim) -> bool:
        """Whether the claim's document says it should have a Lean statement (its kind aside)."""
        doc = self.documents.get(claim.document)
        if doc is None or doc.lean_statements == "none":
            return False
        return doc.lean_statements == "all" or ids.IdForm.of(doc.id_form or "").read(claim.id) is not None

    def by_document(self) -> dict[str, list[Claim]]:
        out: dict[str, list[Claim]] = {key: [] for key in self.documents}
        for claim in self.claims.values():
            out[claim.document].append(claim)
        return out

    def line_of(self, claim_id: str, key: str | None = None) -> Location:
        """Where a claim's key stands; a dotted key (``check.given.x``) falls back to its nearest parent."""
        loc = self.locations[claim_id]
        lines = self.key_lines.get(claim_id, {})
        while key:
            if key in lines:
                return Location(loc.file, lines[key])
            key = key.rpartition(".")[0]
        return loc


def claim_file_schema() -> dict[str, Any]:
    """JSON Schema of one registry file (for editors)."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pyverify registry file",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "documents": {"type": "array", "items": Document.model_json_schema()},
            "claims": {"type": "array", "items": Claim.model_json_schema(by_alias=True)},
            "plugins": {"type": "array", "items": {"type": "string"}},
        },
    }
    return json.loads(json.dumps(schema))
