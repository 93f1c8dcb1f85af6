"""Tables of measurements (CSV / TSV / Parquet): reading them whole, vectorised, and telling what
each column holds.

:func:`read_table` parses the file in one call (pandas' C parser; pyarrow for Parquet, found by its
``PAR1`` magic, not by name). :func:`infer_roles` names the columns' roles — the measured value, the
build (or any group of measurements taken together), the time, the series (a long table holding
many benchmarks), index columns (an integer 1..n or 0..n-1 column is a row number: never a value,
never a suspect) and per-row metadata — from the options given, else from the names and contents
where that is unambiguous, and refuses with a reason otherwise (a table of labels or ids is not
measurements). Units come from the value's header (``time_ms``, ``duration (s)``), else from a
file named ``NNNNN__category__unit.csv`` (SAP's performance-regression data set layout).
"""
from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError
from .source import Source, check_columns, check_line_length
from .table_sniff import looks_like_plain_table  # noqa: F401 (re-exported; pandas-free for format detection)

#: Header names (normalised: lower case, unit suffix removed, ``-``/space -> ``_``) by role.
VALUE_NAMES = ("value", "values", "measurement", "measurements", "duration", "mean", "time", "elapsed",
               "runtime", "wall_time", "real_time", "cpu_time")
BUILD_NAMES = ("build", "build_id", "buildid", "build_number", "sut_version", "version", "commit", "commit_id",
               "commit_hash", "revision", "rev", "sha", "git_sha", "changeset", "changelist", "group")
TIME_NAMES = ("timestamp", "date", "datetime", "time", "start_time", "started", "started_at", "created_at",
              "run_date", "commit_date", "date_time", "time_stamp")
SERIES_NAMES = ("name", "benchmark", "bench", "series", "test", "test_name", "benchmark_name", "series_id", "metric")
#: Names that say a column holds labels or ids, not measurements (never chosen as the value unless asked).
LABEL_NAMES = ("label", "labels", "class", "cluster", "annotation", "annotations", "cp", "changepoint",
               "changepoints", "is_anomaly", "anomaly", "flag", "target", "id", "idx", "index", "row",
               "index_1based", "index_0based", "run", "iteration", "repetition", "category")
#: Units recognised in headers (``time_ms``, ``time (ms)``) and in SAP-style file names.
UNITS = {"ns": "ns", "us": "µs", "µs": "µs", "μs": "µs", "ms": "ms", "s": "s", "sec": "s", "secs": "s",
         "seconds": "s", "min": "min", "tps": "TPS", "qps": "QPS", "ops": "ops/s", "ops/s": "ops/s",
         "mb/s": "MB/s", "gb/s": "GB/s", "kb/s": "kB/s", "b/s": "B/s", "hz": "Hz", "cycles": "cycles",
         "bytes": "B", "b": "B", "kb": "kB", "mb": "MB", "gb": "GB", "%": "%", "percent": "%"}
#: Units (and name words) of quantities where more is better (throughput); others: less is better.
HIGHER_IS_BETTER_UNITS = frozenset({"TPS", "QPS", "ops/s", "MB/s", "GB/s", "kB/s", "B/s", "Hz"})
HIGHER_IS_BETTER_WORDS = ("throughput", "tps", "qps", "ops_per_s", "bandwidth", "per_second", "rate", "speedup")

_UNIT_SUFFIX = re.compile(r"^(?P<name>.*?)[\s_]*[\(\[]\s*(?P<unit>[^\)\]]+?)\s*[\)\]]\s*$")
_SAP_NAME = re.compile(r"^\d+__(?P<category>.+)__(?P<unit>[^_./]+)\.(?:csv|tsv|txt|parquet|pq)(?:\.gz)?$", re.I)


def normalise_name(col: str) -> tuple[str, str]:
    """(normalised name, unit or "") of a header: ``"Time (ms)"`` -> ("time", "ms"), ``value_us`` ->
    ("value", "µs")."""
    s = str(col).strip()
    unit = ""
    m = _UNIT_SUFFIX.match(s)
    if m and m.group("name"):
        s, unit = m.group("name"), UNITS.get(m.group("unit").strip().lower(), m.group("unit").strip())
    n = re.sub(r"[\s\-]+", "_", s.lower()).strip("_")
    if not unit and "_" in n:
        head, tail = n.rsplit("_", 1)
        if tail in UNITS and head:
            n, unit = head, UNITS[tail]
    return n, unit


def unit_from_filename(name: str) -> tuple[str, str]:
    """(unit, category) from a file named ``NNNNN__category__unit.csv[.gz]``; ("", "") otherwise."""
    base = re.split(r"[\\/]", str(name))[-1]
    m = _SAP_NAME.match(base)
    if not m:
        return "", ""
    u = m.group("unit")
    return UNITS.get(u.lower(), u), m.group("category").replace("--", "/").replace("-", " ")


# ----------------------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------------------
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#[^\n]*(?:\n|$)")


def read_table(source: Source) -> pd.DataFrame:
    """The whole table of ``source`` as a DataFrame (header names stripped). CSV, TSV or
    semicolon-separated text (``#`` comment lines and blank lines skipped; gzip by magic), or
    Parquet. Raises InputError naming the file (and line) when it cannot be parsed."""
    data = source.read_bytes()
    if data[:4] == b"PAR1":
        df = _read_parquet(source, data)
        check_columns(source, len(df.columns), line=None)
        return df
    if b"\x00" in data[:65536]:
        raise InputError(source.name, "binary data, not a CSV/TSV or Parquet table")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    text = _COMMENT_LINE.sub(b"", data) if b"#" in data else data
    if not text.strip():
        raise InputError(source.name, "empty table (no header, no rows)")
    check_line_length(source, data)
    first = text.lstrip(b"\r\n").split(b"\n", 1)[0]
    counts = {sep: first.count(sep.encode()) for sep in (",", "\t", ";")}
    sep = max(counts, key=lambda k: counts[k]) if max(counts.values()) else ","
    try:  # pyarrow would read invalid UTF-8 as bytes values; say what is wrong instead
        text.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(source.name, "not valid UTF-8 text (binary data?)",
                         line=text[: exc.start].count(b"\n") + 1) from None
    df = _read_csv_arrow(text, sep)
    if df is not None:
        check_columns(source, len(df.columns))
        return df
    try:
        df = pd.read_csv(io.BytesIO(text), sep=sep, engine="c", low_memory=False)
    except UnicodeDecodeError as exc:
        raise InputError(source.name, "not valid UTF-8 text (binary data?)",
                         line=text[: exc.start].count(b"\n") + 1) from None
    except pd.errors.ParserError as exc:
        msg = str(exc)
        m = re.search(r"line (\d+)", msg)
        line = _original_line(data, int(m.group(1))) if m else None
        raise InputError(source.name, "cannot parse table: " + re.sub(r"^Error tokenizing data\. C error: ", "", msg)
                         .split(", saw")[0].strip(), line=line) from None
    except (ValueError, pd.errors.EmptyDataError) as exc:
        raise InputError(source.name, f"cannot parse table: {exc}") from None
    check_columns(source, len(df.columns))
    df.columns = [str(c).strip() for c in df.columns]
    return df


def _read_csv_arrow(text: bytes, sep: str) -> pd.DataFrame | None:
    """pyarrow's multithreaded CSV reader (6x pandas' C parser on a 6,000-row history, and it reads
    ISO dates itself), when pyarrow is installed; None to fall back to pandas' C parser, which also
    words the errors (with line numbers) when pyarrow refuses a file."""
    import sys

    if "pyarrow" not in sys.modules:  # pandas imports it when installed; never pay for it here
        return None
    try:
        df = pd.read_csv(io.BytesIO(text), sep=sep, engine="pyarrow")
    except Exception:  # ArrowInvalid & co.: let the C parser say what is wrong, and where
        return None
    df.columns = [str(c).strip() for c in df.columns]
    return df


def _read_parquet(source: Source, data: bytes) -> pd.DataFrame:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(source.name, "reading Parquet needs pyarrow (pip install pyarrow)") from None
    try:
        tbl = pq.read_table(io.BytesIO(data))
        tbl.validate(full=True)  # e.g. invalid UTF-8 in a string column, else found later, lazily
        df = tbl.to_pandas()
    except Exception as exc:  # pyarrow raises its own ArrowInvalid / OSError kinds
        raise InputError(source.name, f"cannot read Parquet: {exc}") from None
    df.columns = [str(c).strip() for c in df.columns]
    return df.reset_index(drop=True)


def _original_line(data: bytes, k: int) -> int:
    """Line number in the file of the ``k``-th line the parser saw (comment and blank lines are
    not seen by it). Only on the error path."""
    seen = 0
    for i, ln in enumerate(data.split(b"\n"), start=1):
        s = ln.strip()
        if not s or s.startswith(b"#"):
            continue
        seen += 1
        if seen == k:
            return i
    return k


# ----------------------------------------------------------------------------------------------
# Roles of the columns
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ColumnRoles:
    """What each column of a measurement table holds (column names as in the file; None = absent).

    ``index``: row-number columns (integer 1..n or 0..n-1); ``metadata``: the rest (per-row or
    per-build data that may explain a change); ``unit`` of the value; ``how``: for each role, how it
    was chosen ("option", "name", "only numeric column", ...).
    """

    value: str
    build: str | None = None
    time: str | None = None
    series: str | None = None
    run: str | None = None
    index: tuple[str, ...] = ()
    metadata: tuple[str, ...] = ()
    unit: str = ""
    category: str = ""
    how: dict = field(default_factory=dict)


def _is_index(s: pd.Series) -> bool:
    if not pd.api.types.is_integer_dtype(s) and not (pd.api.types.is_float_dtype(s) and s.notna().all()
                                                      and np.all(np.mod(s.to_numpy(), 1) == 0)):
        return False
    v = s.to_numpy()
    n = v.size
    if n < 2:
        return False
    return bool(v[0] in (0, 1) and np.all(np.diff(v) == 1))


def _looks_time_like(s: pd.Series) -> bool:
    if pd.api.types.is_datetime64_any_dtype(s):
        return True
    if pd.api.types.is_numeric_dtype(s):
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        v = v[np.isfinite(v)]
        return v.size > 1 and bool(np.all(np.diff(v) >= 0))
    head = s.dropna().astype(str).head(5)
    if head.empty:
        return False
    return bool(parse_dates(head).notna().all())


def _find(norm: dict[str, str], names, taken: set[str]) -> str | None:
    for want in names:
        for col, n in norm.items():
            if n == want and col not in taken:
                return col
    return None


def _check_column(source: Source, df: pd.DataFrame, col: str | None, option: str) -> str | None:
    if col is None:
        return None
    if col in df.columns:
        return col
    low = {c.lower(): c for c in df.columns}
    if str(col).lower() in low:
        return low[str(col).lower()]
    raise InputError(source.name, f"no column {col!r} (columns: {', '.join(map(str, df.columns))})", field=option)


def infer_roles(df: pd.DataFrame, source: Source, *, value: str | None = None, build: str | None = None,
                time: str | None = None, series: str | None = None, unit: str | None = None,
                legacy_names: bool = True) -> ColumnRoles:
    """Decide which column is the value, the build, the time and the series (see the module docstring).

    Explicit options win (a missing column is an InputError naming the option). Raises InputError
    when the value column is ambiguous or the table does not hold measurements.
    """
    how: dict[str, str] = {}
    value = _check_column(source, df, value, "value")
    build = _check_column(source, df, build, "build")
    time = _check_column(source, df, time, "time")
    series = _check_column(source, df, series, "series")
    norm = {c: normalise_name(c)[0] for c in df.columns}
    for role, col in (("value", value), ("build", build), ("time", time), ("series", series)):
        if col is not None:
            how[role] = "option"
    index = tuple(c for c in df.columns if c not in (value, build, time, series) and _is_index(df[c]))
    taken = {c for c in (value, build, time, series) if c} | set(index)
    run = "run" if legacy_names and "run" in df.columns and "run" not in taken and build is None else None
    if run:
        taken.add(run)
    if build is None and run is None:
        build = _find(norm, BUILD_NAMES, taken)
        if build is not None and norm[build] == "version" and df[build].nunique(dropna=True) < 2:
            build = None  # a "version" with one value (a tool's version?) is not what the rows are grouped by
        if build is not None:
            taken.add(build)
            how["build"] = f"name ({build})"
    if series is None:
        cand = _find(norm, SERIES_NAMES, taken)
        if cand is not None and not pd.api.types.is_numeric_dtype(df[cand]):
            series = cand
            taken.add(series)
            how["series"] = f"name ({series})"
    if value is None:
        # a column named like a value is the value even when some cell is not a number (the error
        # then names that line); only a non-numeric "time" column is a time axis, never a value
        named = [c for c in df.columns if norm[c] in VALUE_NAMES and c not in taken
                 and (pd.api.types.is_numeric_dtype(df[c]) or norm[c] != "time")]
        if len(named) > 1 and time is None:
            # "time" beside another value name is the time axis when it looks like one
            t = [c for c in named if norm[c] == "time" and _looks_time_like(df[c])]
            if t and len(named) - len(t) >= 1:
                time = t[0]
                taken.add(time)
                how["time"] = f"name ({time})"
                named = [c for c in named if c != time]
        if len(named) == 1:
            value = named[0]
            how["value"] = f"name ({value})"
        elif len(named) > 1:
            raise InputError(source.name, "several columns could be the measured value ("
                             + ", ".join(named) + "); pass --value COLUMN (value=COLUMN)")
        else:
            numeric = [c for c in df.columns if c not in taken and pd.api.types.is_numeric_dtype(df[c])
                       and norm[c] not in TIME_NAMES and norm[c] not in LABEL_NAMES]
            if len(numeric) == 1:
                value = numeric[0]
                how["value"] = "only numeric column"
            else:
                labels = [c for c in df.columns if c not in taken and norm[c] in LABEL_NAMES]
                why = (f"numeric columns: {', '.join(numeric)}" if numeric else
                       "no numeric column that could be a measurement"
                       + (f"; {', '.join(index)} {'is a row index' if len(index) == 1 else 'are row indices'}"
                          if index else "")
                       + (f"; {', '.join(labels)}: labels or ids by {'its' if len(labels) == 1 else 'their'} name"
                          if labels else ""))
                raise InputError(source.name, f"no 'value' column; pass --value COLUMN (value=COLUMN) ({why})")
        taken.add(value)
        _refuse_non_measurements(source, df, value)
    elif value in index:  # asked for explicitly: then it is not an index
        index = tuple(c for c in index if c != value)
    if time is None:
        cand = _find(norm, TIME_NAMES, taken)
        if cand is not None and _looks_time_like(df[cand]):
            time = cand
            how["time"] = f"name ({time})"
    taken |= {c for c in (time,) if c}
    metadata = tuple(c for c in df.columns if c not in taken)
    u = unit or ""
    cat = ""
    if not u:
        u = normalise_name(value)[1]
        if u:
            how["unit"] = "header"
    fu, cat = unit_from_filename(source.name)
    if not u and fu:
        u = fu
        how["unit"] = "file name"
    return ColumnRoles(value=value, build=build, time=time, series=series, run=run, index=index,
                       metadata=metadata, unit=u, category=cat, how=how)


def _refuse_non_measurements(source: Source, df: pd.DataFrame, col: str) -> None:
    """An automatically chosen value column must look like measurements: not 0/1 flags or a few
    small integer labels, not ids that only increase."""
    v = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return
    integer = bool(np.all(np.mod(v, 1) == 0))
    if not integer:
        return
    distinct = np.unique(v)
    if distinct.size <= 10 and distinct.min() >= 0 and distinct.min() == 0 and v.size >= 4 * distinct.size:
        raise InputError(source.name, f"column {col!r} holds {distinct.size} small integer codes "
                         f"({', '.join(f'{x:g}' for x in distinct[:10])}): labels, not measurements; "
                         "pass --value COLUMN to analyse it anyway", field=col)
    if distinct.size == v.size and np.all(np.diff(v) > 0):
        raise InputError(source.name, f"column {col!r} only increases (ids or positions, not measurements); "
                         "pass --value COLUMN to analyse it anyway", field=col)


def higher_is_better(unit: str, names: tuple[str, ...] = ()) -> bool:
    """True for throughput-like quantities (unit TPS, ops/s, MB/s..., or a name saying so)."""
    if unit in HIGHER_IS_BETTER_UNITS or unit.lower().endswith("/s"):
        return True
    words = " ".join(normalise_name(n)[0] for n in names if n)
    return any(w in words for w in HIGHER_IS_BETTER_WORDS)


def parse_dates(s: pd.Series) -> pd.Series:
    """Dates of a text column: ISO 8601 in one vectorised pass; other layouts element-wise."""
    try:  # numpy reads "YYYY-MM-DD[ HH:MM:SS[.fff]]" in C, ~15x pandas' ISO parser
        with warnings.catch_warnings():  # "no explicit representation of timezones": pandas reads those
            warnings.simplefilter("error", UserWarning)
            return pd.Series(np.array(s.to_numpy(dtype=object), dtype="datetime64[ns]"), index=s.index)
    except (ValueError, TypeError, UserWarning):
        pass
    try:
        return pd.to_datetime(s, errors="raise", format="ISO8601")
    except (ValueError, TypeError):
        pass
    try:
        return pd.to_datetime(s, errors="coerce", format="mixed")
    except (ValueError, TypeError):  # mixed time zones ("...+02:00" next to "...Z"): one common clock
        return pd.to_datetime(s, errors="coerce", format="mixed", utc=True)
