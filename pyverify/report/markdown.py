"""report.md: a summary fit for a pull request — counts, refutations with severity, endangered
conclusions, and what changed against an earlier report when one was given."""

from __future__ import annotations

from typing import Any

from .svg import severity_level

VERDICT_ORDER = ["refuted", "error", "vacuous", "holds", "consistent", "symbolic", "proved", "not-checkable", "not run"]


def _cell(text: object) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _header(report: dict) -> list[str]:
    meta = report.get("meta") or report
    lean = meta.get("toolchain") if meta.get("lean_built") else None
    line = (f"Budget `{meta.get('budget')}`, seed {meta.get('seed')}, device `{meta.get('device')}`"
            + (f", commit `{str(meta['git_commit'])[:12]}`" if meta.get("git_commit") else "")
            + (f", {meta['elapsed_s']} s" if meta.get("elapsed_s") is not None else "")
            + f". Lean: {('built with ' + lean) if lean else 'not built in this run (no proof counts as checked)'}.")
    return ["# pyverify report", "", line, ""]


def _counts(report: dict) -> list[str]:
    out = ["| document | " + " | ".join(VERDICT_ORDER) + " | endangered |", "| --- |" + " ---: |" * (len(VERDICT_ORDER) + 1)]
    endangered = report["endangered"]
    for doc, c in report.get("counts", {}).items():
        out.append(f"| {doc} | " + " | ".join(str(c.get(v, 0)) for v in VERDICT_ORDER)
                   + f" | {len(endangered.get(doc, []))} |")
    return out + [""]


def _refutations(claims: list[dict]) -> list[str]:
    refuted = [c for c in claims if c.get("verdict") == "refuted"]
    if not refuted:
        return []
    out = [f"## Refuted ({len(refuted)})", "", "| claim | severity | correction | evidence |", "| --- | --- | --- | --- |"]
    verdict = {c["id"]: c.get("verdict") for c in claims}
    for c in refuted:
        fix = ", ".join(f"{x} ({verdict.get(x) or 'not run'})" for x in c.get("corrected_by", [])) or "none"
        evidence = "; ".join(c.get("evidence") or []) or c.get("message")
        where = ", ".join(str(x) for x in (c.get("document"), c.get("locator")) if x)
        out.append(f"| **{_cell(c['id'])}** ({_cell(where)}) | "
                   f"{severity_level(c)} | {_cell(fix)} | {_cell(evidence)} |")
    return out + [""]


def _endangered(report: dict) -> list[str]:
    by_id = {c["id"]: c for c in report["claims"]}
    groups = report["endangered"]
    if not any(groups.values()):
        return ["## Endangered conclusions", "", "None: no claim rests on an unrepaired substantive false premise.", ""]
    out = ["## Endangered conclusions", ""]
    for doc, ids in groups.items():
        if not ids:
            continue
        out.append(f"**{doc}** ({len(ids)}):")
        out.append("")
        for cid in ids:
            c = by_id.get(cid, {})
            premises = [p["id"] for p in c["false_premises"]]
            out.append(f"- {cid} ({c.get('verdict')}) rests on {', '.join(premises)}")
        out.append("")
    return out


def _changes(changes: dict[str, Any] | None) -> list[str]:
    """The comparison with an earlier report (``--compare``), as ``compare.as_markdown`` words it."""
    if changes is None:
        return []
    from .compare import as_markdown

    return as_markdown(changes).splitlines() + [""]


def render(report: dict, changes: dict[str, Any] | None = None) -> str:
    out = _header(report) + _counts(report) + _changes(changes) + _refutations(report["claims"]) + _endangered(report)
    problems = report.get("graph_problems") or []
    out += [f"Graph problems: {len(problems)}.", ""]
    mismatched = [c["id"] for c in report["claims"] if c.get("matches") is False]
    if mismatched:
        out += [f"**Verdicts differing from the reviewed expectation ({len(mismatched)}):** {', '.join(mismatched)}", ""]
    return "\n".join(out)
