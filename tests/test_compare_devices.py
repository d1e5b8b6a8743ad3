"""scripts/compare_devices.py, the CPU-versus-CUDA verdict comparison, can fail (and passes what may differ)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO

SCRIPT = REPO / "scripts" / "compare_devices.py"
CPU = [{"id": "X.1", "verdict": "holds", "worst": 1e-15, "message": "worst 1e-15"},
       {"id": "X.2", "verdict": "refuted", "worst": 3.0, "message": "counterexample", "witness": {"values": [1.25]}}]


def _run(tmp_path, cuda_claims: list[dict], **cuda_fields) -> subprocess.CompletedProcess:
    runs = ({"seed": 0, "device": "cpu", "budget": "quick", "claims": CPU},
            {"seed": 0, "device": "cuda", "budget": "quick", "claims": cuda_claims} | cuda_fields)
    for name, run in zip(("cpu.json", "cuda.json"), runs):
        (tmp_path / name).write_text(json.dumps(run))
    return subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "cpu.json"), str(tmp_path / "cuda.json")],
                          capture_output=True, text=True, timeout=60)


def test_other_witness_digits_and_worst_figures_pass(tmp_path):
    other = [CPU[0] | {"worst": 3e-15, "message": "worst 3e-15"},
             CPU[1] | {"worst": 2.5, "witness": {"values": [0.75]}}]
    out = _run(tmp_path, other)
    assert out.returncode == 0, out.stdout
    assert "0 difference(s)" in out.stdout and "0.667 (X.1)" in out.stdout  # the spread of worst figures shown


def test_a_flipped_verdict_fails(tmp_path):
    out = _run(tmp_path, [CPU[0] | {"verdict": "refuted"}, CPU[1]])
    assert out.returncode == 1 and "X.1: verdicts differ: cpu holds / cuda refuted" in out.stdout


def test_an_error_on_cuda_fails_and_shows_why(tmp_path):
    message = "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'"
    out = _run(tmp_path, [CPU[0], CPU[1] | {"verdict": "error", "message": message}])
    assert out.returncode == 1 and "X.2: error on cuda" in out.stdout and "device type for generator" in out.stdout


def test_an_error_on_both_devices_fails_too(tmp_path):
    CPU.append({"id": "X.3", "verdict": "error", "message": "boom"})
    try:
        out = _run(tmp_path, [*CPU[:2], {"id": "X.3", "verdict": "error", "message": "boom"}])
    finally:
        CPU.pop()
    assert out.returncode == 1 and "X.3: error on cpu and cuda" in out.stdout


def test_a_missing_claim_or_another_seed_fails(tmp_path):
    out = _run(tmp_path, CPU[:1])
    assert out.returncode == 1 and "X.2: only in the cpu run" in out.stdout
    out = _run(tmp_path, CPU, seed=1)
    assert out.returncode == 1 and "run field seed" in out.stdout


def test_unusable_input_exits_2(tmp_path):
    (tmp_path / "cpu.json").write_text("{not json")
    (tmp_path / "cuda.json").write_text("{}")
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "cpu.json"), str(tmp_path / "cuda.json")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "not a readable JSON file" in out.stderr and "Traceback" not in out.stderr


def test_a_chunked_device_run_cut_by_its_deadline_compares_what_finished_and_says_so(tmp_path):
    """A device run too slow for its limit (issue 20's first CUDA runs) still compares the chunks that
    finished, names how many claims it left out and does not pass as complete (exit 3)."""
    out = subprocess.run([sys.executable, str(SCRIPT), "--run", "--device", "cpu", "--jobs", "1", "--chunk", "1",
                          "--deadline", "0", "--keep", str(tmp_path), "--only", "T4.4", "PE.Lem11"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "1 claims on cpu / 1 on cpu; 0 difference(s)" in out.stdout
    assert "PARTIAL: 1 claim(s) of the CPU run were not run on cpu" in out.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cpu.json", "on-cpu-000.json"]
