"""The base classes of the evidence a verdict rests on (``engine/evidence.py``, ``engine/witnesses.py``)."""

from __future__ import annotations

from typing import Any

Values = dict[str, Any]  # hypothesis name -> value (nested lists), a composite's parts as a dict
# A witness lists every relation of the check; those whose relative error is below this held at the
# witness (rounding only) and are not the reason for the refutation.
HELD_AT_WITNESS = 1e-9


class Evidence:
    """Base of every kind of evidence."""

    def details(self) -> dict[str, Any]:
        """Its entries of the result's JSON ``details`` object (none by default)."""
        return {}


class Witness(Evidence):
    """Evidence against a claim: the result's JSON ``witness``."""

    def witness(self) -> dict[str, Any]:
        raise NotImplementedError
