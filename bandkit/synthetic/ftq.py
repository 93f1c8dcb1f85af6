"""Fast, seeded generator of synthetic FTQ traces in the current text format (ground truth known).

The model follows how FTQ (rminnich/ftq) writes a trace: one row per grid slot of length ``P = 1/freq``;
the row's time is the start of its quantum (ns since the first sample), its count the work units done
before the slot's deadline. Ingredients, all vectorised numpy:

* **bands**: the work rate switches between discrete levels (Markov runs of geometric length);
* **noise**: Gaussian count noise (sd ``noise_sd`` counts);
* **periodic interference**: every ``1/interference_hz`` s the CPU is taken for ``interference_s`` s;
  a quantum loses the overlapping fraction of its work;
* **stalls**: Poisson episodes (``stall_rate_hz``) of log-normal length (median ``stall_median_s``);
  the stalled quantum keeps the work done before the stall, every slot whose deadline passed during
  the stall becomes a catch-up row (count 0, ~20 ns apart, as FTQ writes them), and the first row after
  the stall is a partial quantum ending on the grid.

``write_ftq`` formats 10^7 rows in a few seconds (digits computed column-wise in numpy, no per-line
Python), in chunks so the text never exists whole in memory.
"""
from __future__ import annotations

import gzip
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

#: Time between consecutive catch-up rows (ns): what real FTQ traces show.
CATCHUP_STEP_NS = 20


@dataclass(frozen=True)
class SyntheticFtq:
    """A generated trace and its ground truth.

    ``time_ns``/``count``: the rows as written (int64); ``catchup``: rows that are catch-up rows;
    ``band``: index into ``levels`` of each row's work rate; ``stalls``: (start_ns, end_ns) of each stall.
    """

    time_ns: np.ndarray
    count: np.ndarray
    catchup: np.ndarray
    band: np.ndarray
    levels: tuple[float, ...]
    freq_hz: float
    stalls: np.ndarray
    header: dict = field(default_factory=dict)

    @property
    def ftq_fraction(self) -> float:
        return float(self.count.sum(dtype=np.float64) / (self.count.max() * len(self.count)))


def _cum_interference(x: np.ndarray, f: float, d: float, phase: float) -> np.ndarray:
    """Interference time in [phase, x) for windows [phase + k/f, phase + k/f + d) (x, d in seconds)."""
    per = 1.0 / f
    y = np.maximum(x - phase, 0.0)
    k = np.floor(y / per)
    return k * d + np.minimum(y - k * per, d)


def generate_ftq(n: int, *, freq_hz: float = 10000.0, levels: Sequence[float] = (1338.0, 1270.0),
                 weights: Sequence[float] | None = None, mean_run: float = 200.0, noise_sd: float = 8.0,
                 interference_hz: float | None = None, interference_s: float = 1e-3,
                 stall_rate_hz: float = 0.0, stall_median_s: float = 2e-3, stall_sigma: float = 0.8,
                 seed: int = 0) -> SyntheticFtq:
    """Generate ``n`` FTQ rows (catch-up rows included) at ``freq_hz``.

    ``levels``: work counts per full quantum of each band; ``weights``: band probabilities (equal when
    None); ``mean_run``: mean band dwell (quanta). Stalls: ``stall_rate_hz`` episodes per second of
    log-normal length (median ``stall_median_s``, log-sd ``stall_sigma``).
    """
    if n < 2:
        raise ValueError("n must be at least 2")
    rng = np.random.default_rng(seed)
    levels = tuple(float(v) for v in levels)
    w = np.full(len(levels), 1.0 / len(levels)) if weights is None else np.asarray(weights, float) / np.sum(weights)
    period_s = 1.0 / freq_hz
    period_ns = 1e9 / freq_hz
    slot = np.arange(n, dtype=np.int64)
    grid = slot * period_ns  # float ns
    # -- bands: Markov runs of geometric length ------------------------------------
    nruns = int(n / max(mean_run, 1.0) * 1.5) + 16
    lengths = rng.geometric(1.0 / max(mean_run, 1.0), size=nruns)
    while lengths.sum() < n:
        lengths = np.concatenate([lengths, rng.geometric(1.0 / max(mean_run, 1.0), size=nruns)])
    run_band = rng.choice(len(levels), size=len(lengths), p=w)
    band = np.repeat(run_band.astype(np.int8), lengths)[:n]
    rate = np.asarray(levels)[band]  # counts per full quantum
    avail = np.ones(n)  # fraction of the slot the CPU was available
    if interference_hz:
        phase = float(rng.uniform(0, 1.0 / interference_hz))
        t0 = grid * 1e-9
        lost = _cum_interference(t0 + period_s, interference_hz, interference_s, phase) - \
            _cum_interference(t0, interference_hz, interference_s, phase)
        avail -= lost / period_s
    # -- stalls ---------------------------------------------------------------------
    time = grid + rng.normal(0.0, 25.0, n).clip(-60, 60)
    catchup = np.zeros(n, dtype=bool)
    stalls = np.zeros((0, 2))
    duration_s = n * period_s
    if stall_rate_hz > 0:
        k = rng.poisson(stall_rate_hz * duration_s)
        starts = np.sort(rng.uniform(0, duration_s, k)) * 1e9
        lens = np.exp(rng.normal(np.log(stall_median_s), stall_sigma, k)) * 1e9
        ends = starts + lens
        # drop stalls overlapping the previous one (and leave 2 slots between episodes)
        keep = np.ones(k, dtype=bool)
        last_end = -np.inf
        for i in range(k):  # O(stalls), not O(rows)
            if starts[i] < last_end + 2 * period_ns:
                keep[i] = False
            else:
                last_end = ends[i]
        starts, ends = starts[keep], ends[keep]
        s_slot = np.floor(starts / period_ns).astype(np.int64)
        # slots j > s_slot whose deadline (j+1)*P <= end are catch-up rows
        # (the catch-up rows themselves take CATCHUP_STEP_NS each; keep the row after them >= 1 µs
        # before its deadline so it is a real, partial quantum)
        est = np.floor(ends / period_ns).astype(np.int64) - s_slot
        last_cu = np.floor((ends + (est + 1) * CATCHUP_STEP_NS + 1000) / period_ns).astype(np.int64) - 1
        ok = (last_cu > s_slot) & (last_cu + 1 < n)
        starts, ends, s_slot, last_cu = starts[ok], ends[ok], s_slot[ok], last_cu[ok]
        stalls = np.column_stack([starts, ends])
        # the stalled quantum keeps the work done before the stall
        avail[s_slot] *= np.clip((starts - grid[s_slot]) / period_ns, 0.0, 1.0)
        nc = last_cu - s_slot
        idx = np.repeat(s_slot + 1, nc) + (np.arange(nc.sum()) - np.repeat(np.cumsum(nc) - nc, nc))
        j = idx - np.repeat(s_slot + 1, nc)
        catchup[idx] = True
        time[idx] = np.repeat(ends, nc) + j * CATCHUP_STEP_NS
        avail[idx] = 0.0
        # first row after the catch-up: starts after them, ends on the grid
        after = last_cu + 1
        t_after = ends + nc * CATCHUP_STEP_NS
        time[after] = t_after
        avail[after] = np.clip((grid[after] + period_ns - t_after) / period_ns, 0.0, 1.0)
    count = np.rint(rate * avail + rng.normal(0.0, noise_sd, n) * avail).clip(0, None).astype(np.int64)
    if stall_rate_hz > 0 and len(stalls):
        count[after] = np.maximum(count[after], 1)
    count[catchup] = 0
    time_ns = np.rint(time).astype(np.int64)
    time_ns -= time_ns[0]
    time_ns = np.maximum.accumulate(time_ns)
    return SyntheticFtq(time_ns, count, catchup, band, levels, float(freq_hz), stalls,
                        header=_header(freq_hz, count))


def _header(freq_hz: float, count: np.ndarray, thread: int = 0, node: str = "synthetic") -> dict:
    total = int(count.sum())
    maxw = int(count.max()) * len(count)
    return {"Frequency": freq_hz, "Total count": total, "Max possible work": maxw,
            "Fraction": total / maxw if maxw else 0.0, "thread": thread, "node": node}


def header_text(freq_hz: float, total: int, max_work: int, *, thread: int = 0, node: str = "synthetic",
                ticks_per_ns: float = 2.59613) -> str:
    """The ``#`` header FTQ writes (frequency, ticks per ns, totals, uname, cpuinfo)."""
    frac = total / max_work if max_work else 0.0
    lines = [
        f"Frequency {freq_hz:f}", f"Ticks per ns: {ticks_per_ns:g}", "octave: pkg load signal",
        "x = load(<file name>)", f"pwelch(x(:,2),[],[],[],{freq_hz:f})", f"thread {thread}, core -1",
        "start delay 0 msec", f"Total count is {total}", f"Max possible work is {max_work}",
        f"Fraction is {frac:f}", "Linux", node, "6.1.0-synthetic", "#1 SMP PREEMPT_DYNAMIC", "x86_64", "(none)",
        f"processor\t: {thread}", "vendor_id\t: GenuineIntel", "model name\t: Synthetic CPU @ 2.60GHz",
        "cpu MHz\t\t: 2600.000", "",
    ]
    return "".join(f"# {ln}\n" if ln else "# \n" for ln in lines)


def format_rows(time_ns: np.ndarray, count: np.ndarray) -> bytes:
    """``"<time> <count>\\n"`` for each row, as bytes (non-negative int64 inputs; vectorised)."""
    n = len(time_ns)
    if n == 0:
        return b""
    cols = []
    for arr in (np.asarray(time_ns, np.int64), np.asarray(count, np.int64)):
        if (arr < 0).any():
            raise ValueError("format_rows needs non-negative integers")
        width = max(len(str(int(arr.max()))), 1)
        digits = np.zeros((n, width), dtype=np.uint8)
        v = arr.copy()
        for k in range(width - 1, -1, -1):
            digits[:, k] = (v % 10).astype(np.uint8) + 48
            v //= 10
        # blank out leading zeros (keep the last digit) with 0 bytes, removed below
        nd = np.ones(n, dtype=np.int64)
        big = arr.copy()
        for _ in range(width - 1):
            big //= 10
            nd += big > 0
        lead = np.arange(width)[None, :] < (width - nd)[:, None]
        digits[lead] = 0
        cols.append(digits)
    sp = np.full((n, 1), 32, dtype=np.uint8)
    nl = np.full((n, 1), 10, dtype=np.uint8)
    mat = np.hstack([cols[0], sp, cols[1], nl]).ravel()
    return mat[mat != 0].tobytes()


def write_ftq(path: str | os.PathLike, n: int | None = None, *, trace: SyntheticFtq | None = None,
              compress: bool | None = None, chunk: int = 1_000_000, thread: int = 0, node: str = "synthetic",
              **params) -> SyntheticFtq:
    """Generate (or take ``trace``) and write an FTQ file; gzip when ``compress`` or the name ends in .gz.

    ``params`` go to :func:`generate_ftq`. Returns the ground truth.
    """
    if trace is None:
        if n is None:
            raise ValueError("give n or trace")
        trace = generate_ftq(n, **params)
    path = Path(path)
    if compress is None:
        compress = path.suffix == ".gz"
    total = int(trace.count.sum())
    maxw = int(trace.count.max()) * len(trace.count)
    head = header_text(trace.freq_hz, total, maxw, thread=thread, node=node).encode()
    opener = (lambda p: gzip.open(p, "wb", compresslevel=1)) if compress else (lambda p: open(p, "wb"))
    with opener(path) as fh:
        fh.write(head)
        for a in range(0, len(trace.count), chunk):
            fh.write(format_rows(trace.time_ns[a:a + chunk], trace.count[a:a + chunk]))
    return trace


def write_fleet(directory: str | os.PathLike, n_traces: int, n: int, *, misbehaving: dict[int, dict] | None = None,
                seed: int = 0, compress: bool = False, **params) -> list[Path]:
    """Write ``n_traces`` FTQ files ``node<i>_0.dat`` of ``n`` rows into ``directory``.

    Every node gets ``params`` (see :func:`generate_ftq`) with its own seed; ``misbehaving`` maps a node
    index to parameter overrides (e.g. ``{3: {"stall_rate_hz": 20}}``). Returns the paths.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    misbehaving = misbehaving or {}
    paths = []
    width = len(str(max(n_traces - 1, 0)))
    for i in range(n_traces):
        p = dict(params)
        p.update(misbehaving.get(i, {}))
        p.setdefault("seed", seed * 1_000_003 + i)
        path = directory / f"node{i:0{width}d}_0.dat{'.gz' if compress else ''}"
        write_ftq(path, n, node=f"node{i:0{width}d}", **p)
        paths.append(path)
    return paths
