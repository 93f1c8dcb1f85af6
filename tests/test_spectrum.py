"""Spectrum of one trace: regridding (stalls stay in), Welch PSD, peaks, harmonics, aliasing, drift."""
from __future__ import annotations

import json

import numpy as np
import pytest

import bandkit
from bandkit.spectrum import alias_candidates, alias_of, analyze_spectrum, box_gain, common_frequencies, regrid
from bandkit.spectrum.drift import drift_at, fold
from bandkit.spectrum.peaks import find_peaks, group_harmonics, noise_floor
from bandkit.spectrum.psd import compute_spectrum, false_alarm_snr
from bandkit.synthetic.interference import Locked, Source, ftq_trace

FS7 = 7777.017358


# --- aliasing arithmetic -------------------------------------------------------------------
def test_alias_of_folds_into_first_nyquist_zone():
    assert alias_of(100.0, 10000.0) == pytest.approx(100.0)
    assert alias_of(9900.0, 10000.0) == pytest.approx(100.0)
    assert alias_of(10100.0, 10000.0) == pytest.approx(100.0)
    assert alias_of(7700.0, FS7) == pytest.approx(77.017358)
    a = alias_of(np.array([4999.0, 5001.0, 15001.0]), 10000.0)
    np.testing.assert_allclose(a, [4999.0, 4999.0, 4999.0])


def test_alias_candidates_are_exactly_the_consistent_true_frequencies():
    c = alias_candidates(100.0, 10000.0, 25000.0)
    np.testing.assert_allclose(c, [100, 9900, 10100, 19900, 20100])
    for f in c:
        assert alias_of(f, 10000.0) == pytest.approx(100.0)


def test_box_gain_is_sinc_with_nulls_at_multiples_of_fs():
    assert box_gain(0.0, 1000.0) == pytest.approx(1.0)
    assert box_gain(1000.0, 1000.0) == pytest.approx(0.0, abs=1e-12)
    assert box_gain(2000.0, 1000.0) == pytest.approx(0.0, abs=1e-12)
    assert box_gain(500.0, 1000.0) == pytest.approx(2 / np.pi)


def test_common_frequencies_intersects_alias_sets():
    f_true = 13333.0
    al = [alias_of(f_true, 10000.0), alias_of(f_true, FS7)]
    got = common_frequencies(al, [10000.0, FS7], [0.05, 0.05], 25000.0)
    assert len(got) == 1 and got[0][0] == pytest.approx(f_true, abs=0.05)
    # structural ambiguity: 1111.5 and 8888.5 alias to 1111.5 at both 10 kHz and 7777 Hz
    got = common_frequencies([1111.5, 1111.5], [10000.0, 7777.0], [0.05, 0.05], 10000.0)
    assert sorted(round(g[0], 1) for g in got) == [1111.5, 8888.5]


# --- synthetic generator -------------------------------------------------------------------
def test_generator_box_filter_and_catchup_rows():
    t = ftq_trace(10000.0, 2.0, [Source(100.0, duty=0.1)], noise=0.0, stalls=[(0.50005, 0.0031)], seed=3)
    assert t.kind == "ftq" and t.meta.format == "synthetic" and t.meta.sampling_hz == 10000.0
    d = t.data
    full = 1.3e7 / 10000.0
    # a 1 ms burst every 10 ms steals exactly 10 quanta of work per period (box filter, no noise)
    per_period = d["value"].to_numpy()[:100].sum()
    assert per_period == pytest.approx(90 * full, rel=2e-3)
    # the 3.1 ms stall from mid-quantum swallows 30 whole quanta: catch-up rows with count 0 right after the stall
    cu = d["catchup"].to_numpy()
    assert cu.sum() == 30
    assert (d["value"].to_numpy()[cu] == 0).all()
    assert np.all(np.diff(d["time"].to_numpy()[cu]) < 1e-7)


def test_generator_is_seeded():
    a = ftq_trace(FS7, 1.0, [Source(333.0, 0.2, jitter_s=1e-5)], seed=5)
    b = ftq_trace(FS7, 1.0, [Source(333.0, 0.2, jitter_s=1e-5)], seed=5)
    c = ftq_trace(FS7, 1.0, [Source(333.0, 0.2, jitter_s=1e-5)], seed=6)
    assert a.data.equals(b.data) and not a.data.equals(c.data)


# --- regridding ------------------------------------------------------------------------------
def test_regrid_keeps_stalls_as_zero_work():
    t = ftq_trace(10000.0, 1.0, [], noise=0.0, stalls=[(0.2, 0.0050)], seed=1)
    g = regrid(t)
    assert len(g.x) == 10000 and g.method == "rows" and g.lost_slots == 50
    assert g.x[2001:2050].max() == 0.0  # the stalled quanta did no work
    assert g.x[:1999].min() == pytest.approx(1.0, abs=1e-3)


def test_regrid_by_time_fills_missing_slots_with_zero():
    t = ftq_trace(1000.0, 1.0, [], noise=0.0, seed=1)
    d = t.data.drop(columns=["catchup"]).drop(index=range(100, 110)).reset_index(drop=True)
    g = regrid(bandkit.Trace(d, t.meta))
    assert g.method == "time" and len(g.x) == 1000 and g.lost_slots == 10
    assert (g.x[100:110] == 0).all() and g.x[110] == pytest.approx(1.0, abs=1e-3)


def _no_catchup(t, times):
    d = t.data.drop(columns=["catchup"]).assign(time=times)
    return bandkit.Trace(d, t.meta)


def test_regrid_refuses_a_gap_longer_than_the_trace_without_allocating_it():
    """Issue 14/18: one time jump of 9e9 s made regrid allocate the whole gap (OOM)."""
    t = ftq_trace(1000.0, 1.0, [], noise=0.0, seed=1)
    times = t.data["time"].to_numpy().copy()
    times[500:] += 9e9  # 9e18 ns
    with pytest.raises(bandkit.InputError, match="longer than the whole trace") as err:
        regrid(_no_catchup(t, times))
    assert err.value.field == "time" and err.value.path == t.path
    # a gap shorter than the trace is a stall: zero-work slots, as before
    times = t.data["time"].to_numpy().copy()
    times[500:] += 0.5
    g = regrid(_no_catchup(t, times))
    assert len(g.x) == 1500 and g.lost_slots == 500 and (g.x[500:1000] == 0).all()


def test_regrid_refuses_backwards_and_absurd_times():
    """Issue 14: times going backwards gave "negative dimensions"; absurd ones overflowed."""
    t = ftq_trace(1000.0, 1.0, [], noise=0.0, seed=1)
    times = t.data["time"].to_numpy().copy()
    back = times.copy()
    back[-1] = -5.0
    with pytest.raises(bandkit.InputError, match="backwards"):
        regrid(_no_catchup(t, back))
    huge = times.copy()
    huge[-1] = 1e300
    with pytest.raises(bandkit.InputError, match="too large"):
        regrid(_no_catchup(t, huge))
    # many gaps, each shorter than the trace, that together make a grid of 20 M slots for 5,000 samples
    t5 = ftq_trace(1000.0, 5.0, [], noise=0.0, seed=1)
    sparse = np.arange(len(t5.data)) * 4.0  # a sample every 4,000 slots
    with pytest.raises(bandkit.InputError, match="time column or the sampling rate"):
        regrid(_no_catchup(t5, sparse))


def test_cli_report_on_a_time_jump_is_one_line_exit_2(tmp_path, capsys):
    """An FTQ file whose time column jumps by 9e18 ns: a one-line error, not an allocation."""
    from bandkit.cli import main
    from bandkit.synthetic.ftq import format_rows, header_text

    n = 4000
    time_ns = np.arange(n, dtype=np.int64) * 100_000
    time_ns[n // 2:] += 9 * 10 ** 18
    count = np.full(n, 1300, dtype=np.int64)
    path = tmp_path / "jump.dat"
    path.write_bytes(header_text(10000.0, int(count.sum()), 1300 * n).encode() + format_rows(time_ns, count))
    code = main(["report", str(path), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("bandkit: error:") and "jump.dat" in err


def test_real_trace_rows_are_the_grid(data_dir):
    """FTQ writes one row per deadline: slot from time agrees with the row index for real samples."""
    t = bandkit.load(data_dir / "ftq" / "ftq_f7777_intf100Hz_1ms_0.dat.gz")
    g = regrid(t)
    assert len(g.x) == len(t.data) and g.lost_slots == int(t.data["catchup"].sum())
    real = ~t.data["catchup"].to_numpy()
    slot = np.floor(t.data["time"].to_numpy()[real] * t.meta.sampling_hz + 0.5)
    row = np.flatnonzero(real)
    assert np.mean(np.abs(slot - row) <= 1) > 0.999


# --- spectrum and peaks ----------------------------------------------------------------------
def test_sinusoid_amplitude_frequency_and_snr():
    t = ftq_trace(10000.0, 20.0, [Source(123.4, duty=0.5, depth=0.2)], noise=0.01, seed=2)
    ts = analyze_spectrum(t)
    top = max(ts.peaks, key=lambda p: p.snr)
    assert top.freq_hz == pytest.approx(123.4, abs=0.02)
    # square wave of depth 0.2, duty 0.5: fundamental amplitude 2·0.2·0.5·sinc(0.5) = 0.127
    assert top.amplitude == pytest.approx(0.2 * 2 / np.pi, rel=0.1)
    assert top.snr_db > 40
    assert ts.spectrum.resolution_hz == pytest.approx(10000.0 / ts.spectrum.nperseg)


def test_white_noise_has_no_peaks_and_floor_matches_level():
    t = ftq_trace(10000.0, 20.0, [], noise=0.02, seed=4)
    sp = compute_spectrum(t)
    assert find_peaks(sp) == []
    floor = noise_floor(sp)
    # white noise: PSD = 2 σ² / fs with σ = 0.02 (relative count noise)
    assert np.median(floor[10:-10]) == pytest.approx(2 * 0.02 ** 2 / 10000.0, rel=0.15)
    assert false_alarm_snr(sp.dof, len(sp.psd)) > 1.5


def test_stall_driven_interference_shows_up():
    """A source that stalls the thread for 2 ms every 10 ms (catch-up rows) is a strong 100 Hz line."""
    stalls = [(0.004 + 0.01 * k, 0.002) for k in range(1000)]
    t = ftq_trace(10000.0, 10.0, [], noise=0.01, stalls=stalls, seed=5)
    assert t.data["catchup"].sum() > 15000
    ts = analyze_spectrum(t)
    fund = [p for p in ts.peaks if p.harmonic == 1]
    assert abs(fund[0].freq_hz - 100.0) < 0.05 or any(abs(p.freq_hz - 100) < 0.05 for p in fund)
    line = min(ts.peaks, key=lambda p: abs(p.freq_hz - 100.0))
    assert line.snr_db > 30


def test_harmonics_grouped_under_fundamental_even_when_aliased():
    t = ftq_trace(FS7, 20.0, [Source(100.0, duty=0.1)], noise=0.01, seed=6)
    ts = analyze_spectrum(t)
    by_f = {round(p.freq_hz): p for p in ts.peaks}
    assert by_f[100].harmonic == 1
    # fundamental_hz is the comb's fundamental refined by least squares over its members
    assert by_f[100].fundamental_hz == pytest.approx(100.0, abs=1e-3)
    for n in (2, 3, 5):
        assert by_f[100 * n].fundamental_hz == by_f[100].fundamental_hz
        assert by_f[100 * n].harmonic == n
    # harmonic 41 (4100 Hz) is above Nyquist: it shows up at its alias 7777.017 - 4100 = 3677.017 Hz
    # (harmonics 10, 20, 30, 40 are in the nulls of the 10 % duty cycle)
    assert any(abs(p.freq_hz - (FS7 - 4100.0)) < 0.05 for p in ts.peaks)
    assert not any(abs(p.freq_hz - (FS7 - 4000.0)) < 0.5 for p in ts.peaks)


def test_group_harmonics_weak_low_line_does_not_adopt_strong_source():
    from bandkit.spectrum.peaks import Peak

    peaks = [Peak(5.0, 0.01, 10 ** 1.5, 0.01, 5e-4, 5.0, 1), Peak(100.0, 0.01, 10 ** 6, 0.2, 0.01, 100.0, 1),
             Peak(200.0, 0.01, 10 ** 5, 0.1, 0.02, 200.0, 1)]
    g = {round(p.freq_hz): p for p in group_harmonics(peaks, 10000.0)}
    assert g[100].harmonic == 1 and g[200].fundamental_hz == 100.0 and g[200].harmonic == 2


def test_spectrum_to_dict_is_json_ready(data_dir):
    ts = analyze_spectrum(bandkit.load(data_dir / "ftq" / "ftq_f10000_intf100Hz_1ms_0.dat.gz"))
    d = ts.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["method"] == "welch/hann" and d["regrid"] == "rows" and d["peaks"]
    assert {"freq_hz", "snr_db", "amplitude", "harmonic", "fundamental_hz"} <= set(d["peaks"][0])
    assert all(type(v) in (int, float, str, bool) for p in d["peaks"] for v in p.values())
    # the interferer's 100 Hz and the 250 Hz scheduler tick are lines of the trace
    assert any(abs(p["freq_hz"] - 100) < 0.1 for p in d["peaks"])
    assert any(abs(p["freq_hz"] - 250) < 0.1 for p in d["peaks"])


def test_too_short_or_rateless_trace_is_a_usage_error():
    t = ftq_trace(1000.0, 0.03, [], seed=1)
    with pytest.raises(bandkit.UsageError):
        compute_spectrum(t)
    t2 = bandkit.Trace(t.data, t.meta.replace(sampling_hz=None))
    with pytest.raises(bandkit.UsageError):
        compute_spectrum(t2)


# --- phase drift -------------------------------------------------------------------------------
def test_drift_measured_for_period_close_to_whole_quanta():
    f = 10000.0 / 100.95  # period 100.95 quanta: the hit moves 0.05 quanta earlier per period
    t = ftq_trace(10000.0, 10.0, [Source(f, duty=0.05)], noise=0.005, seed=7)
    ds = analyze_spectrum(t).drifts
    d = ds[0]
    assert d.confirmed and d.period_quanta == 101
    true_rate = 10000.0 - 101 * f  # quanta per second (position slope)
    assert true_rate == pytest.approx(-4.95, abs=0.01)
    assert d.measured_quanta_per_s == pytest.approx(true_rate, abs=0.6)
    assert d.sweep_s == pytest.approx(1 / abs(true_rate), rel=0.15)


@pytest.mark.parametrize("fs,n,rate", [(10000.0, 137, 2.0), (FS7, 50, -8.0), (10000.0, 20, 40.0)])
def test_generated_drift_is_measured(fs, n, rate):
    src = Source.drifting(fs, n, rate, duty=0.04)
    t = ftq_trace(fs, 6.0, [src], noise=0.01, seed=n)
    d = drift_at(t, src.freq_hz)
    assert d.confirmed and d.period_quanta == n
    assert d.measured_quanta_per_s == pytest.approx(rate, abs=max(0.1 * abs(rate), 4 * d.measured_se))


def test_no_drift_for_locked_source_and_fold_shape():
    t = ftq_trace(10000.0, 5.0, [Source(100.0, duty=0.05)], noise=0.005, seed=8)
    d = drift_at(t, 100.0)
    assert not d.confirmed and abs(d.measured_quanta_per_s) < 0.5 and d.concentration > 0.9
    assert analyze_spectrum(t).drifts == ()
    f = fold(regrid(t).x, 100)
    assert f.shape == (500, 100)
    # the burst always hits the same 5 quanta
    assert np.argsort(f.mean(axis=0))[:5].tolist() == sorted(np.argsort(f.mean(axis=0))[:5].tolist())
    assert f.mean(axis=0).min() < 0.05


def test_real_7777_interferer_drifts_23_quanta_per_second(data_dir):
    """100 Hz at 7777.017 Hz: period 77.77 quanta ≈ 78, drift 7777.017 - 78·100 = -22.98 quanta/s."""
    t = bandkit.load(data_dir / "ftq" / "ftq_f7777_intf100Hz_1ms_0.dat.gz")
    d = drift_at(t, 100.0)
    assert d.confirmed and d.period_quanta == 78
    assert d.measured_quanta_per_s == pytest.approx(FS7 - 7800.0, abs=1.0)
    t10 = bandkit.load(data_dir / "ftq" / "ftq_f10000_intf100Hz_1ms_0.dat.gz")
    assert not drift_at(t10, 100.0).confirmed  # 10 ms = exactly 100 quanta: locked phase


def test_locked_artefact_lines_sit_at_fractions():
    t = ftq_trace(10000.0, 10.0, locked=[Locked(8, 0.3)], noise=0.005, seed=9)
    ts = analyze_spectrum(t)
    fr = sorted(round(p.fraction, 4) for p in ts.peaks)
    assert fr == [0.125, 0.25, 0.375, 0.5] or fr == [0.125, 0.25, 0.375]
