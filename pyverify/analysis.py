"""What the verdicts mean, computed once for every reader (the command line's JSON, the report): the
severity of a refutation, dependents and the transitive reduction of the dependency graph, where each
claim stands once the refuted claims it rests on, their severity and their corrections are known, the
endangered conclusions per document, and the command that reproduces a verdict.

Everything here is a function of the registry and of verdicts the engine computed; nothing here
computes or overrides a verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import networkx as nx

from .registry import Claim, Registry, Verdict

# A claim "holds on the code" when the engine found no violation or a prover reduced it.
HOLDING = ("holds", "symbolic", "proved")
SEVERITY_LEVELS = ("substantive", "minor", "typo")
# Severities that do not endanger what rests on them (a mis-typed constant, a slip of notation).
HARMLESS_SEVERITIES = ("minor", "typo")

STANDINGS = ("refuted", "sound", "repaired-premise", "rests-on-false", "rests-on-typo", "not-decided")


def premise_graph(registry: Registry) -> nx.DiGraph:
    """claim -> each claim it rests on (printed deps and what it restates), known ids only."""
    g = nx.DiGraph()
    g.add_nodes_from(registry.claims)
    for cid, claim in registry.claims.items():
        for ref in list(claim.deps) + list(claim.restates):
            if ref in registry.claims and ref != cid:
                g.add_edge(cid, ref)
    return g


def dependents(registry: Registry) -> dict[str, list[str]]:
    """For each claim, the claims that list it among their printed deps."""
    out: dict[str, list[str]] = {cid: [] for cid in registry.claims}
    for cid, claim in registry.claims.items():
        for ref in claim.deps:
            if ref in out and cid not in out[ref]:
                out[ref].append(cid)
    order_key = registry.id_order()
    return {cid: sorted(ids, key=order_key) for cid, ids in out.items()}


def reduced_deps(registry: Registry) -> dict[str, list[str]]:
    """The printed deps kept by the transitive reduction (a dep implied through another dep is dropped).

    A dependency cycle (a graph problem reported elsewhere) has no transitive reduction: the claims of
    a cycle keep all their deps, the rest of the graph is reduced as usual.
    """
    g = nx.DiGraph()
    g.add_nodes_from(registry.claims)
    for cid, claim in registry.claims.items():
        g.add_edges_from((cid, ref) for ref in claim.deps if ref in registry.claims and ref != cid)
    cyclic = {n for comp in nx.strongly_connected_components(g) if len(comp) > 1 for n in comp}
    acyclic = g.subgraph(n for n in g if n not in cyclic)
    kept = set(nx.transitive_reduction(acyclic).edges())
    out = {}
    for cid, claim in registry.claims.items():
        known = [d for d in claim.deps if d in registry.claims and d != cid]
        out[cid] = known if cid in cyclic else [d for d in known if (cid, d) in kept or d in cyclic]
    return out


def severity_of(claim: Claim) -> dict[str, str] | None:
    """The registry's ``severity`` of a claim as {level, reason}, or None when it is not assessed."""
    return claim.severity.model_dump() if claim.severity is not None else None


def check_row(row: dict[str, Any], claim: Claim) -> dict[str, Any]:
    """A result's JSON (``Result.as_dict()``) as ``pyverify check`` prints it: a refuted claim carries the
    registry's severity of the error (null: not assessed)."""
    if row["verdict"] == Verdict.refuted.value:
        row["severity"] = severity_of(claim)
    return row


SHELL_SAFE = re.compile(r"^[A-Za-z0-9._\-]+$")


def reproduce_command(claim_id: str, seed: int, budget: str) -> str:
    """A command that re-runs this claim's check with this run's seed and budget."""
    quoted = claim_id if SHELL_SAFE.match(claim_id) else f'"{claim_id}"'  # an id may hold a quote (a prime)
    return f"pyverify check {quoted} --seed {seed} --budget {budget}"


@dataclass(frozen=True)
class Standing:
    standing: str
    false_premises: list[dict[str, Any]]


def corrections_of(registry: Registry) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for c in registry.claims.values():
        if c.corrects:
            out.setdefault(c.corrects, []).append(c.id)
    return out


def _correction_verdict(ids: list[str], verdicts: dict[str, str | None]) -> str | None:
    """The verdict of the best correction: one that holds repairs the premise."""
    if not ids:
        return None
    seen = [verdicts.get(i) for i in ids]
    for v in HOLDING:
        if v in seen:
            return v
    return next((v for v in seen if v is not None), None)


def standings(registry: Registry, verdicts: dict[str, str | None]) -> dict[str, Standing]:
    """Where each claim stands given the refuted claims it rests on (transitively).

    * ``refuted``: the engine refuted the claim itself;
    * ``rests-on-false``: some refuted premise is unrepaired (no correction that holds) and its severity
      is substantive or not assessed — the document's argument for this claim is broken;
    * ``rests-on-typo``: every unrepaired refuted premise is of severity minor or typo;
    * ``repaired-premise``: every refuted premise has a correction that holds, and the claim itself holds;
    * ``sound``: no refuted premise and the claim holds (numerically, symbolically or proved);
    * ``not-decided``: the claim's own verdict decides nothing (not-checkable, vacuous, error, not run)
      and no unrepaired refuted premise endangers it.

    A correction does not rest on the claim it corrects (it replaces it), so that premise is skipped.
    """
    g = premise_graph(registry)
    order_key = registry.id_order()
    fixes = corrections_of(registry)
    refuted = {cid for cid, v in verdicts.items() if v == "refuted"}
    out = {}
    for cid, claim in registry.claims.items():
        premises = sorted((nx.descendants(g, cid) & refuted) - {claim.corrects}, key=order_key)
        false = []
        for p in premises:
            by = fixes.get(p, [])
            false.append({"id": p, "severity": (severity_of(registry.claims[p]) or {}).get("level"),
                          "corrected_by": by, "correction_verdict": _correction_verdict(by, verdicts)})
        out[cid] = Standing(_standing(verdicts.get(cid), false), false)
    return out


def endangering(false_premises: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The false premises (of ``standings``) that endanger a claim: unrepaired (no correction that holds),
    of a severity that breaks the argument (substantive, or not assessed)."""
    return [p for p in false_premises
            if p.get("correction_verdict") not in HOLDING and p.get("severity") not in HARMLESS_SEVERITIES]


def _standing(verdict: str | None, false: list[dict[str, Any]]) -> str:
    if verdict == "refuted":
        return "refuted"
    unrepaired = [p for p in false if p["correction_verdict"] not in HOLDING]
    if endangering(false):
        return "rests-on-false"
    if unrepaired:
        return "rests-on-typo"
    if verdict not in HOLDING:
        return "not-decided"
    return "repaired-premise" if false else "sound"


def endangered(registry: Registry, standing: dict[str, Standing]) -> dict[str, list[str]]:
    """Per document, the claims really endangered: resting on an unrepaired, substantive false premise."""
    out: dict[str, list[str]] = {key: [] for key in registry.documents}
    for cid, claim in registry.claims.items():
        if standing[cid].standing == "rests-on-false":
            out.setdefault(claim.document, []).append(cid)
    order_key = registry.id_order()
    return {doc: sorted(ids, key=order_key) for doc, ids in out.items()}
