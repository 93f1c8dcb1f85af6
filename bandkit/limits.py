"""Resource limits: how much memory or time one input may make bandkit spend.

A few bytes can ask for gigabytes: a 6 MB ``.gz`` that expands to 3 GB, a CSV line with 50,000
columns, an FTQ time column that jumps by 300 years (the spectrum puts a trace on its sampling
grid). Each such input is refused with one error line that names the limit and the option that
raises it (``Limits`` field in Python, ``--max-...`` on the command line). Inputs that are merely
big (a 2 GB FTQ trace on disk) are not limited: their cost is proportional to their size.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

#: Decompressed size allowed per compressed byte when ``max_input_bytes`` is not set (real .gz
#: traces and result files expand 2.4x-9.9x: 109 files of the project's shared data).
GZIP_RATIO = 32
#: Decompressed size always allowed for a small compressed input.
GZIP_FLOOR = 16 * MiB
#: Bytes read from a stream (stdin, pipe, FIFO, device) when ``max_input_bytes`` is not set.
STREAM_DEFAULT = 2 * GiB
#: Benchmarks (traces) one input may hold by default. Each costs ~0.1 ms of CPU even when it holds one
#: summary value (load, analysis, one report; measured on asv files of 5,000-63,560 one-value
#: benchmarks, benchmarks/many_benchmarks.py, RESULTS_fuzz.md): 60,000 take ~6 s on the shared
#: 2-core machine. Real result files hold far fewer (at most 198 in the project's 39 shared runner
#: files; a whole asv suite of a large project, its parameter combinations included, some
#: thousands): more is a generated or corrupt file (the fuzz mutants asv:36270, asv:48827: a
#: parameter list expanded into 63,000 one-value benchmarks).
MAX_BENCHMARKS = 50_000
#: Grid slots (sampling periods) an FTQ trace may span per row, and at least, by default.
QUANTA_PER_ROW = 16
QUANTA_FLOOR = 20_000_000


@dataclass(frozen=True)
class Limits:
    """Bounds on what one input may cost. ``None`` fields use the defaults described here.

    - ``max_input_bytes``: bytes held in memory for an input whose size is not that of a regular
      file: the decompressed content of a ``.gz`` (default: 32 x its compressed size, at least
      16 MiB) and a stream such as standard input, a pipe or a FIFO (default 2 GiB).
    - ``max_line_bytes``: longest line of a line-oriented table (CSV, turbostat, Criterion
      raw.csv), default 64 KiB.
    - ``max_columns``: columns of such a table, default 256 (each one is per-run metadata that
      every analysis of the runs looks at).
    - ``max_quanta``: sampling periods an FTQ trace may span from its first to its last time
      (default: 16 x its rows, at least 20,000,000): a longer span is a corrupt time column, not
      a stall (FTQ writes a row for every period, even those it lost).
    - ``max_benchmarks``: benchmarks (traces) one input may hold, default 50,000 (each costs ~0.1 ms
      of CPU even when it holds one value: ~5 s at the default).
    """

    max_input_bytes: int | None = None
    max_line_bytes: int = 64 * KiB
    max_columns: int = 256
    max_quanta: int | None = None
    max_benchmarks: int = MAX_BENCHMARKS

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"Limits.{f.name} must be a positive integer or None, got {v!r}")

    def replace(self, **changes) -> "Limits":
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    def gzip_bytes(self, compressed: int | None) -> int:
        """Largest decompressed size accepted for ``compressed`` bytes of gzip data."""
        if self.max_input_bytes is not None:
            return self.max_input_bytes
        return max(GZIP_FLOOR, GZIP_RATIO * (compressed or 0))

    def stream_bytes(self) -> int:
        """Largest size accepted from a stream (stdin, pipe, FIFO, device)."""
        return self.max_input_bytes if self.max_input_bytes is not None else STREAM_DEFAULT

    def quanta(self, rows: int) -> int:
        """Largest span, in sampling periods, accepted for an FTQ trace of ``rows`` rows."""
        if self.max_quanta is not None:
            return self.max_quanta
        return max(QUANTA_FLOOR, QUANTA_PER_ROW * rows)


DEFAULT = Limits()

_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([kKmMgGtT]?)(i?[bB])?\s*$")
_UNIT = {"": 1, "k": KiB, "m": MiB, "g": GiB, "t": 1 << 40}


def parse_size(text: str) -> int:
    """``"64M"``, ``"2GiB"``, ``"1.5g"``, ``"4096"`` -> bytes (binary units). ValueError otherwise."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r} (e.g. 4096, 64K, 512M, 2G)")
    n = int(float(m.group(1)) * _UNIT[m.group(2).lower()])
    if n < 1:
        raise ValueError(f"size must be positive: {text!r}")
    return n


def fmt_size(n: int) -> str:
    """Bytes as a short binary-unit string: 65536 -> '64 KiB'."""
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v >= 10 or v == int(v) else f"{v:.1f} {unit}"
    return f"{n} bytes"
