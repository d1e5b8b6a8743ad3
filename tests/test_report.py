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


def test_lean_status_is_never_checked_without_a_build(tmp_path, make_registry, capsys):
    # (the index, sorry audit and mismatches are tested in test_lean_audit.py)
    lean = tmp_path / "lean"
    lean.mkdir()
    (lean / "A.lean").write_text("namespace N\ntheorem proved : 1 = 1 := by\n  rfl\nend N\n")
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("A.1", extra="lean: N.proved\n")})
    main(["lean", "--registry", str(root), "--lean-dir", str(lean), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert [c["formal"] for c in data["claims"]] == ["proof-written"]
    assert data["built"] is False
