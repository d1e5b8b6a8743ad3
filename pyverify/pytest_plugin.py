"""Claims as pytest items (pytest's non-python collection pattern).

Every claim of a registry YAML file becomes one test item ``claims/file.yaml::ID``; it passes when the
verdict the engine computes equals the claim's reviewed ``expect`` (a claim without ``expect`` is new:
it passes whatever its verdict, and is reported as unreviewed). A failure shows both verdicts, the
engine's message and the witness.

Options: ``--pyverify-budget quick|default|thorough`` (default ``default``), ``--pyverify-seed N``,
``--pyverify-device cpu|cuda``. Registry problems (bad YAML, bad fields) are collection errors naming
the file and line, and so are checks that do not compile (``checks/validate.py``). Works with
pytest-xdist: each worker loads the registry once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .registry import Registry, RegistryError

# the registries loaded in this session, one per `claims` folder (each xdist worker loads its own)
_REGISTRIES_KEY = pytest.StashKey[dict]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pyverify")
    group.addoption("--pyverify-budget", default="default", choices=["quick", "default", "thorough"],
                    help="search budget of the claim checks")
    group.addoption("--pyverify-seed", type=int, default=0, help="seed of the claim checks")
    group.addoption("--pyverify-device", default="cpu", help="device of the claim checks")


def _registry_root(path: Path) -> Path | None:
    """The registry folder a YAML file belongs to: the nearest ancestor named `claims`."""
    for parent in path.parents:
        if parent.name == "claims":
            return parent
    return None


def _registry(config: pytest.Config, root: Path) -> Registry | RegistryError:
    loaded = config.stash.setdefault(_REGISTRIES_KEY, {})
    if root not in loaded:
        from .checks.validate import load_valid_registry  # torch only once a registry is collected

        try:
            # the checks are validated at collection: a misspelt keyword is a collection error at its line
            loaded[root] = load_valid_registry(root)
        except RegistryError as exc:
            loaded[root] = exc
    return loaded[root]


def pytest_collect_file(parent: pytest.Collector, file_path: Path):
    if file_path.suffix in (".yaml", ".yml") and _registry_root(file_path) is not None:
        return ClaimFile.from_parent(parent, path=file_path)
    return None


class RegistryProblem(Exception):
    pass


class ClaimFile(pytest.File):
    def collect(self):
        reg = _registry(self.config, _registry_root(self.path))
        if isinstance(reg, RegistryError):
            mine = [p for p in reg.problems if Path(p.location.file).resolve() == self.path.resolve()]
            if mine:
                raise RegistryProblem("\n".join(str(p) for p in mine))
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
        from .engine import check_claim

        cfg = self.config
        result = check_claim(self.registry, self.claim_id, cfg.getoption("--pyverify-budget"),
                             cfg.getoption("--pyverify-seed"), cfg.getoption("--pyverify-device"))
        self.user_properties.append(("verdict", result.verdict.value))
        if not result.matches:
            raise VerdictMismatch(result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, VerdictMismatch):
            r = excinfo.value.args[0]
            lines = [f"claim {r.id} ({self.registry.line_of(r.id)}): computed verdict `{r.verdict}`, "
                     f"reviewed expectation `{r.expect}`",
                     f"  engine: {r.message}"]
            if r.witness is not None:
                lines.append("  witness: " + json.dumps(r.as_dict().get("witness"), ensure_ascii=False)[:2000])
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        loc = self.registry.locations[self.claim_id]
        return self.path, loc.line - 1, f"claim {self.claim_id}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "claim: a registry claim checked by the pyverify engine")
