"""Where numba keeps bandkit's compiled kernels, and the one-line notice when they are compiled.

bandkit's kernels are ``@njit(cache=True)``: compiled on the first call after an install (about
1 s per kernel, 10-20 s for a whole FTQ report) and loaded from the cache afterwards. numba writes
that cache next to the source (``__pycache__``); when the installed package directory is not writable
(a system-wide install, a container run as another user) numba falls back to ``~/.cache/numba``, and
raises ``RuntimeError: cannot cache function ...: no locator available`` when that is not writable
either. :func:`configure_cache` (called by ``import bandkit``, before numba is imported) points numba
at a per-user directory instead, only when the package directory is not writable and the user has not
chosen one (``NUMBA_CACHE_DIR``): ``$XDG_CACHE_HOME/bandkit/numba`` (``~/.cache/bandkit/numba``),
else a per-user directory under the system temporary directory. This module imports neither numba
nor numpy unless asked to announce compiles.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

__all__ = ["configure_cache", "fallback_cache_dir", "announce_compiles", "SECONDS_PER_KERNEL"]

#: The package directory whose ``__pycache__`` directories numba writes to by default.
PACKAGE_DIR = Path(__file__).resolve().parent

#: Rough cold-compile time of one kernel (s), for the notice's estimate: 8 kernels of an FTQ report
#: took 9-19 s (benchmarks/RESULTS_speed.md; the first one also pays numba's own start-up).
SECONDS_PER_KERNEL = 1.3


def _writable_dir(path: Path) -> bool:
    """Whether files can be created in ``path`` (created if missing)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
        return True
    except OSError:
        return False


def _package_writable(package_dir: Path = PACKAGE_DIR) -> bool:
    cache = package_dir / "__pycache__"
    return os.access(cache if cache.is_dir() else package_dir, os.W_OK)


def fallback_cache_dir(environ=os.environ) -> Path | None:
    """The first writable per-user cache directory for numba, or None."""
    candidates = []
    xdg = environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        candidates.append(Path(xdg) / "bandkit" / "numba")
    home = environ.get("HOME") or os.path.expanduser("~")
    if home and home != "~":
        candidates.append(Path(home) / ".cache" / "bandkit" / "numba")
    uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
    candidates.append(Path(tempfile.gettempdir()) / f"bandkit-{uid}" / "numba")
    for path in candidates:
        if _writable_dir(path):
            return path
    return None


def configure_cache(environ=os.environ, package_dir: Path = PACKAGE_DIR) -> str | None:
    """Point numba's cache at a per-user directory when ``package_dir`` is not writable.

    Leaves a ``NUMBA_CACHE_DIR`` the user set alone. Sets the environment variable (read by numba when it
    is imported, and inherited by worker processes) and, when numba is already imported, its config.
    Returns the directory chosen, or None when nothing had to change.
    """
    if environ.get("NUMBA_CACHE_DIR") or _package_writable(package_dir):
        return None
    path = fallback_cache_dir(environ)
    if path is None:
        return None
    environ["NUMBA_CACHE_DIR"] = str(path)
    config = sys.modules.get("numba.core.config")
    if config is not None and not getattr(config, "CACHE_DIR", ""):
        config.CACHE_DIR = str(path)
    return str(path)


def _bandkit_kernels():
    """The numba dispatchers of the bandkit modules imported so far."""
    from numba.core.dispatcher import Dispatcher

    seen = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "bandkit" or name.startswith("bandkit.")):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher):
                seen[id(value)] = value
    return list(seen.values())


def _cold(dispatcher) -> bool:
    """Whether ``dispatcher`` has no cache index yet (it will be compiled, not loaded)."""
    try:
        return not os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:  # numba internals moved: count it as cold
        return True


def cold_kernel_count() -> int:
    return sum(_cold(d) for d in _bandkit_kernels())


_NOTICE = {"stream": None, "done": False, "registered": False}


def announce_compiles(stream=None) -> None:
    """Print ``bandkit: compiling once (≈ N s)…`` on ``stream`` (stderr) at the first real numba compile.

    A cache hit prints nothing (numba fires its ``numba:compile`` event only on a cache miss, before it
    compiles). N is :data:`SECONDS_PER_KERNEL` times the kernels without a cache index among the bandkit
    modules imported by then: import the analyses a command runs before it starts so that they count.
    Printed once per process; imports numba (callers use it only on the paths that need numba anyway).
    """
    _NOTICE["stream"] = stream if stream is not None else sys.stderr
    if _NOTICE["registered"]:
        return
    from numba.core import event

    class _Notice(event.Listener):
        def on_start(self, ev):
            if _NOTICE["done"] or _NOTICE["stream"] is None:
                return
            _NOTICE["done"] = True
            seconds = max(1, round(max(cold_kernel_count(), 1) * SECONDS_PER_KERNEL))
            try:
                _NOTICE["stream"].write(f"\r\x1b[Kbandkit: compiling once (≈ {seconds} s)…\n")
                _NOTICE["stream"].flush()
            except (OSError, ValueError):  # a closed or full stream: the notice is not worth an error
                pass

        def on_end(self, ev):
            pass

    event.register("numba:compile", _Notice())
    _NOTICE["registered"] = True
