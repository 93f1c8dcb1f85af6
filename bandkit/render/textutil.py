"""Small formatting helpers shared by the text renderers."""
from __future__ import annotations

import contextlib
import contextvars
import math
import re
from typing import Sequence

#: Width (columns) of the text being rendered: tables fit it (:func:`table`); set by the renderer.
WIDTH = contextvars.ContextVar("bandkit_text_width", default=100)


@contextlib.contextmanager
def text_width(width: int):
    """Render text ``width`` columns wide inside the block (tables narrow their cells to fit)."""
    token = WIDTH.set(int(width))
    try:
        yield
    finally:
        WIDTH.reset(token)


def fmt_num(x, digits: int = 4) -> str:
    """A number with ``digits`` significant digits, thousands separators for large values, scientific
    notation beyond 1e12 or below 1e-6 (no 300-digit strings); '–' for None."""
    if x is None:
        return "–"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return f"{x:,}"
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag >= 12 or mag < -6:
        return f"{x:.{max(digits - 1, 0)}e}"
    if mag >= digits:
        return f"{x:,.0f}"
    dec = max(digits - 1 - mag, 0)
    return f"{x:,.{dec}f}"


def fmt_pct(x, digits: int = 1) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f} %"


def fmt_time(seconds) -> str:
    """Seconds with a readable unit (ns, µs, ms, s, min)."""
    if seconds is None:
        return "–"
    a = abs(seconds)
    if a == 0:
        return "0 s"
    if a < 1e-6:
        return f"{seconds * 1e9:.3g} ns"
    if a < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if a < 1:
        return f"{seconds * 1e3:.3g} ms"
    if a < 120:
        return f"{seconds:.3g} s"
    return f"{seconds / 60:.3g} min"


def ellipsize(text: str, width: int, where: str = "end") -> str:
    """``text`` cut to ``width`` characters with "…" where it was cut (``where``: "end" or "middle");
    never cut silently."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"
    if where == "middle":
        head = (width - 1) // 2
        return text[:head] + "…" + text[len(text) - (width - 1 - head):]
    return text[: width - 1].rstrip() + "…"


def shorten_distinct(labels: Sequence[str], width: int) -> list[str]:
    """Each label cut to ``width`` characters in the middle ("node01…_0.dat"), choosing where to cut so
    that labels that differ stay different (names that differ only in the middle keep that part)."""
    labels = [str(x) for x in labels]
    long = [x for x in labels if len(x) > width]
    if not long or width < 3:
        return [ellipsize(x, width, "middle") for x in labels]
    distinct = len(set(labels))

    def cut(x: str, head: int) -> str:
        return x if len(x) <= width else x[:head] + "…" + x[len(x) - (width - 1 - head):]

    mid = (width - 1) // 2
    for head in sorted(range(width), key=lambda h: abs(h - mid)):  # closest to a middle cut first
        out = [cut(x, head) for x in labels]
        if len(set(out)) == distinct:
            return out
    # no single cut keeps them apart: show the part around where each differs from the others
    out = []
    for x in labels:
        if len(x) <= width:
            out.append(x)
            continue
        k = max((_common_prefix(x, y) for y in labels if y != x), default=0)
        start = max(0, min(k - (width - 2) // 2, len(x) - (width - 2)))
        out.append(("…" if start else "") + x[start:start + width - 2] + "…")
    return out


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def time_scale(seconds) -> tuple[float, str]:
    """(factor, unit) that :func:`fmt_time` would use for ``seconds`` (ns, µs, ms, s)."""
    a = abs(seconds or 0.0)
    if a and a < 1e-6:
        return 1e9, "ns"
    if a and a < 1e-3:
        return 1e6, "µs"
    if a and a < 1:
        return 1e3, "ms"
    return 1.0, "s"


def fmt_time_as(seconds, like) -> str:
    """``seconds`` in the unit :func:`fmt_time` gives ``like`` ("22.5 ms ± 0.187 ms", not "± 187 µs")."""
    if seconds is None:
        return "–"
    f, u = time_scale(like)
    return f"{fmt_num(seconds * f, 3)} {u}"


def fit_widths(widths: Sequence[int], align: str, width: int, min_width: int = 8) -> list[int]:
    """Column widths of :func:`table` in ``width`` columns: while too wide, the widest left-aligned (text)
    column loses a column, down to ``min_width`` (the last column is not padded, so only its longest
    cell counts)."""
    widths = list(widths)
    over = sum(widths) + 2 * (len(widths) - 1) - width
    while over > 0:
        shrinkable = [i for i in range(len(widths)) if align[i] == "l" and widths[i] > min_width]
        if not shrinkable:
            break
        i = max(shrinkable, key=lambda j: widths[j])
        widths[i] -= 1
        over -= 1
    return widths


def table(rows: Sequence[Sequence[str]], header: Sequence[str] | None = None, width: int | None = None,
          align: str | None = None, indent: int = 2, min_width: int = 8) -> list[str]:
    """Plain-text table; ``align`` is a string of 'l'/'r' per column (default: first left, rest right).

    Lines start with ``indent`` spaces and fit ``width`` columns (default: :data:`WIDTH`, the width of
    the text being rendered): when the table is wider, its widest left-aligned (text) columns are
    narrowed, down to ``min_width``, and each cell cut shows "…"."""
    width = WIDTH.get() if width is None else width
    rows = [[str(c) for c in r] for r in rows]
    allrows = ([list(header)] if header else []) + rows
    if not allrows:
        return []
    ncol = max(len(r) for r in allrows)
    allrows = [r + [""] * (ncol - len(r)) for r in allrows]
    align = align or ("l" + "r" * (ncol - 1) if header else "l" * ncol)
    widths = fit_widths([max(len(r[i]) for r in allrows) for i in range(ncol)], align, width - indent, min_width)
    pad = " " * indent
    out = []
    for k, r in enumerate(allrows):
        cells = [ellipsize(c, w) for c, w in zip(r, widths)]
        cells = [c.ljust(w) if align[i] == "l" else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        out.append(pad + "  ".join(cells).rstrip())
        if header and k == 0:
            out.append(pad + "  ".join("-" * w for w in widths))
    return out


# C0 and C1 control characters, DEL, and the bidirectional overrides/isolates that reorder what a
# terminal shows ("Trojan source"): a benchmark or file name holding them must not drive the terminal.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_one(m: "re.Match[str]") -> str:
    c = m.group(0)
    if c in _NAMED:
        return _NAMED[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def escape_control(text: str) -> str:
    """``text`` with every control character (newline included) shown as an escape: ``\\x1b[31m``
    instead of a colour change, ``\\n`` instead of a second line."""
    return _CONTROL.sub(_escape_one, text)


def escape_lines(text: str) -> str:
    """:func:`escape_control` for each line of ``text``, the newlines between lines kept."""
    return "\n".join(escape_control(line) for line in text.split("\n"))


def wrap_line(line: str, width: int) -> str:
    """``line`` wrapped at spaces to ``width`` columns (continuation lines indented two more); a word
    longer than a line is kept whole, never cut."""
    if len(line) <= width:
        return line
    indent = len(line) - len(line.lstrip(" "))
    # a number and its unit stay on one line ("72 %", "9.9 ms", "100 Hz")
    glued = _NUMBER_UNIT.sub("\\1\u00a0\\2", line)
    if width > 0 and _OTHER_SPACE.search(glued) is None:
        wrapped = _wrap_spaces(glued, width, " " * (indent + 2))
    else:
        import textwrap

        wrapped = textwrap.wrap(glued, width=width, subsequent_indent=" " * (indent + 2),
                                break_long_words=False, break_on_hyphens=False)
    return "\n".join(w.replace("\u00a0", " ") for w in wrapped)


#: The whitespace other than " " that ``textwrap`` rewrites (tabs expanded, the rest made spaces).
_OTHER_SPACE = re.compile("[\t\n\x0b\x0c\r]")
_SPACES = re.compile("( +)")


def _wrap_spaces(text: str, width: int, subsequent_indent: str) -> list[str]:
    """``textwrap.wrap(text, width, subsequent_indent=..., break_long_words=False, break_on_hyphens=False)``
    of a text whose only ASCII whitespace is " " (no tab or newline to rewrite): the same chunks (words
    and runs of spaces) laid out by the same loop (``TextWrapper._wrap_chunks``), without the wrapper
    object, its whitespace translation and its per-chunk method calls (a 60-benchmark report wraps ~200
    lines: a third of its text time)."""
    chunks = [c for c in _SPACES.split(text) if c]
    chunks.reverse()
    lines: list[str] = []
    while chunks:
        cur: list[str] = []
        cur_len = 0
        indent = subsequent_indent if lines else ""
        room = width - len(indent)
        if chunks[-1].strip() == "" and lines:
            del chunks[-1]
        while chunks:
            n = len(chunks[-1])
            if cur_len + n <= room:
                cur.append(chunks.pop())
                cur_len += n
            else:
                break
        if chunks and len(chunks[-1]) > room and not cur:
            cur.append(chunks.pop())  # (a word longer than the line: kept whole)
        if cur and cur[-1].strip() == "":
            cur_len -= len(cur[-1])
            del cur[-1]
        if cur:
            lines.append(indent + "".join(cur))
    return lines


_NUMBER_UNIT = re.compile(r"(\d) (%|[µmnk]?s\b|[kMG]?Hz\b|°C)")
