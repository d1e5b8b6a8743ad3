"""Resource caps: what one claim may ask of the machine, so a registry cannot exhaust it.

Each cap has a name, a default and an environment variable that raises it (for a deliberate large
run); every message that reports a cap names the variable. The defaults leave the project's own
registry well inside (its largest instance has ~2.4e5 elements, its longest claim runs a few seconds).

This module imports nothing from the project: the registry, the checks and the engine all read it.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from contextlib import contextmanager
from dataclasses import dataclass


class CapExceeded(ValueError):
    """A request over a resource cap; the message names the cap and how to raise it."""


@dataclass(frozen=True)
class Cap:
    name: str  # what is capped, in words
    env: str  # the environment variable that sets it
    default: float

    @property
    def value(self) -> float:
        raw = os.environ.get(self.env)
        if raw is None:
            return self.default
        try:
            value = float(raw)
        except ValueError:
            return self.default
        return value if value > 0 and math.isfinite(value) else self.default

    def check(self, amount: float, what: str = "") -> None:
        """Raise CapExceeded when ``amount`` is over the cap."""
        if amount > self.value:
            raise CapExceeded(self.message(amount, what))

    def message(self, amount: float, what: str = "") -> str:
        subject = f"{what}: " if what else ""
        return (f"{subject}{_show(amount)} exceeds the cap of {_show(self.value)} {self.name} "
                f"(raise it with the environment variable {self.env}=N)")


def _show(x: float) -> str:
    return f"{int(x)}" if x < 1e7 and float(x).is_integer() else f"{x:.3g}"


ELEMENTS = Cap("elements per instance", "PYVERIFY_MAX_ELEMENTS", 1e6)
BATCH_ELEMENTS = Cap("elements per batch", "PYVERIFY_MAX_BATCH_ELEMENTS", 5e7)
ASSIGNMENTS = Cap("dims assignments per claim", "PYVERIFY_MAX_ASSIGNMENTS", 256)
SAMPLES = Cap("Monte-Carlo samples", "PYVERIFY_MAX_SAMPLES", 1e6)
REDUCTION_STEPS = Cap("evaluation steps of nested reductions", "PYVERIFY_MAX_REDUCTION_STEPS", 1e5)
POWER_DIGITS = Cap("decimal digits of a power of numbers", "PYVERIFY_MAX_POWER_DIGITS", 300)
SYMBOLIC_DIM = Cap("for a dimension of a symbolic proof", "PYVERIFY_MAX_SYMBOLIC_DIM", 12)
CLAIM_SECONDS = Cap("seconds of wall-clock time per claim", "PYVERIFY_CLAIM_SECONDS", 900)
CLAIM_MEMORY = Cap("bytes of memory per claim (beyond the process's size when the claim starts)",
                   "PYVERIFY_CLAIM_MEMORY", 8 * 2**30)
FILE_BYTES = Cap("bytes per registry file", "PYVERIFY_MAX_FILE_BYTES", 8e6)
YAML_NODES = Cap("YAML nodes per registry file (aliases expanded)", "PYVERIFY_MAX_YAML_NODES", 1e6)
YAML_DEPTH = Cap("levels of YAML nesting", "PYVERIFY_MAX_YAML_DEPTH", 64)
YAML_ALIASES = Cap("YAML alias references per registry file", "PYVERIFY_MAX_YAML_ALIASES", 1000)
ID_LENGTH = 64  # characters of a claim id: an id is a label, not a payload

ALL = (ELEMENTS, BATCH_ELEMENTS, ASSIGNMENTS, SAMPLES, REDUCTION_STEPS, POWER_DIGITS, SYMBOLIC_DIM,
       CLAIM_SECONDS, FILE_BYTES, YAML_NODES, YAML_DEPTH, YAML_ALIASES)


def power_digits(base: float, exponent: float) -> float:
    """Decimal digits of |base ** exponent| (0 for bases whose powers stay small), without computing it."""
    b = abs(float(base))
    if b in (0.0, 1.0) or not math.isfinite(b):
        return 0.0
    return abs(float(exponent) * math.log10(b))


# the two clocks a limit can run on: wall-clock time (SIGALRM), and the process's own CPU time in user
# mode (SIGVTALRM), which does not grow when other processes load the machine
_CLOCKS = {"wall": ("ITIMER_REAL", "SIGALRM"), "cpu": ("ITIMER_VIRTUAL", "SIGVTALRM")}


def cpu_time_limit(seconds: float, overrun: Callable[[], BaseException]) -> Any:
    """``time_limit`` on the process's CPU time: a budget whose outcome does not depend on how loaded
    the machine is (a proof search that fits in 60 s of CPU fits whatever else runs beside it)."""
    return time_limit(seconds, overrun, clock="cpu")


@contextmanager
def time_limit(seconds: float, overrun: Callable[[], BaseException], clock: str = "wall") -> Iterator[None]:
    """Raise ``overrun()`` in the block after ``seconds`` of wall-clock time (SIGALRM; only in a main
    thread, where signals arrive), or of CPU time with ``clock="cpu"``. Limits on one clock nest: an
    inner limit never cancels an outer one — whichever deadline comes first fires with its own
    exception, and on leaving the inner block the outer timer resumes with the time it has left."""
    timer_name, signal_name = _CLOCKS[clock]
    usable = (hasattr(signal, "setitimer") and hasattr(signal, timer_name)
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return
    timer, signum = getattr(signal, timer_name), getattr(signal, signal_name)
    outer_left, _ = signal.getitimer(timer)
    outer_handler = signal.getsignal(signum)
    inner_first = not outer_left or seconds < outer_left
    fired = {"outer": False}

    def on_alarm(signum, frame):
        if inner_first:
            raise overrun()
        fired["outer"] = True
        if callable(outer_handler):
            outer_handler(signum, frame)

    now = time.monotonic if clock == "wall" else time.process_time
    start = now()
    signal.signal(signum, on_alarm)
    signal.setitimer(timer, seconds if inner_first else outer_left)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(signum, outer_handler)
        if outer_left and not fired["outer"]:
            signal.setitimer(timer, max(outer_left - (now() - start), 1e-3))
