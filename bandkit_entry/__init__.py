"""Entry point of the ``bandkit`` command (``[project.scripts]``), outside the ``bandkit`` package.

Importing ``bandkit`` loads numpy, pandas and scipy (one to a few seconds). A Ctrl-C (or SIGTERM,
SIGHUP) in that time would print a traceback from deep inside an import; here it prints the one
line every interrupted bandkit command prints and exits 128 + signal. Nothing has been read or
written yet, so there is nothing to clean up. ``bandkit.cli.main`` takes over the signals while it
runs and gives them back to this module when it returns.

Once the command has finished, its report is complete (written atomically, :mod:`bandkit.output`) and
its status known. The process then runs the ``atexit`` functions and ends with ``os._exit`` instead of
tearing the interpreter down (freeing every module of numpy, pandas, numba, matplotlib: 0.2-3 s in
which Python has already given the signals back to the system, so that a Ctrl-C killed the process by
the signal, status -2, with no line). A signal after the command finished ends the process at once with
the command's status: the report it wrote stands, and 128 + signal means "interrupted, nothing written".
"""
from __future__ import annotations

import os
import signal
import sys

_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))
#: The finished command's exit status (empty while it starts or runs).
_FINISHED: list[int] = []


def _flush_and_exit(status: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError, RuntimeError):  # closed pipe or stream; reentrant flush
            pass
    os._exit(status)


def _on_signal(signum, frame) -> None:
    """Outside ``bandkit.cli.main``: while starting, one line and 128 + signal; once finished, the
    command's own status."""
    if _FINISHED:
        _flush_and_exit(_FINISHED[0])
    try:
        sys.stderr.write("bandkit: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(128 + signum)


#: BLAS threads of the CLI's process unless the user sets them: bandkit's matrix products are small, and
#: OpenBLAS starting (and spinning) a thread per core costs ~30 ms of CPU at ``import numpy`` alone, a fifth of
#: ``pyperf stats`` (benchmarks/RESULTS_speed.md §9). ``python -m bandkit`` does the same (bandkit/__init__.py).
BLAS_THREADS = "1"


def _take_signals() -> None:
    for s in _SIGNALS:
        signal.signal(s, _on_signal)


_take_signals()  # at import: the console script imports this module, then calls main()


def main() -> int:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", BLAS_THREADS)  # (before numpy is imported)
    _take_signals()
    from bandkit._numba import use_light_blas_check
    from bandkit.cli import main as run

    use_light_blas_check()  # a process of the CLI's own: numba's BLAS check need not import scipy.linalg
    status = run()
    _FINISHED.append(status)
    try:
        import atexit

        atexit._run_exitfuncs()  # what the interpreter's exit runs first (logging, matplotlib, numba, tempfile)
    finally:
        _flush_and_exit(status)
    return status  # (not reached)
