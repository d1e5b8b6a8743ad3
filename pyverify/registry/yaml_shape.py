"""pyverify's own measure of a YAML text's shape (nesting depth, alias references), taken from the text
before any YAML library reads it.

The caps on a registry file must not depend on which PyYAML or libyaml is installed: libyaml stops deep
nesting itself (with its own wording, at its own depth, and only after its scanner has looked ahead over
the whole run of brackets), the pure-Python parser does not. So the shape is measured here, by a
single linear pass that knows just enough YAML to tell structure from content:

* a flow collection (``[``/``{``) opens a level wherever a node may start; inside a flow collection every
  bracket outside quotes and comments counts;
* a block collection opens a level at each new indentation column of ``- ``, ``? `` or ``key:`` entries
  (compact ``- - x`` counts every dash);
* quoted scalars (which may span lines), comments, and the content lines of block scalars (``|``, ``>``)
  are content, never structure;
* an alias (``*name``) counts where a node may start.

Where the text is not valid YAML the measure may differ from a parser's by a level; it never misses a
run of nesting, which is what the cap is for. The measure is the product's own definition of depth:
every message that reports it names the cap and its environment variable.
"""

from __future__ import annotations

from dataclasses import dataclass

_BLANK = " \t"


@dataclass(frozen=True)
class Excess:
    """The first place where the text goes past a cap."""

    what: str  # "depth" or "aliases"
    amount: int
    line: int  # 1-based


class _Over(Exception):
    def __init__(self, excess: Excess):
        self.excess = excess


def _spaces(line: str, i: int) -> int:
    while i < len(line) and line[i] in _BLANK:
        i += 1
    return i


def _ends_token(line: str, i: int) -> bool:
    """True where ``line[i]`` is followed by a blank or the end of the line (an indicator, not content)."""
    return i + 1 >= len(line) or line[i + 1] in _BLANK


class _Scanner:
    def __init__(self, max_depth: int, max_aliases: int):
        self.max_depth, self.max_aliases = max_depth, max_aliases
        self.block: list[tuple[int, str]] = []  # open block collections: (column, "seq" | "map")
        self.flow = 0  # open flow collections
        self.quote: str | None = None  # the open quoted scalar's quote character
        # in a block scalar or a plain scalar's continuation: the indentation its content lines exceed
        self.literal_parent: int | None = None
        self.aliases = 0
        self.deepest = 0
        self.line_no = 0
        self.after_inline_col: int | None = None  # block column of a quoted/flow node that may be a key

    # --- counting
    def _depth_now(self) -> None:
        depth = len(self.block) + self.flow
        self.deepest = max(self.deepest, depth)
        if depth > self.max_depth:
            raise _Over(Excess("depth", depth, self.line_no))

    def _alias(self) -> None:
        self.aliases += 1
        if self.aliases > self.max_aliases:
            raise _Over(Excess("aliases", self.aliases, self.line_no))

    def _open_block(self, column: int, kind: str) -> None:
        if self.block and self.block[-1] == (column, kind):
            return  # the next entry of the same collection
        if kind == "map":
            while self.block and self.block[-1] == (column, "seq"):
                self.block.pop()  # `key:` at a sequence's column ends that sequence (seq as a key's value)
            if self.block and self.block[-1] == (column, "map"):
                return
        self.block.append((column, kind))
        self._depth_now()

    # --- lines
    def feed(self, line: str) -> None:
        self.line_no += 1
        if line.startswith("%") and self.flow == 0 and self.quote is None and self.literal_parent is None \
                or line[:3] in ("---", "...") and _ends_token(line, 2):
            # a directive or a document marker: a new document starts from the top
            self.block.clear()
            self.flow, self.quote, self.literal_parent = 0, None, None
            if line.startswith("---"):
                self._node(line, _spaces(line, 3))
            return
        if self.literal_parent is not None:
            indent = _spaces(line, 0)
            if indent == len(line) or indent > self.literal_parent:
                return  # a scalar's content (or a blank line within it)
            self.literal_parent = None
        if self.quote is not None or self.flow:
            self._inline(line, 0)
            return
        self._block_line(line)

    def _block_line(self, line: str) -> None:
        indent = _spaces(line, 0)
        if indent == len(line) or line[indent] == "#":
            return
        while self.block and self.block[-1][0] > indent:
            self.block.pop()
        pos = indent
        # compact collections: `- - x`, `- ? k`, each indicator a level at its own column (`: ` is the
        # value of an explicit `? ` key, in the mapping at its column)
        while pos < len(line) and line[pos] in "-?:" and _ends_token(line, pos):
            self._open_block(pos, "seq" if line[pos] == "-" else "map")
            pos = _spaces(line, pos + 1)
        if pos >= len(line) or line[pos] == "#":
            return
        self._node(line, pos, may_be_key=True)

    def _node(self, line: str, pos: int, may_be_key: bool = False) -> None:
        """A node starting at ``pos`` in block context."""
        while pos < len(line) and line[pos] in "&!":  # node properties: an anchor, a tag
            while pos < len(line) and line[pos] not in _BLANK:
                pos += 1
            pos = _spaces(line, pos)
        if pos >= len(line) or line[pos] == "#":
            return
        c = line[pos]
        if c == "*":
            self._alias()
            end = pos
            while end < len(line) and line[end] not in _BLANK:
                end += 1
            self._after_inline(line, end, pos if may_be_key else None)
        elif c in "[{\"'":
            self._inline(line, pos, pos if may_be_key else None)
        elif c in "|>":
            self.literal_parent = self.block[-1][0] if self.block else -1
        else:
            colon = _plain_key_colon(line, pos) if may_be_key else None
            if colon is not None:
                self._open_block(pos, "map")
                self._node(line, _spaces(line, colon + 1))
            else:
                # a plain scalar: its continuation lines (more indented than its collection) are
                # content, whatever they begin with (`[1]`, `* item`)
                self.literal_parent = self.block[-1][0] if self.block else -1

    def _after_inline(self, line: str, i: int, key_col: int | None) -> None:
        """After a flow collection, quoted scalar or alias closed in block context: a `:` makes it a key."""
        i = _spaces(line, i)
        if key_col is not None and i < len(line) and line[i] == ":" and _ends_token(line, i):
            self._open_block(key_col, "map")
            self._node(line, _spaces(line, i + 1))

    def _inline(self, line: str, i: int, key_col: int | None = None) -> None:
        """Quoted scalars and flow collections, which may span lines."""
        if key_col is not None:
            self.after_inline_col = key_col
        start_sig = True  # at a node start inside a flow collection (after `[`, `{`, `,`, `:`, `?`)
        while i < len(line):
            if self.quote == '"':
                while i < len(line) and line[i] != '"':
                    i += 2 if line[i] == "\\" else 1
                if i >= len(line):
                    return  # the quote goes on in the next line
                self.quote, i = None, i + 1
            elif self.quote == "'":
                while i < len(line):
                    if line[i] == "'":
                        if i + 1 < len(line) and line[i + 1] == "'":
                            i += 2
                            continue
                        break
                    i += 1
                if i >= len(line):
                    return
                self.quote, i = None, i + 1
            else:
                c = line[i]
                if c in "\"'" and start_sig:  # a quote inside a plain scalar (`C6'.3`, `it's`) is content
                    self.quote, i = c, i + 1
                    continue
                if c == "#" and (i == 0 or line[i - 1] in _BLANK):
                    return  # a comment to the end of the line
                if c in "[{":
                    self.flow += 1
                    self._depth_now()
                elif c in "]}":
                    self.flow = max(0, self.flow - 1)
                elif c == "*" and start_sig:
                    self._alias()
                if c not in _BLANK:
                    start_sig = c in "[{,:?"
                i += 1
            if not self.flow and self.quote is None:
                key_col, self.after_inline_col = self.after_inline_col, None
                self._after_inline(line, i, key_col)
                return


def _plain_key_colon(line: str, pos: int) -> int | None:
    """Where the plain implicit key that starts at ``pos`` ends with `: ` (None: no key on this line)."""
    i = pos
    while i < len(line):
        c = line[i]
        if c == ":" and _ends_token(line, i):
            return i
        if c == "#" and line[i - 1] in _BLANK:
            return None
        i += 1
    return None


def _scan(scanner: _Scanner, text: str) -> None:
    for line in text.split("\n"):
        scanner.feed(line.rstrip("\r"))


def first_excess(text: str, max_depth: int, max_aliases: int) -> Excess | None:
    """The first place where ``text`` nests deeper than ``max_depth`` levels or refers to more than
    ``max_aliases`` aliases; None when it stays within both. Linear in the text's length."""
    try:
        _scan(_Scanner(max_depth, max_aliases), text)
    except _Over as over:
        return over.excess
    return None


def measure(text: str) -> tuple[int, int]:
    """The deepest nesting and the number of alias references of ``text``, as pyverify counts them."""
    scanner = _Scanner(max_depth=2**62, max_aliases=2**62)
    _scan(scanner, text)
    return scanner.deepest, scanner.aliases
