"""Small formatting helpers shared by the text renderers."""
from __future__ import annotations

import math
import re
from typing import Sequence


def fmt_num(x, digits: int = 4) -> str:
    """A number with ``digits`` significant digits, thousands separators for large values; '–' for None."""
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


def table(rows: Sequence[Sequence[str]], header: Sequence[str] | None = None, width: int = 100,
          align: str | None = None) -> list[str]:
    """Plain-text table; ``align`` is a string of 'l'/'r' per column (default: first left, rest right)."""
    rows = [[str(c) for c in r] for r in rows]
    allrows = ([list(header)] if header else []) + rows
    if not allrows:
        return []
    ncol = max(len(r) for r in allrows)
    allrows = [r + [""] * (ncol - len(r)) for r in allrows]
    widths = [max(len(r[i]) for r in allrows) for i in range(ncol)]
    align = align or ("l" + "r" * (ncol - 1) if header else "l" * ncol)
    out = []
    for k, r in enumerate(allrows):
        cells = [c.ljust(w) if align[i] == "l" else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        line = "  " + "  ".join(cells).rstrip()
        out.append(line[:width] if len(line) > width else line)
        if header and k == 0:
            out.append("  " + "  ".join("-" * w for w in widths))
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
