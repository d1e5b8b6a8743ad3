"""A check language that cannot be misread: every typo, wrong type, out-of-range value, shadowed name,
unknown key or invalid enum value in a registry is an error at load naming the file, the line of the
offending key and the claim id — never a silently used default or a misread argument."""

from __future__ import annotations

import textwrap

import pytest

from pyverify.checks.validate import load_valid_registry, validate_registry
from pyverify.registry import RegistryError, load_registry

HEADER = """\
documents:
  - key: doc
    title: A document
    files: [doc.txt]
claims:
  - id: {cid}
    title: A claim
    document: doc
    locator: here
    kind: identity
    statement: s
"""

# (case id, the claim's tail — the offending line carries `# <-`, expected words of the message)
CASES = [
    ("misspelt-keyword", """
    check:
      given:
        x: 'vec(3, hii=4)'  # <-
      assert: 'x == x'
    """, ["unknown parameter 'hii'", "did you mean 'hi'", "accepted: vec(n: int >= 1"]),
    ("wrong-type", """
    check:
      given:
        x: 'vec(2.5)'  # <-
      assert: 'x == x'
    """, ["n must be an integer, got 2.5"]),
    ("out-of-range", """
    check:
      given:
        x: 'vec(0)'  # <-
      assert: 'x == x'
    """, ["n = 0 is out of range"]),
    ("empty-norm-range", """
    check:
      given:
        x: 'vec(3, lo=5, hi=1)'  # <-
      assert: 'x == x'
    """, ["needs lo <= hi", "accepted: vec("]),
    ("out-of-range-at-a-later-sweep-value", """
    check:
      given:
        x: 'commuting_skew(d, 2, m=2)'  # <-
      assert: 'x.L[0] == x.L[0]'
      dims: {d: [4, 3]}
    """, ["needs 2m <= d", "d=3"]),
    ("too-many-positionals", """
    check:
      given:
        x: 'vec(3, 4)'  # <-
      assert: 'x == x'
    """, ["at most 1 positional", "accepted: vec("]),
    ("invalid-choice", """
    check:
      given:
        Q: "orth(3, det='minus')"  # <-
      assert: 'Q == Q'
    """, ["det = 'minus' is not one of 1, -1, 'any'"]),
    ("unknown-sampler", """
    check:
      given:
        x: 'vecc(3)'  # <-
      assert: 'x == x'
    """, ["unknown sampler 'vecc'", "did you mean 'vec'"]),
    ("shadowed-constant-where", """
    check:
      given:
        x: 'vec(3)'
      where:
        pi: 'norm(x)'  # <-
      assert: 'pi >= 0'
    """, ["'pi' would shadow a constant"]),
    ("shadowed-constant-given", """
    check:
      given:
        e: 'vec(3)'  # <-
      assert: 'e == e'
    """, ["'e' would shadow a constant"]),
    ("shadowed-constant-dims", """
    check:
      given:
        x: 'vec(3)'
      assert: 'x == x'
      dims:
        inf: 3  # <-
    """, ["'inf' would shadow a constant"]),
    ("shadowed-function", """
    check:
      given:
        x: 'mat(3)'
      where:
        tr: 'x @ x'  # <-
      assert: 'tr == tr'
    """, ["'tr' would shadow a function"]),
    ("shadowed-sampler", """
    check:
      given:
        vec: 'vec(3)'  # <-
      assert: 'vec == vec'
    """, ["'vec' would shadow a sampler"]),
    ("shadowed-reducer", """
    check:
      given:
        x: 'vec(3)'
      where:
        sum: 'x + x'  # <-
      assert: 'sum == 2 * x'
    """, ["'sum' would shadow a reserved word"]),
    ("shadowed-range", """
    check:
      given:
        range: 'scalar(0, 1)'  # <-
      assert: 'range >= 0'
    """, ["'range' would shadow a reserved word"]),
    ("unknown-name-in-assert", """
    check:
      given:
        x: 'vec(3)'
      assert: 'x == y'  # <-
    """, ["unknown name 'y'"]),
    ("unknown-function-in-where", """
    check:
      given:
        x: 'vec(3)'
      where:
        n2: 'norm2(x)'  # <-
      assert: 'n2 >= 0'
    """, ["function 'norm2' is not in the whitelist"]),
    ("unknown-order-key", """
    check:
      given:
        u: 'small_angle(eps)'
      assert: 'norm(u)'
      relation: order
      order:
        param: eps
        values: [0.1, 0.01, 0.001]
        claimed: 1
        directon: zero  # <-
    """, ["order.directon: unknown field (did you mean 'direction'?); accepted: param, values"]),
    ("invalid-order-direction", """
    check:
      given:
        u: 'small_angle(eps)'
      assert: 'norm(u)'
      relation: order
      order:
        param: eps
        values: [0.1, 0.01, 0.001]
        claimed: 1
        direction: zeros  # <-
    """, ["order.direction", "must be one of 'zero', 'infinity'"]),
    ("too-few-order-values", """
    check:
      given:
        u: 'small_angle(eps)'
      assert: 'norm(u)'
      relation: order
      order:
        param: eps
        values: [0.1, 0.01]  # <-
        claimed: 1
    """, ["order.values", "at least 3"]),
    ("non-positive-order-value", """
    check:
      given:
        u: 'small_angle(eps)'
      assert: 'norm(u)'
      relation: order
      order:
        param: eps
        values: [0.1, 0.01, 0]  # <-
        claimed: 1
    """, ["order.values.2", "greater than 0"]),
    ("order-missing-claimed", """
    check:
      given:
        u: 'small_angle(eps)'
      assert: 'norm(u)'
      relation: order
      order:  # <-
        param: eps
        values: [0.1, 0.01, 0.001]
    """, ["order.claimed", "required"]),
    ("unknown-symbolic-key", """
    check:
      given:
        x: 'vec(n)'
      assert: 'x == x'
      dims: {n: [2, 3]}
      symbolic:
        dim: {n: 2}  # <-
    """, ["symbolic.dim", "unknown field"]),
    ("misspelt-symbolic-dimension", """
    check:
      given:
        x: 'vec(n)'
      assert: 'x == x'
      dims: {n: [2, 3]}
      symbolic:
        dims:
          nn: 2  # <-
    """, ["symbolic.dims: 'nn' is not a sweep variable of `dims` (n)"]),
    ("empty-dims-list", """
    check:
      given:
        x: 'vec(n)'
      assert: 'x == x'
      dims:
        n: []  # <-
    """, ["dims.n", "a number or a non-empty list of numbers"]),
    ("string-dims-value", """
    check:
      given:
        x: 'vec(n)'
      assert: 'x == x'
      dims:
        n: three  # <-
    """, ["dims.n", "a number or a non-empty list of numbers"]),
    ("invalid-relation", """
    check:
      given:
        x: 'vec(3)'
      assert: 'x == x'
      relation: orderr  # <-
    """, ["relation"]),
    ("unknown-convention-key", """
    conventions:
      pairng: adjacent  # <-
    check:
      given:
        x: 'vec(3)'
      assert: 'x == x'
    """, ["conventions.pairng: unknown field (did you mean 'pairing'?); accepted: pairing, displacement"]),
    ("invalid-convention-value", """
    check:
      given:
        x: 'mat(3)'
      assert: 'norm(x) >= 0'
      conventions:
        norm: spectral  # <-
    """, ["check.conventions.norm: must be one of 'operator-2', 'frobenius'"]),
    ("unknown-check-key", """
    check:
      given:
        x: 'vec(3)'
      asert: 'x == x'  # <-
    """, ["check.asert", "unknown field"]),
]


def _write(tmp_path, case: str, tail: str):
    cid = "T." + case
    body = HEADER.format(cid=cid) + textwrap.indent(textwrap.dedent(tail).strip("\n") + "\n", "    ")
    path = tmp_path / f"{case}.yaml"
    path.write_text(body, encoding="utf-8")
    line = next(i for i, text in enumerate(body.splitlines(), 1) if "# <-" in text)
    return path, cid, line


@pytest.mark.parametrize("case,tail,words", CASES, ids=[c[0] for c in CASES])
def test_every_mistake_names_file_line_and_claim(tmp_path, case, tail, words):
    path, cid, line = _write(tmp_path, case, tail)
    with pytest.raises(RegistryError) as info:
        load_valid_registry(path)
    problems = info.value.problems
    assert len(problems) == 1, [str(p) for p in problems]
    text = str(problems[0])
    assert f"{path.name}:{line}:" in text, text
    assert f"[{cid}]" in text, text
    for w in words:
        assert w in text, text


def test_the_corpus_cases_are_correct_once_fixed(tmp_path):
    # the control: the same claim without the mistake loads and validates (the errors come from the mistake)
    path, _, _ = _write(tmp_path, "fixed", """
    conventions:
      pairing: adjacent
    check:
      given:
        x: 'vec(3, hi=4)'
        u: 'small_angle(eps)'
      where:
        size: 'norm(x)'
      assert: 'size >= 0 and norm(u) <= eps  # <-'
      dims: {eps: [0.1, 0.2]}
      symbolic: {dims: {eps: 0.1}}
    """)
    registry = load_valid_registry(path)
    assert validate_registry(registry) == []


def test_validation_runs_nothing(tmp_path, monkeypatch):
    # compile only: a sampler's value is never computed at load
    from pyverify.checks.samplers import Vec

    def boom(self, theta):
        raise AssertionError("a sampler ran at load")

    monkeypatch.setattr(Vec, "value", boom)
    path, _, _ = _write(tmp_path, "runs", """
    check:
      given:
        x: 'vec(3)'
      assert: 'x == x  # <-'
    """)
    load_valid_registry(path)


def test_the_shipped_registry_validates():
    assert validate_registry(load_registry()) == []
