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
    "proved": "#0f5323", "symbolic": "#1a7f37", "holds": "#aceebb", "consistent": "#b6e3ff", "refuted": "#d1242f",
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
# Every verdict also has a mark that is not a colour (drawn, not a font glyph, so no font can lack it):
# verdict -> (path in a box of -4..4, filled, words)
VERDICT_MARK = {
    "proved": ("M-3,-3h6v6h-6z", True, "filled square (Q.E.D.)"),
    "symbolic": ("M3,-3.5H-3L0.5,0L-3,3.5H3", False, "sigma"),
    "holds": ("M-3.5,0.5L-1,3L3.5,-3", False, "tick"),
    "consistent": ("M-3.5,-1.6H3.5M-3.5,1.6H3.5", False, "equals sign (agrees with the code)"),
    "refuted": ("M-3,-3L3,3M3,-3L-3,3", False, "cross"),
    "vacuous": ("M3,0A3,3 0 1 1 -3,0A3,3 0 1 1 3,0ZM-4,4L4,-4", False, "empty set"),
    "not-checkable": ("M-3.5,0H3.5", False, "dash"),
    "error": ("M1,-4L-2,0.5H1.5L-1,4", False, "lightning bolt"),
    None: ("M2,0A2,2 0 1 1 -2,0A2,2 0 1 1 2,0Z", False, "small ring"),
}
MARK_X = 10.0                 # centre of the verdict mark, inside the node's left end
LABEL_LEFT = 19.0             # the label is centred in the rest of the node
LABEL_ROOM = 118.0            # its advance width at most: glyph outlines reach a few units beyond it
LABEL_CHAR_W = 6.8            # a conservative width of one character of the label font at 10 px

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


def verdict_mark(verdict: str | None, x: float = MARK_X, y: float = _H / 2) -> Markup:
    path, filled, _ = VERDICT_MARK.get(verdict, VERDICT_MARK[None])
    paint = 'fill="#1f2328" stroke="none"' if filled else 'fill="none" stroke="#1f2328" stroke-width="1.6"'
    return Markup('<g class="vmark" data-mark="{}" transform="translate({},{})"><circle r="6.5" fill="#fff" '
                  'stroke="#57606a" stroke-width="0.8"/><path d="{}" {} stroke-linecap="round" stroke-linejoin="round"/></g>'
                  ).format(verdict or "not-run", x, y, path, Markup(paint))


def label_lines(text: str) -> list[str]:
    """An id on one line, or on two cut after a '.' or '-' nearest the middle (never shortened)."""
    room = int(LABEL_ROOM / LABEL_CHAR_W)
    if len(text) <= room:
        return [text]
    cuts = [i + 1 for i, ch in enumerate(text[:-1]) if ch in ".-_"] or [len(text) // 2]
    cut = min(cuts, key=lambda i: max(i, len(text) - i))
    return [text[:cut], text[cut:]]


def _label(text: str, dark: bool) -> Markup:
    lines = label_lines(text)
    cls = "label dark" if dark else "label"
    centre, room = (LABEL_LEFT + _W) / 2 - 1, LABEL_ROOM
    spans = []
    for i, line in enumerate(lines):
        y = _H / 2 + 3.5 + (i - (len(lines) - 1) / 2) * 11
        fit = Markup(' textLength="{:.0f}" lengthAdjust="spacingAndGlyphs"').format(room) \
            if len(line) * LABEL_CHAR_W > room else Markup("")
        spans.append(Markup('<tspan x="{:g}" y="{:g}"{}>{}</tspan>').format(centre, y, fit, line))
    return Markup('<text class="{}" font-size="{}">{}</text>').format(cls, 11 if len(lines) == 1 else 10,
                                                                     Markup("").join(spans))


def swatch(kind: str = "definition", fill: str = "#ffffff", formal: str = "none", mark: str | None = None,
           verdict: str | None = "") -> Markup:
    """A small drawing of one outline for the legend (no claim behind it); ``verdict`` adds its mark."""
    stroke, width, dash, _ = FORMAL_BORDER[formal]
    body = _outline(kind, fill, stroke, width, dash)
    if verdict != "":
        body += verdict_mark(verdict)
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
    parts = [_outline(kind, VERDICT_FILL.get(verdict, "#ffffff"), stroke, width, dash), verdict_mark(verdict),
             _label(claim["id"], verdict in DARK_FILLS)]
    if sev:
        sym, color, _ = SEVERITY_MARK[sev]
        parts.append(Markup('<g class="sev" transform="translate({},0)"><circle r="7" fill="{}" stroke="white"/>'
                            '<text y="3.5" class="mark">{}</text></g>').format(_W - 2, color, sym))
    if claim["standing"] == "rests-on-false":
        parts.append(Markup('<polygon class="rests" points="-3,-3 11,-3 -3,11" fill="#d1242f"/>'))
    title = f"{claim['id']}: {claim.get('title') or ''} [{claim.get('kind')}] — {verdict or 'not run'}"
    # one node of the drawing is a tab stop at a time (the page's script moves it; arrows go between nodes)
    return Markup(
        '<g class="node" data-id="{id}" data-verdict="{v}" data-kind="{k}" data-doc="{d}" data-formal="{f}" '
        'data-severity="{s}" data-standing="{st}" transform="translate({x:.1f},{y:.1f})" tabindex="-1" '
        'role="button"><title>{t}</title>{body}</g>').format(
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
        'width="{w:.0f}" height="{h:.0f}" data-node-w="{nw:g}" data-node-h="{nh:g}" font-family="sans-serif" font-size="11">'
        '<defs><marker id="arrow-{v}" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#8c959f"/></marker></defs>'
        '<g class="viewport"><g class="edges" marker-end="url(#arrow-{v})">{edges}</g><g class="nodes">{nodes}</g></g></svg>'
    ).format(v=view, w=placed.width, h=placed.height, nw=_W, nh=_H, edges=Markup("").join(edges), nodes=Markup("").join(nodes))


STANDALONE_STYLE = """
.label{text-anchor:middle;fill:#1f2328;font-family:sans-serif}.label.dark{fill:#fff}.mark{text-anchor:middle;fill:#fff;font-weight:bold;font-size:10px}
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
    legend += [f"round mark at the left, {words}: {VERDICT_MEANING[v]}" for v, (_, _, words) in VERDICT_MARK.items()]
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
