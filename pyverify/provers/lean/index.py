"""The index of a Lean development: every declaration, its qualified name, place, kind and sorry status.

A Lean 4 file is read as a sequence of commands (``commands.command_starts``). Names are qualified
through ``namespace``/``section``/``mutual`` ... ``end``: ``namespace A.B`` opens two namespaces, ``end A.B``
closes both, ``end B`` only the inner one; scopes left open at the end of a file are closed there, as
Lean closes them; ``_root_.x`` escapes the namespace. A declaration runs from its first attribute or
modifier to the next command. Its *statement* is what stands between the name and the top-level ``:=``
(for a theorem: its type, with its binders), its *body* what follows. ``sorry``/``admit`` count only as
tokens, so never inside comments, strings or docstrings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .commands import DECL_KINDS, OPEN_BRACKETS, command_starts, first_on_line, skip_brackets, skip_modifiers
from .tokens import LeanSyntaxError, Token, doc_text, tokenize

SORRY_TOKENS = ("sorry", "admit")
_CLOSE_BRACKETS = (")", "]", "}", "⟩", "⦄")


@dataclass
class Declaration:
    name: str
    file: str
    line: int
    kind: str
    sorry: bool  # the declaration's own text uses sorry/admit
    only_sorry: bool  # its body is nothing but sorry (a statement without proof)
    axiom: bool
    doc: str | None = None  # the doc comment just before it
    end_line: int = 0
    statement: list[Token] = field(default_factory=list, repr=False)  # binders and type, before `:=`
    body: list[Token] = field(default_factory=list, repr=False)  # after the top-level `:=` (or `where`/`|`)
    params: list[Token] = field(default_factory=list, repr=False)  # binders before the type's colon
    namespace: str = ""  # the namespace it was declared in (where its short names resolve)
    module: str = ""  # Lean module name: the file's path under the source root, dotted

    def as_dict(self) -> dict:
        return {"name": self.name, "file": self.file, "line": self.line, "kind": self.kind, "sorry": self.sorry,
                "only_sorry": self.only_sorry, "axiom": self.axiom}

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1]


def split_top(tokens: list[Token], separators: set[str]) -> list[tuple[int, Token]]:
    """The positions of separator tokens at bracket depth 0."""
    depth, out = 0, []
    for i, t in enumerate(tokens):
        if t.kind == "symbol" and t.text in OPEN_BRACKETS:
            depth += 1
        elif t.kind == "symbol" and t.text in _CLOSE_BRACKETS:
            depth = max(0, depth - 1)
        elif depth == 0 and t.text in separators and t.kind in ("symbol", "ident"):
            out.append((i, t))
    return out


def _statement_and_body(rest: list[Token], kind: str) -> tuple[list[Token], list[Token], list[Token]]:
    """(params, type, body) of the tokens after a declaration's name. The body starts at the top-level
    ``:=``, ``where``, or a ``|`` that opens its line (an equation: ``|x|`` in a type is not one)."""
    if kind in ("structure", "class", "inductive"):
        cut = split_top(rest, {":=", "where"}) or split_top(rest, {"|"})
    else:
        cut = [(k, t) for k, t in split_top(rest, {":=", "where", "|"}) if t.text != "|" or first_on_line(rest, k)]
    head, body = (rest[:cut[0][0]], rest[cut[0][0] + 1:]) if cut else (rest, [])
    colon = split_top(head, {":"})
    params, stmt = (head[:colon[0][0]], head[colon[0][0] + 1:]) if colon else (head, [])
    return params, stmt, body


def _is_only_sorry(body: list[Token]) -> bool:
    texts = [t.text for t in body]
    return texts in (["sorry"], ["by", "sorry"], ["by", "admit"], ["(", "sorry", ")"])


def _scope_name(tokens: list[Token], j: int, end: int) -> str:
    """The name after a scope keyword at j, when it stands on the keyword's line."""
    nxt = tokens[j + 1] if j + 1 < end and tokens[j + 1].line == tokens[j].line else None
    return nxt.text if nxt is not None and nxt.kind == "ident" else ""


def index_text(text: str, file: str) -> list[Declaration]:
    """The declarations of one Lean file's text (``file`` is only recorded). Scopes still open at the end
    of the text are closed there, as Lean does."""
    tokens = tokenize(text)
    scopes: list[tuple[str, str]] = []  # (kind, name) of namespace/section/mutual, one per name component
    decls: list[Declaration] = []
    starts = command_starts(tokens) + [len(tokens)]
    for i, end in zip(starts, starts[1:]):
        j = skip_modifiers(tokens, i)
        if j >= end:
            continue
        word = tokens[j].text
        if word in ("namespace", "section"):
            name = _scope_name(tokens, j, end)
            scopes.extend((word, part) for part in (name.split(".") if name else [""]))
        elif word == "mutual":
            scopes.append((word, ""))
        elif word == "end":
            _close(scopes, _scope_name(tokens, j, end), tokens[j].line)
        elif word in DECL_KINDS:
            decl = _declaration(tokens, i, j, end, scopes, file)
            if decl is not None:
                decls.append(decl)
    return decls


def _declaration(tokens: list[Token], i: int, j: int, end: int, scopes: list[tuple[str, str]],
                 file: str) -> Declaration | None:
    """The declaration whose command runs over tokens[i:end], with its keyword at j."""
    kind = tokens[j].text
    if kind == "class" and j + 1 < end and tokens[j + 1].text in ("inductive", "abbrev"):
        j += 1
    namespace = ".".join(n for k, n in scopes if k == "namespace" and n)
    k = j + 1
    if kind == "instance" and k + 1 < end and tokens[k].text == "(" and tokens[k + 1].text == "priority":
        k = skip_brackets(tokens, k)  # instance (priority := low) name : ...
    named = k < end and tokens[k].kind == "ident" and kind != "example"
    if named:
        short, rest = tokens[k].text, tokens[k + 1:end]
    elif kind in ("example", "instance"):
        short, rest = f"_{kind}_L{tokens[j].line}", tokens[k:end]
    else:
        return None
    if short.startswith("_root_."):
        qualified = short[len("_root_."):]
    else:
        qualified = f"{namespace}.{short}" if namespace else short
    rest = [t for t in rest if t.kind != "doc"]  # the next declaration's docstring is not part of this one
    params, stmt, body = _statement_and_body(rest, kind)
    before = tokens[i - 1] if i > 0 else None
    doc = doc_text(before) if before is not None and before.kind == "doc" and before.text.startswith("/--") else None
    return Declaration(
        name=qualified, file=file, line=tokens[i].line, kind=kind,
        sorry=any(x.kind == "ident" and x.text in SORRY_TOKENS for x in tokens[j:end]),
        only_sorry=_is_only_sorry(body), axiom=kind == "axiom", doc=doc, end_line=(rest or tokens[j:j + 1])[-1].line,
        statement=stmt, body=body, params=params, namespace=namespace)


def _close(scopes: list[tuple[str, str]], name: str, line: int) -> None:
    """``end`` / ``end A.B``: close the innermost scope, or as many scopes as the name has components."""
    parts = name.split(".") if name else [""]
    if len(scopes) < len(parts):
        raise LeanSyntaxError(f"`{f'end {name}'.strip()}` without an open namespace or section", line)
    top = scopes[len(scopes) - len(parts):]
    if name and [n for _, n in top] != parts:
        shown = ".".join(n or "(anonymous)" for _, n in top)
        raise LeanSyntaxError(f"`end {name}` closes {top[-1][0]} {shown}", line)
    if not name and top[-1][0] == "namespace":
        raise LeanSyntaxError(f"`end` without a name closes namespace {top[-1][1]}", line)
    del scopes[len(scopes) - len(parts):]


@dataclass
class LeanIndex:
    declarations: list[Declaration]
    errors: list[str]  # files that could not be read: "file:line: message"
    root: Path | None = None

    def by_name(self) -> dict[str, Declaration]:
        return {d.name: d for d in self.declarations}

    def resolve(self, name: str, namespace: str = "") -> Declaration | None:
        """The declaration ``name`` refers to from inside ``namespace`` (Lean looks in enclosing namespaces)."""
        table = self.by_name()
        parts = namespace.split(".") if namespace else []
        for k in range(len(parts), -1, -1):
            candidate = ".".join(parts[:k] + [name])
            if candidate in table:
                return table[candidate]
        return None


def index(root: Path, shown_relative_to: Path | None = None) -> LeanIndex:
    """Every declaration of the ``.lean`` files under ``root`` (a folder or one file). Hidden folders
(``.lake/`` with the dependencies' sources, ``.git/``) belong to no project's own sources and are skipped."""
    if root.is_file():
        files = [root]
    else:
        files = sorted(p for p in root.rglob("*.lean") if not any(
            part.startswith(".") for part in p.relative_to(root).parts[:-1])) if root.exists() else []
    decls: list[Declaration] = []
    errors: list[str] = []
    for path in files:
        shown = str(path.relative_to(shown_relative_to)) if shown_relative_to and path.is_relative_to(
            shown_relative_to) else str(path)
        module = ".".join(path.relative_to(root).with_suffix("").parts) if root.is_dir() else path.stem
        try:
            found = index_text(path.read_text(encoding="utf-8"), shown)
            for d in found:
                d.module = module
            decls.extend(found)
        except (OSError, UnicodeDecodeError) as exc:
            errors.append(f"{shown}:0: cannot read: {exc}")
        except LeanSyntaxError as exc:
            errors.append(f"{shown}:{exc.line}: {str(exc).split(': ', 1)[1]}")
    return LeanIndex(decls, errors, root)
