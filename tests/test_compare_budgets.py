"""scripts/compare_budgets.py, the measurement behind "more search never turns a true claim false", can fail."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO

SCRIPT = REPO / "scripts" / "compare_budgets.py"


def _run(tmp_path, higher_claim: dict) -> subprocess.CompletedProcess:
    lower = {"claims": [{"id": "X.1", "verdict": "holds"}]}
    higher = {"claims": [{"id": "X.1", **higher_claim}]}
    (tmp_path / "a.json").write_text(json.dumps(lower))
    (tmp_path / "b.json").write_text(json.dumps(higher))
    return subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "a.json"), str(tmp_path / "b.json")],
                          capture_output=True, text=True, timeout=60)


def test_an_unbacked_refutation_near_the_tolerance_fails_the_comparison(tmp_path):
    out = _run(tmp_path, {"verdict": "refuted", "message": "counterexample: violation score 3.2 (> 1 means ...)",
                          "witness": {"certificate": {"status": "unsupported: function mds",
                                                      "precise": {"status": "unsupported: x"}}}})
    assert out.returncode == 1 and "NOT backed" in out.stdout


def test_a_certified_or_confirmed_refutation_passes(tmp_path):
    for cert in ({"status": "certified"}, {"status": "inconclusive: x", "precise": {"status": "confirmed"}}):
        out = _run(tmp_path, {"verdict": "refuted", "message": "violation score 3.2",
                              "witness": {"certificate": cert}})
        assert out.returncode == 0, out.stdout
