"""The text form of a Lean audit (the JSON form is ``LeanAudit.as_dict``)."""

from __future__ import annotations

from collections import Counter

from .audit import LeanAudit


def print_audit(audit: LeanAudit, sources_only: bool = False) -> None:
    decls = audit.index.declarations
    print(f"Lean toolchain: {audit.toolchain or 'none installed (no proof can be checked here)'}")
    if audit.build.ran:
        print(f"lake build: {'passed' if audit.build.passed else 'FAILED'}")
        for e in audit.build.errors:
            print(f"  error: {e['file']}:{e['line']}:{e['col']} [{e['declaration'] or '-'}] {e['message']}")
        if not audit.build.passed and not audit.build.errors:
            print(audit.build.log)
    elif audit.build.log != "not requested":
        print(f"lake build not run: {audit.build.log}")
    print(f"{len(decls)} declarations, {sum(d.sorry for d in decls)} using sorry/admit "
          f"({sum(d.only_sorry for d in decls)} only sorry), {sum(d.axiom for d in decls)} axioms")
    for d in decls:
        if d.sorry or d.axiom:
            print(f"  {'axiom' if d.axiom else 'sorry'}: {d.file}:{d.line} {d.name}")
    for p in audit.input_problems:
        print(f"  input: {p}")
    if not sources_only:
        linked = [c for c in audit.claims if c["lean"]]
        print(f"{len(linked)} claims linked to Lean declarations")
        for c in linked:
            via = f" (sorry via {c['sorry_via']})" if c["formal"] == "sorry" and c["sorry_via"] else ""
            print(f"  {c['id']:<22} {c['formal']:<14} {c['lean']}{via}")
        cov = audit.coverage
        print(f"coverage of the {cov['claims_with_content']} claims with content whose documents expect a Lean statement: "
              f"{cov['stated']} stated, {cov['proved']} with a proof ({cov['checked']} checked), "
              f"{cov['sorry']} sorry or only stated; {len(audit.skipped)} skipped by the mapping")
        for p in audit.mapping_problems:
            print(f"  mapping: {p}")
        for p in audit.notes:
            print(f"  note: {p}")
    for f in audit.findings:
        where = f" ({f.file}:{f.line})" if f.file else ""
        print(f"  {f.kind}: [{f.claim or f.declaration}] {f.message}{where}")
    if audit.decisions:
        counts = Counter(d["verdict"] for d in audit.decisions)
        print(f"hypotheses of {len(audit.decisions)} statements on real data, decided exactly: "
              + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
              + (" (--format json gives each statement's decision and reason)" if counts["cannot-decide"] else ""))
    if audit.unknown_names:
        print(f"{len(audit.unknown_names)} external names not in the lean/mathlib-names lists")
        for n in audit.unknown_names:
            print(f"  name: {n['name']} ({n['file']}:{n['line']})")
