"""Bands on real files under data/ (FTQ traces recorded for this project, a pyperf result file),
the report section, the text renderer and the plots."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import bandkit
from bandkit.bands import EXCLUDED, find_bands, stall_adjacent
from bandkit.bands.api import run_means

DATA = Path(__file__).resolve().parent.parent / "data"
FTQ = DATA / "ftq"
PYPERF = DATA / "runners" / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"


@pytest.fixture(scope="module")
def quiet10k():
    return bandkit.load(FTQ / "ftq_f10000_quiet_0.dat.gz")


def _hist_peak(v, lo, hi):
    """Most frequent count in [lo, hi] after averaging over +-3 counts (smooths FTQ's comb)."""
    v = v[(v >= lo) & (v <= hi)].astype(int)
    h = np.bincount(v - lo, minlength=hi - lo + 1).astype(float)
    sm = np.convolve(h, np.ones(7) / 7, mode="same")
    return lo + int(np.argmax(sm))


def test_ftq_10khz_quiet_two_bands_match_histogram(quiet10k):
    r = find_bands(quiet10k)
    assert r.n_bands == 2
    low, high = r.bands
    v = quiet10k.values
    # the histogram's two humps: a broad one near 1270 and the 1333..1339 spike
    assert abs(low.level - _hist_peak(v, 1150, 1315)) <= 10
    assert 1330 <= high.level <= 1339
    assert low.spread > 3 * high.spread          # broad vs narrow band
    assert 0.6 < low.share < 0.8 and 0.15 < high.share < 0.3
    # stall-adjacent quanta (e.g. the 620 after a stall) are excluded, not a band
    ex = stall_adjacent(quiet10k)
    assert ex.sum() > 1000 and np.all(r.labels[ex] == EXCLUDED)
    assert r.excluded == ex.sum()
    # dwell times in seconds at 10 kHz: at least one quantum
    assert high.dwell_median_s >= 1e-4 - 1e-9 and high.dwell_max_s > high.dwell_median_s
    assert r.transition_counts[0, 1] > 100


@pytest.mark.parametrize("name,top", [
    ("ftq_f10000_intf100Hz_1ms_0", (1330, 1339)),
    ("ftq_f7777_quiet_0", (1700, 1721)),
    ("ftq_f7777_intf100Hz_1ms_0", (1700, 1722)),
])
def test_other_ftq_traces_two_bands(name, top):
    t = bandkit.load(FTQ / f"{name}.dat.gz")
    r = find_bands(t)
    assert r.n_bands == 2
    assert top[0] <= r.bands[1].level <= top[1]
    assert r.bands[0].level < 0.97 * r.bands[1].level
    assert r.outliers / r.n_analysed < 0.07


def test_pyperf_pickle_list_run_means_two_bands():
    traces = bandkit.load(PYPERF)
    t = next(x for x in traces if x.meta.name == "pickle_list")
    means, _ = run_means(t)
    assert means.size == 20
    r = find_bands(t, per_run=True)
    assert r.n_bands == 2 and r.higher_is_better is False
    fast, slow = r.bands
    assert slow.level / fast.level == pytest.approx(1.7, abs=0.1)
    # the slow band is the group of runs above the midpoint, every one of them
    slow_runs = means > (fast.level + slow.level) / 2
    assert np.array_equal(r.labels == 1, slow_runs)
    # runs are worse when slower: the degraded episodes are in the slow band
    assert {e.band for e in r.degraded_episodes} == {1}


def test_report_section_json_and_text(quiet10k):
    rep = bandkit.analyze(quiet10k)
    entry = rep.to_dict()["traces"][0]
    json.dumps(entry, allow_nan=False)
    assert len(entry["bands"]) == 2
    assert set(entry["band_transitions"]) == {"levels", "counts", "probabilities"}
    assert entry["degraded_episodes_total"] >= len(entry["degraded_episodes"])
    assert len(entry["degraded_episodes"]) <= 50
    assert {"count", "share"} <= set(entry["intermediate"])
    f = [x for x in rep.findings if x["kind"] == "band_levels"]
    assert len(f) == 1 and f[0]["n_bands"] == 2
    text = rep.to_text()
    assert "bands (2, of" in text and "2 bands: 1,334" in text
    assert max(len(l) for l in text.splitlines()) <= 100
    # the 1269 band (robust sd 33) reaches into the 1334 band's range: dwell times are flagged
    low = min(entry["bands"], key=lambda b: b["level"])
    assert 0.03 < low["overlap"] < 0.1
    assert "dwell times are lower bounds" in " ".join(text.split())


def test_plots_return_axes(quiet10k):
    import matplotlib

    matplotlib.use("Agg")
    from bandkit.plots.bands import plot_band_histogram, plot_band_scatter

    r = find_bands(quiet10k)
    ax = plot_band_histogram(quiet10k, r)
    assert len(ax.lines) == 2 and ax.get_xlim()[1] > 1330
    ax2 = plot_band_scatter(quiet10k, r, max_points=5000)
    assert ax2.get_xlabel() == "time (s)" and len(ax2.lines) >= 2
    import matplotlib.pyplot as plt

    plt.close("all")


def test_series_trace_gets_bands_section():
    import pandas as pd

    from bandkit.synthetic.bands import banded_series

    s = banded_series([1.0, 2.0], 3000, noise=0.01, mean_dwell=[50, 100], seed=3)
    tr = bandkit.Trace(pd.DataFrame({"time": s.times, "value": s.values}),
                       bandkit.TraceMeta(path="synthetic", format="csv", kind="series"))
    entry = bandkit.analyze(tr).to_dict()["traces"][0]
    assert [round(b["level"], 2) for b in entry["bands"]] == [1.0, 2.0]
    assert entry["band_analysis"]["values"] == "samples"
