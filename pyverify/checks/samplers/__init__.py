"""Hypothesis samplers: random, differentiable instances that satisfy a claim's hypotheses.

A sampler maps unconstrained parameters ``theta`` to a value that satisfies its hypothesis *by
construction* (a reparameterisation), so that the falsifier can run gradient ascent on ``theta`` and
never leave the hypothesis. Each sampler can also produce degenerate/boundary instances, and names a
``relaxed`` sampler (the hypothesis weakened) for the hypothesis-necessity analysis.

Shapes: ``theta`` tensors are (B, ...); values are (B, ...) — B instances. Random-variable samplers
(``gaussian``, ``orf``) are not optimised: they draw (B, S, ...) samples for ``E(...)``.
"""

import ast
from typing import Any, Callable

from .base import Sampler, SamplerError
from .generators import CayleyPost, CommutingSkew, NearCommutingSkew, SkewFamily, StructuredPost
from .linalg import PSD, Mat, Orth, Scalar, Skew, Sym, Vec
from .misc import ORF, Gaussian, Simplex, SmallAngle, UnitQuat


SAMPLERS: dict[str, type[Sampler]] = {
    cls.name: cls
    for cls in (Vec, Scalar, Mat, Sym, Skew, PSD, Orth, CommutingSkew, SkewFamily, NearCommutingSkew,
                StructuredPost, CayleyPost, UnitQuat, SmallAngle, Simplex, Gaussian, ORF)
}

# Positional argument names of each sampler, so `vec(3)` means vec(n=3).
POSITIONAL = {
    "vec": ("n",), "scalar": ("lo", "hi"), "mat": ("n", "m"), "sym": ("n",), "skew": ("n",), "psd": ("n",),
    "orth": ("n",), "commuting_skew": ("d", "dc"), "skew_family": ("d", "dc"),
    "near_commuting_skew": ("d", "dc", "eps"), "structured_post": ("d", "dc"), "cayley_post": ("d", "dc"), "unit_quat": (), "small_angle": ("eps",), "simplex": ("V",),
    "gaussian": (), "orf": ("m", "d"),
}


def parse_sampler(text: str, constants: dict[str, Any]) -> Sampler:
    """``commuting_skew(d=6, dc=3)`` -> a Sampler. Arguments: numbers, strings, lists, sweep names."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise SamplerError(f"hypothesis {text!r}: syntax error at column {exc.offset}") from None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise SamplerError(f"hypothesis {text!r} must be a sampler call like vec(3)")
    name = node.func.id
    if name not in SAMPLERS:
        raise SamplerError(f"unknown sampler {name!r}; known: {', '.join(sorted(SAMPLERS))}")

    def value(n: ast.AST) -> Any:
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, str)) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -value(n.operand)
        if isinstance(n, ast.Name) and n.id in constants:
            return constants[n.id]
        if isinstance(n, (ast.List, ast.Tuple)):
            return [value(e) for e in n.elts]
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div, ast.Add, ast.Sub, ast.FloorDiv)):
            a, b = value(n.left), value(n.right)
            ops: dict[type, Callable] = {ast.Mult: lambda: a * b, ast.Div: lambda: a / b, ast.Add: lambda: a + b,
                                         ast.Sub: lambda: a - b, ast.FloorDiv: lambda: a // b}
            return ops[type(n.op)]()
        raise SamplerError(f"hypothesis {text!r}: argument must be a number, string, list or sweep name")

    args: dict[str, Any] = {}
    pos = POSITIONAL.get(name, ())
    if name == "gaussian":
        args["shape"] = [value(a) for a in node.args]
    else:
        if len(node.args) > len(pos):
            raise SamplerError(f"{name} takes at most {len(pos)} positional argument(s): {', '.join(pos)}")
        args.update({k: value(a) for k, a in zip(pos, node.args)})
    for kw in node.keywords:
        if kw.arg is None:
            raise SamplerError("**kwargs not allowed")
        args[kw.arg] = value(kw.value)
    sampler = SAMPLERS[name](args=args)
    try:
        sampler.shapes()
    except KeyError as exc:
        raise SamplerError(f"{name} needs argument {exc.args[0]!r}") from None
    return sampler
