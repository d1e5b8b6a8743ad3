"""A Lean 4 tokenizer, enough for an index and for audits of statements (not a parser of Lean terms).

It knows what makes ``sorry`` inside a comment or a string not count: nested block comments
``/- /- -/ -/``, doc comments ``/-- -/`` and module docs ``/-! -/`` (kept as ``doc`` tokens, since a
docstring says which claim a declaration states), line comments ``--``, string literals with escapes,
raw strings ``r#"..."#``, command words ``#check``/``#exit`` (one token; nothing after a ``#exit`` or a Verso ``#doc`` at column 0
is read), char literals ``'a'`` / ``'\\n'`` (told apart from the prime of ``x'``), and
identifiers with ``«guillemet»`` parts, subscripts and dots (``Finset.sum_comm``, ``h.le``).
Identifier characters follow Lean's own rule (``isLetterLike``): ASCII letters, Greek except λ Π Σ,
Coptic, the letter-like block (ℝ ℕ ...), script letters; digits, ``_ ' ! ?`` and subscripts continue.
"""

from __future__ import annotations

from dataclasses import dataclass


# command words at column 0 after which the file holds no Lean commands (the text after them is not lexed)
END_OF_LEAN = ("#exit", "#doc")


class LeanSyntaxError(ValueError):
    """Text the tokenizer cannot read (an unterminated comment or string), with its line."""

    def __init__(self, message: str, line: int):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Token:
    kind: str  # ident | number | string | char | doc | symbol
    text: str
    line: int  # 1-based
    col: int  # 0-based, as Lean reports columns
    start: int  # offset in the text


def is_letter_like(ch: str) -> bool:
    c = ord(ch)
    return ((0x3B1 <= c <= 0x3C9 and c != 0x3BB)  # α-ω except λ
            or (0x391 <= c <= 0x3A9 and c not in (0x3A0, 0x3A3))  # Α-Ω except Π Σ
            or 0x3CA <= c <= 0x3FB  # Coptic
            or 0x1F00 <= c <= 0x1FFE  # polytonic Greek
            or 0x2100 <= c <= 0x214F  # letter-like block: ℝ ℕ ℤ ℚ ℂ ...
            or 0x1D49C <= c <= 0x1D59F)  # script letters


def is_subscript(ch: str) -> bool:
    c = ord(ch)
    return 0x2080 <= c <= 0x2089 or 0x2090 <= c <= 0x209C or 0x1D62 <= c <= 0x1D6A or c == 0x2C7C


def is_id_start(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ch == "_" or is_letter_like(ch)


def is_id_rest(ch: str) -> bool:
    return is_id_start(ch) or ch.isdigit() and ch.isascii() or ch in "'!?" or is_subscript(ch)


# multi-character symbols worth keeping whole (longest first)
_SYMBOLS = sorted([":=", "=>", "->", "<-", "<;>", "::", "..", "...", "<=", ">=", "!=", "≠", "==", "&&", "||",
                   "^^", "×ˢ", "⁻¹", "⟨", "⟩", "⦃", "⦄", "‖", "@[", "%[", "$", "·", "∘", "↦"], key=len, reverse=True)


class _Reader:
    def __init__(self, text: str):
        self.text, self.pos, self.line, self.line_start = text, 0, 1, 0
        self.tokens: list[Token] = []

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < len(self.text) else ""

    def advance(self, n: int = 1) -> None:
        for _ in range(n):
            if self.pos < len(self.text) and self.text[self.pos] == "\n":
                self.line += 1
                self.line_start = self.pos + 1
            self.pos += 1

    def emit(self, kind: str, start: int, line: int, col: int) -> None:
        self.tokens.append(Token(kind, self.text[start:self.pos], line, col, start))


def _block_comment(r: _Reader, line: int) -> None:
    """Skip ``/- ... -/`` with nesting; the reader stands on the opening ``/-``."""
    depth = 0
    while r.pos < len(r.text):
        if r.peek() == "/" and r.peek(1) == "-":
            depth += 1
            r.advance(2)
        elif r.peek() == "-" and r.peek(1) == "/":
            depth -= 1
            r.advance(2)
            if depth == 0:
                return
        else:
            r.advance()
    raise LeanSyntaxError("unterminated block comment", line)


def _string(r: _Reader, line: int) -> None:
    r.advance()  # opening quote
    while r.pos < len(r.text):
        ch = r.peek()
        if ch == "\\":
            r.advance(2)
        elif ch == '"':
            r.advance()
            return
        else:
            r.advance()
    raise LeanSyntaxError("unterminated string literal", line)


def _raw_string(r: _Reader, line: int) -> None:
    r.advance()  # r
    hashes = 0
    while r.peek() == "#":
        hashes += 1
        r.advance()
    r.advance()  # opening quote
    close = '"' + "#" * hashes
    end = r.text.find(close, r.pos)
    if end < 0:
        raise LeanSyntaxError("unterminated raw string literal", line)
    r.advance(end + len(close) - r.pos)


def _char_literal_length(r: _Reader) -> int:
    """Length of a char literal starting here (``'a'``, ``'\\n'``, ``'\\x41'``), or 0 if this quote is not one."""
    if r.peek(1) == "\\":
        end = r.text.find("'", r.pos + 3)
        return end - r.pos + 1 if 0 < end - r.pos <= 10 and "\n" not in r.text[r.pos:end] else 0
    return 3 if r.peek(1) not in ("", "\n", "'") and r.peek(2) == "'" else 0


def _identifier(r: _Reader, line: int) -> None:
    """An identifier with its dotted parts: ``a.b.c``, ``«x y».z``; a trailing dot is not part of it."""
    while True:
        if r.peek() == "«":
            end = r.text.find("»", r.pos)
            if end < 0:
                raise LeanSyntaxError("unterminated «identifier»", line)
            r.advance(end + 1 - r.pos)
        else:
            r.advance()
            while r.peek() and is_id_rest(r.peek()):
                r.advance()
        nxt = r.peek(1)
        if r.peek() == "." and nxt and (is_id_start(nxt) or nxt == "«" or nxt.isdigit() and nxt.isascii()):
            r.advance()
            if r.peek().isdigit():  # projection h.1, h.2
                while r.peek().isdigit():
                    r.advance()
                if r.peek() != "." or not r.peek(1) or not is_id_start(r.peek(1)):
                    return
                r.advance()
            continue
        return


def tokenize(text: str) -> list[Token]:
    """The tokens of a Lean file: comments dropped (doc comments kept as ``doc``), everything else kept."""
    r = _Reader(text)
    while r.pos < len(text):
        ch, start, line, col = r.peek(), r.pos, r.line, r.pos - r.line_start
        if ch.isspace():
            r.advance()
        elif ch == "-" and r.peek(1) == "-":
            while r.pos < len(text) and r.peek() != "\n":
                r.advance()
        elif ch == "/" and r.peek(1) == "-":
            doc = r.peek(2) in ("-", "!") and not (r.peek(2) == "-" and r.peek(3) == "/")
            _block_comment(r, line)
            if doc:
                r.emit("doc", start, line, col)
        elif ch == '"':
            _string(r, line)
            r.emit("string", start, line, col)
        elif ch == "r" and (r.peek(1) == '"' or r.peek(1) == "#" and r.text[r.pos + 1:].lstrip("#")[:1] == '"'):
            _raw_string(r, line)
            r.emit("string", start, line, col)
        elif ch == "'" and _char_literal_length(r):
            r.advance(_char_literal_length(r))
            r.emit("char", start, line, col)
        elif is_id_start(ch) or ch == "«":
            _identifier(r, line)
            r.emit("ident", start, line, col)
        elif ch.isdigit() and ch.isascii():
            while r.peek() and (r.peek().isalnum() and r.peek().isascii() or r.peek() == "_"):
                r.advance()
            if r.peek() == "." and r.peek(1).isdigit():
                r.advance()
                while r.peek().isalnum() and r.peek().isascii():
                    r.advance()
            r.emit("number", start, line, col)
        elif ch == "#" and r.peek(1).isascii() and r.peek(1).isalpha():  # a command word: #check, #exit
            r.advance()
            while r.peek().isascii() and (r.peek().isalnum() or r.peek() == "_"):
                r.advance()
            r.emit("symbol", start, line, col)
            if col == 0 and r.tokens[-1].text in END_OF_LEAN:
                break  # Lean reads no command after `#exit`; after `#doc ... =>` a Verso document's prose follows
        else:
            sym = next((s for s in _SYMBOLS if text.startswith(s, r.pos)), ch)
            r.advance(len(sym))
            r.emit("symbol", start, line, col)
    return r.tokens


def doc_text(token: Token) -> str:
    """The text of a doc comment without its delimiters."""
    body = token.text[3:-2] if token.text.startswith(("/--", "/-!")) else token.text
    return body.strip()
