"""What changed between two reports: verdicts, new and withdrawn refutations, standings, claims added or
removed. Both sides are report dicts (report.json); nothing is re-run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class CompareError(ValueError):
    """The old report cannot be read; the message names the file."""


def load_report(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CompareError(f"{p}: cannot read the old report ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise CompareError(f"{p}:{exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise CompareError(f"{p}: not a pyverify report (no `claims` list)")
    return data


def compare(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The differences, each list in report order (the new report's, then the old one's for removed
    claims); ``changed`` is False when there are none."""
    a = {c["id"]: c for c in old["claims"]}
    b = {c["id"]: c for c in new["claims"]}
    place = {cid: i for i, cid in enumerate([*b, *(x for x in a if x not in b)])}
    order_key = place.__getitem__
    common = sorted(set(a) & set(b), key=order_key)
    verdicts = [{"id": i, "old": a[i].get("verdict"), "new": b[i].get("verdict")}
                for i in common if a[i].get("verdict") != b[i].get("verdict")]
    standings = [{"id": i, "old": a[i].get("standing"), "new": b[i].get("standing")}
                 for i in common if a[i].get("standing") != b[i].get("standing")]
    out = {
        "old": _run(old),
        "new": _run(new),
        "added": sorted(set(b) - set(a), key=order_key),
        "removed": sorted(set(a) - set(b), key=order_key),
        "verdicts": verdicts,
        "new_refutations": [v["id"] for v in verdicts if v["new"] == "refuted"]
                           + [i for i in sorted(set(b) - set(a), key=order_key) if b[i].get("verdict") == "refuted"],
        "withdrawn_refutations": [v["id"] for v in verdicts if v["old"] == "refuted"],
        "standings": standings,
    }
    out["changed"] = any(out[k] for k in ("added", "removed", "verdicts", "standings"))
    return out


def _run(report: dict[str, Any]) -> dict[str, Any]:
    meta = report.get("meta") or report
    return {k: meta.get(k) for k in ("git_commit", "budget", "seed", "started")}


def _run_label(run: dict[str, Any]) -> str:
    commit = (run.get("git_commit") or "unknown commit")[:12]
    return f"{commit} (budget {run.get('budget')}, seed {run.get('seed')})"


def as_text(diff: dict[str, Any]) -> str:
    """The differences as plain lines, for the terminal."""
    lines = [f"compared with {_run_label(diff['old'])}: "
             + ("no change" if not diff["changed"] else
                f"{len(diff['verdicts'])} verdict(s), {len(diff['standings'])} standing(s) changed, "
                f"{len(diff['added'])} claim(s) added, {len(diff['removed'])} removed")]
    if diff["new_refutations"]:
        lines.append("  new refutations: " + ", ".join(diff["new_refutations"]))
    if diff["withdrawn_refutations"]:
        lines.append("  no longer refuted: " + ", ".join(diff["withdrawn_refutations"]))
    for v in diff["verdicts"]:
        lines.append(f"  verdict  {v['id']}: {v['old']} -> {v['new']}")
    for s in diff["standings"]:
        lines.append(f"  standing {s['id']}: {s['old']} -> {s['new']}")
    if diff["added"]:
        lines.append("  added: " + ", ".join(diff["added"]))
    if diff["removed"]:
        lines.append("  removed: " + ", ".join(diff["removed"]))
    return "\n".join(lines)


def as_markdown(diff: dict[str, Any]) -> str:
    """A "Changes" section for report.md (and a pull request)."""
    out = ["## Changes since " + _run_label(diff["old"]), ""]
    if not diff["changed"]:
        return "\n".join(out + ["No verdict or standing changed.", ""])
    if diff["new_refutations"]:
        out.append("New refutations: " + ", ".join(f"**{i}**" for i in diff["new_refutations"]) + ".")
    if diff["withdrawn_refutations"]:
        out.append("No longer refuted: " + ", ".join(f"**{i}**" for i in diff["withdrawn_refutations"]) + ".")
    if diff["verdicts"] or diff["standings"]:
        out += ["", "| claim | what | before | after |", "| --- | --- | --- | --- |"]
        out += [f"| {v['id']} | verdict | {v['old']} | {v['new']} |" for v in diff["verdicts"]]
        out += [f"| {s['id']} | standing | {s['old']} | {s['new']} |" for s in diff["standings"]]
    if diff["added"]:
        out.append("\nAdded: " + ", ".join(diff["added"]) + ".")
    if diff["removed"]:
        out.append("\nRemoved: " + ", ".join(diff["removed"]) + ".")
    return "\n".join(out + [""])
