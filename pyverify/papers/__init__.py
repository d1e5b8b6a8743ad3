"""The five source documents as pyverify content: their claim registry, the functions, hypotheses and
figures their checks need, the claims the ESPR layer's guarantees rest on, and their Lean formalization.

pyverify finds this package through its ``pyverify.content`` entry point (``pyverify.contributions``):
``REGISTRY`` is what ``pyverify`` checks when no ``--registry`` is given, ``register()`` adds the rest
through ``pyverify.plugin``, the API every user has. This module stays light (no torch): the registry
layer reads ``REGISTRY``.
"""

from __future__ import annotations

from pathlib import Path

REGISTRY = Path(__file__).resolve().parent / "claims"
# the Lean project beside the package in a source checkout (an installed wheel carries no Lean sources)
LEAN_SOURCES = Path(__file__).resolve().parent.parent.parent / "lean"
# the source documents, beside the project (DESIGN.md): the report links a claim's locator into them
DOCUMENTS = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "seeds"


def register() -> None:
    """Register the papers' functions, hypotheses, figures, guarantees and reference mechanisms."""
    from .. import plugin
    from . import functions, samplers

    functions.register()
    for hypothesis in samplers.HYPOTHESES:
        plugin.sampler(hypothesis)
    for name, (about, caption) in FIGURES.items():
        plugin.figure(name, _drawer(name), about=about, caption=caption)
    plugin.reference("pyverify.attention")
    plugin.guarantees(ESPR_LAYER, GUARANTEES, meanings=GUARANTEE_MEANINGS)


def _drawer(name: str):
    """The figure's drawing, imported when a report draws it (matplotlib is not needed to check claims)."""
    def draw(out: Path) -> str | None:
        from . import figures

        return figures.DRAW[name](out)
    return draw


# report-wide figures: the reference functions each is about and its caption (figures.py draws them)
FIGURES = {
    "positional-stress": (("pyverify.attention.positional.stress",),
                          "Stress of the rank-r MDS positional encoding against r on the synthetic corpus, beside "
                          "the sinusoidal, random and ALiBi baselines."),
    "random-feature-variance": (("pyverify.attention.random_features.positive_features",),
                                "Variance of the positive random-feature estimate of the softmax kernel against the "
                                "number of features, i.i.d. against orthogonal draws, with the i.i.d. closed form."),
}


ESPR_LAYER = "pyverify.attention.rotations.layer.ESPRAttention"
# The behaviours a user of the ESPR layer relies on, each resting on one registry claim: the report's
# implementation view and `pyverify certify` (for a trained layer) read this one table
GUARANTEES = {"relative-law": "T2.9", "post-rotation-drops-out": "T3.6", "commutator-defect": "T5.3.half"}
GUARANTEE_MEANINGS = {
    "relative-law": "translation invariance: the logit of (i, j) depends on r_j - r_i only",
    "post-rotation-drops-out": "a structured post-rotation leaves the logits unchanged",
    "commutator-defect": "for non-commuting generators the defect is at most 1/2 eps_comm |r_i|_1 |r_j|_1",
}
