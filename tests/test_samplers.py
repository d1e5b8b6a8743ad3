"""Every sampler's instances satisfy its hypothesis, degenerate ones included; the check of a sampler can fail."""

from __future__ import annotations

import pytest
import torch

from pyverify.checks.samplers import SAMPLERS, SamplerError, parse_sampler

CTX = {"dtype": torch.float64, "device": torch.device("cpu")}
SPECS = [
    "vec(3)", "vec(4, lo=0.5, hi=1)", "scalar(0, 1)", "mat(3)", "mat(3, m=5, lo=1, hi=2)", "sym(4)", "skew(4, hi=0.5)",
    "psd(3)", "orth(4)", "orth(3, det=-1)", "orth(4, det='any')", "commuting_skew(6, 2)", "commuting_skew(5, 3, m=1)",
    "commuting_skew(4, 2, U='identity')", "skew_family(4, 2)", "near_commuting_skew(4, 2, 0.1)", "structured_post(6, 2, m=2)",
    "structured_post(6, 2, m=2, leak=0.1)", "cayley_post(6, 2, rho=0.5)", "unit_quat()", "small_angle(0.1)", "simplex(5)",
    "simplex(5, rows=3)",
]


@pytest.mark.parametrize("spec", SPECS)
def test_instances_satisfy_the_hypothesis(spec):
    s = parse_sampler(spec, {})
    gen = torch.Generator().manual_seed(3)
    for theta in (s.init(32, gen, CTX), s.degenerate(32, gen, CTX)):
        assert bool(s.satisfied(s.value(theta)).all()), spec


@pytest.mark.parametrize("spec", SPECS)
def test_values_are_differentiable_in_theta(spec):
    s = parse_sampler(spec, {})
    theta = s.init(4, torch.Generator().manual_seed(0), CTX)
    for v in theta.values():
        v.requires_grad_(True)
    value = s.value(theta)
    parts = value.values() if isinstance(value, dict) else [value]
    total = sum(p.sum() for p in parts)
    total.backward()
    grads = [v.grad for v in theta.values() if v.grad is not None]
    assert grads and all(torch.isfinite(g).all() for g in grads)


def test_every_sampler_is_covered():
    names = {spec.split("(")[0] for spec in SPECS} | {"gaussian", "orf"}
    assert names == set(SAMPLERS)


def test_the_hypothesis_check_can_fail():
    # a relaxed sampler's instances do not satisfy the original hypothesis
    gen = torch.Generator().manual_seed(1)
    for strict, loose in [("skew(4)", "mat(4)"), ("orth(4)", "mat(4)"), ("commuting_skew(4, 2)", "skew_family(4, 2)"),
                          ("unit_quat()", "vec(4, lo=0.5, hi=1.5)"), ("psd(3)", "sym(3)")]:
        s, r = parse_sampler(strict, {}), parse_sampler(loose, {})
        value = r.value(r.init(16, gen, CTX))
        if isinstance(value, dict) and not isinstance(s.value(s.init(1, gen, CTX)), dict):
            continue
        assert not bool(s.satisfied(value).all()), (strict, loose)


def test_degenerate_instances_are_degenerate():
    gen = torch.Generator().manual_seed(0)
    s = parse_sampler("commuting_skew(6, 2)", {})
    freqs = s.value(s.degenerate(8, gen, CTX))["freqs"]
    assert torch.equal(freqs[:, :, 0], freqs[:, :, 1]), "repeated frequencies"
    q = parse_sampler("unit_quat()", {})
    v = q.value(q.degenerate(9, gen, CTX))
    assert (v[:3, 1:].abs().amax() < 1e-4) and (v[3:6, 0].abs().amax() < 1e-4), "near +-1 and angles near pi"


def test_random_samplers_draw_the_stated_shape():
    gen = torch.Generator().manual_seed(0)
    g = parse_sampler("gaussian(4, 3)", {})
    assert g.random and g.draw(2, 5, gen, CTX).shape == (2, 5, 4, 3)
    o = parse_sampler("orf(3, 3)", {})
    w = o.draw(1, 4, gen, CTX)[0, 0]
    gram = w @ w.T
    assert torch.allclose(gram - torch.diag(torch.diag(gram)), torch.zeros(3, 3, dtype=torch.float64), atol=1e-10)


@pytest.mark.parametrize("spec,msg", [("nosuch(3)", "unknown sampler"), ("vec", "must be a sampler call"),
                                      ("vec(x)", "sweep name"), ("commuting_skew(4, 2, m=3)", "2m"),
                                      ("mat()", "needs argument")])
def test_bad_sampler_specs(spec, msg):
    with pytest.raises(SamplerError, match=msg):
        parse_sampler(spec, {})
