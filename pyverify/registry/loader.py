"""Load registry YAML files with line numbers: every problem names its file, line and claim id.

YAML is read with a safe loader (no Python tags); duplicate keys are an error instead of the silent
last-one-wins of plain ``yaml.safe_load``.
"""

from __future__ import annotations

from pathlib import Path
import difflib
import errno
import os
import stat
from enum import Enum
from typing import Any, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

from .. import limits
from .. import contributions
from . import yaml_shape
from .models import (Claim, Document, Location, Problem, Registry, RegistryError)


class _LineDict(dict):
    """A mapping that remembers where it and each of its keys stand in the YAML file."""

    line: int = 0
    key_lines: dict[str, int]


class _DuplicateKey(Exception):
    def __init__(self, key: Any, line: int):
        self.key, self.line = key, line


class _LineLoader(yaml.SafeLoader):
    """The pure-Python safe loader with line-aware mappings."""


# the C parser (libyaml) where PyYAML has it: same safe constructors, a fifth of the load time
class _CLineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """The same over libyaml, where PyYAML was built with it."""


def _loader() -> type:
    """libyaml's loader unless PYVERIFY_YAML_PURE=1 asks for the pure-Python one (both give the same
    answers, caps included: pyverify measures a file's shape itself, before either reads it)."""
    return _LineLoader if os.environ.get("PYVERIFY_YAML_PURE") == "1" else _CLineLoader


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> _LineDict:
    loader.flatten_mapping(node)
    out = _LineDict()
    out.line = node.start_mark.line + 1
    out.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise _DuplicateKey(key, key_node.start_mark.line + 1)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[str(key)] = key_node.start_mark.line + 1
    return out


for _loader_class in (_LineLoader, _CLineLoader):
    _loader_class.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_text(path: Path, shown: str, problems: list[Problem]) -> str | None:
    """The file's text, refusing what is not a bounded regular file (a device, a FIFO, a symlink loop)."""
    try:
        info = path.stat()  # follows symlinks: a loop raises here
    except (OSError, RuntimeError) as exc:
        why = "a symlink loop" if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP else str(exc)
        problems.append(Problem(Location(shown, 0), f"cannot read file: {why}", code="io"))
        return None
    if not stat.S_ISREG(info.st_mode):
        problems.append(Problem(Location(shown, 0), "not a regular file (a registry is a YAML file or a folder of them)", code="io"))
        return None
    if info.st_size > limits.FILE_BYTES.value:
        problems.append(Problem(Location(shown, 0), limits.FILE_BYTES.message(info.st_size, "file size"), code="io"))
        return None
    try:
        with path.open("rb") as f:
            data = f.read(int(limits.FILE_BYTES.value) + 1)  # the file may grow after stat
    except OSError as exc:
        problems.append(Problem(Location(shown, 0), f"cannot read file: {exc}", code="io"))
        return None
    if len(data) > limits.FILE_BYTES.value:
        problems.append(Problem(Location(shown, 0), limits.FILE_BYTES.message(len(data), "file size"), code="io"))
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(data[: exc.start].decode("utf-8", "replace"), len(data[: exc.start].decode("utf-8", "replace")))
        problems.append(Problem(Location(shown, line), f"column {col}: not UTF-8 text (byte {data[exc.start]:#04x})", code="io"))
        return None


def _char(c: Any) -> str:
    return repr(chr(c) if isinstance(c, int) else c)


def _line_col(text: str, index: int) -> tuple[int, int]:
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1


def _shape_problem(text: str) -> tuple[int, str] | None:
    """Nesting deeper than the cap, or more alias references than the cap, measured by pyverify from the
    text before any YAML library reads it (libyaml stops deep nesting itself, with its own wording and
    depth; the pure-Python composer recurses once per level)."""
    excess = yaml_shape.first_excess(text, int(limits.YAML_DEPTH.value), int(limits.YAML_ALIASES.value))
    if excess is None:
        return None
    if excess.what == "depth":
        return excess.line, limits.YAML_DEPTH.message(excess.amount, "nesting")
    return excess.line, limits.YAML_ALIASES.message(excess.amount, "aliases")


def _expanded_size(node: Any, budget: int) -> int:
    """Nodes of the loaded data with aliases expanded (a billion-laughs file is tiny until expanded),
    counted up to ``budget`` + 1 with memo per shared object."""
    seen: dict[int, int] = {}

    def count(x: Any) -> int:
        if isinstance(x, (dict, list)):
            key = id(x)
            if key in seen:
                return seen[key]
            items = list(x.items()) if isinstance(x, dict) else x
            total = 1
            for item in items:
                total += sum(count(v) for v in item) if isinstance(x, dict) else count(item)
                if total > budget:
                    break
            seen[key] = total
            return total
        return 1

    return min(count(node), budget + 1)


def _read_yaml(path: Path, shown: str, problems: list[Problem]) -> Any:
    text = _read_text(path, shown, problems)
    if text is None:
        return None
    try:
        over = _shape_problem(text)
        if over:
            problems.append(Problem(Location(shown, over[0]), over[1], code="yaml"))
            return None
        data = yaml.load(text, Loader=_loader())  # noqa: S506 - both loaders derive from the safe ones
    except _DuplicateKey as exc:
        problems.append(Problem(Location(shown, exc.line), f"duplicate key {exc.key!r}", code="yaml"))
        return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        col = f" (column {mark.column + 1})" if mark else ""
        problems.append(Problem(Location(shown, line), f"YAML error{col}: {exc.problem or exc}", code="yaml"))
        return None
    except yaml.reader.ReaderError as exc:  # a control character: the reader gives its position only
        line, col = _line_col(text, exc.position)
        problems.append(Problem(Location(shown, line), f"column {col}: control character {_char(exc.character)} is not allowed in YAML", code="yaml"))
        return None
    except yaml.YAMLError as exc:
        problems.append(Problem(Location(shown, 0), f"YAML error: {exc}", code="yaml"))
        return None
    except RecursionError:
        problems.append(Problem(Location(shown, 0), limits.YAML_DEPTH.message(limits.YAML_DEPTH.value + 1, "nesting"), code="yaml"))
        return None
    budget = int(limits.YAML_NODES.value)
    size = _expanded_size(data, budget)
    if size > budget:
        problems.append(Problem(Location(shown, 1), limits.YAML_NODES.message(size, "the file expands (aliases included) to"), code="yaml"))
        return None
    return data


def _model_fields_at(model: type[BaseModel], loc: tuple) -> list[str]:
    """The field names (as written in YAML) of the model that ``loc`` points into, for an unknown key."""
    for part in loc[:-1]:
        if not isinstance(part, str):
            continue  # a list index
        fields = {f.alias or name: f for name, f in model.model_fields.items()}
        if part not in fields:
            return []
        inner = _inner_model(fields[part].annotation)
        if inner is None:
            return []
        model = inner
    return [f.alias or name for name, f in model.model_fields.items()]


def _field_annotation(model: type[BaseModel], loc: tuple) -> Any:
    """The annotation of the field that ``loc`` ends at (None where it cannot be followed)."""
    annotation: Any = model
    for part in loc:
        if not isinstance(part, str):
            continue  # a list index or a dict key of a typed container
        inner = _inner_model(annotation)
        fields = {f.alias or name: f for name, f in inner.model_fields.items()} if inner else {}
        if part not in fields:
            return annotation if inner is None else None
        annotation = fields[part].annotation
    return annotation


def _choices(annotation: Any) -> list[str]:
    """The values a Literal or Enum annotation (inside Optional/Annotated/Union) accepts."""
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return [str(m.value) for m in annotation]
    if get_origin(annotation) is Literal:
        return [str(a) for a in get_args(annotation)]
    return [c for arg in get_args(annotation) for c in _choices(arg)]


def _in_our_words(err: dict, model: type[BaseModel]) -> str:
    """A validation error in pyverify's words, from the error's type and context (pydantic's stable
    API), not its message text, which changes between pydantic releases."""
    kind, ctx = err["type"], err.get("ctx") or {}
    fixed = {"finite_number": "must be a finite number", "int_type": "must be an integer",
             "int_parsing": "must be an integer", "int_from_float": "must be an integer",
             "float_type": "must be a number", "float_parsing": "must be a number",
             "bool_type": "must be true or false", "bool_parsing": "must be true or false",
             "string_type": "must be a string", "list_type": "must be a list", "dict_type": "must be a mapping",
             "model_type": "must be a mapping", "model_attributes_type": "must be a mapping"}
    bounds = {"greater_than": ("gt", "greater than"), "greater_than_equal": ("ge", "at least"),
              "less_than": ("lt", "less than"), "less_than_equal": ("le", "at most")}
    if kind in fixed:
        return fixed[kind]
    if kind in bounds and bounds[kind][0] in ctx:
        key, words = bounds[kind]
        bound = ctx[key]
        return f"must be {words} {int(bound) if isinstance(bound, float) and bound.is_integer() else bound}"
    if kind == "string_too_long" and "max_length" in ctx:
        return f"must be at most {ctx['max_length']} characters long"
    if kind == "string_too_short" and "min_length" in ctx:
        return "must not be empty" if ctx["min_length"] == 1 else f"must be at least {ctx['min_length']} characters long"
    if kind == "too_short" and "min_length" in ctx:
        return f"must have at least {ctx['min_length']} item(s)"
    if kind == "too_long" and "max_length" in ctx:
        return f"must have at most {ctx['max_length']} item(s)"
    if kind == "string_pattern_mismatch" and "pattern" in ctx:
        return f"must match the pattern {ctx['pattern']}"
    if kind in ("literal_error", "enum"):
        choices = _choices(_field_annotation(model, tuple(err["loc"])))
        if choices:
            return "must be one of " + ", ".join(repr(c) for c in choices)
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])  # pyverify's own validators' words
    return err["msg"]  # a kind pyverify has no words for


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _pydantic_problems(exc: ValidationError, raw: _LineDict, shown: str, claim_id: str | None,
                       model: type[BaseModel]) -> list[Problem]:
    out = []
    for err in exc.errors():
        loc = err["loc"]
        field_name = str(loc[0]) if loc else None
        line = raw.key_lines.get(field_name, raw.line) if field_name else raw.line
        # point inside nested mappings (check:, findings:) where the YAML lets us
        node: Any = raw
        for part in loc:
            if isinstance(node, _LineDict) and part in node:
                child = node[part]
                line = node.key_lines.get(str(part), line)
                node = child
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
                if isinstance(node, _LineDict):
                    line = node.line
            else:
                break
        where = ".".join(str(p) for p in loc) or "claim"
        msg = _in_our_words(err, model)
        if err["type"] == "extra_forbidden":
            accepted = _model_fields_at(model, tuple(loc))
            close = difflib.get_close_matches(str(loc[-1]), accepted, n=1)
            msg = "unknown field" + (f" (did you mean {close[0]!r}?)" if close else "")
            msg += f"; accepted: {', '.join(accepted)}" if accepted else ""
        elif err["type"] == "missing":
            msg = "required field is missing"
        out.append(Problem(Location(shown, line), f"{where}: {msg}", claim_id))
    return out


def _nested_key_lines(node: Any, prefix: str, out: dict[str, int]) -> None:
    """Record the line of every key below ``prefix`` as a dotted path (``check.given.x``), so a problem
    found in a nested check key points at its own line."""
    if isinstance(node, list):  # check.examples.0 is the first example's line
        for i, item in enumerate(node):
            if isinstance(item, _LineDict):
                out[f"{prefix}.{i}"] = item.line
                _nested_key_lines(item, f"{prefix}.{i}", out)
        return
    if not isinstance(node, _LineDict):
        return
    for key, value in node.items():
        path = f"{prefix}.{key}"
        out[path] = node.key_lines.get(str(key), node.line)
        _nested_key_lines(value, path, out)


def registry_files(path: Path) -> list[Path]:
    """The YAML files of a folder (a file is its own registry). Symlinks count with their name: a
    broken link or a loop is then refused with a message, not silently skipped."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and (p.is_file() or p.is_symlink()))
    return [path]


def _default_registry() -> Path:
    """The registry of the installed content package (``pyverify.contributions``)."""
    try:
        found = contributions.default_registry()
    except ValueError as exc:
        raise RegistryError([Problem(Location("--registry", 0), str(exc), code="io")]) from None
    if found is None:
        raise RegistryError([Problem(Location("--registry", 0), "no registry given, and no installed content "
                                     "package declares one: name a registry file or folder", code="io")])
    return found


def load_registry(path: str | Path | None = None) -> Registry:
    """Load a registry from a YAML file or a folder of them (default: the installed content package's);
    raise RegistryError listing all problems."""
    root = Path(path) if path is not None else _default_registry()
    problems: list[Problem] = []
    if not root.exists() and not root.is_symlink():
        raise RegistryError([Problem(Location(str(root), 0), "no such registry file or folder", code="io")])
    files = registry_files(root)
    if not files:
        raise RegistryError([Problem(Location(str(root), 0), "no YAML files in the registry", code="io")])
    base = root if root.is_dir() else root.parent

    documents: dict[str, Document] = {}
    doc_locations: dict[str, Location] = {}
    raw_claims: list[tuple[_LineDict, str]] = []
    plugins: dict[str, Location] = {}

    for file in files:
        try:
            shown = str(file.relative_to(Path.cwd()))
        except ValueError:
            shown = str(file)
        data = _read_yaml(file, shown, problems)
        if data is None:
            if not any(p.location.file == shown for p in problems):
                problems.append(Problem(Location(shown, 1), "empty file: expected `documents:` and/or `claims:`"))
            continue
        if not isinstance(data, _LineDict):
            problems.append(Problem(Location(shown, 1), "top level must be a mapping with `documents:` and/or `claims:`"))
            continue
        for key in data:
            if key not in ("documents", "claims", "plugins"):
                problems.append(Problem(Location(shown, data.key_lines[str(key)]), f"unknown top-level key {key!r}"))
        if "plugins" in data:
            names = data["plugins"]
            where = Location(shown, data.key_lines["plugins"])
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                problems.append(Problem(where, "`plugins` must be a list of plugin names"))
            else:
                plugins.update({n: where for n in names if n not in plugins})
        for kind, target in (("documents", None), ("claims", None)):
            items = data.get(kind)
            if items is None:
                continue
            if not isinstance(items, list):
                problems.append(Problem(Location(shown, data.key_lines[kind]), f"`{kind}` must be a list"))
                continue
            for item in items:
                if not isinstance(item, _LineDict):
                    problems.append(Problem(Location(shown, data.key_lines[kind]), f"each entry of `{kind}` must be a mapping"))
                    continue
                if kind == "documents":
                    try:
                        doc = Document.model_validate(dict(item))
                    except ValidationError as exc:
                        problems.extend(_pydantic_problems(exc, item, shown, None, Document))
                        continue
                    if doc.key in documents:
                        problems.append(Problem(Location(shown, item.line), f"document {doc.key!r} declared twice (first at {doc_locations[doc.key]})"))
                        continue
                    documents[doc.key] = doc
                    doc_locations[doc.key] = Location(shown, item.line)
                else:
                    raw_claims.append((item, shown))

    claims: dict[str, Claim] = {}
    locations: dict[str, Location] = {}
    key_lines: dict[str, dict[str, int]] = {}
    for item, shown in raw_claims:
        cid = item.get("id") if isinstance(item.get("id"), str) else None
        try:
            claim = Claim.model_validate(dict(item))
        except ValidationError as exc:
            problems.extend(_pydantic_problems(exc, item, shown, cid, Claim))
            continue
        here = Location(shown, item.line)
        if claim.id in claims:
            problems.append(Problem(here, f"duplicate id (first at {locations[claim.id]})", claim.id, "duplicate-id"))
            continue
        if claim.document not in documents:
            known = ", ".join(sorted(documents)) or "none declared"
            problems.append(Problem(Location(shown, item.key_lines.get("document", item.line)), f"unknown document {claim.document!r} (known: {known})", claim.id))
        claims[claim.id] = claim
        locations[claim.id] = here
        key_lines[claim.id] = dict(item.key_lines)
        _nested_key_lines(item.get("check"), "check", key_lines[claim.id])
        problems.extend(_finding_shape_problems(claim, item, shown))

    if problems:
        raise RegistryError(problems)
    return Registry(documents, claims, locations, key_lines, base, root.resolve(), plugins=plugins)


def _finding_shape_problems(claim: Claim, item: _LineDict, shown: str) -> list[Problem]:
    out = []
    line = item.key_lines.get("findings", item.line)
    for f in claim.findings:
        needs_target = f.type in ("forward-dep", "unknown-dep", "cycle")
        if needs_target and not f.target:
            out.append(Problem(Location(shown, line), f"finding {f.type} needs `target`", claim.id))
        if f.type == "symbol-without-dep" and not f.symbol:
            out.append(Problem(Location(shown, line), "finding symbol-without-dep needs `symbol`", claim.id))
    has_trunc = any(f.type == "truncated-deps" for f in claim.findings)
    if has_trunc != claim.deps_truncated:
        out.append(Problem(Location(shown, item.key_lines.get("deps_truncated", line)),
                           "deps_truncated: true and a truncated-deps finding go together", claim.id))
    return out


