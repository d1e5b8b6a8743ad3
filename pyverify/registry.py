"""The claim registry: load and validate the YAML files of ``claims/``.

The registry is data only. This module turns it into pydantic models and reports *every* problem it
finds with the file, the line and (where known) the claim id, so that a broken registry is mended in
one pass. YAML is read with a safe loader (no Python tags); duplicate keys are an error instead of
the silent last-one-wins of plain ``yaml.safe_load``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REGISTRY = PROJECT_ROOT / "claims"

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


VERDICTS = ("proved", "symbolic", "holds", "refuted", "vacuous", "not-checkable", "error")
Verdict = Literal["proved", "symbolic", "holds", "refuted", "vacuous", "not-checkable", "error"]

FINDING_TYPES = (
    "forward-dep",
    "unknown-dep",
    "cycle",
    "truncated-deps",
    "symbol-without-dep",
    "suspected-error",
)

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


def _check_conventions(value: dict[str, str]) -> dict[str, str]:
    for key, val in value.items():
        if key not in CONVENTIONS:
            raise ValueError(f"unknown convention {key!r}; known: {', '.join(CONVENTIONS)}")
        if val not in CONVENTIONS[key]:
            raise ValueError(f"convention {key}={val!r} not one of {', '.join(CONVENTIONS[key])}")
    return value


class Document(_Strict):
    key: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$")
    title: str
    files: list[str] = Field(min_length=1)
    notes: str | None = None
    ambient_symbols: list[str] = Field(default_factory=list)
    conventions: dict[str, str] = Field(default_factory=dict)

    _v_conv = field_validator("conventions")(_check_conventions)


class Finding(_Strict):
    type: Literal[
        "forward-dep", "unknown-dep", "cycle", "truncated-deps", "symbol-without-dep", "suspected-error"
    ]
    target: str | None = None
    symbol: str | None = None
    note: str = Field(min_length=1)


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
    tol: float | None = None
    order: dict[str, Any] | None = None
    baseline: str | None = None
    samples: int | None = None
    symbolic: dict[str, Any] | None = None
    not_checkable: str | None = None
    dims: dict[str, Any] | None = None
    conventions: dict[str, str] = Field(default_factory=dict)

    _v_conv = field_validator("conventions")(_check_conventions)


class Claim(_Strict):
    id: str = Field(pattern=ID_PATTERN)
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
    conventions: dict[str, str] = Field(default_factory=dict)
    check: Check | None = None
    expect: Verdict | None = None
    lean: str | None = None
    notes: str | None = None

    _v_conv = field_validator("conventions")(_check_conventions)

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

    def conventions(self, claim_id: str) -> dict[str, str]:
        """The conventions in force for a claim: document defaults, then claim, then check."""
        claim = self.claims[claim_id]
        merged = dict(self.documents[claim.document].conventions)
        merged.update(claim.conventions)
        if claim.check is not None:
            merged.update(claim.check.conventions)
        return merged

    def by_document(self) -> dict[str, list[Claim]]:
        out: dict[str, list[Claim]] = {key: [] for key in self.documents}
        for claim in self.claims.values():
            out[claim.document].append(claim)
        return out

    def line_of(self, claim_id: str, key: str | None = None) -> Location:
        loc = self.locations[claim_id]
        if key is not None and key in self.key_lines.get(claim_id, {}):
            return Location(loc.file, self.key_lines[claim_id][key])
        return loc


# ---------------------------------------------------------------------------- YAML with line numbers


class _LineDict(dict):
    """A mapping that remembers where it and each of its keys stand in the YAML file."""

    line: int = 0
    key_lines: dict[str, int]


class _DuplicateKey(Exception):
    def __init__(self, key: Any, line: int):
        self.key, self.line = key, line


# the C parser (libyaml) where PyYAML has it: same safe constructors, a fifth of the load time
class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    pass


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode, deep: bool = False) -> _LineDict:
    loader.flatten_mapping(node)
    out = _LineDict()
    out.line = node.start_mark.line + 1
    out.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise _DuplicateKey(key, key_node.start_mark.line + 1)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[str(key)] = key_node.start_mark.line + 1
    return out


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_yaml(path: Path, shown: str, problems: list[Problem]) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(Location(shown, 0), f"cannot read file: {exc}", code="io"))
        return None
    try:
        return yaml.load(text, Loader=_LineLoader)  # noqa: S506 - _LineLoader derives from SafeLoader
    except _DuplicateKey as exc:
        problems.append(Problem(Location(shown, exc.line), f"duplicate key {exc.key!r}", code="yaml"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        problems.append(Problem(Location(shown, line), f"YAML error: {exc.problem or exc}", code="yaml"))
    except yaml.YAMLError as exc:
        problems.append(Problem(Location(shown, 0), f"YAML error: {exc}", code="yaml"))
    return None


def _pydantic_problems(exc: ValidationError, raw: _LineDict, shown: str, claim_id: str | None) -> list[Problem]:
    out = []
    for err in exc.errors():
        loc = err["loc"]
        field_name = str(loc[0]) if loc else None
        line = raw.key_lines.get(field_name, raw.line) if field_name else raw.line
        # point inside nested mappings (check:, findings:) where the YAML lets us
        node: Any = raw
        for part in loc:
            if isinstance(node, _LineDict) and part in node:
                child = node[part]
                line = node.key_lines.get(str(part), line)
                node = child
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
                if isinstance(node, _LineDict):
                    line = node.line
            else:
                break
        where = ".".join(str(p) for p in loc) or "claim"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] == "missing":
            msg = "required field is missing"
        out.append(Problem(Location(shown, line), f"{where}: {msg}", claim_id))
    return out


def registry_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    return [path]


def load_registry(path: str | Path | None = None) -> Registry:
    """Load a registry from a YAML file or a folder of them; raise RegistryError listing all problems."""
    root = Path(path) if path is not None else DEFAULT_REGISTRY
    problems: list[Problem] = []
    if not root.exists():
        raise RegistryError([Problem(Location(str(root), 0), "no such registry file or folder", code="io")])
    files = registry_files(root)
    if not files:
        raise RegistryError([Problem(Location(str(root), 0), "no YAML files in the registry", code="io")])
    base = root if root.is_dir() else root.parent

    documents: dict[str, Document] = {}
    doc_locations: dict[str, Location] = {}
    raw_claims: list[tuple[_LineDict, str]] = []

    for file in files:
        try:
            shown = str(file.relative_to(Path.cwd()))
        except ValueError:
            shown = str(file)
        data = _read_yaml(file, shown, problems)
        if data is None:
            if not any(p.location.file == shown for p in problems):
                problems.append(Problem(Location(shown, 1), "empty file: expected `documents:` and/or `claims:`"))
            continue
        if not isinstance(data, _LineDict):
            problems.append(Problem(Location(shown, 1), "top level must be a mapping with `documents:` and/or `claims:`"))
            continue
        for key in data:
            if key not in ("documents", "claims"):
                problems.append(Problem(Location(shown, data.key_lines[str(key)]), f"unknown top-level key {key!r}"))
        for kind, target in (("documents", None), ("claims", None)):
            items = data.get(kind)
            if items is None:
                continue
            if not isinstance(items, list):
                problems.append(Problem(Location(shown, data.key_lines[kind]), f"`{kind}` must be a list"))
                continue
            for item in items:
                if not isinstance(item, _LineDict):
                    problems.append(Problem(Location(shown, data.key_lines[kind]), f"each entry of `{kind}` must be a mapping"))
                    continue
                if kind == "documents":
                    try:
                        doc = Document.model_validate(dict(item))
                    except ValidationError as exc:
                        problems.extend(_pydantic_problems(exc, item, shown, None))
                        continue
                    if doc.key in documents:
                        problems.append(Problem(Location(shown, item.line), f"document {doc.key!r} declared twice (first at {doc_locations[doc.key]})"))
                        continue
                    documents[doc.key] = doc
                    doc_locations[doc.key] = Location(shown, item.line)
                else:
                    raw_claims.append((item, shown))

    claims: dict[str, Claim] = {}
    locations: dict[str, Location] = {}
    key_lines: dict[str, dict[str, int]] = {}
    for item, shown in raw_claims:
        cid = item.get("id") if isinstance(item.get("id"), str) else None
        try:
            claim = Claim.model_validate(dict(item))
        except ValidationError as exc:
            problems.extend(_pydantic_problems(exc, item, shown, cid))
            continue
        here = Location(shown, item.line)
        if claim.id in claims:
            problems.append(Problem(here, f"duplicate id (first at {locations[claim.id]})", claim.id, "duplicate-id"))
            continue
        if claim.document not in documents:
            known = ", ".join(sorted(documents)) or "none declared"
            problems.append(Problem(Location(shown, item.key_lines.get("document", item.line)), f"unknown document {claim.document!r} (known: {known})", claim.id))
        claims[claim.id] = claim
        locations[claim.id] = here
        key_lines[claim.id] = dict(item.key_lines)
        problems.extend(_finding_shape_problems(claim, item, shown))

    if problems:
        raise RegistryError(problems)
    return Registry(documents, claims, locations, key_lines, base, root.resolve())


def _finding_shape_problems(claim: Claim, item: _LineDict, shown: str) -> list[Problem]:
    out = []
    line = item.key_lines.get("findings", item.line)
    for f in claim.findings:
        needs_target = f.type in ("forward-dep", "unknown-dep", "cycle")
        if needs_target and not f.target:
            out.append(Problem(Location(shown, line), f"finding {f.type} needs `target`", claim.id))
        if f.type == "symbol-without-dep" and not f.symbol:
            out.append(Problem(Location(shown, line), "finding symbol-without-dep needs `symbol`", claim.id))
    has_trunc = any(f.type == "truncated-deps" for f in claim.findings)
    if has_trunc != claim.deps_truncated:
        out.append(Problem(Location(shown, item.key_lines.get("deps_truncated", line)),
                           "deps_truncated: true and a truncated-deps finding go together", claim.id))
    return out


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
        },
    }
    return json.loads(json.dumps(schema))
