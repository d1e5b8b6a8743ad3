"""The Lean side: an index of the declarations under ``lean/``, a sorry/admit audit, ``lake build``.

Formal status of a claim (DESIGN.md): ``none`` (no ``lean:`` field, or its declaration is missing — a
mismatch), ``stated`` (the declaration's proof is only ``sorry``), ``sorry`` (a proof that still contains
``sorry``/``admit``), ``proof-written`` (no sorry, but ``lake build`` did not run or did not pass in this
run), ``checked`` (no sorry and ``lake build`` succeeded in this very run). Nothing is ever called
checked without a build in the same run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..registry import PROJECT_ROOT, Registry

_DECL = re.compile(r"^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+|noncomputable\s+)*"
                   r"(theorem|lemma|def|abbrev|structure|instance|axiom)\s+([^\s:(\[{]+)", re.M)
_NS = re.compile(r"^\s*(namespace|end)\s+([\w.']+)?", re.M)
_SORRY = re.compile(r"\b(sorry|admit)\b")
_COMMENT = re.compile(r"--[^\n]*|/-.*?-/", re.S)


@dataclass
class Declaration:
    name: str
    file: str
    line: int
    kind: str
    sorry: bool
    only_sorry: bool

    def as_dict(self) -> dict:
        return {"name": self.name, "file": self.file, "line": self.line, "kind": self.kind, "sorry": self.sorry}


def index(root: Path | None = None) -> list[Declaration]:
    """Every declaration of the Lean sources, with its namespace-qualified name and sorry status."""
    root = root or PROJECT_ROOT / "lean"
    decls: list[Declaration] = []
    for file in sorted(root.rglob("*.lean")) if root.exists() else []:
        text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), file.read_text(encoding="utf-8"))
        events = sorted([(m.start(), "decl", m) for m in _DECL.finditer(text)] +
                        [(m.start(), "ns", m) for m in _NS.finditer(text)], key=lambda t: t[0])
        namespace: list[str] = []
        found = []
        for pos, what, m in events:
            if what == "ns":
                if m.group(1) == "namespace" and m.group(2):
                    namespace.append(m.group(2))
                elif m.group(1) == "end" and namespace and m.group(2) == namespace[-1]:
                    namespace.pop()
                continue
            found.append((pos, m.group(1), ".".join(namespace + [m.group(2)])))
        for k, (pos, kind, name) in enumerate(found):
            end = found[k + 1][0] if k + 1 < len(found) else len(text)
            body = text[pos:end]
            after = body.split(":=", 1)[1] if ":=" in body else ""
            decls.append(Declaration(name, str(file.relative_to(PROJECT_ROOT)) if file.is_relative_to(PROJECT_ROOT) else str(file),
                                     text.count("\n", 0, pos) + 1, kind, bool(_SORRY.search(body)),
                                     after.strip().split() == ["by", "sorry"] or after.strip() == "sorry"))
    return decls


def toolchain() -> str | None:
    """The Lean version, or None when no toolchain is installed here."""
    lean = shutil.which("lean")
    if lean is None:
        return None
    try:
        return subprocess.run([lean, "--version"], capture_output=True, text=True, timeout=60).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def lake_build(timeout: int = 3600) -> tuple[bool, str]:
    lake = shutil.which("lake")
    if lake is None:
        return False, "lake is not installed (no Lean toolchain on this machine)"
    proc = subprocess.run([lake, "build"], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=timeout)
    return proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]


def formal_status(registry: Registry, decls: list[Declaration], built: bool) -> tuple[dict[str, dict], list[str]]:
    by_name = {d.name: d for d in decls}
    out: dict[str, dict] = {}
    mismatches = []
    for cid, claim in registry.claims.items():
        if not claim.lean:
            out[cid] = {"id": cid, "formal": "none", "lean": None, "file": None, "line": None}
            continue
        d = by_name.get(claim.lean)
        if d is None:
            mismatches.append(f"{cid}: declaration {claim.lean} not found under lean/")
            out[cid] = {"id": cid, "formal": "none", "lean": claim.lean, "file": None, "line": None}
            continue
        status = "stated" if d.only_sorry else "sorry" if d.sorry else "checked" if built else "proof-written"
        out[cid] = {"id": cid, "formal": status, "lean": claim.lean, "file": d.file, "line": d.line}
    return out, mismatches
