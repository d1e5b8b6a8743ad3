"""The sampler table of docs/checks.md, generated from the parameter declarations (kept current by
tests/test_samplers.py). ``python -m pyverify.checks.samplers.docs docs/checks.md`` rewrites it."""

from __future__ import annotations

import sys
from pathlib import Path

from . import SAMPLERS

BEGIN, END = "<!-- sampler table: generated from the declarations -->", "<!-- end of sampler table -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def sampler_table() -> str:
    """Every sampler of the language, the installed content packages' included."""
    from ..plugins import ensure_content

    ensure_content()
    rows = ["| sampler | positional | parameters (type, range, default) | hypothesis |", "| --- | --- | --- | --- |"]
    for name, cls in SAMPLERS.items():
        positional = ", ".join(p.name for p in cls.positional())
        params = "; ".join(f"`{_cell(p.describe())}` {_cell(p.doc)}" for p in cls.params) or "none"
        extra = "; ".join(f"needs `{c.text}`" for c in cls.constraints)
        rows.append(f"| `{name}` | {positional} | {params}{'; ' + extra if extra else ''} | {_cell(cls.hypothesis)} |")
    return "\n".join(rows)


def with_current_table(text: str) -> str:
    """``text`` (docs/checks.md) with the generated block replaced by the current table."""
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{sampler_table()}\n{END}{tail}"


if __name__ == "__main__":
    path = Path(sys.argv[1])
    path.write_text(with_current_table(path.read_text(encoding="utf-8")), encoding="utf-8")
