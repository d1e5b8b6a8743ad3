"""Benchmark of structured positional rotations (prints ratios measured side by side in one run).

Applying R_STR(r) to N vectors: the fast path ``rstr_apply`` (rotation in U's basis, O(d^2) per token;
O(d) with U = I) against the definition (dense matrix exponential per token, O(d^3), then a matvec).
The ESPR attention layer against RoPE attention is ``bench_layer.py``.

Timings are medians of interleaved repetitions (robust to a noisy shared machine); float32, on the device
given by BENCH_DEVICE (default cpu) with BENCH_THREADS CPU threads (default 1: on a small shared machine
multi-threaded timings swing by 10x with other load, single-threaded ratios stay put).
Run: PYTHONPATH=. python benchmarks/bench_rotations.py
"""

from __future__ import annotations

import os
import time

import torch

from _timing import interleaved  # benchmarks/ is on sys.path when a script runs
from pyverify.attention import rotations as rot

DEVICE = torch.device(os.environ.get("BENCH_DEVICE", "cpu"))
DTYPE = torch.float32
torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "1")))
DENSE_BUDGET = 1e9  # skip the dense definition when N d^3 exceeds this (seconds per call)


# ----------------------------------------------------------------------------- 1. fast path vs dense

def bench_fast_path():
    print("R_STR(r) x for N tokens: dense matrix_exp definition vs fast path (d_c = 2, m = d/2, float32)")
    print(f"{'d':>5} {'N':>6} | {'dense ms':>9} {'fast(U) ms':>10} {'fast(I) ms':>10} | "
          f"{'dense/fast(U)':>13} {'dense/fast(I)':>13} | {'max |diff|':>10}")
    g = torch.Generator().manual_seed(0)
    for d in (16, 32, 64, 128):
        for n in (64, 256, 1024):
            if n * d ** 3 > DENSE_BUDGET:
                print(f"{d:5d} {n:6d} | dense skipped (N d^3 = {n * d ** 3:.1e} > {DENSE_BUDGET:.0e})")
                continue
            U = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))[0].to(DEVICE, DTYPE)
            freqs = torch.rand(2, d // 2, generator=g).to(DEVICE, DTYPE)
            x = torch.randn(n, d, generator=g).to(DEVICE, DTYPE)
            r = 5 * torch.randn(n, 2, generator=g).to(DEVICE, DTYPE)
            L = rot.commuting_generators(U, freqs, check_orthogonal=False)
            dense = lambda: (torch.linalg.matrix_exp(rot.A(L, r)) @ x[..., None])[..., 0]  # noqa: E731
            fast_u = lambda: rot.rstr_apply(x, r, U, freqs)  # noqa: E731
            fast_i = lambda: rot.rstr_apply(x, r, None, freqs)  # noqa: E731
            with torch.no_grad():
                t = interleaved({"dense": dense, "fu": fast_u, "fi": fast_i}, reps=15, budget_s=2.0)
                diff = (dense() - fast_u()).abs().max().item()
            print(f"{d:5d} {n:6d} | {t['dense'] * 1e3:9.3f} {t['fu'] * 1e3:10.3f} {t['fi'] * 1e3:10.3f} | "
                  f"{t['dense'] / t['fu']:13.1f} {t['dense'] / t['fi']:13.1f} | {diff:10.2e}")


if __name__ == "__main__":
    print(f"torch {torch.__version__}, device {DEVICE}, threads {torch.get_num_threads()}\n")
    t0 = time.perf_counter()
    bench_fast_path()
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
