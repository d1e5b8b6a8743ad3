"""What ``pyverify check`` does differently when the user's code is bound to roles (``--bind``): which
claims run (those exercising a bound role), what a verdict is measured against, and the per-function
summary it prints."""

from __future__ import annotations

from .registry import Verdict


def meets_expectation(bound: bool):
    """A verdict as the registry expects; bound to the user's code, a claim the reference has a proof of
    (symbolic, Lean) can only hold on that code: the proof is of the reference's formula."""
    proofs = (Verdict.symbolic, Verdict.proved)

    def meets(r) -> bool:
        return r.matches or (bound and r.expect in proofs and r.verdict is Verdict.holds)

    return meets


def bound_selection(reg, ids) -> dict | None:
    """With bindings active: the claims to run (those exercising a bound role, among ``ids`` if given),
    which roles each exercises, and the claims left out as not affected; None without bindings."""
    from .checks.roles import ACTIVE, exercised
    from .engine.runner import UnknownClaims

    if not ACTIVE:
        return None
    unknown = [i for i in ids if i not in reg.claims]
    if unknown:
        raise UnknownClaims(unknown)
    chosen = list(ids) or list(reg.claims)
    touched = exercised({cid: reg.compiled[cid] for cid in chosen if cid in reg.compiled})
    return {"run": [cid for cid in chosen if cid in touched], "exercised": touched,
            "not_affected": [cid for cid in chosen if cid not in touched],
            "bindings": [b.describe() for b in ACTIVE.values()]}


def print_bindings(summary: list[dict], not_affected: list[str]) -> None:
    for b in summary:
        conv = ", ".join(f"{k}={v}" for k, v in b["conventions"].items()) or "the reference's conventions"
        print(f"\n{b['target']} bound as {b['role']} ({conv}; precision {b['precision']}"
              + (f"; layout {b['layout']}" if b["layout"] else "")
              + (f"; decay {b['decay']}, divided out" if b.get("decay") else "") + f"; from {b['declared_in']})")
        print(f"  satisfies {len(b['satisfied'])} claim(s)" + (f": {', '.join(b['satisfied'])}" if b["satisfied"] else ""))
        print(f"  VIOLATES {len(b['violated'])} claim(s): {', '.join(b['violated'])}" if b["violated"]
              else "  violates no claim")
        if b["refuted_as_expected"]:
            print(f"  refuted as the registry expects (the document's own error, as for the reference): "
                  f"{', '.join(b['refuted_as_expected'])}")
        if b["undecided"]:
            print("  undecided: " + ", ".join(f"{u['id']} ({u['verdict']})" for u in b["undecided"]))
        if not (b["satisfied"] or b["violated"] or b["refuted_as_expected"] or b["undecided"]):
            print("  no selected claim exercises this role")
    print(f"{len(not_affected)} claim(s) exercise no bound role: not affected, not run")
