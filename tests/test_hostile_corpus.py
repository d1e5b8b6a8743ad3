"""Broken and hostile registries: each gets a clear answer (exit code, a message naming file:line and the
claim id where there is one), within a timeout, without a traceback, and without running any code
(each payload would create a marker file)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MARKER = "PWNED"  # the payloads would create this file in the case's folder
HEADER = """\
documents:
  - key: doc
    title: A document
    files: [doc.txt]
claims:
"""


def claim(tail: str = "", cid: str = "C1", deps: str = "") -> str:
    body = (f"  - id: {cid}\n    title: A claim\n    document: doc\n    locator: here\n    kind: identity\n"
            f"    statement: s\n" + (f"    deps: [{deps}]\n" if deps else ""))
    return body + textwrap.indent(textwrap.dedent(tail).strip("\n"), "    ") + ("\n" if tail else "")


def checked(given: str, assertion: str, extra: str = "") -> str:
    return HEADER + claim(f"check:\n  given: {{{given}}}\n  assert: '{assertion}'\n" + textwrap.indent(extra, "  "))


def touch() -> str:
    return f"__import__(\"os\").system(\"touch {MARKER}\")"


# (case, registry text, command, expected exit code, expected words of the answer); `FILE` in the words
# stands for the registry's path; a line number follows it where the mistake has one
CASES: list[tuple[str, str, str, int, list[str]]] = [
    # --- resource caps
    ("huge-vec", checked("x: 'vec(100000000)'", "x == x"), "check", 2, ["FILE:13:", "[C1]", "elements per instance", "PYVERIFY_MAX_ELEMENTS"]),
    ("huge-mat", checked("A: 'mat(100000, 100000)'", "A == A"), "check", 2, ["FILE:13:", "[C1]", "elements per instance"]),
    ("ones-in-expression", checked("x: 'vec(3)'", "norm(ones(100000, 100000)) >= 0"), "check", 0, ["C1", "error", "elements per instance"]),
    ("zeros-in-expression", checked("x: 'vec(3)'", "norm(zeros(100000, 100000)) >= 0"), "check", 0, ["error", "PYVERIFY_MAX_ELEMENTS"]),
    ("identity-huge", checked("x: 'vec(3)'", "norm(I(1000 * 1000 * 1000)) >= 0"), "check", 0, ["error", "elements per instance"]),
    ("dims-sweep-to-1e8", checked("x: 'vec(d)'", "x == x", "dims: {d: [1, 100, 10000, 1000000, 100000000]}"), "check", 2, ["FILE:", "[C1]", "elements per instance", "d=1000000"]),
    ("dims-1000x1000", checked("x: 'vec(3)'", "x == x", "dims: {a: [" + ", ".join(map(str, range(1, 1001))) + "], b: [" + ", ".join(map(str, range(1, 1001))) + "]}"), "check", 2, ["[C1]", "dims assignments per claim", "PYVERIFY_MAX_ASSIGNMENTS"]),
    ("samples-1e9", checked("g: 'gaussian(3)'", "E(norm(g)) >= 0", "samples: 1000000000"), "check", 2, ["FILE:15:", "[C1]", "Monte-Carlo samples", "PYVERIFY_MAX_SAMPLES"]),
    ("samples-negative", checked("x: 'vec(3)'", "x == x", "samples: -5"), "check", 2, ["FILE:15:", "[C1]", "samples", "greater than 0"]),
    ("samples-float", checked("x: 'vec(3)'", "x == x", "samples: 2.5"), "check", 2, ["FILE:15:", "[C1]", "samples"]),
    ("power-tower", checked("x: 'vec(3)'", "norm(x) * 9**9**9 >= 0"), "check", 0, ["error", "decimal digits of a power", "PYVERIFY_MAX_POWER_DIGITS"]),
    ("power-of-big-constant", checked("x: 'vec(3)'", "norm(x) <= (999999 ** 16) ** 16"), "check", 0, ["error", "power"]),
    ("exponent-constant", checked("x: 'vec(3)'", "norm(x) <= 2 ** 100"), "check", 2, ["[C1]", "exponent 100 exceeds 16"]),
    ("nested-reductions", checked("x: 'vec(3)'", "sum(sum(sum(norm(x) for i in range(256)) for j in range(256)) for k in range(256)) >= 0"), "check", 0, ["error", "nested reductions", "PYVERIFY_MAX_REDUCTION_STEPS"]),
    ("range-too-long", checked("x: 'vec(3)'", "sum(norm(x) for i in range(100000)) >= 0"), "check", 0, ["error", "range of 100000 exceeds"]),
    ("expression-too-long", checked("x: 'vec(3)'", " + ".join(["norm(x)"] * 700) + " >= 0"), "check", 2, ["[C1]", "longer than"]),
    ("expression-too-many-nodes", checked("x: 'vec(3)'", " + ".join(["x[0]"] * 400) + " >= 0"), "check", 2, ["[C1]", "too large"]),
    ("expression-nested-parens", checked("x: 'vec(3)'", "(" * 300 + "x[0]" + ")" * 300 + " >= 0"), "check", 2, ["[C1]"]),
    ("expression-nested-unary", checked("x: 'vec(3)'", "-" * 3000 + "x[0] >= 0"), "check", 2, ["[C1]", "nested too deeply"]),
    ("sampler-unary-minus-run", checked("x: 'vec(" + "-" * 100000 + "3)'", "x == x"), "check", 2, ["FILE:13:", "[C1]", "longer than 1000 characters"]),
    ("sampler-unary-minus-900", checked("x: 'vec(" + "-" * 900 + "3)'", "x == x"), "check", 2, ["FILE:13:", "[C1]", "nested deeper than 20 levels"]),
    ("sampler-nested-lists", checked("x: 'vec(3, lo=" + "[" * 150 + "]" * 150 + ")'", "x == x"), "check", 2, ["FILE:13:", "[C1]", "nested"]),
    ("symbolic-huge-dimension", checked("A: 'mat(d)'", "A + A == 2 * A", "dims: {d: [3, 500]}\nsymbolic: {dims: {d: 500}}"), "check", 2, ["FILE:", "[C1]", "symbolic", "PYVERIFY_MAX_SYMBOLIC_DIM"]),
    ("cycle-of-14", HEADER + "".join(claim(cid=f"C{i}", deps=", ".join(f"C{j}" for j in range(14) if j != i)) for i in range(14)), "graph --check", 1, ["strongly connected component", "14 claims"]),
]

# the loader's cases; each is run with libyaml's parser and with the pure-Python one (same answers)
LOADER_CASES: list[tuple[str, str, str, int, list[str]]] = [
    ("yaml-nested-20000", "claims: " + "[" * 20000 + "]" * 20000 + "\n", "list", 2, ["FILE:1:", "65 exceeds the cap of 64 levels of YAML nesting", "PYVERIFY_MAX_YAML_DEPTH"]),
    ("yaml-nested-mappings", "claims: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n", "list", 2, ["FILE:1:", "65 exceeds the cap of 64 levels of YAML nesting"]),
    ("yaml-nested-1000", "claims: " + "[" * 1000 + "]" * 1000 + "\n", "list", 2, ["FILE:1:", "levels of YAML nesting", "PYVERIFY_MAX_YAML_DEPTH"]),
    ("yaml-nested-block-indent", "claims:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 100)), "list", 2, ["FILE:65:", "levels of YAML nesting"]),
    ("yaml-compact-dashes", "claims:\n" + "- " * 20000 + "x\n", "list", 2, ["FILE:2:", "levels of YAML nesting"]),
    ("yaml-nested-after-a-quoted-key", "'claims': " + "[" * 3000 + "]" * 3000 + "\n", "list", 2, ["FILE:1:", "levels of YAML nesting"]),
    ("yaml-nested-over-lines", "claims:\n" + "".join("  " + "[" * 10 + "\n" for _ in range(10)) + "]" * 100 + "\n", "list", 2, ["FILE:8:", "levels of YAML nesting"]),
    ("yaml-brackets-in-content", HEADER + claim().replace("statement: s", "statement: '" + "[" * 200 + "'") + "    notes: |\n      " + "{" * 200 + "\n", "list", 0, ["C1"]),
    ("yaml-many-aliases", "a: &a 1\nclaims: [" + ", ".join(["*a"] * 2000) + "]\n", "list", 2, ["FILE:2:", "1001 exceeds the cap of 1000 YAML alias references", "PYVERIFY_MAX_YAML_ALIASES"]),
    ("billion-laughs", "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefg", "bcdefgh")) + "claims: [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n", "list", 2, ["FILE:1:", "aliases included", "PYVERIFY_MAX_YAML_NODES"]),
    ("nul-in-scalar", HEADER + claim().replace("statement: s", "statement: \"a\0b\""), "list", 2, ["FILE:11:", "column 18", "control character"]),
    ("bell-character", HEADER + claim().replace("title: A claim", "title: A\x07claim"), "list", 2, ["FILE:7:", "control character"]),
    ("not-utf8", (HEADER + claim()).replace("statement: s", "statement: \udcff"), "list", 2, ["FILE:11:", "not UTF-8"]),
    ("malformed-yaml", HEADER + "  - id: C1\n    title: [unclosed\n", "list", 2, ["FILE:", "YAML error"]),
    ("bad-indentation", HEADER + claim() + "   kind: x\n  bad", "list", 2, ["FILE:", "YAML error"]),
    ("tab-indentation", HEADER + "\t- id: C1\n", "list", 2, ["FILE:", "YAML error"]),
    ("python-object-tag", HEADER + claim(f"notes: !!python/object/apply:os.system ['touch {MARKER}']"), "list", 2, ["FILE:12:", "YAML error"]),
    ("python-name-tag", HEADER + claim("notes: !!python/name:os.system"), "list", 2, ["FILE:12:", "YAML error"]),
    ("python-module-tag", f"!!python/object/new:os.system ['touch {MARKER}']\n", "list", 2, ["FILE:1:", "YAML error"]),
    ("custom-tag", HEADER + claim("notes: !include /etc/passwd"), "list", 2, ["FILE:12:", "YAML error"]),
    ("empty-file", "", "list", 2, ["FILE:1:", "empty file"]),
    ("only-a-comment", "# nothing\n", "list", 2, ["FILE:1:", "empty file"]),
    ("top-level-list", "- a\n- b\n", "list", 2, ["FILE:1:", "top level must be a mapping"]),
    ("top-level-scalar", "hello\n", "list", 2, ["FILE:1:", "top level must be a mapping"]),
]

CASES += LOADER_CASES + [
    ("unknown-top-level-key", HEADER + claim() + "extra: 1\n", "list", 2, ["FILE:12:", "unknown top-level key"]),
    ("claims-not-a-list", "documents: []\nclaims: {a: 1}\n", "list", 2, ["FILE:2:", "must be a list"]),
    ("claim-not-a-mapping", HEADER + "  - just a string\n", "list", 2, ["FILE:5:", "must be a mapping"]),
    ("duplicate-key", HEADER + claim("title: again"), "list", 2, ["FILE:12:", "duplicate key 'title'"]),
    ("duplicate-id", HEADER + claim() + claim(), "list", 2, ["FILE:12:", "[C1]", "duplicate id"]),
    ("id-5000-characters", HEADER + claim(cid="C" * 5000), "list", 2, ["FILE:", "id", "at most 64"]),
    ("id-bad-characters", HEADER + claim(cid="'C1; rm -rf /'"), "list", 2, ["FILE:6:", "id", "pattern"]),
    ("unknown-field", HEADER + claim("colour: red"), "list", 2, ["FILE:12:", "[C1]", "unknown field"]),
    ("misspelt-field", HEADER + claim("dep: [C2]"), "list", 2, ["FILE:12:", "[C1]", "did you mean 'deps'"]),
    ("missing-field", HEADER + "  - id: C1\n    title: t\n", "list", 2, ["FILE:", "[C1]", "required field is missing"]),
    ("wrong-type-kind", HEADER + claim().replace("kind: identity", "kind: 42"), "list", 2, ["FILE:10:", "[C1]", "kind"]),
    ("wrong-type-deps", HEADER + claim("deps: 7"), "list", 2, ["FILE:12:", "[C1]", "deps"]),
    ("unknown-document", HEADER + claim().replace("document: doc", "document: nope"), "list", 2, ["FILE:8:", "[C1]", "unknown document"]),
    ("unknown-verdict", HEADER + claim("expect: true-ish"), "list", 2, ["FILE:12:", "[C1]", "expect"]),
    ("dims-empty-list", checked("x: 'vec(d)'", "x == x", "dims: {d: []}"), "check", 2, ["FILE:15:", "[C1]", "non-empty list"]),
    ("dims-string", checked("x: 'vec(d)'", "x == x", "dims: {d: three}"), "check", 2, ["FILE:15:", "[C1]", "a number"]),
    ("dims-fractional-size", checked("x: 'vec(d)'", "x == x", "dims: {d: [2.5]}"), "check", 2, ["[C1]", "must be an integer"]),
    ("tol-negative", checked("x: 'vec(3)'", "x == x", "tol: -1"), "check", 2, ["FILE:15:", "[C1]", "tol", "greater than 0"]),
    ("tol-infinite", checked("x: 'vec(3)'", "x == x", "tol: .inf"), "check", 2, ["FILE:15:", "[C1]", "tol", "finite"]),
    ("tol-nan", checked("x: 'vec(3)'", "x == x", "tol: .nan"), "check", 2, ["FILE:15:", "[C1]", "tol"]),
    ("lo-above-hi", checked("x: 'vec(3, lo=5, hi=1)'", "x == x"), "check", 2, ["FILE:13:", "[C1]", "lo <= hi"]),
    ("unknown-sampler", checked("x: 'frobnicate(3)'", "x == x"), "check", 2, ["FILE:13:", "[C1]", "frobnicate"]),
    ("unknown-function", checked("x: 'vec(3)'", "frobnicate(x) == x"), "check", 2, ["FILE:14:", "[C1]", "not in the whitelist"]),
    ("composite-as-matrix", checked("gen: 'skew_family(3, 2)'", "norm(gen) >= 0"), "check", 0, ["C1", "error", "composite hypothesis", "gen.L"]),
    # --- expressions reaching for Python (each would create the marker)
    ("dunder-import", checked("x: 'vec(3)'", touch() + " == 0"), "check", 2, ["FILE:14:", "[C1]", "only whitelisted functions"]),
    ("attribute-class", checked("x: 'vec(3)'", "x.__class__ == x"), "check", 2, ["FILE:14:", "[C1]", "'__class__' is not allowed"]),
    ("attribute-chain", checked("x: 'vec(3)'", "x.T.T.numpy == x"), "check", 2, ["FILE:14:", "[C1]", "only `.T`"]),
    ("lambda", checked("x: 'vec(3)'", "(lambda: 0)() == x"), "check", 2, ["FILE:14:", "[C1]", "only whitelisted functions"]),
    ("list-comprehension", checked("x: 'vec(3)'", "[c for c in ().__class__.__bases__] == x"), "check", 2, ["FILE:14:", "[C1]", "not allowed"]),
    ("generator-escape", checked("x: 'vec(3)'", "sum(k for k in ().__class__.__base__.__subclasses__()) == x"), "check", 2, ["FILE:14:", "[C1]", "range"]),
    ("walrus", checked("x: 'vec(3)'", "(y := x) == x"), "check", 2, ["FILE:14:", "[C1]", "not allowed"]),
    ("fstring", checked("x: 'vec(3)'", "f\"{x}\" == x"), "check", 2, ["FILE:14:", "[C1]", "not allowed"]),
    ("eval-call", checked("x: 'vec(3)'", "eval(\"1\") == x"), "check", 2, ["FILE:14:", "[C1]", "not in the whitelist"]),
    ("getattr-call", checked("x: 'vec(3)'", "getattr(x, \"T\") == x"), "check", 2, ["FILE:14:", "[C1]", "not in the whitelist"]),
    ("keyword-splat", checked("x: 'vec(3)'", "norm(**x) == x"), "check", 2, ["FILE:14:", "[C1]", "keyword argument not allowed"]),
    ("sampler-injection", checked(f"x: 'vec(__import__(\"os\").system(\"touch {MARKER}\"))'", "x == x"), "check", 2, ["FILE:13:", "[C1]"]),
    ("where-injection", HEADER + claim(f"check:\n  given: {{x: 'vec(3)'}}\n  where: {{y: 'open(\"{MARKER}\", \"w\")'}}\n  assert: 'x == x'"), "check", 2, ["FILE:14:", "[C1]", "not in the whitelist"]),
]


def _run(tmp_path: Path, text: str, command: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    registry = tmp_path / "registry.yaml"
    registry.write_bytes(text.encode("utf-8", "surrogateescape"))
    args = command.split()
    if args[0] == "check":
        args += ["--budget", "quick", "--no-progress", "--jobs", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(extra_env or {})}
    return subprocess.run([sys.executable, "-m", "pyverify", *args, "--registry", str(registry)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=env)


def test_the_corpus_is_large_and_distinct():
    names = [c[0] for c in CASES]
    assert len(names) >= 60 and len(set(names)) == len(names)


@pytest.mark.parametrize("case, text, command, code, words", CASES, ids=[c[0] for c in CASES])
def test_hostile_registry_gets_a_clear_answer(tmp_path, case, text, command, code, words):
    _assert_clear_answer(tmp_path, text, command, code, words)


@pytest.mark.parametrize("case, text, command, code, words", LOADER_CASES, ids=[c[0] for c in LOADER_CASES])
def test_the_pure_python_yaml_parser_gives_the_same_answer(tmp_path, case, text, command, code, words):
    _assert_clear_answer(tmp_path, text, command, code, words, {"PYVERIFY_YAML_PURE": "1"})


def test_both_yaml_parsers_are_really_used():
    """The switch reaches two different parsers (where PyYAML was built with libyaml)."""
    import yaml

    from pyverify.registry import loader

    if not hasattr(yaml, "CSafeLoader"):
        pytest.skip("this PyYAML has no libyaml parser")
    default = loader._loader()
    os.environ["PYVERIFY_YAML_PURE"] = "1"
    try:
        assert issubclass(default, yaml.CSafeLoader)
        assert loader._loader() is not default and issubclass(loader._loader(), yaml.SafeLoader)
    finally:
        del os.environ["PYVERIFY_YAML_PURE"]


def _assert_clear_answer(tmp_path, text, command, code, words, extra_env=None):
    proc = _run(tmp_path, text, command, extra_env)
    answer = proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == code, answer[-2000:]
    for word in words:
        assert word.replace("FILE", "registry.yaml") in answer, (word, answer[-2000:])
    assert not (tmp_path / MARKER).exists(), "a registry ran code"
