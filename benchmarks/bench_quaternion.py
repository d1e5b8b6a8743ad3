"""Stable geodesic distance (4 atan2(|q - s k|, |q + s k|)) vs the definitional 2 arccos|<q, k>|,
and GSM attention vs Euclidean softmax attention, measured side by side.

Prints the time ratio stable/definitional, the worst relative error of each at small angles
(reference: 2|delta| for k = q exp(delta) built at q = 1), and the time ratio GSM/Euclidean.

    python benchmarks/bench_quaternion.py
"""

import torch

from _timing import best_time  # benchmarks/ is on sys.path when a script runs
from pyverify.attention import quaternion as qt


def naive(q, k):
    return 2 * torch.acos((q * k).sum(-1).abs().clamp(max=1.0))


def main():
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, float64, CPU")
    g = torch.Generator().manual_seed(0)
    print(f"{'N pairs':>9} {'stable/naive time':>17}")
    for n in (10_000, 1_000_000):
        q, k = qt.random_unit_quaternions(n, generator=g), qt.random_unit_quaternions(n, generator=g)
        t_s, _ = best_time(lambda: qt.geodesic_distance(q, k), 5)
        t_n, _ = best_time(lambda: naive(q, k), 5)
        print(f"{n:9d} {t_s / t_n:17.2f}")
    print()
    print(f"{'angle':>8} {'rel err stable':>14} {'rel err naive':>13}")
    one = torch.tensor([1.0, 0, 0, 0], dtype=torch.float64)
    for size in (1e-2, 1e-5, 1e-8, 1e-11):
        u = qt.random_small_generators(1000, radius=1.0, generator=g)
        u = size * u / u.norm(dim=-1, keepdim=True)
        k = qt.qexp(u)
        ref = 2 * size
        e_s = ((qt.geodesic_distance(one, k) - ref).abs() / ref).max().item()
        e_n = ((naive(one, k) - ref).abs() / ref).max().item()
        print(f"{2 * size:8.0e} {e_s:14.1e} {e_n:13.1e}")
    print()
    print(f"{'T':>6} {'GSM/Euclidean time':>18}")
    for T in (256, 1024):
        q, k = qt.random_unit_quaternions(4, T, generator=g), qt.random_unit_quaternions(4, T, generator=g)
        v = torch.randn(4, T, 64, dtype=torch.float64, generator=g)
        Q, K = qt.qlog(q), qt.qlog(k)
        t_g, _ = best_time(lambda: qt.gsm_attention(q, k, v, tau=1.0), 3)
        t_e, _ = best_time(lambda: qt.euclidean_attention(Q, K, v, tau=1.0), 3)
        print(f"{T:6d} {t_g / t_e:18.2f}")


if __name__ == "__main__":
    main()
