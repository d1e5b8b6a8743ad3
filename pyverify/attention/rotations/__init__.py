"""Structured positional rotations: the functional core (``core``) and the attention layer built on it
(``layer``), and a rotary-embedding interface (``rotary``). ``from pyverify.attention import rotations; rotations.rstr(...)`` keeps working."""

from .core import *  # noqa: F401,F403 - the functional core is this package's public surface
from .core import __all__ as _core_all
from .layer import ESPRAttention, FoldedESPRAttention
from .rotary import StructuredRotary, rotate

__all__ = [*_core_all, "ESPRAttention", "FoldedESPRAttention", "StructuredRotary", "rotate"]
