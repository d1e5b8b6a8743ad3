"""index.html: the dependency graph to explore, a panel per claim, the summary and the implementation view.

Rendered with jinja2 (autoescape on) from the report dict alone (``model.build``): each claim's
standing, dependents, reproduce command and endangering premises were decided there and in
``pyverify.analysis``, once; the page only shows them. Style, script and every figure are inlined (figures as data: URIs, which keep each figure's ids to itself), so the page is one
file that works from file:// with no network: copied alone, it still shows everything.
"""

from __future__ import annotations

import base64
import json
import os
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from . import layout as layout_mod
from . import mathml, svg
from .. import contributions
from ..analysis import endangering
from .markdown import VERDICT_ORDER

# Each figure's words: the caption under it and, with the claim's numbers, its alternative text (a figure a
# content package or plugin contributes brings its own: pyverify.plugin.figure(..., caption=...))
FIGURE_TEXT = {
    "order": "Error against {param} on log–log axes (the instance the verdict rests on first), beside a line of "
             "the claimed order {claimed}; the verdict rests on the measured order {worst}.",
    "constants": "The smallest admissible constant at each point of the sweep of {id}{chosen}.",
    "tightness": "The tightness (largest left/right ratio found) of every bound checked pointwise, on a log scale, "
                 "with a dashed line at 1 (a bound is attained there and violated beyond it); each bar has its "
                 "claim's verdict colour.",
}


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("pyverify.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["math"] = mathml.statement
    env.filters["prose"] = mathml.prose
    env.filters["claim_title"] = mathml.title
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
    """What the script needs beyond the drawing: the text search looks through, each claim's document and
    every edge (of every document) for the focus view."""
    backs = _backed_code(report)
    claims = {c["id"]: {"doc": c.get("document") or "", "search": _search_text(c, report, backs), "premises": [],
                        "conclusions": []} for c in report["claims"]}
    for e in placed.edges:
        claims[e.conclusion]["premises"].append(e.premise)
        claims[e.premise]["conclusions"].append(e.conclusion)
    return {"claims": claims}


def _data_uri(root: Path | None, path: str) -> str:
    """A figure file as a data: URI (the page must not depend on files beside it); as is when unreadable."""
    try:
        data = (Path(root or ".") / path).read_bytes()
    except OSError:
        return path
    return "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")


def _figure_text(name: str, claim: dict | None) -> str:
    """The words of a figure, filled with its claim's numbers where it has one."""
    contributed = contributions.FIGURES.get(name)
    template = FIGURE_TEXT.get(name) or (contributed.caption if contributed is not None else None)
    if not template:
        return name
    details = (claim or {}).get("details") or {}
    order = details.get("order") or {}
    worst = order.get("measured_worst")
    chosen = [e["chosen"] for e in details.get("constants", []) if e.get("chosen")]
    fields = {"id": (claim or {}).get("id", ""), "param": order.get("param", "the parameter"),
              "claimed": order.get("claimed", "?"), "worst": f"{worst:.4g}" if isinstance(worst, float) else "?",
              "chosen": "; the verdict's choice, " + ", ".join(f"{k} = {v}" for k, v in chosen[0].items())
                        + ", is drawn solid, the other values dashed" if chosen else ""}
    return template.format(**fields)


def _figures(plots: dict[str, str], claim: dict | None, root: Path | None,
             store: dict[str, str] | None = None) -> list[dict[str, str]]:
    """A claim's or the report's figures with their words. With ``store``, an image's source goes there
    once under its path (a report-wide figure is shown with many claims) and the page's script sets it."""
    out = []
    for name, path in plots.items():
        text = _figure_text(name, claim)
        figure = {"name": name, "alt": (f"{claim['id']}: " if claim else "") + text, "caption": text}
        if store is None:
            figure["src"] = _data_uri(root, path)
        else:
            store.setdefault(path, _data_uri(root, path))
            figure["ref"] = path
        out.append(figure)
    return out


def _group_by_premises(items: list[tuple[str, list[dict]]]) -> list[tuple[list[str], list[dict]]]:
    """Endangered conclusions that rest on the same false premises, said once: [(conclusions, premises)]."""
    groups: dict[tuple[str, ...], tuple[list[str], list[dict]]] = {}
    for cid, premises in items:
        groups.setdefault(tuple(p["id"] for p in premises), ([], premises))[0].append(cid)
    return list(groups.values())


def _relative(target: Path, base: Path | None) -> str | None:
    """A link from the page's folder to a file of the project, or None when the file is not there."""
    if base is None or not target.is_file():
        return None
    return Path(os.path.relpath(target, base)).as_posix()


def _links(claim: dict, report: dict, base: Path | None) -> dict[str, str]:
    """The registry file, the Lean file and the document location of a claim, as links from the page."""
    out = {}
    lean = contributions.lean_sources()
    # the registry file as the loader showed it (relative to where pyverify ran, or absolute); the Lean file
    # relative to the folder holding the Lean sources
    for key, file in (("registry", Path(claim["file"]) if claim.get("file") else None),
                      ("lean", lean.parent / claim["lean_file"] if lean and claim.get("lean_file") else None)):
        link = _relative(file.resolve(), base) if file else None
        if link:
            out[key] = link
    # the first of the document's files that mentions the locator, else its first file
    folder = contributions.documents_folder()
    for name in (report.get("documents", {}).get(claim.get("document"), {}) or {}).get("files", []) if folder else []:
        link = _relative(folder / name, base)
        if not link:
            continue
        fragment = _locator_fragment(folder / name, claim.get("locator") or "")
        out["document"] = link + fragment if fragment else out.get("document", link)
        if fragment:
            break
    return out


@lru_cache(maxsize=None)
def _document_text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _locator_fragment(path: Path, locator: str) -> str:
    """A text fragment (``#:~:text=``) that scrolls to the first mention of the locator's most specific
    part found in the document ('Sec. 3, Theorem 1' -> 'Theorem 1'), where browsers support it; '' when
    the document contains none of its parts. A part is looked for as a browser matches a text fragment:
    whole words, any case, any run of white space."""
    for part in reversed(_locator_parts(locator)):
        if _mentions(_document_text(path), part):
            return "#:~:text=" + quote(part, safe="").replace("-", "%2D")   # '-' delimits a fragment's parts
    return ""


def _locator_parts(locator: str) -> list[str]:
    """The parts of a locator, least specific first: split at commas and semicolons, a remark in
    parentheses ('(corrected)') and quotes dropped; parts of fewer than three characters left out."""
    parts = []
    for part in re.split(r"[,;]", locator):
        part = re.sub(r"\s*\((?:[^()]*[A-Za-z]{3,}[^()]*)\)\s*$", "", part).strip().strip('"\u201c\u201d').strip()
        if len(part) >= 3:
            parts.append(part)
    return parts


def _mentions(text: str, part: str) -> bool:
    """Whether ``part`` occurs in ``text`` as whole words, ignoring case and the kind and length of white space."""
    words = r"\s+".join(re.escape(w) for w in part.split())
    return re.search(r"(?<!\w)" + words + r"(?!\w)", text, re.IGNORECASE) is not None


def _search_text(claim: dict, report: dict, backs: dict[str, set[str]]) -> str:
    """What the page's search box looks through: id, title, locator, document, statement and the names
    of the code the claim backs (what its check runs, and the classes that call it)."""
    doc = claim.get("document") or ""
    words = [claim["id"], claim.get("title") or "", claim.get("locator") or "", doc,
             (report.get("documents", {}).get(doc) or {}).get("title", ""),
             re.sub(r"\\[A-Za-z]+|[{}$]", " ", claim.get("statement") or "")]
    words += sorted({name.rsplit(".", 1)[-1] for name in claim.get("exercises") or []} | backs.get(claim["id"], set()))
    return re.sub(r"\s+", " ", " ".join(words)).lower()


def _backed_code(report: dict) -> dict[str, set[str]]:
    """For each claim, the short names of the functions and classes of the implementation view it backs."""
    out: dict[str, set[str]] = {}
    for entry in report.get("implementation") or []:
        for cid in [ref["id"] for ref in entry.get("claims", [])] + [g["claim"] for g in entry.get("guarantees", [])]:
            out.setdefault(cid, set()).add(entry["name"].rsplit(".", 1)[-1])
    return out


def _called_by(implementation: list[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for entry in implementation:
        for name in entry.get("calls", []):
            out.setdefault(name, []).append(entry["name"])
    return out


def render(report: dict, views: dict[str, layout_mod.GraphLayout] | None = None, base: Path | None = None) -> str:
    """The page. ``base`` is the folder index.html is written to: figures are read from there and the
    project's files are linked relative to it (no links when it is not given)."""
    views = views or layout_mod.views(report)
    meta = _meta(report)
    by_id = {c["id"]: c for c in report["claims"]}
    rows, figure_store = [], {}
    for c in report["claims"]:
        rows.append({
            **c,
            "severity_level": svg.severity_level(c),
            "standing_label": c["standing"],
            "dependents_list": c["dependents"],
            "reproduce_cmd": c["reproduce"],
            "fill": svg.VERDICT_FILL.get(c.get("verdict"), "#fff"),
            "links": _links(c, report, base),
            "figures": _figures(c.get("plots") or {}, c, base, figure_store),
        })
    options = {
        "verdict": sorted({c.get("verdict") or "not-run" for c in report["claims"]}),
        "kind": sorted({c.get("kind", "") for c in report["claims"]}),
        "doc": list(report.get("documents", {})),
        "severity": sorted({svg.severity_level(c) or "none" for c in report["claims"]}),
        "formal": sorted({c.get("formal") or "none" for c in report["claims"]}),
    }
    drawings = {name: svg.graph(name, placed, by_id) for name, placed in views.items()}
    endangered = {doc: _group_by_premises([(cid, endangering(by_id[cid]["false_premises"])) for cid in ids if cid in by_id])
                  for doc, ids in report["endangered"].items()}
    # the claims that run a function themselves, apart from those that run only what a class calls
    implementation = [{**e, "direct": [r for r in e.get("claims", []) if not r.get("via")],
                       "through": [r for r in e.get("claims", []) if r.get("via")]}
                      for e in report.get("implementation") or []]
    return _environment().get_template("index.html.j2").render(
        report=report, meta=meta, claims=rows, by_id=by_id, views=drawings, options=options,
        endangered=endangered, verdict_order=VERDICT_ORDER,
        refuted=_by_document(report, [c for c in rows if c.get("verdict") == "refuted"]),
        vacuous=_by_document(report, [c for c in rows if c.get("verdict") == "vacuous"]),
        figures=_figures(report.get("plots") or {}, None, base),
        implementation=implementation, called_by=_called_by(implementation),
        status_of={e["name"]: e.get("status") for e in implementation},
        graph_data=_graph_data(report, views["all"]), figure_store=figure_store,
        verdict_fill=svg.VERDICT_FILL, verdict_meaning=svg.VERDICT_MEANING, formal_border=svg.FORMAL_BORDER,
        verdict_mark=svg.VERDICT_MARK, severity_mark=svg.SEVERITY_MARK, kind_shapes=svg.KIND_SHAPE_WORDS,
        swatch=svg.swatch, css=_static("report.css"), script=_static("report.js"),
    )


def _by_document(report: dict, rows: list[dict]) -> dict[str, list[dict]]:
    """Rows grouped by document, in the report's document order."""
    out: dict[str, list[dict]] = {doc: [] for doc in report.get("documents", {})}
    for row in rows:
        out.setdefault(row.get("document") or "", []).append(row)
    return {doc: items for doc, items in out.items() if items}
