"""Layered layout of the dependency graph, computed by grandalf's Sugiyama engine (pure Python).

Foundations stand on the left, conclusions on the right: each edge is drawn from a premise to the
statement that uses it. The layout is computed on the transitively reduced graph (a reader sees the
shortest story); the edges the reduction drops are kept, flagged, and drawn as plain curves when the
page's "all edges" toggle is on. Connected components are laid out one by one and packed in columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grandalf.graphs import Edge, Graph, Vertex
from grandalf.layouts import SugiyamaLayout

NODE_W, NODE_H = 150.0, 30.0
LAYER_GAP = 70.0     # horizontal room between two layers, for the edges
ROW_GAP = 8.0        # vertical room between two nodes of one layer
COMPONENT_GAP = 40.0
MARGIN = 20.0
SCREEN_ASPECT = 1.6  # width / height the packing of components aims at


@dataclass
class PlacedEdge:
    premise: str
    conclusion: str
    relation: str            # "dep", "restates" or "corrects"
    reduced: bool            # kept by the transitive reduction
    points: list[tuple[float, float]]


@dataclass
class GraphLayout:
    nodes: dict[str, tuple[float, float]] = field(default_factory=dict)   # top-left corner of each node
    edges: list[PlacedEdge] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0


def relations(claims: list[dict]) -> list[tuple[str, str, str]]:
    """(premise, conclusion, relation) for every dependency between two claims present in the list."""
    present = {c["id"] for c in claims}
    out = []
    for c in claims:
        for relation, targets in (("dep", c.get("deps", [])), ("restates", c.get("restates", [])),
                                  ("corrects", [c["corrects"]] if c.get("corrects") else [])):
            out += [(t, c["id"], relation) for t in targets if t in present and t != c["id"]]
    return out


def reduced_pairs(claims: list[dict], edges: list[tuple[str, str, str]]) -> set[tuple[str, str]]:
    """The (premise, conclusion) pairs the layout routes: the dependencies each claim's ``edges_reduced``
    keeps (the transitive reduction, computed once by ``analysis.reduced_deps``), and every restates /
    corrects edge, which are not part of that reduction."""
    present = {c["id"] for c in claims}
    kept = {(d, c["id"]) for c in claims for d in c["edges_reduced"] if d in present}
    return kept | {(p, q) for p, q, rel in edges if rel != "dep"}


class _Box:
    """The view grandalf places: its ``w`` runs along a layer, so for a left-to-right drawing it is the
    node's height (coordinates are swapped afterwards)."""

    def __init__(self) -> None:
        self.w, self.h = NODE_H, NODE_W
        self.xy = (0.0, 0.0)


class _Route:
    def __init__(self) -> None:
        self.points: list[tuple[float, float]] = []

    def setpath(self, points) -> None:
        self.points = [tuple(p) for p in points]


def layout(claims: list[dict]) -> GraphLayout:
    """Place every claim of ``claims`` with the layered layout; route the reduced edges through it."""
    edges = relations(claims)
    kept = reduced_pairs(claims, edges)
    vertices = {c["id"]: Vertex(c["id"]) for c in claims}
    for v in vertices.values():
        v.view = _Box()
    routed: dict[tuple[str, str], Edge] = {}
    for p, q, _ in edges:
        if (p, q) in kept and (p, q) not in routed:
            routed[(p, q)] = Edge(vertices[p], vertices[q])
            routed[(p, q)].view = _Route()
    graph = Graph(list(vertices.values()), list(routed.values()))
    result = GraphLayout()
    # components in a stable order: the largest first, ties by the first claim's position in the report
    order = {c["id"]: i for i, c in enumerate(claims)}
    components = sorted(graph.C, key=lambda comp: (-len(comp.sV), min(order[v.data] for v in comp.sV)))
    sizes = []
    for comp in components:
        sug = SugiyamaLayout(comp)
        sug.xspace, sug.yspace = ROW_GAP, LAYER_GAP
        sug.init_all()
        sug.draw(3)
        # grandalf: x along the layer, y across layers (centres). Swap: layers become columns.
        xs = [v.view.xy[1] for v in comp.sV]
        ys = [v.view.xy[0] for v in comp.sV]
        sizes.append((max(xs) - min(xs) + NODE_W, max(ys) - min(ys) + NODE_H, min(xs), min(ys)))
    for comp, (w, h, x0, y0), (x, y) in zip(components, sizes, _pack([(w, h) for w, h, _, _ in sizes])):
        dx, dy = x + NODE_W / 2 - x0, y + NODE_H / 2 - y0
        for v in comp.sV:
            cx, cy = v.view.xy[1] + dx, v.view.xy[0] + dy
            result.nodes[v.data] = (cx - NODE_W / 2, cy - NODE_H / 2)
        for e in comp.sE:
            e.view.points = [(py + dx, px + dy) for px, py in e.view.points]
        result.width = max(result.width, x + w + MARGIN)
        result.height = max(result.height, y + h + MARGIN)
    for p, q, relation in edges:
        route = routed.get((p, q)) if (p, q) in kept else None
        points = route.view.points if route is not None else _direct(result.nodes[p], result.nodes[q])
        result.edges.append(PlacedEdge(p, q, relation, route is not None, points))
    return result


def _pack(sizes: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Top-left corners for components of the given sizes (largest first): stacked in columns no taller
    than the largest component (or than a drawing of about the shape of a screen), so that the whole
    graph fits a wide window at a readable scale instead of as one tall strip."""
    if not sizes:
        return []
    area = sum((w + COMPONENT_GAP) * (h + COMPONENT_GAP) for w, h in sizes)
    limit = max(sizes[0][1], (area / SCREEN_ASPECT) ** 0.5)
    out, x, y, column = [], MARGIN, MARGIN, 0.0
    for w, h in sizes:
        if y > MARGIN and y + h > MARGIN + limit:
            x, y, column = x + column + COMPONENT_GAP, MARGIN, 0.0
        out.append((x, y))
        y += h + COMPONENT_GAP
        column = max(column, w)
    return out


def _direct(premise: tuple[float, float], conclusion: tuple[float, float]) -> list[tuple[float, float]]:
    """Centre to centre: the path of an edge the reduction dropped (drawn only on request)."""
    return [(premise[0] + NODE_W / 2, premise[1] + NODE_H / 2),
            (conclusion[0] + NODE_W / 2, conclusion[1] + NODE_H / 2)]


def views(report: dict) -> dict[str, GraphLayout]:
    """One layout of the whole registry ("all") and one per document (its own claims only)."""
    claims = report["claims"]
    out = {"all": layout(claims)}
    for doc in report.get("documents", {}):
        mine = [c for c in claims if c.get("document") == doc]
        if mine:
            out[doc] = layout(mine)
    return out
