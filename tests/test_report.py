"""`pyverify report`: the four files, the per-claim fields of DESIGN.md, and what rests on something false."""

from __future__ import annotations

import json

from pyverify.cli import main

from conftest import claim_yaml

FALSE = "check: {given: {x: 'vec(3, lo=1)'}, assert: 'norm(x) <= 0.5'}\nexpect: refuted\n"
TRUE = "check: {given: {x: 'vec(3)'}, assert: 'norm(x) >= 0'}\nexpect: holds\n"


def test_report_files_and_fields(tmp_path, make_registry, capsys):
    text = ("claims:\n" + claim_yaml("A.1", extra=FALSE) + claim_yaml("A.2", deps="[A.1]", extra=TRUE)
            + claim_yaml("A.3", deps="[A.2]", extra=TRUE) + claim_yaml("A.4", extra=TRUE)
            + claim_yaml("A.1.fixed", deps="[A.1]", extra="corrects: A.1\n" + TRUE))
    root = make_registry({"a.yaml": text})
    out = tmp_path / "rep"
    code = main(["report", "--registry", str(root), "--out", str(out), "--budget", "quick", "--no-progress"])
    assert code == 0
    assert {p.name for p in out.iterdir()} == {"index.html", "report.json", "report.md", "graph.svg", "plots"}
    rep = json.loads((out / "report.json").read_text())
    rows = {c["id"]: c for c in rep["claims"]}
    for row in rows.values():
        assert {"id", "verdict", "expect", "worst", "instances", "elapsed_s", "message", "formal", "deps", "document"} <= set(row)
        assert row["formal"] == "none"
    assert rows["A.1"]["verdict"] == "refuted" and rows["A.1"]["witness"]
    assert rows["A.1"]["corrected_by"] == ["A.1.fixed"]
    assert rows["A.2"]["rests_on_refuted"] == ["A.1"] and rows["A.3"]["rests_on_refuted"] == ["A.1"]
    assert rows["A.4"]["rests_on_refuted"] == []
    assert rep["toolchain"] is None and rep["lean_built"] is False
    md = (out / "report.md").read_text()
    # A.3 rests on A.1 through A.2, but A.1's correction holds: a repaired premise, not an endangered conclusion
    assert "## Refuted (1)" in md and "A.1.fixed (holds)" in md and "None: no claim rests on an unrepaired" in md
    assert rows["A.3"]["standing"] == "repaired-premise" and rows["A.1"]["standing"] == "refuted"
    html = (out / "index.html").read_text()
    assert html.count('class="claim-panel"') == 5 and "not built in this run" in html
    svg = (out / "graph.svg").read_text()
    assert svg.startswith("<svg") and svg.count('class="node"') == 5 and "Legend" in svg


def test_report_exit_1_when_a_verdict_differs(tmp_path, make_registry, capsys):
    text = "claims:\n" + claim_yaml("A.1", extra=FALSE.replace("expect: refuted", "expect: holds"))
    root = make_registry({"a.yaml": text})
    code = main(["report", "--registry", str(root), "--out", str(tmp_path / "r"), "--budget", "quick", "--no-progress"])
    assert code == 1 and "A.1" in capsys.readouterr().out


def test_lean_status_is_never_checked_without_a_build(tmp_path, capsys):
    assert main(["lean", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all(c["formal"] != "checked" for c in data["claims"])
    assert data["built"] is False


def test_lean_index_and_sorry_audit(tmp_path, make_registry):
    from pyverify.provers import lean
    from pyverify.registry import load_registry

    src = tmp_path / "lean"
    src.mkdir()
    (src / "A.lean").write_text(
        "namespace Espr.Tier2\n"
        "/-- T2.9 -/\ntheorem rstr_rel : 1 = 1 := by\n  rfl\n"
        "theorem only_stated : 2 = 2 := by sorry\n"
        "-- a comment mentioning sorry does not count\n"
        "lemma half_done : 3 = 3 := by\n  have h : True := trivial\n  sorry\n"
        "end Espr.Tier2\n")
    decls = {d.name: d for d in lean.index(src)}
    assert set(decls) == {"Espr.Tier2.rstr_rel", "Espr.Tier2.only_stated", "Espr.Tier2.half_done"}
    assert not decls["Espr.Tier2.rstr_rel"].sorry and decls["Espr.Tier2.half_done"].sorry
    text = "claims:\n"
    for cid, name in [("A.1", "Espr.Tier2.rstr_rel"), ("A.2", "Espr.Tier2.only_stated"), ("A.3", "Espr.Tier2.half_done"), ("A.4", "Nope.x")]:
        text += claim_yaml(cid, extra=f"lean: {name}\n")
    reg = load_registry(make_registry({"a.yaml": text}))
    status, mismatches = lean.formal_status(reg, list(decls.values()), built=False)
    assert [status[c]["formal"] for c in ("A.1", "A.2", "A.3", "A.4")] == ["proof-written", "stated", "sorry", "none"]
    assert mismatches and "Nope.x" in mismatches[0]
    status, _ = lean.formal_status(reg, list(decls.values()), built=True)
    assert status["A.1"]["formal"] == "checked" and status["A.3"]["formal"] == "sorry"
