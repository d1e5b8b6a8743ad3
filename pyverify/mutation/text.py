"""The mutation pass as text: the flagged claims with their surviving mutants, then the numbers."""

from __future__ import annotations

from typing import TextIO

from .run import MutationReport


def print_report(report: MutationReport, out: TextIO) -> None:
    for c in report.claims:
        if c.skipped:
            continue
        flags = f"  [{'; '.join(c.flags)}]" if c.flags else ""
        print(f"{c.id:<40} {c.count('killed')}/{len(c.mutants)} killed "
              f"({c.count('undecided')} undecided, {c.available} admitted){flags}", file=out)
        if c.flags:
            for m in c.mutants:
                if m.outcome == "survived":
                    print(f"    survives  {m.operator:<10} {m.site}: {m.change}", file=out)
            print(f"    {'recorded reason: ' + c.reason if c.reason else 'no reason recorded (mutation: {survives: ...})'}",
                  file=out)
    s = report.summary()
    rate = f"{s['kill_rate']:.1%}" if s["kill_rate"] is not None else "n/a"
    print(f"{s['claims']} claims, {s['claims_mutated']} mutated at {report.budget} (at most {report.cap} mutants each): "
          f"{s['mutants']} mutants, {s['killed']} killed, {s['survived']} survived, {s['undecided']} undecided "
          f"(kill rate {rate})", file=out)
    print(f"cannot fail: {len(s['cannot_fail'])} ({', '.join(s['cannot_fail']) or '-'})", file=out)
    print(f"content untested: {len(s['content_untested'])} ({', '.join(s['content_untested']) or '-'})", file=out)
    print(f"exponent untested: {len(s['exponent_untested'])} ({', '.join(s['exponent_untested']) or '-'})", file=out)
    print(f"hypotheses unused: {len(s['hypotheses_unused'])} ({', '.join(s['hypotheses_unused']) or '-'})", file=out)
    print(f"flagged without a recorded reason: {len(s['unexplained'])}", file=out)
