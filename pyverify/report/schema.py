"""JSON Schema of report.json (committed as docs/report.schema.json; a test keeps the two equal and
validates a produced report against it).

Written out rather than inferred from an example, so that it states the contract the page relies on:
which fields are always there, and the closed vocabularies (verdict, standing, severity).
"""

from __future__ import annotations

import json
from typing import Any

from ..registry.models import Kind, Verdict
from ..analysis import SEVERITY_LEVELS, STANDINGS

SCHEMA_PATH = "docs/report.schema.json"

_STR = {"type": "string"}
_NSTR = {"type": ["string", "null"]}
_IDS = {"type": "array", "items": _STR}
_VERDICT = {"enum": [v.value for v in Verdict] + [None]}
_NUMBER_OR_TEXT = {"type": ["number", "string", "null"]}  # non-finite floats are written as "inf"/"nan"


def _object(properties: dict[str, Any], required: list[str] | None = None, extra: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required, "additionalProperties": extra}


FALSE_PREMISE = _object({
    "id": _STR,
    "severity": {"enum": list(SEVERITY_LEVELS) + [None]},
    "corrected_by": _IDS,
    "correction_verdict": _VERDICT,
}, extra=False)

CLAIM_REF = _object({"id": _STR, "verdict": _VERDICT, "standing": {"enum": list(STANDINGS) + [None]},
                     "via": {"const": "calls"}}, required=["id", "verdict", "standing"], extra=False)

GUARANTEE = _object({"guarantee": _STR, "meaning": _STR, "claim": _STR, "verdict": _VERDICT,
                     "standing": {"enum": list(STANDINGS) + [None]},
                     "false_premises": {"type": "array", "items": FALSE_PREMISE}}, extra=False)

IMPLEMENTATION = _object({
    "name": _STR,
    "module": _STR,
    "kind": {"enum": ["function", "class"]},
    "status": {"enum": ["exercised", "unverified"]},
    "claims": {"type": "array", "items": CLAIM_REF},
    "calls": _IDS,
    "guarantees": {"type": "array", "items": GUARANTEE},
    "plugin": _STR,  # a function a plugin registered: the plugin's name and the check language's name for it
    "vocabulary": _STR,
    "bound_as": _STR,  # a function of the user's bound to this role (report --bind)
}, required=["name", "module", "kind", "status", "claims"], extra=False)

# per function of the user's bound to a role: which claims its code satisfies and which it violates
BINDING = _object({
    "role": _STR, "function": _STR, "target": _STR,
    "conventions": {"type": "object", "additionalProperties": _STR},
    "layout": _NSTR, "precision": {"enum": ["float64", "float32", "bfloat16", "float16"]}, "declared_in": _STR,
    "satisfied": _IDS, "violated": _IDS, "refuted_as_expected": _IDS,
    "undecided": {"type": "array", "items": _object({"id": _STR, "verdict": _STR}, extra=False)},
}, extra=False)

PLOTS = {"type": "object", "additionalProperties": {"type": "string", "pattern": r"^plots/[^/]+\.svg$"}}

CLAIM = _object({
    "id": _STR,
    "verdict": _VERDICT,
    "expect": _VERDICT,
    "worst": _NUMBER_OR_TEXT,
    "instances": {"type": "integer", "minimum": 0},
    "elapsed_s": {"type": "number"},
    "message": _STR,
    "witness": {"type": "object"},
    "details": {"type": "object"},
    "title": _STR,
    "document": _STR,
    "kind": {"enum": [k.value for k in Kind]},
    "locator": _STR,
    "statement": _STR,
    "reading": _NSTR,
    "mutation_survives": _NSTR,  # why the mutation pass's planted errors leave the check's verdict (registry)
    "deps": _IDS,
    "deps_truncated": {"type": "boolean"},
    "restates": _IDS,
    "corrects": _NSTR,
    "corrected_by": _IDS,
    "rests_on_refuted": _IDS,
    "dependents": _IDS,
    "edges_reduced": _IDS,
    "standing": {"enum": list(STANDINGS)},
    "false_premises": {"type": "array", "items": FALSE_PREMISE},
    "severity": {"oneOf": [{"type": "null"},
                           _object({"level": {"enum": list(SEVERITY_LEVELS)}, "reason": _STR}, extra=False)]},
    "findings": {"type": "array", "items": {"type": "object"}},
    "formal": _STR,
    "lean": _NSTR,
    "lean_file": _NSTR,
    "lean_line": {"type": ["integer", "null"]},
    "reviewed": {"type": "boolean"},
    "matches": {"type": ["boolean", "null"]},
    "file": _STR,
    "line": {"type": "integer", "minimum": 1},
    "evidence": {"type": "array", "items": _STR},
    "reproduce": {"type": "string", "pattern": "^pyverify check "},
    "exercises": _IDS,
    "bound": _IDS,  # the roles bound to the user's code this claim's check exercised
    "plots": PLOTS,
}, required=["id", "verdict", "expect", "message", "title", "document", "kind", "locator", "statement",
             "reading", "deps", "restates", "corrects", "corrected_by", "rests_on_refuted", "dependents",
             "edges_reduced", "standing", "false_premises", "severity", "findings", "formal", "lean", "file",
             "line", "evidence", "reproduce", "exercises", "plots"])

META = _object({
    "seed": {"type": "integer"},
    "budget": {"enum": ["quick", "default", "thorough"]},
    "device": _STR,
    "versions": {"type": "object", "required": ["python", "torch", "sympy", "pyverify"],
                 "additionalProperties": _NSTR},
    "git_commit": _NSTR,
    "started": {"type": "string", "format": "date-time"},
    "elapsed_s": {"type": "number", "minimum": 0},
    "lean_built": {"type": "boolean"},
    "toolchain": _NSTR,
    "registry": _NSTR,
    "plugins": {"type": "array", "items": _STR},
}, required=["seed", "budget", "device", "versions", "git_commit", "started", "elapsed_s", "lean_built", "toolchain"])

CHANGES = _object({
    "old": {"type": "object"}, "new": {"type": "object"},
    "added": _IDS, "removed": _IDS,
    "verdicts": {"type": "array", "items": _object({"id": _STR, "old": _VERDICT, "new": _VERDICT}, extra=False)},
    "new_refutations": _IDS, "withdrawn_refutations": _IDS,
    "standings": {"type": "array", "items": _object({"id": _STR, "old": _NSTR, "new": _NSTR}, extra=False)},
    "changed": {"type": "boolean"},
})


def report_schema() -> dict[str, Any]:
    top = _object({
        "seed": {"type": "integer"},
        "budget": _STR,
        "device": _STR,
        "toolchain": _NSTR,
        "lean_built": {"type": "boolean"},
        "meta": META,
        "documents": {"type": "object", "additionalProperties": _object({"title": _STR, "files": _IDS})},
        "counts": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}}},
        "graph_problems": {"type": "array", "items": {"type": "object"}},
        "endangered": {"type": "object", "additionalProperties": _IDS},
        "implementation": {"type": "array", "items": IMPLEMENTATION},
        "bindings": {"type": "array", "items": BINDING},
        "plots": PLOTS,
        "changes": CHANGES,
        "claims": {"type": "array", "items": CLAIM},
    }, required=["meta", "documents", "counts", "graph_problems", "endangered", "implementation", "plots", "claims"])
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "pyverify report.json", **top}


def schema_text() -> str:
    return json.dumps(report_schema(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # regenerate: python -m pyverify.report.schema > docs/report.schema.json
    print(schema_text(), end="")
