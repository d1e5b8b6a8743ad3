"""``lake build``: run it, and attribute its errors to modules and declarations.

Build evidence is per run: a declaration counts as checked only when ``lake build`` ran in this very run,
and either the whole build passed or its module was built with no error inside the declaration's lines.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .index import Declaration

# `error: ././lean/Pyverify/Espr/Tier2.lean:12:4: unknown identifier 'x'` (lake prefixes vary: ././, ./)
_MESSAGE = re.compile(r"^(?P<severity>error|warning): (?:\./)*(?P<file>[^:\n]+\.lean):(?P<line>\d+):(?P<col>\d+): "
                      r"(?P<text>.*)$", re.M)
_BUILT = re.compile(r"(?:✔|Built|Compiled|Replayed)\s*(?:\[\d+/\d+\]\s*)?(?:Built |Replayed |Compiled )?(?P<module>[\w.]+)")


@dataclass
class BuildResult:
    ran: bool
    passed: bool
    log: str
    errors: list[dict] = field(default_factory=list)  # {file, line, col, message, declaration}
    built_modules: set[str] = field(default_factory=set)

    def error_files(self) -> set[str]:
        return {e["file"] for e in self.errors}

    def declaration_ok(self, decl: Declaration) -> bool:
        """Build evidence for this declaration from this run."""
        if not self.ran:
            return False
        if any(e["declaration"] == decl.name for e in self.errors):
            return False
        if self.passed:
            return True
        return decl.module in self.built_modules and not any(_same_file(e["file"], decl.file) for e in self.errors)


def _same_file(a: str, b: str) -> bool:
    a, b = a.lstrip("./"), b.lstrip("./")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def toolchain() -> str | None:
    """The Lean version, or None when no toolchain is installed here."""
    lean = shutil.which("lean")
    if lean is None:
        return None
    try:
        return subprocess.run([lean, "--version"], capture_output=True, text=True, timeout=60).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def project_root(sources: Path) -> Path | None:
    """The nearest folder at or above ``sources`` with a lakefile."""
    for folder in [sources, *sources.parents]:
        if (folder / "lakefile.toml").exists() or (folder / "lakefile.lean").exists():
            return folder
    return None


def parse_build_output(output: str, decls: list[Declaration]) -> tuple[list[dict], set[str]]:
    errors = []
    for m in _MESSAGE.finditer(output):
        if m.group("severity") != "error":
            continue
        file, line = m.group("file"), int(m.group("line"))
        owner = next((d.name for d in decls if _same_file(d.file, file) and d.line <= line <= d.end_line), None)
        errors.append({"file": file, "line": line, "col": int(m.group("col")), "message": m.group("text"),
                       "declaration": owner})
    built = {m.group("module") for m in _BUILT.finditer(output)}
    return errors, built


def lake_build(root: Path | None, decls: list[Declaration], timeout: int = 3600) -> BuildResult:
    lake = shutil.which("lake")
    if lake is None:
        return BuildResult(False, False, "lake is not installed (no Lean toolchain on this machine)")
    if root is None:
        return BuildResult(False, False, "no lakefile.toml / lakefile.lean at or above the Lean sources")
    try:
        proc = subprocess.run([lake, "build"], cwd=root, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return BuildResult(True, False, f"lake build did not finish within {timeout} s")
    except OSError as exc:
        return BuildResult(False, False, f"lake build could not start: {exc}")
    output = proc.stdout + proc.stderr
    errors, built = parse_build_output(output, decls)
    return BuildResult(True, proc.returncode == 0 and not errors, output[-4000:], errors, built)
