"""Shared helpers of the benchmark-runner loaders: JSON reading with useful errors, and building
one runner :class:`~bandkit.Trace` per benchmark from per-run values and metadata.

Runner trace layout (``meta.kind == "runner"``): one row per measured value, columns ``run``
(1-based run number), ``value_index`` (0-based position of the value in its run), ``value``,
``time`` (seconds since the first run's ``date`` when known, else NaN) and the parsed per-run
metadata columns (see :mod:`bandkit.metadata`). Warm-up values and calibration runs are kept in
``meta.extra`` (``"warmups"``: list of ``[process, run, loops, value]``, ``"calibration_runs"``),
never in the rows, so analyses of ``trace.values`` only see measurements.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import chain
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from .._json import jsonable as plain
from ..errors import InputError
from ..metadata import EXPANDED_PREFIXES, Coded, parses_cleanly, run_metadata_arrays
from ..trace import Trace, TraceMeta
from .options import reject_options  # noqa: F401 (re-exported: the runner loaders import it from here)
from .source import Source


def read_json(source: Source, fmt: str | None = None) -> Any:
    """Parse a JSON file within bounds (depth, number length; :mod:`.jsoninput`) and, given the
    format, check it against that format's input schema. Bare ``NaN`` / ``Infinity`` (and C-style
    ``nan`` / ``inf``) are accepted. Errors name the file and the line or field."""
    from .jsoninput import check_schema, parse_json

    doc = parse_json(source.name, source.read_bytes())
    if fmt is not None:
        check_schema(source.name, doc, fmt)
    return doc


def require(obj: Any, key: str, typ: type | tuple[type, ...], source: Source, where: str = "") -> Any:
    """``obj[key]`` checked for type; InputError naming the field otherwise."""
    field = f"{where}{key}"
    if not isinstance(obj, dict) or key not in obj:
        raise InputError(source.name, "missing field", field=field)
    val = obj[key]
    if not isinstance(val, typ):
        raise InputError(source.name, f"expected {_typename(typ)}, got {type(val).__name__}", field=field)
    return val


def _typename(typ: type | tuple[type, ...]) -> str:
    if isinstance(typ, tuple):
        return " or ".join(t.__name__ for t in typ)
    return typ.__name__


#: Magnitudes accepted for a measured value (any unit; 0 too): outside, sums, squares and ratios in
#: the analyses overflow; no real measurement comes near either bound.
MAX_ABS_VALUE = 1e30
MIN_ABS_VALUE = 1e-30


def plausible(v: float) -> bool:
    """A measured value bandkit can analyse: finite, 0 or of magnitude within MIN/MAX_ABS_VALUE."""
    return v == 0 or MIN_ABS_VALUE <= abs(v) <= MAX_ABS_VALUE  # False for NaN and inf


def as_float(v: Any, source: Source, field: str, *, finite: bool = False) -> float:
    """A JSON number (or null -> NaN) as float; InputError otherwise. ``finite``: a measured value,
    which must be a finite number of magnitude at most :data:`MAX_ABS_VALUE` (null refused too)."""
    if v is None and not finite:
        return math.nan
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise InputError(source.name, f"expected a number, got {_json_type(v)}", field=field)
    try:
        f = float(v)
    except (ValueError, OverflowError):
        raise InputError(source.name, f"expected a number, got {str(v)[:40]!r}", field=field) from None
    if finite and not plausible(f):
        raise InputError(source.name, f"measured value {f!r} is not a finite number of plausible size "
                                      f"(0 or {MIN_ABS_VALUE:g} .. {MAX_ABS_VALUE:g})", field=field)
    return f


def as_floats(values: list, source: Source, field: str, *, finite: bool = True) -> list[float]:
    """A JSON list of measured values as floats (fast path; per-item checks and errors otherwise)."""
    if not any(type(v) is bool or v is None or type(v) is str for v in values):
        try:
            arr = np.asarray(values, dtype=np.float64)
            a = np.abs(arr)
            if arr.ndim == 1 and (not finite or bool(np.all((a == 0) | ((a >= MIN_ABS_VALUE) & (a <= MAX_ABS_VALUE))))):
                return arr.tolist()
        except (TypeError, ValueError, OverflowError):
            pass
    return [as_float(v, source, f"{field}[{k}]", finite=finite) for k, v in enumerate(values)]


_NUMBER_TYPES = frozenset((float, int))


def flat_floats(lists: Sequence[Any]) -> np.ndarray | None:
    """The measured values of several JSON lists (a benchmark's runs) as one float64 array, converted
    in one go, when every item of every list is a JSON number :func:`as_floats` accepts; None when any
    is not (or a list is not a list): then :func:`as_floats` per list finds and names the bad item."""
    if not all(type(x) is list for x in lists):
        return None
    flat = list(chain.from_iterable(lists))
    if not set(map(type, flat)) <= _NUMBER_TYPES:  # (bool, None, str: per-item path)
        return None
    try:
        arr = np.array(flat, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return None
    a = np.abs(arr)
    if not bool(np.all((a == 0) | ((a >= MIN_ABS_VALUE) & (a <= MAX_ABS_VALUE)))):
        return None
    return arr


def _json_type(v: Any) -> str:
    from .jsoninput import _type_name

    return _type_name(v)


_ON_READ: ContextVar[bool] = ContextVar("bandkit_metadata_on_read", default=False)


@contextmanager
def metadata_on_read() -> Iterator[None]:
    """Inside the block, the runner loaders parse a trace's per-run metadata on the first read of a column
    (``time`` or a metadata column) when :func:`~bandkit.metadata.parses_cleanly` vouches that it parses
    without an error (else at load, as outside: the same errors). For callers that read none
    (``bandkit compare``: ~40 % of loading a pyperf file); a caller that reads them all (the report) would pay
    the check and a parse later, away from the document's objects (measured ~15 ms more on a 60-benchmark file)."""
    token = _ON_READ.set(True)
    try:
        yield
    finally:
        _ON_READ.reset(token)


def build_runner_trace(
    source: Source,
    fmt: str,
    name: str,
    runs: Sequence[tuple[Sequence[float], Mapping[str, Any]]],
    *,
    value_unit: str,
    constant_metadata: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    times: Sequence[float] | None = None,
    run_numbers: Sequence[int] | None = None,
) -> Trace:
    """One runner Trace from ``runs`` = [(values, run_metadata), ...] in run order.

    ``constant_metadata`` (suite / benchmark level) is merged under each run's own metadata
    (run keys win), so every row carries the full metadata. ``times`` optionally gives each run's
    time in seconds (else derived from a ``date`` metadata column). ``run_numbers``: the number of
    each run as the runner's own tools show it (default 1..n).
    """
    const = dict(constant_metadata or {})

    def on_error(i: int, key: str, exc: Exception) -> None:
        raise InputError(source.name, f"run {i + 1} of benchmark {name!r}: cannot parse metadata: {exc}",
                         field=key)

    records = [md for _, md in runs]
    # bad metadata is an error of the load: parsed now, unless the caller reads no metadata (compare) and a
    # cheap check vouches that it parses (then on the first read of a column)
    keys = parses_cleanly(records, const) if _ON_READ.get() else None
    md: Mapping[str, Any] | None = None
    if keys is None:
        md = run_metadata_arrays(records, constant=const, on_error=on_error)
    counts = np.array([len(v) for v, _ in runs], dtype=np.int64)
    numbers = np.arange(1, len(runs) + 1, dtype=np.int64) if run_numbers is None else \
        np.asarray(run_numbers, dtype=np.int64)
    run_no = np.repeat(numbers, counts)
    n = int(counts.sum())
    vidx = np.arange(n, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    values = np.concatenate([np.asarray(v, dtype=np.float64) for v, _ in runs]) if runs else np.zeros(0)
    take = np.repeat(np.arange(len(runs)), counts)
    core = {"time": None, "run": run_no, "value_index": vidx, "value": values}

    def run_times(md: Mapping[str, Any]) -> np.ndarray:
        if times is not None:
            return np.asarray(times, dtype=np.float64)
        if "date" in md and len(runs):
            return _seconds_since_first(md["date"])
        return np.full(len(runs), np.nan)

    if md is not None:
        core["time"] = np.repeat(run_times(md), counts)
        data = RunnerColumns(core, md, take)
    else:
        data = RunnerColumns(core, lambda: run_metadata_arrays(records, constant=const, on_error=on_error), take,
                             keys=keys, run_times=run_times, counts=counts)
    ex = {"values_per_run": plain(sorted(set(counts.tolist()))), "summary_only": False,
          "metadata": plain_metadata_of(const)}
    ex.update(extra or {})
    meta = TraceMeta(path=source.name, format=fmt, kind="runner", name=name, value_unit=value_unit,
                     sampling_hz=None, time_unit="s", extra=ex)
    return Trace(data, meta)


def _seconds_since_first(d: np.ndarray) -> np.ndarray:
    """Seconds of each datetime64[ns] since the earliest (NaN for NaT): pandas'
    ``(s - s.min()).dt.total_seconds()`` (whole seconds and the residual divided separately, as
    pandas 3 does; pandas itself beyond 2**53 ns, where it nudges results off whole seconds)."""
    ok = ~np.isnat(d)
    if not ok.any():
        return np.full(len(d), np.nan)
    ns = (d - d[ok].min()).view(np.int64)
    if np.abs(ns[ok]).max() > 2 ** 53:
        import pandas as pd

        s = pd.Series(d)
        return (s - s.dropna().min()).dt.total_seconds().to_numpy(dtype=np.float64, na_value=np.nan)
    whole, residual = np.divmod(ns, 10 ** 9)
    return np.where(ok, whole + residual / 10 ** 9, np.nan)


class RunnerColumns(Mapping):
    """The columns of a runner trace (a read-only mapping for :class:`~bandkit.Trace`): ``time``, ``run``,
    ``value_index``, ``value`` as given, and each per-run metadata column repeated onto its run's values
    (``pd.Categorical`` for strings) only when first read: ``bandkit compare`` reads none of them.

    ``per_run``: the per-run metadata columns, or a function that parses them (called once, on the first
    read of ``time`` or of a metadata column, or of the names; ``keys``: the metadata keys, which answer
    ``name in columns`` for names no metadata column can have without the parse; ``run_times``: each run's
    time from the parsed columns, for ``time``; ``counts``: values per run)."""

    lazy_columns = True  # (Trace keeps the mapping instead of copying it into a dict)

    def __init__(self, core: dict[str, Any], per_run: "Mapping[str, Any] | Callable[[], Mapping[str, Any]]",
                 take: np.ndarray, *, keys: frozenset[str] | None = None, run_times=None, counts=None):
        self._core = core
        self._take = take
        self._built: dict[str, Any] = {}
        self._raw: dict[str, Any] = {}
        self._parse = per_run if callable(per_run) else None
        self._keys, self._run_times, self._counts = keys, run_times, counts
        self._per_run: dict[str, Any] | None = None if self._parse else self._own(per_run)

    def _own(self, per_run: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in per_run.items() if k not in self._core}

    def _metadata(self) -> dict[str, Any]:
        """The per-run metadata columns (parsed now if not yet)."""
        if self._per_run is None:
            md = self._parse()
            self._core["time"] = np.repeat(self._run_times(md), self._counts)
            self._per_run, self._parse = self._own(md), None
        return self._per_run

    def _core_column(self, name: str) -> Any:
        a = self._core.get(name)
        if a is None and name == "time" and name in self._core:
            self._metadata()
            a = self._core["time"]
        return a

    def __getitem__(self, name: str) -> Any:
        a = self._core_column(name)
        if a is None:
            a = self._built.get(name)
        if a is None:
            a = self.raw(name)
            if isinstance(a, Coded):
                a = a.to_pandas()
            self._built[name] = a
        return a

    def raw(self, name: str) -> Any:
        """The column ``name`` as :meth:`__getitem__` gives it, a string column as its
        :class:`~bandkit.metadata.Coded` (int64 codes + categories: no pandas) in place of the
        ``pd.Categorical`` (the post-mortem's report path reads these)."""
        a = self._core_column(name)
        if a is None:
            a = self._raw.get(name)
        if a is None:
            if not self._could_be_metadata(name):
                raise KeyError(name)
            src = self._metadata()[name]
            a = self._raw[name] = src.take(self._take) if isinstance(src, Coded) else src[self._take]
        return a

    def _could_be_metadata(self, name: object) -> bool:
        """False when no metadata key could make a column ``name`` (no parse needed to say so)."""
        return self._per_run is not None or name in self._keys or (
            isinstance(name, str) and name.startswith(EXPANDED_PREFIXES))

    def __contains__(self, name: object) -> bool:
        if name in self._core:
            return True
        return self._could_be_metadata(name) and name in self._metadata()

    def __iter__(self) -> Iterator[str]:
        return chain(self._core, self._metadata())

    def __len__(self) -> int:
        return len(self._core) + len(self._metadata())


def summary_trace(source: Source, fmt: str, name: str, value: float, *, value_unit: str,
                  stats: Mapping[str, Any] | None = None, metadata: Mapping[str, Any] | None = None,
                  reason: str = "the file holds only summary statistics, no per-run values",
                  summary_stats: Mapping[str, Any] | None = None,
                  plain_metadata: Mapping[str, Any] | None = None) -> Trace:
    """A one-row runner Trace for a benchmark whose file has no per-run data
    (``meta.extra["summary_only"] is True``; ``meta.extra["no_runs_reason"]`` says why;
    ``meta.extra["summary_stats"]``: the file's statistics, see :mod:`.summary_stats`).
    ``plain_metadata``: :func:`plain_metadata_of` of ``metadata``, when the caller made it once for
    the many benchmarks of a file that share it (an asv file can hold 60,000)."""
    data = {"time": np.array([np.nan]), "run": np.array([1], dtype=np.int64),  # (arrays; the Trace builds
            "value_index": np.array([0], dtype=np.int64),  # its frame only if asked: asv files hold
            "value": np.array([float(value)])}  # thousands of these)
    ex = {"summary_only": True, "no_runs_reason": reason, "stats": plain(dict(stats or {})),
          "metadata": dict(plain_metadata) if plain_metadata is not None else plain_metadata_of(metadata),
          "values_per_run": [1], "summary_stats": plain(dict(summary_stats)) if summary_stats else None}
    meta = TraceMeta(path=source.name, format=fmt, kind="runner", name=name, value_unit=value_unit,
                     time_unit="s", extra=ex)
    return Trace(data, meta)


def plain_metadata_of(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """The scalar (or list of scalars) entries of ``metadata`` as plain JSON values: a trace's
    ``meta.extra["metadata"]``."""
    return plain({k: v for k, v in dict(metadata or {}).items() if _is_plain_scalar(v)})


def _is_plain_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool)) or (
        isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) for x in v))


TIME_UNITS_S = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
