"""The `Trace` model: one measured series (an FTQ thread, a benchmark's runs) plus its metadata.

Data flow: loaders -> Trace -> analyses -> results -> report.  A Trace holds *all* rows the
file had (FTQ catch-up rows included, flagged in the ``catchup`` column) so nothing the user
recorded is lost; analyses use :attr:`Trace.samples` / :attr:`Trace.values`, which exclude them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

if TYPE_CHECKING:  # (pandas is imported when a frame is first asked for: not by ``import bandkit``)
    import pandas as pd

from .display import DisplayMixin

#: Trace kinds.
KINDS = ("ftq", "runner", "series", "history")

#: Seconds per unit of the time units result files write (``TraceMeta.value_unit``): pyperf's "second",
#: Google Benchmark's "us", PTS's "Seconds". The text renderer, the plots and ``compare``'s direction of
#: better read times by it.
SECONDS_PER_UNIT = MappingProxyType({
    "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0, "Seconds": 1.0, "Second": 1.0,
    "ms": 1e-3, "milliseconds": 1e-3, "us": 1e-6, "µs": 1e-6, "microseconds": 1e-6, "ns": 1e-9, "nanoseconds": 1e-9})


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class TraceMeta:
    """Metadata of a trace (immutable; use :meth:`replace`).

    Units: ``sampling_hz`` in Hz (nominal, as configured); ``time_unit`` is ``"s"`` or
    ``"ticks"`` (older FTQ format without a clock rate); ``ticks_per_ns`` when known.
    """

    path: str
    format: str
    kind: str = "ftq"
    name: str | None = None
    thread: int | None = None
    cpu: int | None = None
    sampling_hz: float | None = None
    time_unit: str = "s"
    value_unit: str = "count"
    ticks_per_ns: float | None = None
    kernel: str | None = None
    cpu_model: str | None = None
    header: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        object.__setattr__(self, "header", _frozen(self.header))
        object.__setattr__(self, "extra", _frozen(self.extra))

    def replace(self, **changes: Any) -> "TraceMeta":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["header"] = dict(self.header)
        d["extra"] = dict(self.extra)
        return d


class Trace(DisplayMixin):
    """A pandas-backed series with metadata.

    In a notebook it shows its key figures and raw plot (``_repr_html_``, :mod:`bandkit.display`).
    Treat ``data`` as read-only once built: :attr:`samples` and :attr:`stalls` are computed once
    and cached (build a new Trace to change the rows).

    ``data`` columns: ``time`` (float64, in ``meta.time_unit``; NaN where the format has no
    times), ``value`` (the measurement: FTQ work count, or a runner's time per value), and
    per format: ``catchup`` (bool, FTQ rows written to catch up after a stall), ``run``
    (1-based run number of a runner value), per-run metadata columns.
    """

    __slots__ = ("_data", "_cols", "meta", "_stalls", "_stall_cols", "_samples")

    def __init__(self, data: "pd.DataFrame | Mapping[str, Any]", meta: TraceMeta):
        """``data``: a DataFrame, or its columns as a dict of equal-length arrays (numpy arrays or
        ``pd.Categorical``): then the DataFrame is built only when :attr:`data` is first asked for,
        and analyses read the arrays through :meth:`column` (a runner file of thousands of
        benchmarks builds no frame)."""
        if isinstance(data, Mapping):
            cols = data if getattr(data, "lazy_columns", False) else dict(data)  # (columns built on demand)
            if "value" not in cols:
                raise ValueError("Trace data needs a 'value' column")
            if "time" not in cols:
                cols["time"] = np.full(len(cols["value"]), np.nan)
            self._cols: dict[str, Any] | None = cols
            self._data = None
        else:
            if "value" not in data.columns:
                raise ValueError("Trace data needs a 'value' column")
            if "time" not in data.columns:
                data = data.assign(time=np.nan)
            self._cols = None
            self._data = data
        self.meta = meta
        self._stalls: pd.DataFrame | None = None
        self._stall_cols: dict[str, np.ndarray] | None = None
        self._samples: pd.DataFrame | None = None

    @property
    def data(self) -> pd.DataFrame:
        """All rows as a DataFrame (built on first access when the trace was made from arrays)."""
        if self._data is None:
            import pandas as pd

            self._data = pd.DataFrame(dict(self._cols))
        return self._data

    @property
    def column_arrays(self) -> dict[str, Any] | None:
        """The columns as given (name -> numpy array or ``pd.Categorical``; all rows) when the trace
        was built from arrays, else None. Read-only."""
        return self._cols

    @property
    def column_names(self) -> list[str]:
        return list(self._cols) if self._cols is not None else list(self.data.columns)

    def has_column(self, name: str) -> bool:
        return name in self._cols if self._cols is not None else name in self.data.columns

    def column(self, name: str, *, samples: bool = False):
        """Column ``name`` as a read-only numpy array (``pd.Categorical`` for a categorical column), all
        rows or (``samples=True``) only the sample rows (see :attr:`sample_mask`), without building a
        frame when the trace holds arrays."""
        if self._cols is not None:
            a = self._cols[name]
        else:
            s = self.data[name]
            a = s.array if s.dtype.name == "category" else s.to_numpy()
        if samples:
            mask = self.sample_mask
            if mask is not None:
                a = a[mask]
        if isinstance(a, np.ndarray) and a.flags.writeable:  # (read-only, as pandas' copy-on-write views are:
            a = a.view()                                      # an in-place edit must not change the trace)
            a.flags.writeable = False
        return a

    # -- views -----------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return self.meta.kind

    @property
    def path(self) -> str:
        return self.meta.path

    @property
    def label(self) -> str:
        """Short human label: benchmark name, or path plus thread when a file holds several."""
        if self.meta.name:
            return self.meta.name
        if self.meta.thread is not None and self.meta.extra.get("threads_in_file", 1) > 1:
            return f"{self.meta.path}#{self.meta.thread}"
        return self.meta.path

    @property
    def has_catchup(self) -> bool:
        return self.has_column("catchup")

    @property
    def sample_mask(self) -> np.ndarray | None:
        """Boolean mask of rows that are real, full measurements; None when every row is.

        Excluded: FTQ catch-up rows (``catchup``) and quanta known to be short (``partial``,
        e.g. the mask-aligned first quantum of the two-file FTQ format).
        """
        cols = [c for c in ("catchup", "partial") if self.has_column(c)]
        if not cols:
            return None
        bad = np.asarray(self.column(cols[0]), dtype=bool)
        for c in cols[1:]:
            bad = bad | np.asarray(self.column(c), dtype=bool)
        return ~bad

    @property
    def samples(self) -> pd.DataFrame:
        """Rows that are real measurements (FTQ catch-up rows and partial quanta excluded)."""
        if self._samples is None:
            mask = self.sample_mask
            self._samples = self.data if mask is None else self.data.loc[mask]  # (data imports pandas)
        return self._samples

    @property
    def values(self) -> np.ndarray:
        """Sample values as float64 (catch-up rows excluded)."""
        if self._cols is not None:
            return np.asarray(self.column("value", samples=True), dtype=np.float64)
        return self.samples["value"].to_numpy(dtype=np.float64)

    @property
    def times(self) -> np.ndarray:
        """Sample times (catch-up rows excluded), in ``meta.time_unit``."""
        if self._cols is not None:
            return np.asarray(self.column("time", samples=True), dtype=np.float64)
        return self.samples["time"].to_numpy(dtype=np.float64)

    @property
    def period(self) -> float | None:
        """Nominal quantum / sampling period in seconds (None if unknown)."""
        return 1.0 / self.meta.sampling_hz if self.meta.sampling_hz else None

    @property
    def stalls(self) -> pd.DataFrame:
        """Stall episodes (FTQ): see :func:`bandkit.stalls.find_stalls`."""
        if self._stalls is None:
            import pandas as pd

            self._stalls = pd.DataFrame(self.stall_columns)
        return self._stalls

    @property
    def stall_columns(self) -> dict[str, np.ndarray]:
        """The columns of :attr:`stalls` as numpy arrays, without pandas (see
        :func:`bandkit.stalls.stall_columns`). Computed once; treat as read-only."""
        if self._stall_cols is None:
            from .stalls import stall_columns

            cols = stall_columns(self)
            for a in cols.values():
                a.flags.writeable = False  # (cached: an in-place edit must not change later reads)
            self._stall_cols = cols
        return self._stall_cols

    def __len__(self) -> int:
        return len(self._cols["value"]) if self._cols is not None else len(self.data)

    def __repr__(self) -> str:
        m = self.meta
        rate = f", {m.sampling_hz:g} Hz" if m.sampling_hz else ""
        return f"<Trace {m.kind}/{m.format} {self.label!r}: {len(self)} rows{rate}>"
