"""The README's table of the formal side, computed from `pyverify lean`'s own audit (never typed by hand).

    python scripts/lean_formal_table.py            # print the table
    python scripts/lean_formal_table.py --write    # replace the table between the README's markers
    python scripts/lean_formal_table.py --check    # exit 1 when the README's table differs

The figures are those of `pyverify lean` without a build (its index, links and formal status; the
faithfulness audits are not needed for them):
claims with mathematical content, how many have a Lean statement and a proof, the algebraic core
(T0–T4, S1, S5–S9 whose reviewed verdict is that they hold), declarations using `sorry`, and the
`first | … | sorry` fallbacks, which count as sorry.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pyverify.provers.lean import BuildResult, formal_status, index  # noqa: E402
from pyverify.provers.lean.audit import coverage  # noqa: E402
from pyverify.provers.lean.mapping import has_content, registry_links  # noqa: E402
from pyverify.registry import load_registry  # noqa: E402

BEGIN, END = "<!-- lean-table:begin -->", "<!-- lean-table:end -->"
CORE = re.compile(r"^(T[0-4]\.|S(1|5|6|7|8|9)(\.|$))")
HOLDS = {"holds", "symbolic", "proved"}
PROVED = {"proof-written", "checked"}


def table(root: Path = ROOT) -> str:
    registry = load_registry(root / "pyverify" / "papers" / "claims")
    idx = index(root / "lean", root)
    status = formal_status(idx, registry_links(registry), BuildResult(False, False, "not requested"))
    formal = {cid: status.get(cid, {}).get("formal", "none") for cid in registry.claims}
    content = [cid for cid, c in registry.claims.items() if has_content(registry, c)]
    core = [cid for cid in content if CORE.match(cid) and registry.claims[cid].expect is not None
            and registry.claims[cid].expect.value in HOLDS]
    decls = idx.declarations
    fallbacks = sum(1 for d in decls if d.sorry and any(t.text == "first" for t in d.body))
    cov = coverage(registry, status)
    stated_pct = round(100 * cov["stated"] / cov["claims_with_content"])
    rows = [
        ("claims of T0–T8′ and S1–S14 (and corrections) with mathematical content", str(cov["claims_with_content"])),
        ("stated in Lean", f"{cov['stated']} ({stated_pct} %; the {cov['claims_with_content'] - cov['stated']} others give their reason in the registry)"),
        ("proof written without `sorry` (unchecked)", f"{sum(formal[c] in PROVED for c in content)} claims"),
        ("proof containing `sorry` / only stated", f"{sum(formal[c] == 'sorry' for c in content)} / "
                                                    f"{sum(formal[c] == 'stated' for c in content)} claims"),
        ("algebraic core (T0–T4, S1, S5–S9 that hold) with a proof", f"{sum(formal[c] in PROVED for c in core)} of {len(core)}"),
        ("declarations / using `sorry` / of those `first \\| … \\| sorry` fallbacks",
         f"{len(decls)} / {sum(d.sorry for d in decls)} / {fallbacks} (each listed by `pyverify lean`)"),
        ("checked (`lake build` in the same run)", str(cov["checked"])),
    ]
    lines = ["| `pyverify lean` today (no build) | |", "| --- | --- |"]
    lines.extend(f"| {k} | {v} |" for k, v in rows)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="replace the table in README.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when README.md's table differs")
    args = ap.parse_args(argv)
    current = table()
    if not (args.write or args.check):
        print(current)
        return 0
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"error: {readme}: the markers {BEGIN} / {END} are missing", file=sys.stderr)
        return 2
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    if args.check:
        if old.strip() != current.strip():
            print("README.md's table of the formal side differs from `pyverify lean`; run "
                  "python scripts/lean_formal_table.py --write", file=sys.stderr)
            return 1
        return 0
    readme.write_text(f"{head}{BEGIN}\n{current}\n{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
