"""The report's figures (matplotlib, Agg backend, SVG files in ``plots/`` beside index.html).

Per claim: an order claim's error against its parameter on log-log axes beside the claimed slope; a
constant's smallest admissible value along its sweep. For the whole report: the tightness of every
bound, and the figures content packages and plugins contribute (``pyverify.plugin.figure``), each drawn
only for a registry with a claim whose check runs its subject. Plotted data come from the engine's
results or from the contributed figures' own code; no verdict is computed here.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: the report is written by CLI runs and CI
import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first

from ..atomic import write_bytes_atomic  # noqa: E402
from .. import contributions  # noqa: E402
from ..checks.validate import CheckedRegistry  # noqa: E402
from ..engine import Result  # noqa: E402
from ..engine.evidence import ConstantEstimate, OrderEstimate, Tightness  # noqa: E402
from .coverage import exercises  # noqa: E402

FOLDER = "plots"
COLORS = {"refuted": "#d1242f", "holds": "#2da44e", "symbolic": "#1a7f37", "proved": "#0b5f2a"}
# byte-stable SVG: fixed ids and no creation date, so an unchanged report is an unchanged file
STYLE = {"svg.hashsalt": "pyverify", "svg.fonttype": "none", "font.size": 9, "figure.dpi": 100}


def file_stem(claim_id: str) -> str:
    """A claim id as a file name: characters a shell or URL would need quoted become '_'."""
    return re.sub(r"[^A-Za-z0-9.\-]", "_", claim_id)


def save_figure(fig: Any, out: Path, name: str) -> str:
    """Write a matplotlib figure as plots/NAME below the report folder ``out``; its relative path."""
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    (out / FOLDER).mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(out / FOLDER / name, buf.getvalue())
    return f"{FOLDER}/{name}"


def order_plot(claim_id: str, order: dict, out: Path) -> str | None:
    """Measured error against the parameter (log-log) with a line of the claimed slope."""
    values, series = order.get("values"), order.get("series")
    if not values or not series:
        return None
    fig, ax = plt.subplots(figsize=(4.2, 3.0))
    for i, ys in enumerate(series):
        ax.loglog(values, ys, "o-", lw=1, ms=3, label="measured (one instance each)" if i == 0 else None)
    claimed = float(order["claimed"])
    anchor_x, anchor_y = values[0], max(ys[0] for ys in series)
    ax.loglog(values, [anchor_y * (v / anchor_x) ** claimed for v in values], "k--", lw=1,
              label=f"claimed order {claimed:g}")
    ax.set_xlabel(order.get("param", "parameter"))
    ax.set_ylabel("error")
    ax.set_title(f"{claim_id}: measured order {order.get('measured_median', float('nan')):.3g}", fontsize=9)
    ax.legend(fontsize=7)
    return save_figure(fig, out, f"{file_stem(claim_id)}-order.svg")


def constants_plot(claim_id: str, constants: list[dict], out: Path) -> str | None:
    """The smallest admissible constant at each point of the sweep, one line per bound."""
    rows = [c for c in constants if c.get("by_size")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(4.2, 3.0))
    labels: list[str] = []
    for c in rows:
        sizes = c["by_size"]
        varying = [k for k in sizes[0]["dims"] if len({str(s["dims"].get(k)) for s in sizes}) > 1]
        if len(varying) == 1 and all(isinstance(s["dims"][varying[0]], (int, float)) for s in sizes):
            xs = [float(s["dims"][varying[0]]) for s in sizes]
            ax.set_xlabel(varying[0])
            if min(xs) > 0 and max(xs) / min(xs) >= 10:
                ax.set_xscale("log")
        else:
            xs = list(range(len(sizes)))
            labels = [", ".join(f"{k}={v}" for k, v in s["dims"].items()) for s in sizes]
        ax.plot(xs, [s["ratio"] for s in sizes], "o-", lw=1, ms=3, label=_short(c.get("relation", "")))
    if labels:
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=7)
    ratios = [s["ratio"] for c in rows for s in c["by_size"] if isinstance(s["ratio"], (int, float))]
    if ratios and min(ratios) > 0 and max(ratios) / min(ratios) > 30:  # a growing constant spans decades
        ax.set_yscale("log")
    ax.set_ylabel("smallest admissible constant")
    ax.set_title(f"{claim_id}: constant along the sweep", fontsize=9)
    ax.legend(fontsize=6)
    return save_figure(fig, out, f"{file_stem(claim_id)}-constants.svg")


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tightness_plot(rows: list[tuple[str, float, str]], out: Path) -> str | None:
    """Every bound's tightness (largest lhs/rhs found): near 1 the bound is attained, far below it is loose."""
    rows = sorted((r for r in rows if r[1] is not None and math.isfinite(r[1]) and r[1] > 0), key=lambda r: r[1])
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 0.6 + 0.13 * len(rows)))
    ax.barh(range(len(rows)), [r[1] for r in rows], color=[COLORS.get(r[2], "#8c959f") for r in rows])
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=6)
    ax.axvline(1.0, color="k", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("tightness: largest left/right ratio found (1 = attained; > 1 = violated)")
    ax.set_ylim(-0.6, len(rows) - 0.4)
    for verdict in sorted({r[2] for r in rows}):
        ax.barh([0], [0], color=COLORS.get(verdict, "#8c959f"), label=verdict)  # legend entries only
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Tightness of the bounds", fontsize=9)
    return save_figure(fig, out, "tightness.svg")


def write_plots(registry: CheckedRegistry, results: list[Result], out: Path) -> dict[str, dict[str, str]]:
    """Write every figure; returns {claim id: {name: path}} with the report-wide ones under ""."""
    out = Path(out)
    (out / FOLDER).mkdir(parents=True, exist_ok=True)  # the report's plots/ folder, even when it stays empty
    paths: dict[str, dict[str, str]] = {}
    tightness = []
    with plt.rc_context(STYLE):
        for r in results:
            made = {}
            order, constants, tight = r.find(OrderEstimate), r.find(ConstantEstimate), r.find(Tightness)
            if order is not None:
                made["order"] = order_plot(r.id, order.details()["order"], out)
            if constants is not None:
                made["constants"] = constants_plot(r.id, constants.details()["constants"], out)
            made = {k: v for k, v in made.items() if v}
            if made:
                paths[r.id] = made
            if tight is not None and tight.value is not None:
                tightness.append((r.id, float(tight.value), r.verdict.value))
        overview = {"tightness": tightness_plot(tightness, out)}
        # the figures content packages and plugins contribute, for a registry that exercises their subject
        subjects = {name for c in registry.compiled.values() for name in exercises(c)}
        for name, figure in contributions.FIGURES.items():
            if subjects.intersection(figure.about):
                overview[name] = figure.draw(out)
    paths[""] = {k: v for k, v in overview.items() if v}
    return paths
