"""How many CPUs bandkit may use at once: ``BANDKIT_THREADS`` if set (1: serial), else the CPUs this process may
run on. Kept free of heavy imports (the compare and report paths read it)."""
from __future__ import annotations

import os

from .errors import InvalidValueError


def available_cpus(cap: int) -> int:
    """``BANDKIT_THREADS`` if set, else the CPUs this process may run on, at most ``cap``; at least 1."""
    env = os.environ.get("BANDKIT_THREADS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise InvalidValueError(f"BANDKIT_THREADS must be a positive integer, got {env!r}") from None
    return max(1, min(cap, cpus_allowed()))


def cpus_allowed() -> int:
    """The CPUs this process may run on (its affinity mask; the CPU count where there is none)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
