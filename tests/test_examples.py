"""`examples:` of a check (fixed instances before the random ones) and `pyverify check ID --pin-witness`."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch
import yaml

from pyverify.cli import main
from pyverify.registry.pin import example_text

HEAD = """\
documents:
  - key: d
    title: "examples"
    files: [x]
claims:
"""


def _claim(cid: str, check: str, expect: str = "holds") -> str:
    return (f"  - id: {cid}\n    title: t\n    document: d\n    locator: x\n    kind: identity\n    statement: s\n"
            f"    check:\n{textwrap.indent(textwrap.dedent(check), '      ')}    expect: {expect}  # kept\n")


WRONG = _claim("X.1", """\
    given: {a: vec(3), b: vec(3)}
    assert: "dot(a, b) == dot(a, a)"
""")
# wrong only at a needle: |a| within 1e-6 of 1.5 — random search at the quick budget does not hit it
NEEDLE = _claim("X.2", """\
    given: {a: "scalar(0, 2)"}
    assert: "minimum(abs(a - 1.5), 1e-6) == 1e-6"
""")


def _run(tmp_path, capsys, *args):
    code = main(["check", "--registry", str(tmp_path / "reg.yaml"), "--budget", "quick", "--format", "json", *args])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out.strip() else None), out.err


def test_pinned_witness_refutes_with_no_random_instance(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reg.yaml").write_text(HEAD + WRONG)
    code, data, err = _run(tmp_path, capsys, "X.1", "--pin-witness")
    assert code == 1 and data["claims"][0]["verdict"] == "refuted" and "pinned" in err
    text = (tmp_path / "reg.yaml").read_text()
    assert "# kept" in text  # a text edit: the rest of the file untouched
    example = yaml.safe_load(text)["claims"][0]["check"]["examples"][0]
    witness = data["claims"][0]["witness"]["values"]  # the JSON output rounds; the pinned values are exact
    assert example.keys() == witness.keys() and all(example[k] == pytest.approx(witness[k], rel=1e-8) for k in example)
    code, data, err = _run(tmp_path, capsys, "X.1", "--pin-witness")
    row = data["claims"][0]
    assert row["verdict"] == "refuted" and row["instances"] == 0 and row["witness"]["example"] == 0
    assert "already pinned" in err and len(yaml.safe_load((tmp_path / "reg.yaml").read_text())["claims"][0]["check"]["examples"]) == 1


def test_an_example_catches_what_the_random_search_misses(tmp_path, capsys):
    (tmp_path / "reg.yaml").write_text(HEAD + NEEDLE)
    code, data, _ = _run(tmp_path, capsys)
    assert data["claims"][0]["verdict"] == "holds"  # the needle is missed by random instances
    with_example = NEEDLE.replace('    expect', '      examples:\n        - {a: 1.5}\n    expect')
    (tmp_path / "reg.yaml").write_text(HEAD + with_example)
    code, data, _ = _run(tmp_path, capsys)
    assert code == 1 and data["claims"][0]["verdict"] == "refuted" and data["claims"][0]["instances"] == 0


def test_examples_that_hold_do_not_refute(tmp_path, capsys):
    ok = _claim("X.3", """\
        given: {a: vec(3)}
        assert: "dot(a, a) == vnorm(a) ** 2"
        examples:
          - {a: [0.5, -0.5, 1]}
          - {a: [0, 0, 0]}
    """)
    (tmp_path / "reg.yaml").write_text(HEAD + ok)
    code, data, _ = _run(tmp_path, capsys)
    row = data["claims"][0]
    assert code == 0 and row["verdict"] == "holds" and row["instances"] > 0


@pytest.mark.parametrize("example, needle", [
    ("{a: [1, 2]}", "shape (2,), the hypothesis vec has shape (3,)"),
    ("{b: [1, 2, 3]}", "missing: a"),
    ("{a: [[1, 2], [3]]}", "rectangular"),
    ("{a: 'open(\"x\")'}", "tensor_file"),
])
def test_a_bad_example_is_a_load_error_naming_file_line_and_claim(tmp_path, capsys, example, needle):
    bad = _claim("X.4", f"""\
        given: {{a: vec(3)}}
        assert: "dot(a, a) >= 0"
        examples:
          - {example}
    """)
    (tmp_path / "reg.yaml").write_text(HEAD + bad)
    code, _, err = _run(tmp_path, capsys)
    line = next(i for i, t in enumerate((HEAD + bad).splitlines(), 1) if t.strip().startswith("- {"))
    assert code == 2 and f"reg.yaml:{line}" in err and "X.4" in err and needle in err


def test_an_example_outside_its_hypothesis_is_refused(tmp_path, capsys):
    bad = _claim("X.5", """\
        given: {U: orth(2)}
        assert: "det(U) == 1"
        examples:
          - {U: [[1, 0], [0, 2]]}
    """)
    (tmp_path / "reg.yaml").write_text(HEAD + bad)
    code, _, err = _run(tmp_path, capsys)
    assert code == 2 and "not in the hypothesis" in err


def test_a_sweep_example_picks_its_assignment(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sweep = _claim("X.6", """\
        dims: {n: [2, 3]}
        given: {a: vec(n), b: vec(n)}
        assert: "dot(a, b) == n * 0 + dot(b, a) + (n - 2)"
    """)
    (tmp_path / "reg.yaml").write_text(HEAD + sweep)
    code, data, _ = _run(tmp_path, capsys, "X.6", "--pin-witness")
    assert data["claims"][0]["witness"]["dims"] == {"n": 3}
    example = yaml.safe_load((tmp_path / "reg.yaml").read_text())["claims"][0]["check"]["examples"][0]
    assert example["_dims"] == {"n": 3}
    code, data, _ = _run(tmp_path, capsys)
    assert data["claims"][0]["verdict"] == "refuted" and data["claims"][0]["witness"]["dims"] == {"n": 3}


def test_pin_appends_to_existing_examples_and_refuses_flow_style(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    two = WRONG.replace('    expect', '      examples:\n        - {a: [1, 1, 1], b: [1, 1, 1]}\n    expect')
    (tmp_path / "reg.yaml").write_text(HEAD + two)
    _run(tmp_path, capsys, "X.1", "--pin-witness")
    examples = yaml.safe_load((tmp_path / "reg.yaml").read_text())["claims"][0]["check"]["examples"]
    assert len(examples) == 2 and examples[0] == {"a": [1, 1, 1], "b": [1, 1, 1]}
    flow = HEAD + ('  - {id: X.7, title: t, document: d, locator: x, kind: identity, statement: s, '
                   'check: {given: {a: vec(2)}, assert: "dot(a, a) == 1"}}\n')
    (tmp_path / "reg.yaml").write_text(flow)
    code, _, err = _run(tmp_path, capsys, "X.7", "--pin-witness")
    assert "not pinned" in err and (tmp_path / "reg.yaml").read_text() == flow


WRONG_TOO = _claim("X.8", """\
    given: {a: vec(2), b: vec(2)}
    assert: "dot(a, b) == dot(b, b)"
""")


def test_two_claims_of_one_file_are_both_pinned(tmp_path, capsys, monkeypatch):
    """The second pin used the line numbers of the file before the first was written (an IndexError that
    left the file half-edited and lost the verdict table)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reg.yaml").write_text(HEAD + WRONG + WRONG_TOO)
    code, data, err = _run(tmp_path, capsys, "X.1", "X.8", "--pin-witness")
    assert code == 1 and [c["verdict"] for c in data["claims"]] == ["refuted", "refuted"], err
    claims = yaml.safe_load((tmp_path / "reg.yaml").read_text())["claims"]
    assert [len(c["check"]["examples"]) for c in claims] == [1, 1] and "# kept" in (tmp_path / "reg.yaml").read_text()
    assert set(claims[0]["check"]["examples"][0]) == {"a", "b"} and len(claims[1]["check"]["examples"][0]["a"]) == 2
    code, data, _ = _run(tmp_path, capsys, "X.1", "X.8")
    assert [c["witness"]["example"] for c in data["claims"]] == [0, 0]


def test_pinning_is_all_or_nothing_across_files(tmp_path, capsys, monkeypatch):
    """One claim that cannot be pinned (a flow-style check in another file): no file is written, and the
    verdict table is still printed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reg").mkdir()
    (tmp_path / "reg" / "a.yaml").write_text(HEAD + WRONG)
    flow = ("claims:\n  - {id: X.7, title: t, document: d, locator: x, kind: identity, statement: s, "
            'check: {given: {a: vec(2)}, assert: "dot(a, a) == 1"}}\n')
    (tmp_path / "reg" / "b.yaml").write_text(flow)
    before = {f: (tmp_path / "reg" / f).read_text() for f in ("a.yaml", "b.yaml")}
    code = main(["check", "--registry", "reg", "--budget", "quick", "X.1", "X.7", "--pin-witness"])
    out = capsys.readouterr()
    assert code == 1 and "X.1" in out.out and "X.7" in out.out and "2 claims:" in out.out
    assert "no file changed" in out.err and "flow style" in out.err
    assert {f: (tmp_path / "reg" / f).read_text() for f in before} == before


def test_pin_needs_ids(tmp_path, capsys):
    (tmp_path / "reg.yaml").write_text(HEAD + WRONG)
    assert _run(tmp_path, capsys, "--pin-witness")[0] == 2


def test_example_text_round_trips_floats():
    values = {"a": [0.1, 1 / 3, -0.0, 1e-300]}
    assert yaml.safe_load(example_text(values)) == values
    assert torch.tensor(yaml.safe_load(example_text(values))["a"], dtype=torch.float64).tolist() == values["a"]


def test_an_example_may_read_a_tensor_file(tmp_path, capsys):
    import numpy as np

    np.savez(tmp_path / "w.npz", a=np.array([0.5, 0.0, 0.0]))
    claim = _claim("X.8", """\
        given: {a: vec(3)}
        assert: "dot(a, a) == 0.2"
        examples:
          - {a: 'tensor_file("w.npz", key="a")'}
    """)
    (tmp_path / "reg.yaml").write_text(HEAD + claim)
    code, data, _ = _run(tmp_path, capsys)
    row = data["claims"][0]
    assert row["verdict"] == "refuted" and row["witness"]["values"]["a"] == [0.5, 0.0, 0.0]
