"""Statements as MathML (latex2mathml), which browsers render natively, also from file://.

A registry statement is either one LaTeX formula or prose with ``$...$`` / ``$$...$$`` formulas inside
(docs/claim-format.md). A formula latex2mathml cannot convert stays as its escaped LaTeX source, marked
so that a reader sees it was not rendered.
"""

from __future__ import annotations

import re

from latex2mathml.converter import convert
from markupsafe import Markup, escape

_INLINE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_PROSE_ESCAPES = re.compile(r"\\([%&#_$])")


def formula(latex: str, display: bool = False) -> Markup:
    """One formula as a <math> element, or its escaped source in a <code class=latex> on failure."""
    try:
        return Markup(convert(latex.strip(), display="block" if display else "inline"))
    except Exception:  # noqa: BLE001 - latex2mathml raises many kinds of errors on LaTeX it does not know
        return Markup('<code class="latex" title="not rendered: shown as LaTeX">{}</code>').format(latex)


def _is_prose(text: str) -> bool:
    """Plain text: words, and no LaTeX command other than an escaped character (``x = y`` is a formula)."""
    plain = "\\" not in _PROSE_ESCAPES.sub("", text) and not re.search(r"[_^{}]", text)
    return plain and len(re.findall(r"[A-Za-z]{3,}", text)) >= 3


def statement(text: str | None) -> Markup:
    """A statement (or reading) rendered: formulas as MathML, prose escaped, line breaks kept."""
    if not text:
        return Markup("")
    if "$" not in text:
        if _is_prose(text):
            return escape(_PROSE_ESCAPES.sub(r"\1", text))
        # a LaTeX line break (\\ at the end of a line) separates display lines
        lines = [line for line in re.split(r"\\\\\s*\n", text) if line.strip()]
        return Markup("").join(formula(line, display=True) for line in lines)
    parts, last = [], 0
    for m in _INLINE.finditer(text):
        parts.append(escape(_PROSE_ESCAPES.sub(r"\1", text[last:m.start()])))
        parts.append(formula(m.group(1), display=True) if m.group(1) is not None else formula(m.group(2)))
        last = m.end()
    parts.append(escape(_PROSE_ESCAPES.sub(r"\1", text[last:])))
    return Markup("").join(parts)


def prose(text: str | None) -> Markup:
    """Free text (a reading, a note): only ``$...$`` formulas are rendered; the rest stays as written."""
    if not text:
        return Markup("")
    return statement(text) if "$" in text else escape(text)
