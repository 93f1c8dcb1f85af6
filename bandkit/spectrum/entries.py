"""Results of the two-rate test: observations, interference entries, the comparison."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..display import DisplayMixin
from .lines import TraceSpectrum
from .peaks import Peak

#: Allowed relative mismatch between two recordings' clocks / a source's frequency (1e-5).
CLOCK_TOL = 1e-5
#: Largest |log(observed / predicted)| amplitude ratio between rates for a common true frequency:
#: the box-filter model predicts the ratio |sinc(f/fs_b)| / |sinc(f/fs_a)|; beyond ×10 it is a chance match.
MAX_MISFIT = float(np.log(10.0))


def _g(x):
    return None if x is None else float(f"{x:.3g}")


@dataclass(frozen=True)
class Observation:
    """One line of one trace that supports an interference entry (alias in Hz, SNR in dB, amplitude
    as a fraction of a full quantum's work, family-wise ``p_value`` in its trace)."""

    path: str
    sampling_hz: float
    alias_hz: float
    snr_db: float
    amplitude: float
    p_value: float | None = None

    def to_dict(self) -> dict:
        return {"path": self.path, "sampling_hz": float(self.sampling_hz),
                "alias_hz": round(float(self.alias_hz), 4), "snr": round(float(self.snr_db), 2),
                "amplitude": float(self.amplitude), "p_value": _g(self.p_value)}


def observation(ts: TraceSpectrum, p: Peak) -> Observation:
    s = ts.spectrum
    return Observation(s.path or s.label, s.fs, p.freq_hz, p.snr_db, p.amplitude, p.p_value)


@dataclass(frozen=True)
class Interference:
    """One finding of the rate comparison.

    ``verdict``: "external" | "sampling-locked" | "ambiguous". ``freq_hz``: the true frequency of an
    external fundamental (None otherwise); ``fraction``: alias/fs of a sampling-locked line;
    ``observed``: its lines per trace; ``candidates_hz``: true frequencies ≤ f_max consistent with
    the observation (for an external entry: the confirmed one); ``harmonics``: confirmed members
    ``{"n", "freq_hz", "observed"}``; ``reason`` for ambiguous entries; ``drift``: for an external
    entry, the phase drift of its fundamental in each trace (:func:`bandkit.spectrum.drift.drift_on_grid`:
    ``{"path", "period_quanta", "drift_quanta_per_s", "measured_quanta_per_s", "confirmed", ...}``);
    ``inferred``: the fundamental itself was not matched, it is the common divisor of ≥ 3 confirmed
    external lines (``observed`` is then the strongest member's), ``lowest_harmonic`` the smallest
    harmonic order among them ("inferred from harmonics n ≥ k"), ``fundamental_evidence`` the
    spectrum at the fundamental's alias in every trace ({path, sampling_hz, alias_hz, snr_db,
    p_value}) and ``fundamental_seen`` whether that evidence is significant at every rate (always
    true for a matched fundamental). Effect size: ``amplitude`` (largest amplitude of the entry's
    lines in any trace, fraction of a full quantum's work). Significance: ``p_value``, the largest
    of the family-wise p-values of the lines that make the entry's strongest matched pair (every
    line of the claim must be significant in its own trace).
    """

    verdict: str
    freq_hz: float | None
    freq_tol_hz: float | None
    observed: tuple[Observation, ...]
    candidates_hz: tuple[float, ...]
    harmonics: tuple[dict, ...] = ()
    fraction: float | None = None
    reason: str | None = None
    snr_db: float = 0.0
    drift: tuple[dict, ...] = ()
    inferred: bool = False
    fundamental_seen: bool = True
    lowest_harmonic: int = 1
    fundamental_evidence: tuple[dict, ...] = ()

    def _all_obs(self) -> list[Observation]:
        return list(self.observed) + [o for h in self.harmonics for o in h["observed"]]

    @property
    def amplitude(self) -> float | None:
        a = [o.amplitude for o in self._all_obs()]
        return max(a) if a else None

    @property
    def p_value(self) -> float | None:
        groups = [self.observed] if not self.inferred else [h["observed"] for h in self.harmonics]
        best = None
        for g in groups:
            ps = [o.p_value for o in g]
            if not ps or any(p is None for p in ps):
                continue
            worst = max(ps)
            best = worst if best is None else min(best, worst)
        return best

    def to_dict(self) -> dict:
        return {
            "freq_hz": None if self.freq_hz is None else round(float(self.freq_hz), 4),
            "freq_tol_hz": None if self.freq_tol_hz is None else round(float(self.freq_tol_hz), 4),
            "verdict": self.verdict,
            "reason": self.reason,
            "fraction": None if self.fraction is None else round(float(self.fraction), 7),
            "snr": round(float(self.snr_db), 2),
            "amplitude": self.amplitude,
            "p_value": _g(self.p_value),
            "observed": [o.to_dict() for o in self.observed],
            "candidates_hz": [round(float(c), 4) for c in self.candidates_hz],
            "harmonics": [dict(h, observed=[o.to_dict() for o in h["observed"]]) for h in self.harmonics],
            "drift": [dict(d) for d in self.drift],
            "fundamental_inferred": bool(self.inferred),
            "fundamental_seen": bool(self.fundamental_seen),
            "lowest_harmonic": int(self.lowest_harmonic),
            "fundamental_evidence": [dict(x) for x in self.fundamental_evidence],
        }


@dataclass(frozen=True)
class RateComparison(DisplayMixin):
    """Result of :func:`compare_rates`: per-trace spectra and the interference entries."""

    paths: tuple[str, ...]
    rates_hz: tuple[float, ...]
    f_max: float
    spectra: tuple[TraceSpectrum, ...]
    interference: tuple[Interference, ...]

    @property
    def external(self) -> list[Interference]:
        return [i for i in self.interference if i.verdict == "external"]

    def to_dict(self) -> dict:
        return {"paths": list(self.paths), "rates_hz": [float(r) for r in self.rates_hz],
                "f_max_hz": float(self.f_max),
                "interference": [i.to_dict() for i in self.interference]}
