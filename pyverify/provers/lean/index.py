"""The index of a Lean development: every declaration, its qualified name, place, kind and sorry status.

Names are qualified through ``namespace``/``section``/``mutual`` ... ``end`` (an ``end`` closes the
innermost scope; ``namespace A.B`` opens both parts); ``_root_.x`` escapes the namespace. A declaration
runs from its keyword to the next command (a declaration keyword or scope command anywhere, other
commands at column 0). Its *statement* is what stands between the name and the top-level ``:=`` (for a
theorem: its type, with its binders), its *body* what follows. ``sorry``/``admit`` count only as tokens,
so never inside comments, strings or docstrings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .tokens import LeanSyntaxError, Token, doc_text, tokenize

DECL_KINDS = ("theorem", "lemma", "def", "abbrev", "structure", "instance", "axiom", "inductive", "class",
              "opaque", "example")
MODIFIERS = {"private", "protected", "noncomputable", "partial", "unsafe", "nonrec", "scoped", "local"}
_SCOPE_COMMANDS = {"namespace", "section", "end", "mutual"}
# commands that end a declaration only at column 0 (they also occur inside proofs: `open Foo in`)
_COLUMN0_COMMANDS = {"open", "variable", "universe", "set_option", "attribute", "export", "import", "notation",
                     "infix", "infixl", "infixr", "prefix", "postfix", "macro", "syntax", "elab", "macro_rules",
                     "#check", "#eval", "#print", "#exit", "omit", "include", "initialize", "deriving"}
SORRY_TOKENS = ("sorry", "admit")
_OPEN = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄", "@[": "]", "%[": "]"}


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


def _command_starts(tokens: list[Token]) -> list[int]:
    """Where each command starts. Modifiers and ``@[..]`` before a declaration keyword start its command."""
    starts: list[int] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        leading = (t.kind == "ident" and t.text in MODIFIERS or t.text == "@[") and t.col == 0
        if leading:
            starts.append(i)
            i = _skip_modifiers(tokens, i)
            if i < len(tokens) and tokens[i].text in DECL_KINDS + ("section", "namespace"):
                i += 1  # the keyword belongs to the command that just started
            continue
        if t.kind == "ident" and (t.text in DECL_KINDS or t.text in _SCOPE_COMMANDS):
            if not (t.text == "instance" and i > 0 and tokens[i - 1].text == "deriving"):
                starts.append(i)
        elif t.col == 0 and t.text in _COLUMN0_COMMANDS:
            starts.append(i)
        i += 1
    return starts


def _skip_modifiers(tokens: list[Token], i: int) -> int:
    """The index of the first token after the modifiers and attribute lists starting at i."""
    while i < len(tokens):
        if tokens[i].text == "@[":
            depth = 0
            while i < len(tokens):
                depth += tokens[i].text in _OPEN
                depth -= tokens[i].text in ("]", ")", "}", "⟩", "⦄")
                i += 1
                if depth == 0:
                    break
        elif tokens[i].kind == "ident" and tokens[i].text in MODIFIERS:
            i += 1
        else:
            return i
    return i


def split_top(tokens: list[Token], separators: set[str]) -> list[tuple[int, Token]]:
    """The positions of separator tokens at bracket depth 0."""
    depth, out = 0, []
    for i, t in enumerate(tokens):
        if t.kind == "symbol" and t.text in _OPEN:
            depth += 1
        elif t.kind == "symbol" and t.text in (")", "]", "}", "⟩", "⦄"):
            depth = max(0, depth - 1)
        elif depth == 0 and t.text in separators and t.kind in ("symbol", "ident"):
            out.append((i, t))
    return out


def _statement_and_body(rest: list[Token], kind: str) -> tuple[list[Token], list[Token], list[Token]]:
    """(params, type, body) of the tokens after a declaration's name."""
    cut = split_top(rest, {":=", "where", "|"})
    if kind in ("structure", "class", "inductive"):
        cut = split_top(rest, {":=", "where"}) or split_top(rest, {"|"})
    head, body = (rest[:cut[0][0]], rest[cut[0][0] + 1:]) if cut else (rest, [])
    colon = split_top(head, {":"})
    params, stmt = (head[:colon[0][0]], head[colon[0][0] + 1:]) if colon else (head, [])
    return params, stmt, body


def _is_only_sorry(body: list[Token]) -> bool:
    texts = [t.text for t in body]
    return texts in (["sorry"], ["by", "sorry"], ["by", "admit"], ["(", "sorry", ")"])


def index_text(text: str, file: str) -> list[Declaration]:
    """The declarations of one Lean file's text (``file`` is only recorded)."""
    tokens = tokenize(text)
    scopes: list[tuple[str, str]] = []  # (kind, name) of namespace/section/mutual
    decls: list[Declaration] = []
    starts = _command_starts(tokens) + [len(tokens)]
    for i, end in zip(starts, starts[1:]):
        j = _skip_modifiers(tokens, i)
        if j >= end:
            continue
        word = tokens[j].text
        nxt = tokens[j + 1] if j + 1 < end and tokens[j + 1].line == tokens[j].line else None
        if word in ("namespace", "section", "mutual"):
            scopes.append((word, nxt.text if nxt is not None and nxt.kind == "ident" else ""))
        elif word == "end":
            _close(scopes, nxt.text if nxt is not None and nxt.kind == "ident" else "", tokens[j].line)
        elif word in DECL_KINDS:
            decl = _declaration(tokens, i, j, end, scopes, file)
            if decl is not None:
                decls.append(decl)
    if scopes:
        kind, name = scopes[-1]
        raise LeanSyntaxError(f"{kind} {name} is never closed by `end`".replace("  ", " "), tokens[-1].line)
    return decls


def _declaration(tokens: list[Token], i: int, j: int, end: int, scopes: list[tuple[str, str]],
                 file: str) -> Declaration | None:
    """The declaration whose command runs over tokens[i:end], with its keyword at j."""
    kind = tokens[j].text
    if kind == "class" and j + 1 < end and tokens[j + 1].text == "inductive":
        j += 1
    namespace = ".".join(n for k, n in scopes if k == "namespace" and n)
    named = j + 1 < end and tokens[j + 1].kind == "ident" and kind != "example"
    if named:
        short, rest = tokens[j + 1].text, tokens[j + 2:end]
    elif kind in ("example", "instance"):
        short, rest = f"_{kind}_L{tokens[j].line}", tokens[j + 1:end]
    else:
        return None
    if short.startswith("_root_."):
        qualified = short[len("_root_."):]
    else:
        qualified = f"{namespace}.{short}" if namespace else short
    rest = [t for t in rest if t.kind != "doc"]  # the next declaration's docstring is not part of this one
    params, stmt, body = _statement_and_body(rest, kind)
    doc = doc_text(tokens[i - 1]) if i > 0 and tokens[i - 1].kind == "doc" else None
    return Declaration(
        name=qualified, file=file, line=tokens[i].line, kind=kind,
        sorry=any(x.kind == "ident" and x.text in SORRY_TOKENS for x in tokens[j:end]),
        only_sorry=_is_only_sorry(body), axiom=kind == "axiom", doc=doc, end_line=(rest or tokens[j:j + 1])[-1].line,
        statement=stmt, body=body, params=params, namespace=namespace)


def _close(scopes: list[tuple[str, str]], name: str, line: int) -> None:
    if not scopes:
        raise LeanSyntaxError(f"`end {name}` without an open namespace or section", line)
    kind, open_name = scopes[-1]
    if name and open_name != name:
        raise LeanSyntaxError(f"`end {name}` closes {kind} {open_name or '(anonymous)'}", line)
    if not name and kind == "namespace":
        raise LeanSyntaxError(f"`end` without a name closes namespace {open_name}", line)
    scopes.pop()


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
    """Every declaration of the ``.lean`` files under ``root`` (a folder or one file)."""
    files = [root] if root.is_file() else sorted(root.rglob("*.lean")) if root.exists() else []
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
