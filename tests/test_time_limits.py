"""Wall-clock limits nest on the one real-time timer: the symbolic prover's own limit inside a claim's
budget must not cancel the claim's budget (it did, when each armed SIGALRM for itself); CPU-time limits
count the process's work, not the machine's load."""

from __future__ import annotations

import time

import pytest

from pyverify import limits
from pyverify.engine.sandbox import ClaimOverBudget, wall_clock_budget


class Inner(Exception):
    pass


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a_limit_interrupts_its_block():
    start = time.monotonic()
    with pytest.raises(Inner):
        with limits.time_limit(0.2, Inner):
            _spin(5)
    assert time.monotonic() - start < 2


def test_an_inner_limit_does_not_cancel_the_claim_budget():
    start = time.monotonic()
    with pytest.raises(ClaimOverBudget):
        with wall_clock_budget(0.3):
            with limits.time_limit(30, Inner):  # e.g. SymPy's own 30 s inside a claim's budget
                _spin(5)
    assert time.monotonic() - start < 2


def test_the_claim_budget_resumes_after_an_inner_limit_ends():
    start = time.monotonic()
    with pytest.raises(ClaimOverBudget):
        with wall_clock_budget(0.4):
            with pytest.raises(Inner):
                with limits.time_limit(0.1, Inner):
                    _spin(5)
            _spin(5)  # the claim's budget is still armed, with the time it has left
    assert time.monotonic() - start < 2


def test_no_alarm_is_left_behind():
    import signal

    with wall_clock_budget(5):
        with limits.time_limit(3, Inner):
            pass
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_a_cpu_time_limit_counts_work_not_waiting():
    """The symbolic prover's limit is CPU time: its outcome does not depend on the machine's load."""
    start = time.monotonic()
    with limits.cpu_time_limit(0.3, Inner):
        time.sleep(0.8)  # wall time passes, no CPU time: no overrun
    with pytest.raises(Inner):
        with limits.cpu_time_limit(0.3, Inner):
            _spin(30)
    assert time.monotonic() - start < 20


def test_a_cpu_time_limit_inside_the_claim_budget_leaves_both_armed_correctly():
    import signal

    with pytest.raises(ClaimOverBudget):
        with wall_clock_budget(0.4):
            with limits.cpu_time_limit(30, Inner):
                _spin(5)
    assert signal.getitimer(signal.ITIMER_VIRTUAL)[0] == 0 and signal.getitimer(signal.ITIMER_REAL)[0] == 0
