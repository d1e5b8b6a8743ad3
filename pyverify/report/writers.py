"""Writers of the report: report.json, report.md, index.html and graph.svg, from the report dict alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import html, layout, markdown, svg

from ..atomic import write_text_atomic as _write  # temp file in the same folder + os.replace

FILES = ("index.html", "report.json", "report.md", "graph.svg")


def write_json(report: dict, path: Path) -> None:
    _write(path, json.dumps(report, indent=1, ensure_ascii=False) + "\n")


def write_markdown(report: dict, path: Path, changes: dict[str, Any] | None = None) -> None:
    _write(path, markdown.render(report, changes))


def write_svg(report: dict, path: Path, placed: layout.GraphLayout | None = None) -> None:
    placed = placed or layout.layout(report["claims"])
    _write(path, svg.standalone(placed, {c["id"]: c for c in report["claims"]}))


def write_html(report: dict, path: Path, views: dict[str, layout.GraphLayout] | None = None) -> None:
    _write(path, html.render(report, views, Path(path).resolve().parent))


def write_all(report: dict, out: Path, changes: dict[str, Any] | None = None) -> list[str]:
    """Every file of the report into ``out``; the graph is laid out once for the page and the SVG."""
    out.mkdir(parents=True, exist_ok=True)
    views = layout.views(report)
    write_json(report, out / "report.json")
    write_markdown(report, out / "report.md", changes)
    write_svg(report, out / "graph.svg", views["all"])
    write_html(report, out / "index.html", views)
    return list(FILES)
