"""Seeded calibration generators: run sequences with the noise real measurements have, with and
without a known effect (the null and power suites of ``benchmarks/calibration.py``).

A **run sequence** is ``n_runs`` runs of ``values_per_run`` values each (a pyperf benchmark: one
worker process per run; a CI history: one value per build). Values are

    level x signal[r] x exp(run_sd x e[r] + wander[r] + value_sd x z[r, j]) x spike[r]

then rounded to the clock ``tick`` (value unit; 0 = not quantised), where

- ``e``: unit-variance noise per run, Gaussian or Student-t with 3 degrees of freedom scaled to unit
  variance (heavy tails), made AR(1) with coefficient ``ar1`` (marginal variance kept at 1);
- ``wander``: slow 1/f ("pink") noise of standard deviation ``wander_sd`` (relative);
- ``z``: independent Gaussian noise of the values within a run (``value_sd``, relative);
- ``spike``: ``1 + s`` (s uniform in ``spike_size``) on a ``spike_share`` of the runs, chosen at
  random and isolated (a quarter of them fast: ``1 / (1 + s)``);
- ``signal``: 1 everywhere for the null suite; a step, an episode that reverts, two levels that
  alternate, a drift, or slow first runs for the power suite (:data:`EFFECTS`).

FTQ-like traces (:func:`ftq_counts`): work counts per quantum at ``fs`` Hz with the same noise
ingredients, optional random (non-periodic) band switching and stalls, and optionally a periodic
line at a physical frequency with a given signal-to-noise ratio (dB), defined as the expected ratio
of the line's peak to the noise level in a Hann-window Welch periodogram of ``nperseg`` quanta (the
line on a bin; off-bin it loses up to 1.4 dB): ``SNR = A^2 nperseg / (6 sigma^2)`` for a sinusoid of
amplitude ``A`` in white noise of sd ``sigma``.

Only numpy is imported (the calibration benchmark loads this file by path to run the same suites
through older versions of bandkit).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

TAILS = ("gaussian", "t3")
#: Effects of the power suite (``signal`` shapes); ``"none"`` is the null suite.
EFFECTS = ("none", "step", "episode", "two_level", "trend", "warmup", "spikes")


@dataclass(frozen=True)
class NoiseModel:
    """The noise of a run sequence (all sds relative to the level; see the module docstring)."""

    run_sd: float = 0.01
    value_sd: float = 0.0
    tails: str = "gaussian"
    ar1: float = 0.0
    wander_sd: float = 0.0
    spike_share: float = 0.0
    spike_size: tuple[float, float] = (0.3, 2.0)
    tick: float = 0.0

    def __post_init__(self) -> None:
        if self.tails not in TAILS:
            raise ValueError(f"tails must be one of {TAILS}, got {self.tails!r}")
        if not 0.0 <= self.ar1 < 1.0:
            raise ValueError("ar1 must be in [0, 1)")
        if not 0.0 <= self.spike_share < 1.0:
            raise ValueError("spike_share must be in [0, 1)")

    def describe(self) -> str:
        parts = [f"sd {100 * self.run_sd:.2g} %", self.tails]
        if self.value_sd:
            parts.append(f"within {100 * self.value_sd:.2g} %")
        if self.ar1:
            parts.append(f"AR {self.ar1:.2f}")
        if self.wander_sd:
            parts.append(f"1/f {100 * self.wander_sd:.2g} %")
        if self.spike_share:
            parts.append(f"spikes {100 * self.spike_share:.2g} %")
        if self.tick:
            parts.append(f"tick {self.tick:g}")
        return ", ".join(parts)


@dataclass(frozen=True)
class RunSequence:
    """A generated run sequence and its truth.

    ``values``: (n_runs, values_per_run) array; ``signal``: the noiseless relative level per run;
    ``effect``: one of :data:`EFFECTS`; ``truth``: what was put in (0-based run indices: ``at`` =
    first run after a step, ``start``/``end`` = first/last run of an episode, ``ratio``, ...);
    ``spike_runs``: 0-based indices of the spiked runs; ``metadata``: per-run metadata columns
    (``{name: list}``), ``marker`` the column that marks the effect (None: none does).
    """

    values: np.ndarray
    signal: np.ndarray
    effect: str
    truth: dict[str, Any]
    noise: NoiseModel
    spike_runs: np.ndarray
    metadata: dict[str, list] = field(default_factory=dict)
    marker: str | None = None
    level: float = 100.0
    seed: int = 0

    @property
    def n_runs(self) -> int:
        return int(self.values.shape[0])

    @property
    def values_per_run(self) -> int:
        return int(self.values.shape[1])

    @property
    def run_means(self) -> np.ndarray:
        return self.values.mean(axis=1)


# --------------------------------------------------------------------------- noise components
def unit_noise(n: int, tails: str, rng: np.random.Generator) -> np.ndarray:
    """``n`` values of unit variance: Gaussian, or Student-t(3) / sqrt(3)."""
    if tails == "gaussian":
        return rng.standard_normal(n)
    if tails == "t3":
        return rng.standard_t(3.0, size=n) / math.sqrt(3.0)
    raise ValueError(f"tails must be one of {TAILS}")


def ar1_filter(e: np.ndarray, phi: float) -> np.ndarray:
    """AR(1) with coefficient ``phi`` driven by ``e``, marginal variance of ``e`` kept."""
    if phi == 0.0 or e.size == 0:
        return e
    out = np.empty_like(e)
    c = math.sqrt(1.0 - phi * phi)
    acc = e[0]
    out[0] = acc
    for i in range(1, e.size):  # n <= 10^5 here: a plain loop is fast enough
        acc = phi * acc + c * e[i]
        out[i] = acc
    return out


def pink_noise(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` values of 1/f noise (power spectrum ~ 1/f), centred, unit standard deviation."""
    if n < 4:
        return np.zeros(n)
    spec = rng.standard_normal(n // 2 + 1) + 1j * rng.standard_normal(n // 2 + 1)
    f = np.arange(n // 2 + 1, dtype=np.float64)
    f[0] = np.inf
    x = np.fft.irfft(spec / np.sqrt(f), n)
    x -= x.mean()
    sd = x.std()
    return x / sd if sd > 0 else x


def isolated_indices(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` distinct indices in 0..n-1, no two adjacent (fewer when ``n`` is too small)."""
    k = min(k, (n + 1) // 2)
    if k <= 0:
        return np.zeros(0, np.int64)
    # choose k of n - k + 1 slots, then spread: i-th chosen slot + i is never adjacent to the next
    slots = np.sort(rng.choice(n - k + 1, size=k, replace=False))
    return (slots + np.arange(k)).astype(np.int64)


def noise_factors(n_runs: int, values_per_run: int, noise: NoiseModel, rng: np.random.Generator):
    """(n_runs, values_per_run) multiplicative noise factors and the spiked run indices."""
    e = ar1_filter(unit_noise(n_runs, noise.tails, rng), noise.ar1) * noise.run_sd
    if noise.wander_sd:
        e = e + noise.wander_sd * pink_noise(n_runs, rng)
    log_f = np.repeat(e[:, None], values_per_run, axis=1)
    if noise.value_sd:
        log_f = log_f + noise.value_sd * rng.standard_normal((n_runs, values_per_run))
    f = np.exp(log_f)
    spikes = np.zeros(0, np.int64)
    if noise.spike_share > 0:
        k = max(1, int(rng.binomial(n_runs, noise.spike_share)))
        spikes = isolated_indices(n_runs, k, rng)
        s = rng.uniform(*noise.spike_size, size=spikes.size)
        fast = rng.random(spikes.size) < 0.25
        f[spikes] *= np.where(fast, 1.0 / (1.0 + s), 1.0 + s)[:, None]
    return f, spikes


def quantise(values: np.ndarray, tick: float) -> np.ndarray:
    """Values rounded to a multiple of ``tick`` (no change for tick 0); never below one tick."""
    if not tick:
        return values
    return np.maximum(np.round(values / tick), 1.0) * tick


# --------------------------------------------------------------------------- signals (truth)
def switching(n: int, share: float, dwell: float, rng: np.random.Generator, *, start_on: bool = False) -> np.ndarray:
    """Bool state per position: alternating blocks of geometric length, mean ``dwell`` when on and
    ``dwell (1 - share) / share`` when off (so that about ``share`` of the positions are on)."""
    state = np.zeros(n, dtype=bool)
    i, on = 0, start_on
    while i < n:
        mean = dwell if on else dwell * (1 - share) / share
        length = int(rng.geometric(1.0 / max(mean, 1.0)))
        state[i:i + length] = on
        i += length
        on = not on
    return state



def _signal(effect: str, n: int, rng: np.random.Generator, p: dict[str, Any]) -> tuple[np.ndarray, dict]:
    """Relative level per run for ``effect`` (parameters in ``p``, drawn when absent)."""
    sig = np.ones(n)
    if effect in ("none", "spikes"):
        return sig, {}
    ratio = float(p.get("ratio", 1.0 + rng.uniform(0.02, 0.5) * rng.choice([-1, 1])))
    if effect == "step":
        lo = max(1, int(round(0.1 * n)))
        at = int(p.get("at", rng.integers(lo, n - lo + 1)))
        sig[at:] = ratio
        return sig, {"at": at, "ratio": ratio}
    if effect == "episode":
        length = int(p.get("length", rng.integers(max(3, n // 20), max(4, n // 4) + 1)))
        start = int(p.get("start", rng.integers(max(1, n // 10), n - length - max(1, n // 10) + 1)))
        end = start + length - 1
        sig[start:end + 1] = ratio
        return sig, {"start": start, "end": end, "ratio": ratio}
    if effect == "two_level":
        share = float(p.get("share", rng.uniform(0.1, 0.5)))
        # alternating blocks of geometric length; mean block of the minority level
        dwell = float(p.get("dwell", rng.uniform(1.0, max(1.0, min(20.0, share * n / 4)))))
        state = switching(n, share, dwell, rng, start_on=bool(rng.random() < share))
        sig[state] = ratio
        return sig, {"ratio": ratio, "share": float(state.mean()), "target_share": share, "dwell": dwell,
                     "episodes": int(np.count_nonzero(np.diff(np.r_[0, state.astype(int)]) == 1))}
    if effect == "trend":
        sig = np.exp(math.log(ratio) * np.arange(n) / max(n - 1, 1))
        return sig, {"ratio": ratio}
    if effect == "warmup":
        k = int(p.get("runs", rng.integers(1, max(1, min(10, int(0.1 * n))) + 1)))
        r = float(p.get("ratio", rng.uniform(1.1, 2.0)))
        sig[:k] = r
        return sig, {"runs": k, "ratio": r}
    raise ValueError(f"effect must be one of {EFFECTS}, got {effect!r}")


def _metadata(n: int, rng: np.random.Generator, signal: np.ndarray, marked: bool) -> tuple[dict, str | None]:
    """Per-run metadata: a temperature, a load average, a host out of three, a frequency string-free
    numeric frequency; with ``marked`` the temperature follows the effect (hot where the signal is
    off its first value by more than 1 %), else every column is independent of the values."""
    temp = 55.0 + 1.0 * rng.standard_normal(n)
    md = {
        "cpu_temp_c": temp,
        "load_avg_1min": np.round(np.abs(0.5 + 0.2 * ar1_filter(rng.standard_normal(n), 0.8)), 2),
        "hostname": [f"node{k}" for k in rng.integers(0, 3, size=n)],
        "cpu_freq_mhz": np.round(3300 + 20 * rng.standard_normal(n)),
        "governor": ["performance"] * n,
    }
    marker = None
    if marked:
        off = np.abs(signal / signal[0] - 1.0) > 0.01 if signal[0] else np.zeros(n, dtype=bool)
        if off.any() and not off.all():
            md["cpu_temp_c"] = np.where(off, temp + 12.0, temp)
            marker = "cpu_temp_c"
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in md.items()}, marker


def run_sequence(effect: str = "none", *, n_runs: int = 100, values_per_run: int = 1,
                 noise: NoiseModel | None = None, level: float = 100.0, marked: bool = False,
                 seed: int = 0, **params: Any) -> RunSequence:
    """One seeded run sequence with ``effect`` (see :data:`EFFECTS`; parameters such as ``at``,
    ``ratio``, ``start``, ``length``, ``share``, ``dwell``, ``runs`` are drawn when not given).
    ``marked``: a metadata column (``cpu_temp_c``) follows the effect (for the suspect ranking)."""
    if n_runs < 1 or values_per_run < 1:
        raise ValueError("n_runs and values_per_run must be >= 1")
    noise = noise or NoiseModel()
    rng = np.random.default_rng(seed)
    sig, truth = _signal(effect, n_runs, rng, params)
    f, spikes = noise_factors(n_runs, values_per_run, noise, rng)
    values = quantise(level * sig[:, None] * f, noise.tick)
    md, marker = _metadata(n_runs, rng, sig, marked)
    return RunSequence(values, sig, effect, truth, noise, spikes, md, marker, level, seed)


# --------------------------------------------------------------------------- random suites
def nice_step(x: float) -> float:
    """The 1, 2 or 5 x 10^k nearest to ``x`` (in log) - a clock resolution as timers report it."""
    e = math.floor(math.log10(x))
    cands = [m * 10.0 ** k for k in (e - 1, e, e + 1) for m in (1, 2, 5)]
    return float(min(cands, key=lambda c: abs(math.log(c / x))))


def random_noise(rng: np.random.Generator, level: float = 100.0, *, spikes: bool | None = None) -> NoiseModel:
    """A noise model drawn the way the null suite draws them: relative sd 0.3-5 % (log-uniform),
    t3 tails half the time, AR(1) up to 0.5, 1/f wander (up to half the sd) a third of the time,
    isolated spikes on 0.1-2 % of the runs half the time (``spikes`` forces), quantisation a
    quarter of the time to a tick of 0.5-3 sds rounded to 1, 2 or 5 x 10^k (whole-millisecond
    timings of a short test)."""
    sd = float(math.exp(rng.uniform(math.log(0.003), math.log(0.05))))
    tails = "t3" if rng.random() < 0.5 else "gaussian"
    ar1 = float(rng.uniform(0, 0.5)) if rng.random() < 0.6 else 0.0
    wander = float(sd * rng.uniform(0.1, 0.5)) if rng.random() < 1 / 3 else 0.0
    has_spikes = (rng.random() < 0.5) if spikes is None else spikes
    share = float(math.exp(rng.uniform(math.log(0.001), math.log(0.02)))) if has_spikes else 0.0
    tick = nice_step(level * sd * rng.uniform(0.5, 3.0)) if rng.random() < 0.25 else 0.0
    value_sd = float(sd * rng.uniform(0.2, 1.5)) if rng.random() < 0.5 else 0.0
    return NoiseModel(run_sd=sd, value_sd=value_sd, tails=tails, ar1=ar1, wander_sd=wander, spike_share=share,
                      tick=tick)


def random_shape(rng: np.random.Generator, *, min_runs: int = 20, max_runs: int = 10_000,
                 max_values: int = 200_000) -> tuple[int, int]:
    """(n_runs log-uniform in [min_runs, max_runs], values per run: 1 half the time, else 2-50
    log-uniform, capped so that the sequence holds at most ``max_values`` values)."""
    n = int(round(math.exp(rng.uniform(math.log(min_runs), math.log(max_runs)))))
    k = 1 if rng.random() < 0.5 else int(round(math.exp(rng.uniform(math.log(2), math.log(50)))))
    k = max(1, min(k, max_values // max(n, 1)))
    return n, k


def null_suite(count: int, seed: int = 0, **shape: Any) -> list[RunSequence]:
    """``count`` stationary run sequences (random noise models and shapes, seeds seed, seed+1, ...)."""
    out = []
    for i in range(count):
        rng = np.random.default_rng([seed, i, 0])
        n, k = random_shape(rng, **shape)
        out.append(run_sequence("none", n_runs=n, values_per_run=k, noise=random_noise(rng), seed=seed * 100_003 + i))
    return out


def power_case(effect: str, rng: np.random.Generator, *, seed: int, marked: bool = True,
               **shape: Any) -> RunSequence:
    """One power-suite sequence of ``effect`` with a noise model drawn like the null suite's (without
    spikes unless the effect is ``"spikes"``); effect sizes are drawn from the suite's ranges:
    steps and episodes 2-50 % (either direction), two levels 5-50 % apart with the minority level
    on 10-50 % of the runs, trends 5-50 % over the sequence, warm-up: the first 1 to
    min(10, 10 %) runs 10-100 % slower."""
    n, k = random_shape(rng, **shape)
    noise = random_noise(rng, spikes=(effect == "spikes"))
    params: dict[str, Any] = {}
    sign = rng.choice([-1.0, 1.0])
    if effect in ("step", "episode"):
        params["ratio"] = float(1.0 + sign * math.exp(rng.uniform(math.log(0.02), math.log(0.5))))
    elif effect == "two_level":
        params["ratio"] = float(1.0 + sign * math.exp(rng.uniform(math.log(0.05), math.log(0.5))))
    elif effect == "trend":
        params["ratio"] = float(1.0 + sign * rng.uniform(0.05, 0.5))
    elif effect == "spikes":
        noise = replace(noise, spike_share=float(max(noise.spike_share, 0.002)), spike_size=(0.3, 2.0))
    return run_sequence(effect, n_runs=n, values_per_run=k, noise=noise, marked=marked, seed=seed, **params)


# --------------------------------------------------------------------------- FTQ-like traces
@dataclass(frozen=True)
class FtqCounts:
    """Work counts per quantum (``count``, int64; catch-up rows have count 0 and ``catchup``) at
    ``fs`` Hz; ``time_s`` of each row; truth: ``line_hz`` / ``line_snr_db`` (None without a line),
    ``bands`` (levels used), ``stalls`` ((start_s, length_s) pairs)."""

    time_s: np.ndarray
    count: np.ndarray
    catchup: np.ndarray
    fs: float
    line_hz: float | None
    line_snr_db: float | None
    bands: tuple[float, ...]
    stalls: tuple[tuple[float, float], ...]
    seed: int


def welch_nperseg(n: int, min_segments: int = 8) -> int:
    """Segment length of a default Welch spectrum of ``n`` quanta (the longest power of two giving
    at least ``min_segments`` half-overlapping segments) - the resolution the SNR refers to."""
    target = 2 * n // (min_segments + 1)
    return 1 << max(4, int(math.floor(math.log2(max(target, 16)))))


def line_amplitude(snr_db: float, sigma: float, nperseg: int) -> float:
    """Sinusoid amplitude (count units) whose Welch peak stands ``snr_db`` above white noise of sd
    ``sigma`` at ``nperseg`` quanta per segment (Hann window, line on a bin)."""
    return sigma * math.sqrt(6.0 * 10 ** (snr_db / 10.0) / nperseg)


def ftq_counts(fs: float = 10_000.0, duration_s: float = 5.0, *, count: float = 1300.0, noise_sd: float = 0.004,
               tails: str = "gaussian", ar1: float = 0.0, wander_sd: float = 0.0, band_ratio: float | None = None,
               band_dwell_s: float = 0.05, band_share: float = 0.3, stall_rate_hz: float = 0.0,
               line_hz: float | None = None, line_snr_db: float | None = None, seed: int = 0,
               rng: np.random.Generator | None = None) -> FtqCounts:
    """FTQ-like work counts: ``count`` per full quantum, relative noise ``noise_sd`` (tails, AR(1),
    1/f wander as for run sequences), optional random band switching (a second level at
    ``band_ratio`` x count, geometric dwell of mean ``band_dwell_s`` on the minority level, share
    ``band_share``), Poisson stalls (``stall_rate_hz``, 1-20 ms, count 0 catch-up rows) and a
    physical-frequency line (``line_hz``, ``line_snr_db`` as defined in the module docstring,
    relative to the white part of the noise). Same seed, different ``fs``: same line phase."""
    rng = np.random.default_rng(seed) if rng is None else rng
    n = int(round(fs * duration_s))
    t = np.arange(n) / fs
    e = ar1_filter(unit_noise(n, tails, rng), ar1) * noise_sd
    if wander_sd:
        e = e + wander_sd * pink_noise(n, rng)
    x = count * (1.0 + e)
    bands: tuple[float, ...] = (count,)
    if band_ratio is not None:
        state = switching(n, band_share, max(band_dwell_s * fs, 1.0), rng)
        x = np.where(state, x * band_ratio, x)
        bands = (count, count * band_ratio)
    if line_hz is not None and line_snr_db is not None:
        amp = line_amplitude(line_snr_db, noise_sd * count, welch_nperseg(n))
        phase = float(np.random.default_rng([seed, 7]).uniform(0, 2 * math.pi))
        x = x + amp * np.cos(2 * math.pi * line_hz * t + phase)
    c = np.maximum(np.floor(x), 0).astype(np.int64)
    catchup = np.zeros(n, dtype=bool)
    stalls: list[tuple[float, float]] = []
    if stall_rate_hz > 0:
        k = int(rng.poisson(stall_rate_hz * duration_s))
        for a in np.sort(rng.uniform(0, duration_s * 0.98, size=k)):
            length = float(rng.uniform(0.001, 0.02))
            i0, i1 = int(a * fs), min(n, int((a + length) * fs))
            if i1 - i0 >= 2 and not catchup[i0:i1].any():
                # as FTQ writes them: the swallowed quanta become count-0 rows ~20 ns apart after the
                # stall, the stalled quantum keeps the work done before the stall
                c[i0] = int(c[i0] * (a * fs - i0))
                catchup[i0 + 1:i1] = True
                c[i0 + 1:i1] = 0
                t[i0 + 1:i1] = a + length + 2e-8 * np.arange(1, i1 - i0)
                stalls.append((float(a), length))
    return FtqCounts(t, c, catchup, float(fs), line_hz, line_snr_db, bands, tuple(stalls), seed)
