"""Band detection on generated data with known truth (bandkit.bands, bandkit.synthetic.bands)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from bandkit.bands import EXCLUDED, INTERMEDIATE, OUTLIER, BandDetector, find_bands
from bandkit.bands.dwell import classify_unassigned, find_episodes, transition_counts
from bandkit.bands.reduce import box_smooth, comb_period, reduce_values
from bandkit.errors import UsageError
from bandkit.synthetic.bands import banded_series, run_means


def _match(est, true, tol=0.01):
    est, true = np.asarray(est), np.asarray(true)
    return est.size == true.size and np.all(np.abs(est - true) / true <= tol)


@pytest.mark.parametrize("levels,noise,dwell", [
    ([1000.0], 0.003, 200),
    ([1000.0, 1300.0], 0.003, 200),
    ([780.0, 1300.0, 4174.0], 0.005, [20, 50, 300]),   # Rhoden-like: several times apart
    ([1000.0, 1010.0], 0.001, 200),                    # 1 % apart
    ([1000.0, 1050.0, 1100.0, 1150.0, 1200.0], 0.003, 100),
])
@pytest.mark.parametrize("integer", [False, True])
def test_levels_and_count_recovered(levels, noise, dwell, integer):
    s = banded_series(levels, 60_000, noise=noise, mean_dwell=dwell, interrupted=0.01,
                      integer=integer, seed=3)
    det = BandDetector().fit(s.values.reshape(-1, 1), times=s.times)
    assert det.n_bands_ == len(levels), det.levels_
    assert _match(det.levels_, levels, 0.002)
    # shares within 2 percentage points of the truth
    assert np.allclose([b.share for b in det.bands_], s.shares, atol=0.02)
    # every band's spread estimates the generated noise sd within 30 %
    assert np.allclose([b.spread for b in det.bands_], s.noise_sd, rtol=0.3, atol=1.0)


def test_small_band_found_but_noise_not_called_a_band():
    # dominant band + a 2 % band, 2 % apart
    s = banded_series([1000, 1020], 100_000, noise=0.002, mean_dwell=[500, 10], seed=1,
                      interrupted=0.01, integer=True)
    det = BandDetector().fit(s.values.reshape(-1, 1), times=s.times)
    assert det.n_bands_ == 2 and _match(det.levels_, [1000, 1020], 0.002)
    assert 0.01 < det.bands_[1].share < 0.03
    # one noisy Gaussian level with a heavy lower tail: one band
    rng = np.random.default_rng(0)
    v = 1000 + 5 * rng.standard_t(3, 100_000)
    hit = rng.random(v.size) < 0.03
    v[hit] *= rng.uniform(0, 0.9, hit.sum())
    assert BandDetector().fit(v.reshape(-1, 1)).n_bands_ == 1


def test_straddling_samples_are_intermediate_and_dwell_times():
    s = banded_series([780, 4174], 50_000, noise=0.003, mean_dwell=[10, 90], straddle=1.0,
                      seed=5, sampling_hz=10_000)
    res = find_bands(s.values, times=s.times)
    lab = res.labels
    true_inter = s.labels == INTERMEDIATE
    # a straddling sample between two different bands is intermediate (one that is a whole
    # 1-sample episode, A -> B -> A within a quantum, looks like an interrupt: an outlier)
    i = np.flatnonzero(true_inter)
    i = i[(i > 0) & (i < s.values.size - 1)]
    real = i[(s.labels[i - 1] >= 0) & (s.labels[i + 1] >= 0) & (s.labels[i - 1] != s.labels[i + 1])]
    assert real.size > 500
    assert (lab[real] == INTERMEDIATE).mean() > 0.97
    assert np.all(lab[true_inter] < 0)
    assert (lab[~true_inter] == INTERMEDIATE).mean() < 0.002
    assert res.intermediate == int((lab == INTERMEDIATE).sum())
    lo, hi = res.bands
    # geometric dwell with mean m: median about m * ln 2 samples; 10 kHz -> seconds
    assert lo.dwell_median_samples == pytest.approx(10 * np.log(2), rel=0.35)
    assert hi.dwell_median_samples == pytest.approx(90 * np.log(2), rel=0.2)
    assert hi.dwell_median_s == pytest.approx(hi.dwell_median_samples * 1e-4, rel=0.05)
    assert lo.dwell_max_samples >= lo.dwell_p95_samples >= lo.dwell_median_samples
    # time shares: 10 / (10 + 90) in the low band
    assert lo.share_time == pytest.approx(0.1, abs=0.02)
    # two bands: every jump goes to the other band
    c = res.transition_counts
    assert c[0, 0] == 0 and c[1, 1] == 0 and abs(int(c[0, 1]) - int(c[1, 0])) <= 1
    assert np.allclose(res.transition_probabilities, [[0, 1], [1, 0]])
    # degraded episodes = episodes in the low band (higher is better), with starts in seconds
    deg = res.degraded_episodes
    assert len(deg) == lo.episodes
    assert all(e.band == 0 for e in deg)
    starts = np.array([e.start_index for e in deg])
    assert np.all(s.values[starts] < 2000)


def test_transition_matrix_three_bands_known_chain():
    # jump weights: from any band the next is drawn by weights (3, 1, 1) excluding itself
    s = banded_series([100, 200, 300], 200_000, noise=0.005, mean_dwell=50, straddle=0.0,
                      jump_weights=[3, 1, 1], seed=2)
    res = find_bands(s.values)
    p = res.transition_probabilities
    # from band 0 (level 100, weight 3): next is 1 or 2 equally
    assert p[0, 1] == pytest.approx(0.5, abs=0.06) and p[0, 2] == pytest.approx(0.5, abs=0.06)
    # from band 1: to 0 with 3/4
    assert p[1, 0] == pytest.approx(0.75, abs=0.05)
    assert p[2, 0] == pytest.approx(0.75, abs=0.05)
    assert np.allclose(p.sum(axis=1), 1.0)
    # truth episodes vs found episodes
    true_jumps = np.count_nonzero(np.diff(s.episode_bands))
    assert int(res.transition_counts.sum()) == pytest.approx(true_jumps, rel=0.02)


def test_user_number_of_bands_and_min_separation():
    s = banded_series([1000, 1030, 1300], 30_000, noise=0.003, seed=4)
    assert find_bands(s.values).n_bands == 3
    # a minimum separation of 5 % merges 1000 and 1030
    r = find_bands(s.values, min_separation=0.05)
    assert r.n_bands == 2 and r.levels[1] == pytest.approx(1300, rel=0.002)
    # forcing 2 bands
    assert find_bands(s.values, n_bands=2).n_bands == 2
    with pytest.raises(UsageError):
        find_bands(s.values, n_bands=0)
    with pytest.raises(UsageError):
        find_bands(s.values, min_separation=5.0)  # relative, not absolute
    with pytest.raises(UsageError):
        find_bands(np.full(10, np.nan))
    with pytest.raises(UsageError):
        find_bands(np.ones((3, 3)))


def test_small_samples_two_groups_and_one_group():
    v, g = run_means([6.2e-6, 10.5e-6], 20, shares=[0.8, 0.2], noise=0.015, seed=1)
    r = find_bands(v, higher_is_better=False)
    assert r.n_bands == 2
    assert np.array_equal(r.labels, g)
    # one group of 20 noisy run means is one band, not five
    for seed in range(10):
        v, _ = run_means([1.0], 20, noise=0.02, seed=seed)
        assert find_bands(v).n_bands == 1, seed


def test_excluded_and_nonfinite_samples():
    s = banded_series([500, 1000], 20_000, noise=0.004, seed=6)
    v = s.values.copy()
    v[::100] = np.nan
    ex = np.zeros(v.size, bool)
    ex[5::100] = True
    v[5::100] = 1.0   # partial quanta next to stalls: excluded, not a band at 1
    d = BandDetector().fit(v.reshape(-1, 1), times=s.times, exclude=ex)
    assert d.n_bands_ == 2
    assert np.all(d.labels_[::100] == EXCLUDED) and np.all(d.labels_[5::100] == EXCLUDED)
    assert d.result_.excluded == 400
    assert d.result_.n_analysed == v.size - 400


def test_to_dict_is_json_ready_and_has_contract_fields():
    s = banded_series([780, 1300, 4174], 20_000, noise=0.004, mean_dwell=[5, 20, 100], seed=7)
    r = find_bands(s.values, times=s.times)
    d = r.to_dict(max_episodes=5)
    text = json.dumps(d, allow_nan=False)
    assert "NaN" not in text
    for b in d["bands"]:
        for key in ("level", "spread", "share", "share_time", "dwell_median_s", "dwell_p95_s",
                    "dwell_max_s", "dwell_median_samples", "dwell_p95_samples", "dwell_max_samples"):
            assert key in b
        assert isinstance(b["level"], float) and isinstance(b["dwell_max_samples"], int)
    tr = d["band_transitions"]
    assert len(tr["levels"]) == 3 and len(tr["counts"]) == 3 and len(tr["probabilities"][0]) == 3
    assert len(d["degraded_episodes"]) == 5 and d["degraded_episodes_total"] > 5
    assert set(d["degraded_episodes"][0]) >= {"start_s", "duration_s", "band"}
    assert d["intermediate"]["count"] == r.intermediate
    # no times: seconds are None, samples are numbers
    d2 = find_bands(s.values).to_dict()
    assert d2["bands"][0]["dwell_median_s"] is None and d2["bands"][0]["dwell_median_samples"] > 0
    assert d2["degraded_episodes"][0]["start_s"] is None


def test_higher_is_better_false_degrades_upper_bands():
    s = banded_series([1.0, 2.0], 5_000, noise=0.01, mean_dwell=[100, 10], seed=8)
    r = find_bands(s.values, higher_is_better=False)
    assert {e.band for e in r.degraded_episodes} == {1}
    r = find_bands(s.values, higher_is_better=True)
    assert {e.band for e in r.degraded_episodes} == {0}


def test_predict_and_estimator_api():
    from sklearn.exceptions import NotFittedError

    s = banded_series([10, 20], 5_000, noise=0.01, seed=9)
    d = BandDetector(min_share=0.01)
    assert d.get_params()["min_share"] == 0.01
    assert not hasattr(d, "bands_")  # __init__ stores parameters only
    with pytest.raises(NotFittedError):
        d.predict([[10.0]])
    assert d.fit(s.values.reshape(-1, 1)) is d
    assert d.n_features_in_ == 1
    p = d.predict(np.array([10.0, 20.0, 15.0, 1000.0]).reshape(-1, 1))
    assert list(p[:2]) == [0, 1] and p[3] == OUTLIER
    with pytest.raises(ValueError, match="Invalid parameter"):
        d.set_params(bogus=1)
    with pytest.raises(ValueError, match="Expected 2D array"):  # a 1-D array is ambiguous to scikit-learn
        d.fit(s.values)
    with pytest.raises(UsageError, match="min_share"):  # bad values: a ValueError that the CLI reports too
        BandDetector(min_share=0.7).fit(s.values.reshape(-1, 1))


def test_estimator_equals_find_bands_and_averages_rows():
    """The estimator runs the same steps as find_bands; several columns are a run's values (row means)."""
    s = banded_series([10, 20], 3_000, noise=0.01, seed=9)
    ref = find_bands(s.values, times=s.times)
    d = BandDetector().fit(s.values.reshape(-1, 1), times=s.times)
    np.testing.assert_array_equal(d.labels_, ref.labels)
    assert d.result_.to_dict() == ref.to_dict()
    runs = np.repeat(s.values[:, None], 3, axis=1) + np.array([-0.01, 0.0, 0.01])
    runs[5, 1] = np.nan  # a missing value: the mean of the others
    np.testing.assert_allclose(BandDetector().fit(runs).result_.values, np.nanmean(runs, axis=1))
    assert BandDetector().fit(runs).n_bands_ == 2


def test_band_detector_works_in_scikit_learn_tools():
    from sklearn.base import clone
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    s = banded_series([10, 20], 2_000, noise=0.01, seed=3)
    X = s.values.reshape(-1, 1)
    pipe = make_pipeline(FunctionTransformer(np.log), BandDetector())
    assert list(np.unique(pipe.fit(X).predict(X[:50]))) in ([0], [1], [0, 1])
    c = clone(BandDetector(n_bands=2))
    assert c.get_params()["n_bands"] == 2 and not hasattr(c, "result_")


def test_reduce_is_lossless_and_maps_every_sample():
    rng = np.random.default_rng(0)
    ints = rng.integers(1000, 1400, 100_000).astype(float)
    red = reduce_values(ints)
    assert red.kind == "int" and red.w.sum() == ints.size
    assert np.array_equal(red.x[red.index(ints)], ints)
    fl = rng.normal(5, 1, 1000)
    red = reduce_values(fl)
    assert red.kind == "exact" and np.array_equal(red.x[red.index(fl)], fl)
    big = rng.normal(50, 1, 200_000)
    red = reduce_values(big, max_bins=1000)
    assert red.kind == "hist"
    idx = red.index(big)
    ok = idx >= 0
    assert ok.mean() > 0.9999 and np.all(np.abs(red.x[idx[ok]] - big[ok]) <= red.step / 2 + 1e-12)
    # levels several times apart: log-spaced bins, constant relative resolution
    wide = np.exp(rng.uniform(np.log(100), np.log(10_000), 200_000))
    red = reduce_values(wide, max_bins=4096)
    assert red.kind == "loghist"
    idx = red.index(wide)
    ok = idx >= 0
    rel = np.abs(red.x[idx[ok]] / wide[ok] - 1)
    assert ok.mean() > 0.9999 and rel.max() <= np.log(100) / 4096


def test_comb_detection_and_smoothing():
    rng = np.random.default_rng(1)
    # FTQ-like comb: counts on a 4.6-count grid under a smooth envelope
    base = 1338 - 4.6 * rng.geometric(0.35, 100_000)
    v = np.rint(base)
    red = reduce_values(v)
    per = comb_period(red.x, red.w, max_period=0.008 * 1330)
    assert per == pytest.approx(4.6, abs=0.2)
    xs, ws = box_smooth(red.x, red.w, per)
    assert ws.sum() == pytest.approx(red.w.sum())
    # a smooth Gaussian has no comb
    g = np.rint(rng.normal(1300, 20, 100_000))
    red = reduce_values(g)
    assert comb_period(red.x, red.w, max_period=0.008 * 1300) is None
    # a wide band whose smooth spectrum reaches into the searched periods is not a comb either
    # (it used to be taken for one and smoothed a 2 % band at 1000 into its 1020 neighbour)
    s = banded_series([1000, 1020, 5100], 50_000, noise=[0.0018, 0.001, 0.0028],
                      mean_dwell=[6, 24, 250], integer=True, seed=31)
    red = reduce_values(s.values)
    assert comb_period(red.x, red.w, max_period=0.008 * np.median(s.values)) is None
    assert BandDetector().fit(s.values.reshape(-1, 1)).n_bands_ == 3


def test_dwell_helpers():
    lab = np.array([0, 0, -2, 0, 1, 1, -2, 0, 0], dtype=np.int8)
    vals = np.array([1, 1, 0.2, 1, 2, 2, 1.5, 1, 1.0])
    out = classify_unassigned(lab, vals, np.array([1.0, 2.0]))
    assert list(out) == [0, 0, OUTLIER, 0, 1, 1, INTERMEDIATE, 0, 0]
    ep = find_episodes(out, np.arange(9) * 0.5, 0.5)
    assert list(ep.band) == [0, 1, 0] and list(ep.samples) == [4, 2, 2]
    assert list(ep.duration_s) == [2.0, 1.0, 1.0]
    assert transition_counts(ep.band, 2).tolist() == [[0, 1], [1, 0]]


def test_band_overlap_warns_when_labels_cannot_be_trusted():
    """Well-separated bands: overlap ~0; bands within a couple of spreads: a few per cent, and the
    text report says dwell times are lower bounds."""
    from bandkit.bands.fit import band_overlap
    from bandkit.render.text_bands import OVERLAP_NOTE

    far = band_overlap([780.0, 4174.0], [20.0, 30.0], [700.0, 3000.0], [900.0, 4300.0])
    assert far[0] < 1e-12 and far[1] < 1e-12
    near = band_overlap([1269.0, 1334.0], [32.6, 5.93], [1105.0, 1321.0], [1320.0, 1339.0])
    assert near[0] == pytest.approx(0.0572, abs=0.001) and near[0] > OVERLAP_NOTE > near[1]
    assert band_overlap([5.0], [1.0], [4.0], [6.0]) == [None]
    three = band_overlap([0.0, 10.0, 20.0], [2.0, 2.0, 2.0], [-5.0, 5.0, 15.0], [5.0, 15.0, 25.0])
    assert three[1] == pytest.approx(2 * three[0], rel=1e-9)  # the middle band has two neighbours


def test_seeds_fitted_in_threads_give_the_serial_result(monkeypatch):
    """The seeds of one k run in threads (the EM kernel releases the GIL); the fits, the winner and so
    every number are those of the serial run, and BANDKIT_THREADS=1 is the serial run."""
    import bandkit.bands.fit as F

    s = banded_series([1000.0, 1050.0, 1100.0, 1150.0, 1200.0], 60_000, noise=0.003, mean_dwell=100,
                      interrupted=0.01, integer=True, seed=3)
    calls = []
    real = F._map_seeds

    def spy(fit, seeds, work):
        calls.append((len(seeds), work))
        return real(fit, seeds, work)

    monkeypatch.setattr(F, "_map_seeds", spy)
    monkeypatch.setenv("BANDKIT_THREADS", "1")
    serial = F.fit_bands(s.values, s.times)
    monkeypatch.setenv("BANDKIT_THREADS", "3")
    assert F.seed_threads() == 3
    threaded = F.fit_bands(s.values, s.times)
    assert any(n >= 2 and work >= F.PARALLEL_MIN_WORK for n, work in calls)  # threads were used
    assert json.dumps(serial.result.to_dict(), sort_keys=True) == json.dumps(threaded.result.to_dict(), sort_keys=True)
    assert np.array_equal(serial.labels, threaded.labels)
    for a in ("weights", "means", "sds"):
        assert np.array_equal(getattr(serial.mixture, a), getattr(threaded.mixture, a))
    assert serial.bic == threaded.bic
    monkeypatch.setenv("BANDKIT_THREADS", "many")
    with pytest.raises(UsageError, match="BANDKIT_THREADS"):
        F.seed_threads()
