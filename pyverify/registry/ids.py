"""The id scheme of a document, as data: how its ids are ordered, what a tier is, which of its claims
should have a Lean statement.

A document may declare the form of its ids (``id_form``), a template of literal text and fields:

* ``{tier}`` — a number, optionally primed (``6'`` comes after ``6``, before ``7``);
* ``{number}`` — a number;
* ``{rest}`` — the rest of the id (last in the form);
* ``[...]`` — an optional part (``[bis]``, ``[.{rest}]``).

``C{tier}.{number}[bis]`` reads ``C6'.12bis`` as tier 6', number 12, with the ``bis``. Ids that have a
form sort by it (documents declaring one first, in their order; other ids after them, alphabetically);
``tier_order: true`` makes a dependency on a claim of a later tier a fault (a ``forward-dep`` finding);
``lean_statements: all | id-form`` says which claims with mathematical content should be stated in Lean.

The matcher reads a template left to right without backtracking (an optional part is taken when it
matches where it stands), so no template, however written, makes matching slow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_FORM = 64  # characters of a template: a form is a label, not a program
FIELDS = ("tier", "number", "rest")


class FormError(ValueError):
    pass


@dataclass(frozen=True)
class _Literal:
    text: str


@dataclass(frozen=True)
class _Field:
    name: str


@dataclass(frozen=True)
class _Optional:
    parts: tuple


def parse_form(form: str) -> tuple:
    """The template's parts; FormError naming what is wrong."""
    if not isinstance(form, str) or not form or len(form) > MAX_FORM:
        raise FormError(f"an id form is a template of at most {MAX_FORM} characters")
    parts, pos = _parse(form, 0, nested=False)
    if pos != len(form):
        raise FormError(f"id form {form!r}: unmatched ']' at column {pos + 1}")
    fields = fields_of(parts)
    if "rest" in fields and fields[-1] != "rest":
        raise FormError(f"id form {form!r}: {{rest}} must be the last field")
    if len(fields) != len(set(fields)):
        raise FormError(f"id form {form!r}: a field appears twice")
    return parts


def _parse(form: str, pos: int, nested: bool) -> tuple[tuple, int]:
    parts: list = []
    literal = ""
    while pos < len(form):
        ch = form[pos]
        if ch == "]":
            if not nested:
                return tuple(parts + ([_Literal(literal)] if literal else [])), pos
            break
        if ch == "[":
            if nested:
                raise FormError(f"id form {form!r}: optional parts do not nest")
            if literal:
                parts.append(_Literal(literal))
                literal = ""
            inner, pos = _parse(form, pos + 1, nested=True)
            if pos >= len(form) or form[pos] != "]" or not inner:
                raise FormError(f"id form {form!r}: an optional part [...] must close and hold something")
            parts.append(_Optional(inner))
            pos += 1
            continue
        if ch == "{":
            end = form.find("}", pos)
            name = form[pos + 1:end] if end > 0 else ""
            if name not in FIELDS:
                raise FormError(f"id form {form!r}: unknown field {{{name}}} (fields: {', '.join(FIELDS)})")
            if literal:
                parts.append(_Literal(literal))
                literal = ""
            parts.append(_Field(name))
            pos = end + 1
            continue
        if ch == "}":
            raise FormError(f"id form {form!r}: unmatched '}}' at column {pos + 1}")
        literal += ch
        pos += 1
    if literal:
        parts.append(_Literal(literal))
    return tuple(parts), pos


def fields_of(parts: tuple) -> list[str]:
    out = []
    for p in parts:
        if isinstance(p, _Field):
            out.append(p.name)
        elif isinstance(p, _Optional):
            out += fields_of(p.parts)
    return out


def _match(parts: tuple, text: str, pos: int, values: dict[str, Any]) -> int | None:
    """Position after ``parts`` matched at ``pos`` (field values into ``values``), or None."""
    for part in parts:
        if isinstance(part, _Literal):
            if not text.startswith(part.text, pos):
                return None
            pos += len(part.text)
        elif isinstance(part, _Field):
            if part.name == "rest":
                values["rest"] = text[pos:]
                pos = len(text)
                continue
            end = pos
            while end < len(text) and text[end].isdigit():
                end += 1
            if end == pos:
                return None
            number = int(text[pos:end])
            primes = 0
            if part.name == "tier":
                while end < len(text) and text[end] == "'":
                    primes, end = primes + 1, end + 1
                values["tier"] = (number, primes)
                values["tier_text"] = text[pos:end]
            else:
                values["number"] = number
            pos = end
        else:
            inner: dict[str, Any] = {}
            after = _match(part.parts, text, pos, inner)
            if after is not None:
                values.update(inner)
                values.setdefault("present", []).append(True)
                pos = after
            else:
                values.setdefault("present", []).append(False)
    return pos


@dataclass(frozen=True)
class IdForm:
    """A document's id form, parsed once."""

    form: str
    parts: tuple

    @classmethod
    def of(cls, form: str) -> "IdForm":
        return cls(form, parse_form(form))

    def read(self, claim_id: str) -> dict[str, Any] | None:
        """The fields of an id of this form (None: the id is not of this form)."""
        values: dict[str, Any] = {}
        end = _match(self.parts, claim_id, 0, values)
        return values if end == len(claim_id) else None

    def key(self, claim_id: str) -> tuple | None:
        """The id's place in the document's order: its fields in the form's order (an absent optional
        part sorts first; a literal-only optional part counts as present or not)."""
        values = self.read(claim_id)
        if values is None:
            return None
        out: list[Any] = []
        present = iter(values.get("present", []))
        self._key(self.parts, values, present, out, True)
        return tuple(out)

    def _key(self, parts: tuple, values: dict, present, out: list, here: bool) -> None:
        for part in parts:
            if isinstance(part, _Field):
                default = "" if part.name == "rest" else ((0, 0) if part.name == "tier" else 0)
                out.append(values.get(part.name, default) if here else default)
            elif isinstance(part, _Optional):
                taken = next(present, False) and here
                if not fields_of(part.parts):
                    out.append(1 if taken else 0)
                self._key(part.parts, values, present, out, taken)


class IdOrder:
    """The order of claim ids over a registry: each document's id form in document order, then the ids
    of no form alphabetically; and the tiers of the documents whose tiers are ordered."""

    def __init__(self, forms: list[tuple[IdForm, bool]]):
        self.forms = forms  # (form, tier_order), in document order

    def __call__(self, claim_id: str) -> tuple:
        for rank, (form, _) in enumerate(self.forms):
            key = form.key(claim_id)
            if key is not None:
                return (rank, *key)
        return (len(self.forms), claim_id)

    def tier(self, claim_id: str) -> tuple[tuple[int, int], str] | None:
        """(tier, its text) of an id of a tier-ordered form; None for other ids."""
        for form, ordered in self.forms:
            if not ordered:
                continue
            values = form.read(claim_id)
            if values is not None and "tier" in values:
                return values["tier"], values["tier_text"]
        return None
