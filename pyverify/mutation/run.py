"""The registry mutation pass: every holding claim's check run again with each error its form admits.

A mutant is *killed* when the engine, at the same profile and seed, no longer lets the claim hold
(``refuted`` or ``vacuous``), *survives* when it still holds (``holds``, ``consistent``, ``symbolic``),
and is *undecided* otherwise (the mutant's check raised — e.g. a dropped term left mismatched shapes —
or a Monte-Carlo test was inconclusive). Undecided mutants count neither way.

A claim is flagged when

* ``cannot fail``: at least one mutant was decided and none was killed: nothing the pass planted in its
  check changed its verdict;
* ``content untested``: every decided mutant of the check's content (its exponents, constants, terms,
  signs and hypotheses) survived, and only a flipped relation or a scaled side was noticed: the judge can
  reject, but nothing the statement says in its expressions matters to the verdict;
* ``exponent untested``: every decided mutant of its exponents (or of an order check's claimed order)
  survived: the check never varies what the order is claimed in (``eps`` held fixed);
* ``hypotheses unused``: every ``assume`` the pass dropped left the verdict as it was: the samplers only
  draw instances that meet it (it never binds), or the claim holds without it.

A flagged claim passes when the registry records why its check is insensitive
(``mutation: {survives: ...}``); the reason is shown with it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import limits
from ..checks.validate import CheckedRegistry
from ..engine.claim import run_claim
from ..engine.profiles import Profile, profile
from ..engine.sandbox import numeric_settings
from ..registry import Verdict
from .operators import OPERATORS, Mutant, mutants, select

KILLED = frozenset({Verdict.refuted, Verdict.vacuous})
SURVIVED = frozenset({Verdict.holds, Verdict.consistent, Verdict.symbolic, Verdict.proved})
MUTATED = SURVIVED  # only a claim whose check lets it hold is mutated
RELATION_LEVEL = frozenset({"relation", "bound"})  # they change the assertion's comparison, not its content
DEFAULT_CAP = 10
# a mutant may run this many times as long as the claim as written, and at least MUTANT_SECONDS_MIN: a
# planted error that sends the search into its slowest path (a Monte-Carlo test that never settles, an
# ascent that never converges) ends as an undecided mutant, not as the pass's whole budget
MUTANT_SLOWDOWN = 3
MUTANT_SECONDS_MIN = 20.0


class MutantOverBudget(Exception):
    """A mutant ran past its share of time (an ``undecided`` mutant; the pass goes on)."""


@dataclass(frozen=True)
class MutantResult:
    operator: str
    site: str
    change: str
    verdict: Verdict
    message: str

    @property
    def outcome(self) -> str:
        if self.verdict in KILLED:
            return "killed"
        return "survived" if self.verdict in SURVIVED else "undecided"

    def as_dict(self) -> dict:
        return {"operator": self.operator, "site": self.site, "change": self.change, "verdict": str(self.verdict),
                "outcome": self.outcome, "message": self.message}


@dataclass(frozen=True)
class ClaimMutation:
    """The mutation pass over one claim: its own verdict, and each mutant's."""

    id: str
    verdict: Verdict
    available: int = 0  # mutants the check admits, before the cap
    mutants: tuple[MutantResult, ...] = ()
    reason: str | None = None  # the registry's ``mutation.survives``
    elapsed_s: float = 0.0
    skipped: str | None = None  # why the claim was not mutated

    def count(self, outcome: str) -> int:
        return sum(m.outcome == outcome for m in self.mutants)

    @property
    def cannot_fail(self) -> bool:
        return self.count("killed") == 0 and self.count("survived") > 0

    def _all_survive(self, operators) -> bool:
        decided = [m for m in self.mutants if m.operator in operators and m.outcome != "undecided"]
        return bool(decided) and all(m.outcome == "survived" for m in decided)

    @property
    def content_untested(self) -> bool:
        return not self.cannot_fail and self._all_survive(set(OPERATORS) - RELATION_LEVEL)

    @property
    def exponent_untested(self) -> bool:
        return self._all_survive({"exponent"})

    @property
    def hypotheses_unused(self) -> bool:
        return self._all_survive({"hypothesis"})

    @property
    def flags(self) -> list[str]:
        return [name for name, on in (("cannot fail", self.cannot_fail), ("content untested", self.content_untested),
                                      ("exponent untested", self.exponent_untested),
                                      ("hypotheses unused", self.hypotheses_unused)) if on]

    @property
    def unexplained(self) -> bool:
        return bool(self.flags) and not self.reason

    def as_dict(self) -> dict:
        return {"id": self.id, "verdict": str(self.verdict), "skipped": self.skipped, "available": self.available,
                "killed": self.count("killed"), "survived": self.count("survived"),
                "undecided": self.count("undecided"), "flags": self.flags, "reason": self.reason,
                "elapsed_s": round(self.elapsed_s, 3), "mutants": [m.as_dict() for m in self.mutants]}


def _run_mutant(m: Mutant, chosen: Profile, seed: int, device: str, seconds: float) -> MutantResult:
    def over() -> MutantOverBudget:
        return MutantOverBudget(f"the mutant ran past {seconds:.3g} s ({MUTANT_SLOWDOWN}x the claim as written, at least {MUTANT_SECONDS_MIN:g} s)")

    try:
        with limits.time_limit(seconds, over):
            res = run_claim(m.compiled, budget=chosen, seed=seed, device=device)
    except MutantOverBudget as exc:  # the alarm came between run_claim's own handlers
        return MutantResult(m.operator, m.site, m.change, Verdict.error, str(exc))
    return MutantResult(m.operator, m.site, m.change, res.verdict, res.message)


def mutate_claim(registry: CheckedRegistry, claim_id: str, budget: str | Profile = "quick", seed: int = 0,
                 cap: int = DEFAULT_CAP, device: str = "cpu") -> ClaimMutation:
    """The claim checked as written, then (when it holds) each of at most ``cap`` mutants of its check,
    every run inside the engine's sandbox and time limits, each mutant also within ``MUTANT_SLOWDOWN``
    times the claim's own time."""
    start = time.perf_counter()
    claim = registry.claims[claim_id]
    reason = claim.mutation.survives if claim.mutation is not None else None
    chosen = profile(budget)
    compiled = registry.compiled.get(claim_id)
    with numeric_settings():
        if compiled is None:
            return ClaimMutation(claim_id, run_claim(claim, registry.conventions[claim_id], chosen, seed, device).verdict,
                                 reason=reason, skipped="no executable check", elapsed_s=time.perf_counter() - start)
        original = run_claim(compiled, budget=chosen, seed=seed, device=device)
        seconds = max(MUTANT_SECONDS_MIN, MUTANT_SLOWDOWN * original.elapsed_s)
        if original.verdict not in MUTATED:
            return ClaimMutation(claim_id, original.verdict, reason=reason, elapsed_s=time.perf_counter() - start,
                                 skipped=f"its verdict is {original.verdict}: only a holding check is mutated")
        found = mutants(compiled)
        results = tuple(_run_mutant(m, chosen, seed, device, seconds) for m in select(found, cap))
    return ClaimMutation(claim_id, original.verdict, len(found), results, reason, time.perf_counter() - start)


_REG: CheckedRegistry | None = None


def _worker(args) -> ClaimMutation:
    cid, budget, seed, cap, device = args
    try:
        return mutate_claim(_REG, cid, budget, seed, cap, device)  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001 - one claim's failure is that claim's, the pass goes on
        return ClaimMutation(cid, Verdict.error, skipped=f"the pass failed on this claim: {type(exc).__name__}: {exc}")


@dataclass
class MutationReport:
    budget: str
    seed: int
    cap: int
    claims: list[ClaimMutation] = field(default_factory=list)

    @property
    def mutated(self) -> list[ClaimMutation]:
        return [c for c in self.claims if c.mutants]

    def summary(self) -> dict:
        mutated = self.mutated
        total = sum(len(c.mutants) for c in mutated)
        killed = sum(c.count("killed") for c in mutated)
        survived = sum(c.count("survived") for c in mutated)
        decided = killed + survived
        return {"claims": len(self.claims), "claims_mutated": len(mutated), "mutants": total, "killed": killed,
                "survived": survived, "undecided": total - decided,
                "kill_rate": round(killed / decided, 4) if decided else None,
                "cannot_fail": [c.id for c in mutated if c.cannot_fail],
                "content_untested": [c.id for c in mutated if c.content_untested],
                "exponent_untested": [c.id for c in mutated if c.exponent_untested],
                "hypotheses_unused": [c.id for c in mutated if c.hypotheses_unused],
                "unexplained": [c.id for c in mutated if c.unexplained]}

    def as_dict(self) -> dict:
        return {"budget": self.budget, "seed": self.seed, "cap": self.cap, "summary": self.summary(),
                "claims": [c.as_dict() for c in self.claims]}


def mutate_registry(registry: CheckedRegistry, ids: Sequence[str] = (), budget: str = "quick", seed: int = 0,
                    cap: int = DEFAULT_CAP, jobs: int = 1, device: str = "cpu", progress=None) -> MutationReport:
    """The pass over the selected claims (all when ``ids`` is empty), in registry order; ``jobs`` > 1
    spreads claims over forked worker processes (CPU). ``progress(ClaimMutation)`` is told of each claim."""
    global _REG
    selected = list(ids) or list(registry.claims)
    work = [(cid, budget, seed, cap, device) for cid in selected]
    by_id: dict[str, ClaimMutation] = {}
    if jobs > 1 and len(work) > 1 and device == "cpu":
        from concurrent.futures import ProcessPoolExecutor, as_completed

        from ..engine.parallel import _context

        ctx, server = _context()
        _REG = registry
        if server:  # a forkserver worker would not inherit the registry: run here instead
            jobs = 1
        else:
            with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
                futures = [pool.submit(_worker, w) for w in work]
                for fut in as_completed(futures):
                    res = fut.result()
                    by_id[res.id] = res
                    if progress is not None:
                        progress(res)
    if not by_id:
        _REG = registry
        for w in work:
            res = _worker(w)
            by_id[res.id] = res
            if progress is not None:
                progress(res)
    return MutationReport(budget, seed, cap, [by_id[cid] for cid in selected])
