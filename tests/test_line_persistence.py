"""The persistence gate of lone spectral lines (issue 12, spectral lines; bandkit.spectrum.persistence):
a sinusoid has the same power in every Welch segment, a noise peak or a burst does not."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bandkit.loaders import load_one
from bandkit.render.text import render_text
from bandkit.spectrum import analyze_spectrum
from bandkit.spectrum.peaks import find_peaks, lobe_share
from bandkit.spectrum.persistence import local_dof
from bandkit.spectrum.psd import Spectrum, compute_spectrum, welch_dof
from bandkit.spectrum.spectrum import section as spectrum_section
from bandkit.spectrum.welch import welch
from bandkit.synthetic.realistic_ftq import CleanFtq, bump, draw_params

FS7 = 7777.017358
DATA = Path(__file__).resolve().parent.parent / "data" / "ftq"


def _lines_near(findings, f, tol):
    return [d for d in findings if d.get("kind") == "spectral_line"
            and any(abs(x - f) <= tol for x in [d["alias_hz"], d["strongest_hz"]])]


def _burst_case(seed: int, level_db: float = 12.0, f0: float = 400.0):
    """A clean 20 s trace at 7777 Hz and a burst of narrow-band noise (0.05 Hz wide, on for a quarter of
    the trace, no sinusoid) whose top Welch bin stands ``level_db`` over the local floor."""
    cf = CleanFtq(draw_params(seed, fs=FS7, duration_s=20.0))
    sp = compute_spectrum(cf.trace())
    b = bump("burst", len(cf.work), FS7, f0, 0.05, np.random.default_rng(seed), on_share=0.25)
    _, pb = welch(b, FS7, sp.nperseg)
    i = int(np.argmax(pb))
    s0 = float(np.mean(sp.psd[i - 10:i + 11]))
    return cf, sp, b * np.sqrt(10 ** (level_db / 10) * s0 / pb[i]), s0


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_burst_of_narrow_band_noise_is_a_transient_not_a_line(seed):
    """Main reported every one of these bursts as a "spectral line" (8 of 8 seeds); the gate moves the
    peak to ``transients``, with the stretch of the trace that holds its power."""
    cf, _, extra, _ = _burst_case(seed)
    sec = spectrum_section(cf.trace(extra=extra), None)
    assert not _lines_near(sec.findings, 400.0, 1.0)
    tr = [t for t in sec.result.transients if abs(t.freq_hz - 400.0) < 1.0]
    assert len(tr) == 1 and tr[0].steady_p < 0.01 and tr[0].active_share > 0.6
    d = sec.fields["spectrum"]["transients"]
    assert any(abs(t["freq_hz"] - 400.0) < 1.0 and t["spans_s"] for t in d)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_steady_sinusoid_on_the_burst_stays_a_line(seed):
    """The same burst with a steady sinusoid on top (10 dB over the bump-free floor, 1 Hz off the burst's
    centre): the line reaches the verdict."""
    cf, sp, extra, s0 = _burst_case(seed)
    amp = float(np.sqrt(2 * 10.0 * 1.5 * FS7 / sp.nperseg * s0))
    sec = spectrum_section(cf.trace(extra=extra, line=(401.0, amp, 0.4)), None)
    assert _lines_near(sec.findings, 401.0, 2 * sp.resolution_hz)


def test_quiet_7777_peak_at_79_84_hz_is_a_transient():
    """The quiet 7777 Hz recording: main said "spectral line at 79.840 Hz (amplitude 8.14 %, p = 0.007)".
    It sits on a 75-90 Hz bump that is 7-16 times stronger in the last half of the trace, and 93 % of its
    own excess is in the last two of eight Welch segments (12.6-19 s), as are its sidebands around the
    250 Hz comb (500 - 79.86, 1,250 + 79.85, 1,750 - 79.85 Hz): a transient, reported as one."""
    t = load_one(str(DATA / "ftq_f7777_quiet_0.dat.gz"))
    sec = spectrum_section(t, None)
    assert not _lines_near(sec.findings, 79.84, 0.5)
    tr = {round(x.freq_hz, 1): x for x in sec.result.transients}
    for f in (79.8, 420.1, 1329.8, 1670.1):
        assert f in tr and tr[f].steady_p < 0.01 and tr[f].active_segments == (6, 7)
    assert 12.0 < tr[79.8].start_s < 13.0 and tr[79.8].end_s > 18.5
    # the 250 Hz comb and the 100 Hz comb stay lines
    assert _lines_near(sec.findings, 250.0, 0.5)
    text = "\n".join(render_text_of(t))
    assert "not a steady line: 79.840 Hz" in text and "12.6–19.0 s" in text


def render_text_of(trace):
    import bandkit

    return render_text(bandkit.analyze(trace)).splitlines()


def test_interferer_pair_keeps_its_100_hz_line_and_the_external_verdict():
    """Held-in: the 1 ms-every-10 ms interferer at both rates. No line of its combs is gated (comb
    members are not), the 100 Hz line is listed and the pair's 100 Hz entry is external."""
    from bandkit.spectrum import compare_rates

    traces = [load_one(str(DATA / f"ftq_f{r}_intf100Hz_1ms_0.dat.gz")) for r in (10000, 7777)]
    spectra = [analyze_spectrum(t) for t in traces]
    for ts in spectra:
        assert any(abs(p.freq_hz - 100.0) < 0.1 for p in ts.peaks)
        assert not any(abs(x.freq_hz - 100.0) < 1.0 for x in ts.transients)
    rc = compare_rates(*traces, spectra=spectra)
    assert any(e.verdict == "external" and e.freq_hz is not None and abs(e.freq_hz - 100.0) < 0.01
               for e in rc.interference)


def test_local_dof_is_welch_dof_for_equal_floors_and_less_for_changing_ones():
    k = 8
    assert local_dof(np.ones(k), m=10 ** 9) == pytest.approx(welch_dof(k), rel=1e-6)
    ramp = np.array([0.19, 0.17, 0.2, 0.64, 1.28, 2.03, 2.06, 1.43])  # the 75-90 Hz bump of the quiet 7777 run
    assert local_dof(ramp, m=48) < 0.75 * welch_dof(k)


def _spectrum(psd, fs=1000.0, n=8192):
    return Spectrum(freqs=np.arange(len(psd)) * fs / n, psd=psd, fs=fs, nperseg=n, n_segments=400,
                    resolution_hz=fs / n, enbw_hz=1.5 * fs / n, dof=800.0, duration_s=100.0, full_count=1.0,
                    lost_slots=0, n_slots=400 * n, regrid="rows")


def test_amplitude_does_not_count_the_bump_under_a_line():
    """A sinusoid (Hann lobe, 0.3 bin off a bin centre) on a Gaussian bump 8 bins wide: main summed the
    excess over the floor on bins ±2, and the floor, a median over ±26 bins, sits below the bump's top, so
    the amplitude came out 13 % high; over the bump's own level next to the line it is within 2 %."""
    k = np.arange(4097, dtype=float)
    i0, off, on_bin = 1500, 0.3, 30.0
    x = k - (i0 + off)
    w = np.where(np.abs(np.abs(x) - 1) < 1e-9, 0.5, np.sinc(x) / np.where(np.abs(np.abs(x) - 1) < 1e-9, 1.0,
                                                                           1 - x ** 2)) ** 2
    for bump_h in (0.0, 3.0):
        s = _spectrum(1.0 + bump_h * np.exp(-0.5 * ((k - i0) / 8.0) ** 2) + on_bin * w)
        p = min(find_peaks(s, harmonics=False), key=lambda q: abs(q.freq_hz - (i0 + off) * s.resolution_hz))
        assert p.amplitude == pytest.approx(np.sqrt(2 * 1.5 * on_bin * s.resolution_hz), rel=0.02)
    assert lobe_share(0.0) == pytest.approx(1.0) and 0.97 < lobe_share(0.5) < 0.99
