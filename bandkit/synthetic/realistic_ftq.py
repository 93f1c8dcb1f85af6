"""Clean FTQ traces with the structure real ones have, and nothing periodic (seeded; for null suites).

A spectral-line detector is only as good as its false-alarm rate on traces that have everything a
real recording has *except* a periodic source: discrete work-rate bands with Markov switching, stalls
with FTQ's catch-up rows, count noise and a slow 1/f-like wander of the work rate. This module draws
such traces with randomised parameters (:func:`draw_params`) and can add one sinusoidal loss of work
on top of the very same trace (:class:`CleanFtq.trace` with ``line=``), so a detector's hit rate is
measured against a twin trace without the line.

(Absolute imports: ``benchmarks/spectral_calibration.py`` loads this file by path to run the same
suite against an older checkout of bandkit.)
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from bandkit.trace import Trace, TraceMeta
from bandkit.synthetic.ftq import generate_ftq

#: The two sampling rates of the two-rate test (Hz).
RATES = (10000.0, 7777.017358)


@dataclass(frozen=True)
class CleanParams:
    """Parameters of one clean trace. Units: Hz, seconds, relative fractions.

    ``levels``: work counts per full quantum of each band; ``mean_run``: mean band dwell (quanta);
    ``noise``: relative count noise (sd); ``stall_rate_hz`` / ``stall_median_s``: Poisson stalls of
    log-normal length; ``wander_rms``: relative RMS of a slow wander of the work rate whose spectrum
    falls as 1/f^``wander_alpha``.
    """

    fs: float
    duration_s: float
    levels: tuple[float, ...]
    mean_run: float
    noise: float
    stall_rate_hz: float
    stall_median_s: float
    wander_rms: float
    wander_alpha: float
    seed: int

    def to_dict(self) -> dict:
        return asdict(self)


def draw_params(seed: int, *, fs: float | None = None, duration_s: float | None = None,
                durations=(5.0, 10.0, 20.0, 60.0, 120.0, 300.0)) -> CleanParams:
    """Random realistic parameters: 1-3 bands 1-10 % apart, dwell 10-5,000 quanta, 0.1-2 % count
    noise, 0.1-100 stalls/s of median 0.1-5 ms, wander RMS 0.1-3 % with slope 0.8-2."""
    rng = np.random.default_rng([seed, 2024])
    fs = float(fs if fs is not None else RATES[int(rng.integers(2))])
    dur = float(duration_s if duration_s is not None else durations[int(rng.integers(len(durations)))])
    full = 1.3e7 / fs
    k = int(rng.integers(1, 4))
    levels = (full,) + tuple(full * (1 - np.sort(rng.uniform(0.01, 0.1, k - 1))))
    lu = lambda a, b: float(np.exp(rng.uniform(np.log(a), np.log(b))))  # noqa: E731
    return CleanParams(fs=fs, duration_s=dur, levels=tuple(float(v) for v in levels), mean_run=lu(10, 5000),
                       noise=lu(1e-3, 2e-2), stall_rate_hz=lu(0.1, 100.0), stall_median_s=lu(1e-4, 5e-3),
                       wander_rms=lu(1e-3, 3e-2), wander_alpha=float(rng.uniform(0.8, 2.0)), seed=int(seed))


def _wander(n: int, fs: float, rms: float, alpha: float, rng) -> np.ndarray:
    """Gaussian noise of RMS ``rms`` with a 1/f^alpha spectrum (alpha in power), from 1/duration up."""
    if rms <= 0 or n < 4:
        return np.zeros(n)
    f = np.fft.rfftfreq(n, 1.0 / fs)
    amp = np.zeros_like(f)
    amp[1:] = f[1:] ** (-alpha / 2.0)
    spec = amp * (rng.standard_normal(len(f)) + 1j * rng.standard_normal(len(f)))
    w = np.fft.irfft(spec, n)
    return w * (rms / max(float(np.std(w)), 1e-300))


class CleanFtq:
    """One clean trace (bands, stalls, catch-up rows, noise, wander), reproducible from its params.

    ``trace()`` returns the :class:`~bandkit.trace.Trace`; ``trace(line=(freq_hz, amplitude, phase))``
    the same trace (same noise, same stalls) whose work also varies as ``1 - amplitude·(1 + sin)/…``:
    a sinusoidal loss of work of amplitude ``amplitude`` (fraction of a full quantum's work).
    """

    def __init__(self, params: CleanParams):
        p = self.params = params
        n = int(round(p.duration_s * p.fs))
        g = generate_ftq(n, freq_hz=p.fs, levels=p.levels, mean_run=p.mean_run, noise_sd=0.0,
                         stall_rate_hz=p.stall_rate_hz, stall_median_s=p.stall_median_s, seed=p.seed)
        rng = np.random.default_rng([p.seed, 7])
        self.time_s = g.time_ns * 1e-9
        self.catchup = g.catchup
        self.work = g.count.astype(np.float64) * (1.0 + _wander(n, p.fs, p.wander_rms, p.wander_alpha, rng))
        self.noise = rng.standard_normal(n) * p.noise
        self.full = float(max(p.levels))

    def trace(self, line: tuple[float, float, float] | None = None, path: str | None = None,
              extra: np.ndarray | None = None) -> Trace:
        """``extra``: an additional loss of work per quantum (fraction of a full quantum's work, e.g.
        :func:`bump`), applied like ``line``."""
        p = self.params
        work = self.work
        if extra is not None:
            work = work - np.asarray(extra, dtype=np.float64) * self.full
        if line is not None:
            f, amp, phase = line
            t = np.arange(len(work)) / p.fs
            # amplitude in work fraction of a full quantum: the level-independent loss amp·sin
            work = work - amp * self.full * (1.0 + np.sin(2 * np.pi * f * t + phase))
        count = np.rint(np.clip(work * (1.0 + self.noise), 0.0, None))
        count[self.catchup] = 0
        df = pd.DataFrame({"time": self.time_s, "value": count.astype(np.int64), "catchup": self.catchup})
        meta = TraceMeta(path=path or f"clean-{p.fs:g}Hz-{p.duration_s:g}s-seed{p.seed}", format="synthetic",
                         kind="ftq", sampling_hz=float(p.fs), time_unit="s", value_unit="count",
                         header={"Frequency": float(p.fs)}, extra={"params": p.to_dict()})
        return Trace(df, meta)


#: Kinds of :func:`bump`: broad or narrow spectral features that are noise, not sinusoids.
BUMP_KINDS = ("narrowband", "ar2", "burst")


def bump(kind: str, n: int, fs: float, f_c: float, width_hz: float, rng, on_share: float = 0.3) -> np.ndarray:
    """Zero-mean, unit-RMS Gaussian noise whose spectrum is a bump at ``f_c`` Hz (no sinusoid).

    ``narrowband``: white noise filtered by a Gaussian of standard deviation ``width_hz`` around
    ``f_c`` (stationary); ``ar2``: an AR(2) resonance (poles at radius exp(-π·width/fs), angle
    2π·f_c/fs: a Lorentzian of half-width ``width_hz``); ``burst``: the narrow-band noise switched on
    for one stretch of ``on_share`` of the trace at a random place (smooth edges): band-limited
    wander that comes and goes, like the 75-90 Hz bump of the quiet 7777 Hz recording."""
    if kind == "ar2":
        r = float(np.exp(-np.pi * width_hz / fs))
        a1, a2 = 2 * r * np.cos(2 * np.pi * f_c / fs), -r * r
        e = rng.standard_normal(n + 2000)
        y = _ar2(e, a1, a2)[2000:]
    else:
        f = np.fft.rfftfreq(n, 1.0 / fs)
        g = np.exp(-0.5 * ((f - f_c) / width_hz) ** 2)
        y = np.fft.irfft(g * (rng.standard_normal(len(f)) + 1j * rng.standard_normal(len(f))), n)
        if kind == "burst":
            m = max(int(on_share * n), 2)
            a = int(rng.integers(0, n - m + 1))
            ramp = max(m // 10, 1)
            env = np.zeros(n)
            env[a:a + m] = 1.0
            c = np.concatenate([[0.0], np.cumsum(env)])  # moving average of ``ramp`` points: smooth edges
            lo = np.clip(np.arange(n) - ramp // 2, 0, n)
            env = (c[np.minimum(lo + ramp, n)] - c[lo]) / ramp
            y = y * env
        elif kind != "narrowband":
            raise ValueError(f"unknown bump kind {kind!r}")
    y = y - y.mean()
    return y / max(float(np.std(y)), 1e-300)


def _ar2(e: np.ndarray, a1: float, a2: float) -> np.ndarray:
    from scipy.signal import lfilter
    return lfilter([1.0], [1.0, -a1, -a2], e)


def clean_ftq(seed: int, **kw) -> Trace:
    """A clean realistic FTQ trace drawn from ``seed`` (keywords: see :func:`draw_params`)."""
    return CleanFtq(draw_params(seed, **kw)).trace()
