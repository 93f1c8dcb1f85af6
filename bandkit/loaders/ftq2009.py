"""FTQ, 2009 / LLNL format: ``*_times.dat`` + ``*_counts.dat`` (or ``times.dat`` + ``counts.dat``).

One integer per line, no header: absolute TSC ticks at the start of each quantum, and the work
count of that quantum. Files holding several threads are the threads' blocks concatenated; a block
starts where time goes backwards. The first quantum of each block is short (its end is aligned to
the 2^bits tick mask): it is flagged ``partial`` and left out of :attr:`Trace.samples`.
Time is in ticks unless a clock rate is given (``clock_hz`` ticks per second, or ``ticks_per_ns``).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..robust import median_period
from ..trace import Trace, TraceMeta
from .ftq import _line_of_row, check_counts, check_span, read_numeric_table
from .ftq_names import _COUNTS, _TIMES, is_counts_name, is_times_name, pair_key  # noqa: F401  (pair_key re-exported)
from .options import reject_options
from .source import Source

#: Most thread blocks (time restarts) accepted in one times file, and the least median block length
#: (a thread's FTQ run has hundreds of quanta; a times file that restarts every few lines is corrupt).
MAX_BLOCKS = 256
MIN_BLOCK_ROWS = 16


def pair_paths(source: Source) -> tuple[Path, Path]:
    """(times, counts) paths for a directory, a times file or a counts file."""
    if source.path is None:
        raise InputError(source.name, "the two-file FTQ format needs a path (times.dat + counts.dat), not a stream")
    p = source.path
    if p.is_dir():
        cands = sorted(p.glob("*times.dat")) + sorted(p.glob("*times.dat.gz"))
        cands = [c for c in cands if is_times_name(c.name)]
        if not cands:
            raise InputError(source.name, "directory has no times.dat / *_times.dat file")
        if len(cands) > 1:
            raise InputError(source.name, "directory has several *_times.dat files: name one of them")
        times = cands[0]
        counts = times.with_name(_TIMES.sub(lambda m: m.group(1) + "counts.dat" + (m.group(2) or ""), times.name))
        if not counts.exists():
            raise InputError(str(times), f"times file without its counts file (expected {counts})")
        return times, counts
    if is_counts_name(p.name):
        times = p.with_name(_COUNTS.sub(lambda m: m.group(1) + "times.dat" + (m.group(2) or ""), p.name))
        if not times.exists():
            raise InputError(source.name, f"counts file without its times file (expected {times})")
        return times, p
    if is_times_name(p.name):
        counts = p.with_name(_TIMES.sub(lambda m: m.group(1) + "counts.dat" + (m.group(2) or ""), p.name))
        if not counts.exists():
            raise InputError(source.name, f"times file without its counts file (expected {counts})")
        return p, counts
    raise InputError(source.name, "not a times.dat / counts.dat file of the two-file FTQ format")


def _read_column(src: Source) -> np.ndarray:
    data = src.read_bytes()
    if not data.strip():
        raise InputError(src.name, "empty file")
    if b"\x00" in data[:65536]:
        raise InputError(src.name, "binary data, not an FTQ text file")
    arr = read_numeric_table(src, data, 1, sep=None, min_cols=1)
    if arr.shape[1] != 1:
        raise InputError(src.name, f"expected one integer per line, got {arr.shape[1]} columns", line=1)
    col = arr[:, 0]
    bad = np.flatnonzero((col != np.floor(col)) | (np.abs(col) > 9e18))
    if len(bad):
        raise InputError(src.name, f"not an integer in the 64-bit range: {col[bad[0]]:.6g}",
                         line=_line_of_row(data, int(bad[0]), 1))
    return col


def load_ftq2009(source: Source, *, clock_hz: float | None = None, ticks_per_ns: float | None = None,
                 **options: Any) -> list[Trace]:
    """Load the two-file FTQ format; one Trace per thread block."""
    reject_options(source, "ftq-2009", options)
    if clock_hz is None and ticks_per_ns:
        clock_hz = ticks_per_ns * 1e9
    if clock_hz is not None and not (math.isfinite(clock_hz) and 1e3 <= clock_hz <= 1e12):
        raise UsageError(f"{source.name}: clock rate must be between 1e3 and 1e12 ticks per second, got {clock_hz}")
    times_path, counts_path = pair_paths(source)
    times_src, counts_src = source.related(times_path), source.related(counts_path)
    ticks = _read_column(times_src).astype(np.int64)
    counts = _read_column(counts_src)
    if len(ticks) != len(counts):
        short, n = (str(times_path), len(ticks)) if len(ticks) < len(counts) else (str(counts_path), len(counts))
        raise InputError(short, f"has {n} lines but its partner has {max(len(ticks), len(counts))}: "
                                f"times and counts must pair line by line", line=n + 1)
    check_counts(counts_src, counts, lambda row: _line_of_row(counts_src.read_bytes(), row, 1))
    counts = counts.astype(np.int64)
    back = np.flatnonzero(np.diff(ticks) < 0) + 1
    if len(back) > MAX_BLOCKS - 1:
        raise InputError(str(times_path), f"time goes backwards {len(back)} times: more thread blocks than "
                                          f"{MAX_BLOCKS} (a corrupt or unsorted times file?)", line=int(back[0]) + 1)
    starts = np.concatenate([[0], back, [len(ticks)]])
    if len(back) and np.median(np.diff(starts)) < MIN_BLOCK_ROWS:
        raise InputError(str(times_path), f"time goes backwards {len(back)} times, every {np.median(np.diff(starts)):g} "
                                          f"lines (median): not the blocks of FTQ threads (a corrupt or unsorted "
                                          f"times file?)", line=int(back[0]) + 1)
    nblocks = len(starts) - 1
    traces = []
    for b in range(nblocks):
        lo, hi = int(starts[b]), int(starts[b + 1])
        t = ticks[lo:hi]
        c = counts[lo:hi]
        if len(t) > 1 and np.any(np.diff(t) == 0):
            row = lo + int(np.flatnonzero(np.diff(t) == 0)[0]) + 1
            raise InputError(str(times_path), "repeated timestamp", line=row + 1)
        gaps = np.diff(t)
        quantum = median_period(t[1:] if len(t) > 3 else t) or float("nan")  # the first quantum may be short
        check_span(times_src, t, quantum, lambda row: _line_of_row(times_src.read_bytes(), lo + row, 1))
        bits = math.log2(quantum) if quantum > 0 else float("nan")
        rel = (t - t[0]).astype(np.float64)
        partial = np.zeros(len(t), dtype=bool)
        if len(gaps) and gaps[0] < 0.9 * quantum:
            partial[0] = True
        if clock_hz:
            time, unit, hz = rel / clock_hz, "s", clock_hz / quantum
        else:
            time, unit, hz = rel, "ticks", None
        cols = {"time": time, "value": c, "ticks": t, "catchup": np.zeros(len(t), dtype=bool), "partial": partial}
        extra = {"quantum_ticks": quantum, "threads_in_file": nblocks, "times_file": str(times_path),
                 "counts_file": str(counts_path), "first_line": lo + 1}
        if bits == bits and abs(quantum / 2 ** round(bits) - 1) < 1e-3:
            extra["quantum_bits"] = int(round(bits))
        if partial[0]:
            extra["first_quantum_ticks"] = float(gaps[0])
        meta = TraceMeta(path=source.name, format="ftq-2009", kind="ftq", thread=b, sampling_hz=hz,
                         time_unit=unit, value_unit="count",
                         ticks_per_ns=(clock_hz / 1e9) if clock_hz else None, extra=extra)
        traces.append(Trace(cols, meta))
    return traces
