"""The binder structure of a Lean statement: its ∀/∃ prefix, hypotheses, implications and conjunctions.

Enough of Lean's term syntax to answer two questions, not a parser of Lean:
- in what order are the statement's variables and constants quantified (``∀ x, ∃ C`` vs ``∃ C, ∀ x``)?
- which hypotheses does it make, and does one of them force an input to zero?

A binder ``∀ x, ...`` / ``∃ x, ...`` extends as far right as possible, so splitting a term at a top-level
``→`` or ``∧`` stops at the first top-level ``∀``/``∃``/``fun`` (what follows is that binder's body).
A binder is a *hypothesis* when its type contains a relation or connective (``0 < ε``, ``∀ i, ‖Q i‖ ≤ ε``)
or when its name follows the Lean convention ``h…`` (``hf : Continuous f``); instance binders ``[..]``
and type binders (``E : Type``) are neither data nor hypotheses. Everything else is *data*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .index import split_top
from .tokens import Token

QUANTIFIERS = {"∀": "∀", "∃": "∃", "∃!": "∃", "Π": "∀"}
_BINDER_STARTS = set(QUANTIFIERS) | {"fun", "λ", "Σ"}
RELATIONS = ("=", "≠", "≤", "<", "≥", ">", "!=", "<=", ">=")
# `→` is not among them: `Fin T → ℝ` is a function type (a hypothesis `P → Q` shows a relation anyway)
_PROP_MARKS = set(RELATIONS) | {"∈", "∉", "∧", "∨", "¬", "↔", "∣", "⊆", "⊂", "∀", "∃", "True", "False"}
_CLOSE = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "⟨": "⟩"}


@dataclass
class Binder:
    name: str
    type: list[Token] = field(default_factory=list)
    role: str = "data"  # data | hypothesis | instance | type
    line: int = 0

    @property
    def type_text(self) -> str:
        return text(self.type)


@dataclass
class Node:
    kind: str  # quant | imp | and | atom
    tokens: list[Token] = field(default_factory=list)
    quantifier: str = ""  # ∀ or ∃ (quant)
    binders: list[Binder] = field(default_factory=list)  # quant
    guards: list["Node"] = field(default_factory=list)  # binder predicates: ∃ C > 0 / ∀ x ∈ s
    children: list["Node"] = field(default_factory=list)  # quant: [body]; imp: antecedents + [conclusion]; and

    @property
    def line(self) -> int:
        return self.tokens[0].line if self.tokens else 0


def text(tokens: list[Token]) -> str:
    return " ".join(t.text for t in tokens)


def _strip_parens(tokens: list[Token]) -> list[Token]:
    while len(tokens) >= 2 and tokens[0].text == "(" and tokens[-1].text == ")" and _matching(tokens, 0) == len(tokens) - 1:
        tokens = tokens[1:-1]
    return tokens


def _matching(tokens: list[Token], i: int) -> int:
    """Index of the bracket closing tokens[i]."""
    opener, closer, depth = tokens[i].text, _CLOSE[tokens[i].text], 0
    for k in range(i, len(tokens)):
        if tokens[k].text == opener:
            depth += 1
        elif tokens[k].text == closer:
            depth -= 1
            if depth == 0:
                return k
    return len(tokens) - 1


_HYPOTHESIS_NAME = re.compile(r"^h([^a-z].*|[a-z]{1,2}[0-9'₀-₉]*)?$")  # h, hx, hε, hL, h0, hxy
_DATA_TYPES = {"ℝ", "ℕ", "ℤ", "ℚ", "ℂ", "Fin", "Matrix", "EuclideanSpace", "Quaternion", "Real", "Nat", "Int"}


def _role(name: str, type_tokens: list[Token], bracket: str) -> str:
    if bracket == "[":
        return "instance"
    if {t.text for t in type_tokens} & _PROP_MARKS:
        return "hypothesis"
    if type_tokens and type_tokens[0].text in ("Type", "Sort", "Type*", "Prop"):
        return "type"
    if _HYPOTHESIS_NAME.match(name) and not (type_tokens and type_tokens[0].text in _DATA_TYPES):
        return "hypothesis"
    return "data"


def parse_binder_groups(tokens: list[Token]) -> tuple[list[Binder], list[Node]]:
    """Binders of ``(a b : T) {x} [inst] y z : T`` / ``x ∈ s`` / ``C > 0``, and binder predicates as guards."""
    binders: list[Binder] = []
    guards: list[Node] = []
    i = 0
    bare: list[Token] = []
    while i < len(tokens):
        t = tokens[i]
        if t.text in ("(", "{", "⦃", "[") :
            j = _matching(tokens, i)
            inner = tokens[i + 1:j]
            colon = split_top(inner, {":"})
            if t.text == "[":
                name = inner[0].text if colon and colon[0][0] == 1 else ""
                binders.append(Binder(name, inner[colon[0][0] + 1:] if colon else inner, "instance", t.line))
            elif colon:
                names, typ = inner[:colon[0][0]], inner[colon[0][0] + 1:]
                for n in names:
                    if n.kind == "ident" or n.text == "_":
                        binders.append(Binder(n.text, typ, _role(n.text, typ, t.text), n.line))
            else:
                for n in inner:
                    if n.kind == "ident":
                        binders.append(Binder(n.text, [], _role(n.text, [], t.text), n.line))
            i = j + 1
        elif t.kind == "ident" or t.text == "_":
            bare.append(t)
            i += 1
        elif t.text == ":":
            typ = tokens[i + 1:]
            binders.extend(Binder(n.text, typ, _role(n.text, typ, ""), n.line) for n in bare)
            return binders, guards
        elif t.text in ("∈", "∉", "⊆", ">", "<", "≥", "≤", "≠") and bare:
            binders.extend(Binder(n.text, [], "data", n.line) for n in bare)
            guards.extend(Node("atom", [n, *tokens[i:]]) for n in bare)
            return binders, guards
        else:
            i += 1
    binders.extend(Binder(n.text, [], "data", n.line) for n in bare)
    return binders, guards


def parse_prop(tokens: list[Token]) -> Node:
    """The skeleton of a proposition: quantifiers, implications, conjunctions, atoms."""
    tokens = _strip_parens(tokens)
    if not tokens:
        return Node("atom", tokens)
    if tokens[0].text in QUANTIFIERS:
        comma = split_top(tokens[1:], {","})
        if comma:
            k = comma[0][0] + 1
            binders, guards = parse_binder_groups(tokens[1:k])
            return Node("quant", tokens, QUANTIFIERS[tokens[0].text], binders, guards, [parse_prop(tokens[k + 1:])])
    for sep, kind in (("→", "imp"), ("∧", "and")):
        parts = _split_before_binder(tokens, sep)
        if len(parts) > 1:
            return Node(kind, tokens, children=[parse_prop(p) for p in parts])
    return Node("atom", tokens)


def _split_before_binder(tokens: list[Token], sep: str) -> list[list[Token]]:
    """Split at top-level ``sep`` until the first top-level binder, whose body runs to the end."""
    stop = next((i for i, t in split_top(tokens, _BINDER_STARTS)), len(tokens))
    cuts = [i for i, _ in split_top(tokens[:stop], {sep})]
    if not cuts:
        return [tokens]
    edges = [-1, *cuts, len(tokens)]
    return [tokens[a + 1:b] for a, b in zip(edges, edges[1:])]


def declaration_prop(params: list[Token], prop: list[Token]) -> Node:
    """A declaration's parameters as an outer ∀ around its proposition."""
    inner = parse_prop(prop)
    if not params:
        return inner
    binders, guards = parse_binder_groups(params)
    return Node("quant", params + prop, "∀", binders, guards, [inner])


# ---------------------------------------------------------------------------------------- walks
@dataclass
class ExistsSite:
    """An ∃-bound variable and the data bound by ∀ before it (what it may depend on)."""

    binder: Binder
    before: list[Binder]
    bounds_something: bool  # it appears in an inequality of its scope (a constant of a bound)


def exists_sites(node: Node, expand=None, _outer: list[Binder] | None = None, _depth: int = 0) -> list[ExistsSite]:
    """Every ∃ in a positive position, with the data quantified (∀) before it. ``expand(atom)`` may return
    the Node of a helper definition an atom names, to look through it (depth-limited)."""
    outer = list(_outer or [])
    out: list[ExistsSite] = []
    if node.kind == "quant":
        for b in node.binders:
            if node.quantifier == "∃":
                out.append(ExistsSite(b, list(outer), _in_inequality(b.name, node, expand)))
            elif b.role == "data":
                outer.append(b)
        for child in node.children:
            out.extend(exists_sites(child, expand, outer, _depth))
    elif node.kind == "imp":
        out.extend(exists_sites(node.children[-1], expand, outer, _depth))
    elif node.kind == "and":
        for child in node.children:
            out.extend(exists_sites(child, expand, outer, _depth))
    elif expand is not None and _depth < 3:
        inner = expand(node)
        if inner is not None:
            out.extend(exists_sites(inner, expand, outer, _depth + 1))
    return out


def _in_inequality(name: str, node: Node, expand=None) -> bool:
    """Does ``name`` occur in the scope ``node`` that states an inequality (also through helper definitions)?"""
    rel = {"≤", "<", "≥", ">", "<=", ">="}
    toks = list(node.tokens)
    if expand is not None:
        for atom in _atoms(node):
            inner = expand(atom)
            toks.extend(inner.tokens if inner is not None else [])
    return any(t.text == name for t in node.tokens) and any(t.text in rel for t in toks)


def _atoms(node: Node) -> list[Node]:
    if node.kind == "atom":
        return [node]
    return [a for child in node.children for a in _atoms(child)]


def binders_of(node: Node, expand=None, _depth: int = 0, universal_only: bool = False) -> list[Binder]:
    """All binders of the positive positions (the statement's variables and named hypotheses);
    ``expand(atom)`` may return the Node of a helper definition an atom names, to look through it.
    ``universal_only``: the ∀-bound ones (an ∃-bound proof ``∃ h : a = b, ..`` is a conclusion)."""
    out: list[Binder] = []
    if node.kind == "quant" and not (universal_only and node.quantifier == "∃"):
        out.extend(node.binders)
    if node.kind in ("quant", "and"):
        for child in node.children:
            out.extend(binders_of(child, expand, _depth, universal_only))
    elif node.kind == "imp":
        out.extend(binders_of(node.children[-1], expand, _depth, universal_only))
    elif node.kind == "atom" and expand is not None and _depth < 3:
        inner = expand(node)
        if inner is not None:
            out.extend(binders_of(inner, expand, _depth + 1, universal_only))
    return out


def hypotheses_of(node: Node, expand=None, _depth: int = 0, cases: bool = True) -> list[Node]:
    """Every hypothesis the statement makes, as propositions: hypothesis binders' types, antecedents of
    implications, binder predicates; conjunctions split (through helper definitions with ``expand``).
    ``cases=False`` leaves out the antecedents inside a conjunct of the conclusion (``(P → A) ∧ (¬P → B)``:
    cases of the conclusion, not assumptions on every input)."""
    out: list[Node] = []
    if node.kind == "quant":
        if node.quantifier == "∀":
            out.extend(node.guards)
            out.extend(parse_prop(b.type) for b in node.binders if b.role == "hypothesis" and b.type)
        for child in node.children:
            out.extend(hypotheses_of(child, expand, _depth, cases))
    elif node.kind == "imp":
        out.extend(node.children[:-1])
        out.extend(hypotheses_of(node.children[-1], expand, _depth, cases))
    elif node.kind == "and" and cases:
        for child in node.children:
            out.extend(hypotheses_of(child, expand, _depth, cases))
    elif node.kind == "atom" and expand is not None and _depth < 3:
        inner = expand(node)
        if inner is not None:
            out.extend(hypotheses_of(inner, expand, _depth + 1, cases))
    flat: list[Node] = []
    for h in out:
        flat.extend(h.children if h.kind == "and" else [h])
    return flat
