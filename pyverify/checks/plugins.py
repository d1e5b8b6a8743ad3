"""Plugins: functions and samplers of the user's own code, added to the check language by the person
running pyverify — never by a registry.

A plugin is a Python module (a dotted module name or a ``.py`` file) that calls ``pyverify.plugin.function``
/ ``pyverify.plugin.sampler`` when imported. Plugins are imported only from the opt-ins of the person
running pyverify (``--plugin``, ``[tool.pyverify] plugins`` of the current directory's pyproject.toml, the
``pyverify.plugins`` entry points of installed packages); a registry may only *name* the plugins it needs
(``plugins:`` at the top of a file, ``requires_plugins:`` in a claim), and a name that was not loaded is a
registry problem (exit 2), so a hostile registry stays inert.

A registered name is validated like a built-in: it shadows no function, sampler, constant or reserved word
of the language, its convention table names known registry conventions and covers every value, and its
implementation accepts the keywords those conventions fill. A plugin function that raises while a check
runs raises ``PluginFailure``, which the engine turns into an ``error`` verdict of that claim.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..registry import CONVENTIONS, Problem, Registry
from . import vocabulary
from .samplers import SAMPLERS, Sampler


class PluginError(ValueError):
    """A plugin cannot be loaded or registers something invalid (bad input of the person running pyverify)."""


class PluginFailure(Exception):
    """A plugin function raised while a check ran: an ``error`` verdict of the claim, never a crash.
    Deliberately not a RuntimeError: the falsifier tolerates RuntimeErrors of single instances."""


@dataclass
class LoadedPlugin:
    name: str  # what a registry's `plugins:` / `requires_plugins:` refers to
    origin: str  # module name or file path, as opted in
    opted_in_by: str  # "--plugin", "pyproject.toml", "entry point"
    functions: list[str] = field(default_factory=list)
    samplers: list[str] = field(default_factory=list)
    module: Any = None  # the imported module (`pyverify certify --adapter NAME:FUNC` reads FUNC from it)


LOADED: dict[str, LoadedPlugin] = {}
_CURRENT: list[LoadedPlugin] = []  # the plugin being imported (registrations are attributed to it)


def _owner() -> LoadedPlugin:
    if _CURRENT:
        return _CURRENT[-1]
    # registered from ordinary code (a test, a notebook): attributed to the calling module
    return LOADED.setdefault("__direct__", LoadedPlugin("__direct__", "direct call", "python"))


def _reserved() -> dict[str, str]:
    from .compiled import reserved_names  # compiled imports this module's callers, not this module

    return reserved_names()


def _check_new_name(name: str) -> None:
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise PluginError(f"plugin name {name!r} is not an identifier not starting with _")
    shadowed = _reserved().get(name)
    if shadowed is not None:
        raise PluginError(f"plugin name {name!r} would shadow {shadowed} of the check language")


def _convention_table(name: str, conventions: Any) -> tuple:
    """``{"displacement": ("sign", {"rj-ri": 1, "ri-rj": -1})}`` -> the vocabulary's (key, kwarg, table)."""
    items = conventions.items() if isinstance(conventions, dict) else [(c[0], (c[1], c[2])) for c in conventions]
    out = []
    for key, (kwarg, table) in items:
        if key not in CONVENTIONS:
            raise PluginError(f"{name}: unknown registry convention {key!r}; known: {', '.join(CONVENTIONS)}")
        missing = [v for v in CONVENTIONS[key] if v not in table]
        extra = [v for v in table if v not in CONVENTIONS[key]]
        if missing or extra:
            raise PluginError(f"{name}: convention {key!r} must map exactly the values "
                              f"{', '.join(CONVENTIONS[key])} (missing: {missing or 'none'}, unknown: {extra or 'none'})")
        out.append((key, kwarg, dict(table)))
    return tuple(out)


def _check_signature(name: str, fn: Callable, keywords: Iterable[str]) -> inspect.Signature:
    if not callable(fn):
        raise PluginError(f"{name}: the implementation must be callable, got {type(fn).__name__}")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise PluginError(f"{name}: cannot read the implementation's signature ({exc})") from None
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    for kw in keywords:
        if not takes_any and kw not in sig.parameters:
            raise PluginError(f"{name}: its conventions fill keyword {kw!r}, which the implementation "
                              f"{name}{sig} does not accept")
    return sig


def _positional_count(sig: inspect.Signature) -> tuple[int, float]:
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 0, float("inf")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return sum(p.default is p.empty for p in positional), len(positional)


def _guarded(name: str, plugin: str, fn: Callable) -> Callable:
    """The implementation, its exceptions turned into PluginFailure — except vmap's own refusal, which
    the engine answers by evaluating instance by instance."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RuntimeError as exc:
            if "vmap" in str(exc) or "Batching rule" in str(exc):
                raise
            raise PluginFailure(f"plugin function {name} (plugin {plugin}) failed: {type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - whatever the user's code raises is that claim's error
            raise PluginFailure(f"plugin function {name} (plugin {plugin}) failed: {type(exc).__name__}: {exc}") from exc

    return call


def register_function(name: str, torch_impl: Callable, *, doc: str, sympy: Callable | None = None,
                      ball: Callable | None = None, precise: Callable | None = None, conventions: Any = ()) -> None:
    _check_new_name(name)
    if not isinstance(doc, str) or not doc.strip():
        raise PluginError(f"{name}: `doc` must say what the function computes")
    table = _convention_table(name, conventions)
    sig = _check_signature(name, torch_impl, [kw for _, kw, _ in table])
    arity = _positional_count(sig)
    for backend, meaning in (("sympy", sympy), ("ball", ball), ("precise", precise)):
        if meaning is not None:
            other = _positional_count(_check_signature(f"{name} ({backend})", meaning, ()))
            if other[1] < arity[0] or other[0] > arity[1]:
                raise PluginError(f"{name}: the {backend} meaning takes {other[0]}..{other[1]} positional "
                                  f"argument(s), the torch implementation {arity[0]}..{arity[1]}")
    owner = _owner()
    record = vocabulary.Function(_guarded(name, owner.name, torch_impl), f"{doc.strip()} [plugin {owner.name}]",
                                 conventions=table, name=name, sympy=sympy, ball=ball, precise=precise)
    vocabulary.VOCABULARY[name] = record
    owner.functions.append(name)


def register_sampler(cls: type) -> type:
    if not (isinstance(cls, type) and issubclass(cls, Sampler)) or cls is Sampler:
        raise PluginError(f"sampler: {cls!r} is not a subclass of pyverify's Sampler")
    name = cls.name
    if name == Sampler.name:
        raise PluginError(f"sampler {cls.__name__}: set the class attribute `name` (the name claims call it by)")
    _check_new_name(name)
    from .samplers.base import Param

    if not isinstance(cls.params, tuple) or not all(isinstance(p, Param) for p in cls.params):
        raise PluginError(f"sampler {name}: `params` must be a tuple of Param declarations")
    for method in ("shapes", "value"):
        if getattr(cls, method) is getattr(Sampler, method):
            raise PluginError(f"sampler {name}: implement `{method}`")
    SAMPLERS[name] = cls
    _owner().samplers.append(name)
    return cls


# ---------------------------------------------------------------------------------------------- loading
def _import_one(spec: str) -> Any:
    path = Path(spec)
    if spec.endswith(".py"):
        if not path.is_file():
            raise PluginError(f"plugin file {spec}: no such file")
        module_name = f"pyverify_plugin_{path.stem}"
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        loader_spec.loader.exec_module(module)
        return module
    return importlib.import_module(spec)


def load_plugin(spec: str, opted_in_by: str, name: str | None = None) -> LoadedPlugin:
    """Import one plugin (module name or .py file); its registrations are recorded under its name
    (``PYVERIFY_PLUGIN`` in the module, else the module's last dotted part or the file's stem)."""
    default = name or (Path(spec).stem if spec.endswith(".py") else spec.rpartition(".")[2])
    for plugin in LOADED.values():
        if plugin.origin == spec:
            return plugin
    plugin = LoadedPlugin(default, spec, opted_in_by)
    _CURRENT.append(plugin)
    try:
        module = _import_one(spec)
    except PluginError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import
        raise PluginError(f"plugin {spec} ({opted_in_by}) failed to import: {type(exc).__name__}: {exc}") from exc
    finally:
        _CURRENT.pop()
    plugin.name = getattr(module, "PYVERIFY_PLUGIN", None) or default
    plugin.module = module
    LOADED[plugin.name] = plugin
    return plugin


def pyproject_plugins(directory: Path) -> list[str]:
    """``[tool.pyverify] plugins = [...]`` of ``directory/pyproject.toml`` (files relative to it)."""
    import tomllib

    file = directory / "pyproject.toml"
    if not file.is_file():
        return []
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PluginError(f"{file}: cannot read [tool.pyverify] plugins: {exc}") from None
    specs = data.get("tool", {}).get("pyverify", {}).get("plugins", [])
    if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
        raise PluginError(f"{file}: [tool.pyverify] plugins must be a list of module names or .py files")
    return [str(directory / s) if s.endswith(".py") else s for s in specs]


def load_opted_in(cli_specs: Iterable[str] = (), directory: Path | None = None) -> list[LoadedPlugin]:
    """Every plugin the person running pyverify opted into: --plugin, pyproject.toml, entry points."""
    from importlib.metadata import entry_points

    out = [load_plugin(s, "--plugin") for s in cli_specs]
    out += [load_plugin(s, "pyproject.toml") for s in pyproject_plugins(directory or Path.cwd())]
    for ep in entry_points(group="pyverify.plugins"):
        out.append(load_plugin(ep.value.partition(":")[0], f"entry point {ep.name}", name=ep.name))
    return out


def loaded_function(spec: str) -> Callable:
    """``PLUGIN:FUNC`` — a function of a plugin that was opted into (by name or as given to --plugin);
    nothing is imported here, so an adapter follows the same opt-in rules as every plugin."""
    plugin_name, sep, func = spec.rpartition(":")
    if not sep or not plugin_name or not func:
        raise PluginError(f"{spec!r}: expected PLUGIN:FUNCTION (a loaded plugin's name or --plugin path, and a function of it)")
    plugin = LOADED.get(plugin_name) or next((p for p in LOADED.values() if p.origin == plugin_name), None)
    if plugin is None or plugin.module is None:
        raise PluginError(f"{spec!r}: plugin {plugin_name!r} is not loaded; load it with --plugin, "
                          f"[tool.pyverify] plugins or an entry point (loaded: {', '.join(LOADED) or 'none'})")
    fn = getattr(plugin.module, func, None)
    if not callable(fn):
        raise PluginError(f"{spec!r}: plugin {plugin.name} has no function {func!r}")
    return fn


def unloaded_plugin_problems(registry: Registry) -> list[Problem]:
    """A registry naming a plugin that nobody opted into is refused: the registry cannot load code."""
    problems = []
    hint = "pass --plugin MODULE_OR_FILE, list it under [tool.pyverify] plugins, or install it (entry point)"
    for name, location in registry.plugins.items():
        if name not in LOADED:
            problems.append(Problem(location, f"the registry needs plugin {name!r}, which is not loaded; "
                                              f"a registry cannot load code — {hint}", code="plugin"))
    for cid, claim in registry.claims.items():
        for name in claim.requires_plugins:
            if name not in LOADED:
                problems.append(Problem(registry.line_of(cid, "requires_plugins"),
                                        f"requires plugin {name!r}, which is not loaded; {hint}", cid, "plugin"))
    return problems


def unload_all() -> None:
    """Forget every plugin registration (tests; a long-lived process switching registries)."""
    for plugin in LOADED.values():
        for name in plugin.functions:
            vocabulary.VOCABULARY.pop(name, None)
        for name in plugin.samplers:
            SAMPLERS.pop(name, None)
    LOADED.clear()
