"""Vacuity of a Lean statement, judged through the claim's numeric check.

The mapping pairs each hypothesis binder of the Lean statement with a name of the numeric check
(a ``given``, a ``where``, an identifier of an ``assume``, or an ``assume`` text itself). A hypothesis
without a counterpart ('none', or a name the check does not have) is not tested by the engine: flagged.
Then the engine's own samplers draw instances (with the samplers' degenerate draws mixed in, so a zero
instance is among them) and the check's ``assume``s are scored as the engine scores them: if no draw
satisfies them, the hypotheses look unsatisfiable; if only draws whose inputs are all ≈ 0 satisfy them,
they look satisfiable only by the zero instance. Both are ``vacuity`` findings, as is a claim whose
reviewed verdict is ``vacuous``.
"""

from __future__ import annotations

import ast
import re

import torch

from ...checks.compiled import CheckError, compile_check, sweep
from ...engine.claim import relation_kind
from ...engine.scoring import score_sides
from ...registry import Claim, LeanLink, Verdict
from .faithful import Finding

DRAWS = 512  # instances per sweep assignment
DEGENERATE = 64  # of which degenerate (zeros, repeated points): the zero instance is always among them
ZERO_DRAWS = 8  # of which exact zeros of the samplers' parameters (for vec/mat: the zero input)
ZERO = 1e-9  # an input this small (max-abs) counts as zero


def check_names(claim: Claim) -> set[str]:
    """Names a hypothesis may map to: givens, wheres, identifiers and texts of the assumes."""
    check = claim.check
    if check is None:
        return set()
    names = set(check.given) | set(check.where)
    assumes = [check.assume] if isinstance(check.assume, str) else list(check.assume or [])
    for text in assumes:
        names.add(text.strip())
        try:
            names.update(n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name))
        except SyntaxError:
            continue  # the engine reports a malformed assume as the claim's error
    return names


def unmapped_hypotheses(cid: str, claim: Claim, link: LeanLink, declaration: str | None) -> list[Finding]:
    names = check_names(claim)
    out = []
    for binder, target in link.hypotheses.items():
        if target.strip().lower().startswith("none"):  # 'none' or 'none (why)'
            out.append(Finding(cid, "unmapped-hypothesis", f"hypothesis {binder} has no counterpart in the "
                               f"numeric check ({target.strip()}): the engine never tests what it assumes",
                               declaration))
        elif target.strip() in names or _mentioned(target) & names:
            continue
        else:
            shown = ", ".join(sorted(names)) or "no names (no check)"
            out.append(Finding(cid, "unmapped-hypothesis", f"hypothesis {binder} maps to {target!r}, which the "
                               f"check of {cid} does not have (it has: {shown})", declaration))
    return out


def _mentioned(target: str) -> set[str]:
    """The names a mapping value mentions outside parentheses (``post.U`` -> post; ``Sm, F (why)`` -> Sm, F)."""
    depth, kept = 0, []
    for ch in target:
        depth += ch == "("
        if depth == 0:
            kept.append(ch)
        depth -= ch == ")" and depth > 0
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "".join(kept)))


def sampled_vacuity(cid: str, claim: Claim, conventions: dict[str, str], seed: int = 0,
                    declaration: str | None = None) -> list[Finding]:
    """Draw instances with the engine's samplers; flag assumes never met, or met only at zero inputs."""
    check = claim.check
    if claim.expect == Verdict.vacuous:
        return [Finding(cid, "vacuity", "the engine's reviewed verdict of this claim is vacuous: its hypotheses "
                        "are unsatisfiable or its bound no better than the trivial one", declaration)]
    if check is None or check.not_checkable or not check.assume:
        return []
    kind = relation_kind(claim)
    if kind == "order":
        return []  # measured orders have no per-instance assumes to score
    ctx = {"dtype": torch.float64, "device": torch.device("cpu")}
    satisfied = nonzero = 0
    gen = torch.Generator().manual_seed(seed)
    try:
        for dims in sweep(check)[:4]:
            compiled = compile_check(check, dims, kind, conventions)
            theta = compiled.init_theta(DRAWS, gen, ctx, degenerate=DEGENERATE)
            for parts in theta.values():  # the zero instance (of the samplers' parameters) is always drawn
                for v in parts.values():
                    v[:ZERO_DRAWS] = 0
            randoms = compiled.draw_randoms(DRAWS, 1, gen, ctx) if compiled.randoms else None
            with torch.no_grad():
                sides = compiled.evaluate(theta, ctx, randoms)
                ok = score_sides(sides, check.tol, torch.float64).assume_ok
                big = _input_scale(sides.values, ok.shape[0]) > ZERO
            satisfied += int(ok.sum())
            nonzero += int((ok & big).sum())
    except (CheckError, RuntimeError, ValueError, TypeError) as exc:
        return [Finding(cid, "vacuity", f"the check could not be sampled to judge its hypotheses: {exc}", declaration)]
    if satisfied == 0:
        return [Finding(cid, "vacuity", f"no instance of {DRAWS} draws per assignment satisfies the check's "
                        "assumes: the mapped hypotheses look unsatisfiable", declaration)]
    if nonzero == 0:
        return [Finding(cid, "vacuity", f"only instances with every input ≈ 0 satisfy the check's assumes "
                        f"({satisfied} such draws): the mapped hypotheses force the zero instance", declaration)]
    return []


def _input_scale(values: dict, b: int) -> torch.Tensor:
    """(B,) the largest |entry| over all inputs of each instance."""
    scale = torch.zeros(b, dtype=torch.float64)
    for v in values.values():
        for part in (v.values() if isinstance(v, dict) else [v]):
            if isinstance(part, torch.Tensor) and part.dim() > 0 and part.shape[0] == b and part[0].numel():
                scale = torch.maximum(scale, part.detach().abs().reshape(b, -1).amax(1).to(torch.float64))
    return scale
