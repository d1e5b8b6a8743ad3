"""index.html: the dependency graph to explore, a panel per claim, the summary and the implementation view.

Rendered with jinja2 (autoescape on) from the report dict alone (``model.build``): what each claim's
standing, dependents and reproduce command are was decided there, once; the page only shows it. Style and script are
inlined, so the page works from file:// with no network and no external file.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from . import layout as layout_mod
from . import mathml, svg



def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("pyverify.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["math"] = mathml.statement
    env.filters["prose"] = mathml.prose
    env.filters["pretty_json"] = lambda v: json.dumps(v, indent=1, ensure_ascii=False)
    return env


def _static(name: str) -> Markup:
    """A file of static/ to inline (our own CSS and script, trusted)."""
    return Markup(resources.files("pyverify.report").joinpath("static", name).read_text(encoding="utf-8"))


def _meta(report: dict) -> dict[str, Any]:
    meta = dict(report.get("meta") or {})
    for key in ("seed", "budget", "device", "toolchain", "lean_built"):
        meta.setdefault(key, report.get(key))
    return meta


def _graph_data(report: dict, placed: layout_mod.GraphLayout) -> dict[str, Any]:
    """What the script needs beyond the drawing: titles for search and every edge for the focus view."""
    claims = {c["id"]: {"title": c.get("title") or "", "premises": [], "conclusions": []} for c in report["claims"]}
    for e in placed.edges:
        claims[e.conclusion]["premises"].append(e.premise)
        claims[e.premise]["conclusions"].append(e.conclusion)
    return {"claims": claims}


def render(report: dict, views: dict[str, layout_mod.GraphLayout] | None = None) -> str:
    views = views or layout_mod.views(report)
    meta = _meta(report)
    by_id = {c["id"]: c for c in report["claims"]}
    rows = []
    for c in report["claims"]:
        rows.append({
            **c,
            "severity_level": svg.severity_level(c),
            "standing_label": c["standing"],
            "dependents_list": c["dependents"],
            "reproduce_cmd": c["reproduce"],
            "fill": svg.VERDICT_FILL.get(c.get("verdict"), "#fff"),
        })
    options = {
        "verdict": sorted({c.get("verdict") or "not-run" for c in report["claims"]}),
        "kind": sorted({c.get("kind", "") for c in report["claims"]}),
        "doc": list(report.get("documents", {})),
        "severity": sorted({svg.severity_level(c) or "none" for c in report["claims"]}),
        "formal": sorted({c.get("formal") or "none" for c in report["claims"]}),
    }
    drawings = {name: svg.graph(name, placed, by_id) for name, placed in views.items()}
    refuted = [c for c in rows if c.get("verdict") == "refuted"]
    return _environment().get_template("index.html.j2").render(
        report=report, meta=meta, claims=rows, by_id=by_id, views=drawings, options=options,
        endangered=report["endangered"], refuted=refuted,
        implementation=report.get("implementation") or [],
        graph_data=_graph_data(report, views["all"]),
        verdict_fill=svg.VERDICT_FILL, verdict_meaning=svg.VERDICT_MEANING, formal_border=svg.FORMAL_BORDER,
        severity_mark=svg.SEVERITY_MARK, kind_shapes=svg.KIND_SHAPE_WORDS,
        swatch=svg.swatch, css=_static("report.css"), script=_static("report.js"),
    )
