"""Merge a Lean writer's mapping folder into the registry: write each claim's ``lean:`` block.

The registry's ``lean:`` blocks are the single source of the claim <-> Lean links (the audit reads
nothing else by default). A Lean writer may hand in a folder of ``*.yaml`` files in the same format
(one key per claim id: statement, theorem, negation, hypotheses, constants, reading, differs, or
``statement: null`` with ``skipped: <why>``); this dev tool writes them into the registry, after which
the folder is deleted (a file that drives nothing would drift). ``pyverify lean --mapping DIR`` audits
such a folder before it is merged.

It edits the registry's YAML *text*, so comments and formatting stay: in each claim entry an existing
``lean:`` key (with its nested block) is replaced, else the block goes just before ``expect:`` or at the
end of the entry. An entry with ``statement: null`` becomes ``lean: {skipped: <why>}`` (nothing when it
gives no reason); keys outside the format are dropped. Every block is validated with the registry's own
model (``LeanLink``) before anything is written.

    python scripts/link_lean_mapping.py --mapping DIR [--claims claims] [--dry-run]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml
from pydantic import ValidationError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pyverify.registry import LeanLink  # noqa: E402  (the project root is put on the path just above)

_ENTRY = re.compile(r"""^(?P<indent>\s*)- id:\s*(?P<q>["']?)(?P<id>.+?)(?P=q)\s*(#.*)?$""")


def load_mapping(folder: Path) -> tuple[dict[str, dict], list[str]]:
    """claim id -> the fields of its link (model fields only, nulls dropped); and problems."""
    links: dict[str, dict] = {}
    problems: list[str] = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for cid, entry in data.items():
            if not isinstance(entry, dict):
                continue
            if entry.get("statement") is None:
                if not str(entry.get("skipped") or "").strip():
                    continue  # neither a statement nor a reason: nothing to record
                fields = {"skipped": str(entry["skipped"]).strip()}
            else:
                fields = {k: entry[k] for k in LeanLink.model_fields if entry.get(k) is not None and k != "skipped"}
            try:
                LeanLink.model_validate(fields)
            except ValidationError as exc:
                problems.append(f"{path}: [{cid}] {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}")
                continue
            if str(cid) in links:
                problems.append(f"{path}: [{cid}] mapped twice")
            links[str(cid)] = fields
    return links, problems


def render(fields: dict, indent: str) -> list[str]:
    """The ``lean:`` block at the entry's key indentation."""
    ordered = {k: fields[k] for k in ("statement", "theorem", "negation", "hypotheses", "constants", "reading",
                                      "differs", "skipped") if k in fields and fields[k] not in ({}, None)}
    body = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)
    return [f"{indent}lean:\n"] + [f"{indent}  {line}\n" for line in body.splitlines()]


def link_text(lines: list[str], links: dict[str, dict]) -> tuple[list[str], set[str]]:
    """The file's lines with the lean blocks of the claims it holds; and the ids it linked."""
    out: list[str] = []
    done: set[str] = set()
    i = 0
    while i < len(lines):
        m = _ENTRY.match(lines[i])
        if not m or m.group("id") not in links:
            out.append(lines[i])
            i += 1
            continue
        item_indent = m.group("indent")
        key_indent = item_indent + "  "
        end = i + 1
        while end < len(lines) and not _ends_entry(lines[end], item_indent):
            end += 1
        entry = _without_lean(lines[i:end], key_indent)
        # the trailing blank and comment lines belong between entries, not to this one
        tail = len(entry)
        while tail > 1 and (not entry[tail - 1].strip() or entry[tail - 1].lstrip().startswith("#")):
            tail -= 1
        at = next((k for k in range(1, tail) if entry[k].startswith(key_indent + "expect:")), tail)
        block = render(links[m.group("id")], key_indent)
        out.extend(entry[:at] + block + entry[at:])
        done.add(m.group("id"))
        i = end
    return out, done


def _ends_entry(line: str, item_indent: str) -> bool:
    if not line.strip() or line.lstrip().startswith("#"):
        return False
    indent = len(line) - len(line.lstrip())
    return indent < len(item_indent) + 2


def _without_lean(entry: list[str], key_indent: str) -> list[str]:
    out, skipping = [], False
    for line in entry:
        if line.startswith(key_indent + "lean:"):
            skipping = True
            continue
        if skipping and (not line.strip() or len(line) - len(line.lstrip()) > len(key_indent)):
            continue
        skipping = False
        out.append(line)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--claims", type=Path, default=ROOT / "pyverify" / "papers" / "claims")
    ap.add_argument("--mapping", type=Path, required=True, help="the folder of mapping *.yaml files to merge")
    ap.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")
    args = ap.parse_args(argv)
    links, problems = load_mapping(args.mapping)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if problems:
        return 2
    linked: set[str] = set()
    for path in sorted(args.claims.rglob("*.yaml")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        new, done = link_text(lines, links)
        linked |= done
        if done and new != lines:
            print(f"{path}: {len(done)} claims linked")
            if not args.dry_run:
                path.write_text("".join(new), encoding="utf-8")
    for cid in sorted(set(links) - linked):
        print(f"warning: {cid} is mapped but no registry entry has that id", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
