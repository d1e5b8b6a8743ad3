"""Planted graph faults are caught; recorded document findings are accepted; the real registry passes."""

from __future__ import annotations

import re

import pytest

from pyverify.registry.graph import check_graph
from pyverify.registry import RegistryError, load_registry
from pyverify.registry.ids import FormError, IdForm, IdOrder

from conftest import DOC, PAPERS, REPO, claim_yaml

# the test document with an id scheme whose tiers are ordered (as a document's YAML declares it)
TIERED = DOC + '    id_form: "T{tier}.{number}[bis]"\n    tier_order: true\n'


def codes(root):
    report = check_graph(load_registry(root))
    return sorted((p.claim_id, p.code) for p in report.problems)


def tiered(make_registry, text):
    return make_registry({"documents.yaml": TIERED, "a.yaml": text}, with_doc=False)


def test_tiers_and_order_come_from_the_id_form():
    order = IdOrder([(IdForm.of("T{tier}.{number}[bis]"), True), (IdForm.of("S{number}[.{rest}]"), False)])
    assert order.tier("T6'.3") == ((6, 1), "6'") and order.tier("T6.3") == ((6, 0), "6") and order.tier("S4") is None
    assert order.tier("T8'.1bis")[0] == (8, 1) and order.tier("T5.3.half") is None  # not of the form
    ids = ["S4.stack", "RGAT.x", "T8'.1bis", "S10", "T8'.2", "S4", "T8'.1", "T6.1", "T6'.0"]
    assert sorted(ids, key=order) == ["T6.1", "T6'.0", "T8'.1", "T8'.1bis", "T8'.2", "S4", "S4.stack", "S10", "RGAT.x"]


@pytest.mark.parametrize("form", ["T{tier", "T{x}.{number}", "{rest}.{number}", "T[a[b]]", "T]", "", "x" * 65])
def test_a_malformed_id_form_is_refused(form):
    with pytest.raises(FormError):
        IdForm.of(form)


def test_an_id_form_matches_in_linear_time():
    """No backtracking: an adversarial id against optional parts is read in one pass."""
    form = IdForm.of("[a][a][a][a]{number}[a]{rest}")
    assert form.read("a" * 60 + "!") is None and form.read("aaaa7bc") == {"present": [True] * 4 + [False],
                                                                              "number": 7, "rest": "bc"}


def test_a_document_scheme_is_validated_where_it_is_written(make_registry):
    bad = DOC + "    tier_order: true\n"  # no id_form: nothing says what a tier is
    with pytest.raises(RegistryError) as info:
        load_registry(make_registry({"documents.yaml": bad, "a.yaml": "claims:\n" + claim_yaml("T0.1")}, with_doc=False))
    assert "tier_order" in str(info.value) and "documents.yaml" in str(info.value)


def test_clean_graph(make_registry):
    root = tiered(make_registry, "claims:\n" + claim_yaml("T0.1") + claim_yaml("T1.1", deps="[T0.1]"))
    assert codes(root) == []


def test_unknown_dep_caught_and_accepted_by_finding(make_registry):
    # (Z0.9: an id of no registry; a shipped id such as T0.9 resolves, tests/test_citations.py)
    bad = make_registry({"a.yaml": "claims:\n" + claim_yaml("Z0.1", deps="[Z0.9]")})
    assert codes(bad) == [("Z0.1", "unknown-dep")]
    marked = make_registry({"a.yaml": "claims:\n" + claim_yaml(
        "Z0.1", deps="[Z0.9]", extra="findings:\n  - {type: unknown-dep, target: Z0.9, note: printed so}\n")})
    assert codes(marked) == []


def test_cycle_caught_and_accepted_by_finding(make_registry):
    text = "claims:\n" + claim_yaml("A.1", deps="[A.2]") + claim_yaml("A.2", deps="[A.3]") + claim_yaml("A.3", deps="[A.1]")
    assert codes(make_registry({"a.yaml": text})) == [("A.1", "cycle")]
    text = "claims:\n" + claim_yaml("A.1", deps="[A.2]") + claim_yaml("A.2", deps="[A.3]") + claim_yaml(
        "A.3", deps="[A.1]", extra="findings:\n  - {type: cycle, target: A.1, note: the document cites A.1 back}\n")
    assert codes(make_registry({"a.yaml": text})) == []


def test_tier_inversion_caught(make_registry):
    text = "claims:\n" + claim_yaml("T1.1", deps="[T2.1]") + claim_yaml("T2.1")
    assert codes(tiered(make_registry, text)) == [("T1.1", "forward-dep")]
    # the rule is the document's: without tier_order the same dependency is no fault
    assert codes(make_registry({"a.yaml": text})) == []
    # primes order after their tier: T6'.x may use T6.x, not the reverse
    text = "claims:\n" + claim_yaml("T6.1", deps="[T6'.1]") + claim_yaml("T6'.1", deps="[T6.1]")
    got = codes(tiered(make_registry, text))
    assert ("T6.1", "forward-dep") in got


def test_symbol_without_dependency_caught(make_registry):
    text = "claims:\n" + claim_yaml("T0.1", extra="defines: [Pi_act]\n") + claim_yaml("T1.1", extra="uses: [Pi_act]\n")
    assert codes(make_registry({"a.yaml": text})) == [("T1.1", "symbol-without-dep")]
    # reaching the definition transitively is enough
    text = ("claims:\n" + claim_yaml("T0.1", extra="defines: [Pi_act]\n") + claim_yaml("T0.2", deps="[T0.1]")
            + claim_yaml("T1.1", deps="[T0.2]", extra="uses: [Pi_act]\n"))
    assert codes(make_registry({"b.yaml": text})) == []


def test_symbol_defined_nowhere_and_ambient(make_registry):
    text = "claims:\n" + claim_yaml("T0.1", extra="uses: [Ghost, R]\n")
    assert codes(make_registry({"a.yaml": text})) == [("T0.1", "symbol-without-dep")]


def test_stale_finding_is_a_problem(make_registry):
    text = "claims:\n" + claim_yaml("T1.1", extra="findings:\n  - {type: forward-dep, target: T2.1, note: gone}\n")
    assert codes(tiered(make_registry, text)) == [("T1.1", "stale-finding")]


def test_unknown_restates_target(make_registry):
    text = "claims:\n" + claim_yaml("A.1", extra="restates: [T9.9]\n")
    assert codes(make_registry({"a.yaml": text})) == [("A.1", "unknown-id")]


def test_finding_accepts_only_its_own_fault(make_registry):
    # a forward-dep finding for another target does not silence a new fault
    text = "claims:\n" + claim_yaml("T1.1", deps="[T2.1, T3.1]", extra="findings:\n  - {type: forward-dep, target: T2.1, note: n}\n")
    text += claim_yaml("T2.1") + claim_yaml("T3.1")
    assert codes(tiered(make_registry, text)) == [("T1.1", "forward-dep")]


# ------------------------------------------------------------------------------ the real registry

@pytest.fixture(scope="module")
def real():
    return load_registry(PAPERS)


def test_real_registry_passes_graph_check(real):
    report = check_graph(real)
    assert report.problems == []
    assert report.accepted, "the documents' own defects are recorded as findings"


def _transcribed(real, doc):
    return [c.id for c in real.claims.values() if c.document == doc and c.corrects is None and c.sharpens is None]


def test_real_registry_counts(real):
    counts = {doc: len(_transcribed(real, doc)) for doc in real.documents}
    assert counts == {"espr-derivation": 107, "espr-paper": 67, "rgat": 46, "pe-theory": 66}  # PE: 60 labelled + 5 qualitative table claims + PE.Text-pearson.structural; ESPR paper: 4 RoPE claims of Sec. 1


def _expected_derivation_ids():
    ranges = {"0": 20, "1": 6, "2": 11, "3": 7, "4": 5, "5": 10, "6": 2, "6'": 12, "7": 5, "8'": 23}
    starts = {"6'": 0, "7": 0, "8'": 0}
    ids = {f"T{t}.{i}" for t, n in ranges.items() for i in range(starts.get(t, 1), n + 1)}
    return ids | {"T8'.1bis", "T8'.5bis", "T8'.8bis"}


def test_every_listed_id_is_present(real):
    ids = set(real.claims)
    assert len(_expected_derivation_ids()) == 107
    assert _expected_derivation_ids() <= ids
    espr = {"ESPR.Lem1", "ESPR.Lem2", "ESPR.Lem3", "ESPR.Thm1", "ESPR.Thm2", "ESPR.RF-map", "ESPR.RF-unbiased",
            "ESPR.RF-mse", "ESPR.RF-orthogonal"} | {f"ESPR.Eq{n}" for n in (15, 16, 17, 18, 28, 29, 30, 31, 32, 33)}
    rgat = {f"S{i}" for i in range(1, 15)} | {"S4.stack", "RGAT.Alg"}
    pe = {"PE.Thm1", "PE.H1", "PE.H2", "PE.H3", "PE.Thm4", "PE.Conj5", "PE.Eq3", "PE.Eq4", "PE.Eq5", "PE.Prop6",
          "PE.Alg1", "PE.Rem7", "PE.Rem8", "PE.Def9", "PE.Def10", "PE.A1", "PE.A2", "PE.A3", "PE.A4", "PE.Lem11",
          "PE.Lem12", "PE.Lem14", "PE.Cor15", "PE.Lem16", "PE.Lem18", "PE.Rem20", "PE.Table2", "PE.Table3", "PE.Table4"}
    assert espr <= ids and rgat <= ids and pe <= ids
    assert any(i.startswith("RGAT.Def-") for i in ids) and any(i.startswith("RGAT.FigS1-") for i in ids)
    assert sum(i.startswith("PE.Text-") for i in ids) >= 20


def test_paper_claims_link_to_the_derivation(real):
    for cid in ("ESPR.Lem1", "ESPR.Lem2", "ESPR.Lem3", "ESPR.Thm1", "ESPR.Thm2", "ESPR.RF-unbiased"):
        assert real.claims[cid].restates, cid
        assert all(re.match(r"^T\d", t) for t in real.claims[cid].restates)


def test_truncated_lists_are_marked(real):
    truncated = [c for c in real.claims.values() if c.deps_truncated]
    assert truncated and all(any(f.type == "truncated-deps" for f in c.findings) for c in truncated)
