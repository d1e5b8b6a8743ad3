"""Random-feature (linear) attention vs exact softmax attention, measured side by side.

For growing sequence length n (d = 64, d_v = 64, m = 256 orthogonal positive features, float32, one
batch of 4 heads) prints the wall-time ratio exact/linear for the non-causal and the causal versions
(causal linear: full prefix sums and the chunked variant), and the max abs error of the linear
output against the exact one (inputs scaled so that logits are O(1)).

    python benchmarks/bench_random_features.py
"""

import torch

from _timing import best_time  # benchmarks/ is on sys.path when a script runs
from pyverify.attention import random_features as rf


def main():
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, float32, CPU")
    g = torch.Generator().manual_seed(0)
    d, dv, m, heads = 64, 64, 256, 4
    W = rf.gaussian_orthogonal(m, d, g, dtype=torch.float32)
    header = (f"{'n':>6} {'t exact [ms]':>12} {'exact/linear':>12} {'causal: exact/cumsum':>20} "
              f"{'exact/chunk64':>13} {'max|err| lin':>12}")
    print(header)
    print("-" * len(header))
    for n in (256, 1024, 4096):
        q = torch.randn(heads, n, d, generator=g) / d ** 0.5
        k = torch.randn(heads, n, d, generator=g) / d ** 0.5
        v = torch.randn(heads, n, dv, generator=g)
        t_exact, exact = best_time(lambda: rf.softmax_attention(q, k, v))
        t_lin, lin = best_time(lambda: rf.linear_attention(q, k, v, W))
        t_exact_c, _ = best_time(lambda: rf.softmax_attention(q, k, v, causal=True))
        if n <= 1024:   # the full prefix sum holds n * m * d_v numbers
            t_cum, _ = best_time(lambda: rf.linear_attention(q, k, v, W, causal=True))
            cum = f"{t_exact_c / t_cum:20.2f}"
        else:
            cum = f"{'(skipped: memory)':>20}"
        t_chunk, _ = best_time(lambda: rf.linear_attention(q, k, v, W, causal=True, chunk_size=64))
        err = (lin - exact).abs().max().item()
        print(f"{n:6d} {1e3 * t_exact:12.1f} {t_exact / t_lin:12.2f} {cum} {t_exact_c / t_chunk:13.2f} {err:12.2e}")


if __name__ == "__main__":
    main()
