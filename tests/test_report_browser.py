"""index.html in a real browser (headless Chromium driven by Playwright): what a reader does works.

Installs nothing: skips with the reason when Playwright or a Chromium binary is missing (report_browser.py).
Screenshots go to the pytest tmp dir and are copied to ``report-artifacts/``. The report in use (the
whole registry, keyboard, phone, print, one file) is tested in test_report_in_use.py.
"""

from __future__ import annotations

import json

import pytest

from pyverify.cli import main
from pyverify.report import writers

from conftest import claim_yaml
from report_browser import Page, browser, full_report, needs_chromium  # noqa: F401 - fixtures

pytestmark = needs_chromium

FALSE = "check: {given: {x: 'vec(3, lo=1)'}, assert: 'norm(x) <= 0.5'}\nexpect: refuted\n"
TRUE = "check: {given: {x: 'vec(3)'}, assert: 'norm(x) >= 0'}\nexpect: holds\n"


@pytest.fixture
def small_report(tmp_path, make_registry):
    text = ("claims:\n" + claim_yaml("A.1", extra=FALSE) + claim_yaml("A.2", deps="[A.1]", extra=TRUE)
            + claim_yaml("A.3", deps="[A.2, A.1]", extra=TRUE, kind="bound") + claim_yaml("B.1", extra=TRUE.replace("expect: holds", "expect: consistent"), kind="definition")
            + claim_yaml("A.1.fixed", deps="[A.1]", extra="corrects: A.1\n" + TRUE))
    out = tmp_path / "small"
    assert main(["report", "--registry", str(make_registry({"a.yaml": text})), "--out", str(out),
                 "--budget", "quick", "--no-progress", "--jobs", "1"]) == 0
    return out


def test_panel_search_filter_and_edges(browser, small_report, tmp_path):
    page = Page(browser, small_report / "index.html")
    p = page.page
    everything = {"A.1", "A.2", "A.3", "B.1", "A.1.fixed"}
    assert page.shown() == everything
    # the implied edge A.1 -> A.3 is hidden until "all edges" is ticked
    implied = '.view[data-view="all"] .edge.implied[data-from="A.1"][data-to="A.3"]'
    assert not p.is_visible(implied)
    p.check("#all-edges")
    assert p.is_visible(implied)
    # clicking a node opens its panel, with the statement as MathML
    p.click('.view[data-view="all"] .node[data-id="A.2"]')
    panel = '.claim-panel[data-id="A.2"]'
    assert p.is_visible(panel) and p.locator(f"{panel} .statement math").count() >= 1
    assert "pyverify check" in p.inner_text(f"{panel} .reproduce")
    page.screenshot(tmp_path, "report-small-panel.png")
    # a link in the panel opens the premise's panel
    p.click(f'{panel} a.claim-link[data-id="A.1"]')
    assert p.is_visible('.claim-panel[data-id="A.1"]') and not p.is_visible(panel)
    # search by id
    p.fill("#search", "A.1")
    assert page.shown() == {"A.1", "A.1.fixed"}
    p.fill("#search", "")
    assert page.shown() == everything
    # a verdict filter: refuted claims disappear
    p.click("#filters summary")
    p.uncheck('#filters fieldset[data-filter="verdict"] input[value="refuted"]')
    assert page.shown() == everything - {"A.1"}
    p.check('#filters fieldset[data-filter="verdict"] input[value="refuted"]')
    # focus on B.1: it stands alone
    p.click('.view[data-view="all"] .node[data-id="B.1"]')
    p.click('.claim-panel[data-id="B.1"] button.focus')
    assert page.shown() == {"B.1"}
    p.click("#clear-focus")
    assert page.shown() == everything
    assert page.errors == []


def test_implementation_view_lists_the_layer_with_its_backing_claims(browser, small_report, tmp_path):
    """Rendered from the report dict's ``implementation`` field (its documented shape), planted here."""
    report = json.loads((small_report / "report.json").read_text())
    report["implementation"] = [
        {"name": "pyverify.attention.rotations.layer.ESPRAttention", "module": "pyverify.attention.rotations.layer", "kind": "class", "status": "exercised",
         "claims": [{"id": "A.2", "verdict": "holds", "standing": "rests-on-false", "via": "calls"}],
         "guarantees": [{"guarantee": "translation invariance", "claim": "A.2", "verdict": "holds", "standing": "repaired-premise",
                         "false_premises": [{"id": "A.1", "severity": None, "corrected_by": ["A.1.fixed"], "correction_verdict": "holds"}]}]},
        {"name": "pyverify.attention.x.unused_helper", "module": "pyverify.attention.x", "kind": "function", "status": "unverified", "claims": []},
    ]
    writers.write_html(report, small_report / "index.html")
    page = Page(browser, small_report / "index.html")
    row = page.page.locator('#implementation tr[data-name$=".ESPRAttention"]')
    assert "translation invariance" in row.inner_text() and row.locator('a.claim-link[data-id="A.2"]').count() == 2
    assert "unverified" in page.page.locator('#implementation tr[data-name$=".unused_helper"]').inner_text()
    assert page.errors == []


def test_every_claim_of_the_registry_is_a_node(browser, full_report, tmp_path):
    claims = {c["id"] for c in json.loads((full_report / "report.json").read_text())["claims"]}
    page = Page(browser, full_report / "index.html")
    assert page.shown() == claims and len(claims) > 300
    page.page.select_option("#view-select", "espr-derivation")
    page.page.click('.view[data-view="espr-derivation"] .node[data-id="T2.9"]')
    assert page.page.locator('.claim-panel[data-id="T2.9"] .statement math').count() >= 1
    page.screenshot(tmp_path, "report-full-T2.9.png")
    assert page.errors == []


def test_full_report_implementation_view_names_the_layer(browser, full_report):
    report = json.loads((full_report / "report.json").read_text())
    if "implementation" not in report:
        pytest.skip("this report carries no implementation field yet (produced by the report's data side)")
    page = Page(browser, full_report / "index.html")
    row = page.page.locator('#implementation tr[data-name$=".ESPRAttention"]')
    assert row.count() == 1 and row.locator("a.claim-link").count() >= 1
    assert page.errors == []
