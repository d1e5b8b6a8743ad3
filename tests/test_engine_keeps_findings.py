"""The engine does not lose what it found.

* A planted error in a long claim of the registry (T6'.7, issue 8 §2: `+ 0.01` on one identity) is
  refuted with a witness at the default budget, and its interval certificate goes through (the ball
  backend used to read `S ** 16` elementwise, take a NaN from arb's power of a ball around 0 and
  crash the eigensolver of the operator norm).
* An instance whose evaluation raises is skipped, not allowed to kill the search; a check that no
  instance can evaluate is still an ``error``.
"""

from __future__ import annotations

import shutil

import pytest
import torch
import yaml

from pyverify.checks import vocabulary
from pyverify.engine import check_claim
from pyverify.registry import load_registry

from conftest import PAPERS, REPO, claim_yaml

PLANTED_RELATION = "Pa @ P @ Pa - Pa == -2 * sum((-1) ** (u - 1) * Pa @ S ** u @ Pa for u in range(2, 16)) + Rem"


@pytest.fixture(scope="module")
def planted_t67(tmp_path_factory):
    """A registry holding only T6'.7 with `+ 0.01` planted into its series identity."""
    source = yaml.safe_load((PAPERS / "espr-derivation" / "tier6p.yaml").read_text())
    claim = next(c for c in source["claims"] if c["id"] == "T6'.7")
    relations = claim["check"]["assert"].split(" and ")
    assert PLANTED_RELATION in relations, "T6'.7 changed: update the planted relation"
    relations[relations.index(PLANTED_RELATION)] += " + 0.01"
    claim["check"]["assert"] = " and ".join(relations)
    claim["expect"], claim["deps"] = "refuted", []
    root = tmp_path_factory.mktemp("t67") / "claims"
    root.mkdir()
    shutil.copy(PAPERS / "documents.yaml", root)
    (root / "tier6p.yaml").write_text(yaml.safe_dump({"claims": [claim]}, sort_keys=False))
    return load_registry(root)


def test_planted_error_in_t67_is_refuted_at_default(planted_t67):
    r = check_claim(planted_t67, "T6'.7", "default", 0)
    assert r.verdict == "refuted", r.message
    assert r.witness["params"] and r.witness["relations"]
    violated = [rel for rel in r.witness["relations"] if rel["measure"] > 1e-3]
    assert [rel["relation"] for rel in violated] == [PLANTED_RELATION + " + 0.01"]
    assert r.witness["certificate"]["status"] == "certified", r.witness["certificate"]


def test_unplanted_t67_still_holds():
    r = check_claim(load_registry(PAPERS), "T6'.7", "quick", 0)
    assert r.verdict == "holds", r.message


def _flaky(x):
    """Raises on negative inputs, as an eigensolver that does not converge on some instances would."""
    if float(x.detach()) < 0:
        raise torch.linalg.LinAlgError("planted: the algorithm failed to converge")
    return x


@pytest.fixture
def flaky_registry(make_registry, monkeypatch):
    monkeypatch.setitem(vocabulary.VOCABULARY, "flaky", vocabulary.Function(_flaky, "test only", name="flaky"))

    def make(assertion: str, lo: float = -1.0):
        extra = f"check: {{given: {{x: 'scalar({lo}, 1)'}}, assert: '{assertion}'}}\n"
        return load_registry(make_registry({"a.yaml": "claims:\n" + claim_yaml("F.1", extra=extra, kind="bound")}))

    return make


@pytest.mark.parametrize("budget", ["quick", "default"])
def test_failing_instances_do_not_kill_the_search(flaky_registry, budget):
    r = check_claim(flaky_registry("flaky(x) <= 0.5"), "F.1", budget, 0)
    assert r.verdict == "refuted", r.message
    assert r.witness["values"]["x"] > 0.5
    assert r.details["failed_instances"] > 0


def test_failing_instances_are_reported_when_the_claim_holds(flaky_registry):
    r = check_claim(flaky_registry("flaky(x) <= 1"), "F.1", "default", 0)
    assert r.verdict == "holds", r.message
    assert r.details["failed_instances"] > 0


def test_a_check_no_instance_can_evaluate_is_an_error(flaky_registry):
    r = check_claim(flaky_registry("flaky(x - 5) <= 1"), "F.1", "quick", 0)
    assert r.verdict == "error"
    assert "planted: the algorithm failed to converge" in r.message
