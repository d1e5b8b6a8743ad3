"""The report as one dict (written as report.json; the page and report.md render it).

Data flows one way: registry -> engine results (+ Lean status) -> ``build`` -> writers. Every verdict
here is one the engine computed in this run; ``build`` only arranges them and derives from them where
each claim stands (``analysis``), what code each check runs (``coverage``) and plain-language evidence
(``evidence``). The field list is ``docs/report.schema.json``.
"""

from __future__ import annotations

import platform
import subprocess
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import analysis, contributions
from ..checks import roles
from ..checks.validate import CheckedRegistry
from ..engine import Result
from ..registry.graph import GraphReport
from . import coverage
from .evidence import evidence_sentences

HERE = Path(__file__).resolve().parent  # pyverify's own checkout, when it runs from one
VERSIONED = ("torch", "sympy", "numpy", "networkx", "pydantic", "python-flint", "pyverify")


def collect_meta(*, seed: int, budget: str, device: str, started: float, lean_built: bool,
                 toolchain: str | None, registry: str | None = None, plugins: tuple[str, ...] = ()) -> dict[str, Any]:
    """How this report was made: enough to reproduce it (seed, budget, registry and --plugin opt-ins,
    versions, commit). ``registry`` None: the installed content package's."""
    versions = {"python": platform.python_version()}
    for dist in VERSIONED:
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "seed": seed,
        "budget": budget,
        "device": device,
        "versions": versions,
        "git_commit": git_commit(),
        "started": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "elapsed_s": round(time.time() - started, 3),
        "lean_built": lean_built,
        "toolchain": toolchain,
        "registry": registry,
        "plugins": list(plugins),
    }


def git_commit() -> str | None:
    """The project's commit, with ``+dirty`` when the work tree has changes; None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=HERE,
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")


def build(registry: CheckedRegistry, results: list[Result], graph: GraphReport, formal: dict[str, dict],
          meta: dict[str, Any], plots: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """The report dict. ``meta`` is ``collect_meta``'s; ``plots`` maps claim id -> {name: relative path}.
    With the user's code bound to roles (``checks.roles``), the claims exercising a bound role were run on
    it: each row says which roles (``bound``), and the report which claims each bound function satisfies
    and violates (``bindings``), its implementation view listing the user's functions first."""
    by_id = {r.id: r for r in results}
    compiled = registry.compiled
    verdicts = {cid: (by_id[cid].verdict.value if cid in by_id else None) for cid in registry.claims}
    standing = analysis.standings(registry, verdicts)
    dependents = analysis.dependents(registry)
    reduced = analysis.reduced_deps(registry)
    corrections = analysis.corrections_of(registry)
    docs = list(registry.documents)
    order_key = registry.id_order()
    ordered = sorted(registry.claims.items(),
                     key=lambda kv: (docs.index(kv[1].document) if kv[1].document in docs else len(docs), order_key(kv[0])))
    bound = roles.exercised(compiled)
    rows: dict[str, dict] = {}
    for cid, claim in ordered:
        r = by_id.get(cid)
        row = r.as_dict() if r else {"id": cid, "verdict": None, "expect": claim.expect.value if claim.expect else None}
        st = standing[cid]
        row.update({
            "title": claim.title,
            "document": claim.document,
            "kind": claim.kind.value,
            "locator": claim.locator,
            "statement": claim.statement,
            "reading": claim.reading,
            "mutation_survives": claim.mutation.survives if claim.mutation is not None else None,
            "deps": list(claim.deps),
            "deps_truncated": claim.deps_truncated,
            "restates": list(claim.restates),
            "corrects": claim.corrects,
            "corrected_by": corrections.get(cid, []),
            "rests_on_refuted": [p["id"] for p in st.false_premises],
            "dependents": dependents[cid],
            "edges_reduced": reduced[cid],
            "standing": st.standing,
            "false_premises": st.false_premises,
            "severity": analysis.severity_of(claim),
            "findings": [f.model_dump(exclude_none=True) for f in claim.findings],
            "formal": formal.get(cid, {}).get("formal", "none"),
            "lean": formal.get(cid, {}).get("lean") or _lean_name(claim.lean),
            "lean_file": formal.get(cid, {}).get("file"),
            "lean_line": formal.get(cid, {}).get("line"),
            "reviewed": claim.expect is not None,
            "matches": (r.matches if r else None),
            "file": registry.locations[cid].file,
            "line": registry.locations[cid].line,
            "evidence": evidence_sentences(r, compiled.get(cid)) if r else [],
            "reproduce": analysis.reproduce_command(cid, meta),
            "exercises": coverage.exercises(compiled.get(cid)),
            "bound": bound.get(cid, []),
        })
        # a report-wide figure goes with every claim whose check runs what it is about
        row["plots"] = {**(plots or {}).get(cid, {}),
                        **{name: path for name, path in (plots or {}).get("", {}).items()
                           if name in contributions.FIGURES
                           and set(contributions.FIGURES[name].about).intersection(row["exercises"])}}
        rows[cid] = row
    bindings = [b.describe() for b in roles.ACTIVE.values()]
    counts: dict[str, dict[str, int]] = {}
    for row in rows.values():
        d = counts.setdefault(row["document"], {})
        d[row["verdict"] or "not run"] = d.get(row["verdict"] or "not run", 0) + 1
    return {
        # the run's settings also at the top level, where report readers before `meta` looked for them
        **{k: meta[k] for k in ("seed", "budget", "device", "toolchain", "lean_built")},
        "meta": meta,
        "documents": {k: {"title": d.title, "files": d.files} for k, d in registry.documents.items()},
        "counts": counts,
        "graph_problems": [p.as_dict() for p in graph.problems],
        "endangered": analysis.endangered(registry, standing),
        "implementation": coverage.bound_functions(rows, bindings) + coverage.implementation(rows),
        "bindings": analysis.binding_summary(bindings, bound, list(rows.values())),
        "plots": (plots or {}).get("", {}),
        "claims": list(rows.values()),
    }


def _lean_name(link) -> str | None:
    """The declaration a claim's ``lean:`` names: its theorem, else its statement."""
    if link is None or isinstance(link, str):
        return link
    return link.theorem or link.statement
