"""benchmarks/gpu_check.sh, the one script a session with a GPU runs (its device time is 15 minutes: a broken
step there costs the whole measurement), works end to end: its smoke run, with the CPU standing in for the
card, goes through every step and brings back its log and its verdict files."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile

from conftest import REPO


def test_the_gpu_script_runs_every_step_in_its_smoke_run(tmp_path):
    env = {**os.environ, "PYTHON": sys.executable, "OUT": str(tmp_path), "CPU_JOBS": "1", "CUDA_JOBS": "1"}
    done = subprocess.run(["bash", "benchmarks/gpu_check.sh", "--smoke"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=900)
    log = (tmp_path / "gpu_check.log").read_text()
    assert done.returncode == 0, log[-3000:]
    for step in ("device", "precision tests", "where the CUDA time goes", "verdicts at quick, CPU against CUDA",
                 "layer table"):
        assert f"== {step}: exit 0" in log, (step, log[-3000:])
    assert "T4.4 on cpu: holds" in log  # the profiled claim
    assert "4 claims on cpu / 4 on cpu; 0 difference(s)" in log
    with tarfile.open(tmp_path / "verdicts.tgz") as kept:
        assert sorted(n for n in kept.getnames() if n.endswith(".json")) == ["./quick/cpu.json", "./quick/on-cpu-000.json"]
