"""More search must never turn a true claim false: compare two runs of the whole registry.

    python -m pyverify check --budget default  --format json --no-progress > default.json
    python -m pyverify check --budget thorough --format json --no-progress > thorough.json
    python scripts/compare_budgets.py default.json thorough.json

Lists every claim whose verdict differs between the runs. A claim the lower budget finds true (holds,
consistent, symbolic) and the higher budget refutes is acceptable only when the refutation's witness is
certified in ball arithmetic or confirmed in 60-digit arithmetic, or lies far beyond the tolerance
(a violation score of at least 1e4, not within the reach of rounding); otherwise it is reported as a
refutation from rounding and the script exits 1.
"""

from __future__ import annotations

import json
import re
import sys

TRUE = {"holds", "consistent", "symbolic"}
FAR = 1e4  # engine.rounding.NEAR: a score this far beyond the tolerance is not rounding


def _claims(path: str) -> dict[str, dict]:
    with open(path, encoding="utf-8") as fh:
        return {c["id"]: c for c in json.load(fh)["claims"]}


def _backing(claim: dict) -> str | None:
    """How the refutation's witness is backed beyond float64, or None."""
    cert = (claim.get("witness") or {}).get("certificate") or {}
    if cert.get("status") == "certified":
        return "certified in ball arithmetic"
    if (cert.get("precise") or {}).get("status") == "confirmed":
        return "confirmed at 60 digits"
    score = re.search(r"violation score ([0-9.eE+-]+)", claim.get("message") or "")
    if score and float(score.group(1)) >= FAR:
        return f"violation score {float(score.group(1)):.3g}, far beyond the tolerance"
    return None


def main(lower: str, higher: str) -> int:
    a, b = _claims(lower), _claims(higher)
    bad = 0
    changed = [k for k in a if k in b and a[k]["verdict"] != b[k]["verdict"]]
    print(f"{len(a)} vs {len(b)} claims; {len(changed)} verdicts differ")
    for k in changed:
        va, vb = a[k]["verdict"], b[k]["verdict"]
        note = ""
        if va in TRUE and vb == "refuted":
            backing = _backing(b[k])
            note = f"  [{backing}]" if backing else "  [NOT backed: a refutation from rounding?]"
            bad += backing is None
        print(f"  {k}: {va} -> {vb}{note}")
    print(f"{bad} refutation(s) at the higher budget of a claim the lower found true without exact backing")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
