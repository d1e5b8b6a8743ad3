"""Lean hypotheses over real data, translated into SymPy relations (for ``decide``).

What translates: data of type ``ℝ``, ``Fin n → ℝ``, ``ι → ℝ`` (``ι`` a type variable) and
``EuclideanSpace ℝ (Fin n)``, each coordinate a real SymPy symbol; sizes that are variables (``n``,
``ι``) are instantiated (``decide`` tries several). Terms: numerals, ``+ - * / ^ •``, application
``x i``, ``|a|``, ``‖v‖`` (the sup norm on ``Fin n → ℝ``, as Mathlib's, the Euclidean norm on
``EuclideanSpace``), ``∑ i, f i`` (over the whole index type; the body at Mathlib's precedence 67),
``inner``/``⟪x, y⟫_ℝ``/``⬝ᵥ``, ``Real.sqrt``/``√``, ``abs``, ``max``, ``min``. Propositions: one relation
``= ≠ ≤ < ≥ >`` (between vectors: ``=`` and ``≤`` coordinatewise), ``¬ (a = b)``, and ``∀ i, P i`` over
an index type (expanded). Anything else raises ``Untranslatable`` with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy

from .binders import Binder, Node, text
from .index import split_top
from .tokens import Token


class Untranslatable(ValueError):
    """A term or hypothesis outside the translatable fragment (the message says what)."""


@dataclass(frozen=True)
class Space:
    size: int | None  # None: a scalar; else the number of coordinates
    norm: str  # abs | sup | euclid
    index: str = ""  # the index type's name (`Fin n` -> "Fin n"), for ∀ i binders


@dataclass
class Vec:
    coords: list[sympy.Expr]
    space: Space


Value = sympy.Expr | Vec
REAL = {"ℝ", "Real"}
RELATION = {"=": "==", "≠": "!=", "≤": "<=", "<": "<", "≥": ">=", ">": ">", "<=": "<=", ">=": ">=", "!=": "!="}
_BINARY = {"+": (65, "l"), "-": (65, "l"), "*": (70, "l"), "/": (70, "l"), "•": (73, "r"), "^": (75, "r"),
           "⬝": (72, "l")}
_APP = 1024
_FUNCTIONS = {"Real.sqrt": 1, "√": 1, "abs": 1, "max": 2, "min": 2, "inner": 2, "dotProduct": 2, "Matrix.dotProduct": 2}
_NUMBER = re.compile(r"^\d+(\.\d+)?$")


def data_space(binder: Binder, sizes: dict[str, int], type_names: set[str]) -> Space | None:
    """How a data binder is represented, or None when its type is outside the fragment."""
    t = [tok.text for tok in binder.type]
    if t in (["ℝ"], ["Real"]):
        return Space(None, "abs")
    if len(t) == 4 and t[0] == "Fin" and t[2] == "→" and t[3] in REAL:
        n = _size(t[1], sizes)
        return Space(n, "sup", f"Fin {t[1]}") if n is not None else None
    if len(t) == 3 and t[1] == "→" and t[2] in REAL and t[0] in type_names:
        return Space(sizes.get(t[0]), "sup", t[0]) if t[0] in sizes else None
    if t[:2] == ["EuclideanSpace", "ℝ"] and t[2:4] == ["(", "Fin"] and len(t) == 6 and t[5] == ")":
        n = _size(t[4], sizes)
        return Space(n, "euclid", f"Fin {t[4]}") if n is not None else None
    return None


def size_variables(binder: Binder) -> list[str]:
    """The size variables a data type names (`Fin n → ℝ`: n; `ι → ℝ`: ι)."""
    t = [tok.text for tok in binder.type]
    if len(t) == 4 and t[0] == "Fin" and t[2:] == ["→", t[3]] and t[3] in REAL and _is_name(t[1]):
        return [t[1]]
    if t[:4] == ["EuclideanSpace", "ℝ", "(", "Fin"] and len(t) == 6 and t[5] == ")" and _is_name(t[4]):
        return [t[4]]
    if len(t) == 3 and t[1] == "→" and t[2] in REAL and t[0] not in REAL and _is_name(t[0]):
        return [t[0]]
    return []


def _is_name(word: str) -> bool:
    return word[:1].isalpha() and not _NUMBER.match(word)


def _size(word: str, sizes: dict[str, int]) -> int | None:
    return int(word) if _NUMBER.match(word) else sizes.get(word)


class Translator:
    """Translates the hypotheses of one statement, for one choice of the variable sizes."""

    def __init__(self, data: dict[str, Value]):
        self.data = data

    # ---------------------------------------------------------------- propositions
    def proposition(self, node: Node, index: dict[str, int] | None = None) -> list[tuple[sympy.Expr, str]]:
        """``[(e, op)]`` meaning ``e op 0`` (op one of == != <= <), for a hypothesis node."""
        index = dict(index or {})
        if node.kind == "and":
            return [r for child in node.children for r in self.proposition(child, index)]
        if node.kind == "quant" and node.quantifier == "∀" and not node.guards:
            return self._forall(node, index)
        if node.kind != "atom":
            raise Untranslatable(f"`{text(node.tokens)}` is not a relation or a ∀ over an index")
        return self.relation(node.tokens, index)

    def _forall(self, node: Node, index: dict[str, int]) -> list[tuple[sympy.Expr, str]]:
        ranges = []
        for b in node.binders:
            n = self._index_range(b, node.children[0].tokens)
            ranges.append((b.name, n))
        out: list[tuple[sympy.Expr, str]] = []

        def expand(k: int, env: dict[str, int]) -> None:
            if k == len(ranges):
                out.extend(self.proposition(node.children[0], env))
                return
            name, n = ranges[k]
            for v in range(n):
                expand(k + 1, {**env, name: v})
        expand(0, index)
        return out

    def _index_range(self, binder: Binder, body: list[Token]) -> int:
        """How many values an index binder takes: from its type (`Fin 3`, the index type of a datum) or,
        untyped, from the data it indexes in the body."""
        t = binder.type_text
        spaces = {v.space.index: v.space.size for v in self.data.values() if isinstance(v, Vec)}
        if t:
            if t in spaces:
                return spaces[t]
            m = re.fullmatch(r"Fin (\d+)", t)
            if m:
                return int(m.group(1))
            raise Untranslatable(f"∀ {binder.name} : {t} ranges over a type that is not an index of the data")
        used = {len(v.coords) for k, tok in enumerate(body[:-1]) if body[k + 1].text == binder.name
                and (v := self.data.get(tok.text)) is not None and isinstance(v, Vec)}
        if len(used) != 1:
            raise Untranslatable(f"cannot tell what ∀ {binder.name} ranges over")
        return used.pop()

    def relation(self, tokens: list[Token], index: dict[str, int]) -> list[tuple[sympy.Expr, str]]:
        if tokens and tokens[0].text == "¬":
            inner = [(e, op) for e, op in self.relation(_unwrap(tokens[1:]), index)]
            if len(inner) == 1 and inner[0][1] == "==":
                return [(inner[0][0], "!=")]
            raise Untranslatable(f"`{text(tokens)}`: only a negated equation translates")
        cuts = [(k, t) for k, t in split_top(tokens, set(RELATION)) if t.kind == "symbol"]
        if len(cuts) != 1:
            raise Untranslatable(f"`{text(tokens)}` is not one relation")
        k, rel = cuts[0]
        op = RELATION[rel.text]
        lhs, rhs = self.term(tokens[:k], index), self.term(tokens[k + 1:], index)
        if op in (">=", ">"):
            lhs, rhs, op = rhs, lhs, {">=": "<=", ">": "<"}[op]
        if isinstance(lhs, Vec) or isinstance(rhs, Vec):
            pairs = _coordinates(lhs, rhs)
            if op == "==":
                return [(a - b, "==") for a, b in pairs]
            if op == "<=":
                return [(a - b, "<=") for a, b in pairs]
            raise Untranslatable(f"`{text(tokens)}`: {rel.text} between vectors is not coordinatewise")
        return [(lhs - rhs, op)]

    # ---------------------------------------------------------------- terms
    def term(self, tokens: list[Token], index: dict[str, int]) -> Value:
        parser = _TermParser(tokens, self, index)
        value = parser.parse(0)
        if parser.pos != len(tokens):
            raise Untranslatable(f"`{text(tokens)}`: cannot read from `{tokens[parser.pos].text}` on")
        return value


def _unwrap(tokens: list[Token]) -> list[Token]:
    """``(a = b)`` -> ``a = b`` (only when the outer parentheses match each other)."""
    while len(tokens) >= 2 and tokens[0].text == "(" and tokens[-1].text == ")":
        depth = 0
        for k, t in enumerate(tokens):
            depth += (t.text == "(") - (t.text == ")")
            if depth == 0 and k < len(tokens) - 1:
                return tokens
        tokens = tokens[1:-1]
    return tokens


def _coordinates(a: Value, b: Value) -> list[tuple[sympy.Expr, sympy.Expr]]:
    if isinstance(a, Vec) and isinstance(b, Vec):
        if len(a.coords) != len(b.coords):
            raise Untranslatable("vectors of different sizes")
        return list(zip(a.coords, b.coords))
    if isinstance(a, Vec):
        return [(c, b) for c in a.coords]  # `x = 0`: the scalar is the constant vector
    return [(a, c) for c in b.coords]


def _add(a: Value, b: Value, sign: int) -> Value:
    if isinstance(a, Vec) or isinstance(b, Vec):
        space = a.space if isinstance(a, Vec) else b.space
        return Vec([x + sign * y for x, y in _coordinates(a, b)], space)
    return a + sign * b


def _scale(c: Value, v: Value) -> Value:
    if isinstance(c, Vec):
        raise Untranslatable("a vector cannot scale")
    return Vec([c * x for x in v.coords], v.space) if isinstance(v, Vec) else c * v


def _norm(v: Value) -> sympy.Expr:
    if not isinstance(v, Vec):
        return sympy.Abs(v)
    if v.space.norm == "euclid":
        return sympy.sqrt(sum((x ** 2 for x in v.coords), sympy.Integer(0)))
    return sympy.Max(*[sympy.Abs(x) for x in v.coords]) if v.coords else sympy.Integer(0)


def _dot(a: Value, b: Value) -> sympy.Expr:
    if not (isinstance(a, Vec) and isinstance(b, Vec)):
        raise Untranslatable("an inner product needs two vectors")
    return sum((x * y for x, y in _coordinates(a, b)), sympy.Integer(0))


class _TermParser:
    """A precedence parser for the term fragment (Lean's levels: + 65, * 70, • 73, ^ 75, - 75, ⬝ᵥ 72)."""

    def __init__(self, tokens: list[Token], tr: Translator, index: dict[str, int]):
        self.tokens, self.tr, self.index, self.pos = tokens, tr, index, 0
        self.closers: list[str] = []  # | or ‖ of the enclosing absolute values / norms

    def peek(self, k: int = 0) -> Token | None:
        i = self.pos + k
        return self.tokens[i] if i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> Token:
        t = self.peek()
        if t is None or expected is not None and t.text != expected:
            raise Untranslatable(f"expected `{expected}`" if expected else "the term ends too early")
        self.pos += 1
        return t

    def parse(self, level: int) -> Value:
        left = self.prefix()
        while True:
            t = self.peek()
            if t is None or t.text in self.closers:
                return left
            if t.text in _BINARY and t.kind == "symbol":
                lvl, assoc = _BINARY[t.text]
                if lvl < level:
                    return left
                self.take()
                if t.text == "⬝":
                    self.take("ᵥ")
                right = self.parse(lvl if assoc == "r" else lvl + 1)
                left = self._binary(t.text, left, right)
            elif self._starts_argument() and isinstance(left, Vec) and level <= _APP:
                left = self._apply(left, self.argument())
            else:
                return left

    def _starts_argument(self) -> bool:
        t = self.peek()
        if t is None:
            return False
        if t.text == "|":  # `f |x|` would be an argument; a closing bar is not
            return "|" not in self.closers
        return t.kind in ("ident", "number") or t.text in ("(", "‖")

    def argument(self) -> Value:
        t = self.peek()
        if t is not None and t.kind == "ident" and t.text in self.index:
            self.take()
            return sympy.Integer(self.index[t.text])
        return self.atom()

    def _binary(self, op: str, a: Value, b: Value) -> Value:
        if op in ("+", "-"):
            return _add(a, b, 1 if op == "+" else -1)
        if op == "⬝":
            return _dot(a, b)
        if op == "•":
            return _scale(a, b)
        if op == "*" and isinstance(a, Vec) and isinstance(b, Vec):  # Pi.mul: coordinatewise
            return Vec([x * y for x, y in _coordinates(a, b)], a.space)
        if isinstance(a, Vec) or isinstance(b, Vec):
            raise Untranslatable(f"`{op}` between a vector and a scalar")
        if op == "*":
            return a * b
        if op == "/":
            if not b.is_number or b == 0:
                raise Untranslatable("division by a term that is not a nonzero constant")
            return a / b
        if not (b.is_Integer and 0 <= b <= 8):
            raise Untranslatable("a power that is not a small natural number")
        return a ** b

    def _apply(self, f: Vec, arg: Value) -> Value:
        if isinstance(arg, Vec) or not arg.is_Integer or not 0 <= int(arg) < len(f.coords):
            raise Untranslatable("a vector applied to something that is not one of its indices")
        return f.coords[int(arg)]

    def prefix(self) -> Value:
        t = self.peek()
        if t is None:
            raise Untranslatable("the term ends too early")
        if t.text == "-":
            self.take()
            return _scale(sympy.Integer(-1), self.parse(75))
        if t.text == "∑":
            return self._sum()
        if t.text in ("√", "Real.sqrt", "abs", "max", "min", "inner", "dotProduct", "Matrix.dotProduct"):
            return self._function()
        return self.atom()

    def atom(self) -> Value:
        t = self.take()
        if t.kind == "number":
            if not _NUMBER.match(t.text):
                raise Untranslatable(f"the literal {t.text}")
            return sympy.Rational(t.text)
        if t.kind == "ident":
            if t.text in self.index:
                return sympy.Integer(self.index[t.text])
            if t.text in self.tr.data:
                return self.tr.data[t.text]
            raise Untranslatable(f"`{t.text}` is not real data of the statement")
        if t.text in ("|", "‖"):
            self.closers.append(t.text)
            inner = self.parse(0)
            self.closers.pop()
            self.take(t.text)
            return sympy.Abs(inner) if t.text == "|" and not isinstance(inner, Vec) else _norm(inner)
        if t.text == "(":
            inner = self.parse(0)
            if self.peek() is not None and self.peek().text == ":":  # (0 : ℝ): a type ascription
                self.take()
                while self.peek() is not None and self.peek().text != ")":
                    self.take()
            self.take(")")
            return inner
        if t.text == "⟪":
            a = self.parse(0)
            self.take(",")
            b = self.parse(0)
            self.take("⟫")
            if self.peek() is not None and self.peek().text in ("_ℝ",):
                self.take()
            return _dot(a, b)
        raise Untranslatable(f"`{t.text}`")

    def _function(self) -> Value:
        name = self.take().text
        if name in ("inner",) and self.peek() is not None and self.peek().text in REAL:
            self.take()  # inner ℝ x y (the field made explicit)
        args = [self.argument() for _ in range(_FUNCTIONS[name])]
        if name in ("√", "Real.sqrt"):
            a = args[0]
            if isinstance(a, Vec) or not a.is_nonnegative:
                raise Untranslatable("Real.sqrt of a term not known to be ≥ 0 (Lean's sqrt is 0 below 0)")
            return sympy.sqrt(a)
        if name == "abs":
            return _norm(args[0]) if not isinstance(args[0], Vec) else _abs_vec(args[0])
        if name in ("max", "min"):
            if any(isinstance(a, Vec) for a in args):
                raise Untranslatable(f"{name} of vectors")
            return (sympy.Max if name == "max" else sympy.Min)(*args)
        return _dot(*args)

    def _sum(self) -> Value:
        self.take("∑")
        names: list[str] = []
        typ: list[Token] = []
        while self.peek() is not None and self.peek().kind == "ident":
            names.append(self.take().text)
        if self.peek() is not None and self.peek().text == ":":
            self.take()
            while self.peek() is not None and self.peek().text != ",":
                typ.append(self.take())
        if self.peek() is not None and self.peek().text == "∈":
            self.take()
            if self.take().text != "Finset.univ":
                raise Untranslatable("a sum over a Finset other than univ")
        self.take(",")
        if len(names) != 1:
            raise Untranslatable("a sum over several indices")
        start = self.pos
        size = self.tr._index_range(Binder(names[0], typ), self.tokens[start:])
        total: Value = sympy.Integer(0)
        for v in range(size):
            self.pos = start
            saved = self.index.get(names[0])
            self.index[names[0]] = v
            total = _add(total, self.parse(67), 1)
            if saved is None:
                self.index.pop(names[0])
            else:
                self.index[names[0]] = saved
        return total


def _abs_vec(v: Vec) -> Vec:
    return Vec([sympy.Abs(x) for x in v.coords], v.space)
