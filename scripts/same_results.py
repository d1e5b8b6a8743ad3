"""Compare two ``pyverify check --format json`` runs claim by claim, everything but the timing.

    python scripts/same_results.py OLD.json NEW.json

Each claim's object is compared as JSON text with its keys in their order (so a reordered ``details``
counts as a difference), ``elapsed_s`` left out; the run's own fields (seed, device, budget) and the
order of the claims are compared too. Exit 0 when nothing but the timing differs, 1 otherwise (every
difference listed). For a refactoring that must not change a single verdict, witness or message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TIMING = ("elapsed_s",)


def _text(claim: dict) -> str:
    return json.dumps({k: v for k, v in claim.items() if k not in TIMING}, ensure_ascii=False)


def differences(old: dict, new: dict) -> list[str]:
    out = [f"run field {key}: {old.get(key)!r} -> {new.get(key)!r}"
           for key in sorted(set(old) | set(new)) if key != "claims" and old.get(key) != new.get(key)]
    a = {c["id"]: c for c in old["claims"]}
    b = {c["id"]: c for c in new["claims"]}
    if [c["id"] for c in old["claims"]] != [c["id"] for c in new["claims"]]:
        out.append("the claims differ in set or order")
    for cid in a.keys() | b.keys():
        if cid not in a or cid not in b:
            out.append(f"{cid}: only in the {'new' if cid in b else 'old'} run")
        elif _text(a[cid]) != _text(b[cid]):
            out.append(f"{cid}:\n  old {_text(a[cid])[:600]}\n  new {_text(b[cid])[:600]}")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    old, new = (json.loads(Path(p).read_text(encoding="utf-8")) for p in argv)
    found = differences(old, new)
    for line in found:
        print(line)
    print(f"{len(old['claims'])} / {len(new['claims'])} claims; {len(found)} difference(s) beyond the timing")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
