"""Claims as pytest items (pytest's non-python collection pattern), for the registries a project opted into.

A project names its registries (folders or YAML files, relative to the file that names them) in
``[tool.pyverify] registries = [...]`` of its pyproject.toml, or in the ini option ``pyverify_registries``
(pytest.ini, ``[tool.pytest.ini_options]``, or ``-o pyverify_registries=claims``); nothing else is collected,
so a project that merely has a ``claims/`` folder is left alone. The plugins it opted into
(``[tool.pyverify] plugins``, the ``pyverify.plugins`` entry points) and its bindings
(``[tool.pyverify] bindings``) are loaded before its registries, as the command line loads them: a claim
exercising a bound role runs on the project's code.

Every claim of an opted-in registry file becomes one test item ``claims/file.yaml::ID``; it passes when
the verdict the engine computes equals the claim's reviewed ``expect`` (a claim without ``expect`` is new:
it passes whatever its verdict, and is reported as unreviewed). A failure shows both verdicts, the
engine's message and the witness.

Options: ``--pyverify-budget quick|default|thorough`` (default ``default``), ``--pyverify-seed N``,
``--pyverify-device cpu|cuda``. Registry problems (bad YAML, bad fields) are collection errors naming
the file and line, and so are checks that do not compile (``checks/validate.py``) and plugins that do not
load. Works with pytest-xdist: each worker loads the registry once.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from .registry import Problem, Registry, RegistryError
from .registry.models import Location

# the registries loaded in this session, one per opted-in root (each xdist worker loads its own)
_REGISTRIES_KEY = pytest.StashKey[dict]()
_ROOTS_KEY = pytest.StashKey[list]()
INI_REGISTRIES = "pyverify_registries"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pyverify")
    group.addoption("--pyverify-budget", default="default", choices=["quick", "default", "thorough"],
                    help="search budget of the claim checks")
    group.addoption("--pyverify-seed", type=int, default=0, help="seed of the claim checks")
    group.addoption("--pyverify-device", default="cpu", help="device of the claim checks")
    parser.addini(INI_REGISTRIES, type="paths", default=[],
                  help="pyverify registries (folders or YAML files) whose claims are collected as tests")


class ProjectConfigError(Exception):
    pass


def _project_dir(config: pytest.Config) -> Path:
    """The folder whose pyproject.toml states the project's pyverify settings: the ini file's, else rootdir."""
    return config.inipath.parent if config.inipath is not None else config.rootpath


def _pyproject_registries(directory: Path) -> list[Path]:
    file = directory / "pyproject.toml"
    if not file.is_file():
        return []
    try:
        table = tomllib.loads(file.read_text(encoding="utf-8")).get("tool", {}).get("pyverify", {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ProjectConfigError(f"{file}: cannot read [tool.pyverify]: {exc}") from None
    names = table.get("registries", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ProjectConfigError(f"{file}: [tool.pyverify] registries must be a list of folders or YAML files")
    return [directory / n for n in names]


def registry_roots(config: pytest.Config) -> list[Path]:
    """The registries the project opted into (resolved), from [tool.pyverify] and the ini option."""
    if _ROOTS_KEY not in config.stash:
        roots = list(config.getini(INI_REGISTRIES)) + _pyproject_registries(_project_dir(config))
        config.stash[_ROOTS_KEY] = list(dict.fromkeys(r.resolve() for r in roots))
    return config.stash[_ROOTS_KEY]


def _registry_root(config: pytest.Config, path: Path) -> Path | None:
    """The opted-in registry a YAML file belongs to (a registry named as one file is its own root)."""
    path = path.resolve()
    for root in registry_roots(config):
        if path == root or root in path.parents:
            return root
    return None


def _registry(config: pytest.Config, root: Path) -> Registry | RegistryError:
    loaded = config.stash.setdefault(_REGISTRIES_KEY, {})
    if root not in loaded:
        from .checks.binding_sources import load_bindings
        from .checks.plugins import PluginError, load_opted_in
        from .checks.roles import BindingError
        from .checks.validate import load_valid_registry  # torch only once a registry is collected

        try:
            load_opted_in(directory=_project_dir(config))  # the project's plugins, as the command line loads them
            # and its bindings ([tool.pyverify] bindings): the claims exercising a bound role run on its code
            load_bindings(directory=_project_dir(config))
            # the checks are validated at collection: a misspelt keyword is a collection error at its line
            loaded[root] = load_valid_registry(root)
        except RegistryError as exc:
            loaded[root] = exc
        except (PluginError, BindingError) as exc:
            where = _project_dir(config) / "pyproject.toml"
            loaded[root] = RegistryError([Problem(Location(str(where), 1), str(exc), code="plugin")])
    return loaded[root]


def pytest_collect_file(parent: pytest.Collector, file_path: Path):
    if file_path.suffix in (".yaml", ".yml") and _registry_root(parent.config, file_path) is not None:
        return ClaimFile.from_parent(parent, path=file_path)
    return None


class RegistryProblem(Exception):
    pass


class ClaimFile(pytest.File):
    def collect(self):
        reg = _registry(self.config, _registry_root(self.config, self.path))
        if isinstance(reg, RegistryError):
            root = _registry_root(self.config, self.path)
            mine = [p for p in reg.problems if Path(p.location.file).resolve() == self.path.resolve()]
            # a problem outside the registry's files (a plugin of pyproject.toml that does not load) is every file's
            outside = [p for p in reg.problems
                       if not (Path(p.location.file).resolve() == root or root in Path(p.location.file).resolve().parents)]
            if mine or outside:
                raise RegistryProblem("\n".join(str(p) for p in mine + outside))
            return
        for cid, loc in reg.locations.items():
            if Path(loc.file).resolve() == self.path.resolve():
                yield ClaimItem.from_parent(self, name=cid, registry=reg, claim_id=cid)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, RegistryProblem):
            return f"registry problems in {self.path}:\n{excinfo.value}"
        return super().repr_failure(excinfo)


class VerdictMismatch(Exception):
    pass


class ClaimItem(pytest.Item):
    def __init__(self, *, registry: Registry, claim_id: str, **kwargs):
        super().__init__(**kwargs)
        self.registry = registry
        self.claim_id = claim_id
        claim = registry.claims[claim_id]
        self.add_marker(pytest.mark.claim)
        if claim.expect is None:
            self.user_properties.append(("unreviewed", True))

    def runtest(self) -> None:
        from .checks.roles import ACTIVE
        from .cli_bindings import meets_expectation
        from .engine import check_claim

        cfg = self.config
        result = check_claim(self.registry, self.claim_id, cfg.getoption("--pyverify-budget"),
                             cfg.getoption("--pyverify-seed"), cfg.getoption("--pyverify-device"))
        self.user_properties.append(("verdict", result.verdict.value))
        if not meets_expectation(bool(ACTIVE))(result):
            raise VerdictMismatch(result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, VerdictMismatch):
            r = excinfo.value.args[0]
            undecided = " (neither holds nor refuted)" if r.verdict.value == "inconclusive" else ""
            lines = [f"claim {r.id} ({self.registry.line_of(r.id)}): computed verdict `{r.verdict}`{undecided}, "
                     f"reviewed expectation `{r.expect}`",
                     f"  engine: {r.message}"]
            if r.witness is not None:
                from .report.evidence import evidence_sentences

                # both sides at the witness, where they differ, the defect's shape
                lines += [f"  {s}" for s in evidence_sentences(r, getattr(self.registry, "compiled", {}).get(r.id))]
                lines.append("  witness: " + json.dumps(r.as_dict().get("witness"), ensure_ascii=False)[:2000])
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        loc = self.registry.locations[self.claim_id]
        return self.path, loc.line - 1, f"claim {self.claim_id}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "claim: a registry claim checked by the pyverify engine")
    try:
        registry_roots(config)
    except ProjectConfigError as exc:  # a pyproject.toml that cannot say what was opted into: stop, saying why
        raise pytest.UsageError(str(exc)) from None
