"""pyverify's own measure of a YAML file's nesting and aliases agrees with a YAML parser on valid YAML
(so the caps mean what they say), whatever the parser, and stops where the cap is."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyverify.registry import yaml_shape

from conftest import PAPERS, REPO


def parser_shape(text: str) -> tuple[int, int]:
    """Deepest nesting and alias count from the pure-Python parser's events."""
    depth = deepest = aliases = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
    return deepest, aliases


def test_the_measure_agrees_with_the_parser_on_every_registry_file():
    files = sorted(PAPERS.glob("**/*.yaml")) + sorted(REPO.glob("tests/**/*.yaml")) + sorted(REPO.glob("examples/**/*.yaml"))
    assert len(files) >= 15
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert yaml_shape.measure(text) == parser_shape(text), path


# scalars chosen to look like structure: brackets, dashes, colons, quotes, comments, block indicators
TRICKY = st.sampled_from(["a", "b c", "x: y", "[1]", "{q}", "- z", "#c", "a #b", "'q'", '"dq"', "*al", "&an", "|",
                          "> f", "T6'.3", "\\|x\\|", "multi\nline text", "  lead", "trail  ", "?", "-", ":", "",
                          "%p", "@x", "`t`", "[", "}", "a: b\nc: d", "\t", "--- x", "..."])
SCALARS = st.one_of(TRICKY, st.integers(-5, 5), st.none(), st.booleans())
DATA = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(TRICKY, inner, max_size=4)), max_leaves=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=DATA, shared=DATA, flow=st.sampled_from([None, True, False]), width=st.sampled_from([20, 80, 1000]),
       style=st.sampled_from([None, None, '"', "'", "|", ">"]), indent=st.sampled_from([2, 4]),
       alias=st.booleans())
def test_the_measure_agrees_with_the_parser_on_generated_documents(data, shared, flow, width, style, indent, alias):
    document = {"root": data}
    if alias and isinstance(shared, (list, dict)):
        document.update(first=shared, second=[shared, shared])  # anchors and aliases
    text = yaml.dump(document, default_flow_style=flow, width=width, default_style=style, indent=indent,
                     allow_unicode=True)
    assert yaml_shape.measure(text) == parser_shape(text), text


def test_the_measure_on_hand_written_forms():
    cases = {
        "a:\n- 1\n- - 2\n  - [3, {b: c}]\nd: e\n": (5, 0),  # a sequence at its key's column; compact `- -`
        "? - x\n  - y\n: [a, b]\n": (2, 0),  # explicit keys and values
        "k: |\n  [[[[\n  - - -\n  *x\nn: 1\n": (1, 0),  # a literal block is content
        "k: plain text\n  [continued] * here\nn: 1\n": (1, 0),  # a plain scalar's continuation too
        "k: 'it''s [not' \nn: \"a \\\" [b\"\n": (1, 0),  # quotes with their escapes
        "k: [a, 'b, ]', \"c]\", # ]]\n  d]\n": (2, 0),  # a flow collection over lines, comments
        "--- |\n  text\n--- [a, [b]]\n": (2, 0),  # document markers end a block scalar
        "a: &x [1]\nb: *x\nc: [*x, *x]\nd: a*b\n": (2, 3),  # an alias only where a node starts
    }
    for text, expected in cases.items():
        assert yaml_shape.measure(text) == expected == parser_shape(text), text


def test_the_first_excess_is_where_the_cap_is_passed_and_nowhere_else():
    text = "a: 1\nb:\n" + "".join("  " * i + f"- k{i}:\n" for i in range(1, 6))
    depth, _ = yaml_shape.measure(text)
    assert yaml_shape.first_excess(text, depth, 10) is None
    excess = yaml_shape.first_excess(text, depth - 1, 10)
    assert excess is not None and excess.what == "depth" and excess.amount == depth and excess.line == 7


def test_a_planted_miscount_is_seen():
    """The agreement test can fail: a measure that ignores flow brackets disagrees with the parser."""
    text = "a: [[1], {b: [2]}]\n"
    original = yaml_shape._Scanner._depth_now
    try:
        yaml_shape._Scanner._depth_now = lambda self: None if self.flow else original(self)
        assert yaml_shape.measure(text) != parser_shape(text)
    finally:
        yaml_shape._Scanner._depth_now = original
    assert yaml_shape.measure(text) == parser_shape(text)


def test_the_measure_is_linear_on_a_large_file():
    import time

    line = "  - {id: A, deps: [B, C], statement: 'x [y] {z}', notes: a b c}\n"
    text = "claims:\n" + line * 100_000  # 6.5 MB
    start = time.process_time()
    assert yaml_shape.measure(text) == (4, 0)
    assert time.process_time() - start < 20  # a bound against a quadratic pass, not a timing
