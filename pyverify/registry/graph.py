"""The dependency graph of a registry, and its faults.

An edge ``a -> b`` means "claim a depends on claim b" (as printed in the document). The checks are:
unknown ids, cycles, tier order (where a document's id scheme orders tiers, a statement of tier k
depends on tiers <= k: ``registry/ids.py``), and symbols used without (transitively) depending on the
statement that defines them.

The documents' own defects are recorded as ``findings`` on the claim. A finding *accepts* exactly one
fault; a fault without a finding is a problem, and so is a finding that accepts no fault (so that a
mended registry does not keep stale excuses).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import networkx as nx

from .models import Claim, Location, Problem, Registry

# beyond this many simple cycles (their number grows exponentially: 14 claims depending on each other
# have billions), cycles are reported as strongly connected components instead
MAX_CYCLES = 50
MAX_SHOWN = 12  # claims named in a component's message


def build_graph(registry: Registry) -> nx.DiGraph:
    g = nx.DiGraph()
    for cid, claim in registry.claims.items():
        g.add_node(cid, document=claim.document, kind=claim.kind.value, title=claim.title)
    for cid, claim in registry.claims.items():
        for dep in claim.deps:
            if dep in registry.claims:
                g.add_edge(cid, dep)
    return g


@dataclass(frozen=True)
class Fault:
    """A fault of the graph; ``finding`` is the type of finding that may accept it."""

    claim_id: str
    finding: str
    key: str  # target id or symbol
    message: str


def _faults(registry: Registry, g: nx.DiGraph) -> list[Fault]:
    faults: list[Fault] = []
    claims = registry.claims
    order = registry.id_order()
    for cid, claim in claims.items():
        for dep in claim.deps:
            if dep not in claims:
                faults.append(Fault(cid, "unknown-dep", dep, f"depends on unknown id {dep}"))
                continue
            t_self, t_dep = order.tier(cid), order.tier(dep)
            if t_self is not None and t_dep is not None and t_dep[0] > t_self[0]:
                faults.append(Fault(cid, "forward-dep", dep,
                                    f"tier {t_self[1]} statement depends on {dep} of later tier {t_dep[1]}"))
    faults.extend(_cycle_faults(g, order))
    definers: dict[tuple[str, str], list[str]] = {}
    for cid, claim in claims.items():
        for sym in claim.defines:
            definers.setdefault((claim.document, sym), []).append(cid)
    for cid, claim in claims.items():
        ambient = set(registry.documents[claim.document].ambient_symbols) if claim.document in registry.documents else set()
        reach = nx.descendants(g, cid)
        for sym in claim.uses:
            if sym in claim.defines or sym in ambient:
                continue
            who = definers.get((claim.document, sym), [])
            if not who:
                faults.append(Fault(cid, "symbol-without-dep", sym, f"uses symbol {sym!r} that no statement of its document defines"))
            elif not reach.intersection(who):
                faults.append(Fault(cid, "symbol-without-dep", sym,
                                    f"uses symbol {sym!r} defined in {', '.join(who)} but depends on none of them"))
    return faults


def _cycle_faults(g: nx.DiGraph, order_key) -> list[Fault]:
    """Each simple cycle once, on its first claim in document order (a `cycle` finding on any of its edges
    accepts it); when there are more than MAX_CYCLES, one fault per strongly connected component."""
    cycles = list(itertools.islice(nx.simple_cycles(g), MAX_CYCLES + 1))
    faults = []
    if len(cycles) <= MAX_CYCLES:
        for cycle in cycles:
            first = min(range(len(cycle)), key=lambda i: order_key(cycle[i]))
            cycle = cycle[first:] + cycle[:first]
            edges = [(cycle[i], cycle[(i + 1) % len(cycle)]) for i in range(len(cycle))]
            text = " -> ".join(cycle + [cycle[0]])
            faults.append(Fault(edges[0][0], "cycle", "|".join(f"{a}>{b}" for a, b in edges), f"dependency cycle {text}"))
        return faults
    for component in nx.strongly_connected_components(g):
        members = sorted(component, key=order_key)
        if len(members) == 1 and not g.has_edge(members[0], members[0]):
            continue
        edges = [(a, b) for a, b in g.subgraph(members).edges]
        shown = ", ".join(members[:MAX_SHOWN]) + (f", ... ({len(members) - MAX_SHOWN} more)" if len(members) > MAX_SHOWN else "")
        faults.append(Fault(members[0], "cycle", "|".join(f"{a}>{b}" for a, b in edges),
                            f"dependency cycles among {len(members)} claims that all depend on each other "
                            f"(a strongly connected component: {shown})"))
    return faults


def _accepted(fault: Fault, claims: dict[str, Claim]) -> tuple[str, int] | None:
    """The (claim id, finding index) that accepts a fault, if any."""
    if fault.finding == "cycle":
        for edge in fault.key.split("|"):
            src, dst = edge.split(">")
            for i, f in enumerate(claims[src].findings):
                if f.type == "cycle" and f.target == dst:
                    return (src, i)
        return None
    for i, f in enumerate(claims[fault.claim_id].findings):
        if f.type != fault.finding:
            continue
        if f.type == "symbol-without-dep" and f.symbol == fault.key:
            return (fault.claim_id, i)
        if f.type in ("forward-dep", "unknown-dep") and f.target == fault.key:
            return (fault.claim_id, i)
    return None


@dataclass
class GraphReport:
    graph: nx.DiGraph
    problems: list[Problem]
    accepted: list[tuple[Fault, str]]  # fault, the finding's note

    @property
    def ok(self) -> bool:
        return not self.problems


def check_graph(registry: Registry) -> GraphReport:
    """Every fault of the graph, split into accepted findings and problems."""
    g = build_graph(registry)
    claims = registry.claims
    problems: list[Problem] = []
    accepted: list[tuple[Fault, str]] = []
    used: set[tuple[str, int]] = set()
    for fault in _faults(registry, g):
        hit = _accepted(fault, claims)
        if hit is None:
            key = "deps" if fault.finding != "symbol-without-dep" else "uses"
            problems.append(Problem(registry.line_of(fault.claim_id, key), fault.message + " (no finding records it)",
                                    fault.claim_id, fault.finding))
        else:
            used.add(hit)
            accepted.append((fault, claims[hit[0]].findings[hit[1]].note))
    graph_findings = ("forward-dep", "unknown-dep", "cycle", "symbol-without-dep")
    for cid, claim in claims.items():
        for i, f in enumerate(claim.findings):
            if f.type in graph_findings and (cid, i) not in used:
                what = f.target or f.symbol
                problems.append(Problem(registry.line_of(cid, "findings"),
                                        f"finding {f.type} ({what}) records no fault: remove it or fix it", cid, "stale-finding"))
        refs = [(r, "restates") for r in claim.restates]
        refs += [(getattr(claim, f), f) for f in ("corrects", "sharpens") if getattr(claim, f)]
        for ref, field_name in refs:
            if ref not in claims:
                problems.append(Problem(registry.line_of(cid, field_name), f"{field_name} names unknown id {ref}", cid, "unknown-id"))
    problems.sort(key=lambda p: (p.location.file, p.location.line))
    return GraphReport(g, problems, accepted)


def to_dot(registry: Registry, g: nx.DiGraph, colors: dict[str, str] | None = None) -> str:
    colors = colors or {}
    lines = ["digraph pyverify {", "  rankdir=BT;", '  node [shape=box, fontname="Helvetica", fontsize=10];']
    order_key = registry.id_order()
    by_doc: dict[str, list[str]] = {}
    for cid in g.nodes:
        by_doc.setdefault(registry.claims[cid].document, []).append(cid)
    for i, (doc, ids) in enumerate(sorted(by_doc.items())):
        lines.append(f'  subgraph "cluster_{i}" {{ label="{doc}";')
        for cid in sorted(ids, key=order_key):
            fill = colors.get(cid)
            style = f', style=filled, fillcolor="{fill}"' if fill else ""
            lines.append(f'    "{cid}" [label="{cid}"{style}];')
        lines.append("  }")
    for a, b in g.edges:
        lines.append(f'  "{a}" -> "{b}";')
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["build_graph", "check_graph", "GraphReport", "Fault", "to_dot", "Location"]
