"""benchmarks/bench_layer.py (and so benchmarks/gpu_check.sh, which a GPU session runs in one go) works: its
smoke run on CPU prints the ratio table and the operator counts. No timing is asserted."""

import sys
from pathlib import Path

import torch

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_layer_benchmark_smoke_run(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_layer

    threads = torch.get_num_threads()
    try:
        assert bench_layer.main(["--smoke", "--modes", "fp32,bf16", "--threads", "1"]) == 0
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.strip().startswith("2    32    64   2")]
    assert len(rows) == 4 and all(len(r.split("|")[-1].split()) == 4 for r in rows)  # fwd, fwd+bwd per mode
    assert "aten operators per call" in out and "[0]" in out
    sys.modules.pop("bench_layer", None)
