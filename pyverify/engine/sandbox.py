"""Where a claim runs: inside a wall-clock and a memory budget, with the numeric settings the checks need.

The sandbox is the engine's only contact with process-wide state: a real-time timer (SIGALRM), the
address-space limit (RLIMIT_AS) and torch's global settings (TF32, intra-op threads), each set for the
run and restored afterwards, so importing pyverify changes nothing and a claim that runs over its budget
is that claim's ``error``, never the run's end.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

from .. import limits


class ClaimOverBudget(Exception):
    """A claim ran past its wall-clock budget (an ``error`` of that claim; the others still run)."""


@contextmanager
def numeric_settings(threads: int | None = 1) -> Iterator[None]:
    """TF32 off (checks are float64, and a TF32 matmul would hide or fake violations) and one intra-op
    thread (many small matrices: threads only contend); both restored on exit."""
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32, torch.get_num_threads())
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved[0], saved[1]
        if threads is not None:
            torch.set_num_threads(saved[2])


@contextmanager
def wall_clock_budget(seconds: float) -> Iterator[None]:
    """Interrupt the claim after ``seconds`` (SIGALRM; only in a main thread, where signals arrive: the
    command line and the worker processes). A single long C call (one huge matmul) ends before the alarm
    is seen: the element caps keep every such call short."""
    def over() -> ClaimOverBudget:
        cap = limits.CLAIM_SECONDS
        return ClaimOverBudget(f"stopped at the cap of {seconds:g} {cap.name} (raise it with the environment "
                               f"variable {cap.env}=N)")

    with limits.time_limit(seconds, over):
        yield


@contextmanager
def memory_budget(extra_bytes: float, device: torch.device | str = "cpu") -> Iterator[None]:
    """Cap the process's address space at its size when the claim starts plus ``extra_bytes`` (RLIMIT_AS,
    Linux; CPU only: a CUDA context reserves address space of its own). An allocation beyond it fails:
    the search skips an instance that fails, and a claim none of whose instances fit is an ``error``
    naming the cap. An existing, tighter limit is never loosened; the previous limit is restored."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * resource.getpagesize()
    except (ImportError, OSError, ValueError):
        yield
        return
    if not str(device).startswith("cpu"):
        yield
        return
    limit = int(size + extra_bytes)
    for bound in (hard, soft):
        if bound != resource.RLIM_INFINITY:
            limit = min(limit, bound)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextmanager
def claim_budget(device: torch.device | str = "cpu") -> Iterator[None]:
    """The wall-clock and memory budgets of one claim (``limits.CLAIM_SECONDS``, ``limits.CLAIM_MEMORY``)."""
    with wall_clock_budget(limits.CLAIM_SECONDS.value), memory_budget(limits.CLAIM_MEMORY.value, device):
        yield
