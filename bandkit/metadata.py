"""Typed per-run metadata: a registry (type, unit, parser) in the spirit of pyperf's, and the
expansion of composite strings into numeric columns.

pyperf writes some metadata as strings that pack several numbers:

- ``cpu_freq``: ``"1,3,5=3332 MHz; 13=1828 MHz"`` (pyperf >= 1.0 separates groups with ``"; "``,
  older versions with ``", "``; CPU lists may hold ranges ``0-3``) -> one column per CPU
  ``cpu_freq_mhz.cpu<N>`` plus summaries ``cpu_freq_mhz_min/_max/_mean`` and
  ``cpu_freq_mhz_spread`` (max - min, MHz; 0 when every CPU reports the same frequency).
- ``cpu_temp``: ``"coretemp:Package id 0=56 C, coretemp:Core 8=57 C"`` -> one column per sensor
  ``cpu_temp_c.<sensor>`` plus ``cpu_temp_c`` (hottest sensor, degrees C).

:func:`parse_run_metadata` turns a list of per-run metadata dicts into a DataFrame of typed
columns (numbers as float64, dates as ``datetime64[ns]``, the rest as categorical strings).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:  # (pandas is imported only for the frame / Categorical forms and unusual dates)
    import pandas as pd

__all__ = [
    "MetadataSpec",
    "REGISTRY",
    "parse_cpu_list",
    "parse_cpu_freq",
    "parse_cpu_temp",
    "parse_date",
    "parse_run_metadata",
    "run_metadata_columns",
    "run_metadata_arrays",
    "Coded",
    "metadata_unit",
]

_FREQ_ITEM = re.compile(r"=\s*(\d+(?:\.\d+)?)\s*MHz")
_CPU_LIST_CHARS = frozenset("0123456789,- \t\r\n")
_TEMP_RE = re.compile(r"([^,;=]+?)=\s*(-?\d+(?:\.\d+)?)\s*C\b")
#: Most CPUs one cpu list may name (the largest machines have a few thousand logical CPUs).
MAX_CPUS = 8192
#: Longest composite metadata string parsed (pyperf's are well under 1 kB).
MAX_COMPOSITE = 65536


def parse_cpu_list(text: str) -> list[int]:
    """``"0-2,5"`` -> ``[0, 1, 2, 5]`` (Linux cpu-list syntax)."""
    cpus: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            lo_i, hi_i = int(lo), int(hi)
            if hi_i < lo_i or hi_i - lo_i > 65536:
                raise ValueError(f"bad CPU range {part!r}")
            cpus.extend(range(lo_i, hi_i + 1))
        else:
            cpus.append(int(part))
        if len(cpus) > MAX_CPUS:
            raise ValueError(f"more than {MAX_CPUS} CPUs in a CPU list")
    return cpus


def parse_cpu_freq(text: str) -> dict[int, float]:
    """pyperf ``cpu_freq`` string -> {cpu: MHz}.

    >>> parse_cpu_freq("1,3,5=3332 MHz; 13=1828 MHz")
    {1: 3332.0, 3: 3332.0, 5: 3332.0, 13: 1828.0}
    """
    if len(text) > MAX_COMPOSITE:
        raise ValueError(f"cpu_freq string of {len(text)} characters")
    if _FREQ_PLAIN.fullmatch(text):
        out = _parse_plain_cpu_freq(text)
        if out is not None:
            return out
    out = {}
    for m in _FREQ_ITEM.finditer(text):  # each "=N MHz", then its CPU list backwards (linear time)
        i = m.start()
        while i > 0 and text[i - 1] in _CPU_LIST_CHARS:
            i -= 1
        cpus = text[i:m.start()]
        first = next((k for k, c in enumerate(cpus) if c.isdigit()), None)
        if first is None:
            continue
        for cpu in parse_cpu_list(re.sub(r"\s", "", cpus[first:])):
            out[cpu] = float(m.group(1))
        if len(out) > MAX_CPUS:
            raise ValueError(f"more than {MAX_CPUS} CPUs")
    if not out and text.strip():
        raise ValueError(f"no 'CPUS=N MHz' group in {text[:80]!r}")
    return out


#: pyperf >= 1.0's own form, ``"1,3-5=3332 MHz; 13=1828 MHz"`` (read by :func:`_parse_plain_cpu_freq`).
_FREQ_PLAIN = re.compile(r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*=\d+(?:\.\d+)? MHz(?:; \d+(?:-\d+)?(?:,\d+(?:-\d+)?)*=\d+(?:\.\d+)? MHz)*")


def _parse_plain_cpu_freq(text: str) -> dict[int, float] | None:
    """:func:`parse_cpu_freq` of a string in :data:`_FREQ_PLAIN` form by splitting (a run's string differs
    from the last run's: the general parser cost ~0.1 ms a string, most of loading a pyperf file); None
    for anything its checks would refuse (then the general parser raises the error). Each group's CPU list
    is read by :func:`_plain_cpus` (memoised: a file's strings regroup a few hundred lists)."""
    out: dict[int, float] = {}
    for item in text.split("; "):
        cpus, _, mhz = item.partition("=")
        f = float(mhz[:-4])
        got = _CPU_LISTS.get(cpus)
        if got is None:
            got = _plain_cpus(cpus)
            if got is None:
                return None
        for cpu in got:
            out[cpu] = f
        if len(out) > MAX_CPUS:
            return None
    return out


#: :func:`_plain_cpus` of the CPU lists met so far (short lists, at most ``_CPU_LISTS_KEEP`` of them).
_CPU_LISTS: dict[str, tuple[int, ...]] = {}
_CPU_LISTS_KEEP = 4096


def _plain_cpus(cpus: str) -> tuple[int, ...] | None:
    """The CPUs of one group's list (``"3,5-7"`` -> 3, 5, 6, 7, in order, repeats kept) of a :data:`_FREQ_PLAIN`
    string, or None for a list the plain parser refuses: a range backwards or over 65,536 CPUs, more than
    ``MAX_CPUS`` in the list. Kept in :data:`_CPU_LISTS` when it holds at most 256 CPUs."""
    out: list[int] = []
    n = 0
    for part in cpus.split(","):
        lo, dash, hi = part.partition("-")
        if dash:
            lo_i, hi_i = int(lo), int(hi)
            if hi_i < lo_i or hi_i - lo_i > 65536:
                return None
            n += hi_i - lo_i + 1
            if n > MAX_CPUS:
                return None
            out.extend(range(lo_i, hi_i + 1))
        else:
            n += 1
            out.append(int(lo))
        if n > MAX_CPUS:
            return None
    got = tuple(out)
    if n <= 256 and len(_CPU_LISTS) < _CPU_LISTS_KEEP:
        _CPU_LISTS[cpus] = got
    return got


def parse_cpu_temp(text: str) -> dict[str, float]:
    """pyperf ``cpu_temp`` string -> {sensor: degrees C}.

    >>> parse_cpu_temp("coretemp:Package id 0=56 C, coretemp:Core 8=57 C")
    {'coretemp:Package id 0': 56.0, 'coretemp:Core 8': 57.0}
    """
    if len(text) > MAX_COMPOSITE:
        raise ValueError(f"cpu_temp string of {len(text)} characters")
    out: dict[str, float] = {}
    for item in re.split(r"[,;]", text):  # items are short: the lazy match stays linear overall
        if len(item) > 1000:
            continue
        for sensor, temp in _TEMP_RE.findall(item):
            out[sensor.strip()] = float(temp)
    if not out and text.strip():
        raise ValueError(f"no 'SENSOR=N C' item in {text[:80]!r}")
    return out


def parse_date(text: Any) -> pd.Timestamp:
    """ISO-like date string (pyperf: ``"2020-06-05 16:02:52.637194"``, local time) -> Timestamp.

    Time zones are dropped (converted to UTC first when given) so that all dates compare.
    """
    import pandas as pd

    if isinstance(text, str) and len(text) > 100:
        raise ValueError(f"date string of {len(text)} characters")
    ts = pd.Timestamp(text)
    if ts.tzinfo is not None:
        ts = ts.tz_convert("UTC").tz_localize(None)
    return ts


def _slug(text: str) -> str:
    s = re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_").lower()
    return s or "sensor"


def _float(v: Any) -> float:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    words = str(v).split()
    if not words:
        raise ValueError("empty value")
    return float(words[0])


@dataclass(frozen=True)
class MetadataSpec:
    """How to read one metadata key: ``kind`` is ``"float"``, ``"int"``, ``"date"``, ``"str"`` or
    ``"composite"`` (expands to several columns); ``unit`` is the column unit ("" if none)."""

    name: str
    kind: str
    unit: str = ""
    description: str = ""


#: Known pyperf / runner metadata keys.
REGISTRY: dict[str, MetadataSpec] = {
    s.name: s
    for s in [
        MetadataSpec("date", "date", "", "start of the run (local time of the machine)"),
        MetadataSpec("boot_time", "date", "", "boot time of the machine"),
        MetadataSpec("duration", "float", "s", "wall-clock duration of the run's process"),
        MetadataSpec("uptime", "float", "s", "machine uptime at the run"),
        MetadataSpec("load_avg_1min", "float", "", "1-minute load average"),
        MetadataSpec("runnable_threads", "int", "", "runnable threads"),
        MetadataSpec("mem_max_rss", "int", "B", "peak RSS of the benchmark process"),
        MetadataSpec("command_max_rss", "int", "B", "peak RSS of the benchmarked command"),
        MetadataSpec("mem_peak_pagefile_usage", "int", "B", "peak pagefile usage (Windows)"),
        MetadataSpec("tracemalloc_peak", "int", "B", "tracemalloc peak"),
        MetadataSpec("calibrate_loops", "int", "", "loops found by calibration"),
        MetadataSpec("recalibrate_loops", "int", "", "loops found by recalibration"),
        MetadataSpec("calibrate_warmups", "int", "", "warmups found by calibration"),
        MetadataSpec("recalibrate_warmups", "int", "", "warmups found by recalibration"),
        MetadataSpec("loops", "int", "", "outer loops per value"),
        MetadataSpec("inner_loops", "int", "", "inner loops per value"),
        MetadataSpec("cpu_count", "int", "", "logical CPUs"),
        MetadataSpec("cpu_freq", "composite", "MHz", "per-CPU frequency at the run"),
        MetadataSpec("cpu_temp", "composite", "C", "sensor temperatures at the run"),
    ]
}


def metadata_unit(column: str) -> str:
    """Unit of a parsed metadata column ("" if unknown or dimensionless)."""
    if column.startswith("cpu_freq_mhz"):
        return "MHz"
    if column.startswith("cpu_temp_c"):
        return "C"
    spec = REGISTRY.get(column)
    return spec.unit if spec else ""


def _expand_freq(text: Any) -> dict[str, float]:
    return _expand_freq_str(str(text))


@lru_cache(maxsize=4096)
def _expand_freq_str(text: str) -> dict[str, float]:
    """(Memoised: every run of every benchmark of a file usually repeats a few strings; read-only.)"""
    freqs = parse_cpu_freq(text)
    out = {_cpu_key(cpu): mhz for cpu, mhz in sorted(freqs.items())}
    vals = list(freqs.values())
    if vals:
        out["cpu_freq_mhz_min"] = min(vals)
        out["cpu_freq_mhz_max"] = max(vals)
        out["cpu_freq_mhz_mean"] = _mean(vals)
        out["cpu_freq_mhz_spread"] = max(vals) - min(vals)
    return out


@lru_cache(maxsize=MAX_CPUS)
def _cpu_key(cpu: int) -> str:
    return f"cpu_freq_mhz.cpu{cpu}"


def _mean(vals: list[float]) -> float:
    """``float(np.mean(vals))`` (bit-equal: numpy's pairwise summation, tested) without making an array: a
    file holds a cpu_freq string per run, ~15 us of numpy call overhead each."""
    n = len(vals)
    return _pairwise_sum(vals, 0, n) / n if n <= 1024 else float(np.mean(vals))


def _pairwise_sum(a: list[float], lo: int, n: int) -> float:
    """numpy's ``pairwise_sum`` of ``a[lo:lo + n]``: sequential below 8 values, 8 interleaved partial sums up
    to 128, halves (cut at a multiple of 8) above."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3, r4, r5, r6, r7 = a[lo:lo + 8]
        end = lo + n - n % 8
        i = lo + 8
        while i < end:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        for k in range(end, lo + n):
            res += a[k]
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum(a, lo, n2) + _pairwise_sum(a, lo + n2, n - n2)


def _expand_temp(text: Any) -> dict[str, float]:
    return _expand_temp_str(str(text))


@lru_cache(maxsize=4096)
def _expand_temp_str(text: str) -> dict[str, float]:
    temps = parse_cpu_temp(text)
    out = {f"cpu_temp_c.{_slug(k)}": v for k, v in temps.items()}
    if temps:
        out["cpu_temp_c"] = max(temps.values())
    return out


_EXPANDERS: dict[str, Callable[[Any], dict[str, float]]] = {
    "cpu_freq": _expand_freq,
    "cpu_temp": _expand_temp,
}


def parse_run_metadata(
    records: Iterable[Mapping[str, Any]],
    *,
    on_error: Callable[[int, str, Exception], None] | None = None,
) -> pd.DataFrame:
    """Per-run metadata dicts -> DataFrame with one row per record and typed columns.

    Known keys follow :data:`REGISTRY`; composite keys are expanded (the raw string is kept too,
    as a string column, e.g. ``cpu_freq``). Unknown keys become float64 when every value parses
    as a number, else categorical strings. ``on_error(row, key, exc)`` is called for a value that does not
    parse (default: raise ``ValueError``).
    """
    import pandas as pd

    records = list(records)
    return pd.DataFrame(run_metadata_columns(records, on_error=on_error), index=pd.RangeIndex(len(records)))


def run_metadata_columns(
    records: Iterable[Mapping[str, Any]],
    *,
    on_error: Callable[[int, str, Exception], None] | None = None,
) -> dict[str, Any]:
    """The columns of :func:`parse_run_metadata` (same names, order, dtypes and values) without the
    DataFrame: name -> float64 / datetime64[ns] array or ``pd.Categorical``. For callers that repeat
    the rows (the runner loaders: one row per value) and build one frame at the end."""
    return {k: v.to_pandas() if isinstance(v, Coded) else v
            for k, v in run_metadata_arrays(records, on_error=on_error).items()}


class Coded:
    """A categorical column without pandas: ``codes`` (int64, -1 = missing) into ``categories``
    (a tuple of distinct strings in order of first appearance). :meth:`to_pandas` gives the
    ``pd.Categorical`` (object categories) that :func:`run_metadata_columns` returns."""

    __slots__ = ("codes", "categories")

    def __init__(self, codes: np.ndarray, categories: tuple[str, ...]):
        self.codes = codes
        self.categories = categories

    def __len__(self) -> int:
        return len(self.codes)

    def take(self, rows: np.ndarray) -> "Coded":
        return Coded(self.codes.take(rows), self.categories)

    def to_pandas(self) -> "pd.Categorical":
        import pandas as pd

        return pd.Categorical.from_codes(self.codes, dtype=_categories(self.categories))


def run_metadata_arrays(
    records: Iterable[Mapping[str, Any]],
    *,
    constant: Mapping[str, Any] | None = None,
    on_error: Callable[[int, str, Exception], None] | None = None,
) -> dict[str, Any]:
    """:func:`run_metadata_columns` without pandas: the same columns, with :class:`Coded` in place of
    each ``pd.Categorical`` (pandas is imported only for a date this module does not read itself).

    ``constant``: metadata shared by every record (a benchmark's and its suite's), merged under each
    record (record keys win): the result is that of ``[{**constant, **r} for r in records]``, but a
    constant key no record overrides is parsed once and its columns filled in one go."""
    records = list(records)
    const = dict(constant or {})
    if not const:
        return _columns(records, on_error)
    n = len(records)
    if n == 0:
        return {}
    in_runs = set().union(*records)  # (the keys of every record)
    pure = [k for k in const if k not in in_runs and const[k] is not None]
    if n == 1 or not pure:
        return _columns([{**const, **r} for r in records], on_error)
    st = _ColumnState(n)
    st.fill(0, {**const, **records[0]}.items(), on_error)
    done = {k for k in pure if k not in st.failed}  # (parsed at record 0: the same value in every record)
    fixed: dict[str, Any] = {}
    writer: dict[str, int] = {}  # column -> position (in the constant keys) of the last one filling it
    for p, k in enumerate(const):  # (in merged order: of two keys writing one column, the later wins)
        if k not in done:
            continue
        for col, pv in st.hits[k]:
            fixed[col] = pv
            writer[col] = p
    for col, pv in fixed.items():
        vals = st.cols[col]
        vals[1:] = [pv] * (n - 1)
    st.uniform = {col: pv for col, pv in fixed.items() if st.cols[col][0] is pv}  # (one value in every record)
    st.guard, st.position = writer, {k: p for p, k in enumerate(const)}
    rest = [k for k in const if k not in done]
    for i in range(1, n):
        r = records[i]
        items = [(k, r[k] if k in r else const[k]) for k in rest]
        items.extend((k, v) for k, v in r.items() if k not in const)
        st.fill(i, items, on_error)
    return st.arrays(on_error)


#: Registry keys read as numbers / dates (each value is parsed: a check must vouch for it).
_NUMBER_KEYS = frozenset(k for k, s in REGISTRY.items() if s.kind in ("float", "int"))
_NUMBER_TYPES = frozenset((int, float, bool, type(None)))
_INT_OR_FLOAT = frozenset((int, float))
#: Registry number keys whose value is one column of the same name (no expansion, no date).
_PLAIN_NUMBER_KEYS = frozenset(k for k in _NUMBER_KEYS if k not in _EXPANDERS)  # (dates are not numbers)
_STR_OR_NONE = frozenset((str, type(None)))
#: Prefixes of the columns the composite keys expand to (a key so named could collide with one).
EXPANDED_PREFIXES = ("cpu_freq_mhz", "cpu_temp_c")


def parses_cleanly(records: Sequence[Mapping[str, Any]], constant: Mapping[str, Any] | None = None
                   ) -> frozenset[str] | None:
    """The keys of ``records`` and ``constant`` when :func:`run_metadata_arrays` of them (``constant=``) is
    certain to parse every value without an error (its ``on_error`` never called), else None: a sufficient
    check, far cheaper than the parse, so that a loader can keep the parse for the first read of a column
    (``bandkit compare`` reads none) and still refuse bad metadata when it loads. Vouched for: numbers (and
    None) under the registry's number keys; dates in pyperf's plain form that numpy reads; ``cpu_freq`` and
    ``cpu_temp`` strings their parsers read (see :func:`_freq_parses`); string keys none of which
    could collide with an expanded column. Anything else: None (the caller parses at once, with the errors it
    gives)."""
    const = constant or {}
    in_runs = set().union(*records)
    keys = in_runs.union(const)
    if not all(type(k) is str for k in keys):
        return None
    for k in keys:
        if k.startswith(EXPANDED_PREFIXES):
            return None
        if k in in_runs:
            vals = [r[k] for r in records if k in r]
            if k in const:
                vals.append(const[k])
        else:  # (a constant key: one value)
            v = const[k]
            if k not in REGISTRY and type(v) is not int:
                continue
            vals = [v]
        types = set(map(type, vals))
        if int in types:  # (float() of each cannot overflow: a number column of any key)
            ints = [v for v in vals if type(v) is int]
            if not (-2 ** 1000 < min(ints) and max(ints) < 2 ** 1000):
                return None
        if k not in REGISTRY:
            continue
        if k in _NUMBER_KEYS:
            if not types <= _NUMBER_TYPES:
                return None
        elif k in _DATE_KEYS:
            dates = [v for v in vals if v is not None]
            if not all(type(v) is str and _PLAIN_DATE.fullmatch(v) for v in dates):
                return None
            try:  # (numpy's reader, all at once: the one _parse_date_fast uses on each)
                np.array([v.replace(" ", "T", 1) for v in dates], dtype="datetime64[ns]")
            except ValueError:
                return None
        elif k in _EXPANDERS:
            if not types <= _STR_OR_NONE:
                return None
            vouch = _freq_parses if k == "cpu_freq" else _temp_parses
            if not all(vouch(v) for v in set(vals) if v is not None):
                return None
        else:
            return None
    return frozenset(keys)


def _freq_parses(v: str) -> bool:
    """Whether :func:`parse_cpu_freq` of ``v`` returns: at once when it certainly does - no ``-`` (a CPU list
    of digits and commas parses), at most MAX_CPUS CPU numbers (fewer digit runs than that: length below
    2 x MAX_CPUS) and an ``=N MHz`` group for the general parser (the plain form's parser falls back to it) -,
    else by the (memoised) expansion itself (CPU ranges)."""
    if "-" not in v and len(v) < 2 * MAX_CPUS and _FREQ_ITEM.search(v) is not None:
        return True
    try:
        _expand_freq_str(v)
    except (ValueError, TypeError, OverflowError):
        return False
    return True


def _temp_parses(v: str) -> bool:
    """:func:`parse_cpu_temp` of ``v`` certainly returns (sufficient): not too long, and an item it reads."""
    return len(v) <= MAX_COMPOSITE and any(len(item) <= 1000 and _TEMP_RE.search(item)
                                           for item in re.split(r"[,;]", v))


def _columns(records: list[Mapping[str, Any]], on_error) -> dict[str, Any]:
    st = _ColumnState(len(records))
    for i, rec in enumerate(records):
        st.fill(i, rec.items(), on_error)
    return st.arrays(on_error)


class _ColumnState:
    """The columns of :func:`run_metadata_arrays` as they fill, record by record."""

    def __init__(self, n: int):
        self.n = n
        self.cols: dict[str, list[Any]] = {}
        self.kinds: dict[str, str] = {}
        # (key, type, value) -> [(column, parsed value)]: a file repeats most values run after run (host,
        # versions, loops, the cpu_freq string of an idle machine); dates and unhashable values are parsed each time
        self.memo: dict[tuple[str, Any, Any], list[tuple[str, Any]]] = {}
        self.hits: dict[str, list[tuple[str, Any]]] = {}  # key -> its last parse (record 0's, for constants)
        self.failed: set[str] = set()
        # columns filled from constants -> position of their writer among the constant keys, and each key's:
        # another key writes such a column only if it comes later in the merged record (as record by record)
        self.guard: dict[str, int] = {}
        self.position: dict[str, int] = {}
        self.uniform: dict[str, Any] = {}  # column -> the one value it holds in every record

    def fill(self, i: int, items: Iterable[tuple[str, Any]], on_error) -> None:
        """Record ``i``'s (key, value) pairs in order."""
        cols, memo, n, guard = self.cols, self.memo, self.n, self.guard
        for key, v in items:
            if v is None:
                continue
            hit = None
            if key in _PLAIN_NUMBER_KEYS and type(v) in _INT_OR_FLOAT and v != 0:
                # a registry number read from a JSON number (a run's duration, uptime, RSS): its one column,
                # as _parse_value gives it, without the memo (such values rarely repeat). Not a zero: the memo
                # takes -0.0 for the 0.0 met before it (equal keys), and the columns stay what they were.
                try:
                    hit = [(key, float(v))]
                except OverflowError:
                    pass  # (the general path reports it)
                else:
                    self.kinds[key] = "float"
            if hit is None:
                mk = None if key in _DATE_KEYS else (key, type(v), v)  # (type: 1, 1.0 and True are equal keys)
                try:
                    hit = memo.get(mk) if mk is not None else None
                except TypeError:  # unhashable (a list)
                    hit = mk = None
            if hit is None:
                try:
                    hit = _parse_value(key, v, self.kinds)
                except (ValueError, TypeError, OverflowError) as exc:
                    self.failed.add(key)
                    if key in _EXPANDERS and self._writes(key, key):  # (its raw string is kept even when
                        cols.setdefault(key, [None] * n)[i] = str(v)   # it does not parse)
                    if on_error is None:
                        raise ValueError(f"metadata {key!r}: {exc}") from None
                    on_error(i, key, exc)
                    continue
                if mk is not None:
                    memo[mk] = hit
            if i == 0:
                self.hits[key] = hit
            for col, pv in hit:
                if guard and col in guard and not self._writes(key, col):
                    continue
                vals = cols.get(col)
                if vals is None:
                    vals = cols[col] = [None] * n
                vals[i] = pv

    def _writes(self, key: str, col: str) -> bool:
        """Whether ``key`` writes ``col`` (a column filled from a constant key: only if ``key`` comes later)."""
        p = self.guard.get(col)
        if p is None:
            return True
        if self.position.get(key, len(self.position)) > p:
            self.uniform.pop(col, None)
            return True
        return False

    def arrays(self, on_error=None) -> dict[str, Any]:
        """The columns as arrays (see :func:`run_metadata_arrays`). A number column (a registry key's, or a
        composite's expansion) that also received a value that is not a number (another key of the same
        name) is a parse error of that row: ``on_error(row, column, exc)``, NaN if it returns."""
        out: dict[str, Any] = {}
        for col, vals in self.cols.items():
            kind = self.kinds.get(col, "auto")
            if col in self.uniform:
                out[col] = self._uniform_column(kind, self.uniform[col], col, on_error)
            elif kind == "float":
                if set(map(type, vals)) <= _FLOAT_OR_NONE:  # (None -> NaN)
                    out[col] = np.array(vals, dtype=np.float64)
                else:
                    out[col] = np.array([_as_float(i, col, v, on_error) for i, v in enumerate(vals)],
                                        dtype=np.float64)
            elif kind == "date":
                out[col] = _date_column(vals)
            else:
                present = [v for v in vals if v is not None]
                if present and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in present
                ):
                    out[col] = np.array(
                        [np.nan if v is None else float(v) for v in vals], dtype=np.float64
                    )
                elif present and all(isinstance(v, (int, float, str)) for v in present) and all(
                    _is_number(v) for v in present
                ):
                    out[col] = np.array(
                        [np.nan if v is None else float(v) for v in vals], dtype=np.float64
                    )
                else:  # repeated strings: categorical (small, cheap to repeat per value)
                    out[col] = _categorical([None if v is None else _to_str(v) for v in vals])
        return out

    def _uniform_column(self, kind: str, v: Any, col: str, on_error) -> Any:
        """What :meth:`arrays` makes of ``n`` times the value ``v`` (not None), without the loops."""
        n = self.n
        if kind == "date":
            return _date_column([v] * n)
        if kind == "float" or (isinstance(v, (int, float)) and not isinstance(v, bool)) or (
                isinstance(v, (int, float, str)) and _is_number(v)):
            try:
                return np.full(n, float(v), dtype=np.float64)
            except (TypeError, ValueError, OverflowError):
                return np.array([_as_float(i, col, v, on_error) for i in range(n)], dtype=np.float64)
        return Coded(np.zeros(n, dtype=np.int64), (_to_str(v),))


_FLOAT_OR_NONE = frozenset((float, type(None)))


def _as_float(i: int, col: str, v: Any, on_error) -> float:
    if v is None:
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError) as exc:
        if on_error is None:
            raise ValueError(f"metadata {col!r}: {exc}") from None
        on_error(i, col, exc)
        return math.nan


#: Keys parsed as dates (each run has its own: not memoised).
_DATE_KEYS = frozenset(k for k, s in REGISTRY.items() if s.kind == "date")


def _parse_value(key: str, v: Any, kinds: dict[str, str]) -> list[tuple[str, Any]]:
    """The (column, parsed value) pairs of metadata ``key`` = ``v``; notes each column's kind."""
    spec = REGISTRY.get(key)
    if key in _EXPANDERS:
        kinds[key] = "str"
        expanded = _EXPANDERS[key](v)
        for col in expanded:
            kinds[col] = "float"
        return [(key, str(v)), *expanded.items()]
    if spec is not None and spec.kind == "date":
        kinds[key] = "date"
        return [(key, _parse_date_fast(v))]
    if spec is not None and spec.kind in ("float", "int"):
        kinds[key] = "float"
        return [(key, _float(v))]
    kinds.setdefault(key, "auto")
    return [(key, v)]


def _categorical(vals: list[str | None]) -> Coded:
    """Strings -> :class:`Coded` (codes in order of first appearance, as ``pd.Categorical.from_codes``
    with object categories gets them). Hand-rolled factorisation: measured ~12x faster than
    ``pd.Categorical(list)`` (pandas 3 infers an Arrow string dtype for every column)."""
    seen: dict[str, int] = {}
    codes = np.fromiter((-1 if v is None else seen.setdefault(v, len(seen)) for v in vals),
                        dtype=np.int64, count=len(vals))
    return Coded(codes, tuple(seen))


@lru_cache(maxsize=1024)
def _categories(values: tuple[str, ...]) -> "pd.CategoricalDtype":
    """One dtype per set of categories (the same host, flags, ... in every benchmark of a file)."""
    import pandas as pd

    return pd.CategoricalDtype(pd.Index(list(values), dtype=object))


#: The date form pyperf writes (``datetime.isoformat(" ")`` of a naive local time), read by numpy;
#: years kept well inside datetime64[ns]'s range. Anything else goes to :func:`parse_date` (pandas).
_PLAIN_DATE = re.compile(r"(?:19|2[01])\d\d-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d{1,6})?")


def _parse_date_fast(v: Any) -> Any:
    """``parse_date(v)`` as ``np.datetime64[ns]`` for pyperf's plain form (the same instant: no
    zone, no rounding), else ``parse_date(v)`` itself (a Timestamp, or its error)."""
    if type(v) is str and _PLAIN_DATE.fullmatch(v):
        try:
            return np.datetime64(v.replace(" ", "T", 1), "ns")
        except ValueError:  # (e.g. day 31 of a 30-day month: pandas' own message follows)
            pass
    return parse_date(v)


def _date_column(vals: list[Any]) -> np.ndarray:
    """Parsed dates (``np.datetime64`` from :func:`_parse_date_fast`, Timestamps, None) -> datetime64[ns]
    array, NaT for None: what ``pd.to_datetime(pd.Series(vals, dtype=object), errors="coerce")``
    gives; pandas itself only when some value is a Timestamp."""
    if all(v is None or type(v) is np.datetime64 for v in vals):
        return np.array([np.datetime64("NaT", "ns") if v is None else v for v in vals], dtype="datetime64[ns]")
    import pandas as pd

    return pd.to_datetime(pd.Series(vals, dtype=object), errors="coerce").to_numpy(dtype="datetime64[ns]")


def _is_number(v: Any) -> bool:
    if type(v) is str:
        return _str_is_number(v)
    if isinstance(v, bool):
        return False
    try:
        x = float(v)
    except (TypeError, ValueError):
        return False
    return not math.isnan(x) or isinstance(v, float)


@lru_cache(maxsize=4096)
def _str_is_number(v: str) -> bool:
    """:func:`_is_number` of a string (memoised: a file repeats its host, model and version strings in every
    benchmark, and each costs a raised ValueError)."""
    try:
        x = float(v)
    except ValueError:
        return False
    return not math.isnan(x)


def _to_str(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(map(str, v))
    return str(v)
