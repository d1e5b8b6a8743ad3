"""Plugins: the user's own functions in the check language, loaded only by the person running pyverify."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pyverify import plugin
from pyverify.checks import plugins
from pyverify.checks.validate import validate_registry
from pyverify.engine import run_claim
from pyverify.registry import Claim, load_registry

from conftest import REPO

TOY = REPO / "examples" / "toy_rope"


def _cli(*argv: str, fixed: bool = False, cwd=REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TOY_ROPE_FIXED": "1" if fixed else "0"}
    return subprocess.run([sys.executable, "-m", "pyverify", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(autouse=True)
def _forget_plugins():
    yield
    plugins.unload_all()


def _claim(check: dict, cid: str = "P.1") -> Claim:
    return Claim.model_validate({"id": cid, "title": "t", "document": "d", "locator": "l", "kind": "identity",
                                 "statement": "s", "check": check})


def test_the_cli_catches_the_defects_of_the_toy_layer_and_passes_its_twin():
    argv = ("check", "--registry", str(TOY / "claims"), "--plugin", str(TOY / "plugin.py"),
            "--budget", "quick", "--format", "json", "--no-progress", "--jobs", "1")
    broken = _cli(*argv)
    assert broken.returncode == 1, broken.stderr
    verdicts = {c["id"]: c for c in json.loads(broken.stdout)["claims"]}
    # the flipped displacement (twice), the wrong einsum, the product of sums (against the reference logit)
    for cid in ("TOY.2", "TOY.5", "TOY.3", "TOY.8"):
        assert verdicts[cid]["verdict"] == "refuted" and verdicts[cid]["witness"], cid
    # each refutation names the defect's shape (details.diagnosis): the flipped displacement (the positions
    # exchanged), the transposed einsum, the product of sums
    kinds = {cid: [d["kind"] for d in verdicts[cid]["details"]["diagnosis"]["defects"]] for cid in ("TOY.2", "TOY.3", "TOY.5", "TOY.8")}
    assert kinds == {"TOY.2": ["exchanged"], "TOY.3": ["transposed"], "TOY.5": ["exchanged"], "TOY.8": ["product-of-sums"]}, kinds
    assert "ri and rj exchanged" in verdicts["TOY.2"]["details"]["diagnosis"]["defects"][0]["message"]
    # the product of sums is exactly translation-invariant: the invariance claim cannot see it
    assert verdicts["TOY.1"]["verdict"] == verdicts["TOY.4"]["verdict"] == verdicts["TOY.7"]["verdict"] == "holds"
    shrunk = verdicts["TOY.8"]["witness"]["params"]  # the witness is shrunk: its parameters are round numbers
    flat = [x for p in shrunk.values() for v in p.values() for x in (v if isinstance(v, list) else [v])]
    assert all(abs(x * 1e4 - round(x * 1e4)) < 1e-6 for x in flat), shrunk
    fixed = _cli(*argv, fixed=True)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert {c["verdict"] for c in json.loads(fixed.stdout)["claims"]} == {"holds"}
    assert not any("diagnosis" in c.get("details", {}) for c in json.loads(fixed.stdout)["claims"])
    text = _cli(*argv[:-5], "--no-progress", "--jobs", "1")  # the text output: both sides and the diagnosis
    assert "Diagnosis: `toy_scores(Q, K)` equals `Q @ K.T` transposed" in text.stdout, text.stdout
    assert "at the witness toy_relative_logit(q, k, ri, rj) = " in text.stdout and "Where: They differ at" in text.stdout


def test_a_registry_naming_a_plugin_without_opt_in_is_refused_and_imports_nothing(tmp_path):
    marker = tmp_path / "imported"
    (tmp_path / "toy_rope.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    for command in ("check", "list"):
        out = _cli(command, "--registry", str(TOY / "claims"), cwd=tmp_path)
        assert out.returncode == 2, out.stdout + out.stderr
        assert "plugin 'toy_rope', which is not loaded" in out.stderr and "toy.yaml:3" in out.stderr
    assert not marker.exists()


def test_pyproject_opt_in_loads_the_plugin(tmp_path):
    (tmp_path / "pyproject.toml").write_text(f'[tool.pyverify]\nplugins = ["{TOY / "plugin.py"}"]\n')
    out = _cli("list", "--registry", str(TOY / "claims"), cwd=tmp_path)
    assert out.returncode == 0 and "TOY.3" in out.stdout, out.stderr


def test_registered_names_are_validated_like_built_ins():
    identity = lambda x: x  # noqa: E731
    with pytest.raises(plugin.PluginError, match="shadow a function"):
        plugin.function("rope", identity, doc="d")
    with pytest.raises(plugin.PluginError, match="shadow a sampler"):
        plugin.function("vec", identity, doc="d")
    with pytest.raises(plugin.PluginError, match="shadow a constant"):
        plugin.function("pi", identity, doc="d")
    with pytest.raises(plugin.PluginError, match="doc"):
        plugin.function("mine", identity, doc=" ")
    with pytest.raises(plugin.PluginError, match="unknown registry convention"):
        plugin.function("mine", identity, doc="d", conventions={"sign": ("s", {})})
    with pytest.raises(plugin.PluginError, match="missing"):
        plugin.function("mine", lambda x, layout="a": x, doc="d", conventions={"pairing": ("layout", {"adjacent": 1})})
    with pytest.raises(plugin.PluginError, match="does not accept"):
        plugin.function("mine", identity, doc="d", conventions={"pairing": ("layout", {"adjacent": 1, "half": 2})})
    with pytest.raises(plugin.PluginError, match="sympy meaning"):
        plugin.function("mine", identity, doc="d", sympy=lambda a, b: a)
    assert "mine" not in plugins.vocabulary.VOCABULARY  # nothing half-registered


def test_a_failing_plugin_function_is_an_error_verdict_not_a_crash():
    def broken(x):
        raise KeyError("no such head")

    plugin.function("broken_head", broken, doc="raises")
    r = run_claim(_claim({"given": {"x": "vec(3)"}, "assert": "broken_head(x) == x"}), {}, budget="quick")
    assert r.verdict == "error" and "plugin function broken_head" in r.message and "no such head" in r.message


def test_a_convention_key_is_mapped_through_a_plugin_function():
    import torch

    def signed_shift(ri, rj, sign=1):
        return sign * (rj - ri)

    claim = _claim({"given": {"a": "scalar(-3, 3)", "b": "scalar(-3, 3)"},
                    "assert": "signed_shift(a, b) == displacement(a, b)"})
    plugin.function("signed_shift", signed_shift, doc="d", conventions={"displacement": ("sign", {"rj-ri": 1, "ri-rj": -1})})
    for convention in ("rj-ri", "ri-rj"):
        assert run_claim(claim, {"displacement": convention}, budget="quick").verdict == "holds", convention
    # the mapping is what makes it hold: a table that maps both values alike is caught
    plugins.unload_all()
    plugin.function("signed_shift", signed_shift, doc="d", conventions={"displacement": ("sign", {"rj-ri": 1, "ri-rj": 1})})
    assert run_claim(claim, {"displacement": "ri-rj"}, budget="quick").verdict == "refuted"
    assert torch.is_tensor(signed_shift(torch.tensor(1.0), torch.tensor(2.0)))


def test_a_plugin_sampler_declares_and_validates_its_parameters(tmp_path):
    import torch

    @plugin.sampler
    class Angle(plugin.Sampler):
        name = "angle_vec"
        hypothesis = "(cos t, sin t)"
        params = (plugin.Param("scale", "float", 1.0, positional=True, lo=0, lo_open=True),)

        def shapes(self):
            return {"t": ()}

        def value(self, theta):
            t = theta["t"]
            return self.p["scale"] * torch.stack((torch.cos(t), torch.sin(t)), dim=-1)

    ok = _claim({"given": {"u": "angle_vec(2.0)"}, "assert": "vnorm(u) == 2"})
    assert run_claim(ok, {}, budget="quick").verdict == "holds"
    wrong = _claim({"given": {"u": "angle_vec(2.0)"}, "assert": "vnorm(u) == 1"})
    assert run_claim(wrong, {}, budget="quick").verdict == "refuted"
    typo = _claim({"given": {"u": "angle_vec(scal=2.0)"}, "assert": "vnorm(u) == 2"})
    assert run_claim(typo, {}, budget="quick").verdict == "error"
    with pytest.raises(plugin.PluginError, match="shadow"):
        plugin.sampler(type("V", (plugin.Sampler,), {"name": "vec", "shapes": Angle.shapes, "value": Angle.value}))


def test_validation_refuses_requires_plugins_that_are_not_loaded(tmp_path):
    reg_file = tmp_path / "r.yaml"
    reg_file.write_text("documents:\n  - {key: d, title: t, files: [x]}\nclaims:\n  - id: P.1\n    title: t\n"
                        "    document: d\n    locator: l\n    kind: identity\n    statement: s\n"
                        "    requires_plugins: [elsewhere]\n    check: {given: {x: vec(2)}, assert: 'x == x'}\n")
    problems = validate_registry(load_registry(reg_file))
    assert len(problems) == 1 and problems[0].claim_id == "P.1" and problems[0].location.line == 10


def test_forkserver_workers_import_the_opted_in_plugins(monkeypatch):
    """Where workers cannot be forked from the parent (not Linux, or torch already ran), they start from a
    forkserver that knows only pyverify: each must import the plugins the parent opted into, or every
    plugin claim would fail there with an unknown function."""
    import multiprocessing as mp

    from pyverify.engine import parallel
    from pyverify.engine.runner import check_claims

    def forkserver(device="cpu"):
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(parallel._PRELOAD)
        return ctx, True

    monkeypatch.setattr(parallel, "_context", forkserver)
    monkeypatch.setenv("TOY_ROPE_FIXED", "0")
    plugins.load_plugin(str(TOY / "plugin.py"), "--plugin")
    reg = load_registry(TOY / "claims")
    results = {r.id: r for r in check_claims(reg, ["TOY.1", "TOY.2"], budget="quick", jobs=2)}
    assert results["TOY.2"].verdict.value == "refuted", results["TOY.2"].message
    assert results["TOY.1"].verdict.value == "holds", results["TOY.1"].message


def test_a_plugin_is_named_by_its_declared_name_not_its_file(tmp_path):
    """Registrations run before the module's PYVERIFY_PLUGIN is read: the provisional name (the file stem)
    must not survive in the function's doc, its failure message or the contributions it registered."""
    from pyverify import contributions
    from pyverify.checks import vocabulary

    (tmp_path / "my_file_stem.py").write_text(
        "from pyverify import plugin\n"
        "def failing(x):\n    raise ValueError('boom')\n"
        "plugin.function('stem_failing', failing, doc='raises')\n"
        "plugin.guarantees('my.Mechanism', {'a guarantee': 'P.1'})\n"
        "PYVERIFY_PLUGIN = 'declared_name'\n")
    loaded = plugins.load_plugin(str(tmp_path / "my_file_stem.py"), "--plugin")
    assert loaded.name == "declared_name" and "declared_name" in plugins.LOADED and "my_file_stem" not in plugins.LOADED
    assert vocabulary.VOCABULARY["stem_failing"].doc == "raises [plugin declared_name]"
    assert contributions.GUARANTEES["my.Mechanism"].owner == "declared_name"
    r = run_claim(_claim({"given": {"x": "vec(3)"}, "assert": "stem_failing(x) == x"}), {}, budget="quick")
    assert r.verdict == "error" and "(plugin declared_name)" in r.message and "my_file_stem" not in r.message
    plugins.unload_all()  # forgotten under its declared name
    assert "my.Mechanism" not in contributions.GUARANTEES


def test_a_function_making_tensors_from_numbers_gets_the_context_where_asked():
    import torch

    from device_placement import stray_placement

    def ramp(ctx, n):  # context=True: the numeric context comes first
        return torch.arange(int(n), **ctx)

    claim = _claim({"given": {"x": "vec(3)"}, "assert": "total(ramp(3)) + 0 * total(x) == 3"})
    plugin.function("ramp", ramp, doc="0, 1, ..., n-1", context=True)
    with stray_placement() as strays:
        assert run_claim(claim, {}, budget="quick").verdict == "holds"
    assert not strays.found
    # the same function without the context makes its tensor off the device: what CUDA would refuse
    plugins.unload_all()
    plugin.function("ramp", lambda n: torch.arange(int(n), dtype=torch.float64), doc="0, 1, ..., n-1")
    with stray_placement() as strays:
        assert run_claim(claim, {}, budget="quick").verdict == "error"
    assert "arange without device=" in strays.found.values()
    with pytest.raises(plugins.PluginError, match="context=True"):
        plugin.function("ramp2", lambda: None, doc="d", context=True)
