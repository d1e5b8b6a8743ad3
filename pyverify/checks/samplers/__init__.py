"""Hypothesis samplers: random, differentiable instances that satisfy a claim's hypotheses.

A sampler maps unconstrained parameters ``theta`` to a value that satisfies its hypothesis *by
construction* (a reparameterisation), so that the falsifier can run gradient ascent on ``theta`` and
never leave the hypothesis. Each sampler can also produce degenerate/boundary instances, and names a
``relaxed`` sampler (the hypothesis weakened) for the hypothesis-necessity analysis.

Shapes: ``theta`` tensors are (B, ...); values are (B, ...) — B instances. Random-variable samplers
(``gaussian``, ``orf``) are not optimised: they draw (B, S, ...) samples for ``E(...)``.
"""

import ast
import difflib
from pathlib import Path
from typing import Any, Callable

from .base import Constraint, Param, Sampler, SamplerError, SymbolicUnsupported
from .linalg import PSD, Mat, Orth, Scalar, Skew, Sym, Vec
from .data import TensorFile
from .misc import Gaussian, IntPosition, Simplex, SmallAngle, UnitQuat

# a sampler call is a name and a few arguments (`skew_family(d, dc, scale=0.5)`): longer or deeper text
# is not a hypothesis but a payload
MAX_CALL_LENGTH = 1000
MAX_ARGUMENT_DEPTH = 20

# the built-in hypotheses; content packages and plugins add theirs (pyverify.plugin.sampler)
SAMPLERS: dict[str, type[Sampler]] = {
    cls.name: cls
    for cls in (Vec, Scalar, Mat, Sym, Skew, PSD, Orth, UnitQuat, SmallAngle, Simplex, Gaussian, IntPosition, TensorFile)
}

__all__ = ["SAMPLERS", "Constraint", "Param", "Sampler", "SamplerError", "SymbolicUnsupported", "parse_sampler",
           "PSD", "Mat", "Orth", "Scalar", "Skew", "Sym", "Vec", "Gaussian", "IntPosition", "Simplex", "SmallAngle", "UnitQuat"]


def parse_sampler(text: str, constants: dict[str, Any], root: Path | None = None) -> Sampler:
    """``commuting_skew(d=6, dc=3)`` -> a Sampler, its arguments checked against the sampler's declared
    parameters (``Sampler.params``). Arguments: numbers, strings, lists, sweep names. ``root``: the
    registry's folder, below which a hypothesis reads the files it names."""
    if len(text) > MAX_CALL_LENGTH:
        raise SamplerError(f"hypothesis {text[:40]!r}…: a sampler call longer than {MAX_CALL_LENGTH} characters")
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise SamplerError(f"hypothesis {text!r}: syntax error at column {exc.offset}") from None
    except (RecursionError, MemoryError):  # CPython's parser on a deeply nested argument
        raise SamplerError(f"hypothesis {text[:40]!r}…: argument nested too deeply for the parser") from None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise SamplerError(f"hypothesis {text!r} must be a sampler call like vec(3)")
    name = node.func.id
    if name not in SAMPLERS:
        close = difflib.get_close_matches(name, list(SAMPLERS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise SamplerError(f"unknown sampler {name!r}{hint}; known: {', '.join(sorted(SAMPLERS))}")

    def value(n: ast.AST, depth: int = 0) -> Any:
        if depth > MAX_ARGUMENT_DEPTH:
            raise SamplerError(f"hypothesis {text[:40]!r}…: argument nested deeper than {MAX_ARGUMENT_DEPTH} levels")
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, str)) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -value(n.operand, depth + 1)
        if isinstance(n, ast.Name) and n.id in constants:
            return constants[n.id]
        if isinstance(n, (ast.List, ast.Tuple)):
            return [value(e, depth + 1) for e in n.elts]
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div, ast.Add, ast.Sub, ast.FloorDiv)):
            a, b = value(n.left, depth + 1), value(n.right, depth + 1)
            ops: dict[type, Callable] = {ast.Mult: lambda: a * b, ast.Div: lambda: a / b, ast.Add: lambda: a + b,
                                         ast.Sub: lambda: a - b, ast.FloorDiv: lambda: a // b}
            return ops[type(n.op)]()
        raise SamplerError(f"hypothesis {text!r}: argument must be a number, string, list or sweep name")

    cls = SAMPLERS[name]
    args: dict[str, Any] = {}
    positional = cls.positional()
    if positional and positional[-1].variadic:
        args[positional[-1].name] = [value(a) for a in node.args]
    else:
        if len(node.args) > len(positional):
            raise SamplerError(f"{name} takes at most {len(positional)} positional argument(s); "
                               f"accepted: {cls.signature()}")
        args.update({p.name: value(a) for p, a in zip(positional, node.args)})
    for kw in node.keywords:
        if kw.arg is None:
            raise SamplerError("**kwargs not allowed")
        if kw.arg in args:
            raise SamplerError(f"{name}: parameter {kw.arg!r} given twice; accepted: {cls.signature()}")
        args[kw.arg] = value(kw.value)
    return cls(args=args, root=root)
