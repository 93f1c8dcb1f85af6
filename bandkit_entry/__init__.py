"""Entry point of the ``bandkit`` command (``[project.scripts]``), outside the ``bandkit`` package.

Importing ``bandkit`` loads numpy, pandas and scipy (one to a few seconds). A Ctrl-C (or SIGTERM,
SIGHUP) in that time would print a traceback from deep inside an import; here it prints the one
line every interrupted bandkit command prints and exits 128 + signal. Nothing has been read or
written yet, so there is nothing to clean up. ``bandkit.cli.main`` takes over the signals after.
"""
from __future__ import annotations

import os
import signal
import sys

_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


def _interrupted_while_starting(signum, frame) -> None:
    try:
        sys.stderr.write("bandkit: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(128 + signum)


#: BLAS threads of the CLI's process unless the user sets them: bandkit's matrix products are small, and
#: OpenBLAS starting (and spinning) a thread per core costs ~30 ms of CPU at ``import numpy`` alone, a fifth of
#: ``pyperf stats`` (benchmarks/RESULTS_speed.md §9). ``python -m bandkit`` does the same (bandkit/__init__.py).
BLAS_THREADS = "1"


def main() -> int:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", BLAS_THREADS)  # (before numpy is imported)
    old = {s: signal.signal(s, _interrupted_while_starting) for s in _SIGNALS}
    try:
        from bandkit._numba import use_light_blas_check
        from bandkit.cli import main as run
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    use_light_blas_check()  # a process of the CLI's own: numba's BLAS check need not import scipy.linalg
    return run()
