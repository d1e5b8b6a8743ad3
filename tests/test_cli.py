"""The command-line contract of DESIGN.md: formats, exit codes, --registry."""

from __future__ import annotations

import json
import re

import pytest

from pyverify.cli import main

from conftest import REPO, claim_yaml

PLANTED = str(REPO / "tests" / "meta" / "planted.yaml")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json_has_the_contract_fields(capsys):
    code, out, _ = run(capsys, "list", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and len(rows) >= 276
    assert {"id", "document", "kind", "title", "statement", "deps"} <= set(rows[0])
    ids = {r["id"] for r in rows}
    assert {"T0.1", "T8'.1bis", "T8'.23", "ESPR.Thm2", "S4.stack", "PE.Table4", "RGAT.Alg"} <= ids


def test_list_text(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0 and re.search(r"\d+ claims in 4 documents", out)


def test_graph_formats_and_check(capsys):
    code, out, _ = run(capsys, "graph", "--check")
    assert code == 0 and "graph check: ok" in out
    code, out, _ = run(capsys, "graph", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["problems"] == [] and data["edges"] and data["findings"]
    code, out, _ = run(capsys, "graph", "--format", "dot")
    assert code == 0 and out.startswith("digraph") and '"T2.9" -> ' in out


def test_graph_check_fails_on_a_planted_fault(capsys, make_registry):
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("T1.1", deps="[T9.9]") + claim_yaml("T2.1")})
    code, _, err = run(capsys, "graph", "--check", "--registry", str(root))
    assert code == 1 and "unknown-dep" in err and "a.yaml:" in err


def test_unusable_registry_exits_2_with_file_and_line(capsys, make_registry):
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("A.1", kind="lemma")})
    for cmd in (["list"], ["graph"], ["check"]):
        code, _, err = run(capsys, *cmd, "--registry", str(root))
        assert code == 2 and "a.yaml:6" in err


def test_check_json_contract_and_exit_codes(capsys):
    code, out, _ = run(capsys, "check", "P.sign-relative", "P.unsat-range", "--registry", PLANTED,
                       "--budget", "quick", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["seed"] == 0 and data["device"] == "cpu"
    c = data["claims"][0]
    assert {"id", "verdict", "expect", "worst", "instances", "elapsed_s", "witness", "message"} <= set(c)
    assert "witness" not in data["claims"][1]


def test_check_exit_1_when_a_verdict_differs(capsys, make_registry):
    text = "claims:\n" + claim_yaml("A.1", extra="check: {given: {x: 'vec(3)'}, assert: 'x == 2 * x'}\nexpect: holds\n")
    code, out, _ = run(capsys, "check", "--registry", str(make_registry({"a.yaml": text})), "--budget", "quick")
    assert code == 1 and "expected holds" in out


def test_check_unknown_id_exits_2(capsys):
    code = None
    try:
        code = main(["check", "No.such", "--registry", PLANTED])
    except SystemExit as exc:
        code = exc.code
    assert code == 2


def test_check_cuda_without_gpu_is_a_clear_error(capsys, tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: the no-GPU error cannot be shown here")
    code, _, err = run(capsys, "check", "P.sign-relative", "--registry", PLANTED, "--device", "cuda")
    assert code == 2 and "no CUDA device" in err
    # the report too refuses before any work (it used to check every claim into `error` and exit 0)
    code, out, err = run(capsys, "report", "--registry", PLANTED, "--device", "cuda:1", "--out", str(tmp_path / "r"))
    assert code == 2 and "no CUDA device" in err and not (tmp_path / "r" / "report.json").exists()


@pytest.mark.parametrize("spec, said", [("gpu", "not a device"), ("meta", "not meta"), ("cuda:x", "not a device")])
def test_check_unusable_device_is_a_clear_error(capsys, spec, said):
    code, out, err = run(capsys, "check", "P.sign-relative", "--registry", PLANTED, "--device", spec)
    assert code == 2 and said in err and "Traceback" not in err and not out


def test_same_seed_same_json_byte_for_byte(capsys, tmp_path):
    outs = []
    for _ in range(2):
        code, out, _ = run(capsys, "check", "--registry", PLANTED, "--budget", "quick", "--seed", "7", "--format", "json")
        outs.append(re.sub(r'"elapsed_s": [0-9.e-]+', '"elapsed_s": 0', out))
    assert outs[0] == outs[1]
    code, out, _ = run(capsys, "check", "--registry", PLANTED, "--budget", "quick", "--seed", "8", "--format", "json")
    assert re.sub(r'"elapsed_s": [0-9.e-]+', '"elapsed_s": 0', out) != outs[0], "the seed matters"
    # worker processes (the default on a multi-core machine) and one process give the same bytes
    for jobs in ("1", "2"):
        code, out, _ = run(capsys, "check", "--registry", PLANTED, "--budget", "quick", "--seed", "7", "--format", "json",
                           "--jobs", jobs)
        assert re.sub(r'"elapsed_s": [0-9.e-]+', '"elapsed_s": 0', out) == outs[0], f"--jobs {jobs}"


def test_out_file_and_schema(capsys, tmp_path):
    out_file = tmp_path / "r.json"
    code, _, _ = run(capsys, "check", "P.unsat-range", "--registry", PLANTED, "--budget", "quick", "--out", str(out_file))
    assert code == 0 and json.loads(out_file.read_text())["claims"][0]["verdict"] == "vacuous"
    code, out, _ = run(capsys, "schema")
    assert code == 0 and json.loads(out)["properties"]["claims"]


def test_out_into_a_missing_folder_is_written(capsys, tmp_path):
    out_file = tmp_path / "not" / "yet" / "r.json"
    code, out, _ = run(capsys, "check", "P.unsat-range", "--registry", PLANTED, "--budget", "quick", "--out", str(out_file))
    assert code == 0 and json.loads(out_file.read_text())["claims"][0]["verdict"] == "vacuous"


def test_out_that_cannot_be_written_fails_before_the_run(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, out, err = run(capsys, "check", "P.unsat-range", "--registry", PLANTED, "--budget", "quick",
                         "--out", str(blocker / "r.json"))
    assert code == 2 and f"--out {blocker / 'r.json'}" in err and "vacuous" not in out  # nothing ran


def test_a_failed_final_write_exits_2_naming_the_path_and_keeps_the_verdicts(capsys, tmp_path, monkeypatch):
    import shutil

    import pyverify.engine as engine

    folder = tmp_path / "gone"
    original = engine.check_claims

    def check_then_lose_the_folder(*args, **kwargs):
        results = original(*args, **kwargs)
        shutil.rmtree(folder)  # a cleaner, a full disk, an unmounted share: the final write fails
        return results

    monkeypatch.setattr(engine, "check_claims", check_then_lose_the_folder)
    code, out, err = run(capsys, "check", "P.unsat-range", "--registry", PLANTED, "--budget", "quick",
                         "--out", str(folder / "r.json"))
    assert code == 2 and f"--out {folder / 'r.json'}: the result could not be written" in err
    assert "P.unsat-range" in out and "vacuous" in out  # the verdicts are still shown


def test_a_check_that_does_not_compile_is_an_input_error_at_load(capsys, make_registry):
    # found by validation before anything runs: exit 2, file:line of the `given` entry and the claim id
    extra = "check:\n  given:\n    x: 'vec(3, hii=4)'\n  assert: 'x == x'\n"
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("A.1", extra=extra)})
    for cmd in (["check"], ["report", "--out", str(root.parent / "out")]):
        code, _, err = run(capsys, *cmd, "--registry", str(root))
        assert code == 2 and "a.yaml:11: [A.1]" in err and "did you mean 'hi'" in err, err


def test_pytest_collection_names_file_line_and_claim(make_registry):
    import subprocess
    import sys

    extra = "check:\n  given:\n    pi: 'vec(3)'\n  assert: 'pi == pi'\n"
    root = make_registry({"a.yaml": "claims:\n" + claim_yaml("A.1", extra=extra)})
    import os

    # autoload off: the plugin is loaded once, by -p, whether or not the entry point is installed
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "pyverify.pytest_plugin", "-p", "no:cacheprovider",
                           str(root / "a.yaml")], capture_output=True, text=True, cwd=root.parent, timeout=300, env=env)
    assert proc.returncode != 0
    assert "a.yaml:11: [A.1]" in proc.stdout and "would shadow a constant" in proc.stdout, proc.stdout
