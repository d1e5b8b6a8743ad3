"""Where the commands of a Lean 4 file start, from its tokens (no parser of Lean terms needed).

A command starts at
- a declaration keyword (``theorem``, ``def``, ``instance``, ...) or a scope command (``namespace``,
  ``section``, ``end``, ``mutual``) anywhere, except inside an attribute list (``@[instance]``,
  ``attribute [local instance] x``) and in ``deriving instance``;
- attributes and modifiers (``@[simp] private theorem``, ``@[expose] public section``,
  ``noncomputable section``) that open their line and lead to such a keyword;
- any other command word at column 0 (``open``, ``variable``, ``set_option``, ``notation``, ``macro``,
  ``syntax``, ``#check``, ...): those words also occur inside proofs (``open Classical in``), where they
  are indented. (``#exit`` ends the tokens already: Lean reads nothing after it.)
"""

from __future__ import annotations

from .tokens import Token

DECL_KINDS = ("theorem", "lemma", "def", "abbrev", "structure", "instance", "axiom", "inductive", "class",
              "opaque", "example")
MODIFIERS = {"private", "protected", "noncomputable", "partial", "unsafe", "nonrec", "scoped", "local", "public",
             "meta"}
SCOPE_COMMANDS = {"namespace", "section", "end", "mutual"}
# what attributes and modifiers may lead to (a modifier before anything else is not a command start)
_AFTER_MODIFIERS = set(DECL_KINDS) | {"section", "namespace", "notation", "infix", "infixl", "infixr", "prefix",
                                      "postfix", "macro", "macro_rules", "syntax", "elab", "elab_rules",
                                      "instance", "attribute", "irreducible_def", "alias", "initialize"}
COLUMN0_COMMANDS = {"open", "variable", "universe", "set_option", "attribute", "export", "import", "notation",
                    "infix", "infixl", "infixr", "prefix", "postfix", "macro", "syntax", "elab", "elab_rules",
                    "macro_rules", "omit", "include", "initialize", "deriving", "module", "alias", "irreducible_def",
                    "declare_syntax_cat", "add_decl_doc", "assert_not_exists", "suppress_compilation", "unseal",
                    "seal", "compile_inductive", "run_cmd"}
OPEN_BRACKETS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄", "@[": "]", "%[": "]"}
_CLOSERS = set(OPEN_BRACKETS.values())


def first_on_line(tokens: list[Token], i: int) -> bool:
    return i == 0 or tokens[i - 1].line != tokens[i].line


def skip_brackets(tokens: list[Token], i: int) -> int:
    """The index just after the bracket group opening at tokens[i] (the end of the tokens if unclosed)."""
    depth = 0
    while i < len(tokens):
        text = tokens[i].text
        if tokens[i].kind == "symbol" and text in OPEN_BRACKETS:
            depth += 1
        elif tokens[i].kind == "symbol" and text in _CLOSERS:
            depth -= 1
        i += 1
        if depth <= 0:
            return i
    return i


def skip_modifiers(tokens: list[Token], i: int) -> int:
    """The index of the first token after the modifiers and attribute lists starting at i."""
    while i < len(tokens):
        if tokens[i].text == "@[":
            i = skip_brackets(tokens, i)
        elif tokens[i].kind == "ident" and tokens[i].text in MODIFIERS:
            i += 1
            if i < len(tokens) and tokens[i - 1].text == "scoped" and tokens[i].text == "[":
                i = skip_brackets(tokens, i)  # scoped[NS] notation ...
        else:
            return i
    return i


def command_starts(tokens: list[Token]) -> list[int]:
    """The token index at which each command starts (see the module doc)."""
    starts: list[int] = []
    i, n = 0, len(tokens)
    while i < n:
        t = tokens[i]
        if (t.text == "@[" or t.kind == "ident" and t.text in MODIFIERS) and first_on_line(tokens, i):
            j = skip_modifiers(tokens, i)
            if j < n and tokens[j].text in _AFTER_MODIFIERS:
                starts.append(i)
                i = j + 1
                if tokens[j].text == "attribute" and i < n and tokens[i].text == "[":
                    i = skip_brackets(tokens, i)
                continue
        if t.text == "@[":  # an attribute list inside a term or after another attribute: no keywords in it
            i = skip_brackets(tokens, i)
            continue
        if t.kind == "ident" and (t.text in DECL_KINDS or t.text in SCOPE_COMMANDS):
            if not (t.text == "instance" and i > 0 and tokens[i - 1].text == "deriving"):
                starts.append(i)
        elif t.col == 0 and (t.text in COLUMN0_COMMANDS or t.kind == "symbol" and t.text.startswith("#")
                             and len(t.text) > 1):
            starts.append(i)
            if t.text == "attribute" and i + 1 < n and tokens[i + 1].text == "[":
                i = skip_brackets(tokens, i + 1)
                continue
        i += 1
    return starts
