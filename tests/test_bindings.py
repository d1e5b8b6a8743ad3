"""Roles and bindings: the shipped claims re-run against a user's own functions, conventions mapped.

The user's code (tests/bound_user_code.py) is written in third-party style: half-split rotary pairing,
the opposite rotation sense, key-major scores, a 1/sqrt(d) logit scale, float32 arithmetic. Each correct
function, with its conventions declared, gets no refutation on the claims its role is exercised by; each
planted defect is refuted; a convention declared wrongly is refuted (the mapping is real).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

from pyverify.checks import plugins, roles, vocabulary
from pyverify.checks.binding_sources import load_bindings
from pyverify.checks.roles import BindingError
from pyverify.checks.validate import compile_checked
from pyverify.engine import run_claim
from pyverify.registry import Verdict

from conftest import REPO

import bound_user_code as user

USER = "tests/bound_user_code.py"
ROTARY = {"pairing": "half", "displacement": "ri-rj"}
LOGITS = {"displacement": "ri-rj", "logit_scale": "1/sqrt(d)", "layout": "key-major"}


pytestmark = pytest.mark.usefixtures("unbound_after")


def _verdicts(reg, ids, budget="quick"):
    """The claims compiled now (under the active bindings) and checked."""
    out = {}
    for cid in ids:
        compiled = compile_checked(reg, reg.claims[cid])
        out[cid] = run_claim(compiled, budget=budget, seed=0).verdict
    return out


def _bind(role, fn, conventions, precision="float64"):
    roles.bind(role, fn, f"{USER}:{fn.__name__}", conventions, precision, "test")


def test_nothing_bound_resolves_every_function_to_its_reference(shipped):
    compiled = compile_checked(shipped, shipped.claims["ESPR.Def-logit"])
    assert all(compiled.functions[n] is vocabulary.VOCABULARY[n] for n in compiled.functions)
    assert all(fn.binding is None and fn.precision is None for fn in compiled.functions.values())


def test_every_mechanism_of_the_papers_has_a_role():
    plugins.ensure_content()
    assert {"rotation", "rotary", "relative_logits", "scores", "random_features", "gsm_logits", "rotor",
            "sinusoidal_encoding", "mds_encoding"} <= set(roles.ROLES)
    for role in roles.ROLES.values():
        assert role.function in vocabulary.VOCABULARY and role.doc


def test_a_third_party_style_implementation_with_its_conventions_declared_is_not_refuted(shipped):
    _bind("rotary", user.apply_rotary, ROTARY)
    _bind("relative_logits", user.scores, LOGITS)
    _bind("rotation", user.rotation, {"displacement": "ri-rj"}, precision="float32")
    ids = ["ESPR.Def-R2-J", "ESPR.Def-logit", "ESPR.Thm1", "T4.4", "T2.9", "T3.6"]
    verdicts = _verdicts(shipped, ids)
    # a proof is of the reference's formula: on the user's code a proved claim can only hold
    proofs = (Verdict.symbolic, Verdict.proved)
    assert verdicts == {cid: Verdict.holds if shipped.claims[cid].expect in proofs else shipped.claims[cid].expect
                        for cid in ids}, verdicts
    bound = compile_checked(shipped, shipped.claims["T2.9"])
    assert bound.functions["R_str"].binding.target is user.rotation  # the user's code ran, not the reference
    # float32: the bound record computes in float32 whatever dtype its results are cast back to, so the one
    # precision model judges it at float32's unit roundoff
    assert bound.functions["R_str"].precision is torch.float32


@pytest.mark.parametrize("role, fn, conventions, cid", [
    ("rotary", user.apply_rotary_wrong_frequency, ROTARY, "ESPR.Def-R2-J"),
    ("relative_logits", user.scores_key_sign_flipped, LOGITS, "ESPR.Thm1"),
    ("relative_logits", user.scores_transposed, LOGITS, "ESPR.Def-logit"),
    ("rotation", user.rotation_scaled, {"displacement": "ri-rj"}, "T2.9"),
])
def test_a_planted_defect_is_refuted(shipped, role, fn, conventions, cid):
    _bind(role, fn, conventions)
    assert _verdicts(shipped, [cid])[cid] is Verdict.refuted


@pytest.mark.parametrize("role, fn, conventions, cid", [
    ("rotary", user.apply_rotary, {"pairing": "half"}, "ESPR.Def-R2-J"),  # the sign left undeclared
    ("relative_logits", user.scores, {**LOGITS, "displacement": "rj-ri"}, "ESPR.Thm1"),
    ("relative_logits", user.scores, {**LOGITS, "layout": "query-major"}, "ESPR.Def-logit"),
    ("relative_logits", user.scores, {**LOGITS, "logit_scale": "1/sqrt(2m)"}, "ESPR.Def-logit"),
    ("rotation", user.rotation, {}, "T2.7"),  # T2.9, the relative law, holds for either sense
])
def test_a_convention_declared_wrongly_is_refuted(shipped, role, fn, conventions, cid):
    _bind(role, fn, conventions)
    assert _verdicts(shipped, [cid])[cid] is Verdict.refuted


def test_precision_is_recorded_and_a_float32_rotation_is_not_refuted_for_its_rounding(shipped):
    def rotation32(L, r):
        assert L.dtype == r.dtype == __import__("torch").float32  # the binding runs the code in its precision
        return user.rotation(L, r)

    _bind("rotation", rotation32, {"displacement": "ri-rj"}, precision="float32")
    assert _verdicts(shipped, ["T2.7"])["T2.7"] in (Verdict.holds, Verdict.consistent)


def test_a_decay_declared_on_the_command_line_is_divided_out_and_an_undeclared_one_is_refuted(shipped):
    """xpos code bound as `rotary` with decay=xpos:512: the rotation underneath satisfies RoPE's rotations;
    the same code bound without the declaration is a scaling the claim does not allow."""
    claim = "ESPR.Text-rope-rotations"
    options = f"rotary={USER}:apply_rotary_xpos,pairing=half,displacement=ri-rj"
    try:
        (binding,) = load_bindings([options + ",decay=xpos:512"], directory=REPO)
        assert binding.describe()["decay"] == "xpos:512"
        assert run_claim(compile_checked(shipped, shipped.claims[claim]), budget="quick", seed=0).verdict is Verdict.holds
        roles.unbind_all()
        load_bindings([options], directory=REPO)
        assert run_claim(compile_checked(shipped, shipped.claims[claim]), budget="quick", seed=0).verdict is Verdict.refuted
    finally:
        roles.unbind_all()


def test_bad_bindings_are_clear_errors(tmp_path):
    plugins.ensure_content()
    with pytest.raises(BindingError, match="unknown role 'rotery'.*rotary"):
        load_bindings([f"rotery={USER}:apply_rotary"], directory=REPO)
    with pytest.raises(BindingError, match="has no attribute 'nothing'"):
        load_bindings([f"rotary={USER}:nothing"], directory=REPO)
    with pytest.raises(BindingError, match="cannot import"):
        load_bindings(["rotary=no_such_module_here:f"], directory=REPO)
    with pytest.raises(BindingError, match="has no convention 'logit_scale'"):
        load_bindings([f"rotary={USER}:apply_rotary,logit_scale=1/sqrt(d)"], directory=REPO)
    with pytest.raises(BindingError, match="'diagonal' is not one of adjacent, half"):
        load_bindings([f"rotary={USER}:apply_rotary,pairing=diagonal"], directory=REPO)
    with pytest.raises(BindingError, match="precision 'float8'"):
        load_bindings([f"rotary={USER}:apply_rotary,precision=float8"], directory=REPO)
    with pytest.raises(BindingError, match="not a callable"):
        load_bindings([f"rotary={USER}:ROTARY_CONSTANT"], directory=REPO)
    with pytest.raises(BindingError, match="decay 'xpos:-3'.*positive scale base"):
        load_bindings([f"rotary={USER}:apply_rotary,decay=xpos:-3"], directory=REPO)
    with pytest.raises(BindingError, match="decay 'alibi'"):
        load_bindings([f"rotary={USER}:apply_rotary,decay=alibi"], directory=REPO)
    with pytest.raises(BindingError, match="role rotation takes no decay"):
        load_bindings([f"rotation={USER}:rotation,decay=xpos:64"], directory=REPO)


def test_a_bindings_file_is_validated_with_its_line(tmp_path):
    plugins.ensure_content()
    good = tmp_path / "bindings.yaml"
    good.write_text(f"bindings:\n  rotary:\n    target: {REPO / USER}:apply_rotary\n"
                    "    conventions: {pairing: half, displacement: ri-rj}\n")
    (binding,) = load_bindings(files=[good], directory=tmp_path)
    assert binding.target is not None and binding.conventions == ROTARY and binding.origin == f"{good}:2"
    roles.unbind_all()
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"bindings:\n  rotary:\n    target: {REPO / USER}:apply_rotary\n  relative_logits:\n"
                   f"    target: {REPO / USER}:scores\n    convention: {{displacement: ri-rj}}\n")
    with pytest.raises(BindingError, match=rf"{bad}:4: binding of 'relative_logits': unknown key\(s\) convention"):
        load_bindings(files=[bad], directory=tmp_path)
    toml = tmp_path / "bindings.toml"
    toml.write_text(f'[bindings.rotary]\ntarget = "{REPO / USER}:apply_rotary"\n\n[bindings.rotor]\n'
                    f'target = "{REPO / USER}:apply_rotary"\nprecision = "half"\n')
    with pytest.raises(BindingError, match=rf"{toml}:4: precision 'half'"):
        load_bindings(files=[toml], directory=tmp_path)


def test_pyproject_bindings_are_read_and_the_command_line_overrides_them(tmp_path):
    plugins.ensure_content()
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.pyverify.bindings.rotary]\ntarget = "{REPO / USER}:apply_rotary_wrong_frequency"\n'
        'conventions = {pairing = "half", displacement = "ri-rj"}\n')
    (from_project,) = load_bindings(directory=tmp_path)
    assert from_project.target is user.apply_rotary_wrong_frequency or from_project.target.__name__ == \
        "apply_rotary_wrong_frequency"
    assert from_project.origin.endswith("pyproject.toml:1")
    roles.unbind_all()
    (from_cli,) = load_bindings([f"rotary={REPO / USER}:apply_rotary"], directory=tmp_path)
    assert from_cli.target.__name__ == "apply_rotary" and from_cli.conventions == {}


def _cli(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "pyverify", *argv], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)


def test_check_bind_runs_only_the_affected_claims_and_says_what_each_function_satisfies():
    bind = f"relative_logits={USER}:scores_key_sign_flipped,displacement=ri-rj,logit_scale=1/sqrt(d),layout=key-major"
    out = _cli("check", "ESPR.Thm1", "ESPR.Def-logit", "T2.9", "--budget", "quick", "--jobs", "1", "--format",
               "json", "--bind", bind)
    assert out.returncode == 1, out.stderr  # a refutation the registry does not expect
    payload = json.loads(out.stdout)
    assert {c["id"] for c in payload["claims"]} == {"ESPR.Def-logit", "ESPR.Thm1"}
    assert payload["not_affected"] == ["T2.9"]
    (summary,) = payload["bindings"]
    assert summary["role"] == "relative_logits" and summary["function"] == "espr_logits"
    assert summary["target"].endswith(":scores_key_sign_flipped") and summary["layout"] == "key-major"
    assert set(summary["violated"]) == {"ESPR.Thm1", "ESPR.Def-logit"} and summary["satisfied"] == []
    assert all(c["bound"] == ["relative_logits"] for c in payload["claims"])
    text = _cli("check", "ESPR.Thm1", "T2.9", "--budget", "quick", "--jobs", "1", "--bind", bind, "--no-progress")
    assert "VIOLATES 1 claim(s): ESPR.Thm1" in text.stdout and "not affected, not run" in text.stdout


def test_check_bind_refuses_an_unknown_role_before_running():
    out = _cli("check", "--bind", f"rotery={USER}:apply_rotary")
    assert out.returncode == 2 and "unknown role 'rotery'" in out.stderr and "rotary" in out.stderr


MY_REGISTRY = """\
claims:
  - id: MINE.relative
    title: Rotary logits depend on the displacement only
    document: doc
    locator: notes
    kind: theorem
    statement: 'rope(q, i)^T rope(k, j) depends on j - i only'
    restates: [ESPR.Def-R2-J]
    check:
      given: {q: 'vec(6)', k: 'vec(6)', i: 'vec(1, hi=50)', j: 'vec(1, hi=50)', t: 'vec(1, hi=50)'}
      where: {Q: 'outer(ones(1), q)', K: 'outer(ones(1), k)'}
      assert: 'rope(Q, i)[0] @ rope(K, j)[0] == rope(Q, i + t)[0] @ rope(K, j + t)[0]'
    expect: holds
  - id: MINE.other
    title: Nothing of the rotary
    document: doc
    locator: notes
    kind: theorem
    statement: 'x + x = 2x'
    check:
      given: {x: 'vec(2)'}
      assert: 'x + x == 2 * x'
    expect: holds
"""


@pytest.mark.parametrize("fn, violated", [(user.apply_rotary, []), (user.apply_rotary_position_scaled, ["MINE.relative"])])
def test_the_report_lists_the_bound_function_and_what_it_satisfies(make_registry, tmp_path, fn, violated):
    """A user's registry exercising the rotary role at d = 6 (all three planes, real positions), restating a
    shipped claim: the report's implementation view lists the user's function, its bindings table what it
    satisfies and violates (a scale by absolute position breaks the relative law; a wrong frequency would not:
    every frequency gives a relative law, only a claim against the reference formula sees it)."""
    import time

    from pyverify.checks.validate import load_valid_registry
    from pyverify.engine import check_claims
    from pyverify.registry.graph import check_graph
    from pyverify.report import build, collect_meta
    from pyverify.report.markdown import render

    _bind("rotary", fn, ROTARY)
    reg = load_valid_registry(make_registry({"mine.yaml": MY_REGISTRY}))
    results = check_claims(reg, (), "quick", 0, "cpu", 1)
    meta = collect_meta(seed=0, budget="quick", device="cpu", started=time.time(), lean_built=False, toolchain=None)
    report = build(reg, results, check_graph(reg), {}, meta)
    first = report["implementation"][0]
    assert first["name"] == f"{USER}:{fn.__name__}" and first["bound_as"] == "rotary"
    assert [c["id"] for c in first["claims"]] == ["MINE.relative"]
    (summary,) = report["bindings"]
    assert summary["violated"] == violated and summary["satisfied"] == ([] if violated else ["MINE.relative"])
    rows = {c["id"]: c for c in report["claims"]}
    assert rows["MINE.relative"]["bound"] == ["rotary"] and rows["MINE.other"]["bound"] == []
    assert not any("rope" in name for name in rows["MINE.relative"]["exercises"])  # the reference did not run
    assert f"| {USER}:{fn.__name__} | rotary |" in render(report)


def test_the_declared_precision_drives_the_tolerance_even_where_a_check_writes_its_own():
    """Code computing in float32: declared so, it holds under an explicit float64-sized tolerance (the
    tolerance is never tighter than float32 rounding); declared float64, the same rounding is refuted —
    the precision key drives the judgement, it is not only recorded."""
    from conftest import compiled_claim

    def rotary_in_float32(x, pos):
        # the frequency table in float32, the rest in float64: the results are no float32 numbers, so only
        # the declaration can tell the engine (a result cast up from float32 is measured: test below)
        inv_freq = (1.0 / 10000.0 ** (torch.arange(0, x.shape[-1], 2, dtype=torch.float32) / x.shape[-1])).double()
        return user._rotary(x, pos, inv_freq)

    check = {"given": {"x": "vec(6)", "p": "vec(1, hi=50)"}, "tol": 1e-12,  # the rotation of the formula
             "where": {"L": "generators(I(6), outer(ones(1), rope_frequencies(6)))"},
             "assert": "rope(outer(ones(1), x), p)[0] == R_str(L, p) @ x"}
    _bind("rotary", rotary_in_float32, ROTARY, precision="float32")
    assert run_claim(compiled_claim(check), budget="quick").verdict is Verdict.holds
    roles.unbind_all()
    _bind("rotary", rotary_in_float32, ROTARY)
    assert run_claim(compiled_claim(check), budget="quick").verdict is Verdict.refuted


def test_a_result_cast_up_from_float32_is_measured_as_float32_without_a_declaration():
    """Undeclared float32 internals: a float64 result whose every entry is a float32 number was made in
    float32; the engine judges it so (and says so) instead of refuting it for float32's rounding."""
    from conftest import compiled_claim

    def cast_up(x, pos):
        return user.apply_rotary(x.float(), pos.float()).double()

    check = {"given": {"x": "vec(6)", "p": "vec(1, hi=50)"}, "tol": 1e-12,
             "assert": "vnorm(rope(outer(ones(1), x), p)[0]) == vnorm(x)"}
    _bind("rotary", cast_up, ROTARY)
    result = run_claim(compiled_claim(check), budget="quick")
    assert result.verdict is Verdict.holds and "float32 precision" in result.message, result.message


def test_a_float32_binding_does_not_widen_the_hypotheses():
    """The tolerance of the code's arithmetic is for its results; the hypotheses stay at float64's. Here
    q = 1 + 1e-6 never meets `q < 1` (the check is vacuous); judged at float32's tolerance it would, and
    1 / (1 - q) < 0 would 'refute' a correct rotary."""
    from conftest import compiled_claim

    check = {"given": {"x": "vec(2)", "p": "vec(1)"}, "where": {"q": "p[0] * 0 + 1 + 1e-6"}, "assume": "q < 1",
             "assert": "vnorm(rope(outer(ones(1), x), p)[0]) / (1 - q) >= 0"}
    _bind("rotary", user.apply_rotary, ROTARY, precision="float32")
    assert run_claim(compiled_claim(check), budget="quick").verdict is Verdict.vacuous


def test_forkserver_workers_keep_the_decay_a_binding_declares(shipped, monkeypatch):
    """Workers that cannot be forked bind again from what the parent hands over: a decay declared by the
    option (decay=xpos:512) must reach them, or the xpos code would be refuted there for its decay."""
    import multiprocessing as mp

    from pyverify.engine import check_claims, parallel

    def forkserver(device="cpu"):
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(parallel._PRELOAD)
        return ctx, True

    monkeypatch.setattr(parallel, "_context", forkserver)
    try:
        load_bindings([f"rotary={USER}:apply_rotary_xpos,pairing=half,displacement=ri-rj,decay=xpos:512"],
                      directory=REPO)
        results = check_claims(shipped, ["ESPR.Text-rope-rotations", "ESPR.Def-R2-J"], budget="quick", jobs=2)
        assert {r.verdict for r in results} <= {Verdict.holds, Verdict.consistent}, [r.message for r in results]
    finally:
        roles.unbind_all()


THROUGH_CLAIM = {"given": {"Q": "mat(3, 2)", "K": "mat(3, 2)"},
                 "assert": "total(euclidean_attention(Q, K, I(3), tau=2.0)[0]) == 1"}
LOGITS_CLAIM = {"given": {"Q": "mat(3, 2)", "K": "mat(3, 2)"},
                "assert": "euclidean_attention(Q, K, I(3), tau=2.0) == euclidean_attention(0.5 * Q, K, I(3), tau=1.0)"}


def test_a_function_defined_through_a_bound_one_runs_the_users_code_inside(shipped):
    """euclidean_attention is defined through euclidean_logits (``through``): bound to the `scores` role,
    the user's logits run inside the attention, the claim counts as exercising the role, and the record
    carries the binding's precision and no exact meaning (those are the reference's). A defect in the
    logits (the temperature dropped) reaches a claim about the attention; the correct logits do not."""
    from conftest import compiled_claim
    from precision_fixtures import hostile_roles as hostile

    try:
        roles.bind("scores", hostile.scores, "hostile:scores", {"layout": "key-major"}, "float32", "test")
        comp = compiled_claim(LOGITS_CLAIM)
        record = comp.functions["euclidean_attention"]
        assert record.binding is not None and record.binding.role.name == "scores"
        assert record.precision is torch.float32 and record.ball is None and record.precise is None
        assert roles.exercised({"c": comp}) == {"c": ["scores"]}
        assert run_claim(comp, budget="quick", seed=0).verdict is Verdict.holds
        roles.unbind_all()
        roles.bind("scores", hostile.scores_temperature_dropped, "hostile:scores_temperature_dropped",
                   {"layout": "key-major"}, "float64", "test")
        assert run_claim(compiled_claim(LOGITS_CLAIM), budget="quick", seed=0).verdict is Verdict.refuted
        # a claim the defect cannot change (every row of the weights sums to 1 whatever the logits) holds
        assert run_claim(compiled_claim(THROUGH_CLAIM), budget="quick", seed=0).verdict is Verdict.holds
    finally:
        roles.unbind_all()
    # unbound, the record is the reference's own
    assert compiled_claim(LOGITS_CLAIM).functions["euclidean_attention"] is vocabulary.VOCABULARY["euclidean_attention"]


def test_through_is_validated_when_a_function_is_registered():
    from pyverify import plugin

    plugins.ensure_content()
    with pytest.raises(plugins.PluginError, match="not a function of the language"):
        plugin.function("through_unknown", lambda x, *, inner=None: x, doc="d", through={"inner": "no_such_fn"})
    with pytest.raises(plugins.PluginError, match="fill keyword 'inner'"):
        plugin.function("through_no_kw", lambda x: x, doc="d", through={"inner": "euclidean_logits"})
