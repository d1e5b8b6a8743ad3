"""The Lean reader on every form of a valid Lean 4 file (tests/lean_fixtures/forms, written for these
tests), and the script that measures it on whole projects.

The corpus covers scopes left open at the end of a file, dotted namespaces closed in parts,
`noncomputable section`, the module system's `public section`, `variable`/`open … in`/`set_option … in`,
notations, macros, syntax, `where`, `termination_by`/`decreasing_by`, `mutual`, instances (named,
anonymous, with a priority), structures, classes, abbreviations, attributes, `private`/`protected`,
nested comments, docstrings, module docs, `#check`-like commands and `#exit`.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO

from pyverify.provers.lean import index
from pyverify.provers.lean.index import index_text
from pyverify.provers.lean.tokens import LeanSyntaxError, tokenize

FORMS = REPO / "tests" / "lean_fixtures" / "forms"


def _read(name: str) -> dict:
    return {d.name: d for d in index_text((FORMS / name).read_text(), name)}


def test_scopes_dotted_namespaces_open_sections_and_docstrings():
    decls = _read("Scopes.lean")
    assert set(decls) == {"Alpha.Beta.in_both", "Alpha.in_alpha", "Alpha.Gamma.in_gamma", "in_named_section",
                          "at_root", "half", "Open.left_open_at_the_end"}
    # `noncomputable section` and `namespace Open` are never closed: Lean closes them at the end of the file
    assert decls["Open.left_open_at_the_end"].kind == "theorem"
    assert decls["half"].doc.startswith("A docstring with a /- nested -/ comment") and not decls["half"].sorry


def test_commands_between_declarations_and_exit():
    decls = _read("Commands.lean")
    assert set(decls) == {"after_open_in", "after_set_option_in", "with_variable_in", "Tag", "after_commands",
                          "universe_params", "after_guard_msgs"}  # nothing after `#exit`, garbage included
    stmt = decls["after_set_option_in"]
    assert " ".join(t.text for t in stmt.statement) == "| x | ≤ | x | + 1"  # `|x|` does not end a statement
    assert stmt.doc == "Documented, after `set_option ... in`."
    assert [t.text for t in stmt.body][:2] == ["by", "have"]
    # `#check`, `#eval`, `#print` are commands of their own, not part of the declaration before them
    assert decls["after_commands"].end_line == decls["after_commands"].line
    assert all(d.kind != "instance" for d in decls.values())  # attribute [local instance], deriving instance


def test_declaration_forms():
    decls = _read("Declarations.lean")
    kinds = {name.removeprefix("Decls."): d.kind for name, d in decls.items()}
    assert kinds == {
        "withWhere": "def", "fact": "def", "halve": "def", "isEven": "def", "isOdd": "def", "Point": "structure",
        "HasSize": "class", "Good": "inductive", "Color": "inductive", "Pair": "abbrev",
        "_instance_L47": "instance", "instHasSizeColor": "instance", "instHasSizePair": "instance",
        "attr_on_its_own_line": "theorem", "two_attrs": "lemma", "private_two": "theorem",
        "Point.protected_one": "theorem", "ncDef": "def", "ncPrivate": "def", "abs_statement": "theorem",
        "_example_L71": "example", "hidden": "opaque", "assumed": "axiom"}
    assert decls["Decls.halve"].end_line == 19  # termination_by and decreasing_by belong to it
    assert decls["Decls.attr_on_its_own_line"].line == 54  # the declaration starts at its attribute
    abs_stmt = decls["Decls.abs_statement"]
    assert " ".join(t.text for t in abs_stmt.params) == "( x : ℝ ) ( hx : | x | ≤ 1 )"
    assert " ".join(t.text for t in abs_stmt.statement) == "| x | ≤ 2"
    assert [t.text for t in decls["Decls.fact"].body][:3] == ["0", "=>", "1"]  # equations start at `|`


def test_the_corpus_is_read_whole_by_the_project_index():
    idx = index(FORMS)
    assert not idx.errors and len(idx.declarations) == 7 + 7 + 23


def test_dependencies_in_hidden_folders_are_not_the_project(tmp_path):
    (tmp_path / "Mine.lean").write_text("theorem mine : True := trivial\n")
    dep = tmp_path / ".lake" / "packages" / "mathlib"
    dep.mkdir(parents=True)
    (dep / "Big.lean").write_text("theorem theirs : True := trivial\n")
    assert [d.name for d in index(tmp_path).declarations] == ["mine"]


@pytest.mark.parametrize("text, message", [
    ("namespace A\ntheorem t : True := trivial\nend A.B\n", "line 3: `end A.B` without an open"),
    ("namespace A.B\nend A.C\n", "line 2: `end A.C` closes namespace A.B"),
    ("section S\nend\nend S\n", "line 3: `end S` without an open"),
    ("/- a comment never closed\ntheorem t : True := trivial\n", "line 1: unterminated block comment"),
])
def test_invalid_scopes_and_comments_are_errors_with_their_line(text, message):
    with pytest.raises(LeanSyntaxError, match=message):
        index_text(text, "x.lean")


def test_command_words_are_single_tokens_but_array_literals_are_not():
    texts = [t.text for t in tokenize("#check x\n#[1, 2]\n#eval y")]
    assert texts == ["#check", "x", "#", "[", "1", ",", "2", "]", "#eval", "y"]


# ------------------------------------------------------------------------------------------ the measurement
SCRIPT = REPO / "scripts" / "measure_lean_reader.py"


def _measure(folder) -> dict:
    proc = subprocess.run([sys.executable, str(SCRIPT), str(folder), "--format", "json"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)[0]


def test_measurement_reads_the_whole_corpus():
    result = _measure(FORMS)
    # the plain count sees the theorem/lemma/def lines of the corpus before `#exit`; `variable (n) in def`
    # does not open its line, so only the reader finds it
    assert result["fraction"] == 1.0 and result["plain_total"] == result["read_total"] == 24
    assert [e.split()[-1] for e in result["extras"]] == ["with_variable_in"]


def test_measurement_reports_every_miss_with_its_reason(tmp_path):
    (tmp_path / "Good.lean").write_text("theorem a : True := trivial\nlemma b : True := trivial\n")
    (tmp_path / "Bad.lean").write_text("namespace A\ndef c : ℕ := 1\nend B\n")  # invalid Lean: the file is rejected
    result = _measure(tmp_path)
    assert (result["plain_total"], result["read_total"]) == (3, 2)
    assert result["misses"] == [{"file": "Bad.lean", "line": 2, "kind": "def", "name": "c",
                                 "reason": "line 3: `end B` closes namespace A"}]
