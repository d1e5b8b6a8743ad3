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
    "simplex(5, rows=3)", "int_position()", "int_position(3, 9, n=7)",
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
    # tensor_file reads a file of the registry: covered by tests/test_tensor_file.py
    names = {spec.split("(")[0] for spec in SPECS} | {"gaussian", "orf", "tensor_file"}
    assert names == set(SAMPLERS)


def test_the_hypothesis_check_can_fail():
    # a relaxed sampler's instances do not satisfy the original hypothesis
    gen = torch.Generator().manual_seed(1)
    for strict, loose in [("skew(4)", "mat(4)"), ("orth(4)", "mat(4)"), ("commuting_skew(4, 2)", "skew_family(4, 2)"),
                          ("unit_quat()", "vec(4, lo=0.5, hi=1.5)"), ("psd(3)", "sym(3)"),
                         ("int_position(0, 9)", "scalar(0, 9)")]:
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
                                      ("mat()", "needs parameter 'n'")])
def test_bad_sampler_specs(spec, msg):
    with pytest.raises(SamplerError, match=msg):
        parse_sampler(spec, {})


# every mistake a new user makes is an error naming the accepted parameters, never a silent default
@pytest.mark.parametrize("spec,msg", [
    ("vec(3, hii=4)", r"unknown parameter 'hii' \(did you mean 'hi'\?\); accepted: vec\(n: int >= 1"),
    ("commuting_skew(4, 2, lamb=1)", r"did you mean 'lam'"),
    ("vec(2.5)", r"vec: parameter n must be an integer, got 2.5"),
    ("vec('3')", r"must be an integer"),
    ("vec(0)", r"n = 0 is out of range: n: int >= 1"),
    ("vec(3, lo=-1)", r"lo = -1.0 is out of range"),
    ("vec(3, lo=5, hi=1)", r"needs lo <= hi \(got lo=5.0, hi=1.0\)"),
    ("scalar(1, 0)", r"needs lo <= hi"),
    ("vec(3, 4)", r"vec takes at most 1 positional argument\(s\); accepted: vec\(n"),
    ("unit_quat(1)", r"at most 0 positional"),
    ("vec(3, n=4)", r"parameter 'n' given twice"),
    ("orth(3, det=2)", r"det = 2 is not one of 1, -1, 'any'"),
    ("commuting_skew(4, 2, U='identiy')", r"not one of 'random', 'identity'"),
    ("mat(3, norm='frobenius')", r"not one of 'op', 'fro'"),
    ("small_angle(0.1, lo=2)", r"lo = 2.0 is out of range: lo: float >= 0 <= 1"),
    ("near_commuting_skew(4, 2)", r"needs parameter 'eps'"),
    ("gaussian(3, 0)", r"shape = 0 is out of range"),
    ("sym(3, m=4)", r"unknown parameter 'm'"),
    ("vecc(3)", r"unknown sampler 'vecc' \(did you mean 'vec'\?\)"),
])
def test_misread_arguments_are_errors(spec, msg):
    with pytest.raises(SamplerError, match=msg):
        parse_sampler(spec, {})


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_declarations_are_complete_and_consistent(name):
    cls = SAMPLERS[name]
    names = [p.name for p in cls.params]
    assert len(names) == len(set(names)), "a parameter declared twice"
    assert all(p.doc for p in cls.params), "every parameter says what it is"
    assert [p.kind for p in cls.params if p.kind not in ("int", "float", "str", "choice")] == []
    # the positional order is the declaration order, a variadic parameter last
    pos = cls.positional()
    assert [p.name for p in pos] == [n for n in names if n in {p.name for p in pos}]
    assert all(not p.variadic for p in pos[:-1])
    # the signature (what errors list) names every parameter
    assert all(n in cls.signature() for n in names)


@pytest.mark.parametrize("name", sorted(set(SAMPLERS) - {"tensor_file"}))  # needs a file: test_tensor_file.py
def test_defaults_fill_every_parameter(name):
    cls = SAMPLERS[name]
    required = {p.name: 4 if p.kind == "int" else 0.1 for p in cls.params
                if repr(p.default) == "required"}
    s = cls(args=dict(required))
    assert set(s.p) == {p.name for p in cls.params}
    assert s.args == required, "args keep what was written (describe shows it)"


def test_positional_and_keyword_forms_agree_and_derived_defaults_follow():
    assert parse_sampler("commuting_skew(6, 2)", {}).p == parse_sampler("commuting_skew(d=6, dc=2)", {}).p
    assert parse_sampler("commuting_skew(6, 2)", {}).p["m"] == 3
    assert parse_sampler("mat(3)", {}).p["m"] == 3 and parse_sampler("mat(3, 5)", {}).p["m"] == 5
    assert parse_sampler("vec(n)", {"n": 5}).p["n"] == 5
    assert parse_sampler("gaussian(4, 3)", {}).p["shape"] == [4, 3]
    with pytest.raises(SamplerError, match="must be an integer"):
        parse_sampler("vec(n)", {"n": 2.5})


def test_the_documented_sampler_table_is_current():
    from pathlib import Path

    from pyverify.checks.samplers.docs import BEGIN, END, sampler_table

    text = (Path(__file__).resolve().parent.parent / "docs" / "checks.md").read_text(encoding="utf-8")
    block = text.partition(BEGIN)[2].partition(END)[0].strip()
    assert block == sampler_table(), "run `python -m pyverify.checks.samplers.docs docs/checks.md`"
