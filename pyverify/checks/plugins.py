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
runs raises ``PluginFailure``, which the engine turns into an ``error`` verdict of that claim (unless it
was registered with ``failures="as-raised"``: then its exceptions reach the engine as the built-ins' do).

Content packages (``pyverify.contributions``) register through the same functions; they are loaded once,
before the first check compiles (``ensure_content``), whatever the registry, and are never unloaded.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable, Iterable

from .. import contributions
from ..registry import CONVENTIONS, Problem, Registry
from . import precision as precisions
from . import vocabulary
from .failures import PluginFailure, guarded  # noqa: F401 - PluginFailure: where the engine imports it from
from .samplers import SAMPLERS, Sampler


class PluginError(ValueError):
    """A plugin cannot be loaded or registers something invalid (bad input of the person running pyverify)."""


@dataclass
class LoadedPlugin:
    name: str  # what a registry's `plugins:` / `requires_plugins:` refers to
    origin: str  # module name or file path, as opted in
    opted_in_by: str  # "--plugin", "pyproject.toml", "entry point"
    functions: list[str] = field(default_factory=list)
    samplers: list[str] = field(default_factory=list)
    module: Any = None  # the imported module (`pyverify certify --adapter NAME:FUNC` reads FUNC from it)
    content: bool = False  # a content package: loaded for every registry, never unloaded


LOADED: dict[str, LoadedPlugin] = {}
_CURRENT: list[LoadedPlugin] = []  # the plugin being imported (registrations are attributed to it)
_CONTENT_STARTED: list[bool] = []  # ensure_content ran (or runs) in this process


def ensure_content() -> None:
    """Load every installed content package once (its ``register()``), before anything reads the
    vocabulary as a whole: a compiled check, a plugin's name checked against the built-ins."""
    if _CONTENT_STARTED:
        return
    _CONTENT_STARTED.append(True)
    for name, ep in contributions.content_packages().items():
        plugin = LoadedPlugin(name, ep.value, "content package", content=True)
        _CURRENT.append(plugin)
        try:
            module = ep.load()
            module.register()
        except Exception as exc:  # noqa: BLE001 - an installed content package that fails is a broken install
            raise PluginError(f"content package {name} ({ep.value}) failed to load: {type(exc).__name__}: {exc}") from exc
        finally:
            _CURRENT.pop()
        plugin.module = module
        LOADED[name] = plugin


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
            raise PluginError(f"{name}: its conventions or `through` fill keyword {kw!r}, which the implementation "
                              f"{name}{sig} does not accept")
    return sig


def _positional_count(sig: inspect.Signature) -> tuple[int, float]:
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 0, float("inf")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return sum(p.default is p.empty for p in positional), len(positional)


FAILURES = ("claim", "as-raised")


def register_function(name: str, torch_impl: Callable, *, doc: str, sympy: Callable | None = None,
                      ball: Callable | None = None, precise: Callable | None = None, conventions: Any = (),
                      condition: Callable | None = None, failures: str = "claim", context: bool = False,
                      precision: Any = None, through: Mapping[str, str] | None = None) -> None:
    ensure_content()
    _check_new_name(name)
    try:  # declared here, or carried by the implementation itself (``plugin.computes_in``)
        internal = precisions.parse(precision) if precision is not None else precisions.declared(torch_impl)
    except precisions.PrecisionError as exc:
        raise PluginError(f"{name}: {exc}") from None
    if failures not in FAILURES:
        raise PluginError(f"{name}: failures must be one of {', '.join(FAILURES)}, got {failures!r}")
    if condition is not None and not callable(condition):
        raise PluginError(f"{name}: `condition` must be callable (the condition number from the same arguments)")
    if not isinstance(doc, str) or not doc.strip():
        raise PluginError(f"{name}: `doc` must say what the function computes")
    table = _convention_table(name, conventions)
    calls = _through_table(name, through)
    sig = _check_signature(name, torch_impl, [kw for _, kw, _ in table] + [kw for kw, _ in calls])
    arity = _positional_count(sig)
    if context:  # the first positional argument is the numeric context, not an argument of the language
        if arity[1] < 1:
            raise PluginError(f"{name}: context=True passes the numeric context as the first positional "
                              f"argument, which the implementation {name}{sig} does not take")
        arity = (max(arity[0] - 1, 0), arity[1] - 1)
    for backend, meaning in (("sympy", sympy), ("ball", ball), ("precise", precise)):
        if meaning is not None:
            other = _positional_count(_check_signature(f"{name} ({backend})", meaning, ()))
            if other[1] < arity[0] or other[0] > arity[1]:
                raise PluginError(f"{name}: the {backend} meaning takes {other[0]}..{other[1]} positional "
                                  f"argument(s), the torch implementation {arity[0]}..{arity[1]}")
    owner = _owner()
    impl = torch_impl if failures == "as-raised" else guarded(name, owner, torch_impl)
    shown = doc.strip() if owner.content else f"{doc.strip()} [plugin {owner.name}]"
    record = vocabulary.Function(impl, shown, conventions=table, name=name, sympy=sympy, ball=ball, precise=precise,
                                 condition=condition, needs_ctx=context, precision=internal,
                                 reference=owner.content, through=calls)
    vocabulary.VOCABULARY[name] = record
    owner.functions.append(name)


def _through_table(name: str, through: Mapping[str, str] | None) -> tuple:
    """((keyword, function name), ...) of the functions of the language an implementation is defined
    through; each must already be in the vocabulary."""
    if through is None:
        return ()
    if not isinstance(through, Mapping):
        raise PluginError(f"{name}: `through` maps keywords of the implementation to function names")
    for kw, called in through.items():
        if not isinstance(kw, str) or not kw.isidentifier() or called not in vocabulary.VOCABULARY:
            raise PluginError(f"{name}: through {kw!r}: {called!r} is not a function of the language (register it "
                              "first)")
    return tuple(through.items())


def register_sampler(cls: type) -> type:
    ensure_content()
    if not (isinstance(cls, type) and issubclass(cls, Sampler)) or cls is Sampler:
        raise PluginError(f"sampler: {cls!r} is not a subclass of pyverify's Sampler")
    name = cls.name
    if name == Sampler.name:
        raise PluginError(f"sampler {cls.__name__}: set the class attribute `name` (the name claims call it by)")
    _check_new_name(name)
    from .samplers.base import Param

    if not isinstance(cls.params, tuple) or not all(isinstance(p, Param) for p in cls.params):
        raise PluginError(f"sampler {name}: `params` must be a tuple of Param declarations")
    # a hypothesis is a reparameterisation (shapes, value); a random variable draws (shape, draw)
    for method in (("shape", "draw") if cls.random else ("shapes", "value")):
        if getattr(cls, method, None) is getattr(Sampler, method, None):
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
        if plugin.origin == spec or (spec.endswith(".py") and plugin.origin.endswith(".py")
                                     and Path(plugin.origin).resolve() == Path(spec).resolve()):
            return plugin  # the same file opted into twice (--plugin and pyproject.toml, two spellings)
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
    _rename(plugin, getattr(module, "PYVERIFY_PLUGIN", None) or default)
    plugin.module = module
    LOADED[plugin.name] = plugin
    return plugin


def _rename(plugin: LoadedPlugin, name: str) -> None:
    """The plugin's declared name, known once its module ran, replaces the provisional one (the module or
    file name) everywhere its registrations recorded it: function docs, figures, guarantees, references."""
    old = plugin.name
    if name == old:
        return
    if not isinstance(name, str) or not name.strip():
        raise PluginError(f"plugin {plugin.origin}: PYVERIFY_PLUGIN must be a non-empty string, got {name!r}")
    plugin.name = name
    for fn in plugin.functions:
        record = vocabulary.VOCABULARY[fn]
        record.doc = record.doc.replace(f"[plugin {old}]", f"[plugin {name}]")
    contributions.rename_owner(old, name)


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

    ensure_content()
    out = [load_plugin(s, "--plugin") for s in cli_specs]
    out += [load_plugin(s, "pyproject.toml") for s in pyproject_plugins(directory or Path.cwd())]
    for ep in entry_points(group="pyverify.plugins"):
        out.append(load_plugin(ep.value.partition(":")[0], f"entry point {ep.name}", name=ep.name))
    return out


def loaded_function(spec: str) -> Callable:
    """``PLUGIN:FUNC`` — a function of a plugin that was opted into (by name or as given to --plugin);
    nothing is imported here, so an adapter follows the same opt-in rules as every plugin."""
    fn = loaded_object(spec)
    if not callable(fn):
        raise PluginError(f"{spec!r}: {spec.rpartition(':')[2]!r} of its plugin is not a function")
    return fn


def loaded_object(spec: str) -> Any:
    """``PLUGIN:NAME`` — any attribute (a function, an adapter object) of a plugin that was opted into."""
    plugin_name, sep, func = spec.rpartition(":")
    if not sep or not plugin_name or not func:
        raise PluginError(f"{spec!r}: expected PLUGIN:FUNCTION (a loaded plugin's name or --plugin path, and a function of it)")
    plugin = LOADED.get(plugin_name) or next((p for p in LOADED.values() if p.origin == plugin_name), None)
    if plugin is None or plugin.module is None:
        raise PluginError(f"{spec!r}: plugin {plugin_name!r} is not loaded; load it with --plugin, "
                          f"[tool.pyverify] plugins or an entry point (loaded: {', '.join(LOADED) or 'none'})")
    if not hasattr(plugin.module, func):
        raise PluginError(f"{spec!r}: plugin {plugin.name} has no {func!r}")
    return getattr(plugin.module, func)


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


def register_role(name: str, function: str, doc: str, conventions: Any = None, layouts: Iterable[str] = (),
                  decay: Callable | None = None) -> None:
    from .roles import BindingError, register_role as add_role

    ensure_content()
    try:
        add_role(name, function, doc, conventions, tuple(layouts), _owner().name, decay)
    except BindingError as exc:
        raise PluginError(str(exc)) from None


def register_figure(name: str, draw: Callable, about: Iterable[str], caption: str = "") -> None:
    if not isinstance(name, str) or not name.replace("-", "").isalnum():
        raise PluginError(f"figure {name!r}: a name of letters, digits and dashes")
    if not callable(draw):
        raise PluginError(f"figure {name}: `draw` must be callable (draw(out) -> path written below out)")
    contributions.FIGURES[name] = contributions.Figure(name, draw, tuple(about), _owner().name, caption)


def register_guarantees(mechanism: str, rests_on: dict[str, str], meanings: dict[str, str] | None = None) -> None:
    if not rests_on or not all(isinstance(k, str) and isinstance(v, str) for k, v in rests_on.items()):
        raise PluginError(f"guarantees of {mechanism}: map each guarantee to the id of the claim it rests on")
    contributions.GUARANTEES[mechanism] = contributions.Guarantees(mechanism, dict(rests_on), dict(meanings or {}),
                                                                   _owner().name)


def register_reference(package: str) -> None:
    try:
        importlib.import_module(package)
    except ImportError as exc:
        raise PluginError(f"reference package {package!r} cannot be imported: {exc}") from None
    contributions.REFERENCE_PACKAGES[package] = _owner().name


def unload_all() -> None:
    """Forget every plugin registration (tests; a long-lived process switching registries); the content
    packages stay, like the built-ins."""
    for name, plugin in list(LOADED.items()):
        if plugin.content:
            continue
        for fn in plugin.functions:
            vocabulary.VOCABULARY.pop(fn, None)
        for sampler in plugin.samplers:
            SAMPLERS.pop(sampler, None)
        contributions.forget(plugin.name)
        from .roles import ROLES

        for role in [r for r in ROLES.values() if r.owner == plugin.name]:
            del ROLES[role.name]
        del LOADED[name]
