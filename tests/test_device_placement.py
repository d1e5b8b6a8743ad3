"""Every tensor and generator of a check follows its NumericContext's device: proven on a CPU-only machine.

A CUDA run fails where a tensor or a generator is made without the context's device (issue 20: 284 of
344 claims ended in `error` on an H100). `device_placement.stray_placement` makes those mistakes fail
here too (see its docstring); these tests show that it does (planted mistakes), and that a representative
set of claims runs under it without a stray: one claim per place a missed placement was found and fixed.
The whole registry under it: `PYVERIFY_PLACEMENT_ALL=1 pytest tests/test_device_placement.py -k whole`.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest
import torch

from conftest import REPO
from device_placement import StrayGeneratorError, stray_placement
from pyverify.checks.samplers import base as sampler_base
from pyverify.checks.validate import load_valid_registry
from pyverify.engine.claim import run_registry_claim
from pyverify.engine.context import NumericContext
from pyverify.registry import Verdict

PLANTED = REPO / "tests" / "meta" / "planted.yaml"

# claim -> the placement it exercises (each was a stray before the fix, at the file named)
REPRESENTATIVE = {
    "T4.4": "a function of the language on a Python number (checks/vocabulary.py `_t`)",
    "PE.Text-omega-range": "sinusoidal(n, d): a tensor from sizes alone (papers/functions.py, context=True)",
    "PE.Table3-ordering": "synthetic_mu: the corpus law drawn on the CPU, moved to the context (attention/corpus.py)",
    "PE.Lem11": "the order judge's claimed-order table (engine/relations/order.py)",
    "ESPR.RF-unbiased": "Monte-Carlo p-values through SciPy and Holm's thresholds (engine/relations/expectation.py)",
    "T0.3": "the joint block decomposition's random combinations and eigenvector blocks (attention/rotations/core.py)",
    "T6'.4": "ball re-evaluation of an operator norm, on the CPU by name (provers/interval.py)",
}


def _run(registry, cid: str):
    return run_registry_claim(registry, cid, "quick", 0, "cpu")


@pytest.fixture(scope="module")
def papers():
    return load_valid_registry(None)


@pytest.fixture(scope="module")
def planted():
    return load_valid_registry(PLANTED)


# --- the stand-in itself can fail -------------------------------------------------------------------------

def test_a_tensor_made_without_a_device_does_not_mix_with_the_contexts():
    with stray_placement() as strays:
        ctx = torch.ones(3, dtype=torch.float64, device="cpu")
        with pytest.raises(RuntimeError, match="device"):
            ctx + torch.ones(3, dtype=torch.float64)
        with pytest.raises(RuntimeError, match="meta"):
            torch.tensor(2.0).item()  # a host read of a misplaced scalar fails too
    assert any("ones without device=" in what for what in strays.found.values())


def test_a_generator_made_without_a_device_refuses_to_draw():
    with stray_placement() as strays:
        with pytest.raises(StrayGeneratorError, match="device type for generator"):
            torch.randn(2, generator=torch.Generator(), device="cpu")
        torch.randn(2, generator=torch.Generator(device="cpu"), device="cpu")  # said where: fine
    assert len(strays.found) == 1


def test_placed_tensors_pass_and_leave_nothing_behind():
    with stray_placement() as strays:
        x = torch.as_tensor(torch.arange(3, device="cpu"))  # an existing tensor stays where it is
        y = torch.zeros(3, device=x.device) + x
    assert not strays.found and y.device.type == "cpu"
    assert torch.Generator is torch._C.Generator and torch.ones(1).device.type == "cpu"  # all restored


def test_the_issue_20_generator_defect_is_caught(planted, monkeypatch):
    """The engine's generator made on the CPU whatever the context's device (issue 20's 278 claims)."""
    assert _run(planted, "P.sign-relative").verdict is Verdict.refuted  # invisible on a plain CPU run
    monkeypatch.setattr(NumericContext, "seeded",
                        lambda self, seed: dataclasses.replace(self, generator=torch.Generator().manual_seed(seed)))
    with stray_placement():
        result = _run(planted, "P.sign-relative")
    assert result.verdict is Verdict.error and "device type for generator" in result.message


def test_a_sampler_that_drops_the_device_is_caught(planted, monkeypatch):
    def init(self, b, gen, ctx):  # the context's dtype kept, its device forgotten
        return {k: torch.randn((b, *s), generator=gen, dtype=ctx["dtype"]) for k, s in self.shapes().items()}

    monkeypatch.setattr(sampler_base.Sampler, "init", init)
    assert _run(planted, "P.sign-relative").verdict is Verdict.refuted
    with stray_placement() as strays:
        result = _run(planted, "P.sign-relative")
    assert result.verdict is Verdict.error and "meta" in result.message  # as on CUDA: a tensor off the device
    assert "randn without device=" in strays.found.values()


# --- the engine and the papers' content place everything -------------------------------------------------

@pytest.mark.parametrize("cid", sorted(REPRESENTATIVE))
def test_claims_run_with_every_tensor_on_the_context_device(papers, cid):
    with stray_placement() as strays:
        result = _run(papers, cid)
    assert not strays.found, f"{cid} ({REPRESENTATIVE[cid]}): made off the context's device at {strays.found}"
    assert result.verdict is not Verdict.error, result.message


@pytest.mark.skipif(not os.environ.get("PYVERIFY_PLACEMENT_ALL"), reason="the whole registry: minutes; set PYVERIFY_PLACEMENT_ALL=1")
def test_whole_registry_with_every_tensor_on_the_context_device(papers):
    found, errors = {}, {}
    for cid in papers.claims:
        with stray_placement() as strays:
            result = _run(papers, cid)
        found.update({site: cid for site in strays.found})
        if result.verdict is Verdict.error:
            errors[cid] = result.message
    assert not found and not errors, (found, errors)


def test_no_device_tensor_is_read_by_numpy_without_cpu_first():
    """``.numpy()`` of a CUDA tensor raises; the stand-in cannot see it (its context is the CPU), so the
    source is read: every ``.numpy()`` in pyverify follows a ``.cpu()``."""
    offenders = []
    for path in sorted((REPO / "pyverify").rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in re.finditer(r"\.numpy\(\)", line):
                if not line[:m.start()].endswith(".cpu()"):
                    offenders.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not offenders, offenders


def test_workers_on_an_accelerator_start_from_a_server_that_never_touched_it():
    """The command line asks torch whether the card exists before any worker starts; a worker forked from that
    process would inherit a CUDA runtime it cannot use. Workers for any device but the CPU come from the
    forkserver, which has only imported modules."""
    import sys

    from pyverify.engine import parallel

    ctx, server = parallel._context("cuda")
    assert (ctx.get_start_method(), server) == ("forkserver", True)
    if sys.platform.startswith("linux"):
        assert parallel._context("cpu")[0].get_start_method() == "fork"


def test_the_papers_claims_run_in_forkserver_workers(papers, monkeypatch):
    """The workers that serve an accelerator (and every worker off Linux) start from a server that has not
    loaded the content: the registry they receive names the content's functions, so it is unpickled only
    after the content is loaded. Issue 20's first CUDA run with workers failed here (KeyError on a name)."""
    import multiprocessing as mp

    from pyverify.engine import check_claims, parallel

    def forkserver(device="cpu"):
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(parallel._PRELOAD)
        return ctx, True

    ids = ["T0.3", "PE.Lem11"]
    alone = check_claims(papers, ids, "quick", 0, "cpu", jobs=1)
    monkeypatch.setattr(parallel, "_context", forkserver)
    served = check_claims(papers, ids, "quick", 0, "cpu", jobs=2)
    assert [(r.id, r.verdict, r.worst) for r in served] == [(r.id, r.verdict, r.worst) for r in alone]
    assert all(r.verdict is not Verdict.error for r in served), [r.message for r in served]
