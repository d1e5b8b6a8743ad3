"""Statements as MathML (latex2mathml), which browsers render natively, also from file://.

A registry statement is either one LaTeX formula or prose with ``$...$`` / ``$$...$$`` formulas inside
(docs/claim-format.md). A formula latex2mathml cannot convert stays as its escaped LaTeX source, marked
so that a reader sees it was not rendered.

Browsers do not break a MathML formula across lines, so a long formula would sit behind a scrollbar in
the claim panel. Each formula is therefore cut, at its top level, after relations, binary operators,
commas and wide spaces (where TeX itself breaks inline math), into pieces that wrap like words.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from latex2mathml.converter import convert
from markupsafe import Markup, escape

_INLINE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_PROSE_ESCAPES = re.compile(r"\\([%&#_$])")
_PROSE_SPACES = re.compile(r"\\(qquad|quad|[,;:! ])")
_PROSE_DOTS = re.compile(r"\\(?:l|c)?dots\b")
_TABULAR = re.compile(r"\\begin\{tabular\}\{[^}]*\}(.*?)\\end\{tabular\}", re.S)
# TeX reads a backslash before a line end as a control space; latex2mathml would print the backslash
_CONTROL_SPACE_AT_EOL = re.compile(r"(?<!\\)((?:\\\\)*)\\\n")
_TEXT_GROUP = re.compile(r"\\text\{([^{}]*)\}")
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_XMLNS = re.compile(r' xmlns="http://www\.w3\.org/1998/Math/MathML"')
ET.register_namespace("", MATHML_NS)

# latex2mathml leaves a delimiter command after \big, \Big, ... as its source text: the character it means
_DELIMITERS = {"\\{": "{", "\\}": "}", "\\lbrace": "{", "\\rbrace": "}", "\\|": "\u2016", "\\Vert": "\u2016",
               "\\lVert": "\u2016", "\\rVert": "\u2016", "\\vert": "|", "\\lvert": "|", "\\rvert": "|",
               "\\langle": "\u27e8", "\\rangle": "\u27e9", "\\lfloor": "\u230a", "\\rfloor": "\u230b",
               "\\lceil": "\u2308", "\\rceil": "\u2309"}
# \setminus becomes U+29F5, which common fonts lack (an empty box); U+2216 SET MINUS is widely present
_GLYPHS = {"\u29f5": "\u2216"}
# where a formula may wrap: after a relation or an arrow at its top level, and after + - , ; : or a wide
# space where no bracket is open
_RELATIONS = set("=<>\u2264\u2265\u2260\u2248\u2261\u223c\u2243\u2245\u221d\u226a\u226b\u2208\u2209\u2282\u2286"
                 "\u2283\u2287\u2192\u2190\u21d2\u21d0\u21d4\u27f9\u27f8\u27fa\u21a6\u27fc\u2194")
_OPERATORS = set("+\u2212,;:")
_OPEN, _CLOSE = set("([{\u27e8\u230a\u2308"), set(")]}\u27e9\u230b\u2309")


def _normalise(latex: str) -> str:
    latex = _CONTROL_SPACE_AT_EOL.sub(lambda m: m.group(1) + "\\ \n", latex)
    return _TEXT_GROUP.sub(lambda m: "\\text{" + _PROSE_DOTS.sub("\u2026", m.group(1)) + "}", latex)


def _repair(tree: ET.Element) -> None:
    """Characters latex2mathml leaves as command text or maps to glyphs fonts lack."""
    for el in tree.iter():
        text = el.text or ""
        if el.tag.endswith("}mo") and text in _DELIMITERS:
            el.text = _DELIMITERS[text]
        elif text in _GLYPHS:
            el.text = _GLYPHS[text]
            el.tag = f"{{{MATHML_NS}}}mo"


def _breaks_after(el: ET.Element, depth: int) -> bool:
    tag, text = el.tag.rsplit("}", 1)[-1], (el.text or "").strip()
    if tag == "mo":
        return text in _RELATIONS or (depth == 0 and text in _OPERATORS)
    if tag == "mspace":
        width = el.get("width", "")
        return depth == 0 and width.endswith("em") and _float(width[:-2]) >= 0.5
    return tag == "mtext" and (el.text or "").endswith(("\u00a0", " "))


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def _pieces(tree: ET.Element) -> list[list[ET.Element] | None]:
    """The formula's top-level items cut into pieces that may wrap; None stands for a forced line break."""
    items = list(tree)
    while len(items) == 1 and items[0].tag.endswith("}mrow"):
        items = list(items[0])
    pieces: list[list[ET.Element] | None] = []
    current: list[ET.Element] = []
    depth = 0   # brackets open at the top level (a \\Big( ... \\Big) pair is two top-level operators)
    for item in _words(items):
        if item.tag.endswith("}mspace") and item.get("linebreak") == "newline":
            pieces += [current, None] if current else [None]
            current = []
            continue
        current.append(item)
        if item.tag.endswith("}mo"):
            depth = max(0, depth + ((item.text or "").strip() in _OPEN) - ((item.text or "").strip() in _CLOSE))
        if _breaks_after(item, depth):
            pieces.append(current)
            current = []
    if current:
        pieces.append(current)
    return pieces


def _words(items: list[ET.Element]) -> list[ET.Element]:
    """A text run (\\text{...}) split into one <mtext> per word, so that prose inside a formula wraps."""
    out = []
    for item in items:
        words = re.findall(r"\s*\S+\s*", (item.text or "").replace("\u00a0", " ")) if item.tag.endswith("}mtext") else []
        if len(words) < 2 or len(item):
            out.append(item)
            continue
        for word in words:
            piece = ET.Element(item.tag, item.attrib)
            piece.text = word.replace(" ", "\u00a0").replace("\n", "\u00a0")
            out.append(piece)
    return out


def _math(items: list[ET.Element]) -> str:
    """One piece as an inline <math> (HTML's parser puts it in the MathML namespace: no xmlns needed;
    a display formula's pieces get display style from the page's CSS)."""
    math = ET.Element(f"{{{MATHML_NS}}}math")
    row = ET.SubElement(math, f"{{{MATHML_NS}}}mrow")
    row.extend(items)
    return _XMLNS.sub("", ET.tostring(math, encoding="unicode", short_empty_elements=False), count=1)


def formula(latex: str, display: bool = False) -> Markup:
    """One formula as MathML pieces that wrap, or its escaped source in a <code class=latex> on failure."""
    try:
        tree = ET.fromstring(convert(_normalise(latex).strip(), display="block" if display else "inline"))
    except Exception:  # noqa: BLE001 - latex2mathml raises many kinds of errors on LaTeX it does not know
        return Markup('<code class="latex" title="not rendered: shown as LaTeX">{}</code>').format(latex)
    _repair(tree)
    pieces = _pieces(tree)
    html = "<wbr>".join("<br>" if p is None else _math(p) for p in pieces)
    return Markup('<span class="{}">{}</span>').format("formula" if display else "formula-inline", Markup(html))


def _is_prose(text: str) -> bool:
    """Plain text: words, and no LaTeX command other than an escaped character (``x = y`` is a formula)."""
    plain = "\\" not in _PROSE_ESCAPES.sub("", text) and not re.search(r"[_^{}]", text)
    return plain and len(re.findall(r"[A-Za-z]{3,}", text)) >= 3


def _prose_text(text: str) -> Markup:
    """Prose between formulas: escaped characters and spacing commands as the characters they mean."""
    text = _PROSE_SPACES.sub(lambda m: "\u2003" if "quad" in m.group(1) else " ", text)
    text = _PROSE_ESCAPES.sub(r"\1", _PROSE_DOTS.sub("\u2026", text))
    lines = text.split("\n")
    return Markup("<br>").join(escape(line) for line in lines) if len(lines) > 1 else escape(text)


def _mixed(text: str) -> Markup:
    """Prose with $...$ formulas (and LaTeX tables) inside."""
    parts, last = [], 0
    for m in _INLINE.finditer(text):
        parts.append(_prose_text(text[last:m.start()]))
        parts.append(formula(m.group(1), display=True) if m.group(1) is not None else formula(m.group(2)))
        last = m.end()
    parts.append(_prose_text(text[last:]))
    return Markup("").join(parts)


def _table(body: str) -> Markup:
    """A LaTeX tabular as an HTML table: rows end at \\\\, cells split at unescaped &."""
    rows = [r.replace("\\hline", "").strip() for r in re.split(r"\\\\", body)]
    cells = [[c.strip() for c in re.split(r"(?<!\\)&", r)] for r in rows if r]
    out = Markup("").join(
        Markup("<tr>{}</tr>").format(Markup("").join(
            Markup("<{0}>{1}</{0}>").format("th" if i == 0 else "td", _mixed(c)) for c in row))
        for i, row in enumerate(cells))
    return Markup('<table class="statement-table">{}</table>').format(out)


def statement(text: str | None) -> Markup:
    """A statement (or reading) rendered: formulas as MathML, prose escaped, line breaks kept."""
    if not text:
        return Markup("")
    if "$" not in text and "\\begin{tabular}" not in text:
        if _is_prose(text):
            return escape(_PROSE_ESCAPES.sub(r"\1", text))
        # a LaTeX line break (\\ at the end of a line) separates display lines
        lines = [line for line in re.split(r"\\\\\s*\n", text) if line.strip()]
        return Markup("").join(Markup('<div class="formula-line">{}</div>').format(formula(line, display=True))
                               for line in lines)
    parts, last = [], 0
    for m in _TABULAR.finditer(text):
        parts += [_mixed(text[last:m.start()].strip("\n")), _table(m.group(1))]
        last = m.end()
    parts.append(_mixed(text[last:].strip("\n")))
    return Markup("").join(parts)


def prose(text: str | None) -> Markup:
    """Free text (a reading, a note): ``$...$`` formulas are rendered; without them, LaTeX written bare
    in the sentence (``\\Pi_act^T = \\Pi_act``) is rendered as a claim title's is, and a `quoted` span
    of a seed's text is shown as code, rendered when it is LaTeX."""
    if not text:
        return Markup("")
    if "$" in text:
        return statement(text)
    if not _COMMAND.search(text):
        return escape(text)
    parts = re.split(r"`([^`]*)`", text)
    return Markup("").join(_quoted(part) if i % 2 else _words_and_formulas(part) for i, part in enumerate(parts))


def _quoted(source: str) -> Markup:
    """A span quoted from a seed: its LaTeX rendered (one seed prints LaTeX source), else shown as printed."""
    if _COMMAND.search(source):
        rendered = _bare_formula(source)
        if rendered is not None:
            return rendered
    return Markup('<code class="verbatim" title="quoted as the seed prints it">{}</code>').format(source)


_WORD = re.compile(r"^[(\"\u201c']*(?:[A-Za-z][a-z]+|[A-Za-z]{3,})[,.;:)\"\u201d']*$")
_NUMBER = re.compile(r"^[(\"\u201c]*\d+(?:\.\d+)?[,.;:)\"\u201d]*$")   # a number in a sentence ('Theorem 1 (')
_LATEX_MARK = re.compile(r"[\\_^{}]")
_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[|{}])")   # a LaTeX command (\\Pi), as a reader would see it unrendered
_BARE_SUBSCRIPT = re.compile(r"([_^])([A-Za-z]{2,})")  # d_null: a title's plain-text subscript
_PAREN_SCRIPT = re.compile(r"([_^])(\([^()]*\))")      # k_j^(act): a script in parentheses, taken whole
_ASCII_RELATIONS = {">=": "\\geq ", "<=": "\\leq ", "!=": "\\neq "}
_GREEK_NAME = re.compile(r"(?<![\\A-Za-z])(alpha|beta|gamma|delta|epsilon|varepsilon|lambda|Lambda|mu|sigma|Sigma|eta|theta|phi|Phi|"
                         r"psi|omega|Omega|Delta|Pi|pi|rho|tau|kappa|xi|zeta|nu|chi)(?=_|\b|[^A-Za-z])")
_FUNCTION_NAME = re.compile(r"(?<![\\A-Za-z])(exp|log|min|max|det|tr|diag|rank|Var|sin|cos)(?![A-Za-z])")


def title(text: str | None) -> Markup:
    """A claim title, often prose with LaTeX fragments (``\\Pi R_{sp} \\Pi approx``), rendered as its words
    and formulas."""
    if not text:
        return Markup("")
    if "$" in text:
        return _mixed(text)
    return _words_and_formulas(text)


def _words_and_formulas(text: str) -> Markup:
    """Prose with LaTeX written bare: each run of tokens that are not plain English words is rendered as
    one inline formula when it holds LaTeX (quotes and sentence punctuation around it stay text); the
    rest stays text."""
    out: list[Markup] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(_run(" ".join(run)))
            run.clear()

    lead = re.match(r"\s*", text).group(0)
    for token in text.split():
        if (_WORD.match(token) or (not run and _NUMBER.match(token))) and not (run and _is_command(run[-1])):
            flush()
            out.append(escape(token))
        else:
            if token[0] in "\"\u201c":   # a quotation begins: it is not part of the formula before it
                flush()
            run.append(token)
            if re.search(r"[\"\u201d][,.;:)]*$", token):   # nor of the one after it
                flush()
    flush()
    trail = " " if text[len(text.rstrip()):] else ""
    return Markup(" " if lead else "") + Markup(" ").join(out) + Markup(trail)


_OPENERS, _CLOSERS = "\"\u201c'(", "\"\u201d',;:.)"


def _run(source: str) -> Markup:
    """One run of non-words: a formula when it holds LaTeX, with the punctuation around it left outside."""
    if not _LATEX_MARK.search(source):
        return escape(source)
    unmatched, open_at = set(), []
    for i, ch in enumerate(source):
        if ch == "(":
            open_at.append(i)
        elif ch == ")":
            if open_at:
                open_at.pop()
            else:
                unmatched.add(i)
    unmatched.update(open_at)
    start, end = 0, len(source)
    while start < end and source[start] in _OPENERS and (source[start] != "(" or start in unmatched):
        start += 1
    while end > start and source[end - 1] in _CLOSERS and (source[end - 1] != ")" or end - 1 in unmatched):
        end -= 1
    core = source[start:end]
    formula = _bare_formula(core) if core and _LATEX_MARK.search(core) else None
    if formula is None:
        return escape(source) if not _COMMAND.search(source) else _quoted(source)
    return escape(source[:start]) + formula + escape(source[end:])


def _is_command(token: str) -> bool:
    """An accent or font command (\\tilde, \\mathcal) that takes the next word as its argument."""
    return re.fullmatch(r"\\(tilde|hat|widehat|widetilde|bar|overline|vec|dot|math[a-z]+|operatorname)", token) is not None


def _bare_latex(source: str) -> str:
    """Plain-text mathematics as LaTeX: d_null, k_j^(act), >=, lambda_1, exp."""
    for ascii_rel, command in _ASCII_RELATIONS.items():
        source = source.replace(ascii_rel, command)
    source = _GREEK_NAME.sub(r"\\\1", _PAREN_SCRIPT.sub(r"\1{\2}", _BARE_SUBSCRIPT.sub(r"\1{\2}", source)))
    source = re.sub(r"(?<![\\A-Za-z])eps(?=_|\b|[^A-Za-z])", r"\\varepsilon", re.sub(r"(?<![\\A-Za-z])sum(?=_)", r"\\sum", source))
    return _FUNCTION_NAME.sub(r"\\operatorname{\1}", source)


def _bare_formula(source: str) -> Markup | None:
    """A LaTeX fragment written without $ as one inline formula (a plain-text subscript such as d_null
    taken whole); None for LaTeX latex2mathml does not know or leaves as its source text (a garbled quote)."""
    try:
        tree = ET.fromstring(convert(_normalise(_bare_latex(source)), display="inline"))
    except Exception:  # noqa: BLE001 - see formula(): unknown LaTeX stays as text
        return None
    _repair(tree)
    if any(_COMMAND.search(el.text or "") for el in tree.iter()):
        return None
    return Markup(_XMLNS.sub("", ET.tostring(tree, encoding="unicode", short_empty_elements=False), count=1))
