"""Single-pass numba parser for big FTQ bodies: ``<int> <int>`` per line, whitespace-separated.

Why not ``pandas.read_csv``: on a 10^7-row FTQ file (176 MB) the C parser needs ~0.55 s and then
float64 frames, ``to_numpy`` interleaving and separate passes for the monotonic check; this parser
reads the bytes in place (``np.frombuffer``, no copy of the body), writes straight into two int64
arrays and checks monotonic time in the same pass — about 3x faster than ``pandas.read_csv(engine="c")``
on the same file (benchmarks/RESULTS.md). It accepts only the common case (two optionally signed
integers per line, ``#`` comment lines, blank lines, ``\\r\\n``); anything else (floats, extra
columns, garbage) returns a "not handled" status and the caller falls back to the general pandas
path, which also produces the error messages. Compiled with ``cache=True``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

OK = 0
NOT_HANDLED = 1


@njit(cache=True, nogil=True)
def _parse_two_ints(buf, start, out_a, out_b):  # pragma: no cover - compiled
    """Parse rows from ``buf[start:]``, which must end with a newline.

    Returns (status, rows, first row whose col0 is below the previous row's, or -1).
    """
    n = buf.shape[0]
    i = start
    rows = 0
    back = -1
    prev = np.int64(0)
    cap = out_a.shape[0]
    while i < n:
        c = buf[i]
        while c == 32 or c == 9 or c == 13:  # leading whitespace (the buffer ends with \n)
            i += 1
            c = buf[i]
        if c == 10:
            i += 1
            continue
        if c == 35:  # '#': comment line
            while buf[i] != 10:
                i += 1
            i += 1
            continue
        # first field
        neg = c == 45
        if c == 45 or c == 43:
            i += 1
        v0 = np.int64(0)
        j = i
        d = np.uint8(buf[i] - 48)
        while d <= 9:
            v0 = v0 * 10 + np.int64(d)
            i += 1
            d = np.uint8(buf[i] - 48)
        if i == j or i - j > 18:
            return NOT_HANDLED, rows, back
        if neg:
            v0 = -v0
        c = buf[i]
        if not (c == 32 or c == 9):
            return NOT_HANDLED, rows, back
        while c == 32 or c == 9:
            i += 1
            c = buf[i]
        # second field
        neg = c == 45
        if c == 45 or c == 43:
            i += 1
        v1 = np.int64(0)
        j = i
        d = np.uint8(buf[i] - 48)
        while d <= 9:
            v1 = v1 * 10 + np.int64(d)
            i += 1
            d = np.uint8(buf[i] - 48)
        if i == j or i - j > 18:
            return NOT_HANDLED, rows, back
        if neg:
            v1 = -v1
        c = buf[i]
        while c == 32 or c == 9 or c == 13:
            i += 1
            c = buf[i]
        if c != 10:
            return NOT_HANDLED, rows, back
        i += 1
        if rows >= cap:
            return NOT_HANDLED, rows, back
        out_a[rows] = v0
        out_b[rows] = v1
        if v0 < prev and back < 0 and rows > 0:
            back = rows
        prev = v0
        rows += 1
    return OK, rows, back


@njit(cache=True, nogil=True)
def catchup_flags(time, count, half_period):  # pragma: no cover - compiled
    """Same rule as :func:`bandkit.loaders.ftq.flag_catchup`, one pass without temporaries."""
    n = time.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    if n < 2:
        return out
    for k in range(n - 1):
        out[k] = count[k] == 0 and (time[k + 1] - time[k]) < half_period
    out[n - 1] = count[n - 1] == 0 and (time[n - 1] - time[n - 2]) < half_period
    return out


def parse_two_int_columns(data: bytes, offset: int = 0) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Parse ``data[offset:]`` into (col0, col1, first_backwards_row or -1); None when not handled.

    None also when there is no data row (the caller's general path reports that).
    """
    out = _parse(data, offset)
    if out is None or len(out[0]) == 0:
        return None
    return out


def _parse(data: bytes, offset: int):
    if not data.endswith(b"\n"):
        # the compiled parser needs a final newline: copy only the unterminated last line
        last = data.rfind(b"\n", offset) + 1
        tail = _parse(data[max(last, offset):] + b"\n", 0)
        if last <= offset or tail is None:
            return tail
        head = _parse(data[:last], offset)
        if head is None:
            return None
        a = np.concatenate([head[0], tail[0]])
        b = np.concatenate([head[1], tail[1]])
        back = head[2]
        if back < 0 and len(tail[0]) and len(head[0]) and tail[0][0] < head[0][-1]:
            back = len(head[0])
        if back < 0 and tail[2] >= 0:
            back = len(head[0]) + tail[2]
        return a, b, back
    buf = np.frombuffer(data, dtype=np.uint8)
    cap = data.count(b"\n", offset) + 1
    a = np.empty(cap, dtype=np.int64)
    b = np.empty(cap, dtype=np.int64)
    status, rows, back = _parse_two_ints(buf, offset, a, b)
    if status != OK:
        return None
    if rows < cap - 1024:
        a, b = a[:rows].copy(), b[:rows].copy()
    else:
        a, b = a[:rows], b[:rows]
    return a, b, int(back)
