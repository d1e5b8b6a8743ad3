"""Provers: SymPy (symbolic identities), python-flint balls (interval certificates), Lean (the formal side).

Importing ``symbolic`` / ``interval`` registers their meanings of the vocabulary's functions."""
