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

Kernels that are also worth running without numba (the change-point engine's) are declared with :func:`njit` from
this module instead of numba's. Such a kernel is a :class:`Kernel`: until numba is needed, a call on arrays of at
most :data:`PYTHON_MAX` values runs its Python function (or a registered numpy stand-in, :data:`TWINS`, giving
the same values) and numba is not even imported: ``import numba`` (0.2-0.4 s), its first-use set-up (0.2-0.5 s)
and loading the cached kernels cost more than the whole analysis of up to ~65,000 values in numpy. Past that,
or once the kernels have spent :data:`PYTHON_BUDGET_S` in Python in this process (many series), numba pays off
*if the kernels are in its cache*; compiling them costs ≈ 11 s of CPU, so with a cold cache (the first calls
after an install) inputs of up to :data:`PYTHON_COLD_MAX` values keep running in numpy (≈ 0.6 s of CPU at
1e5 values) while :func:`warm_in_background` compiles the kernels into the cache in a niced background process
(``bandkit._warm``; one at a time; not from a read-only install; ``BANDKIT_WARM=0`` turns it off); once its
marker is there (:func:`cache_warm`), calls load the compiled kernels. A longer input with a cold cache
compiles in the process (announced by :func:`announce_compiles`). :func:`use_compiled` imports numba and makes
every kernel a numba dispatcher (module globals included, so compiled kernels call compiled kernels). Both ways
give the same results (``tests/test_kernels_python.py``). ``BANDKIT_KERNELS=compiled`` (or ``python``) forces
one way, for tests and benchmarks.
"""
from __future__ import annotations

import os
import sys
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
        import tempfile  # (here: tempfile imports shutil, bz2 and lzma, ~5 ms of every start-up)

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
    import tempfile

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
    _WARM["fallback"] = str(path)
    config = sys.modules.get("numba.core.config")
    if config is not None and not getattr(config, "CACHE_DIR", ""):
        config.CACHE_DIR = str(path)
    return str(path)


#: State of the background compile (see :func:`warm_in_background`).
_WARM = {"fallback": None, "proc": None, "spawned": False, "warm": False, "checked": None, "key": None}

#: The modules whose kernels the background compile puts into numba's cache (their source files key the marker).
WARM_SOURCES = ("changepoints/fpop.py", "changepoints/robust.py", "changepoints/_eliminate.py")


def _warm_key() -> str:
    """Hash of what numba's cache of the change-point kernels depends on (interpreter, numba's install, the
    kernels' source files); a new install or an edited source gives a new marker."""
    if _WARM["key"] is None:
        import hashlib
        import importlib.util

        parts = [sys.version, sys.executable]
        spec = importlib.util.find_spec("numba")
        origin = spec.origin if spec is not None else None
        for path in [origin] + [str(PACKAGE_DIR / rel) for rel in WARM_SOURCES]:
            try:
                st = os.stat(path)
                parts += [path, st.st_mtime_ns, st.st_size]
            except (OSError, TypeError):
                parts += [path, None]
        _WARM["key"] = hashlib.sha1(repr(parts).encode()).hexdigest()[:16]
    return _WARM["key"]


def _cache_home(environ=os.environ) -> Path:
    """Where numba caches the change-point kernels: ``NUMBA_CACHE_DIR``, else their ``__pycache__``."""
    user = environ.get("NUMBA_CACHE_DIR")
    return Path(user) if user else PACKAGE_DIR / "changepoints" / "__pycache__"


def warm_marker(environ=os.environ, suffix: str = "warm") -> Path:
    """The file :mod:`bandkit._warm` writes once the change-point kernels are in numba's cache."""
    return _cache_home(environ) / f"bandkit-changepoints-{_warm_key()}.{suffix}"


def warm_dir(environ=os.environ) -> Path | None:
    """The cache directory a background compile may write to, or None: never for a read-only install (the
    per-user fallback of :func:`configure_cache`), nor when ``BANDKIT_WARM=0`` or the directory is not
    writable."""
    if environ.get("BANDKIT_WARM", "1").strip().lower() in ("0", "no", "off", "false"):
        return None
    user = environ.get("NUMBA_CACHE_DIR")
    if user and user == _WARM["fallback"]:
        return None
    if not user and not _package_writable(PACKAGE_DIR / "changepoints"):
        return None
    path = _cache_home(environ)
    return path if _writable_dir(path) else None


def cache_warm() -> bool:
    """Whether the background compile has put the change-point kernels into numba's cache (its marker exists;
    looked for at most twice a second)."""
    if _WARM["warm"]:
        return True
    now = time.monotonic()
    if _WARM["checked"] is not None and now - _WARM["checked"] < 0.5:
        return False
    _WARM["checked"] = now
    proc = _WARM["proc"]
    if proc is not None and proc.poll() is not None:  # reap it: no process is left behind
        _WARM["proc"] = None
    _WARM["warm"] = warm_marker().exists()
    return _WARM["warm"]


def _held(lock: Path) -> bool:
    """Whether another process holds ``lock`` (a background compile is running)."""
    import fcntl

    with open(lock, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
    return False


def warm_in_background() -> bool:
    """Start :mod:`bandkit._warm` in a process of its own (this interpreter, this package's directory first on
    its path; niced, detached, its output discarded) to compile the change-point
    kernels into numba's cache, unless one is running (a lock file); at most once per process. Returns
    whether a background compile is under way. Not from a read-only install, nor with ``BANDKIT_WARM=0``,
    nor after a background compile failed for this install (its ``.failed`` marker)."""
    proc = _WARM["proc"]
    if proc is not None:
        if proc.poll() is None:
            return True
        _WARM["proc"] = None
    try:
        folder = warm_dir()
        if folder is None or warm_marker(suffix="failed").exists():
            return False
        if _held(folder / "bandkit-warm.lock"):
            return True
        if _WARM["spawned"]:
            return False
        import subprocess

        env = dict(os.environ, BANDKIT_KERNELS="compiled", BANDKIT_WARM="0")
        code = "import sys; sys.path.insert(0, sys.argv[1]); from bandkit._warm import main; sys.exit(main())"
        _WARM["spawned"] = True
        _WARM["proc"] = subprocess.Popen(
            [sys.executable, "-c", code, str(PACKAGE_DIR.parent)], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(folder), env=env,
            start_new_session=True, close_fds=True)
        # reaped as soon as it ends (no zombie in a long-lived process, a notebook, that calls no more kernels)
        threading.Thread(target=_WARM["proc"].wait, name="bandkit-warm-reaper", daemon=True).start()
        return True
    except (ImportError, OSError, ValueError):  # no fcntl (Windows), no interpreter to start: no warm
        return False


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
#: in use: up to here the Python/numpy path of the change-point engine costs less than numba's start-up and
#: loading the cached kernels (0.3 vs 0.6 s of CPU at 3e4 values, 0.5 vs 0.6 s at 6.5e4, 0.9 vs 0.7 s at
#: 1.3e5: benchmarks/RESULTS_speed.md §8).
PYTHON_MAX = 1 << 16

#: numpy stand-ins of kernels whose Python loop would be slow: "module.kernel" -> "module:function" (same
#: arguments, same results; tested against the compiled kernels).
TWINS = {
    "bandkit.changepoints.fpop._fpop_l2": "bandkit.changepoints._numpy_kernels:fpop_l2",
    "bandkit.changepoints.robust._running_median": "bandkit.changepoints._numpy_kernels:running_median",
    "bandkit.changepoints.robust._select": "bandkit.changepoints._numpy_kernels:select",
    "bandkit.changepoints.robust._select_pair": "bandkit.changepoints._numpy_kernels:select_pair",
    "bandkit.changepoints.robust._running_median9": "bandkit.changepoints._numpy_kernels:running_median9",
    "bandkit.changepoints.robust._residuals_at": "bandkit.changepoints._numpy_kernels:residuals_at",
    "bandkit.changepoints._eliminate.prefix_sums": "bandkit.changepoints._numpy_kernels:prefix_sums",
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

#: Largest input run without numba while the change-point kernels are not in numba's cache (a first call
#: after an install): up to here the numpy path (≈ 0.6 s of CPU at 1e5 values, 2.2 s at 5e5, 4.3 s at 1e6)
#: costs less than compiling the kernels (≈ 11 s of CPU) and running them (benchmarks/RESULTS_speed.md §8).
PYTHON_COLD_MAX = 1 << 21

#: CPU time (s) a process may spend in numpy on long series with a cold cache and no background compile
#: before it compiles (about one compile).
PYTHON_COLD_BUDGET_S = 10.0

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
            forced = _MODE["forced"]
            if not _MODE["compiled"] and forced != "compiled":
                if _PY["depth"] or forced == "python":  # called from a kernel run in Python
                    return self.python()(*args)
                if _python_pays(_size(args)):
                    _PY["depth"] = 1
                    t0 = time.thread_time()
                    try:
                        return self.python()(*args)
                    finally:
                        _PY["depth"] = 0
                        _PY["spent"] += time.thread_time() - t0
            use_compiled()
        return self.dispatcher(*args)

    def compile_alone(self):
        """This kernel's numba dispatcher, made without switching the other kernels (for a kernel that calls
        no other kernel: FPOP, to settle a rare near-tie of its numpy stand-in on a long series)."""
        if self.dispatcher is None:
            import numba

            with _LOCK:
                if self.dispatcher is None:
                    self.dispatcher = numba.njit(**self.options)(self.py_func)
        return self.dispatcher

    def __repr__(self):
        return f"<bandkit kernel {self.__module__}.{self.__qualname__}>"


def _python_pays(size: int) -> bool:
    """Whether a top-level kernel call on ``size`` values runs without numba (see the module docstring)."""
    small = size <= PYTHON_MAX
    if small and _PY["spent"] <= PYTHON_BUDGET_S:
        return True
    # numba would pay off here (a long series, or many series): compiled when the cache holds the kernels
    if size > PYTHON_COLD_MAX or cache_warm():
        return False
    if warm_in_background():  # later calls load what it compiles
        return True
    # no background compile (opted out, read-only install): a long series costs less in numpy than numba's
    # compile, until the process has spent about that compile in numpy
    return not small and _PY["spent"] <= PYTHON_COLD_BUDGET_S


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
