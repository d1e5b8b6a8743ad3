"""Benchmark of structured positional rotations (prints ratios measured side by side in one run).

1. Applying R_STR(r) to N vectors: the fast path ``rstr_apply`` (rotation in U's basis, O(d^2) per token;
   O(d) with U = I) against the definition (dense matrix exponential per token, O(d^3), then a matvec).
2. The ESPR attention layer against a plain RoPE attention layer of the same shape (same fused qkv
   projection, SDPA, output projection; RoPE cos/sin cached per length, the strongest baseline).

Timings are medians of interleaved repetitions (robust to a noisy shared machine); float32, on the device
given by BENCH_DEVICE (default cpu) with BENCH_THREADS CPU threads (default 1: on a small shared machine
multi-threaded timings swing by 10x with other load, single-threaded ratios stay put).
Run: PYTHONPATH=. python benchmarks/bench_rotations.py
"""

from __future__ import annotations

import os
import time

import torch
import torch.nn.functional as F
from torch import nn

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


# ----------------------------------------------------------------------------- 2. layer vs RoPE

class RoPEAttention(nn.Module):
    """Baseline: multi-head attention with RoPE (rotate-half layout, cos/sin cached per sequence length)."""

    def __init__(self, d_model, n_heads, theta=10000.0, causal=False, device=None, dtype=None):
        super().__init__()
        self.h, self.hd, self.causal = n_heads, d_model // n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False, device=device, dtype=dtype)
        self.out_proj = nn.Linear(d_model, d_model, bias=False, device=device, dtype=dtype)
        self.inv_freq = theta ** (-torch.arange(0, self.hd, 2, device=device, dtype=dtype) / self.hd)
        self._cache = {}

    def cos_sin(self, n):
        if n not in self._cache:
            ang = torch.arange(n, device=self.inv_freq.device, dtype=self.inv_freq.dtype)[:, None] * self.inv_freq
            self._cache[n] = (ang.cos()[:, None], ang.sin()[:, None])  # (N, 1, hd/2)
        return self._cache[n]

    def forward(self, x):
        B, N, D = x.shape
        q, k, v = self.qkv(x).view(B, N, 3, self.h, self.hd).unbind(2)
        cos, sin = self.cos_sin(N)
        m = self.hd // 2

        def rope(z):
            a, b = z[..., :m], z[..., m:]
            return torch.cat((a * cos - b * sin, a * sin + b * cos), -1).transpose(1, 2)

        out = F.scaled_dot_product_attention(rope(q), rope(k), v.transpose(1, 2), is_causal=self.causal)
        return self.out_proj(out.transpose(1, 2).reshape(B, N, D))


def bench_layer():
    print("\nESPR attention layer vs RoPE attention layer of the same shape (float32, no bias, causal)")
    header = (f"{'B':>2} {'N':>5} {'D':>4} {'H':>2} {'mode':>8} | {'RoPE ms':>8} | "
              + " ".join(f"{name:>14}" for name in ("ESPR default", "ESPR d_c=2", "ESPR U=I,P=I", "ESPR folded")))
    print(header)
    print(" " * 35 + "ratios to RoPE (goal <= 1.3)")
    for B, N, D, H in ((4, 256, 256, 4), (4, 1024, 256, 4), (2, 1024, 512, 8)):
        torch.manual_seed(0)
        kw = dict(device=DEVICE, dtype=DTYPE, causal=True)
        rope_layer = RoPEAttention(D, H, **kw)
        espr = rot.ESPRAttention(D, H, 1, **kw)  # learned U, free Cayley post-rotation (the default)
        espr2 = rot.ESPRAttention(D, H, 2, **kw)
        plain = rot.ESPRAttention(D, H, 1, learn_basis=False, post_rotation="none", **kw)
        with torch.no_grad():
            for layer in (espr, espr2):
                layer.basis_skew.normal_(std=0.1)
                layer.post_skew.normal_(std=0.1)
        folded = espr.fold_post_rotation()
        x = torch.randn(B, N, D, device=DEVICE, dtype=DTYPE)
        pos = torch.arange(N, device=DEVICE, dtype=DTYPE).expand(B, N)
        r1, r2 = pos[..., None], torch.stack((pos % 32, pos // 32), -1)
        fns = {"rope": lambda: rope_layer(x), "espr": lambda: espr(x, r1), "espr2": lambda: espr2(x, r2),
               "plain": lambda: plain(x, r1), "folded": lambda: folded(x, r1)}
        with torch.no_grad():
            t = interleaved(fns, reps=25, budget_s=4.0)
        row = " ".join(f"{t[k] / t['rope']:14.2f}" for k in ("espr", "espr2", "plain", "folded"))
        print(f"{B:2d} {N:5d} {D:4d} {H:2d} {'infer':>8} | {t['rope'] * 1e3:8.2f} | {row}")

        def train(f):
            return lambda: f().sum().backward()

        tfns = {"rope": train(fns["rope"]), "espr": train(fns["espr"]), "espr2": train(fns["espr2"]),
                "plain": train(fns["plain"]), "folded": train(fns["folded"])}
        t = interleaved(tfns, reps=10, budget_s=4.0)
        row = " ".join(f"{t[k] / t['rope']:14.2f}" for k in ("espr", "espr2", "plain", "folded"))
        print(f"{B:2d} {N:5d} {D:4d} {H:2d} {'fwd+bwd':>8} | {t['rope'] * 1e3:8.2f} | {row}")


if __name__ == "__main__":
    print(f"torch {torch.__version__}, device {DEVICE}, threads {torch.get_num_threads()}\n")
    t0 = time.perf_counter()
    bench_fast_path()
    bench_layer()
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
