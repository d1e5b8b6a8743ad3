"""Every kind of bad registry input gives its error with file and line; all errors at once."""

from __future__ import annotations

import pytest

from pyverify.registry import RegistryError, load_registry

from conftest import claim_yaml


def problems(root):
    with pytest.raises(RegistryError) as info:
        load_registry(root)
    return info.value.problems


def only(root):
    ps = problems(root)
    assert len(ps) == 1, [str(p) for p in ps]
    return ps[0]


def test_good_registry_loads(make_registry):
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("A.1") + claim_yaml("A.2", deps="[A.1]")})
    reg = load_registry(root)
    assert list(reg.claims) == ["A.1", "A.2"]
    assert reg.locations["A.2"].line == 9


def test_yaml_syntax_error_names_file_and_line(make_registry):
    root = make_registry({"bad.yaml": "claims:\n  - id: A.1\n    title: [unclosed\n"})
    p = only(root)
    assert p.location.file.endswith("bad.yaml") and p.location.line >= 3
    assert "YAML" in p.message


def test_duplicate_key_is_an_error(make_registry):
    text = "claims:\n" + claim_yaml("A.1") + "    title: again\n"
    p = only(make_registry({"a.yaml": text}))
    assert p.location.line == 9 and "duplicate key 'title'" in p.message


def test_python_tags_are_refused(make_registry):
    p = only(make_registry({"a.yaml": "claims: !!python/object/apply:os.system ['true']\n"}))
    assert p.location.line == 1


def test_missing_field(make_registry):
    text = "claims:\n" + claim_yaml("A.1").replace("    locator: here\n", "")
    p = only(make_registry({"a.yaml": text}))
    assert p.claim_id == "A.1" and p.location.line == 2 and "locator" in p.message and "missing" in p.message


def test_unknown_field_points_at_its_line(make_registry):
    text = "claims:\n" + claim_yaml("A.1", extra="colour: blue\n")
    p = only(make_registry({"a.yaml": text}))
    assert p.location.line == 9 and "colour" in p.message and "unknown field" in p.message


def test_wrong_type_and_bad_kind(make_registry):
    text = "claims:\n" + claim_yaml("A.1", kind="lemma").replace("deps: []", "deps: T0.1")
    ps = problems(make_registry({"a.yaml": text}))
    lines = sorted(p.location.line for p in ps)
    assert lines == [6, 8], [str(p) for p in ps]


def test_unknown_document(make_registry):
    text = "claims:\n" + claim_yaml("A.1").replace("document: doc", "document: nope")
    p = only(make_registry({"a.yaml": text}))
    assert p.location.line == 4 and "unknown document 'nope'" in p.message


def test_duplicate_id_across_files_names_both(make_registry):
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("A.1"), "b.yaml": "claims:\n" + claim_yaml("A.1")})
    p = only(root)
    assert p.location.file.endswith("b.yaml") and "a.yaml:2" in p.message and p.code == "duplicate-id"


def test_bad_id_and_bad_dep_id(make_registry):
    text = "claims:\n" + claim_yaml("A 1") + claim_yaml("A.2", deps="['not an id']")
    ps = problems(make_registry({"a.yaml": text}))
    assert {p.location.line for p in ps} == {2, 15}


def test_bad_convention_value(make_registry):
    text = "claims:\n" + claim_yaml("A.1", extra="conventions: {rotor: 'exp(2u)'}\n")
    p = only(make_registry({"a.yaml": text}))
    assert "rotor" in p.message and p.location.line == 9


def test_finding_without_target_and_truncation_mismatch(make_registry):
    text = "claims:\n" + claim_yaml("A.1", extra="findings:\n  - {type: forward-dep, note: n}\n")
    text += claim_yaml("A.2", extra="deps_truncated: true\n")
    ps = problems(make_registry({"a.yaml": text}))
    msgs = sorted(p.message for p in ps)
    assert any("needs `target`" in m for m in msgs) and any("deps_truncated" in m for m in msgs)


def test_top_level_shape(make_registry):
    ps = problems(make_registry({"a.yaml": "- just a list\n", "b.yaml": "claim: []\n", "c.yaml": ""}))
    files = sorted(p.location.file.rsplit("/", 1)[-1] for p in ps)
    assert files == ["a.yaml", "b.yaml", "c.yaml"]


def test_every_error_is_reported_not_just_the_first(make_registry):
    root = make_registry({
        "a.yaml": "claims:\n" + claim_yaml("A.1", kind="lemma") + claim_yaml("A.2").replace("title: t", "title: [x"),
        "b.yaml": "claims:\n" + claim_yaml("B.1").replace("document: doc", "document: other"),
    })
    ps = problems(root)
    assert len({p.location.file for p in ps}) == 2 and len(ps) >= 2


def test_missing_registry_path(tmp_path):
    p = only(tmp_path / "nowhere")
    assert "no such registry" in p.message


def test_bad_check_shape_is_a_registry_error(make_registry):
    text = "claims:\n" + claim_yaml("A.1", extra="check: {given: {x: 3}, assert: 'x == x'}\n")
    p = only(make_registry({"a.yaml": text}))
    assert p.location.line == 9 and "given" in p.message


def test_json_schema_covers_claims():
    from pyverify.registry import claim_file_schema

    schema = claim_file_schema()
    item = schema["properties"]["claims"]["items"]
    assert {"id", "deps", "check", "expect"} <= set(item["properties"])


def test_committed_json_schema_is_current():
    import json

    from conftest import REPO

    committed = json.loads((REPO / "docs" / "claims.schema.json").read_text())
    assert committed == claim_file_schema_now(), "run `pyverify schema --out docs/claims.schema.json`"


def claim_file_schema_now():
    from pyverify.registry import claim_file_schema

    return claim_file_schema()
