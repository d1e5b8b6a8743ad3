"""The papers' report figures: the positional-encoding paper's stress against rank on its synthetic
corpus, and the variance of i.i.d. against orthogonal positive random features. Each is registered with
the reference function it is about (``pyverify.plugin.figure``): a report draws it only for a registry
whose checks run that function."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import torch

from ..attention import positional as pe
from ..attention import random_features as rf
from ..report.plots import save_figure

# Settings of the positional-encoding paper's Table 3 (n = 32 positions, |V| = 200, d = 16), one corpus
PE_SETTINGS = {"n": 32, "V": 200, "N": 5000, "d": 16, "seed": 0}
RF_SETTINGS = {"d": 16, "draws": 2000, "features": (2, 4, 8, 16, 32, 64), "seed": 0, "scale": 0.25}

def positional_stress_plot(out: Path, settings: dict = PE_SETTINGS) -> str:
    """Stress of the rank-r MDS encoding against r, beside the baselines, on the synthetic corpus."""
    n, V, d = settings["n"], settings["V"], settings["d"]
    corpus = pe.synthetic_corpus(n=n, V=V, N=settings["N"], regimes=3, seed=settings["seed"])
    D = pe.hellinger(pe.positional_distributions(corpus, n, V))
    ranks = list(range(1, d + 1))
    mds = [float(pe.stress(pe.classical_mds(D, d, rank=r), D)) for r in ranks]
    gen = torch.Generator().manual_seed(100 + settings["seed"])
    baselines = {
        "sinusoidal": float(pe.stress(pe.sinusoidal(n, d), D)),
        "random N(0, 1)": float(pe.stress(pe.random_encoding(n, d, generator=gen), D)),
        "ALiBi (slope 1/2)": float(pe.stress(pe.alibi_encoding(n, slope=0.5), D)),
    }
    fig, ax = plt.subplots(figsize=(4.6, 3.2))
    ax.semilogy(ranks, [max(s, 1e-16) for s in mds], "o-", ms=3, lw=1, label="MDS encoding of rank r")
    for (name, s), style in zip(baselines.items(), ("--", ":", "-.")):
        ax.axhline(s, color="k", ls=style, lw=0.8, label=f"{name}: {s:.3g}")
    ax.set_xlabel("rank r")
    ax.set_ylabel("stress (normalised)")
    ax.set_title(f"Stress against rank (synthetic corpus n={n}, |V|={V}, d={d})", fontsize=9)
    ax.legend(fontsize=7)
    return save_figure(fig, out, "positional-stress.svg")


def random_feature_variance_plot(out: Path, settings: dict = RF_SETTINGS) -> str:
    """Empirical variance of the positive random-feature estimate, i.i.d. against orthogonal draws."""
    d, draws = settings["d"], settings["draws"]
    gen = torch.Generator().manual_seed(settings["seed"])
    x = torch.randn(d, generator=gen, dtype=torch.float64) * settings["scale"]
    y = torch.randn(d, generator=gen, dtype=torch.float64) * settings["scale"]
    ms = list(settings["features"])
    iid, ortho = [], []
    for m in ms:
        for W, acc in ((rf.gaussian_iid(draws * m, d, gen).reshape(draws, m, d), iid),
                       (_orthogonal_draws(draws, m, d, gen), ortho)):
            est = torch.stack([rf.softmax_kernel_estimate(x, y, w) for w in W])
            acc.append(float(est.var()))
    exact = [float(rf.positive_rf_variance(x, y, m)) for m in ms]
    fig, ax = plt.subplots(figsize=(4.4, 3.1))
    ax.loglog(ms, iid, "o-", ms=3, lw=1, label="i.i.d. Gaussian features")
    ax.loglog(ms, ortho, "s-", ms=3, lw=1, label="orthogonal features")
    ax.loglog(ms, exact, "k--", lw=0.8, label="i.i.d. closed form Var Z / m")
    ax.set_xticks(ms, [str(m) for m in ms])
    ax.minorticks_off()
    ax.set_xlabel("number of features m")
    ax.set_ylabel(f"variance over {draws} draws")
    ax.set_title(f"Positive random features (d={d}): variance", fontsize=9)
    ax.legend(fontsize=7)
    return save_figure(fig, out, "random-feature-variance.svg")


def _orthogonal_draws(draws: int, m: int, d: int, gen: torch.Generator) -> torch.Tensor:
    """``draws`` independent samples of ``gaussian_orthogonal(m, d)`` from one call (one batched QR).

    Its blocks of d rows are independent, so consecutive groups of ceil(m/d) blocks, each cut to m
    rows, have the law of separate calls.
    """
    blocks = -(-m // d)
    W = rf.gaussian_orthogonal(draws * blocks * d, d, gen).reshape(draws, blocks * d, d)
    return W[:, :m]


DRAW = {"positional-stress": positional_stress_plot, "random-feature-variance": random_feature_variance_plot}
