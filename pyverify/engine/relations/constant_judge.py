"""The judge of constant claims, in its steps: an instance no constant can rescue (``no_constant.py``), the
growth of the smallest admissible constant along the sweep (``constant.py``), and, where it stays bounded
along the sweep, along rays toward 0 within one size (``vanishing.py``)."""

from __future__ import annotations

import math

from ...checks.compiled import Compiled
from ...registry import Verdict
from ..context import NumericContext
from ..evidence import ConstantGrowth
from ..falsify import SearchOutcome
from ..no_constant import confirm_no_constant
from ..pipeline import Searched, SearchJudge
from ..result import Outcome
from ..run import ClaimRun
from .constant import carry_across_the_sweep, judge_constant, search_the_low_end_again
from .pointwise import assumptions_unmet
from .vanishing import along_rays


class ConstantJudge(SearchJudge):
    """The search runs to the end at every assignment (no violation refutes: the constant is unnamed) and
    the polishing raises the reported constant."""

    stops_early = False
    confirms = False
    polishes_constants = True

    def at_assignment(self, run: ClaimRun, comp: Compiled, out: SearchOutcome, ctx: NumericContext) -> Outcome | bool:
        """An instance where the bound fails for every positive constant (its right side <= 0, its left side
        positive: ``engine/no_constant.py``) refutes once confirmed; no constant can rescue it."""
        meaning = super().at_assignment(run, comp, out, ctx)
        if meaning is True and out.no_constant is not None:
            refutation = confirm_no_constant(run, comp, out.no_constant)
            if refutation is not None:
                return refutation
        return meaning

    def verdict(self, run: ClaimRun, searched: Searched) -> Outcome:
        unmet = assumptions_unmet(run, searched)
        if unmet is not None:
            return unmet
        texts = [r.text for r in run.compiled.relations]
        spec = run.compiled.check.constant
        carry_across_the_sweep(run, searched)
        outcome = judge_constant(searched, texts, spec)
        growth = next((e for e in outcome.evidence if isinstance(e, ConstantGrowth)), None)
        if outcome.verdict is Verdict.refuted and growth is not None and growth.relation in texts \
                and search_the_low_end_again(run, searched, texts.index(growth.relation), growth):
            carry_across_the_sweep(run, searched)  # what the second search found, at the other sizes too
            outcome = judge_constant(searched, texts, spec)
        if outcome.verdict is Verdict.holds and run.profile.runs("toward_zero"):
            rays = along_rays(run, searched, texts, spec)
            if rays.refutation is not None:
                # what the sweep measured stays in the evidence: the estimate, next to the ray that exceeds it
                refuted = rays.refutation
                return Outcome(refuted.verdict, refuted.message, refuted.worst, outcome.evidence + refuted.evidence)
            raised = [j for j, (_, ratio) in rays.largest.items()
                      if ratio > searched.polished.get(j, (None, -math.inf))[1]]
            if raised:
                # a larger ratio met on a ray is the constant's, like a polished one: it raises the constant
                # reported, not the growth test (only some sizes' rays may meet it)
                searched.polished.update({j: rays.largest[j] for j in raised})
                again = judge_constant(searched, texts, spec)
                if again.verdict is Verdict.holds and again.worst != outcome.worst:
                    outcome = again.noting(f" (raised by lhs/rhs met on {rays.drawn} ray(s) toward 0, none rising "
                                           "without bound)")
        return outcome
