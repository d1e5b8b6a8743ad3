"""Classical MDS (Algorithm 1) vs direct stress minimisation (SMACOF) on the synthetic corpus.

For n = 32, 128, 256 positions (|V| = 200, N = 5000, three regimes) and a few embedding widths d,
prints the stress of both encodings, their ratio, and the wall-time ratio, measured side by side.
SMACOF starts from the MDS encoding (so its stress can only be lower) and runs until the relative
decrease per Guttman transform is below 1e-9 or 300 transforms.

    python benchmarks/bench_positional.py
"""

import torch

from _timing import best_time  # benchmarks/ is on sys.path when a script runs
from pyverify.attention import positional as pe


def main():
    torch.set_num_threads(max(1, torch.get_num_threads()))
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, float64, CPU")
    header = (f"{'n':>4} {'d':>3} {'rank(B)':>7} {'stress MDS':>11} {'stress SMACOF':>13} {'SMACOF/MDS':>10} "
              f"{'iters':>5} {'t MDS [ms]':>10} {'t SMACOF/t MDS':>14}")
    print(header)
    print("-" * len(header))
    for n in (32, 128, 256):
        corpus = pe.synthetic_corpus(n=n, V=200, N=5000, regimes=3, seed=0)
        D = pe.hellinger(pe.positional_distributions(corpus, n, 200))
        eigenvalues = torch.linalg.eigvalsh(pe.double_centred_gram(D))
        rank = int((eigenvalues > 1e-10 * eigenvalues.max()).sum())
        for d in (2, 3, 16):
            t_mds, P = best_time(lambda: pe.classical_mds(D, d), 5)
            s_mds = float(pe.stress(P, D))
            t_smacof, res = best_time(lambda: pe.smacof(D, d, max_iter=300, tol=1e-9), 2)
            s_smacof = float(res.stress)
            print(f"{n:>4} {d:>3} {rank:>7} {s_mds:>11.3e} {s_smacof:>13.3e} {s_smacof / s_mds:>10.3f} "
                  f"{res.n_iter:>5} {1e3 * t_mds:>10.2f} {t_smacof / t_mds:>14.1f}")
    print("\nSMACOF/MDS < 1 means classical MDS is not the stress minimiser (Proposition 6 claims it is).")


if __name__ == "__main__":
    main()
