"""The two-rate test: compare_rates on real recordings and generated pairs; report integration."""
from __future__ import annotations

import json

import numpy as np
import pytest

import bandkit
from bandkit.spectrum import compare_rates
from bandkit.spectrum.aliasing import alias_of
from bandkit.synthetic.interference import Locked, Source, ftq_trace

FS = (10000.0, 7777.017358)


@pytest.fixture(scope="module")
def real_pair(data_dir=None):
    from pathlib import Path

    d = Path(__file__).resolve().parent.parent / "data" / "ftq"
    return [bandkit.load(d / f"ftq_f{r}_intf100Hz_1ms_0.dat.gz") for r in (10000, 7777)]


@pytest.fixture(scope="module")
def real_cmp(real_pair):
    return compare_rates(*real_pair)


def _pair(sources=(), locked=(), seed=0, duration=10.0, **kw):
    return [ftq_trace(fs, duration, sources, locked=locked, seed=seed + i, **kw) for i, fs in enumerate(FS)]


# --- real recordings: busy 1 ms every 10 ms ------------------------------------------------------
def test_real_interferer_is_external_100hz_with_harmonics(real_cmp):
    ext = real_cmp.external
    hundred = [e for e in ext if abs(e.freq_hz - 100.0) < 0.05]
    assert len(hundred) == 1
    e = hundred[0]
    assert e.verdict == "external"
    assert len(e.harmonics) >= 10
    ns = {h["n"] for h in e.harmonics}
    assert {2, 3, 4} <= ns
    # busy 1 ms of 10 ms: harmonics 10, 20, 30 sit in the nulls of the 10 % duty cycle
    assert not ({10, 20, 30} & ns)
    paths = {o.path for o in e.observed}
    assert len(paths) == 2 and {o.sampling_hz for o in e.observed} == set(FS)


def test_real_interferer_matches_ground_truth_log(data_dir):
    """The interferer log (spin starts on CLOCK_MONOTONIC) says the period is 10 ms."""
    import gzip

    for r in (10000, 7777):
        with gzip.open(data_dir / "ftq" / f"ftq_f{r}_intf100Hz_1ms.interferer_log.txt.gz", "rt") as fh:
            a = np.loadtxt(fh, comments="#")
        start = a[:, 0]
        period = (start[-1] - start[0]) / (len(start) - 1) * 1e-9
        busy = np.median(a[:, 1] - a[:, 0]) * 1e-9
        assert period == pytest.approx(0.010, rel=1e-4) and busy == pytest.approx(0.001, rel=1e-3)


def test_real_scheduler_tick_also_external(real_cmp):
    # the shared VM's other tasks: 250 Hz (CONFIG_HZ=250 tick) lines at both rates
    assert any(abs(e.freq_hz - 250.0) < 0.05 for e in real_cmp.external)


def test_real_quiet_pair_tick_and_inferred_fundamental(data_dir):
    """Quiet recordings: the 250 Hz tick (seen fundamental) and a weak 100 Hz comb whose fundamental is
    under the threshold: its confirmed lines (1200, 1300, ... Hz) are merged under an inferred 100 Hz."""
    tr = [bandkit.load(data_dir / "ftq" / f"ftq_f{r}_quiet_0.dat.gz") for r in (10000, 7777)]
    cmp = compare_rates(*tr)
    tick = [e for e in cmp.external if abs(e.freq_hz - 250.0) < 0.05]
    assert len(tick) == 1 and not tick[0].inferred and len(tick[0].harmonics) >= 10
    inferred = [e for e in cmp.external if e.inferred]
    assert len(inferred) == 1 and inferred[0].freq_hz == pytest.approx(100.0, abs=0.01)
    ns = [h["n"] for h in inferred[0].harmonics]
    assert min(ns) >= 2 and len(ns) >= 3
    assert inferred[0].to_dict()["fundamental_inferred"] is True


def test_real_drift_reported_at_7777_only(real_cmp):
    e = next(e for e in real_cmp.external if abs(e.freq_hz - 100.0) < 0.05)
    drift = {d["sampling_hz"]: d for d in e.drift}
    assert drift[FS[1]]["confirmed"] and drift[FS[1]]["period_quanta"] == 78
    assert drift[FS[1]]["measured_quanta_per_s"] == pytest.approx(FS[1] - 7800.0, abs=1.0)
    assert not drift[FS[0]]["confirmed"]


def test_rate_comparison_to_dict_contract(real_cmp):
    d = real_cmp.to_dict()
    json.dumps(d, allow_nan=False)
    for item in d["interference"]:
        assert {"freq_hz", "verdict", "observed", "candidates_hz"} <= set(item)
        assert item["verdict"] in ("external", "sampling-locked", "ambiguous")
        for o in item["observed"]:
            assert {"path", "alias_hz", "snr"} <= set(o)
        if item["verdict"] == "ambiguous":
            assert item["reason"] in ("unmatched", "invisible", "multiple", "locked_and_external")
            assert item["freq_hz"] is None


# --- generated pairs -----------------------------------------------------------------------------
@pytest.mark.parametrize("f_true", [37.3, 1234.5, 4444.4, 6000.0, 13333.0, 21001.0])
def test_true_frequency_recovered_below_between_and_above_nyquist(f_true):
    tr = _pair([Source(f_true, duty=0.2, depth=0.5)], seed=11, noise=0.01)
    cmp = compare_rates(*tr)
    ext = cmp.external
    assert ext, "nothing found"
    best = max(ext, key=lambda e: e.snr_db)
    assert best.freq_hz == pytest.approx(f_true, rel=0.005)
    # every external claim is the source or one of its harmonics
    for e in ext:
        n = round(e.freq_hz / f_true)
        assert n >= 1 and abs(e.freq_hz - n * f_true) <= 0.005 * n * f_true
    # the aliases actually observed are the right ones
    for o in best.observed:
        assert o.alias_hz == pytest.approx(alias_of(f_true, o.sampling_hz), abs=0.1)


def test_sampling_locked_artefact_is_never_external():
    for every in (3, 8, 25, 57):
        tr = _pair(locked=[Locked(every, 0.4)], seed=every, noise=0.01)
        cmp = compare_rates(*tr)
        assert cmp.external == [], every
        locked = [e for e in cmp.interference if e.verdict == "sampling-locked"]
        assert locked and locked[0].fraction == pytest.approx(1.0 / every, abs=1e-4)


def test_source_at_one_rate_only_is_ambiguous_not_external():
    a = ftq_trace(FS[0], 10.0, [Source(321.0, 0.2, depth=0.5)], noise=0.01, seed=1)
    b = ftq_trace(FS[1], 10.0, [], noise=0.01, seed=2)
    cmp = compare_rates(a, b)
    assert cmp.external == []
    amb = [e for e in cmp.interference if e.verdict == "ambiguous"]
    assert any(abs(e.observed[0].alias_hz - 321.0) < 0.1 and e.reason in ("unmatched", "invisible")
               for e in amb)
    e = next(e for e in amb if abs(e.observed[0].alias_hz - 321.0) < 0.1)
    assert any(abs(c - 321.0) < 0.1 for c in e.candidates_hz)
    assert all(abs(alias_of(c, FS[0]) - 321.0) < 0.1 for c in e.candidates_hz)


def test_stalls_from_the_source_count_as_interference():
    """A source that takes the CPU for 3 ms every 20 ms shows up as catch-up rows, and is found."""
    stalls = [(0.0071 + k / 50.0, 0.003) for k in range(499)]
    tr = [ftq_trace(fs, 10.0, [], stalls=stalls, noise=0.01, seed=i) for i, fs in enumerate(FS)]
    assert all(t.data["catchup"].sum() > 1000 for t in tr)
    cmp = compare_rates(*tr)
    assert any(abs(e.freq_hz - 50.0) < 0.01 for e in cmp.external)


def test_three_rates():
    rates = (10000.0, 7777.017358, 6007.0)
    tr = [ftq_trace(fs, 10.0, [Source(317.0, 0.1, depth=0.3)], noise=0.01, seed=i) for i, fs in enumerate(rates)]
    cmp = compare_rates(tr)
    assert cmp.rates_hz == rates
    assert cmp.external[0].freq_hz == pytest.approx(317.0, rel=1e-4)
    assert len(cmp.external[0].observed) == 3


def test_usage_errors():
    a = ftq_trace(10000.0, 1.0, [], seed=1)
    b = ftq_trace(5000.0, 1.0, [], seed=2)
    with pytest.raises(bandkit.UsageError, match="multiples"):
        compare_rates(a, b)
    with pytest.raises(bandkit.UsageError):
        compare_rates(a)


# --- report integration --------------------------------------------------------------------------
def test_report_json_has_spectrum_and_interference(real_pair):
    rep = bandkit.analyze(real_pair)
    d = json.loads(rep.to_json())
    for t in d["traces"]:
        assert t["spectrum"]["peaks"] and t["spectrum"]["resolution_hz"] > 0
    inter = d["interference"]
    assert inter[0]["verdict"] == "external"
    assert any(abs(e["freq_hz"] - 100.0) < 0.05 for e in inter if e["verdict"] == "external")
    kinds = {f["kind"] for f in d["findings"]}
    assert "periodic_interference" in kinds
    text = rep.to_text()
    assert "Periodic interference (two-rate test)" in text
    assert "external" in text and "100.000 Hz" in text
    assert all(len(line) <= 100 for line in text.splitlines())


def test_report_single_trace_has_no_interference_entry(real_pair):
    d = json.loads(bandkit.analyze(real_pair[0]).to_json())
    assert d["interference"] is None
    assert d["traces"][0]["spectrum"]["peaks"]


def test_cli_report_two_rates(data_dir, capsys):
    from bandkit.cli import main

    rc = main(["report", "--format", "json", str(data_dir / "ftq" / "ftq_f10000_intf100Hz_1ms_0.dat.gz"),
               str(data_dir / "ftq" / "ftq_f7777_intf100Hz_1ms_0.dat.gz")])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1)
    assert any(e["verdict"] == "external" and abs(e["freq_hz"] - 100) < 0.05 for e in out["interference"])


# --- plots ---------------------------------------------------------------------------------------
def test_plots(real_cmp, real_pair):
    import matplotlib

    matplotlib.use("Agg")
    from bandkit.plots.spectrum import plot_fold, plot_rates, plot_spectrogram, plot_spectrum

    ax = plot_rates(real_cmp, f_max=1000)
    xs = [l.get_xdata()[0] for l in ax.get_lines() if len(l.get_xdata()) == 2 and l.get_xdata()[0] == l.get_xdata()[1]]
    assert any(abs(x - 100.0) < 0.05 for x in xs)
    assert len(ax.get_legend().get_texts()) == 3  # the two traces and the external frequencies (issue 15)
    ax = plot_spectrum(real_cmp.spectra[0])
    assert ax.get_xlim()[1] == pytest.approx(5000.0)
    ax = plot_fold(real_pair[1], 100.0)
    img = ax.get_images()[0].get_array()
    assert img.shape[1] == 78
    ax = plot_spectrogram(real_pair[0], f_max=500)
    assert ax.get_ylim()[1] <= 501
