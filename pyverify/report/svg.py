"""The dependency graph drawn as SVG, from a computed layout (layout.py), with a legend in words.

Visual grammar: shape = kind, fill = verdict, border = formal (Lean) status, a round mark at the
top-right corner = severity of a refuted claim, a red triangle at the top-left corner = the claim rests
on a false premise. The same drawing is inlined into index.html (where scripts filter and zoom it)
and written alone as graph.svg.
"""

from __future__ import annotations

from markupsafe import Markup

from .layout import NODE_H, NODE_W, GraphLayout

VERDICT_FILL = {
    "proved": "#1a7f37", "symbolic": "#2da44e", "holds": "#aceebb", "consistent": "#b6e3ff", "refuted": "#d1242f",
    "vacuous": "#d4a72c", "not-checkable": "#eaeef2", "error": "#8250df", None: "#ffffff",
}
VERDICT_MEANING = {
    "proved": "proved in Lean (checked by lake build in this run)",
    "symbolic": "identity reduced to zero by SymPy",
    "holds": "no counterexample found in the numeric search",
    "consistent": "a definition or hypothesis the implementation agrees with (evidence about the code)",
    "refuted": "refuted: a re-checked counterexample",
    "vacuous": "vacuous: hypotheses never met, or no better than a trivial baseline",
    "not-checkable": "not checkable by code (reason given)",
    "error": "the check could not run",
    None: "not run",
}
DARK_FILLS = {"proved", "refuted", "error", "symbolic"}

# formal status -> (stroke colour, width, dash pattern, words)
FORMAL_BORDER = {
    "none": ("#57606a", 0.8, "", "thin grey: no Lean formalisation"),
    "stated": ("#0550ae", 1.6, "5 3", "dashed blue: stated in Lean, no proof"),
    "sorry": ("#bc4c00", 2.0, "1.5 2.5", "dotted orange: Lean proof contains sorry"),
    "proof-written": ("#0550ae", 2.0, "", "solid blue: Lean proof written, not built in this run"),
    "checked": ("#0550ae", 4.0, "", "thick blue: Lean proof checked by lake build"),
}
SEVERITY_MARK = {
    "substantive": ("!", "#82071e", "substantive error: the argument breaks"),
    "minor": ("m", "#bc4c00", "minor error"),
    "typo": ("t", "#6e7781", "typo-level error"),
    "unassessed": ("?", "#24292f", "severity not assessed yet"),
}

_W, _H = NODE_W, NODE_H


def _shape_points(kind: str) -> str | None:
    """Outline of a node of the given kind as polygon points in a W x H box (None: drawn as a rect)."""
    w, h, s = _W, _H, 8.0
    shapes = {
        "notation": [(0, 0), (w - s, 0), (w, s), (w, h), (0, h)],
        "hypothesis": [(s, 0), (w, 0), (w - s, h), (0, h)],
        "bound": [(s, 0), (w - s, 0), (w, h / 2), (w - s, h), (s, h), (0, h / 2)],
        "asymptotic": [(0, 0), (w - s, 0), (w, h / 2), (w - s, h), (0, h)],
        "existence": [(s / 2, 0), (w - s / 2, 0), (w, s / 2), (w, h - s / 2), (w - s / 2, h), (s / 2, h), (0, h - s / 2), (0, s / 2)],
        "algorithm": [(s, 0), (w - s, 0), (w, h), (0, h)],
        "empirical": [(0, 0), (w, 0), (w - s, h / 2), (w, h), (0, h), (s, h / 2)],
        "remark": [(s, 0), (w, 0), (w, h), (s, h), (0, h / 2)],
    }
    pts = shapes.get(kind)
    return None if pts is None else " ".join(f"{x:g},{y:g}" for x, y in pts)


def _rect_radius(kind: str) -> float:
    return {"identity": _H / 2, "theorem": 5.0, "conjecture": _H / 2}.get(kind, 0.0)


KIND_SHAPE_WORDS = {
    "definition": "rectangle", "notation": "rectangle with a cut corner", "hypothesis": "parallelogram",
    "identity": "capsule", "bound": "hexagon", "asymptotic": "arrow pointing right", "existence": "octagon",
    "theorem": "rounded rectangle", "algorithm": "trapezoid", "empirical": "ribbon (notched ends)",
    "conjecture": "capsule with a double outline", "remark": "arrow pointing left",
}


def _outline(kind: str, fill: str, stroke: str, width: float, dash: str) -> Markup:
    attrs = Markup('fill="{}" stroke="{}" stroke-width="{}"{}').format(
        fill, stroke, width, Markup(' stroke-dasharray="{}"').format(dash) if dash else "")
    pts = _shape_points(kind)
    if pts is not None:
        return Markup('<polygon class="outline" points="{}" {}/>').format(pts, attrs)
    shape = Markup('<rect class="outline" width="{}" height="{}" rx="{}" {}/>').format(_W, _H, _rect_radius(kind), attrs)
    if kind == "conjecture":  # a second outline inside tells it apart from an identity
        shape += Markup('<rect x="3" y="3" width="{}" height="{}" rx="{}" fill="none" stroke="{}" stroke-width="0.8"/>').format(
            _W - 6, _H - 6, _H / 2 - 3, stroke)
    return shape


def swatch(kind: str = "definition", fill: str = "#ffffff", formal: str = "none", mark: str | None = None) -> Markup:
    """A small drawing of one outline for the legend (no claim behind it)."""
    stroke, width, dash, _ = FORMAL_BORDER[formal]
    body = _outline(kind, fill, stroke, width, dash)
    if mark:
        sym, color, _ = SEVERITY_MARK[mark]
        body += Markup('<g transform="translate({},0)"><circle r="7" fill="{}" stroke="white"/>'
                       '<text y="3.5" class="mark">{}</text></g>').format(_W - 2, color, sym)
    return Markup('<svg class="swatch" viewBox="-10 -10 {} {}" width="{}" height="{}">{}</svg>').format(
        _W + 20, _H + 20, (_W + 20) / 2, (_H + 20) / 2, body)


def severity_level(claim: dict) -> str | None:
    """The severity mark of a node: only a refuted claim carries one; a missing assessment is 'unassessed'."""
    if claim.get("verdict") != "refuted":
        return None
    sev = claim.get("severity")
    return (sev or {}).get("level") or "unassessed"


def node(claim: dict, x: float, y: float) -> Markup:
    verdict = claim.get("verdict")
    formal = claim.get("formal") or "none"
    stroke, width, dash, _ = FORMAL_BORDER.get(formal, FORMAL_BORDER["none"])
    kind = claim.get("kind", "")
    sev = severity_level(claim)
    parts = [_outline(kind, VERDICT_FILL.get(verdict, "#ffffff"), stroke, width, dash)]
    label = claim["id"] if len(claim["id"]) <= 22 else claim["id"][:21] + "…"
    parts.append(Markup('<text x="{}" y="{}" class="{}">{}</text>').format(
        _W / 2, _H / 2 + 4, "label dark" if verdict in DARK_FILLS else "label", label))
    if sev:
        sym, color, _ = SEVERITY_MARK[sev]
        parts.append(Markup('<g class="sev" transform="translate({},0)"><circle r="7" fill="{}" stroke="white"/>'
                            '<text y="3.5" class="mark">{}</text></g>').format(_W - 2, color, sym))
    if claim["standing"] == "rests-on-false":
        parts.append(Markup('<polygon class="rests" points="-3,-3 11,-3 -3,11" fill="#d1242f"/>'))
    title = f"{claim['id']}: {claim.get('title') or ''} [{claim.get('kind')}] — {verdict or 'not run'}"
    return Markup(
        '<g class="node" data-id="{id}" data-verdict="{v}" data-kind="{k}" data-doc="{d}" data-formal="{f}" '
        'data-severity="{s}" data-standing="{st}" transform="translate({x:.1f},{y:.1f})" tabindex="0">'
        '<title>{t}</title>{body}</g>').format(
        id=claim["id"], v=verdict or "not-run", k=kind, d=claim.get("document", ""), f=formal,
        s=sev or "none", st=claim["standing"], x=x, y=y, t=title, body=Markup("").join(parts))


def _edge_path(points: list[tuple[float, float]]) -> str:
    """From the right side of the premise to the left side of the conclusion; a curve for two points."""
    (x1, y1), (x2, y2) = points[0], points[-1]
    if x1 > x2 and len(points) > 2:   # grandalf inverted this edge to break a cycle
        points = points[::-1]
        (x1, y1), (x2, y2) = points[0], points[-1]
    start, end = (x1 + _W / 2, y1), (x2 - _W / 2, y2)
    if len(points) == 2:
        bend = max(30.0, abs(end[0] - start[0]) / 3)
        return f"M{start[0]:.1f},{start[1]:.1f} C{start[0] + bend:.1f},{start[1]:.1f} {end[0] - bend:.1f},{end[1]:.1f} {end[0]:.1f},{end[1]:.1f}"
    mid = " ".join(f"L{x:.1f},{y:.1f}" for x, y in points[1:-1])
    return f"M{start[0]:.1f},{start[1]:.1f} {mid} L{end[0]:.1f},{end[1]:.1f}"


def graph(view: str, placed: GraphLayout, claims: dict[str, dict]) -> Markup:
    """One view of the graph as an <svg> element (edges below nodes)."""
    edges = []
    for e in placed.edges:
        premise = claims[e.premise]
        cls = f"edge {e.relation} {'reduced' if e.reduced else 'implied'}"
        if premise.get("verdict") == "refuted":
            cls += " from-false"
        edges.append(Markup('<path class="{}" data-from="{}" data-to="{}" d="{}"/>').format(
            cls, e.premise, e.conclusion, _edge_path(e.points)))
    nodes = [node(claims[cid], x, y) for cid, (x, y) in placed.nodes.items()]
    return Markup(
        '<svg xmlns="http://www.w3.org/2000/svg" class="graph" data-view="{v}" viewBox="0 0 {w:.0f} {h:.0f}" '
        'width="{w:.0f}" height="{h:.0f}" font-family="sans-serif" font-size="11">'
        '<defs><marker id="arrow-{v}" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#8c959f"/></marker></defs>'
        '<g class="viewport"><g class="edges" marker-end="url(#arrow-{v})">{edges}</g><g class="nodes">{nodes}</g></g></svg>'
    ).format(v=view, w=placed.width, h=placed.height, edges=Markup("").join(edges), nodes=Markup("").join(nodes))


STANDALONE_STYLE = """
.label{text-anchor:middle;fill:#1f2328}.label.dark{fill:#fff}.mark{text-anchor:middle;fill:#fff;font-weight:bold;font-size:10px}
.edge{fill:none;stroke:#8c959f;stroke-width:1}.edge.implied{display:none}.edge.restates{stroke-dasharray:6 3}
.edge.corrects{stroke:#1a7f37;stroke-dasharray:2 2}.edge.from-false{stroke:#d1242f}
"""


def standalone(placed: GraphLayout, claims: dict[str, dict]) -> str:
    """graph.svg: the whole registry with its style and the legend in words underneath."""
    body = graph("all", placed, claims)
    legend = [f"{k}: {v}" for k, v in KIND_SHAPE_WORDS.items()]
    legend += [f"fill {c}: {VERDICT_MEANING[v]}" for v, c in VERDICT_FILL.items()]
    legend += [f"border: {words}" for *_, words in FORMAL_BORDER.values()]
    legend += [f"mark '{s}': {words}" for s, _, words in SEVERITY_MARK.values()]
    legend += ["red corner triangle: rests on a false premise", "edge: premise -> statement using it (transitively reduced);"
               " dashed: restates, green dotted: corrects, red: from a refuted premise"]
    top = placed.height
    lines = Markup("").join(Markup('<text x="20" y="{:.0f}">{}</text>').format(top + 16 * (i + 1), t)
                            for i, t in enumerate(legend))
    inner = str(body).split(">", 1)[1].rsplit("</svg>", 1)[0]
    height = top + 16 * (len(legend) + 2)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {placed.width:.0f} {height:.0f}" '
            f'width="{placed.width:.0f}" height="{height:.0f}" font-family="sans-serif" font-size="11">'
            f'<style>{STANDALONE_STYLE}</style><rect width="100%" height="100%" fill="white"/>{inner}'
            f'<g font-size="12"><text x="20" y="{top + 4:.0f}" font-weight="bold">Legend</text>{lines}</g></svg>\n')
