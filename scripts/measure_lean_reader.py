"""How much of a Lean 4 project does pyverify's reader read? A plain count against the reader's index.

    python scripts/measure_lean_reader.py DIR [DIR ...] [--misses N] [--format text|json]

For every ``.lean`` file under each DIR, a *plain count* finds the ``theorem``/``lemma``/``def``
declarations independently of the reader: comments and strings are blanked by a small scanner of its
own, and a declaration is a line that opens (after attributes and modifiers) with one of the three
keywords followed by a name. The reader (``pyverify.provers.lean.index``) is then run on the same file,
and a plain declaration counts as *read* when the reader has a declaration of the same kind and name (its
last component) whose lines (from its first attribute to its last token) contain the keyword's line. Every miss is printed with its file, line and the
reader's reason (the file's error, or the declaration the reader saw there instead), so that each one
can be explained. Declarations the reader finds beyond the plain count (a keyword not at the start of a
line) are listed separately. The plain count stops at ``#exit`` (and a Verso ``#doc``), leaves out ``def $name`` inside syntax quotations (a template
of a macro, not a declaration) and reads ``foo.{u}`` as ``foo``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pyverify.provers.lean.index import index_text  # noqa: E402
from pyverify.provers.lean.tokens import LeanSyntaxError  # noqa: E402

KINDS = ("theorem", "lemma", "def")
_MODIFIER = r"(?:private|protected|noncomputable|partial|unsafe|nonrec|public|meta)"
_PLAIN = re.compile(r"^[ \t]*(?:@\[[^\]\n]*\][ \t]*)*(?:" + _MODIFIER + r"[ \t]+)*(theorem|lemma|def)[ \t]+"
                    r"([^\s:({\[⦃]+)", re.M)


def blank_comments_and_strings(text: str) -> str:
    """The text with comments (nested block comments included) and string literals replaced by spaces,
    newlines kept, so that line numbers stay. Independent of the reader's tokenizer on purpose."""
    out = list(text)
    i, n, depth = 0, len(text), 0
    while i < n:
        two = text[i:i + 2]
        if depth:
            if two == "/-":
                depth, stop = depth + 1, i + 2
            elif two == "-/":
                depth, stop = depth - 1, i + 2
            else:
                stop = i + 1
            for k in range(i, stop):
                out[k] = text[k] if text[k] == "\n" else " "
            i = stop
        elif two == "/-":
            depth = 1
            out[i] = out[i + 1] = " "
            i += 2
        elif two == "--":
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif text[i] == '"' and not (i and text[i - 1] == "'" and text[i + 1:i + 2] == "'"):
            out[i] = " "
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    out[i] = " "
                    i += 1
                if i < n and text[i] != "\n":
                    out[i] = " "
                i += 1
            if i < n:
                out[i] = " "
            i += 1
        else:
            i += 1
    return "".join(out)


def plain_declarations(text: str) -> list[tuple[int, str, str]]:
    """(line, kind, name) of every line that opens a theorem, lemma or def."""
    blank = blank_comments_and_strings(text)
    stop = re.search(r"^#(?:exit|doc)\b", blank, re.M)  # Lean reads no command after these
    blank = blank[:stop.start()] if stop else blank
    out = []
    for m in _PLAIN.finditer(blank):
        name = m.group(2).split(".{")[0].rstrip(".")  # `foo.{u}`: universe parameters are not part of the name
        if not name.startswith("$"):  # `def $name` inside a syntax quotation declares nothing by itself
            out.append((blank.count("\n", 0, m.start()) + 1, m.group(1), name))
    return out


@dataclass
class ProjectCount:
    root: str
    files: int = 0
    plain: Counter = field(default_factory=Counter)
    read: Counter = field(default_factory=Counter)
    extra: list[str] = field(default_factory=list)  # reader declarations of these kinds on no plain line
    file_errors: list[str] = field(default_factory=list)
    misses: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        plain, read = sum(self.plain.values()), sum(self.read.values())
        return {"root": self.root, "files": self.files, "plain": dict(self.plain), "read": dict(self.read),
                "plain_total": plain, "read_total": read, "fraction": read / plain if plain else 1.0,
                "extra": len(self.extra), "extras": self.extra, "file_errors": self.file_errors, "misses": self.misses}


def measure_file(path: Path, shown: str, count: ProjectCount) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    plain = plain_declarations(text)
    for _, kind, _ in plain:
        count.plain[kind] += 1
    try:
        decls = index_text(text, shown)
        error = None
    except LeanSyntaxError as exc:
        decls, error = [], str(exc)
        count.file_errors.append(f"{shown}: {exc}")
    plain_lines = set()
    for line, kind, name in plain:
        plain_lines.add(line)
        short = name.split(".")[-1]
        around = [d for d in decls if d.line <= line <= max(d.end_line, d.line)]
        if any(d.kind == kind and (d.short == short or d.name.endswith(name)) for d in around):
            count.read[kind] += 1
            continue
        seen = ", ".join(f"{d.kind} {d.name} (lines {d.line}-{d.end_line})" for d in around) or "no declaration there"
        count.misses.append({"file": shown, "line": line, "kind": kind, "name": name,
                             "reason": error or f"the reader saw: {seen}"})
    count.extra.extend(f"{shown}:{d.line} {d.kind} {d.name}" for d in decls if d.kind in KINDS
                       and not any(d.line <= line <= max(d.end_line, d.line) for line in plain_lines))


def measure(root: Path) -> ProjectCount:
    count = ProjectCount(str(root))
    for path in sorted(root.rglob("*.lean")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue  # .lake/ and other hidden folders hold dependencies, not the project
        count.files += 1
        measure_file(path, str(path.relative_to(root)), count)
    return count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="Lean 4 project folders (their .lean files, hidden folders skipped)")
    ap.add_argument("--misses", type=int, default=20, help="misses to print per project (text format)")
    ap.add_argument("--format", choices=["text", "json"], default="text")
    args = ap.parse_args(argv)
    results = []
    for d in args.dirs:
        if not d.is_dir():
            print(f"error: {d}: not a folder", file=sys.stderr)
            return 2
        results.append(measure(d))
    if args.format == "json":
        json.dump([r.as_dict() for r in results], sys.stdout, indent=1, ensure_ascii=False)
        print()
        return 0
    for r in results:
        s = r.as_dict()
        kinds = ", ".join(f"{k} {r.read[k]}/{r.plain[k]}" for k in KINDS)
        print(f"{r.root}: {r.files} files, read {s['read_total']}/{s['plain_total']} "
              f"({100 * s['fraction']:.2f} %; {kinds}); {len(r.file_errors)} files rejected; "
              f"{len(r.extra)} further declarations found by the reader only")
        for e in r.file_errors[:args.misses]:
            print(f"  file: {e}")
        for m in r.misses[:args.misses]:
            print(f"  miss: {m['file']}:{m['line']} {m['kind']} {m['name']}: {m['reason']}")
        for e in r.extra[:args.misses]:
            print(f"  reader only: {e}")
        if len(r.misses) > args.misses:
            print(f"  ... {len(r.misses) - args.misses} more misses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
