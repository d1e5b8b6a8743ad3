"""Severity of refutations (issue 13 §5): recorded in the registry, shown in text and JSON."""

from __future__ import annotations

import json

from pyverify.cli import main
from pyverify.registry import load_registry

TYPO = "ESPR.Prop-plane-block"  # the block is -lambda J in the ordered basis (Re u, Im u): a sign of notation


def test_every_refuted_claim_of_the_registry_carries_a_severity_and_no_other_does():
    reg = load_registry()
    refuted = {c.id for c in reg.claims.values() if c.expect == "refuted"}
    graded = {c.id for c in reg.claims.values() if c.severity is not None}
    assert refuted - graded == set(), "refuted without a severity"
    assert graded - refuted == set(), "a severity on a claim that is not expected refuted"
    assert all(len(reg.claims[i].severity.reason) > 20 for i in graded)


def test_a_typo_level_refutation_reads_as_a_typo(capsys):
    assert main(["check", TYPO, "--budget", "quick", "--format", "json", "--jobs", "1"]) == 0
    row = json.loads(capsys.readouterr().out)["claims"][0]
    assert row["verdict"] == "refuted" and row["witness"] is not None
    assert row["severity"]["level"] == "typo"
    assert main(["check", TYPO, "--budget", "quick", "--jobs", "1"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(TYPO))
    assert "[typo:" in line


def test_a_substantive_refutation_is_not_shown_as_a_typo(capsys):
    assert main(["check", "ESPR.Thm2", "--budget", "quick", "--format", "json", "--jobs", "1"]) == 0
    row = json.loads(capsys.readouterr().out)["claims"][0]
    assert row["verdict"] == "refuted" and row["severity"]["level"] == "substantive"


def test_a_definition_the_code_realises_is_consistent_not_holds():
    """Issue 13 §4: a check of a definition is evidence about the implementation, not the document."""
    from pyverify.engine import run_claim
    from pyverify.registry import Claim

    check = {"given": {"S": "skew(3)"}, "assert": "cayley(S).T @ cayley(S) == I(3)"}
    def claim(kind):
        return Claim.model_validate({"id": "X.1", "title": "t", "document": "d", "locator": "l", "kind": kind,
                                     "statement": "s", "check": check})
    assert run_claim(claim("definition"), {}, budget="quick").verdict.value == "consistent"
    assert run_claim(claim("hypothesis"), {}, budget="quick").verdict.value == "consistent"
    assert run_claim(claim("identity"), {}, budget="quick").verdict.value == "holds"
