"""``pyverify check ID --pin-witness``: a witness written into its claim's ``check.examples`` — a text edit
of the YAML next to the check (comments and layout of the rest of the file untouched), written atomically
and re-read before it replaces the file, so a pin never leaves a registry that does not load.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml

from ..atomic import write_text_atomic
from .models import Registry


class PinError(ValueError):
    pass


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_end(lines: list[str], start: int, parent_indent: int, list_at_parent: bool = False) -> int:
    """Index after the last line of the block opened by lines[start] (a key at ``parent_indent``).
    ``list_at_parent``: the block may be a YAML list whose dashes stand at the key's own indent."""
    end = start + 1
    for j in range(start + 1, len(lines)):
        text = lines[j]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        ind = _indent(text)
        if ind > parent_indent or (list_at_parent and ind == parent_indent and text.lstrip().startswith("- ")):
            end = j + 1
            continue
        break
    return end


def _yaml_value(v: Any) -> str:
    """A value in YAML flow style that PyYAML reads back exactly: floats keep their shortest exact repr,
    with the dot YAML 1.1 needs to see a float in an exponent form (1e-300 would be read as a string)."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_yaml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_yaml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, float):
        if math.isnan(v):
            return ".nan"
        if math.isinf(v):
            return ".inf" if v > 0 else "-.inf"
        text = repr(v)
        mantissa, e, exponent = text.partition("e")
        if e and "." not in mantissa:
            text = f"{mantissa}.0e{exponent}"
        return text
    return repr(v)


def example_text(values: dict[str, Any]) -> str:
    """One example in YAML flow style."""
    return _yaml_value(values)


def witness_example(check, values: dict[str, Any], dims: dict[str, Any]) -> dict[str, Any]:
    """The example a counterexample stands for: its values of the hypotheses (a fixed tensor_file stays
    the reference to its file) and, for a sweep, the assignment it was found at."""
    example: dict[str, Any] = {}
    for name, spec in check.given.items():
        if spec.strip().startswith("tensor_file("):
            example[name] = spec
        elif name in values:
            example[name] = values[name]
    if check.dims:
        example["_dims"] = dict(dims)
    return example


def pin_example(registry: Registry, claim_id: str, example: dict[str, Any]) -> Path:
    """Append ``example`` to the claim's ``check.examples`` in its YAML file; returns the file."""
    loc = registry.locations[claim_id]
    path = Path(loc.file)  # as the loader showed it: relative to the current directory, or absolute
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines_of = registry.key_lines.get(claim_id, {})
    if "check" not in lines_of:
        raise PinError(f"{loc}: claim {claim_id} has no check block to pin an example into")
    c = lines_of["check"] - 1
    if lines[c].split("check:", 1)[1].strip() not in ("", "|", ">") and not lines[c].split("check:", 1)[1].strip().startswith("#"):
        raise PinError(f"{path}:{c + 1}: the check of {claim_id} is written in flow style; add the example by hand")
    item = example_text(example)
    if "check.examples" in lines_of:
        e = lines_of["check.examples"] - 1
        e_indent = _indent(lines[e])
        if lines[e].split("examples:", 1)[1].strip() not in ("",):
            raise PinError(f"{path}:{e + 1}: `examples:` of {claim_id} is in flow style; add the example by hand")
        end = _block_end(lines, e, e_indent, list_at_parent=True)
        dash = next((_indent(lines[j]) for j in range(e + 1, end) if lines[j].lstrip().startswith("- ")), e_indent + 2)
        new = [" " * dash + f"- {item}\n"]
    else:
        c_indent = _indent(lines[c])
        end = _block_end(lines, c, c_indent)
        key_indent = next((_indent(lines[j]) for j in range(c + 1, end) if lines[j].strip()), c_indent + 2)
        new = [" " * key_indent + "examples:\n", " " * (key_indent + 2) + f"- {item}\n"]
    if end > 0 and not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    text = "".join(lines[:end] + new + lines[end:])
    _verify(text, path, claim_id, example)
    write_text_atomic(path, text)
    return path


def _verify(text: str, path: Path, claim_id: str, example: dict) -> None:
    """The edited file still parses, and the claim's last example is the pinned one."""
    try:
        data = yaml.safe_load(text)
        claim = next(c for c in data["claims"] if c.get("id") == claim_id)
        pinned = claim["check"]["examples"][-1]
    except (yaml.YAMLError, KeyError, StopIteration, TypeError, IndexError) as exc:
        raise PinError(f"{path}: pinning into {claim_id} would not give a readable registry ({exc}); file unchanged") from None
    if pinned != json.loads(json.dumps(example)):
        raise PinError(f"{path}: pinning into {claim_id} would not round-trip the witness; file unchanged")
