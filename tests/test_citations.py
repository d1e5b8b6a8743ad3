"""A user's registry citing the shipped claims: ids of the papers' registry resolve in ``deps:`` and
``restates:``; an id found nowhere is an error at its line, under ``check`` as under ``graph --check``."""

from __future__ import annotations

from pyverify.checks.validate import check_registry
from pyverify.registry import load_registry
from pyverify.registry.graph import check_graph

from conftest import claim_yaml

CHECK = """\
check:
  given: {x: 'vec(2)'}
  assert: 'x + x == 2 * x'
"""


def test_a_user_registry_may_rest_on_and_restate_shipped_claims(make_registry):
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("U.1", deps="[T2.9]", extra="restates: [T2.9]\n" + CHECK)})
    reg = load_registry(root)
    checked, problems = check_registry(reg)
    assert problems == [] and "U.1" in checked.compiled
    assert check_graph(reg).problems == []


def test_an_unknown_cited_id_is_an_error_at_its_line(make_registry):
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("U.1", deps="[T2.9, T99.9]", extra="restates: [NOPE.1]\n")})
    reg = load_registry(root)
    _, problems = check_registry(reg)
    shown = sorted(str(p) for p in problems)
    assert len(problems) == 2 and all(p.claim_id == "U.1" and p.code == "unknown-id" for p in problems)
    assert any("deps names unknown id 'T99.9'" in s and "a.yaml:8" in s for s in shown), shown
    assert any("restates names unknown id 'NOPE.1'" in s and "a.yaml:9" in s for s in shown), shown
    assert {p.message for p in check_graph(reg).problems} >= {"restates names unknown id NOPE.1"}


def test_the_shipped_registry_is_left_to_its_graph_findings():
    _, problems = check_registry(load_registry(None))
    assert [p for p in problems if p.code == "unknown-id"] == []
