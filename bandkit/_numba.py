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

Kernels that are also worth running without numba (the change-point engine's, on the short series of a CI
history: ~1,500 build medians) are declared with :func:`njit` from this module instead of numba's. Such a
kernel is a :class:`Kernel`: until numba is needed, a call on arrays of at most :data:`PYTHON_MAX` values runs
its Python function (or a registered numpy stand-in, :data:`TWINS`, giving the same values) and numba is not
even imported; the first call on a larger input, or once the kernels have spent :data:`PYTHON_BUDGET_S` in
Python in this process (many series: numba pays off), or :func:`use_compiled`, imports numba, makes every kernel a
numba dispatcher (module globals included, so compiled kernels call compiled kernels) and from then on the
compiled kernels run. ``import numba`` (0.2-0.4 s), its first-use set-up (0.2-0.5 s) and loading ~10 cached
kernels cost more than the whole analysis of a CI history in numpy (benchmarks/RESULTS_history.md). Both ways
give the same results (``tests/test_kernels_python.py``). ``BANDKIT_KERNELS=compiled`` (or ``python``) forces
one way, for tests and benchmarks.
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from pathlib import Path

__all__ = ["configure_cache", "fallback_cache_dir", "announce_compiles", "SECONDS_PER_KERNEL", "njit", "Kernel",
           "use_compiled", "compiled_in_use", "light_blas_check", "use_light_blas_check"]

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


def light_blas_check() -> bool:
    """Load scipy's BLAS extension (``scipy.linalg.cython_blas``) on its own, so that numba's BLAS check
    does not import the whole of scipy.linalg (~0.1 s of CPU, 5 % of an FTQ report) just to learn that
    BLAS is there. For processes bandkit owns (the CLI): numba's first kernel load imports
    ``numba.np.arraymath``, whose import-time ``_check_blas`` runs ``import scipy.linalg.cython_blas``;
    with the extension already in ``sys.modules`` Python does not import its parent package. (In a user's
    process, ``scipy.linalg.cython_blas`` would then not be an attribute of a later-imported
    ``scipy.linalg``: the library does not call this.) The module is the one scipy ships, its C API
    (what numba's BLAS calls use) the same. Returns True when loaded here; False (nothing changed) when
    numba's check already ran, the module is already loaded, or the file is not found or fails to load.
    """
    name = "scipy.linalg.cython_blas"
    if name in sys.modules or "numba.np.arraymath" in sys.modules:
        return False
    try:
        import importlib.machinery
        import importlib.util

        import scipy
    except ImportError:
        return False
    folder = Path(scipy.__file__).resolve().parent / "linalg"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"cython_blas{suffix}"
        if path.is_file():
            break
    else:
        return False
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except Exception:  # any failure: leave the normal import to numba
        sys.modules.pop(name, None)
        return False
    return True


def use_light_blas_check() -> None:
    """Run :func:`light_blas_check` right after numba is imported (now, if it is): for the CLI's process.
    A command that never needs numba (a CI history's report) imports neither numba nor scipy for it."""
    _NOTICE["light_blas"] = True
    if "numba" in sys.modules:
        light_blas_check()
    elif not any(isinstance(f, _WhenNumbaIsImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenNumbaIsImported())


#: Largest input (values in the biggest array argument) a :class:`Kernel` runs without numba before numba is
#: in use: up to here the Python/numpy path of the change-point engine costs less than numba's start-up.
PYTHON_MAX = 8192

#: numpy stand-ins of kernels whose Python loop would be slow: "module.kernel" -> "module:function" (same
#: arguments, same results; tested against the compiled kernels).
TWINS = {
    "bandkit.changepoints.fpop._fpop_l2": "bandkit.changepoints._numpy_kernels:fpop_l2",
    "bandkit.changepoints.robust._running_median": "bandkit.changepoints._numpy_kernels:running_median",
    "bandkit.changepoints.robust._select": "bandkit.changepoints._numpy_kernels:select",
    "bandkit.changepoints.robust._median_inplace": "bandkit.changepoints._numpy_kernels:median_inplace",
    "bandkit.changepoints.robust._lag_diffs": "bandkit.changepoints._numpy_kernels:lag_diffs",
    "bandkit.changepoints.robust._spike_max": "bandkit.changepoints._numpy_kernels:spike_max",
    "bandkit.changepoints.robust._segment_stats": "bandkit.changepoints._numpy_kernels:segment_stats",
}

#: CPU time (s, of the calling thread: the same on a loaded machine as on a quiet one) the kernels may spend
#: running without numba in a process (a notebook or a fleet analysing many series) before numba is brought
#: in: about what numba's start-up costs, so that a process never pays much more than twice the better of
#: the two ways.
PYTHON_BUDGET_S = 0.5

_MODE = {"compiled": False, "forced": os.environ.get("BANDKIT_KERNELS", "auto")}
_PY = {"depth": 0, "spent": 0.0}  # budget accounting only (not per thread: a race miscounts, nothing else)
_LOCK = threading.Lock()
_KERNELS: list = []


class Kernel:
    """A kernel compiled by numba on first need (see the module docstring); ``py_func`` is its Python
    function, ``dispatcher`` the numba dispatcher (created by :func:`use_compiled`)."""

    def __init__(self, py_func, options: dict):
        self.py_func = py_func
        self.options = options
        self.dispatcher = None
        self._python = None
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__module__ = py_func.__module__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func

    def python(self):
        """The function run without numba: the numpy stand-in of :data:`TWINS`, else ``py_func``."""
        if self._python is None:
            target = TWINS.get(f"{self.__module__}.{self.__name__}")
            if target is None:
                self._python = self.py_func
            else:
                import importlib

                mod, name = target.split(":")
                self._python = getattr(importlib.import_module(mod), name)
        return self._python

    def __call__(self, *args):
        if self.dispatcher is None:
            if not _MODE["compiled"] and _MODE["forced"] != "compiled" and (
                    _MODE["forced"] == "python" or _size(args) <= PYTHON_MAX):
                if _PY["depth"] or _MODE["forced"] == "python":  # called from a kernel run in Python
                    return self.python()(*args)
                if _PY["spent"] <= PYTHON_BUDGET_S:
                    _PY["depth"] = 1
                    t0 = time.thread_time()
                    try:
                        return self.python()(*args)
                    finally:
                        _PY["depth"] = 0
                        _PY["spent"] += time.thread_time() - t0
            use_compiled()
        return self.dispatcher(*args)

    def __repr__(self):
        return f"<bandkit kernel {self.__module__}.{self.__qualname__}>"


def _size(args) -> int:
    """Values in the largest array argument."""
    m = 0
    for a in args:
        if type(a) not in _SCALARS:
            m = max(m, getattr(a, "size", 0))
    return m


_SCALARS = {int, float, bool}


def njit(*args, **options):
    """``numba.njit`` for kernels that may also run without numba: ``@njit(cache=True, ...)`` or ``@njit``.
    Returns a :class:`Kernel` (a numba dispatcher once numba is in use)."""
    def wrap(f):
        if _MODE["compiled"]:
            import numba

            return numba.njit(**options)(f)
        k = Kernel(f, options)
        _KERNELS.append(k)
        return k

    if args and callable(args[0]) and not options:
        return wrap(args[0])
    return wrap


def compiled_in_use() -> bool:
    """Whether the kernels declared with :func:`njit` run compiled in this process from now on."""
    return _MODE["compiled"]


def use_compiled() -> None:
    """Import numba and make every :class:`Kernel` a numba dispatcher, in the modules that hold it too (before
    anything compiles: numba resolves a kernel's callees from its module's globals)."""
    if _MODE["compiled"]:
        return
    import numba

    with _LOCK:  # two threads crossing the threshold at once make one set of dispatchers
        if _MODE["compiled"]:
            return
        for k in _KERNELS:
            if k.dispatcher is None:
                k.dispatcher = numba.njit(**k.options)(k.py_func)
        by_id = {id(k): k.dispatcher for k in _KERNELS}
        for name, module in list(sys.modules.items()):
            if module is None or not (name == "bandkit" or name.startswith("bandkit.")):
                continue
            d = vars(module)
            for attr, value in list(d.items()):
                if isinstance(value, Kernel):
                    d[attr] = by_id[id(value)]
        _MODE["compiled"] = True


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


_NOTICE = {"stream": None, "done": False, "registered": False, "light_blas": False}


def announce_compiles(stream=None) -> None:
    """Print ``bandkit: compiling once (≈ N s)…`` on ``stream`` (stderr) at the first real numba compile.

    A cache hit prints nothing (numba fires its ``numba:compile`` event only on a cache miss, before it
    compiles). N is :data:`SECONDS_PER_KERNEL` times the kernels without a cache index among the bandkit
    modules imported by then: import the analyses a command runs before it starts so that they count.
    Printed once per process. Does not import numba (a CI history's kernels may never need it): when numba is
    not imported yet, the notice is set up right after its import (an import hook).
    """
    _NOTICE["stream"] = stream if stream is not None else sys.stderr
    if _NOTICE["registered"]:
        return
    if "numba" not in sys.modules:
        if not any(isinstance(f, _WhenNumbaIsImported) for f in sys.meta_path):
            sys.meta_path.insert(0, _WhenNumbaIsImported())
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


class _WhenNumbaIsImported:
    """Import hook: sets up the compile notice and/or the light BLAS check right after ``import numba``
    (then removes itself)."""

    def find_spec(self, name, path=None, target=None):
        if name != "numba":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec("numba")
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                if _NOTICE["light_blas"]:
                    light_blas_check()
                if _NOTICE["stream"] is not None:
                    announce_compiles(_NOTICE["stream"])

            spec.loader.exec_module = exec_module
        return spec
