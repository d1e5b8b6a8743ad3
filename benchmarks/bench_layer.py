"""ESPR attention layer against a RoPE attention layer of the same shape, in the precisions models train in.

Prints, per shape (B, N, D, H) and mode, the RoPE layer's median time and the ratio of each ESPR variant to it,
all measured side by side in one run (medians, or with ``--statistic min`` minima, of interleaved calls):

* modes: ``fp32`` (float32 parameters), ``autocast`` (float32 parameters under bf16 autocast), ``bf16``
  (bf16 parameters and inputs); each as ``fwd`` (inference: ``torch.no_grad``) and ``fwd+bwd`` (training step
  without the optimizer);
* ESPR variants: ``default`` (learned basis U, free Cayley post-rotation P; its folded projection is cached
  between inference calls), ``U=I,P=I`` (the rotary core alone), ``folded`` (``fold_post_rotation()``),
  ``uncached`` (the default layer recomputing its fixed part on every call: what the cache saves);
  with ``--compile`` also ``torch.compile`` of the default layer and of RoPE (each against eager RoPE), in the
  modes of ``--compile-modes`` (default: autocast only, since every compilation costs tens of seconds).

The baseline is RoPE as practised in mixed precision: cos/sin of float32 angles cached per length, the
rotation in float32 with autocast off, q and k cast back; fused qkv projection, SDPA, output projection.

Then, per variant, the aten operators one call dispatches (views excluded) and those that make the host wait
for the device (``.item()``-like): on a GPU at moderate shapes each operator costs a kernel launch, so these
counts, measured on any device, explain the fixed cost per call. On CUDA each variant also runs once under
``torch.cuda.set_sync_debug_mode("error")``, which raises at any host synchronisation.

Run: PYTHONPATH=. python benchmarks/bench_layer.py [--device cuda] [--smoke] [--compile] [--modes fp32,bf16]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

from _ops import OpCounter  # benchmarks/ is on sys.path when a script runs
from _timing import interleaved
from pyverify.attention.rotations import ESPRAttention

GPU_SHAPES = ((4, 1024, 512, 8), (8, 4096, 1024, 16))  # issue 20's table
CPU_SHAPES = ((1, 128, 512, 8), (4, 256, 256, 4), (4, 1024, 512, 8))
SMOKE_SHAPES = ((2, 32, 64, 2),)
MODES = ("fp32", "autocast", "bf16")


class RoPEAttention(nn.Module):
    """Baseline: multi-head attention with RoPE (rotate-half layout, cos/sin of float32 angles cached per
    length, rotation in float32 with autocast off and cast back to the projection's dtype)."""

    def __init__(self, d_model, n_heads, theta=10000.0, causal=False, device=None, dtype=None):
        super().__init__()
        self.h, self.hd, self.causal = n_heads, d_model // n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False, device=device, dtype=dtype)
        self.out_proj = nn.Linear(d_model, d_model, bias=False, device=device, dtype=dtype)
        self.inv_freq = theta ** (-torch.arange(0, self.hd, 2, device=device, dtype=torch.float32) / self.hd)
        self._cache = {}

    def cos_sin(self, n):
        if n not in self._cache:
            ang = torch.arange(n, device=self.inv_freq.device, dtype=torch.float32)[:, None] * self.inv_freq
            self._cache[n] = (ang.cos()[:, None], ang.sin()[:, None])  # (N, 1, hd/2)
        return self._cache[n]

    def forward(self, x):
        B, N, D = x.shape
        q, k, v = self.qkv(x).view(B, N, 3, self.h, self.hd).unbind(2)
        cos, sin = self.cos_sin(N)
        m = self.hd // 2

        def rope(z):
            a, b = z[..., :m], z[..., m:]
            return torch.cat((a * cos - b * sin, a * sin + b * cos), -1).to(z.dtype).transpose(1, 2)

        with torch.autocast(x.device.type, enabled=False):
            q, k = rope(q), rope(k)
        out = F.scaled_dot_product_attention(q, k, v.transpose(1, 2), is_causal=self.causal)
        return self.out_proj(out.transpose(1, 2).reshape(B, N, D))


class Uncached(nn.Module):
    """The default layer with its fixed part recomputed on every call (the cost before issue 20's cache)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x, r):
        self.layer.clear_cache()
        return self.layer(x, r)


def variants(B, N, D, H, mode, device, compiled: bool = False):
    """name -> (module, x, positions or None) for one shape and mode; the same weights where shapes agree."""
    dtype = torch.bfloat16 if mode == "bf16" else torch.float32
    torch.manual_seed(0)
    kw = dict(device=device, dtype=dtype, causal=True)
    rope = RoPEAttention(D, H, **kw)
    espr = ESPRAttention(D, H, 1, **kw)
    with torch.no_grad():
        espr.basis_skew.normal_(std=0.1)
        espr.post_skew.normal_(std=0.1)
    plain = ESPRAttention(D, H, 1, learn_basis=False, post_rotation="none", **kw)
    x = torch.randn(B, N, D, device=device, dtype=dtype)
    r = torch.arange(N, device=device, dtype=torch.float32).expand(B, N)[..., None]
    out = {"rope": (rope, x, None), "default": (espr, x, r), "U=I,P=I": (plain, x, r),
           "folded": (espr.fold_post_rotation(), x, r), "uncached": (Uncached(copy.deepcopy(espr)), x, r)}
    if compiled:
        torch._dynamo.reset()  # a fresh recompile budget per shape and mode (else dynamo falls back to eager)
        out["default compiled"] = (torch.compile(copy.deepcopy(espr)), x, r)
        out["rope compiled"] = (torch.compile(copy.deepcopy(rope)), x, None)
    return out


def call(module, x, r):
    return module(x) if r is None else module(x, r)


def precision_context(mode, device):
    if mode == "autocast":
        return torch.autocast(torch.device(device).type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def timed(layers, mode, device, train: bool, reps: int, budget_s: float, statistic: str) -> dict[str, float]:
    def step(module, x, r):
        def run():
            with precision_context(mode, device):
                if train:
                    out = call(module, x, r)
                else:
                    with torch.no_grad():
                        out = call(module, x, r)
            if train:
                out.float().sum().backward()
        return run

    fns = {name: step(*spec) for name, spec in layers.items()}
    for fn in fns.values():  # warm-up: caches, autotuning, compilation
        fn()
        fn()
    return interleaved(fns, reps=reps, budget_s=budget_s, statistic=statistic)


def op_counts(layers, mode, device, train: bool) -> dict[str, tuple[int, int]]:
    """name -> (aten operators that run, of which host syncs) in one call (the second: caches are warm)."""
    out = {}
    for name, (module, x, r) in layers.items():
        if "compiled" in name:
            continue
        for i in range(2):
            counter = OpCounter()
            with counter, precision_context(mode, device):
                if train:
                    call(module, x, r).float().sum().backward()
                else:
                    with torch.no_grad():
                        call(module, x, r)
        out[name] = (sum(counter.ops.values()), counter.syncs())
    return out


def sync_free(layers, mode, device) -> dict[str, str]:
    """name -> "none" or the first host synchronisation CUDA's sync debug mode reports, fwd and fwd+bwd."""
    out = {}
    for name, (module, x, r) in layers.items():
        if "compiled" in name:
            continue
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            with precision_context(mode, device):
                with torch.no_grad():
                    call(module, x, r)
                call(module, x, r).float().sum().backward()
            out[name] = "none"
        except RuntimeError as exc:
            out[name] = str(exc).splitlines()[0][:80]
        finally:
            torch.cuda.set_sync_debug_mode("default")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--smoke", action="store_true", help="one tiny shape, few repetitions (checks the script)")
    parser.add_argument("--compile", action="store_true", help="also time torch.compile of the default layer and RoPE")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated subset of {','.join(MODES)}")
    parser.add_argument("--compile-modes", default="autocast", help="the modes --compile applies to")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (default 1: stable ratios on a shared machine)")
    parser.add_argument("--shapes", default=None, help="B,N,D,H;B,N,D,H;... (default: by device)")
    parser.add_argument("--statistic", choices=("median", "min"), default="median",
                        help="of the interleaved calls (min: steadier on a machine shared with other jobs)")
    parser.add_argument("--budget", type=float, default=None, help="seconds of timing per table cell (default 6)")
    parser.add_argument("--reps", type=int, default=None, help="interleaved rounds per cell, at most (default 25)")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    torch.set_num_threads(args.threads)
    if args.shapes:
        shapes = [tuple(int(v) for v in s.split(",")) for s in args.shapes.split(";")]
    else:
        shapes = SMOKE_SHAPES if args.smoke else (GPU_SHAPES if device.type == "cuda" else CPU_SHAPES)
    modes = [m for m in args.modes.split(",") if m]
    unknown = set(modes) - set(MODES)
    if unknown:
        parser.error(f"unknown mode(s) {', '.join(sorted(unknown))}")
    reps, budget = (3, 0.5) if args.smoke else (25, 6.0)
    budget, reps = args.budget or budget, args.reps or reps
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {torch.get_num_threads()} thread(s)"
    print(f"torch {torch.__version__}, device {device} ({name})")
    print(f"times: {args.statistic} ms of RoPE over interleaved calls; ESPR columns are ratios to RoPE measured in "
          "the same run (goal: default <= 1.10, folded <= 1.05 in bf16 autocast on a GPU)\n")
    t0 = time.perf_counter()
    columns = ["default", "U=I,P=I", "folded", "uncached"] + (["default compiled", "rope compiled"] if args.compile else [])
    print(f"{'B':>2} {'N':>5} {'D':>5} {'H':>3} {'mode':>8} {'pass':>7} | {'RoPE ms':>8} | "
          + " ".join(f"{c:>16}" for c in columns))
    counts, syncs = {}, {}
    for B, N, D, H in shapes:
        for mode in modes:
            layers = variants(B, N, D, H, mode, device, args.compile and mode in args.compile_modes.split(","))
            for train in (False, True):
                t = timed(layers, mode, device, train, reps if not train else max(3, reps // 2), budget, args.statistic)
                row = " ".join(f"{t[k] / t['rope']:16.2f}" if k in t else f"{'-':>16}" for k in columns)
                print(f"{B:2d} {N:5d} {D:5d} {H:3d} {mode:>8} {'fwd+bwd' if train else 'fwd':>7} | "
                      f"{t['rope'] * 1e3:8.3f} | {row}", flush=True)
            if (B, N, D, H) == shapes[0]:
                counts[mode] = {train: op_counts(layers, mode, device, train) for train in (False, True)}
                if device.type == "cuda":
                    syncs[mode] = sync_free(layers, mode, device)
    print(f"\naten operators per call at {shapes[0]} (views excluded; host syncs in brackets):")
    names = [k for k in next(iter(counts.values()))[False]]
    print(f"{'mode':>8} {'pass':>7} | " + " ".join(f"{n:>12}" for n in names))
    for mode, by_pass in counts.items():
        for train, c in by_pass.items():
            print(f"{mode:>8} {'fwd+bwd' if train else 'fwd':>7} | "
                  + " ".join(f"{f'{c[n][0]} [{c[n][1]}]':>12}" for n in names))
    for mode, found in syncs.items():
        print(f"CUDA host synchronisations ({mode}, fwd and fwd+bwd): "
              + "; ".join(f"{name}: {what}" for name, what in found.items()))
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
