"""The report's figures (matplotlib, Agg backend, SVG files in ``plots/`` beside index.html).

Per claim: an order claim's error against its parameter on log-log axes beside the claimed slope; a
constant's smallest admissible value along its sweep. For the whole report: the tightness of every
bound, and the figures content packages and plugins contribute (``pyverify.plugin.figure``), each drawn
only for a registry with a claim whose check runs its subject. Plotted data come from the engine's
results or from the contributed figures' own code; no verdict is computed here.

A figure plots what its claim's verdict rests on: the order plot the instance whose order decides,
the constant plot the existential choice the verdict made, the tightness plot only bounds whose verdict
is lhs <= rhs at every instance (a constant claim's ratio is no violation). Each figure records the
values it draws, keyed by claim, in its SVG description, and names its bars and lines (``gid``), so a
test can set every drawn value beside its claim's verdict.
"""

from __future__ import annotations

import io
import json
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
COLORS = {"refuted": "#d1242f", "holds": "#2da44e", "symbolic": "#1a7f37", "proved": "#0b5f2a", "consistent": "#0969da"}
# byte-stable SVG: fixed ids and no creation date, so an unchanged report is an unchanged file
STYLE = {"svg.hashsalt": "pyverify", "svg.fonttype": "none", "font.size": 9, "figure.dpi": 100}


def file_stem(claim_id: str) -> str:
    """A claim id as a file name: characters a shell or URL would need quoted become '_'."""
    return re.sub(r"[^A-Za-z0-9.\-]", "_", claim_id)


def save_figure(fig: Any, out: Path, name: str, plotted: dict | None = None) -> str:
    """Write a matplotlib figure as plots/NAME below the report folder ``out``; its relative path.
    ``plotted`` (the values drawn, as JSON) goes into its description."""
    buf = io.BytesIO()
    metadata = {"Date": None}
    if plotted is not None:
        metadata["Description"] = json.dumps(plotted, sort_keys=True)
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata=metadata)
    plt.close(fig)
    (out / FOLDER).mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(out / FOLDER / name, buf.getvalue())
    return f"{FOLDER}/{name}"


def order_plot(claim_id: str, order: dict, out: Path) -> str | None:
    """Measured error against the parameter (log-log), the instance the verdict rests on first and
    drawn bold, with a line of the claimed slope."""
    values, series = order.get("values"), order.get("series")
    if not values or not series:
        return None
    worst = order["measured_worst"]
    fig, ax = plt.subplots(figsize=(4.2, 3.0))
    for i, ys in enumerate(series):   # the engine puts the instance the verdict rests on first
        (line,) = ax.loglog(values, ys, "o-", lw=2 if i == 0 else 0.8, ms=3, color="#1f2328" if i == 0 else "#8c959f",
                            label=f"worst instance: order {worst:.3f}" if i == 0 else "other instances" if i == 1 else None)
        line.set_gid(f"series-{i}")
    claimed = float(order["claimed"])
    anchor_x, anchor_y = values[0], max(ys[0] for ys in series)
    (line,) = ax.loglog(values, [anchor_y * (v / anchor_x) ** claimed for v in values], "k--", lw=1,
                        label=f"claimed order {claimed:g}")
    line.set_gid("claimed")
    ax.set_xlabel(order.get("param", "parameter"))
    ax.set_ylabel("error")
    ax.set_title(f"{claim_id}: measured order {worst:.3f} (median {order.get('measured_median', float('nan')):.3f})",
                 fontsize=9)
    ax.legend(fontsize=7)
    plotted = {"kind": "order", "claim": claim_id, "values": values, "series": series, "claimed": claimed,
               "direction": order.get("direction"), "exact": order.get("exact"), "tolerance": order.get("tolerance"),
               "worst": worst}
    return save_figure(fig, out, f"{file_stem(claim_id)}-order.svg", plotted)


def constants_plot(claim_id: str, constants: list[dict], out: Path) -> str | None:
    """The smallest admissible constant at each point of the sweep, one line per bound; where the
    statement chooses constants (exists C1 ...), one line per choice, the verdict's choice solid."""
    rows = [c for c in constants if c.get("by_size")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(4.2, 3.0))
    labels: list[str] = []
    plotted: dict[str, Any] = {"kind": "constants", "claim": claim_id, "lines": []}
    for j, c in enumerate(rows):
        chosen = c.get("chosen") or {}
        groups: dict[tuple, list[dict]] = {}
        for s in c["by_size"]:
            groups.setdefault(tuple((k, s["dims"].get(k)) for k in chosen), []).append(s)
        for choice, sizes in groups.items():
            dims = [{k: v for k, v in s["dims"].items() if k not in chosen} for s in sizes]
            varying = [k for k in dims[0] if len({str(d.get(k)) for d in dims}) > 1]
            if len(varying) == 1 and all(isinstance(d[varying[0]], (int, float)) for d in dims):
                xs = [float(d[varying[0]]) for d in dims]
                ax.set_xlabel(varying[0])
                if min(xs) > 0 and max(xs) / min(xs) >= 10:
                    ax.set_xscale("log")
            else:
                xs = list(range(len(sizes)))
                labels = [", ".join(f"{k}={v}" for k, v in d.items()) for d in dims]
            verdicts_choice = not chosen or dict(choice) == chosen
            name = _short(c.get("relation", "")) if not chosen else ", ".join(f"{k} = {v}" for k, v in choice) + (
                ": the verdict's choice" if verdicts_choice else ": not needed")
            ys = [s["ratio"] for s in sizes]
            (line,) = ax.plot(xs, ys, "o-" if verdicts_choice else "o--", lw=1.5 if verdicts_choice else 0.8, ms=3,
                              color=None if verdicts_choice else "#8c959f", label=name)
            line.set_gid(f"constant-{j}-{'verdict' if verdicts_choice else 'other'}")
            plotted["lines"].append({"relation": c.get("relation"), "choice": dict(choice), "verdict": verdicts_choice,
                                     "x": xs, "y": ys})
    if labels:
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=7)
    ratios = [y for line in plotted["lines"] for y in line["y"] if isinstance(y, (int, float))]
    if ratios and min(ratios) > 0 and max(ratios) / min(ratios) > 30:  # a growing constant spans decades
        ax.set_yscale("log")
    ax.set_ylabel("smallest admissible constant")
    ax.set_title(f"{claim_id}: constant along the sweep", fontsize=9)
    ax.legend(fontsize=6)
    return save_figure(fig, out, f"{file_stem(claim_id)}-constants.svg", plotted)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tightness_plot(rows: list[tuple[str, float, str]], out: Path) -> str | None:
    """The tightness (largest lhs/rhs) of every bound checked pointwise: near 1 the bound is attained,
    far below it is loose, beyond 1 violated. Rows are (claim id, tightness, verdict)."""
    rows = sorted((r for r in rows if r[1] is not None and math.isfinite(r[1]) and r[1] > 0), key=lambda r: r[1])
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 0.6 + 0.13 * len(rows)))
    bars = ax.barh(range(len(rows)), [r[1] for r in rows], color=[COLORS.get(r[2], "#8c959f") for r in rows])
    for bar, (cid, _, _) in zip(bars, rows):
        bar.set_gid(f"bar-{cid}")
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=6)
    ax.axvline(1.0, color="k", lw=0.8, ls="--", gid="limit")
    ax.set_xscale("log")
    ax.set_xlabel("tightness: largest left/right ratio found (1 = attained; > 1 = violated)")
    ax.set_ylim(-0.6, len(rows) - 0.4)
    for verdict in sorted({r[2] for r in rows}):
        ax.barh([0], [0], color=COLORS.get(verdict, "#8c959f"), label=verdict)  # legend entries only
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Tightness of the bounds checked pointwise", fontsize=9)
    plotted = {"kind": "tightness", "bars": [{"claim": cid, "value": value, "colour": COLORS.get(v, "#8c959f")}
                                             for cid, value, v in rows]}
    return save_figure(fig, out, "tightness.svg", plotted)


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
            # a constant claim's ratio is its constant, not a violation: its own figure shows it
            if tight is not None and tight.value is not None and constants is None:
                tightness.append((r.id, float(tight.value), r.verdict.value))
        overview = {"tightness": tightness_plot(tightness, out)}
        # the figures content packages and plugins contribute, for a registry that exercises their subject
        subjects = {name for c in registry.compiled.values() for name in exercises(c)}
        for name, figure in contributions.FIGURES.items():
            if subjects.intersection(figure.about):
                overview[name] = figure.draw(out)
    paths[""] = {k: v for k, v in overview.items() if v}
    return paths
