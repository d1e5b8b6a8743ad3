"""The engine: judges claims. ``runner`` selects and runs, ``claim`` dispatches one claim on its kind of
relation (``relations/``), ``falsify`` searches for counterexamples scored by ``scoring``, ``necessity``
weakens hypotheses, ``result`` holds verdicts with their evidence."""

from .claim import run_claim
from .result import BUDGETS, Budget, Result
from .runner import UnknownClaims, check_claim, check_claims

__all__ = ["run_claim", "check_claim", "check_claims", "UnknownClaims", "Result", "Budget", "BUDGETS"]
