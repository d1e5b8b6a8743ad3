"""Set every value a report figure draws beside its claim's verdict (issue 21, point 12).

A figure names what it draws (``gid``: ``bar-<claim>``, the dashed ``limit`` at 1) and records the values,
by claim, in its SVG description (plots.py). The tightness bars are measured where they are drawn; the
order and constant figures by the values they record.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET

HOLDING = ("holds", "symbolic", "proved", "consistent")


def by_gid(svg: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {g.get("id"): g for g in svg.iter() if (g.get("id") or "").startswith(prefix)}


def path_xs(group: ET.Element) -> list[float]:
    d = next(el.get("d") for el in group.iter() if el.get("d"))
    return [float(x) for x, _ in re.findall(r"(-?[\d.]+)[ ,](-?[\d.]+)", d)]


def plotted(svg: ET.Element) -> dict:
    text = next((el.text for el in svg.iter() if el.tag.endswith("description")), None)
    return json.loads(text) if text else {}


def _slope(xs: list[float], ys: list[float]) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / sum((x - mx) ** 2 for x in lx)


def tightness_contradictions(svg: ET.Element, claims: dict[str, dict]) -> list[str]:
    bars, limit = by_gid(svg, "bar-"), by_gid(svg, "limit").get("limit")
    if not bars or limit is None:
        return ["tightness: the figure names no bars or no line at 1"]
    limit = max(path_xs(limit))
    values = {b["claim"]: b["value"] for b in plotted(svg).get("bars", [])}
    out = [] if set(values) == {k[len("bar-"):] for k in bars} else ["tightness: bars and recorded values differ"]
    for gid, group in bars.items():
        cid = gid[len("bar-"):]
        c = claims[cid]
        right = max(path_xs(group))   # where the drawn bar ends, against the dashed line at 1
        if not math.isclose(values.get(cid, math.nan), (c.get("details") or {}).get("tightness", math.nan), rel_tol=1e-9):
            out.append(f"{cid}: drawn at {values.get(cid)}, its tightness is {(c.get('details') or {}).get('tightness')}")
        if (c.get("details") or {}).get("constants"):
            out.append(f"{cid}: a constant claim's ratio is no lhs/rhs violation")
        if c["verdict"] in HOLDING and right > limit + 0.5:
            out.append(f"{cid} is {c['verdict']} but its bar crosses 1")
        if c["verdict"] not in HOLDING and right <= limit:
            out.append(f"{cid} is {c['verdict']} but its bar stays below 1")
    return out


def claim_figure_contradictions(cid: str, name: str, svg: ET.Element, claim: dict) -> list[str]:
    data, details = plotted(svg), claim.get("details") or {}
    if name == "order":
        order = details["order"]
        worst, gap = order["measured_worst"], order["measured_worst"] - data["claimed"]
        off = abs(gap) > data["tolerance"] if data["exact"] else (-gap if order["direction"] == "zero" else gap) > data["tolerance"]
        out = []
        if not (math.isclose(data["worst"], worst, rel_tol=1e-9)
                and math.isclose(_slope(data["values"], data["series"][0]), worst, rel_tol=1e-6, abs_tol=1e-9)):
            out.append(f"{cid}: the bold line is not the instance of order {worst} the verdict rests on")
        if off != (claim["verdict"] == "refuted"):
            out.append(f"{cid} is {claim['verdict']} but its worst order {worst} is {'outside' if off else 'within'} the claim's tolerance")
        return out
    out = []
    for entry in details.get("constants", []):
        lines = [ln for ln in data.get("lines", []) if ln["relation"] == entry["relation"] and ln["verdict"]]
        if not lines or (entry.get("chosen") and [ln["choice"] for ln in lines] != [entry["chosen"]]):
            out.append(f"{cid}: no solid line for the verdict's choice {entry.get('chosen')}")
        elif claim["verdict"] in HOLDING and max(y for ln in lines for y in ln["y"]) > entry["constant"] * (1 + 1e-9):
            out.append(f"{cid} holds with constant {entry['constant']} but its solid line goes higher")
    return out
