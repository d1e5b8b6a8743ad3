"""The report's data (report/model.py and its helpers): standing and endangerment, exercised code,
evidence sentences, --compare, the JSON Schema, atomic writes. Each mechanism is shown failing on a
planted error as well as passing."""

from __future__ import annotations

import json
import os

import jsonschema
import pytest

from pyverify.atomic import write_text_atomic
from pyverify.cli import main
from pyverify.registry import load_registry
from pyverify.registry.models import Check
from pyverify import analysis, contributions
from pyverify.engine.evidence import (ConstantEstimate, ConstantOfRelation, Counterexample, Inconclusive,
                                      MonteCarloAgreement, OrderEstimate, OrderRefutation, RelationAtWitness, Tightness)
from pyverify.engine.result import Result
from pyverify.registry import Severity, Verdict
from pyverify.report import compare, coverage, evidence, schema

from conftest import DOC, REPO, claim_yaml, compiled_claim

FALSE = "check: {given: {x: 'vec(3, lo=1)'}, assert: 'norm(x) <= 0.5'}\nexpect: refuted\n"
TRUE = "check: {given: {x: 'vec(3)'}, assert: 'norm(x) >= 0'}\nexpect: holds\n"
BOUND = "check: {given: {x: 'vec(3)'}, assert: 'norm(x) <= 2 * norm(x) + 1'}\nexpect: holds\n"
STRESS = "check: {given: {P: 'mat(3, 2)'}, assert: 'stress(P, pairwise_distances(P)) >= 0'}\nexpect: holds\n"
ORDER = ("check: {given: {x: 'vec(3, lo=1)'}, assert: 'norm(x) * eps ** 2', relation: order, dims: {eps: 0.1},\n"
         "        order: {param: eps, values: [0.1, 0.01, 0.001], claimed: 2}}\nexpect: holds\n")


def _registry(make_registry, claims: list[str], severity: dict[str, str] | None = None):
    """A registry from YAML, with the ``severity`` of some claims planted."""
    reg = load_registry(make_registry({"a.yaml": "claims:\n" + "".join(claims)}))
    for cid, level in (severity or {}).items():
        reg.claims[cid] = reg.claims[cid].model_copy(update={"severity": Severity(level=level, reason="planted")})
    return reg


# ------------------------------------------------------------------------------------ standing

def test_standing_repaired_unrepaired_and_typo(make_registry):
    reg = _registry(make_registry, [
        claim_yaml("P"), claim_yaml("P.fixed", deps="[P]", extra="corrects: P\n"), claim_yaml("A", deps="[P]"),
        claim_yaml("Q"), claim_yaml("B", deps="[Q]"), claim_yaml("B2", deps="[B]"),
        claim_yaml("T"), claim_yaml("C", deps="[T]"), claim_yaml("D", deps="[A]"), claim_yaml("N", deps="[P]"),
    ], severity={"T": "typo"})
    verdicts = {"P": "refuted", "P.fixed": "holds", "A": "holds", "Q": "refuted", "B": "holds", "B2": "symbolic",
                "T": "refuted", "C": "holds", "D": "holds", "N": "not-checkable"}
    st = analysis.standings(reg, verdicts)
    assert st["A"].standing == "repaired-premise"
    assert st["A"].false_premises == [{"id": "P", "severity": None, "corrected_by": ["P.fixed"], "correction_verdict": "holds"}]
    assert st["D"].standing == "repaired-premise"  # through A, transitively
    assert st["P.fixed"].standing == "sound"  # a correction does not rest on what it replaces
    assert st["B"].standing == "rests-on-false" and st["B2"].standing == "rests-on-false"
    assert st["C"].standing == "rests-on-typo"
    assert st["P"].standing == "refuted" and st["N"].standing == "not-decided"
    assert analysis.endangered(reg, st) == {"doc": ["B", "B2"]}


def test_standing_fails_when_the_correction_fails(make_registry):
    """Planted: the correction itself is refuted -> nothing is repaired, the dependent is endangered."""
    reg = _registry(make_registry, [claim_yaml("P"), claim_yaml("P.fixed", extra="corrects: P\n"),
                                    claim_yaml("A", deps="[P]")])
    st = analysis.standings(reg, {"P": "refuted", "P.fixed": "refuted", "A": "holds"})
    assert st["A"].standing == "rests-on-false"
    assert st["A"].false_premises[0]["correction_verdict"] == "refuted"
    substantive = _registry(make_registry, [claim_yaml("P"), claim_yaml("A", deps="[P]")], severity={"P": "substantive"})
    assert analysis.standings(substantive, {"P": "refuted", "A": "holds"})["A"].standing == "rests-on-false"


def test_dependents_and_transitive_reduction(make_registry):
    reg = _registry(make_registry, [claim_yaml("A"), claim_yaml("B", deps="[A]"), claim_yaml("C", deps="[A, B]")])
    assert analysis.dependents(reg) == {"A": ["B", "C"], "B": ["C"], "C": []}
    assert analysis.reduced_deps(reg)["C"] == ["B"]  # A is implied through B


# ------------------------------------------------------------------------------------ exercises

def test_a_check_calling_R_str_exercises_rstr():
    check = compiled_claim({"given": {"g": "commuting_skew(4, 2)", "r": "vec(2)"},
                            "assert": "norm(R_str(g.L, r)) >= 0"})
    assert check.calls == ("norm", "R_str")
    assert "pyverify.attention.rotations.core.rstr" in coverage.exercises(check)


def test_exercises_follow_lambdas_and_skip_sampler_names():
    check = compiled_claim({"given": {"mu": "simplex(4)"}, "where": {"H": "hellinger(mu)"}, "assert": "norm(H) >= 0"})
    assert coverage.exercises(check)[:1] == ["pyverify.attention.positional.hellinger"]
    plain = compiled_claim({"given": {"x": "vec(3)"}, "assert": "norm(x) >= 0"})
    assert coverage.exercises(plain) == []  # the planted negative: no mechanism is called


def test_implementation_lists_backing_claims_and_unverified_functions(monkeypatch):
    rows = {"X": {"id": "X", "verdict": "holds", "standing": "sound",
                  "exercises": ["pyverify.attention.rotations.core.cayley"]},
            "G": {"id": "G", "verdict": "refuted", "standing": "refuted", "false_premises": []}}
    layer = "pyverify.attention.rotations.layer.ESPRAttention"
    monkeypatch.setitem(contributions.GUARANTEES, layer, contributions.Guarantees(layer, {"relative-law": "G"}, {}, "test"))
    entries = {e["name"]: e for e in coverage.implementation(rows)}
    assert entries["pyverify.attention.rotations.core.cayley"]["claims"] == [{"id": "X", "verdict": "holds", "standing": "sound"}]
    assert entries[layer]["status"] == "exercised" and entries[layer]["claims"][0]["via"] == "calls"
    assert "pyverify.attention.rotations.core.cayley" in entries[layer]["calls"]
    assert entries[layer]["guarantees"] == [{"guarantee": "relative-law", "meaning": "relative-law", "claim": "G",
                                             "verdict": "refuted", "standing": "refuted", "false_premises": []}]
    assert entries["pyverify.attention.rotations.core.rope"]["status"] == "unverified"


# ------------------------------------------------------------------------------------ evidence

def _result(verdict: str, *evidence, worst=None, instances=0, message="") -> Result:
    return Result("A.1", Verdict(verdict), None, worst, instances, 0.0, message, tuple(evidence))


def _counterexample(values, relations, certificate, dims=None) -> Counterexample:
    return Counterexample(0, dims or {}, values, tuple(RelationAtWitness(*r) for r in relations), certificate, params={})


def test_counterexample_evidence_gives_both_sides_and_the_gap():
    check = Check.model_validate({"given": {"S": "skew(2)"}, "assert": "S @ S.T == I(2)"})
    refuted = _result("refuted", _counterexample(
        {"S": [[0.0, -0.5], [0.5, 0.0]]},
        [("S @ S.T == I(2)", "==", [[0.25, 0.0], [0.0, 0.25]], [[1.0, 0.0], [0.0, 1.0]], 0.75)],
        {"status": "certified", "margin_lower": 0.75, "precision_bits": 200}, dims={"n": 2}))
    text = evidence.evidence_sentences(refuted, compiled_claim(check))
    assert text[0] == "Counterexample with n = 2 at S = [[0, -0.5], [0.5, 0]]."
    assert text[1].startswith("‖S @ S.T − I(2)‖ = 1.061 where the claim says 0 (relative error 0.75)")
    assert "S @ S.T = [[0.25, 0], [0, 0.25]] and I(2) = [[1, 0], [0, 1]]" in text[1]
    assert "certifies the violation" in text[2]
    assert not any("violation score" in s for s in text)


def test_counterexample_evidence_says_when_60_digits_confirmed_it():
    check = Check.model_validate({"given": {"S": "sym(2)"}, "assert": "total(eigvalsh(S)) == tr(S) * 1.01"})
    refuted = _result("refuted", _counterexample({"S": [[1.0, 0.0], [0.0, 1.0]]}, [("r", "==", 2.0, 2.02, 0.0099)], {
        "status": "unsupported: function eigvalsh", "precise": {"status": "confirmed", "score": 4.2e10, "digits": 60}}))
    text = evidence.evidence_sentences(refuted, compiled_claim(check))
    assert "confirmed in 60-digit arithmetic" in text[-1] and "eigvalsh" in text[-1]


def test_evidence_reports_only_the_relations_that_fail():
    refuted = _result("refuted", _counterexample({}, [("a == a", "==", 1.0, 1.0, 1e-17),
                                                      ("a * 3 <= a * 2", "<=", 3.0, 2.0, 1.0)], {}))
    check = Check.model_validate({"given": {"a": "scalar()"}, "assert": "a == a and a * 3 <= a * 2"})
    text = evidence.evidence_sentences(refuted, compiled_claim(check))
    assert len(text) == 2 and text[1].startswith("a * 3 exceeds what the claim allows (<= a * 2) by 1")


def test_order_constant_and_holds_evidence():
    order = OrderEstimate(2.0, "eps", (0.1, 0.01), "zero", 0.95, 0.98, 1.0, 33.2, measured_worst=0.95)
    refuted = _result("refuted", order, OrderRefutation(0, "eps", (0.1, 0.01), (0.95,), [[1e-3, 1e-4]]))
    text = evidence.evidence_sentences(refuted)
    # worded as the CLI words it (the engine's message): the worst instance's order first
    assert text[0].startswith("Measured order 0.950 at the worst instance (median 0.980, range 0.950 to 1.000) as eps → 0, "
                              "where the claim says 2")
    assert text[1] == "Error of one instance: 0.001 at eps = 0.1, 0.0001 at eps = 0.01."
    const = _result("holds", ConstantEstimate((ConstantOfRelation("a <= c", 0.73, (({"n": 2}, 0.7),), 0.01),)))
    assert evidence.evidence_sentences(const)[0].startswith("Smallest constant 0.73 for `a <= c` along the sweep (0.7 at n = 2)")
    check = Check.model_validate({"given": {"x": "vec(3)"}, "assert": "x == x"})
    holds = _result("holds", Tightness(None), worst=3e-16, instances=4096)
    assert evidence.evidence_sentences(holds, compiled_claim(check)) == [
        "Worst relative error 3e-16 over 4096 instances (random, degenerate and adversarial)."]


def test_an_inconclusive_test_is_told_apart_from_a_claim_nothing_decides():
    message = "inconclusive: the sample size could detect only effects >= 2 times the claimed value"
    weak = _result("not-checkable", MonteCarloAgreement(0.5, 4.0, 3, 2.0), Inconclusive(2.0, "more `samples`"),
                   message=message)
    assert evidence.evidence_sentences(weak) == ["Inconclusive: the sample size could detect only effects >= 2 times "
                                                 "the claimed value"]
    undecidable = _result("not-checkable", message="a measure-theoretic setup")
    assert evidence.evidence_sentences(undecidable) == ["Not checkable: a measure-theoretic setup"]


# ------------------------------------------------------------------------------------ compare

def _report(verdicts: dict[str, str], standings: dict[str, str]) -> dict:
    return {"meta": {"git_commit": "abc", "budget": "quick", "seed": 0},
            "claims": [{"id": i, "verdict": v, "standing": standings.get(i)} for i, v in verdicts.items()]}


def test_compare_lists_verdict_and_standing_changes():
    old = _report({"A": "holds", "B": "refuted", "C": "holds", "D": "holds"}, {"C": "sound", "D": "sound"})
    new = _report({"A": "refuted", "B": "holds", "C": "holds", "E": "refuted"}, {"C": "rests-on-false"})
    diff = compare.compare(old, new)
    assert diff["verdicts"] == [{"id": "A", "old": "holds", "new": "refuted"}, {"id": "B", "old": "refuted", "new": "holds"}]
    assert diff["new_refutations"] == ["A", "E"] and diff["withdrawn_refutations"] == ["B"]
    assert diff["standings"][-1] == {"id": "C", "old": "sound", "new": "rests-on-false"}
    assert diff["added"] == ["E"] and diff["removed"] == ["D"] and diff["changed"]
    text = compare.as_text(diff)
    assert "new refutations: A, E" in text and "standing C: sound -> rests-on-false" in text
    assert "| A | verdict | holds | refuted |" in compare.as_markdown(diff)
    assert not compare.compare(old, old)["changed"]


def test_compare_names_an_unreadable_old_report(tmp_path, capsys):
    bad = tmp_path / "old.json"
    bad.write_text("{not json")
    assert main(["report", "--compare", str(bad), "--out", str(tmp_path / "r")]) == 2
    assert f"{bad}:1: not JSON" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ the whole report

@pytest.fixture(scope="module")
def produced(tmp_path_factory):
    """One small report, produced twice: the second run compares with the first (a claim was fixed)."""
    base = tmp_path_factory.mktemp("report")
    root = base / "claims"
    root.mkdir()
    (root / "documents.yaml").write_text(DOC)
    claims = [claim_yaml("A.1", extra=FALSE), claim_yaml("A.2", deps="[A.1]", extra=TRUE), claim_yaml("A.3", extra=ORDER),
              claim_yaml("A.4", extra=BOUND, kind="bound"), claim_yaml("A.5", extra=STRESS)]
    (root / "a.yaml").write_text("claims:\n" + "".join(claims))
    first = base / "first"
    assert main(["report", "--registry", str(root), "--out", str(first), "--budget", "quick", "--no-progress"]) == 0
    (root / "a.yaml").write_text("claims:\n" + "".join(claims) + claim_yaml("A.1.fixed", extra="corrects: A.1\n" + TRUE))
    second = base / "second"
    code = main(["report", "--registry", str(root), "--out", str(second), "--budget", "quick", "--no-progress",
                 "--compare", str(first / "report.json")])
    assert code == 0
    return first, second


def test_report_fields_plots_and_meta(produced):
    _, second = produced
    rep = json.loads((second / "report.json").read_text())
    rows = {c["id"]: c for c in rep["claims"]}
    assert rows["A.2"]["standing"] == "repaired-premise" and rows["A.1"]["corrected_by"] == ["A.1.fixed"]
    assert rows["A.1"]["reproduce"] == "pyverify check A.1 --seed 0 --budget quick"
    assert rows["A.1"]["evidence"][0].startswith("Counterexample")
    assert set(rows["A.3"]["plots"]) == {"order"} and (second / rows["A.3"]["plots"]["order"]).read_text().startswith("<?xml")
    assert {"tightness", "positional-stress"} <= set(rep["plots"])
    # a contributed figure is drawn only for a registry whose checks run its subject (none runs the features)
    assert "random-feature-variance" not in rep["plots"]
    # a report-wide figure goes with the claims whose checks run its subject, and only with those
    assert rows["A.5"]["plots"] == {"positional-stress": rep["plots"]["positional-stress"]} and rows["A.1"]["plots"] == {}
    assert rep["meta"]["versions"]["torch"] and rep["meta"]["budget"] == "quick"
    assert any(e["name"].endswith("ESPRAttention") and e["guarantees"] for e in rep["implementation"])


def test_compare_in_report_md(produced):
    _, second = produced
    rep = json.loads((second / "report.json").read_text())
    assert rep["changes"]["added"] == ["A.1.fixed"]
    assert rep["changes"]["standings"] == [{"id": "A.2", "old": "rests-on-false", "new": "repaired-premise"}]
    assert "## Changes since" in (second / "report.md").read_text()


def test_schema_is_current_and_validates_the_report(produced):
    committed = (REPO / schema.SCHEMA_PATH).read_text()
    assert committed == schema.schema_text(), "regenerate: python -m pyverify.report.schema > docs/report.schema.json"
    validator = jsonschema.Draft202012Validator(json.loads(committed))
    for folder in produced:
        validator.validate(json.loads((folder / "report.json").read_text()))
    broken = json.loads((produced[1] / "report.json").read_text())
    broken["claims"][0]["standing"] = "fine"  # planted: a standing outside the vocabulary
    del broken["claims"][1]["evidence"]  # planted: a field the page relies on is missing
    errors = {e.validator for e in validator.iter_errors(broken)}
    assert errors == {"enum", "required"}


# ------------------------------------------------------------------------------------ atomic writes

def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    write_text_atomic(target, "old")
    assert target.read_text() == "old" and oct(target.stat().st_mode & 0o777) == "0o644"

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_text_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left behind
