"""The Lean CI job's verdict, from `pyverify lean --build --format json` (read on stdin or from a file).

    pyverify lean --build --format json > lean-audit.json; python scripts/lean_ci_gate.py lean-audit.json

It fails (exit 1) when the formalization itself is broken: `lake build` did not run in this run or did
not pass, a build error was attributed to a declaration, an input could not be read, a claim's link
does not resolve, or the sources use a name the `lean/mathlib-names` lists lack. Findings about the
documents (a claim whose hypotheses are vacuous, a constant chosen after the data) are results of the
audit, printed but not failures of the build. It prints how many claims' proofs this build checked.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def problems(audit: dict) -> list[str]:
    out = []
    if not audit.get("build_ran"):
        out.append("lake build did not run in this run: nothing can be called checked")
    elif not audit.get("built"):
        out.append("lake build failed")
    out.extend(f"build error: {e['file']}:{e['line']} [{e.get('declaration') or '-'}] {e['message']}"
               for e in audit.get("build_errors", []))
    out.extend(f"input: {p}" for p in audit.get("input_problems", []))
    out.extend(f"mapping: {p}" for p in audit.get("mapping_problems", []))
    out.extend(f"unlisted name: {n['name']} ({n['file']}:{n['line']})" for n in audit.get("unknown_names", []))
    return out


def main(argv: list[str]) -> int:
    text = Path(argv[0]).read_text(encoding="utf-8") if argv else sys.stdin.read()
    try:
        audit = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"error: not the JSON of `pyverify lean --format json`: {exc}", file=sys.stderr)
        return 2
    formal = Counter(c["formal"] for c in audit.get("claims", []))
    print("formal status of the claims: " + ", ".join(f"{k} {v}" for k, v in sorted(formal.items())))
    for f in audit.get("findings", []):
        print(f"finding ({f['kind']}): [{f.get('claim') or f.get('declaration')}] {f['message']}")
    found = problems(audit)
    for p in found:
        print(f"FAIL {p}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
