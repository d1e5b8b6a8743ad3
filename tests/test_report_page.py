"""The report page's parts that need no browser: layout, MathML, the SVG grammar, report.md."""

from __future__ import annotations

import html as html_text
import re

import pytest

from pyverify.registry import load_registry
from pyverify.report import html, layout, markdown, mathml, svg


def _claim(cid, deps=(), verdict="holds", **extra):
    """A claim's row as ``model.build`` makes it (standing, dependents, the reduced edges and the
    reproduce command are decided there; the page only shows them)."""
    return {"id": cid, "verdict": verdict, "kind": "identity", "document": "doc", "deps": list(deps),
            "restates": [], "corrects": None, "rests_on_refuted": [], "formal": "none", "title": cid,
            "standing": "refuted" if verdict == "refuted" else "sound", "false_premises": [], "dependents": [],
            "edges_reduced": list(deps), "reproduce": f"pyverify check '{cid}' --seed 0 --budget quick", **extra}


def test_layout_places_premises_left_of_conclusions_and_draws_only_the_reduced_edges():
    claims = [_claim("A"), _claim("B", ["A"]), _claim("C", ["B", "A"], edges_reduced=["B"]), _claim("D")]
    placed = layout.layout(claims)
    assert set(placed.nodes) == {"A", "B", "C", "D"}
    x = {cid: pos[0] for cid, pos in placed.nodes.items()}
    assert x["A"] < x["B"] < x["C"]
    kinds = {(e.premise, e.conclusion): e.reduced for e in placed.edges}
    # A -> C is implied by A -> B -> C: kept as an edge, but not in the reduced drawing
    assert kinds == {("A", "B"): True, ("B", "C"): True, ("A", "C"): False}
    # no two nodes overlap
    boxes = list(placed.nodes.values())
    for i, (x1, y1) in enumerate(boxes):
        for x2, y2 in boxes[i + 1:]:
            assert abs(x1 - x2) >= layout.NODE_W or abs(y1 - y2) >= layout.NODE_H


def test_the_layout_routes_what_the_report_kept():
    given = [_claim("A"), _claim("B", ["A"]), _claim("C", ["B", "A"], edges_reduced=["B", "A"])]
    assert all(e.reduced for e in layout.layout(given).edges)


def test_statements_become_mathml_and_bad_latex_stays_visible_as_source():
    law = str(mathml.statement(r"R(r_i)^\top R(r_j) = R(r_j - r_i)"))
    # one formula in pieces that wrap: after the relation, not inside the brackets
    assert law.startswith('<div class="formula-line"><span class="formula"><math>') and law.count("<math") == 2
    assert law.split("<wbr>")[0].endswith("<mo>=</mo></mrow></math>")
    mixed = str(mathml.statement(r"If $a < b$ then <script> $b^2 > a^2$"))
    assert mixed.count('class="formula-inline"') == 2 and "&lt;script&gt;" in mixed and "<script>" not in mixed
    assert "<math" not in str(mathml.statement("a random encoding has approximately 50\\%."))
    assert "<math" in str(mathml.statement("x = x"))
    broken = str(mathml.statement(r"\frac{1}{"))
    assert "<math" not in broken and 'class="latex"' in broken and "\\frac{1}{" in broken


def test_node_grammar_shape_fill_border_and_severity():
    refuted = svg.node(_claim("R", verdict="refuted", severity={"level": "typo", "reason": "r"}, formal="sorry"), 0, 0)
    holds = svg.node(_claim("H", kind="bound", rests_on_refuted=["R"], standing="rests-on-false"), 0, 0)
    assert svg.VERDICT_FILL["refuted"] in refuted and 'data-severity="typo"' in refuted
    assert 'stroke-dasharray="1.5 2.5"' in refuted      # dotted border: Lean proof with sorry
    assert "<polygon" in holds and 'data-standing="rests-on-false"' in holds and 'data-severity="none"' in holds
    assert svg.severity_level(_claim("U", verdict="refuted")) == "unassessed"


def test_page_escapes_registry_text_and_has_one_panel_per_claim():
    claims = [_claim("A", statement="x", title="<img src=x onerror=alert(1)>"),
              _claim("B", ["A"], statement="$y$", mutation_survives="its mutants <b>weaken</b> it")]
    page = html.render({"claims": claims, "documents": {"doc": {"title": "D"}}, "counts": {}, "graph_problems": [],
                        "endangered": {"doc": []}, "seed": 0, "budget": "quick", "device": "cpu", "toolchain": None,
                        "lean_built": False})
    assert "<img src=x" not in page and "&lt;img src=x" in page
    assert page.count('<article class="claim-panel"') == 2 and "pyverify check &#39;A&#39; --seed 0 --budget quick" in page
    # the registry's reason why the mutation pass's errors leave B's verdict: shown, escaped, once
    assert page.count('class="mutation"') == 1 and "its mutants &lt;b&gt;weaken&lt;/b&gt; it" in page


def test_markdown_lists_refutations_with_severity_and_changes():
    claims = [_claim("A", verdict="refuted", severity={"level": "substantive", "reason": "r"}, corrected_by=["A.fix"],
                     evidence=["|x| = 2 where the claim says 1"]),
              _claim("A.fix", corrects="A"), _claim("B", ["A"], standing="rests-on-false",
                                                    false_premises=[{"id": "A", "severity": "substantive"}])]
    report = {"claims": claims, "counts": {"doc": {"refuted": 1, "holds": 2}}, "endangered": {"doc": ["B"]},
              "graph_problems": [], "meta": {"seed": 0, "budget": "quick", "device": "cpu", "lean_built": False}}
    from pyverify.report.compare import compare

    earlier = {"claims": [{**c, "verdict": "holds"} if c["id"] == "A" else c for c in claims], "meta": {"budget": "quick"}}
    md = markdown.render(report, compare(earlier, report))
    assert "| **A** (doc) | substantive | A.fix (holds) | \\|x\\| = 2 where the claim says 1 |" in md
    assert "- B (holds) rests on A" in md and "| A | verdict | holds | refuted |" in md and "New refutations: **A**" in md


def _text(markup) -> str:
    return html_text.unescape(re.sub(r"<[^>]+>", "", str(markup)))


def test_latex_that_latex2mathml_leaves_as_source_is_rendered():
    # a sized delimiter given as a command, \setminus (whose glyph common fonts lack), \dots inside \text
    assert _text(mathml.formula(r"\big\{ x \big\} \setminus \Big\| y \Big\| \text{a \dots b}")) == "{x}\u2216\u2016y\u2016a\u00a0\u2026\u00a0b"
    # a backslash before a line end is TeX's control space, never a printed backslash
    assert "\\" not in _text(mathml.statement("x = 1.\\\n\\text{Then } y"))
    # prose inside a formula wraps word by word; a forced break stays a line break
    pieces = str(mathml.formula(r"\text{one two three} = x \\ y", display=True))
    assert pieces.count("<mtext>") == 3 and "<br>" in pieces
    table = str(mathml.statement("Table: $n = 3$.\n\\begin{tabular}{lc}\nA & $x$ \\\\\nB & 2 \\\\\n\\end{tabular}"))
    assert table.count("<tr>") == 2 and "<th>" in table and "tabular" not in table


def test_titles_render_their_latex_and_keep_their_words():
    assert _text(mathml.title(r"\Pi R_{sp} \Pi approx")) == "\u03a0Rsp\u03a0 approx"
    assert _text(mathml.title(r"\tilde q, \tilde k")).replace("\u02dc", "~") == "q~,k~"
    assert _text(mathml.title("Depth accumulates curvature")) == "Depth accumulates curvature"


def test_every_statement_and_title_of_the_registry_renders_without_latex_source():
    """Planted by the registry itself before the fix: S13's stray backslash at a line end (\\Then) and
    T3.4's \\big\\{ showed as source."""
    registry = load_registry()
    shown = {cid: _text(mathml.statement(c.statement)) + _text(mathml.title(c.title)) for cid, c in registry.claims.items()}
    assert {cid: t for cid, t in shown.items() if "\\" in t} == {}
    assert [cid for cid, c in registry.claims.items() if 'class="latex"' in str(mathml.statement(c.statement))] == []


_VERBATIM = re.compile(r'<code class="verbatim"[^>]*>(.*?)</code>', re.S)
_RAW = re.compile(r"\\(?:[A-Za-z]+|[|{}])")


def _latex_source_shown(markup, source: str) -> list[str]:
    """The LaTeX commands a reader would see as source text in rendered free text: anywhere (rendered
    math included) but in a `quoted` span of a seed's text, shown as printed."""
    shown = _RAW.findall(_text(_VERBATIM.sub("", str(markup))))
    quoted = re.findall(r"`([^`]*)`", source)
    shown += [v for v in _VERBATIM.findall(str(markup)) if _RAW.search(v) and html_text.unescape(v) not in quoted]
    return shown


def test_free_text_renders_latex_written_without_dollars_and_keeps_seed_quotes_as_printed():
    source = r'the symmetry \Pi_act^T = \Pi_act is used ("using \Pi_act^T = \Pi_act"); k_j^(act) and lambda_1 >= 0'
    out = mathml.prose(source)
    assert _latex_source_shown(out, source) == [] and str(out).count("<math") == 4
    assert _text(out).startswith("the symmetry ") and ' is used ("using ' in _text(out)
    assert "λ" in _text(out) and "≥" in _text(out) and "(act)" in _text(out)
    # a garbled seed quote in backticks stays as printed; one that is LaTeX is rendered
    quoted = r"read `\y > --- > \,.` as `\lambda_1 \ge \lambda_n`"
    out = mathml.prose(quoted)
    assert _VERBATIM.findall(str(out)) == [r"\y &gt; --- &gt; \,."] and str(out).count("<math") == 1
    assert _latex_source_shown(out, quoted) == []
    # the check fails on a command shown as source: unknown LaTeX outside a quote, a \| left as text
    planted = r"the \foobar{x} of y and \|x\| by hand"
    assert _latex_source_shown(mathml.prose(planted), planted) != []
    assert _latex_source_shown(mathml.escape(source), source) != []


def test_every_reading_and_finding_note_of_the_registry_renders_without_latex_source():
    """Before the fix 35 readings and 11 finding notes of the registry showed their LaTeX as source."""
    registry = load_registry()
    texts = [(cid, t) for cid, c in registry.claims.items() for t in [c.reading, *(f.note for f in c.findings)] if t]
    assert sum("\\" in t for _, t in texts) > 40
    assert {cid: shown for cid, t in texts if (shown := _latex_source_shown(mathml.prose(t), t))} == {}


def _fragment_found(text: str, target: str) -> bool:
    """As a browser finds a text fragment: whole words, any case, white space collapsed."""
    squash = lambda s: re.sub(r"\s+", " ", s).strip().lower()   # noqa: E731
    return re.search(r"(?<!\w)" + re.escape(squash(target)) + r"(?!\w)", squash(text)) is not None


def test_every_document_link_points_at_text_its_document_contains(tmp_path):
    from urllib.parse import unquote

    from pyverify import contributions
    folder = contributions.documents_folder()
    if folder is None or not folder.is_dir():
        pytest.skip("the source documents are not beside the project")
    registry = load_registry()
    report = {"documents": {k: {"title": d.title, "files": d.files} for k, d in registry.documents.items()}}
    links = {cid: html._links({"id": cid, "document": c.document, "locator": c.locator}, report, tmp_path)
             for cid, c in registry.claims.items()}
    fragments = {cid: l["document"].split("#:~:text=") for cid, l in links.items() if "#:~:text=" in l.get("document", "")}
    assert len(fragments) > 200 and all("document" in l for l in links.values())
    wrong = {cid: target for cid, (file, target) in fragments.items()
             if not _fragment_found((tmp_path / file).resolve().read_text(errors="replace"), unquote(target))}
    assert wrong == {}
    # the most specific part of a locator the document mentions; none when it mentions no part
    some = (folder / registry.documents["pe-theory"].files[0])
    assert unquote(html._locator_fragment(some, "Sec. 3, Theorem 1 (corrected)")) == "#:~:text=Theorem 1"
    assert html._locator_fragment(some, "Sec. 99, Theorem 999") == ""
    assert not _fragment_found("see Theorem 10", "Theorem 1") and _fragment_found("see\nTHEOREM  1.", "Theorem 1")


def test_the_figure_check_finds_a_planted_contradiction(tmp_path):
    """The check of test_report_in_use (point 12) on figures made here: consistent ones pass; a holding
    bound drawn beyond 1, a constant claim among the bounds, an order figure whose worst instance
    contradicts the verdict, and a constant figure without the verdict's choice are each caught."""
    import xml.etree.ElementTree as ET

    from pyverify.report import plots
    from report_figures import claim_figure_contradictions, tightness_contradictions

    def parse(path: str) -> ET.Element:
        return ET.parse(tmp_path / path).getroot()

    claims = {"A": {"verdict": "holds", "details": {"tightness": 0.5}},
              "B": {"verdict": "holds", "details": {"tightness": 1112.7, "constants": [{}]}},
              "C": {"verdict": "refuted", "details": {"tightness": 3.0}}}
    honest = parse(plots.tightness_plot([("A", 0.5, "holds"), ("C", 3.0, "refuted")], tmp_path))
    assert tightness_contradictions(honest, claims) == []
    planted = parse(plots.tightness_plot([("A", 0.5, "holds"), ("B", 1112.7, "holds")], tmp_path))
    assert any("B is holds but its bar crosses 1" in p for p in tightness_contradictions(planted, claims))
    assert any("constant claim" in p for p in tightness_contradictions(planted, claims))

    order = {"param": "eps", "values": [0.1, 0.05, 0.025], "claimed": 3.0, "direction": "zero", "exact": False,
             "tolerance": 0.25, "measured_worst": 2.0, "measured_median": 2.0, "measured_min": 2.0, "measured_max": 2.0,
             "series": [[1e-2, 2.5e-3, 6.25e-4]]}
    figure = parse(plots.order_plot("S", order, tmp_path))
    assert claim_figure_contradictions("S", "order", figure, {"verdict": "refuted", "details": {"order": order}}) == []
    assert claim_figure_contradictions("S", "order", figure, {"verdict": "holds", "details": {"order": order}})
    lying = {**order, "series": [[1e-2, 1.25e-3, 1.5625e-4]]}   # order 3 drawn, order 2 reported
    assert claim_figure_contradictions("S", "order", parse(plots.order_plot("S", lying, tmp_path)),
                                       {"verdict": "refuted", "details": {"order": order}})

    entry = {"relation": "a <= b", "constant": 0.4, "chosen": {"C1": 0},
             "by_size": [{"dims": {"t": t, "C1": c}, "ratio": r} for t, c, r in
                         [(1, 0, 0.4), (4, 0, 0.39), (1, 1, 5.0), (4, 1, 80.0)]]}
    figure = parse(plots.constants_plot("K", [entry], tmp_path))
    assert claim_figure_contradictions("K", "constants", figure, {"verdict": "holds", "details": {"constants": [entry]}}) == []
    other_choice = {**entry, "chosen": {"C1": 1}}
    assert claim_figure_contradictions("K", "constants", figure, {"verdict": "holds", "details": {"constants": [other_choice]}})
