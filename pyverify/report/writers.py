"""Writers of the report: JSON, Markdown, HTML and an SVG picture of the dependency graph."""

from __future__ import annotations

import html
import json
from pathlib import Path

from ..atomic import write_text_atomic
from ..registry.graph import order_key, tier_label
from .compare import as_markdown

COLORS = {
    "proved": "#1a7f37", "symbolic": "#2da44e", "holds": "#8fd19e", "refuted": "#d1242f",
    "vacuous": "#bf8700", "not-checkable": "#d0d7de", "error": "#8250df", None: "#ffffff",
}


def write_json(report: dict, path: Path) -> None:
    write_text_atomic(path, json.dumps(report, indent=1, ensure_ascii=False) + "\n")


def _md_cell(text: object) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def write_markdown(report: dict, path: Path) -> None:
    out = ["# pyverify report", ""]
    out.append(f"Budget `{report['budget']}`, seed {report['seed']}, device `{report['device']}`, "
               f"Lean toolchain: {report['toolchain'] or 'not run (no `lake build` in this run: no proof counts as checked)'}.")
    out.append("")
    out.append("| document | " + " | ".join(["refuted", "error", "vacuous", "holds", "symbolic", "proved", "not-checkable"]) + " |")
    out.append("| --- |" + " --- |" * 7)
    for doc, c in report["counts"].items():
        out.append(f"| {doc} | " + " | ".join(str(c.get(v, 0)) for v in
                                               ["refuted", "error", "vacuous", "holds", "symbolic", "proved", "not-checkable"]) + " |")
    out.append("")
    refuted = [c for c in report["claims"] if c["verdict"] == "refuted"]
    if refuted:
        out.append("## False statements (with witness)")
        out.append("")
        for c in refuted:
            fix = f" — corrected by {', '.join(c['corrected_by'])}" if c["corrected_by"] else ""
            out.append(f"- **{c['id']}** ({c['document']}, {c['locator']}): {_md_cell(c['message'])}{fix}")
        out.append("")
    resting = [c for c in report["claims"] if c["rests_on_refuted"] and c["verdict"] != "refuted"]
    if resting:
        out.append("## Statements that rest on something false")
        out.append("")
        for c in resting:
            out.append(f"- **{c['id']}** ({c['verdict']}) rests on {', '.join(c['rests_on_refuted'])}")
        out.append("")
    if report.get("changes"):
        out.append(as_markdown(report["changes"]))
    for doc in report["documents"]:
        out.append(f"## {doc}: {report['documents'][doc]['title']}")
        out.append("")
        out.append("| id | kind | verdict | expect | worst | formal | deps | message |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for c in report["claims"]:
            if c["document"] != doc:
                continue
            flag = "" if c["matches"] in (True, None) else " ≠"
            out.append(f"| {c['id']} | {c['kind']} | {c['verdict']}{flag} | {c['expect'] or 'unreviewed'} | "
                       f"{_md_cell(c.get('worst'))} | {c['formal']} | {_md_cell(', '.join(c['deps']))} | {_md_cell(c.get('message'))} |")
        out.append("")
    write_text_atomic(path, "\n".join(out) + "\n")


def write_html(report: dict, path: Path, svg_name: str = "graph.svg") -> None:
    e = html.escape
    rows = []
    for c in report["claims"]:
        color = COLORS.get(c["verdict"], "#ffffff")
        rest = ", ".join(c["rests_on_refuted"])
        witness = ""
        if c.get("witness"):
            witness = f"<details><summary>witness</summary><pre>{e(json.dumps(c['witness'], indent=1)[:6000])}</pre></details>"
        reading = f"<div class=reading>reading: {e(c['reading'])}</div>" if c.get("reading") else ""
        rows.append(
            f"<tr id='{e(c['id'])}'><td><b>{e(c['id'])}</b><br><small>{e(c['document'])}<br>{e(c['locator'])}</small></td>"
            f"<td>{e(c['kind'])}</td><td style='background:{color}'>{e(str(c['verdict']))}"
            f"{'' if c['matches'] in (True, None) else ' <b>≠ expect</b>'}</td>"
            f"<td>{e(str(c['expect'] or 'unreviewed'))}</td><td>{e(c['formal'])}</td>"
            f"<td><code>{e(c['statement'])}</code>{reading}</td>"
            f"<td>{e(str(c.get('message') or ''))}{witness}</td>"
            f"<td>{' '.join(f'<a href=#{e(d)}>{e(d)}</a>' for d in c['deps'])}"
            f"{' …' if c['deps_truncated'] else ''}</td><td class=bad>{e(rest)}</td></tr>")
    counts = "".join(f"<li>{e(doc)}: " + ", ".join(f"{e(k)} {v}" for k, v in sorted(c.items())) + "</li>"
                     for doc, c in report["counts"].items())
    refuted = [c for c in report["claims"] if c["verdict"] == "refuted"]
    resting = [c for c in report["claims"] if c["rests_on_refuted"] and c["verdict"] != "refuted"]
    link = lambda c: f"<a href=#{e(c['id'])}>{e(c['id'])}</a>"  # noqa: E731
    summary = (f"<p><b>False ({len(refuted)}):</b> " + ", ".join(
        link(c) + (f" (corrected: {', '.join(e(x) for x in c['corrected_by'])})" if c["corrected_by"] else "") for c in refuted)
        + f"</p><p><b>Resting on something false ({len(resting)}):</b> " + ", ".join(link(c) for c in resting) + "</p>")
    toolchain = report["toolchain"] or "not run — no Lean proof is reported as checked"
    page = f"""<!doctype html><html><head><meta charset=utf-8><title>pyverify report</title>
<style>body{{font-family:sans-serif;margin:1.5em}} table{{border-collapse:collapse;font-size:13px}}
td,th{{border:1px solid #ccc;padding:3px 5px;vertical-align:top}} code{{white-space:pre-wrap}}
.bad{{color:#d1242f}} .reading{{color:#555;font-size:12px}} img{{max-width:100%;border:1px solid #ccc}}</style></head><body>
<h1>pyverify report</h1>
<p>budget <b>{e(report['budget'])}</b>, seed {report['seed']}, device {e(report['device'])}; Lean toolchain: {e(toolchain)}.
Graph problems: {len(report['graph_problems'])}.</p><ul>{counts}</ul>{summary}
<p><a href="{svg_name}">dependency graph (SVG)</a>, <a href="report.json">report.json</a>, <a href="report.md">report.md</a></p>
<table><tr><th>claim</th><th>kind</th><th>verdict</th><th>expect</th><th>formal</th><th>statement</th><th>evidence</th><th>deps</th><th>rests on refuted</th></tr>
{''.join(rows)}</table></body></html>"""
    write_text_atomic(path, page, encoding="utf-8")


def write_svg(report: dict, path: Path) -> None:
    """Columns by document (derivation: one column per tier), nodes coloured by verdict, edges to deps."""
    columns: dict[str, list[dict]] = {}
    for c in report["claims"]:
        key = c["document"]
        if c["document"] == "espr-derivation" and tier_label(c["id"]):
            key = f"tier {tier_label(c['id'])}"
        columns.setdefault(key, []).append(c)
    col_w, row_h, node_w, node_h, top = 150, 16, 120, 13, 40
    pos = {}
    keys = sorted(columns, key=lambda k: (0, order_key(columns[k][0]["id"])) if k.startswith("tier") else (1, k))
    for i, key in enumerate(keys):
        for j, c in enumerate(sorted(columns[key], key=lambda c: order_key(c["id"]))):
            pos[c["id"]] = (20 + i * col_w, top + j * row_h)
    width = 40 + len(keys) * col_w
    height = top + 40 + max(len(v) for v in columns.values()) * row_h
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="9">',
             '<rect width="100%" height="100%" fill="white"/>']
    for i, key in enumerate(keys):
        parts.append(f'<text x="{20 + i * col_w}" y="24" font-size="11" font-weight="bold">{html.escape(key)}</text>')
    for c in report["claims"]:
        x1, y1 = pos[c["id"]]
        for d in c["deps"]:
            if d in pos:
                x2, y2 = pos[d]
                bad = d in c["rests_on_refuted"] or any(d == r for r in c["rests_on_refuted"])
                stroke = "#d1242f" if bad else "#8c959f"
                mx = (x1 + x2 + node_w) / 2 if x1 == x2 else (x1 + x2) / 2
                parts.append(f'<path d="M{x1},{y1 + node_h / 2} Q{mx - 30 if x1 == x2 else mx},{(y1 + y2) / 2} {x2 + node_w},{y2 + node_h / 2}" '
                             f'fill="none" stroke="{stroke}" stroke-width="0.5" opacity="0.6"/>')
    for c in report["claims"]:
        x, y = pos[c["id"]]
        fill = COLORS.get(c["verdict"], "#ffffff")
        ring = "#d1242f" if c["rests_on_refuted"] and c["verdict"] != "refuted" else "#57606a"
        parts.append(f'<g><title>{html.escape(c["id"])}: {html.escape(str(c["verdict"]))}</title>'
                     f'<rect x="{x}" y="{y}" width="{node_w}" height="{node_h}" rx="3" fill="{fill}" stroke="{ring}" stroke-width="{1.5 if ring != "#57606a" else 0.5}"/>'
                     f'<text x="{x + 3}" y="{y + 10}">{html.escape(c["id"][:22])}</text></g>')
    legend_y = height - 8
    for k, (verdict, color) in enumerate((v, c) for v, c in COLORS.items() if v):
        parts.append(f'<rect x="{20 + k * 90}" y="{legend_y - 9}" width="10" height="10" fill="{color}"/>'
                     f'<text x="{33 + k * 90}" y="{legend_y}">{verdict}</text>')
    parts.append("</svg>")
    write_text_atomic(path, "\n".join(parts) + "\n", encoding="utf-8")
