"""The engine: judges claims. ``runner`` selects and runs, ``claim`` runs one claim in its ``sandbox``
with the judge of its kind of relation (``relations/``), ``pipeline`` holds the phases of the adversarial
search (``falsify`` generates and ascends, ``confirm`` re-checks, ``polish`` climbs tightness,
``necessity`` weakens hypotheses), ``profiles`` the budgets, ``context`` the numeric context, and
``result``/``evidence`` the typed, immutable verdicts with what they rest on."""

from .claim import run_claim
from .context import NumericContext
from .profiles import PROFILES, Profile
from .result import Result
from .runner import UnknownClaims, check_claim, check_claims

__all__ = ["run_claim", "check_claim", "check_claims", "UnknownClaims", "Result", "Profile", "PROFILES",
           "NumericContext"]
