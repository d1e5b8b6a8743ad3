"""The table checks of the PE paper on the reconstructed synthetic corpus (PE.Table2-ordering, PE.Table3-*)
can fail: the same checks with one planted error each are refuted, and `synthetic_mu` is the corpus
that pyverify/attention/corpus.py samples (deterministic, empirical, not alterable through its cache).
"""

from __future__ import annotations

import pytest
import torch

from pyverify.attention import positional
from pyverify.checks.vocabulary import VOCABULARY
from pyverify.engine import check_claim
from pyverify.engine.context import CPU64  # synthetic_mu makes its tensor on the context's device
from pyverify.registry import load_registry

PLANTED = """
documents:
  - {key: planted, title: planted table errors, files: [none]}
claims:
  - id: P.table2-rank-order-reversed
    title: stress claimed to grow with the rank
    document: planted
    locator: '-'
    kind: empirical
    statement: x
    check:
      where: {D: 'hellinger(synthetic_mu(32, 200, 5000, 3, 0))'}
      assert: 'stress(mds(D, 128, rank=r), D) <= stress(mds(D, 128, rank=r + 1), D)'
      dims: {r: [1, 2, 3]}
  - id: P.table2-rank-n
    title: rank(B) claimed to be n
    document: planted
    locator: '-'
    kind: empirical
    statement: x
    check:
      where: {L: 'eigvalsh(gram(hellinger(synthetic_mu(32, 200, 5000, 3, 0))))'}
      assert: 'L[0] >= 0.000001 * L[31]'
  - id: P.table3-bert-scale-random
    title: random ordering at BERT's initialisation scale
    document: planted
    locator: '-'
    kind: empirical
    statement: x
    check:
      given: {G: 'gaussian(32, 16)'}
      where: {D: 'hellinger(synthetic_mu(32, 200, 5000, 3, 0))'}
      assert: 'E(stress(0.02 * G, D)) >= stress(sinusoidal(32, 16), D)'
      samples: 400
"""


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    path = tmp_path_factory.mktemp("planted") / "tables.yaml"
    path.write_text(PLANTED)
    return load_registry(path)


@pytest.mark.parametrize("cid", ["P.table2-rank-order-reversed", "P.table2-rank-n", "P.table3-bert-scale-random"])
def test_planted_table_error_is_refuted(planted, cid):
    assert check_claim(planted, cid, "quick", 0).verdict.value == "refuted"


def test_synthetic_mu_is_the_empirical_law_of_the_sampled_corpus():
    mu = VOCABULARY["synthetic_mu"].torch(CPU64, 8, 5, 300, 2, 7)
    corpus = positional.synthetic_corpus(n=8, V=5, N=300, regimes=2, seed=7)
    assert torch.equal(mu, positional.positional_distributions(corpus, 8, 5))
    assert mu.dtype == torch.float64 and torch.allclose(mu.sum(-1), torch.ones(8, dtype=torch.float64))
    mu.zero_()                                              # a caller altering its copy leaves the cache intact
    assert torch.equal(VOCABULARY["synthetic_mu"].torch(CPU64, 8, 5, 300, 2, 7), positional.positional_distributions(corpus, 8, 5))
    assert not torch.equal(VOCABULARY["synthetic_mu"].torch(CPU64, 8, 5, 300, 2, 8), positional.positional_distributions(corpus, 8, 5))
