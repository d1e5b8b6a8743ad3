"""The report used for real (issue 21), in headless Chromium on the whole registry's report: the graph on
screen, search that navigates, the keyboard, a phone, print, one self-contained file, and figures that
agree with the verdicts. One test per numbered point of the issue (the test names say which), then the
accessibility points and the links. Each was seen failing on the page before the change.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import xml.etree.ElementTree as ET
from io import BytesIO
from pathlib import Path

import pytest

from pyverify.report.markdown import VERDICT_ORDER

from report_browser import DESKTOP, Page, browser, full_report, needs_chromium  # noqa: F401 - fixtures
from report_figures import claim_figure_contradictions, tightness_contradictions

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def report(full_report):
    return json.loads((full_report / "report.json").read_text())


@pytest.fixture(scope="module")
def claims(report):
    return {c["id"]: c for c in report["claims"]}


def _open(browser, full_report, fragment: str = "", viewport: dict | None = None) -> Page:
    return Page(browser, full_report / "index.html", fragment, viewport or DESKTOP)


# JS: every shown node of the current view outside the canvas (ids), after the page settles
OUTSIDE = """() => {
  const view = Array.from(document.querySelectorAll('#canvas .view')).find(v => !v.hidden);
  const box = view.querySelector('svg.graph').getBoundingClientRect();
  return Array.from(view.querySelectorAll('.node:not(.hidden) .outline')).filter(o => {
    const r = o.getBoundingClientRect();
    return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1;
  }).map(o => o.closest('.node').dataset.id);
}"""
# JS: the on-screen width (px) of a node's ring, and where its centre is relative to the canvas (0..1)
NODE_ON_SCREEN = """id => {
  const view = Array.from(document.querySelectorAll('#canvas .view')).find(v => !v.hidden);
  const svg = view.querySelector('svg.graph'), node = view.querySelector(`.node[data-id="${CSS.escape(id)}"]`);
  const outline = node.querySelector('.outline'), style = getComputedStyle(outline);
  const scale = svg.getScreenCTM().a, width = parseFloat(style.strokeWidth);
  const r = outline.getBoundingClientRect(), box = svg.getBoundingClientRect();
  return {ring: style.vectorEffect === 'non-scaling-stroke' ? width : width * scale, hidden: node.classList.contains('hidden'),
          x: (r.left + r.width / 2 - box.left) / box.width, y: (r.top + r.height / 2 - box.top) / box.height};
}"""


# ------------------------------------------------------------------------------------ 1. fit and search

def test_1_fit_fits_every_node_of_the_view_and_search_enter_centres_the_match(browser, full_report):
    page = _open(browser, full_report)
    p = page.page
    p.click("#fit")
    assert p.evaluate(OUTSIDE) == []
    # fit respects a filter (one document) and the focus
    p.click("#filters summary")
    for doc in ("espr-derivation", "espr-paper", "pe-theory"):
        p.uncheck(f'#filters fieldset[data-filter="doc"] input[value="{doc}"]')
    p.click("#fit")
    assert page.shown() and p.evaluate(OUTSIDE) == []
    for doc in ("espr-derivation", "espr-paper", "pe-theory"):
        p.check(f'#filters fieldset[data-filter="doc"] input[value="{doc}"]')
    p.evaluate("window.pyverifyReport.focusOn('T5.2')")
    p.click("#fit")
    assert len(page.shown()) > 3 and p.evaluate(OUTSIDE) == []
    p.click("#clear-focus")
    # typing shows the matches in sight, Enter opens and centres the first (the exact id first)
    p.fill("#search", "S13")
    assert "S13" in page.shown() and p.evaluate(OUTSIDE) == []
    p.press("#search", "Enter")
    assert p.is_visible('.claim-panel[data-id="S13"]')
    at = p.evaluate(NODE_ON_SCREEN, "S13")
    assert abs(at["x"] - 0.5) < 0.05 and abs(at["y"] - 0.5) < 0.05, at
    # Enter again goes to the next match
    p.press("#search", "Enter")
    assert p.evaluate("window.pyverifyReport.selected") == "S13.corrected"
    # the match highlight shows at fit: a ring at least 3 screen pixels wide
    p.click("#fit")
    assert p.evaluate(NODE_ON_SCREEN, "S13")["ring"] >= 3
    assert page.errors == []


# ------------------------------------------------------------------------------------ 2. keyboard

def test_2_keyboard_reaches_the_panel_in_few_tabs_and_escape_closes_it(browser, full_report):
    page = _open(browser, full_report)
    p = page.page
    active = "() => { const a = document.activeElement; return {cls: a.getAttribute('class') || '', id: a.id, " \
             "claim: a.dataset ? a.dataset.id || null : null, inPanel: !!a.closest('#panel'), " \
             "tag: a.tagName, text: (a.textContent || '').trim().slice(0, 40)}; }"
    p.keyboard.press("Tab")
    assert "skip" in p.evaluate(active)["cls"]            # the first stop skips to the graph
    p.keyboard.press("Enter")
    tabs = 0
    while not p.evaluate(active)["cls"].startswith("node") and tabs < 9:
        p.keyboard.press("Tab")
        tabs += 1
    first = p.evaluate(active)
    assert first["cls"].startswith("node"), first            # the graph is one tab stop, reached at once
    # arrows move between claims: right to a conclusion of the claim
    p.keyboard.press("ArrowRight")
    moved = p.evaluate(active)
    assert moved["cls"].startswith("node") and moved["claim"] != first["claim"]
    # Enter opens the claim and centres its node; its focus ring shows
    p.keyboard.press("Enter")
    assert p.is_visible(f'.claim-panel[data-id="{moved["claim"]}"]')
    at = p.evaluate(NODE_ON_SCREEN, moved["claim"])
    assert abs(at["x"] - 0.5) < 0.05 and abs(at["y"] - 0.5) < 0.05 and at["ring"] >= 3, at
    while not p.evaluate(active)["inPanel"] and tabs < 9:
        p.keyboard.press("Tab")
        tabs += 1
    assert p.evaluate(active)["inPanel"] and tabs < 10, tabs
    # the panel has a close button; Escape closes the panel and gives the focus back to the node
    assert p.locator(f'.claim-panel[data-id="{moved["claim"]}"] button.close').count() == 1
    p.keyboard.press("Escape")
    assert not p.is_visible(f'.claim-panel[data-id="{moved["claim"]}"]')
    assert p.evaluate(active)["claim"] == moved["claim"]
    # the focus ring shows at fit too
    p.click("#fit")
    p.focus(f'.view[data-view="all"] .node[data-id="{moved["claim"]}"]')
    assert p.evaluate(NODE_ON_SCREEN, moved["claim"])["ring"] >= 3
    # from the search box the panel is fewer than 10 Tabs away
    p.evaluate("window.pyverifyReport.openPanel('PE.Thm4', {centre: true})")
    p.focus("#search")
    tabs = 0
    while not p.evaluate(active)["inPanel"] and tabs < 10:
        p.keyboard.press("Tab")
        tabs += 1
    assert tabs < 10
    assert page.errors == []


# ------------------------------------------------------------------------------------ 3. phone

def test_3_phone_stacks_graph_and_panel_and_nothing_is_wider_than_the_screen(browser, full_report, tmp_path):
    page = _open(browser, full_report, "#claim=S13", {"width": 390, "height": 844})
    p = page.page
    assert p.evaluate("document.documentElement.scrollWidth") <= 390
    canvas, panel = p.locator("#canvas").bounding_box(), p.locator("#panel").bounding_box()
    assert canvas["width"] >= 340 and panel["width"] >= 340 and panel["y"] >= canvas["y"] + canvas["height"]
    # the implementation table is inside the page too
    assert p.locator("table.impl").bounding_box()["width"] <= 390
    page.screenshot(tmp_path, "report-phone-S13.png")
    assert page.errors == []


# ------------------------------------------------------------------------------------ 4. one file

def test_4_index_html_copied_alone_renders_every_figure_without_errors(browser, full_report, tmp_path):
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(full_report / "index.html", alone / "index.html")
    page = Page(browser, alone / "index.html", viewport=DESKTOP)
    p = page.page
    report = json.loads((full_report / "report.json").read_text())
    with_figures = [c["id"] for c in report["claims"] if c.get("plots")]
    assert p.locator("img").count() >= len(report["plots"]) and len(with_figures) > 20
    # each image decoded, or given up on after 3 s (a lazy image that never loads would wait for ever)
    decode = """() => Promise.all(Array.from(document.images).map(i =>
        Promise.race([i.decode().catch(() => null), new Promise(r => setTimeout(r, 3000))])))"""
    broken = "() => Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt)"
    p.evaluate(decode)
    assert p.evaluate(broken) == []
    for cid in with_figures:   # every claim's figures, as its panel shows them
        p.evaluate("id => window.pyverifyReport.openPanel(id, {})", cid)
        p.evaluate(decode)
        assert p.evaluate(broken) == [], cid
        assert p.locator(f'.claim-panel[data-id="{cid}"] img').count() == len(next(c for c in report["claims"] if c["id"] == cid)["plots"])
    assert all(u.startswith("data:") or u == (alone / "index.html").as_uri() for u in page.requests), page.requests
    assert page.errors == []


# ------------------------------------------------------------------------------------ 5. print

def test_5_print_keeps_the_open_panel_whole_the_lists_open_and_leaves_the_controls_out(browser, full_report, tmp_path):
    pypdf = pytest.importorskip("pypdf", reason="pypdf not installed (pip install pypdf)")
    page = _open(browser, full_report, "#claim=S13")
    pdf = page.page.pdf(format="A4")
    (tmp_path / "S13.pdf").write_bytes(pdf)
    pages = [pg.extract_text() for pg in pypdf.PdfReader(BytesIO(pdf)).pages]
    text = re.sub(r"\s+", " ", " ".join(pages))
    s13 = json.loads((full_report / "report.json").read_text())["claims"]
    s13 = next(c for c in s13 if c["id"] == "S13")
    # the whole panel: severity with its reason, corrections, Lean status
    assert "Severity" in text and s13["severity"]["reason"][:40] in text
    assert "Corrected by S13.corrected" in text
    assert "Formal status" in text and s13["lean"] in text
    # the refuted list is printed open; the toolbar, the zoom buttons and the unreadable graph are not
    assert "Refuted statements" in text and "PE.Lem11" in text
    assert "all edges (not only" not in text and "show only what it rests on" not in text
    assert "dependency graph is not printed" in text
    # the implementation table is a short part of the print
    impl = [i for i, t in enumerate(pages) if "function or class" in t]
    assert impl and len(impl) <= 3 and len(pages) <= 12, (len(pages), impl)
    assert page.errors == []


# ------------------------------------------------------------------------------------ 6. statements

def test_6_every_statement_fits_the_panel_and_shows_no_latex_source(browser, full_report):
    page = _open(browser, full_report)
    p = page.page
    # every claim opened in turn: its statement is measured as the reader sees it
    ids = [c["id"] for c in json.loads((full_report / "report.json").read_text())["claims"]]
    shown = p.evaluate("""ids => ids.map(id => {
      window.pyverifyReport.openPanel(id, {});
      const s = document.querySelector(`.claim-panel[data-id="${CSS.escape(id)}"] .statement`);
      return [id, s.scrollWidth > s.clientWidth + 1, s.textContent, s.querySelectorAll('code.latex').length];
    })""", ids)
    assert [cid for cid, wide, _, _ in shown if wide] == []
    texts = [(cid, text) for cid, _, text, _ in shown]
    assert len(texts) > 300
    assert [cid for cid, t in texts if "\\" in t] == []       # no \Then, \{, \quad ... shown as source
    assert [cid for cid, _, _, unrendered in shown if unrendered] == []
    assert page.errors == []


# ------------------------------------------------------------------------------------ 7. address and history

def test_7_a_claim_address_shows_the_panel_in_sight_and_back_closes_it(browser, full_report):
    page = _open(browser, full_report, "#claim=PE.Thm4")
    p = page.page
    assert p.is_visible('.claim-panel[data-id="PE.Thm4"]')
    top = p.evaluate("document.getElementById('graph-section').getBoundingClientRect().top")
    assert abs(top) < 5
    p.click('.claim-panel[data-id="PE.Thm4"] a.claim-link[data-id="PE.H1"]')
    assert p.is_visible('.claim-panel[data-id="PE.H1"]') and p.url.endswith("#claim=PE.H1")
    p.go_back()
    assert p.is_visible('.claim-panel[data-id="PE.Thm4"]') and not p.is_visible('.claim-panel[data-id="PE.H1"]')
    # opened from the page without an address: Back closes the panel and stays on the report
    plain = _open(browser, full_report)
    q = plain.page
    q.click("#fit")
    q.evaluate("window.pyverifyReport.showView('rgat')")
    q.click('.view[data-view="rgat"] .node[data-id="S13"]')
    assert q.is_visible('.claim-panel[data-id="S13"]') and q.url.endswith("#claim=S13")
    q.go_back()
    assert not q.is_visible('.claim-panel[data-id="S13"]') and q.url == (full_report / "index.html").as_uri()
    assert page.errors == [] and plain.errors == []


# ------------------------------------------------------------------------------------ 8. search

@pytest.mark.parametrize("query, expected", [
    ("Theorem S13", {"S13"}), ("Lemma S12", {"S12"}), ("ESPRAttention", {"T2.9"}),
    ("Cayley", {"T6'.9", "T6'.11", "T8'.8"}), ("rgat BCH", {"RGAT.Def-BCH"})])
def test_8_search_covers_locator_statement_document_and_code_names(browser, full_report, query, expected):
    page = _open(browser, full_report)
    page.page.fill("#search", query)
    assert expected <= page.shown()
    assert page.errors == []


# ------------------------------------------------------------------------------------ 9. per-document views

def test_9_a_document_view_says_which_linked_claims_of_other_documents_it_leaves_out(browser, full_report):
    page = _open(browser, full_report)
    p = page.page
    p.evaluate("window.pyverifyReport.focusOn('T5.2')")
    everything = page.shown()
    p.evaluate("window.pyverifyReport.showView('espr-derivation')")
    here = page.shown("espr-derivation")
    assert here < everything
    note = p.locator("#view-note")
    assert note.is_visible() and f"{len(everything - here)} of the claims linked to T5.2" in note.inner_text()
    linked = set(note.locator("a.claim-link").evaluate_all("as => as.map(a => a.dataset.id)"))
    assert linked == everything - here and {"ESPR.Eq29", "ESPR.Eq30", "ESPR.Eq31"} <= linked
    # without a focus the view still says how many dependencies it does not draw
    p.click("#clear-focus")
    assert re.search(r"\d+ dependencies with claims of other documents are not drawn", note.inner_text())
    assert page.errors == []


# ------------------------------------------------------------------------------------ 10. focus mode

def test_10_focus_zooms_where_the_claims_are_and_follows_the_open_claim(browser, full_report):
    page = _open(browser, full_report)
    p = page.page
    p.evaluate("window.pyverifyReport.openPanel('T5.2', false)")   # opened where it is, not centred
    p.click('.claim-panel[data-id="T5.2"] button.focus')
    focused = page.shown()
    for _ in range(6):
        p.click("#zoom-in")
    # + zooms around the open claim, not into the empty middle of the drawing
    at = [p.evaluate(NODE_ON_SCREEN, cid) for cid in focused]
    assert any(0 <= a["x"] <= 1 and 0 <= a["y"] <= 1 for a in at)
    at = p.evaluate(NODE_ON_SCREEN, "T5.2")
    assert 0 <= at["x"] <= 1 and 0 <= at["y"] <= 1, at
    # opening a claim outside the focused family moves the focus to it: its node is shown
    p.evaluate("window.pyverifyReport.openPanel('PE.Thm4', {centre: true})")
    assert not p.evaluate(NODE_ON_SCREEN, "PE.Thm4")["hidden"] and "PE.Thm4" in page.shown()
    assert page.errors == []


# ------------------------------------------------------------------------------------ 11. summary cards

def test_11_summary_cards_count_every_verdict_in_one_order_and_name_the_premises(browser, full_report, report, claims):
    page = _open(browser, full_report)
    p = page.page
    orders = []
    for doc in report["documents"]:
        card = p.locator(f'.doc[data-doc="{doc}"]')
        bar = card.locator(".bar span").evaluate_all("ss => ss.map(s => s.title.split(': ')).map(([v, n]) => [v, +n])")
        assert sum(n for _, n in bar) == sum(1 for c in report["claims"] if c["document"] == doc)
        badges = card.locator(".counts .badge").evaluate_all("bs => bs.map(b => b.dataset.verdict)")
        assert badges == [v for v, _ in bar]
        orders.append(badges)
        assert card.locator(".endangered-line").inner_text().startswith("Endangered:")
        listed = []
        for item in card.locator(".endangered-list li").all():
            conclusions = item.locator("a.conclusion").evaluate_all("as => as.map(a => a.dataset.id)")
            premises = set(item.locator("a.premise").evaluate_all("as => as.map(a => a.dataset.id)"))
            assert conclusions and all(premises and premises <= {fp["id"] for fp in claims[cid]["false_premises"]}
                                       for cid in conclusions)
            listed += conclusions
        assert listed == report["endangered"][doc]
    assert all(o == [v for v in VERDICT_ORDER if v in o] for o in orders)      # one order for every card
    # every verdict badge has its colour, and the legend uses the verdict words
    unstyled = p.evaluate("""() => Array.from(document.querySelectorAll('.counts .badge')).filter(b =>
        getComputedStyle(b).backgroundColor === 'rgba(0, 0, 0, 0)').map(b => b.dataset.verdict)""")
    assert unstyled == []
    legend = p.locator("#legend").inner_text()
    assert all(v in legend for v in ("refuted", "holds", "consistent", "not-checkable", "vacuous", "symbolic"))
    assert page.errors == []


# ------------------------------------------------------------------------------------ 12. figures against verdicts

def _figure_svgs(page: Page, base: Path, claim_ids: list[str]) -> dict[str, ET.Element]:
    """Every figure of the page as parsed SVG, by its figure name (and claim where it has one): the
    report-wide ones, and each claim's as its panel shows it."""
    found = []
    for cid in [None] + claim_ids:
        if cid:
            page.page.evaluate("id => window.pyverifyReport.openPanel(id, {})", cid)
        found += page.page.evaluate("""() => Array.from(document.querySelectorAll('figure')).map(f => {
            const img = f.querySelector('img'), panel = f.closest('.claim-panel');
            return [(panel ? panel.dataset.id + ':' : '') + (f.dataset.name || f.querySelector('figcaption').textContent),
                    img.getAttribute('src') || ''];
        })""")
    out = {}
    for key, src in found:
        if src.startswith("data:image/svg+xml;base64,"):
            data = base64.b64decode(src.split(",", 1)[1])
        else:
            data = (base / src).read_bytes()
        out[key] = ET.fromstring(data)
    return out


def test_12_no_figure_contradicts_its_claims_verdict(browser, full_report, claims):
    page = _open(browser, full_report)
    figures = _figure_svgs(page, full_report, [cid for cid, c in claims.items() if c.get("plots")])
    problems = tightness_contradictions(figures["tightness"], claims)
    checked = 0
    for key, svg in figures.items():
        cid, _, name = key.rpartition(":")
        if cid and name in ("order", "constants"):
            problems += claim_figure_contradictions(cid, name, svg, claims[cid])
            checked += 1
    assert problems == [] and checked >= 20
    assert page.errors == []


# ------------------------------------------------------------------------------------ 13. implementation view

def test_13_implementation_view_says_what_each_guarantee_means_and_what_is_reached_through_calls(browser, full_report, report):
    page = _open(browser, full_report)
    p = page.page
    layer = next(e for e in report["implementation"] if e["name"].endswith(".ESPRAttention"))
    row = p.locator('#implementation tr[data-name$=".ESPRAttention"]')
    text = row.inner_text()
    assert all(g["meaning"] in text for g in layer["guarantees"])
    assert "through the functions it calls" in text
    assert "FoldedESPRAttention (unverified" in text
    folded = p.locator('#implementation tr[data-name$=".FoldedESPRAttention"]').inner_text()
    assert "unverified" in folded and "ESPRAttention calls it" in folded
    corrections = row.locator("table.guarantees a.claim-link.correction").count()
    assert corrections == sum(len(fp.get("corrected_by", [])) for g in layer["guarantees"] for fp in g["false_premises"]) > 0
    assert page.errors == []


# ------------------------------------------------------------------------------------ 14. refuted list

def test_14_refuted_list_is_open_grouped_rendered_and_linked_and_vacuous_claims_are_listed(browser, full_report, report, claims):
    page = _open(browser, full_report)
    p = page.page
    items = p.locator(".refuted-list li")
    refuted = [c for c in report["claims"] if c["verdict"] == "refuted"]
    assert items.count() == len(refuted) and items.first.is_visible()
    groups = p.evaluate("""() => Array.from(document.querySelectorAll('#refuted h3.group')).map(h =>
        [h.dataset.doc, Array.from(h.nextElementSibling.querySelectorAll('li')).map(li => li.dataset.id)])""")
    for doc, ids in groups:
        assert ids and all(claims[i]["document"] == doc for i in ids)
    titles = p.eval_on_selector_all(".refuted-list .title", "ts => ts.map(t => t.textContent)")
    assert [t for t in titles if "\\" in t or "_{" in t] == []
    assert p.locator(".refuted-list .title math").count() > 0
    corrected = sum(len(c.get("corrected_by") or []) for c in refuted)
    assert p.locator(".refuted-list a.claim-link.correction").count() == corrected > 0
    vacuous = {c["id"] for c in report["claims"] if c["verdict"] == "vacuous"}
    shown = set(p.eval_on_selector_all(".vacuous-list li", "ls => ls.map(l => l.dataset.id)"))
    assert vacuous and shown == vacuous
    assert page.errors == []


# JS: every claim's panel opened with its reading unfolded, and the lists: the LaTeX commands a reader sees
# as source text (inside rendered math too: a command latex2mathml leaves as text), by where they are. A
# `quoted` span of a seed's garbled text is shown as code.verbatim, as printed, and is not counted.
RAW_LATEX = r"""ids => {
  const out = [], raw = /\\(?:[A-Za-z]+|[|{}])/g;
  const look = (where, el) => {
    const c = el.cloneNode(true);
    c.querySelectorAll('pre, code.reproduce, code.verbatim, template, script').forEach(e => e.remove());
    const found = c.textContent.match(raw);
    if (found) out.push([where, found.slice(0, 3)]);
  };
  for (const id of ids) {
    window.pyverifyReport.openPanel(id, {});
    const panel = document.querySelector(`.claim-panel[data-id="${CSS.escape(id)}"]`);
    panel.querySelectorAll('details').forEach(d => { d.open = true; });
    look(id, panel);
  }
  ['#summary', '#refuted', '#implementation'].forEach(s => look(s, document.querySelector(s)));
  return out;
}"""


def test_14_no_claim_text_shows_latex_source_titles_readings_and_notes_included(browser, full_report, claims):
    page = _open(browser, full_report)
    p = page.page
    assert p.evaluate(RAW_LATEX, list(claims)) == []
    # the readings that wrote LaTeX without $ are rendered (formulas in them), not escaped
    bare = [cid for cid, c in claims.items() if c.get("reading") and "$" not in c["reading"] and "\\Pi_act" in c["reading"]]
    assert bare
    for cid in bare:
        p.evaluate("id => window.pyverifyReport.openPanel(id, {})", cid)
        assert p.locator(f'.claim-panel[data-id="{cid}"] .reading math').count() > 0, cid
    assert page.errors == []


# ------------------------------------------------------------------------------------ 15. graph legibility

def test_15_labels_whole_wheel_scrolls_the_page_and_a_full_window_graph_fits(browser, full_report, claims):
    page = _open(browser, full_report)
    p = page.page
    texts = p.eval_on_selector_all('.view[data-view="all"] .node', """ns => ns.map(n => [n.dataset.id,
        Array.from(n.querySelectorAll('text.label tspan')).map(s => s.textContent).join('') || n.querySelector('text.label').textContent])""")
    assert [(i, t) for i, t in texts if t != i] == []          # never cut short
    labels = p.evaluate("""() => { const svg = document.querySelector('.view[data-view="all"] svg.graph');
        return Array.from(svg.querySelectorAll('.node')).map(n => {
          // where the glyphs start and end (a box of text squeezed by textLength is reported unsqueezed)
          const t = n.querySelector('text.label'), mark = n.querySelector('.vmark').getBBox();
          const markRight = mark.x + mark.width + n.querySelector('.vmark').transform.baseVal.consolidate().matrix.e;
          const last = t.getNumberOfChars() - 1;
          const starts = Array.from({length: last + 1}, (_, i) => t.getStartPositionOfChar(i).x);
          const ends = Array.from({length: last + 1}, (_, i) => t.getEndPositionOfChar(i).x);
          return [n.dataset.id, Array.from(t.querySelectorAll('tspan')).map(s => s.textContent).join('') || t.textContent,
                  Math.min(...starts) >= markRight && Math.max(...ends) <= +svg.dataset.nodeW];
        }); }""")
    assert [i for i, _, fits in labels if not fits] == []          # and inside the node, right of its verdict mark
    # the wheel scrolls the page; Ctrl + wheel zooms
    box = p.evaluate("document.querySelector('.view[data-view=\"all\"] svg.graph').getAttribute('viewBox')")
    p.evaluate("document.getElementById('canvas').scrollIntoView({block: 'center'})")
    scrolled = p.evaluate("window.scrollY")
    canvas = p.locator("#canvas").bounding_box()
    p.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + 40)
    p.mouse.wheel(0, 300)
    p.wait_for_function(f"window.scrollY > {scrolled}")
    assert p.evaluate("document.querySelector('.view[data-view=\"all\"] svg.graph').getAttribute('viewBox')") == box
    canvas = p.locator("#canvas").bounding_box()
    p.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + canvas["height"] / 2)
    p.keyboard.down("Control")
    p.mouse.wheel(0, -300)
    p.keyboard.up("Control")
    assert p.evaluate("document.querySelector('.view[data-view=\"all\"] svg.graph').getAttribute('viewBox')") != box
    # a full-window graph whose fit really fits, in every view and after the window is resized
    p.click("#full-window")
    canvas = p.locator("#canvas").bounding_box()
    assert canvas["width"] * canvas["height"] >= 0.5 * DESKTOP["width"] * DESKTOP["height"]
    p.click("#fit")
    assert p.evaluate(OUTSIDE) == []
    p.evaluate("window.pyverifyReport.showView('rgat')")
    assert p.evaluate(OUTSIDE) == []
    p.evaluate("window.pyverifyReport.showView('all')")
    before = p.locator("#canvas").bounding_box()["width"]
    p.set_viewport_size({"width": 1920, "height": 1080})
    p.wait_for_function(f"() => document.getElementById('canvas').getBoundingClientRect().width > {before + 200}")
    p.wait_for_timeout(200)   # the resize observer refits on the next frame
    assert p.evaluate(OUTSIDE) == []
    # at fit the labels are too small to read: the node under the pointer, and the focused one, say their
    # whole id, their title rendered and their verdict in page-sized text inside the window
    label_px = p.evaluate("""() => { const svg = document.querySelector('.view[data-view="all"] svg.graph');
        return 11 * svg.getScreenCTM().a; }""")
    assert label_px < 9, label_px      # (else the labels themselves would be legible)
    tip = p.locator("#node-tip")
    for cid, how in (("RGAT.Def-injrad.corrected", "hover"), ("ESPR.Prop-active-block-near-identity", "hover"), ("T5.2", "focus")):
        node = p.locator(f'.view[data-view="all"] .node[data-id="{cid}"]')
        node.hover() if how == "hover" else node.focus()
        assert tip.is_visible(), cid
        said = tip.inner_text()
        assert said.startswith(cid) and claims[cid]["verdict"] in said, said
        size = p.evaluate("() => parseFloat(getComputedStyle(document.getElementById('node-tip')).fontSize)")
        box = tip.bounding_box()
        assert size >= 12 and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= 1920 and box["y"] + box["height"] <= 1080
        assert "\\" not in said
        if "\\" in (claims[cid].get("title") or ""):
            assert tip.locator("math").count() > 0, cid
    p.mouse.move(5, 5)
    p.keyboard.press("Escape")
    assert not p.evaluate("document.body.classList.contains('full-window')")
    assert page.errors == []


# ------------------------------------------------------------------------------------ accessibility and links

def _luminance(rgb: str) -> float:
    vals = [int(v) / 255 for v in re.findall(r"\d+", rgb)[:3]]
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in vals]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_accessibility_alt_text_contrast_marks_labels_and_glyphs(browser, full_report, claims):
    page = _open(browser, full_report)
    p = page.page
    alts = p.evaluate("""() => Array.from(document.images).concat(Array.from(document.querySelectorAll('template'))
        .flatMap(t => Array.from(t.content.querySelectorAll('img')))).map(i => i.alt)""")
    assert alts and all(len(a.split()) >= 6 for a in alts), [a for a in alts if len(a.split()) < 6][:5]
    # verdict badges: text at least 4.5:1 on the fill
    pairs = p.eval_on_selector_all(".badge", "bs => bs.map(b => [b.className, getComputedStyle(b).color, getComputedStyle(b).backgroundColor])")
    low = {}
    for cls, fg, bg in pairs:
        if "rgba(0, 0, 0, 0)" in bg:
            continue
        a, b = sorted((_luminance(fg), _luminance(bg)))
        if (b + 0.05) / (a + 0.05) < 4.5:
            low[cls] = (b + 0.05) / (a + 0.05)
    assert low == {}
    # every verdict has a mark that is not a colour, one mark per verdict
    marks = p.eval_on_selector_all('.view[data-view="all"] .node', """ns => ns.map(n => { const m = n.querySelector('.vmark');
        return [n.dataset.verdict, m ? m.dataset.mark : null, m ? m.querySelector('path').getAttribute('d') : null]; })""")
    assert all(v == m for v, m, _ in marks)
    shapes = {v: d for v, _, d in marks}
    assert len(set(shapes.values())) == len(shapes)
    # the graph has a heading and the search box a label
    assert p.locator("#graph-section > .graph-head > h2").count() == 1 and p.evaluate("document.getElementById('search').labels.length") >= 1
    # no character of a statement renders as an empty box: each draws differently from a missing glyph
    tofu = p.evaluate("""() => {
      const chars = new Set();
      document.querySelectorAll('template').forEach(t => t.content.querySelectorAll('.statement math')
        .forEach(m => { for (const ch of m.textContent) chars.add(ch); }));
      document.querySelectorAll('.claim-panel .statement math').forEach(m => { for (const ch of m.textContent) chars.add(ch); });
      const c = document.createElement('canvas'); c.width = 40; c.height = 40;
      const ctx = c.getContext('2d', {willReadFrequently: true});
      window.pyverifyReport.openPanel('S13', {});
      const font = getComputedStyle(document.querySelector('.statement math')).fontFamily;
      const draw = ch => { ctx.clearRect(0, 0, 40, 40); ctx.font = `24px ${font}`; ctx.fillText(ch, 4, 30);
                           return ctx.getImageData(0, 0, 40, 40).data.join(''); };
      const missing = draw('\\u{10FFFD}');
      return Array.from(chars).filter(ch => ch.trim() && draw(ch) === missing);
    }""")
    assert tofu == []
    # the page words the order estimate as the CLI does (the engine's message)
    message = claims["S13"]["message"]
    measured = re.search(r"measured order (.+?\)) vs", message).group(1)
    assert measured in p.locator('.claim-panel[data-id="S13"] .evidence').inner_text()
    assert page.errors == []


def test_locator_registry_file_and_lean_file_are_links_from_the_page(browser, full_report, claims):
    page = _open(browser, full_report, "#claim=S13")
    p = page.page
    panel = '.claim-panel[data-id="S13"]'
    base = full_report
    links = p.evaluate(f"""() => Object.fromEntries(['registry', 'lean'].map(k =>
        [k, (document.querySelector('{panel} a.' + k + '-link') || {{getAttribute: () => null}}).getAttribute('href')]))""")
    registry, lean = links["registry"], links["lean"]
    assert registry and lean, links
    assert (base / registry).resolve() == (Path(__file__).resolve().parent.parent / claims["S13"]["file"])
    assert (base / lean).resolve().is_file() and lean.endswith(claims["S13"]["lean_file"])
    document = p.locator(f"{panel} a.doc-link")
    if document.count():   # the source documents are beside the project only where ../shared/seeds exists
        href = document.get_attribute("href")
        assert (base / href.split("#")[0]).resolve().is_file() and "Theorem%20S13" in href
    assert page.errors == []
