"""Is a Lean statement faithful? Audits of quantifier order, hypotheses forcing zero, and reading.

Syntactic audits (they need only the Lean text, so they also run on another project's sources):
- ``quantifier-order``: a constant of a bound chosen after the data (``∀ x, ∃ C, |f x| ≤ C``). With a
  mapping, its ``constants`` say which parameters a constant may depend on; without one, every ∃ of a
  real number (typed ℝ, or untyped) that occurs in an inequality is taken for a constant of a bound.
- ``suspect-zero``: hypotheses that force an input to zero or contradict each other
  (``h : ∀ x, f x = 0``, ``h : x = 0``, ``‖v‖ ≤ 0``, ``x ≤ 0`` with ``0 ≤ x``, ``0 < x`` with ``x < 0``).
  "Suspect" because such a hypothesis can be what the printed statement says.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...registry import LeanLink
from .binders import Binder, Node, binders_of, declaration_prop, exists_sites, hypotheses_of, text
from .index import Declaration, LeanIndex, split_top

_REAL_TYPES = {"ℝ", "Real", "NNReal", "ℝ≥0"}


@dataclass(frozen=True)
class Finding:
    claim: str | None  # None for a declaration no claim links (the --sources audit)
    kind: str  # vacuity | quantifier-order | reading | suspect-zero | unmapped-hypothesis
    message: str
    declaration: str | None = None
    file: str | None = None
    line: int | None = None

    def as_dict(self) -> dict:
        return {"claim": self.claim, "kind": self.kind, "message": self.message, "declaration": self.declaration,
                "file": self.file, "line": self.line}


def statement_prop(decl: Declaration) -> Node | None:
    """The proposition a declaration states: a ``def ... : Prop := P`` states P, a theorem its type."""
    if decl.kind == "def" and [t.text for t in decl.statement] == ["Prop"]:
        return declaration_prop(decl.params, decl.body)
    if decl.kind in ("theorem", "lemma") and decl.statement:
        return declaration_prop(decl.params, decl.statement)
    return None


def expander(idx: LeanIndex, decl: Declaration):
    """Look through an atom naming a Prop-valued definition of the project (``HeadBound τ C``)."""
    def expand(atom: Node) -> Node | None:
        if not atom.tokens or atom.tokens[0].kind != "ident":
            return None
        target = idx.resolve(atom.tokens[0].text, decl.namespace)
        return statement_prop(target) if target is not None and target is not decl and target.kind == "def" else None
    return expand


def quantifier_order(idx: LeanIndex, decl: Declaration, claim: str | None, link: LeanLink | None) -> list[Finding]:
    node = statement_prop(decl)
    if node is None:
        return []
    sites = exists_sites(node, expander(idx, decl))
    out: list[Finding] = []
    declared = link.constants if link is not None else {}
    seen = {s.binder.name for s in sites}
    bound = binder_names(decl) | {b.name for s in sites for b in s.before}
    for name, spec in declared.items():
        for dep in spec.depends_on:
            if dep not in bound:
                out.append(_finding(claim, "quantifier-order", decl, f"the mapping's constant {name} depends_on "
                                    f"{dep}, which is not a variable of {decl.name}"))
    for name in declared:
        if name not in seen:
            out.append(_finding(claim, "quantifier-order", decl, f"the mapping's constant {name} is not bound by an "
                                f"∃ of {decl.name} (nor of the definitions it names)"))
    for site in sites:
        name = site.binder.name
        if name in declared:
            spec = declared[name]
            allowed = set(spec.depends_on) if spec.quantified == "per-parameter" else set()
            if spec.quantified == "after-data":
                out.append(_finding(claim, "quantifier-order", decl, f"the mapping says constant {name} is chosen "
                                    "after the data (∀ data, ∃ C): the bound then says nothing uniform"))
                continue
        elif site.bounds_something and (not site.binder.type or site.binder.type_text in _REAL_TYPES):
            allowed = set()
        else:
            continue
        late = [b.name for b in site.before if b.name not in allowed]
        if late:
            out.append(_finding(claim, "quantifier-order", decl, f"constant {name} is chosen after "
                                f"{', '.join(late)} (∀ {', '.join(late)}, ∃ {name}, ...): it may depend on the "
                                "data it bounds" + ("" if name in declared else "; if it may depend on named "
                                                    "parameters, say so in the mapping's constants")))
    return out


def _finding(claim: str | None, kind: str, decl: Declaration, message: str) -> Finding:
    return Finding(claim, kind, message, decl.name, decl.file, decl.line)


# ----------------------------------------------------------------------------- hypotheses forcing zero
def _relation(node: Node) -> tuple[str, str, str] | None:
    """(lhs, op, rhs) of an atom with one top-level relation."""
    cuts = split_top(node.tokens, {"=", "≤", "<", "≥", ">", "<=", ">="})
    if len(cuts) != 1:
        return None
    k, op = cuts[0]
    lhs, rhs = _plain(text(node.tokens[:k])), _plain(text(node.tokens[k + 1:]))
    flip = {"≥": "≤", ">": "<", ">=": "≤"}
    if op.text in flip:
        return rhs, flip[op.text], lhs
    return lhs, {"<=": "≤"}.get(op.text, op.text), rhs


def _plain(expr: str) -> str:
    """``( 0 : ℝ )`` -> ``0``; outer parentheses dropped."""
    e = expr.strip()
    while e.startswith("(") and e.endswith(")") and e.count("(") == 1:
        e = e[1:-1].strip()
    if e.endswith((": ℝ", ": ℕ", ": ℤ", ": ℚ", ": ℂ")):
        e = e.rsplit(":", 1)[0].strip()
    return e


def _is_norm(expr: str) -> bool:
    return (expr.startswith("‖") and expr.endswith("‖") or expr.startswith("|") and expr.endswith("|")
            or expr.startswith(("norm ", "‖")) and expr.endswith(("‖ ^ 2", "‖^2")))


def zero_forcing(decl: Declaration) -> list[str]:
    """Why the statement's hypotheses force an input to zero (or contradict), one sentence each."""
    node = statement_prop(decl)
    if node is None:
        return []
    data = {b.name for b in binders_of(node) if b.role == "data"}
    reasons: list[str] = []
    facts: set[tuple[str, str, str]] = set()
    for hyp in hypotheses_of(node, cases=False):
        inner, bound = hyp, []
        while inner.kind == "quant" and inner.quantifier == "∀":
            bound.extend(b.name for b in inner.binders)
            inner = inner.children[0]
        if inner.kind != "atom":
            continue
        rel = _relation(inner)
        if rel is None:
            continue
        lhs, op, rhs = rel
        shown = text(hyp.tokens)
        if op == "=" and "0" in (lhs, rhs):
            other = rhs if lhs == "0" else lhs
            if bound and any(b in other.split() for b in bound):
                reasons.append(f"hypothesis `{shown}` makes {other} vanish for every {', '.join(bound)}")
            elif other in data:
                reasons.append(f"hypothesis `{shown}` forces the input {other} to be 0")
        elif op in ("≤", "<") and rhs == "0" and _is_norm(lhs):
            reasons.append(f"hypothesis `{shown}` forces {lhs} to be 0" + (" (or is unsatisfiable)" if op == "<" else ""))
        if not bound:
            facts.add((lhs, op, rhs))
    for lhs, op, rhs in sorted(facts):
        if rhs == "0" and op in ("≤", "<") and lhs in data:
            lower = {o for a, o, b in facts if a == "0" and b == lhs}
            if lower and (op == "<" or "<" in lower):
                reasons.append(f"hypotheses {lhs} {op} 0 and 0 {min(lower)} {lhs} contradict each other")
            elif lower:
                reasons.append(f"hypotheses {lhs} ≤ 0 and 0 ≤ {lhs} force {lhs} = 0")
    return reasons


def hypothesis_binders(decl: Declaration) -> list[Binder]:
    node = statement_prop(decl)
    return [b for b in binders_of(node, universal_only=True) if b.role == "hypothesis"] if node is not None else []



def binder_names(decl: Declaration, idx: LeanIndex | None = None) -> set[str]:
    """The statement's variables (with ``idx``, also those of the Prop-valued helpers it names)."""
    node = statement_prop(decl)
    expand = expander(idx, decl) if idx is not None else None
    return {b.name for b in binders_of(node, expand)} if node is not None else set()


def hypothesis_texts(decl: Declaration, idx: LeanIndex | None = None) -> set[str]:
    """The statement's hypotheses as text without spaces (how a mapping keys an anonymous hypothesis);
    with ``idx``, also the hypotheses of the Prop-valued helpers it names."""
    node = statement_prop(decl)
    expand = expander(idx, decl) if idx is not None else None
    return {"".join(text(h.tokens).split()) for h in hypotheses_of(node, expand)} if node is not None else set()
