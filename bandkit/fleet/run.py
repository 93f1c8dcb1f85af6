"""Fleet execution: local processes or a Dask cluster run :func:`~bandkit.fleet.rows.summarize_path`
on every input; :func:`rank_fleet` ranks what comes back."""
from __future__ import annotations

import math
import os
from typing import Any, Callable, Iterable, Mapping

from ..errors import UsageError
from .inputs import TABLE_NAME, expand_inputs
from .report import DEFAULT_Z, FleetReport, build_report
from .rows import DEFAULT_BINS, summarize_path


def _mp_context():
    """Start method of the worker processes.

    ``fork`` when this process runs no other thread (the CLI): workers inherit the imported modules
    and the numba functions :func:`_warm_up` loaded, so a worker starts in milliseconds instead of
    re-importing bandkit, scipy and numba (~1-2 s each). With other threads alive (a notebook kernel,
    a Dask client) forking is unsafe, so ``forkserver`` (bandkit preloaded in the server) is used.
    """
    import multiprocessing as mp
    import threading

    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return mp.get_context("fork")
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        try:
            ctx.set_forkserver_preload(["bandkit.fleet", "bandkit.analyze", "bandkit.loaders.ftq"])
        except Exception:  # pragma: no cover
            pass
        return ctx
    return mp.get_context("spawn")  # pragma: no cover


def _warm_up(options, n_bins: int) -> None:
    """Run the whole per-trace pipeline once on a tiny synthetic trace (imports every section's
    modules, loads numba's cached machine code) so that forked workers start warm."""
    from ..synthetic.ftq import generate_ftq
    from ..trace import Trace, TraceMeta
    import pandas as pd

    g = generate_ftq(4000, stall_rate_hz=5.0, seed=0)
    df = pd.DataFrame({"time": g.time_ns * 1e-9, "value": g.count, "catchup": g.catchup})
    t = Trace(df, TraceMeta(path="<warm-up>", format="ftq", sampling_hz=g.freq_hz))
    try:
        summarize_path(t, options=options, n_bins=n_bins)
    except Exception:  # pragma: no cover - warming up is an optimisation only
        pass


def _all_tables(items) -> bool:
    return bool(items) and all(isinstance(x, str) and TABLE_NAME.search(x) for x in items)


def _warm_up_history(options) -> None:
    """Run the history pipeline once on a small generated table (imports what a history row needs,
    loads numba's cached code) so that forked workers start warm."""
    import io

    from ..synthetic.history import generate_history

    buf = io.StringIO()
    generate_history(60, seed=0).to_csv(buf)
    src = io.BytesIO(buf.getvalue().encode())
    src.name = "<warm-up>.csv"
    try:
        from .._numba import use_compiled

        use_compiled()  # a fleet analyses many series: the compiled change-point kernels pay off
        from ..loaders.registry import load_traces

        for t in load_traces(src):
            summarize_path(t, options=options)
    except Exception:  # pragma: no cover - warming up is an optimisation only
        pass


_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _run_local(items, jobs: int, kwargs: dict, progress: Callable | None) -> list[list[dict]]:
    if jobs <= 1 or len(items) <= 1:
        it = progress(items) if progress else items
        return [summarize_path(x, **kwargs) for x in it]
    from concurrent.futures import ProcessPoolExecutor

    jobs = min(jobs, len(items))
    # small chunks: the last chunk of a worker is the idle tail of the other (8 chunks per worker
    # left up to 12 traces, ~0.5 s, on one worker at the end of a 200-trace fleet)
    chunksize = max(1, len(items) // (jobs * 64))
    # one thread per worker process: N processes x N BLAS/OpenMP threads would oversubscribe the cores
    saved = {k: os.environ.get(k) for k in _THREAD_VARS}
    for k in _THREAD_VARS:
        os.environ.setdefault(k, "1")
    try:
        ctx = _mp_context()
        if ctx.get_start_method() == "fork":
            if _all_tables(items):  # histories: warm only what they use (no FTQ analyses in the workers)
                _warm_up_history(kwargs.get("options"))
            else:
                _warm_up(kwargs.get("options"), kwargs.get("n_bins", DEFAULT_BINS))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as ex:
            results = ex.map(_call_summarize, [(x, kwargs) for x in items], chunksize=chunksize)
            if progress:
                results = progress(_Sized(results, len(items)))
            return list(results)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _call_summarize(arg):
    item, kwargs = arg
    return summarize_path(item, **kwargs)


class _Sized:
    """An iterator that knows its length, so a progress bar can show the total."""

    def __init__(self, it, n: int):
        self._it, self._n = it, n

    def __iter__(self):
        return iter(self._it)

    def __len__(self) -> int:
        return self._n


def _run_dask(items, client, kwargs: dict, progress: Callable | None) -> list[list[dict]]:
    futures = client.map(summarize_path, list(items), pure=False, **kwargs)
    if progress:  # advance as results arrive on the cluster; gather keeps the input order
        from distributed import as_completed

        for _ in progress(_Sized(as_completed(futures), len(futures))):
            pass
    return client.gather(futures)


def rank_fleet(paths_or_traces: Iterable[Any], *, jobs: int = 1, client=None, scheduler: str | None = None,
               options=None, n_bins: int = DEFAULT_BINS, z_threshold: float = DEFAULT_Z,
               format: str | None = None, load_options: Mapping[str, Any] | None = None,
               progress: Callable | None = None) -> FleetReport:
    """Analyse every trace and rank the fleet (worst FTQ fraction first).

    ``paths_or_traces``: files, directories, glob patterns (expanded with :func:`expand_inputs`) or
    Trace objects. Back end: ``client`` (a ``dask.distributed.Client``) or ``scheduler`` (its address)
    run :func:`summarize_path` on a Dask cluster — the workers must see the same paths; otherwise
    ``jobs`` local processes (1: in this process). ``options``: :class:`~bandkit.AnalysisOptions`.
    """
    from ..trace import Trace

    if jobs < 1:
        raise UsageError("jobs must be at least 1")
    if client is not None and scheduler is not None:
        raise UsageError("give either a Dask client or a scheduler address, not both")
    if not 0 < z_threshold < math.inf:
        raise UsageError("z_threshold must be positive")
    raw = list(paths_or_traces) if not isinstance(paths_or_traces, (str, os.PathLike, Trace)) else [paths_or_traces]
    items: list[Any] = []
    pending: list[str] = []
    for x in raw:
        if isinstance(x, Trace):
            if pending:
                items.extend(expand_inputs(pending))
                pending = []
            items.append(x)
        else:
            pending.append(os.fspath(x))
    if pending:
        items.extend(expand_inputs(pending))
    if not items:
        raise UsageError("no traces given")
    kwargs = {"options": options, "n_bins": int(n_bins), "format": format,
              "load_options": dict(load_options or {})}
    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover
            raise UsageError("--dask-scheduler needs the 'distributed' package") from None
        try:
            c = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise UsageError(f"cannot connect to the Dask scheduler at {scheduler} ({exc})") from None
        with c:
            results, backend = _run_dask(items, c, kwargs, progress), "dask"
    elif client is not None:
        results, backend = _run_dask(items, client, kwargs, progress), "dask"
    else:
        results, backend = _run_local(items, jobs, kwargs, progress), "local"
    rows = [r for rs in results for r in rs]
    return build_report(rows, z_threshold=z_threshold, n_bins=n_bins, backend=backend)
