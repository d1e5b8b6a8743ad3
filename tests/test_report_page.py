"""The report page's parts that need no browser: layout, MathML, the SVG grammar, report.md."""

from __future__ import annotations

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
    assert str(mathml.statement(r"R(r_i)^\top R(r_j) = R(r_j - r_i)")).startswith("<math")
    mixed = str(mathml.statement(r"If $a < b$ then <script> $b^2 > a^2$"))
    assert mixed.count("<math") == 2 and "&lt;script&gt;" in mixed and "<script>" not in mixed
    assert "<math" not in str(mathml.statement("a random encoding has approximately 50\\%."))
    assert str(mathml.statement("x = x")).startswith("<math")
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
    claims = [_claim("A", statement="x", title="<img src=x onerror=alert(1)>"), _claim("B", ["A"], statement="$y$")]
    page = html.render({"claims": claims, "documents": {"doc": {"title": "D"}}, "counts": {}, "graph_problems": [],
                        "endangered": {"doc": []}, "seed": 0, "budget": "quick", "device": "cpu", "toolchain": None,
                        "lean_built": False})
    assert "<img src=x" not in page and "&lt;img src=x" in page
    assert page.count('<article class="claim-panel"') == 2 and "pyverify check &#39;A&#39; --seed 0 --budget quick" in page


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
