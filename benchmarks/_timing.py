"""The one timing helper of the benchmarks, on ``torch.utils.benchmark``.

``torch.utils.benchmark.Timer`` warms up before it measures, runs under the thread count it is given
(the caller's current one here, so each script keeps its own setting) and synchronises CUDA around
the measured calls, which the hand-rolled ``time.perf_counter`` loops this replaces had to repeat.

* ``best_time(fn, repeat)``: the fastest of ``repeat`` single calls (seconds) and fn's output;
* ``interleaved(fns, reps, budget_s, statistic)``: median (or minimum) seconds per call of several functions
  timed in turn, so that a load change on a shared machine hits all of them alike; on a machine shared with
  other jobs the minimum is the steadier estimate (load only ever adds time).
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import torch
from torch.utils import benchmark


def _timer(fn: Callable[[], Any]) -> benchmark.Timer:
    return benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())


def _one_call(timer: benchmark.Timer) -> float:
    """Seconds of one call (after the Timer's own warm-up calls)."""
    return timer.timeit(number=1).raw_times[0]


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """The minimum over ``repeat`` timed single calls, and the output of fn (from an untimed call)."""
    out = fn()
    timer = _timer(fn)
    return min(_one_call(timer) for _ in range(repeat)), out


def interleaved(fns: dict[str, Callable[[], Any]], reps: int, budget_s: float = 6.0,
                statistic: str = "median") -> dict[str, float]:
    """Median (``statistic="min"``: minimum) seconds per call of each function, calling them in turn; stops
    after ``budget_s`` of wall time once every function has at least 3 samples."""
    reduce = {"median": statistics.median, "min": min}[statistic]
    timers = {name: _timer(fn) for name, fn in fns.items()}
    times: dict[str, list[float]] = {name: [] for name in fns}
    start = time.perf_counter()
    for i in range(reps):
        for name, timer in timers.items():
            times[name].append(_one_call(timer))
        if time.perf_counter() - start > budget_s and i >= 2:
            break
    return {name: reduce(v) for name, v in times.items()}
