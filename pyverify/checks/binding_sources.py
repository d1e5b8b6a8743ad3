"""Where bindings come from: ``--bind ROLE=TARGET[,key=value...]``, ``[tool.pyverify] bindings`` of the
current directory's pyproject.toml, and bindings files (YAML or TOML, ``--bindings FILE``).

Every source is read and validated before any check runs, and an error names the file and line (the
command-line option for ``--bind``). The user's code is imported only from these opt-ins of the person
running pyverify, never from a registry. One entry::

    rotary:                              # the role
      target: my_model.rotary:apply      # module:attr or path/to/file.py:attr
      conventions: {pairing: half, displacement: ri-rj}
      layout: query-major                # where the role has layouts
      precision: float32                 # the arithmetic the code runs in (default float64)
      decay: xpos:512                    # a decay the code applies by design (xpos, scale base 512)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Callable

from .roles import LAYOUT, Binding, BindingError, bind, parse_decay

ENTRY_KEYS = ("target", "conventions", "layout", "precision", "decay")


def import_target(spec: str, where: str, base: Path | None = None) -> Callable:
    """``module:attr`` (attr may be dotted) or ``file.py:attr``; ``base`` is where relative files and
    top-level modules of the user's project are looked for (the bindings file's folder, else the cwd)."""
    from .plugins import _import_one

    module_spec, sep, attr = spec.rpartition(":")
    if not sep or not module_spec or not attr:
        raise BindingError(f"{where}: target {spec!r}: expected module:attr or path/to/file.py:attr")
    base = base or Path.cwd()
    if module_spec.endswith(".py") and not Path(module_spec).is_absolute():
        module_spec = str(base / module_spec)
    added = str(base) not in sys.path
    if added:
        sys.path.insert(0, str(base))
    try:
        obj: Any = _import_one(module_spec)
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import
        raise BindingError(f"{where}: target {spec!r}: cannot import {module_spec}: {type(exc).__name__}: {exc}") from None
    finally:
        if added:
            sys.path.remove(str(base))
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise BindingError(f"{where}: target {spec!r}: {module_spec} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _entry(role: str, entry: Any, where: str, base: Path | None) -> Binding:
    if isinstance(entry, str):
        entry = {"target": entry}
    if not isinstance(entry, Mapping):
        raise BindingError(f"{where}: binding of {role!r}: a target string or a table with {', '.join(ENTRY_KEYS)}")
    stray = [k for k in entry if k not in ENTRY_KEYS]
    if stray:
        raise BindingError(f"{where}: binding of {role!r}: unknown key(s) {', '.join(map(str, stray))}; "
                           f"allowed: {', '.join(ENTRY_KEYS)}")
    target = entry.get("target")
    if not isinstance(target, str):
        raise BindingError(f"{where}: binding of {role!r}: `target` (module:attr) is required")
    conventions = entry.get("conventions") or {}
    if not isinstance(conventions, Mapping) or not all(isinstance(v, str) for v in conventions.values()):
        raise BindingError(f"{where}: binding of {role!r}: `conventions` maps convention keys to values")
    conventions = {str(k): v for k, v in conventions.items()}
    if entry.get("layout") is not None:
        conventions[LAYOUT] = str(entry["layout"])
    precision = str(entry.get("precision", "float64"))
    decay = parse_decay(entry["decay"], where) if entry.get("decay") is not None else None
    from .roles import ROLES

    if role not in ROLES:  # before importing anything
        raise BindingError(f"{where}: unknown role {role!r}; the roles are: {', '.join(sorted(ROLES)) or 'none'}")
    return bind(role, import_target(target, where, base), target, conventions, precision, where, decay)


def parse_cli(text: str) -> tuple[str, dict[str, Any]]:
    """``ROLE=TARGET[,key=value...]`` -> (role, entry); keys: the role's conventions, layout, precision, decay."""
    role, eq, rest = text.partition("=")
    target, *options = rest.split(",")
    if not eq or not role or not target:
        raise BindingError(f"--bind {text}: expected ROLE=module:attr[,convention=value,...,precision=float32]")
    entry: dict[str, Any] = {"target": target, "conventions": {}}
    for option in options:
        key, eq, value = option.partition("=")
        if not eq or not key or not value:
            raise BindingError(f"--bind {text}: option {option!r} is not key=value")
        if key in ("layout", "precision", "decay"):
            entry[key] = value
        else:
            entry["conventions"][key] = value
    return role, entry


def _line_of(node: Any, file: Path) -> str:
    return f"{file}:{node.start_mark.line + 1}"


def _yaml_entries(file: Path, text: str) -> list[tuple[str, Any, str]]:
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise BindingError(f"{file}:{mark.line + 1 if mark else 1}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if root is None:
        return []
    if not isinstance(root, yaml.MappingNode):
        raise BindingError(f"{_line_of(root, file)}: a bindings file maps `bindings` to role entries")
    top = {k.value: v for k, v in root.value}
    stray = [k for k in top if k != "bindings"]
    if stray:
        raise BindingError(f"{file}:1: unknown top-level key(s) {', '.join(stray)}; a bindings file has `bindings:`")
    node = top.get("bindings")
    if node is None:
        return []
    if not isinstance(node, yaml.MappingNode):
        raise BindingError(f"{_line_of(node, file)}: `bindings` maps role names to entries")
    loader = yaml.SafeLoader("")
    return [(k.value, loader.construct_object(v, deep=True), _line_of(k, file)) for k, v in node.value]


def _toml_entries(file: Path, text: str, table: Any) -> list[tuple[str, Any, str]]:
    """TOML keeps no positions: each entry's line is found by its key in the text."""
    lines = text.splitlines()

    def line(role: str) -> str:
        for i, ln in enumerate(lines):
            stripped = ln.strip()
            if stripped.startswith(f"[") and stripped.rstrip("]").endswith(f".{role}") or stripped.startswith(f"{role} ") \
                    or stripped.startswith(f"{role}="):
                return f"{file}:{i + 1}"
        return f"{file}"

    if not isinstance(table, Mapping):
        raise BindingError(f"{file}: `bindings` maps role names to entries")
    return [(role, entry, line(role)) for role, entry in table.items()]


def read_file(path: Path) -> list[tuple[str, Any, str]]:
    """The (role, entry, where) of a YAML or TOML bindings file."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BindingError(f"{path}: cannot read the bindings file: {exc.strerror or exc}") from None
    if path.suffix == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise BindingError(f"{path}: not valid TOML: {exc}") from None
        stray = [k for k in data if k != "bindings"]
        if stray:
            raise BindingError(f"{path}:1: unknown top-level key(s) {', '.join(stray)}; a bindings file has [bindings]")
        return _toml_entries(path, text, data.get("bindings", {}))
    if path.suffix in (".yaml", ".yml"):
        return _yaml_entries(path, text)
    raise BindingError(f"{path}: a bindings file is .yaml, .yml or .toml")


def pyproject_entries(directory: Path) -> list[tuple[str, Any, str, Path]]:
    """``[tool.pyverify] bindings``: a table of role entries, or the path of a bindings file."""
    import tomllib

    file = directory / "pyproject.toml"
    if not file.is_file():
        return []
    text = file.read_text(encoding="utf-8")
    try:
        value = tomllib.loads(text).get("tool", {}).get("pyverify", {}).get("bindings")
    except tomllib.TOMLDecodeError as exc:
        raise BindingError(f"{file}: not valid TOML: {exc}") from None
    if value is None:
        return []
    if isinstance(value, str):
        path = directory / value
        return [(*e, path.parent) for e in read_file(path)]
    return [(*e, directory) for e in _toml_entries(file, text, value)]


def load_bindings(cli: Iterable[str] = (), files: Iterable[Path] = (), directory: Path | None = None) -> list[Binding]:
    """Every binding the person running pyverify declared, validated and activated (a BindingError names
    the file and line, or the option, of the first bad one)."""
    from .plugins import ensure_content

    ensure_content()  # the content packages declare the roles
    directory = directory or Path.cwd()
    sources = [pyproject_entries(directory)]
    sources += [[(*e, Path(path).resolve().parent) for e in read_file(Path(path))] for path in files]
    sources.append([(*parse_cli(text), f"--bind {text}", directory) for text in cli])
    chosen: dict[str, tuple] = {}
    for entries in sources:  # a later source (a file, then the command line) overrides an earlier one
        seen: dict[str, str] = {}
        for role, entry, where, base in entries:
            if role in seen:
                raise BindingError(f"{where}: role {role!r} is bound twice (also at {seen[role]})")
            seen[role] = where
            chosen[role] = (role, entry, where, base)
    return [_entry(*spec) for spec in chosen.values()]
