"""Small helpers shared by the engine and its satellites (seeding)."""

from __future__ import annotations

import zlib


def claim_seed(seed: int, claim_id: str) -> int:
    """A per-claim seed: results of a claim do not depend on which other claims run."""
    return (seed * 1_000_003 + zlib.crc32(claim_id.encode())) % (2**62)
