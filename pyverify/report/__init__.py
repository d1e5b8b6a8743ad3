"""The report: per-claim verdicts, formal status, dependencies and what rests on something false.

Data flows one way: registry -> engine verdicts (+ Lean status) -> ``build`` (one dict) -> writers
(``report.json``, ``report.md``, ``index.html``, ``graph.svg``). Nothing here computes a verdict.
"""

from __future__ import annotations

import networkx as nx

from ..engine import Result
from ..registry import Registry
from ..registry.graph import GraphReport, order_key


def rests_on_false(registry: Registry, verdicts: dict[str, str]) -> dict[str, list[str]]:
    """For each claim, the refuted claims it rests on, through its printed deps and what it restates."""
    g = nx.DiGraph()
    g.add_nodes_from(registry.claims)
    for cid, claim in registry.claims.items():
        for ref in list(claim.deps) + list(claim.restates):
            if ref in registry.claims:
                g.add_edge(cid, ref)
    false = {cid for cid, v in verdicts.items() if v == "refuted"}
    return {cid: sorted(nx.descendants(g, cid) & false, key=order_key) for cid in registry.claims}


def build(registry: Registry, results: list[Result], graph: GraphReport, formal: dict[str, dict],
          meta: dict) -> dict:
    by_id = {r.id: r for r in results}
    verdicts = {cid: r.verdict for cid, r in by_id.items()}
    rests = rests_on_false(registry, verdicts)
    corrections: dict[str, list[str]] = {}
    for c in registry.claims.values():
        if c.corrects:
            corrections.setdefault(c.corrects, []).append(c.id)
    claims = []
    docs = list(registry.documents)
    ordered = sorted(registry.claims.items(), key=lambda kv: (docs.index(kv[1].document) if kv[1].document in docs else len(docs),
                                                            order_key(kv[0])))
    for cid, claim in ordered:
        r = by_id.get(cid)
        row = r.as_dict() if r else {"id": cid, "verdict": None, "expect": claim.expect}
        row.update({
            "title": claim.title,
            "document": claim.document,
            "kind": claim.kind.value,
            "locator": claim.locator,
            "statement": claim.statement,
            "reading": claim.reading,
            "deps": list(claim.deps),
            "deps_truncated": claim.deps_truncated,
            "restates": list(claim.restates),
            "corrects": claim.corrects,
            "corrected_by": corrections.get(cid, []),
            "rests_on_refuted": rests[cid],
            "findings": [f.model_dump(exclude_none=True) for f in claim.findings],
            "formal": formal.get(cid, {}).get("formal", "none"),
            "lean": formal.get(cid, {}).get("lean") or _lean_name(claim.lean),
            "reviewed": claim.expect is not None,
            "matches": (r.matches if r else None),
            "file": registry.locations[cid].file,
            "line": registry.locations[cid].line,
        })
        claims.append(row)
    counts: dict[str, dict[str, int]] = {}
    for row in claims:
        d = counts.setdefault(row["document"], {})
        d[row["verdict"] or "not run"] = d.get(row["verdict"] or "not run", 0) + 1
    return {
        **meta,
        "documents": {k: {"title": d.title, "files": d.files} for k, d in registry.documents.items()},
        "counts": counts,
        "graph_problems": [p.as_dict() for p in graph.problems],
        "claims": claims,
    }


def _lean_name(link) -> str | None:
    """The declaration a claim's ``lean:`` names: its theorem, else its statement."""
    if link is None or isinstance(link, str):
        return link
    return link.theorem or link.statement
