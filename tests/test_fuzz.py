"""Property-based fuzzing (Hypothesis) of the registry loader and the expression parser (issue 11): any
input is either accepted or refused with a clear error naming where; nothing else escapes, nothing runs."""

from __future__ import annotations

import ast

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyverify.checks import dsl, vocabulary
from pyverify.registry import RegistryError, load_registry

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=True),
                    st.text(max_size=30))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                      max_leaves=20)
FIELDS = ["id", "title", "document", "locator", "kind", "statement", "deps", "check", "expect", "severity",
          "lean", "conventions", "findings", "reading", "notes", "restates", "corrects"]
GOOD = {"id": "A.1", "title": "t", "document": "doc", "locator": "here", "kind": "identity", "statement": "x = x"}


@st.composite
def claims(draw):
    """A claim that starts valid and has some fields replaced by arbitrary (often ill-typed) values."""
    claim = dict(GOOD)
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
        claim[field] = draw(values)
    if draw(st.booleans()):
        claim["check"] = {"given": {draw(st.text(min_size=1, max_size=8)): draw(st.text(max_size=40))},
                          "assert": draw(st.text(max_size=60))}
    return claim


@FUZZ
@given(claims())
def test_the_loader_accepts_or_names_the_problem(tmp_path_factory, claim):
    root = tmp_path_factory.mktemp("fuzz") / "claims"
    root.mkdir()
    (root / "documents.yaml").write_text("documents:\n  - {key: doc, title: D, files: [x.txt]}\n")
    (root / "a.yaml").write_text(yaml.safe_dump({"claims": [claim]}, allow_unicode=True))
    try:
        load_registry(root)
    except RegistryError as exc:
        assert exc.problems and all(p.location.file.endswith(".yaml") and p.location.line >= 1 for p in exc.problems)


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_yaml_text_is_loaded_or_refused_with_a_location(tmp_path_factory, text):
    root = tmp_path_factory.mktemp("fuzz") / "claims"
    root.mkdir()
    (root / "a.yaml").write_text(text, encoding="utf-8")
    try:
        load_registry(root)
    except RegistryError as exc:
        assert exc.problems and all(p.location.file for p in exc.problems)


NAMES = ["x", "M", "k", "__class__", "__import__", "os", "pi", "e", "norm", "det", "eval", "range", "sum"]
leaves = st.one_of(st.sampled_from(NAMES), st.integers(-10**9, 10**9).map(str), st.floats(allow_nan=False).map(repr),
                   st.just("'s'"), st.just("lambda: 0"), st.just("[1, 2]"))


def _combine(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**", "@", "==", "<=", "and", "or", "%", "//"]), inner)
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(NAMES), st.lists(inner, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(inner, st.sampled_from(["T", "__class__", "__globals__", "L"])).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        inner.map(lambda t: f"sum({t} for k in range(3))"),
    )


expressions = st.recursive(leaves, _combine, max_leaves=25)


@FUZZ
@given(expressions)
def test_the_expression_parser_accepts_only_the_language(text):
    names = {"x", "M", "k"}
    try:
        tree = dsl.parse(text, names, vocabulary.names())
    except dsl.DSLError:
        return
    # accepted: no dunder, no lambda, no attribute other than .T / parts of a named hypothesis
    for node in ast.walk(tree):
        assert not isinstance(node, (ast.Lambda, ast.ListComp, ast.List, ast.Dict, ast.Starred))
        if isinstance(node, ast.Name):
            assert not node.id.startswith("_")
        if isinstance(node, ast.Attribute):
            assert not node.attr.startswith("_")
