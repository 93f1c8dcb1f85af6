"""FTQ, current format (rminnich/ftq, brho/ftq): ``#`` header, then ``<ns> <count>`` per quantum.

Also the MPI variant (``mpiftq``: same header, then ``<ticks since base>,<count>[,<count>...]``).
See ``shared/design/formats.md``.  Catch-up rows (count 0, written ~20 ns apart after a stall so the
drift-free schedule can resume) are kept and flagged in the ``catchup`` column.
"""
from __future__ import annotations

import io
import math
import re
import warnings
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..robust import median_period
from ..trace import Trace, TraceMeta
from .options import reject_options
from .source import Source

_NUM = r"([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)"
_HEADER_PATTERNS = [
    ("Frequency", re.compile(r"^Frequency\s+" + _NUM + r"\s*$"), float),
    ("Ticks per ns", re.compile(r"^Ticks per ns:\s*" + _NUM + r"\s*$"), float),
    ("Total count", re.compile(r"^Total count is\s+" + _NUM + r"\s*$"), int),
    ("Max possible work", re.compile(r"^Max possible work is\s+" + _NUM + r"\s*$"), int),
    ("Fraction", re.compile(r"^Fraction is\s+" + _NUM + r"\s*$"), float),
    ("Start delay ms", re.compile(r"^start delay\s+" + _NUM + r"\s*msec\s*$"), float),
]
_THREAD = re.compile(r"^thread\s+(\d+),\s*core\s+(-?\d+)\s*$")
_CPUINFO = re.compile(r"^([A-Za-z][\w \t()]*?)\s*:\s?(.*)$")
_UNAME_FIELDS = ("sysname", "nodename", "release", "version", "machine", "domainname")
_COLUMNS_LINE = re.compile(r"^Time\(ns\)\s+work", re.I)
_FILE_THREAD = re.compile(r"_(\d{1,6})\.dat(?:\.gz)?$")

#: Parse plain ``<int> <int>`` bodies with numpy's C text scanner (see :func:`parse_two_int_columns`);
#: False forces the general pandas path (tests compare the two).
FAST_PARSE = True
#: How much of a file is read first to find the end of the ``#`` header (bytes).
HEAD_BYTES = 1 << 20


def _blank(data: bytes) -> bool:
    """True for empty or whitespace-only data (like ``not data.strip()`` without copying it)."""
    return not data or data.isspace()


def split_header(data: bytes) -> tuple[list[str], int]:
    """Return the ``#`` header lines (without ``# ``) at the top of ``data`` and the byte offset of the body."""
    lines: list[str] = []
    pos = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # a UTF-8 byte-order mark (Windows editors)
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        end = n if end < 0 else end + 1
        line = data[pos:end]
        stripped = line.strip()
        if stripped.startswith(b"#"):
            lines.append(stripped[1:].decode("utf-8", "replace").strip("\r\n"))
        elif stripped:
            break
        pos = end
    return lines, pos


def parse_header(lines: list[str]) -> dict[str, Any]:
    """Parse FTQ header lines into typed fields.

    Known fields get canonical names ("Frequency" [Hz], "Ticks per ns", "Total count",
    "Max possible work", "Fraction", "Start delay ms", "thread", "core"); the uname block goes
    under "uname" and the /proc/cpuinfo block under "cpuinfo" (dicts of strings).
    """
    header: dict[str, Any] = {}
    uname: list[str] = []
    cpuinfo: dict[str, str] = {}
    after_fraction = False
    for raw in lines:
        text = raw[1:] if raw.startswith(" ") else raw
        s = text.strip()
        if not s:
            continue
        for key, pat, conv in _HEADER_PATTERNS:
            m = pat.match(s)
            if m:
                header[key] = _header_number(m.group(1), conv)
                if key == "Fraction":
                    after_fraction = True
                break
        else:
            m = _THREAD.match(s)
            if m:
                header["thread"] = _header_number(m.group(1), int)
                header["core"] = _header_number(m.group(2), int)
                continue
            if _COLUMNS_LINE.match(s):
                header["columns"] = s.split()
                continue
            if s.startswith(("octave:", "x = load", "pwelch(")):
                continue
            if "\t" in text and ":" in text or (cpuinfo and ":" in s):
                m = _CPUINFO.match(s)
                if m:
                    cpuinfo[m.group(1).strip()] = m.group(2).strip()
                    continue
            if after_fraction and not cpuinfo and len(uname) < len(_UNAME_FIELDS):
                uname.append(s)
                continue
            header.setdefault("other", []).append(s)
    if uname:
        header["uname"] = dict(zip(_UNAME_FIELDS, uname))
    if cpuinfo:
        header["cpuinfo"] = cpuinfo
    return header


def _header_number(text: str, conv) -> float | int:
    """A header number; one too big for its type stays a float (inf) for :func:`check_header` to refuse."""
    f = float(text)
    if conv is not int:
        return f
    if not math.isfinite(f) or abs(f) >= 2.0 ** 63:
        return math.copysign(math.inf, f)
    return int(f) if len(text) > 18 or not text.lstrip("+-").isdigit() else int(text)


#: Header fields and the ranges FTQ can write; anything else is a corrupt header (refused, with its line).
_HEADER_RANGES = {
    # key: (low, high, low inclusive, what)
    # (a rate of 4.9e-324 Hz passed "above 0" and made the spectrum's bin width 0: fuzz ftq:46558)
    "Frequency": (1e-3, 1e9, True, "a sampling rate from 0.001 Hz to 1 GHz"),
    "Ticks per ns": (1e-6, 1e6, True, "a clock rate from 1e-06 to 1e+06 ticks per ns"),
    "Total count": (0, 2 ** 63 - 1, True, "a count of at least 0"),
    "Max possible work": (0, 2 ** 63 - 1, True, "a count of at least 0"),
    "Fraction": (0.0, 1.0, True, "a fraction between 0 and 1"),
    "Start delay ms": (0.0, 1e12, True, "a delay of at least 0 ms"),
    "thread": (0, 2 ** 31 - 1, True, "a thread number of at least 0"),
    "core": (-1, 2 ** 31 - 1, True, "a core number of at least -1"),
}
_HEADER_WORDS = {"Frequency": b"Frequency", "Ticks per ns": b"Ticks per ns", "Total count": b"Total count",
                 "Max possible work": b"Max possible work", "Fraction": b"Fraction is",
                 "Start delay ms": b"start delay", "thread": b"thread", "core": b"core"}


def check_header(source: Source, header: dict[str, Any], head: bytes) -> None:
    """Refuse header values outside what FTQ writes (a negative rate or fraction, an infinite count):
    they would turn into wrong numbers downstream. ``head``: the file's first bytes (for line numbers)."""
    for key, (lo, hi, lo_incl, what) in _HEADER_RANGES.items():
        v = header.get(key)
        if v is None:
            continue
        ok = math.isfinite(v) and (v >= lo if lo_incl else v > lo) and v <= hi
        if not ok:
            raise InputError(source.name, f"header {key!r} must be {what}, got {v:g}",
                             line=_header_line(head, _HEADER_WORDS[key]))


def _header_line(head: bytes, word: bytes) -> int | None:
    for i, line in enumerate(head.split(b"\n")):
        s = line.strip()
        if s.startswith(b"#") and word in s:
            return i + 1
        if s and not s.startswith(b"#"):
            break
    return None


#: Counts are exact integers in float64 up to 2**53; FTQ's counts are far below.
_MAX_COUNT = 2 ** 53


def check_counts(source: Source, count: np.ndarray, line_of, header: dict[str, Any] | None = None) -> None:
    """Refuse work counts that are not counts, or that no quantum can have done.

    Negative or fractional counts, and all-zero traces (no work measured: nothing to analyse) are
    refused; so is a count above the header's most a quantum can do (``Max possible work`` is FTQ's
    max count x threads x samples, so ``Max possible work / rows`` bounds every count): it would
    silently become the FTQ fraction's reference (one corrupt count of 10^9 turns 0.998 into 0.001).
    ``count``: one column, or several (one per rank); ``line_of(row)``: the file line of data row ``row``.
    """
    if not len(count):
        return
    c = count if count.ndim == 1 else count.ravel()
    bad = np.flatnonzero((c < 0) | (c > _MAX_COUNT))
    if count.dtype.kind == "f":
        bad = np.union1d(bad, np.flatnonzero(c != np.floor(c)))
    if len(bad):
        i = int(bad[0])
        row = i if count.ndim == 1 else i // count.shape[1]
        v = c[i]
        what = ("negative work count" if v < 0 else "work count too large" if v > _MAX_COUNT
                else "work count is not a whole number")
        raise InputError(source.name, f"{what}: {v:g}", line=line_of(row))
    if not c.any():
        raise InputError(source.name, f"every work count is 0 ({len(c):,} rows): no work was measured, "
                                      "nothing to analyse")
    mpw = (header or {}).get("Max possible work")
    if mpw and count.ndim == 1:
        cap = mpw / len(count)
        i = int(np.argmax(count))
        if count[i] > cap * (1 + 1e-9):
            raise InputError(source.name, f"work count {count[i]:g} is above the most a quantum can do by the "
                                          f"header (Max possible work {mpw:g} / {len(count):,} samples = {cap:g}): "
                                          "a corrupt count or header", line=line_of(i))


def check_span(source: Source, time: np.ndarray, period: float | None, line_of) -> None:
    """Refuse a time column spanning more sampling periods than ``source.limits`` allow (a jump of
    centuries in a 3-line file would make the spectrum allocate every period in between).

    ``time`` and ``period`` in the same unit; ``line_of(row)``: the file line of data row ``row``."""
    n = len(time)
    if n < 2 or not period or not period > 0:
        return
    span = float(time[-1]) - float(time[0])
    limit = source.limits.quanta(n)
    if not span / period > limit:
        return
    i = int(np.argmax(np.diff(time)))
    gap = float(time[i + 1]) - float(time[i])
    raise InputError(
        source.name,
        f"time jumps by {gap / period:.3g} sampling periods: the {n:,} rows would span {span / period:.3g} "
        f"periods, more than the limit of {limit:,} (a corrupt time, not a stall: FTQ writes a row for "
        "every period; raise the limit with --max-quanta)", line=line_of(i + 1))


def _first_bad_line(body: bytes, ncols: int | None, sep: bytes | None, first_line: int) -> tuple[int, str]:
    """Slow path, only after the fast parser failed: locate and describe the first malformed line."""
    expected = ncols
    for i, line in enumerate(io.BytesIO(body)):
        s = line.strip()
        if not s or s.startswith(b"#"):
            continue
        parts = s.split(sep) if sep else s.split()
        if expected is None:
            expected = len(parts)
        if len(parts) < expected:
            return first_line + i, f"truncated line (expected {expected} fields, got {len(parts)}): {_show(s)}"
        if len(parts) > expected:
            return first_line + i, f"too many fields (expected {expected}, got {len(parts)}): {_show(s)}"
        for p in parts:
            try:
                int(p)
            except ValueError:
                try:
                    f = float(p)
                except ValueError:
                    return first_line + i, f"not a number: {_show(p)}"
                if not np.isfinite(f):
                    return first_line + i, f"not a finite number: {_show(p)}"
    return first_line, "unreadable data"


def _show(b: bytes) -> str:
    text = b.decode("utf-8", "replace")
    return repr(text[:40] + ("…" if len(text) > 40 else ""))


def _line_of_row(body: bytes, row: int, first_line: int) -> int:
    """File line number (1-based) of data row ``row`` (0-based), skipping comments/blank lines."""
    k = -1
    for i, line in enumerate(io.BytesIO(body)):
        s = line.strip()
        if not s or s.startswith(b"#"):
            continue
        k += 1
        if k == row:
            return first_line + i
    return first_line


def parse_two_int_columns(body: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """Fast path for FTQ's own output, ``<int> <int>`` per line: two int64 column views, or None.

    numpy's C text scanner (``np.fromstring(sep=" ")``) reads the whole body in one call: about
    0.7x the time of ``pandas.read_csv(engine="c")`` on a 10^7-row file including the format check,
    with no import or JIT cost (benchmarks/RESULTS.md). It accepts only bodies whose every line is
    ``<digits> <digits>``; anything else (comments, blank lines, tabs, signs, floats, extra or missing
    fields) returns None and the caller uses the general pandas path, which also writes the errors.
    """
    n_nl = body.count(b"\n")
    n_lines = n_nl + (0 if body.endswith(b"\n") else 1)
    if n_lines == 0:
        return None
    # every line is exactly <digits> <digits>: what is left without the digits is " \n" per line
    # (a C-speed pass, ~0.1 s per 10^7 rows); this guards the scanner below, which would otherwise
    # pair the numbers of a line with an extra field and a truncated line wrongly
    if body.translate(None, b"0123456789") != b" \n" * n_nl + (b"" if n_nl == n_lines else b" "):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns (DeprecationWarning) when it stops before the end
        try:
            flat = np.fromstring(body, dtype=np.int64, sep=" ", count=2 * n_lines)  # sized once, no regrowth
        except (DeprecationWarning, ValueError, OverflowError):
            return None
    if flat.size != 2 * n_lines:
        return None
    pairs = flat.reshape(-1, 2)
    return pairs[:, 0], pairs[:, 1]


def _check_table_shape(source: Source, body: bytes, first_line: int, sep: str | None) -> None:
    """Refuse, before parsing, a table whose first line is much wider than the rest: the parser
    would pad every short line to that width (a 64 KiB first line over 500,000 short lines asks for
    10^10 cells from a 1 MB file). A consistent table needs at least 2 bytes per cell."""
    start = 0
    n = len(body)
    while start < n:  # the first data line
        end = body.find(b"\n", start)
        end = n if end < 0 else end
        line = body[start:end].strip()
        if line and not line.startswith(b"#"):
            break
        start = end + 1
    else:
        return
    ncols = len(line.split(sep.encode()) if sep else line.split())
    rows = body.count(b"\n", start) + 1
    if ncols <= 2 or rows * ncols <= n - start + 2 * rows:
        return
    bad_line, what = _first_bad_line(body, ncols, sep.encode() if sep else None, first_line)
    if what != "unreadable data":
        raise InputError(source.name, what, line=bad_line)


def read_numeric_table(source: Source, body: bytes, first_line: int, sep: str | None, min_cols: int = 2) -> np.ndarray:
    """Parse whitespace- or ``sep``-separated integers into an int64 2-D array (fast C parser).

    Raises InputError naming the first malformed line.
    """
    if _blank(body):
        raise InputError(source.name, "no data lines (header only)" if first_line > 1 else "empty file")
    _check_table_shape(source, body, first_line, sep)
    import pandas as pd  # (only here: the fast path and the report on FTQ's own output import no pandas)

    try:
        frame = pd.read_csv(
            io.BytesIO(body), sep=r"\s+" if sep is None else sep, header=None, comment="#",
            engine="c", dtype=np.float64, skip_blank_lines=True,
        )
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError):
        line, what = _first_bad_line(body, None, sep.encode() if sep else None, first_line)
        raise InputError(source.name, what, line=line) from None
    arr = frame.to_numpy()
    if arr.ndim != 2 or arr.shape[1] < min_cols:
        line, what = _first_bad_line(body, min_cols, sep.encode() if sep else None, first_line)
        raise InputError(source.name, what if what != "unreadable data" else
                         f"expected at least {min_cols} columns", line=line)
    bad = ~np.isfinite(arr)
    if bad.any():
        line, what = _first_bad_line(body, arr.shape[1], sep.encode() if sep else None, first_line)
        raise InputError(source.name, what, line=line)
    return arr


def flag_catchup(time: np.ndarray, count: np.ndarray, period: float) -> np.ndarray:
    """Catch-up rows: count 0 and the next row follows in under half a period (the last row: the previous).

    ``time`` and ``period`` in the same unit.
    """
    n = len(time)
    catchup = np.zeros(n, dtype=bool)
    if n < 2 or not period or period <= 0:
        return catchup
    zero = np.flatnonzero(count == 0)  # gaps are only needed at the (few) zero rows
    nxt = np.minimum(zero + 1, n - 1)
    gap = np.where(zero + 1 < n, time[nxt] - time[zero], time[zero] - time[np.maximum(zero - 1, 0)])
    catchup[zero[gap < 0.5 * period]] = True
    return catchup


def nominal_period(time: np.ndarray, header_hz: float | None) -> float | None:
    """Nominal period in the time unit: 1/Frequency if the header has it, else the median gap."""
    if header_hz and header_hz > 0:
        return 1.0 / header_hz
    return median_period(time, grid=True)  # catch-up rows (~20 ns apart) would pull a plain median down


def check_monotonic(source: Source, body: bytes, time: np.ndarray, first_line: int) -> None:
    bad = np.flatnonzero(time[1:] < time[:-1])
    if len(bad):
        _raise_backwards(source, body, time, int(bad[0]) + 1, first_line)


def _raise_backwards(source: Source, body: bytes, time: np.ndarray, row: int, first_line: int) -> None:
    """Raise the "timestamp goes backwards" InputError for data row ``row`` (0-based) of ``body``."""
    raise InputError(
        source.name,
        f"timestamp goes backwards ({time[row]:.0f} after {time[row - 1]:.0f})",
        line=_line_of_row(body, row, first_line),
    )


def _thread_from_name(name: str) -> int | None:
    m = _FILE_THREAD.search(name)
    return int(m.group(1)) if m else None


def _meta_from_header(source: Source, fmt: str, header: dict[str, Any], sampling_hz: float | None,
                      **extra: Any) -> TraceMeta:
    uname = header.get("uname", {})
    cpuinfo = header.get("cpuinfo", {})
    kernel = " ".join(x for x in (uname.get("sysname"), uname.get("release"), uname.get("version")) if x) or None
    core = header.get("core")
    thread = header.get("thread", _thread_from_name(source.name))
    return TraceMeta(
        path=source.name, format=fmt, kind="ftq", thread=thread,
        cpu=core if core is not None and core >= 0 else None,
        sampling_hz=sampling_hz, time_unit="s", value_unit="count",
        ticks_per_ns=header.get("Ticks per ns"), kernel=kernel, cpu_model=cpuinfo.get("model name"),
        header=header, extra=extra,
    )


def load_ftq(source: Source, **options: Any) -> list[Trace]:
    """Load a current-format FTQ file (one thread). Times in the file are ns since the first sample."""
    reject_options(source, "ftq", options)
    head = source.head(HEAD_BYTES)
    if _blank(head):
        raise InputError(source.name, "empty file")
    if b"\x00" in head[:65536]:
        raise InputError(source.name, "binary data, not an FTQ text trace")
    lines, offset = split_header(head)
    if offset >= len(head) and len(head) == HEAD_BYTES:  # a header longer than HEAD_BYTES: read it all
        head = source.read_bytes()
        lines, offset = split_header(head)
    header = parse_header(lines)
    check_header(source, header, head[:offset])
    first_line = head.count(b"\n", 0, offset) + 1
    freq = header.get("Frequency")
    del head
    body = source.read_from(offset)  # straight from the file: the header part is never copied
    fast = parse_two_int_columns(body) if FAST_PARSE else None
    if fast is not None:
        time_ns, count = fast
        del fast
        check_monotonic(source, body, time_ns, first_line)
        line_of = lambda row: _line_of_row(body, row, first_line)  # noqa: E731 (only called on an error)
        check_counts(source, count, line_of, header)
        period_ns = nominal_period(time_ns, freq * 1e-9 if freq else None)
        check_span(source, time_ns, period_ns, line_of)
        source.release()
        del body  # free the text before the float copies are made
        catchup = flag_catchup(time_ns, count, period_ns or 0.0)
        # Both columns stay strided views into the parsed (n, 2) pairs: the times are converted to
        # seconds in place (elementwise, same slots), so no further 8 bytes/row are allocated; fresh
        # pages cost more here than the parse itself (benchmarks/RESULTS.md).
        time_s = time_ns.view(np.float64)
        np.multiply(time_ns, 1e-9, out=time_s, casting="unsafe")
        frame = {"time": time_s, "value": count, "catchup": catchup}
        del time_ns, count
    else:
        arr = read_numeric_table(source, body, first_line, sep=None)
        time_ns = arr[:, 0]
        count = arr[:, 1]
        check_monotonic(source, body, time_ns, first_line)
        line_of = lambda row: _line_of_row(body, row, first_line)  # noqa: E731 (only called on an error)
        check_counts(source, count, line_of, header)
        period_ns = nominal_period(time_ns, freq * 1e-9 if freq else None)
        check_span(source, time_ns, period_ns, line_of)
        frame = {"time": time_ns * 1e-9, "value": count.astype(np.int64)}
        cols = header.get("columns", [])
        for j in range(2, arr.shape[1]):
            name = cols[j].lower() if j < len(cols) else f"col{j}"
            frame[name] = arr[:, j].astype(np.int64)
        frame["catchup"] = flag_catchup(time_ns, count, period_ns or 0.0)
    sampling_hz = freq if freq else (1e9 / period_ns if period_ns else None)
    meta = _meta_from_header(source, "ftq", header, sampling_hz)
    return [Trace(frame, meta)]  # (from the column arrays: the DataFrame is built only if asked for)


def load_ftq_mpi(source: Source, *, ticks_per_ns: float | None = None, clock_hz: float | None = None,
                 **options: Any) -> list[Trace]:
    """Load mpiftq output: ``#`` header, then ``<ticks since base>,<count>[,<count per rank>...]``.

    Times are converted to seconds with the header's (or the given: ``ticks_per_ns``, or
    ``clock_hz`` ticks per second) ticks per ns; one Trace per rank.
    """
    reject_options(source, "ftq-mpi", options)
    if ticks_per_ns is None and clock_hz is not None:
        ticks_per_ns = clock_hz * 1e-9
    if ticks_per_ns is not None and not (np.isfinite(ticks_per_ns) and ticks_per_ns > 0):
        raise UsageError(f"{source.name}: clock rate must be a positive number, got {ticks_per_ns}")
    data = source.read_bytes()
    if _blank(data):
        raise InputError(source.name, "empty file")
    if b"\x00" in data[:65536]:
        raise InputError(source.name, "binary data, not an FTQ text trace")
    lines, offset = split_header(data)
    header = parse_header(lines)
    check_header(source, header, data[:offset])
    body = data[offset:]
    first_line = data[:offset].count(b"\n") + 1
    arr = read_numeric_table(source, body, first_line, sep=",")
    ticks = arr[:, 0]
    check_monotonic(source, body, ticks, first_line)
    line_of = lambda row: _line_of_row(body, row, first_line)  # noqa: E731 (only called on an error)
    check_counts(source, arr[:, 1:], line_of)
    tpn = ticks_per_ns or header.get("Ticks per ns")
    if tpn and tpn > 0:
        time, unit = ticks / tpn * 1e-9, "s"
    else:
        time, unit = ticks.astype(np.float64), "ticks"
    freq = header.get("Frequency")
    period = nominal_period(time, (freq if unit == "s" else None))
    check_span(source, time, period, line_of)
    sampling_hz = freq if freq else (1.0 / period if unit == "s" and period else None)
    traces = []
    nranks = arr.shape[1] - 1
    for r in range(nranks):
        count = arr[:, 1 + r].astype(np.int64)
        cols = {"time": time, "value": count, "catchup": flag_catchup(time, count, period or 0.0)}
        meta = _meta_from_header(source, "ftq-mpi", header, sampling_hz, rank=r, threads_in_file=nranks)
        meta = meta.replace(thread=r, time_unit=unit, ticks_per_ns=tpn)
        traces.append(Trace(cols, meta))
    return traces
