"""Change-point detection: exactness of the search, TCPD metrics, defaults on generated and real data,
uncertainty (interval coverage, p-values), report section, text and plot."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import bandkit
from bandkit.changepoints import ChangePointDetector, ChangePointResult, detect_changepoints, fpop, pelt
from bandkit.changepoints.costs import choose_cost, outlier_fraction
from bandkit.changepoints.noise import robust_lag1, short_range
from bandkit.changepoints.robust import clock_tick, m_scale, robust_sd
from bandkit.changepoints.scoring import covering, f_measure, partition, precision_recall
from bandkit.errors import UsageError
from bandkit.synthetic.steps import steps

DATA = Path(__file__).resolve().parent.parent / "data"


def brute_force(y, pen, m):
    """O(n^2) optimal partitioning with minimum segment length m: (change points, cost)."""
    n = len(y)
    s1 = np.r_[0, np.cumsum(y)]
    s2 = np.r_[0, np.cumsum(y * y)]
    F = np.full(n + 1, np.inf)
    F[0] = -pen
    last = np.zeros(n + 1, dtype=int)
    for t in range(1, n + 1):
        for tau in range(0, t - m + 1):
            if F[tau] == np.inf:
                continue
            k = t - tau
            v = F[tau] + pen + s2[t] - s2[tau] - (s1[t] - s1[tau]) ** 2 / k
            if v < F[t]:
                F[t], last[t] = v, tau
    cps, t = [], n
    while t > 0:
        t = last[t]
        if t > 0:
            cps.append(t)
    return cps[::-1], F[n]


# ---------------------------------------------------------------- exact search

@pytest.mark.parametrize("offset", [0.0, 1e3, -1e4])
@pytest.mark.parametrize("m", [1, 2, 5])
def test_fpop_on_constant_and_offset_data(offset, m):
    """Regressions: exactly constant runs (the earlier kernel put a change at every value) and
    data far from zero (it lost ~1e-7 relative precision)."""
    y = np.full(60, 3.0) + offset
    cps, st = fpop(y, 5.0, m, return_stats=True)
    assert cps.size == 0 and st["cost"] == pytest.approx(0.0, abs=1e-9)
    rng = np.random.default_rng(3)
    y = np.r_[np.zeros(40), np.full(35, 2.0), np.zeros(45)] + rng.normal(0, 0.5, 120) + offset
    cb, Fb = brute_force(y - y.mean(), 4.0, m)  # the cost does not change with a shift; centred = exact
    cf, st = fpop(y, 4.0, m, return_stats=True)
    assert st["cost"] == pytest.approx(Fb, rel=1e-9, abs=1e-9)
    assert list(cf) == list(cb) and list(pelt(y, 4.0, m)) == list(cb)


def test_fpop_and_pelt_match_brute_force_on_random_problems():
    rng = np.random.default_rng(42)
    checked = 0
    for _ in range(250):
        n = int(rng.integers(4, 70))
        m = int(rng.integers(1, 6))
        if n < 2 * m:
            continue
        y = rng.normal(size=n) + (np.arange(n) > n // 2) * rng.normal(0, 3) + (np.arange(n) > n // 4) * rng.normal(0, 2)
        if rng.random() < 0.3:
            y = np.round(y)  # ties
        pen = float(rng.uniform(0.05, 25))
        cb, Fb = brute_force(y, pen, m)
        cf, sf = fpop(y, pen, m, return_stats=True)
        cp, sp = pelt(y, pen, m, return_stats=True)
        assert sf["cost"] == pytest.approx(Fb, rel=1e-9, abs=1e-9)
        assert sp["cost"] == pytest.approx(Fb, rel=1e-9, abs=1e-9)
        assert all(np.diff(np.r_[0, cf, n]) >= m)
        checked += 1
    assert checked > 150


@pytest.mark.parametrize("kind", ["trend", "sine", "steps_t2"])
@pytest.mark.parametrize("pen", [1.0, 30.0, 3000.0])
@pytest.mark.parametrize("m", [1, 3])
def test_fpop_equals_pelt_on_longer_series(kind, pen, m):
    rng = np.random.default_rng(7)
    n = 4000
    x = np.arange(n)
    y = {"trend": x / n * 3 + rng.normal(size=n) * 0.1,
         "sine": np.sin(x / 300) + rng.normal(size=n),
         "steps_t2": np.repeat(rng.normal(0, 1, 40), 100) + rng.standard_t(2, size=n)}[kind]
    a, sa = fpop(y, pen, m, return_stats=True)
    b, sb = pelt(y, pen, m, return_stats=True)
    assert sa["cost"] == pytest.approx(sb["cost"], rel=1e-9)
    np.testing.assert_array_equal(a, b)


def test_fpop_grows_its_piece_buffer():
    # a slow trend under a huge penalty keeps many pieces alive (> the initial 64)
    y = np.linspace(0, 3, 6000) + np.random.default_rng(3).normal(0, 0.001, 6000)
    a, sa = fpop(y, 100.0, 1, return_stats=True)
    b, sb = pelt(y, 100.0, 1, return_stats=True)
    assert sa["mean_pieces"] > 64
    assert sa["cost"] == pytest.approx(sb["cost"], rel=1e-9)
    np.testing.assert_array_equal(a, b)


def test_fpop_is_linear_time_friendly_on_long_segments():
    # 10 segments of 20k values: FPOP keeps few pieces where PELT keeps ~all candidates
    rng = np.random.default_rng(0)
    y = np.repeat(rng.normal(0, 2, 10), 20000) + rng.standard_normal(200000)
    cps, st = fpop(y, 2 * np.log(y.size), 1, return_stats=True)
    assert st["mean_pieces"] < 30
    assert cps.size >= 8


# ---------------------------------------------------------------- TCPD metrics

def test_tcpd_metric_examples_from_sources_md():
    assert f_measure({1: [10, 20], 2: [11, 20], 3: [10], 4: [0, 5]}, [10, 20]) == pytest.approx(1.0)
    assert f_measure({1: [], 2: [10], 3: [50]}, [10]) == pytest.approx(0.90909, abs=1e-5)
    assert covering({1: [10, 20], 2: [10], 3: [0, 5]}, [10, 20], 45) == pytest.approx(0.79630, abs=1e-5)


def test_tcpd_metrics_edge_cases():
    # margin: 6 away does not match, 5 does; each prediction is used once
    assert precision_recall({1: [50]}, [56]) == (0.5, 0.5)
    assert precision_recall({1: [50]}, [55]) == (1.0, 1.0)
    P, R = precision_recall({1: [50, 52]}, [51])
    assert P == 1.0 and R == pytest.approx(2 / 3)
    assert covering({1: []}, [], 30) == 1.0
    assert covering({1: [15]}, [], 30) == pytest.approx(0.5)
    assert [len(s) for s in partition([0, 10, 10, 40], 30)] == [10, 20]


# ---------------------------------------------------------------- defaults on generated data

def test_issue_example_20ms_to_11ms_at_run_106():
    rng = np.random.default_rng(1)
    y = np.r_[np.full(105, 20.3), np.full(295, 11.0)] * np.exp(rng.normal(0, 0.03, 400))
    res = detect_changepoints(y)
    assert res.indices.tolist() == [105]
    c = res.changepoints[0]
    assert c.ci_low <= 105 <= c.ci_high and c.ci_high - c.ci_low <= 2
    assert c.before == pytest.approx(20.3, rel=0.01) and c.after == pytest.approx(11.0, rel=0.01)
    assert c.ratio == pytest.approx(11.0 / 20.3, rel=0.01)
    assert c.p_value < 1e-10
    assert [s.n for s in res.segments] == [105, 295]


@pytest.mark.parametrize("noise", ["gaussian", "student_t", "lognormal"])
def test_steps_found_with_each_noise(noise):
    hits = total = false = 0
    for seed in range(20):
        s = steps(800, n_changes=3, min_gap=120, jump=(2.0, 3.0), noise_kind=noise, seed=seed)
        res = detect_changepoints(s.values, ci=False)
        found = res.indices
        for c in s.changepoints:
            total += 1
            hits += bool(np.any(np.abs(found - c) <= 5))
        false += sum(not np.any(np.abs(s.changepoints - f) <= 5) for f in found)
    assert hits / total >= 0.95
    assert false / 20 <= 0.3


def test_spikes_do_not_make_segments_with_auto_cost():
    s = steps(1000, n_changes=2, min_gap=200, jump=(3, 3), noise_kind="gaussian", outliers=0.01,
              outlier_size=15, seed=5)
    res = detect_changepoints(s.values)
    assert res.cost == "robust"
    assert len(res.changepoints) == 2
    assert np.all(np.abs(res.indices - s.changepoints) <= 3)
    # the L2 cost on the same data cuts out spikes
    assert len(detect_changepoints(s.values, cost="l2", ci=False).changepoints) > 2


def test_pure_noise_gives_few_false_changes():
    false_series = 0
    for seed in range(40):
        y = np.random.default_rng(seed).standard_normal(500)
        false_series += len(detect_changepoints(y, ci=False).changepoints) > 0
    assert false_series <= 3


def test_autocorrelated_noise_is_not_read_as_steps():
    rng = np.random.default_rng(11)
    e = np.zeros(2000)
    for i in range(1, 2000):
        e[i] = 0.8 * e[i - 1] + rng.standard_normal()
    assert len(detect_changepoints(e, ci=False, penalty="bic").changepoints) > 5  # white-noise model fails
    res = detect_changepoints(e, ci=False)
    assert len(res.changepoints) <= 2
    assert res.info["rho"] > 0.6


def test_confidence_intervals_cover_at_about_nominal_rate():
    covered = n = 0
    widths = []
    for seed in range(120):
        s = steps(400, changepoints=[200], levels=[0.0, 1.2], seed=1000 + seed)
        res = detect_changepoints(s.values, confidence=0.9)
        near = [c for c in res.changepoints if abs(c.index - 200) <= 25]
        if not near:
            continue
        c = near[0]
        n += 1
        covered += c.ci_low <= 200 <= c.ci_high
        widths.append(c.ci_high - c.ci_low)
    # 1.2 SD at n = 400 is found in ~80 % of series since the 2026-11-24 table (4,000 null series per family,
    # log-normal noise among the families; before: ~92 %); the coverage is what this test is about
    assert n >= 90
    assert 0.84 <= covered / n <= 0.98
    assert 2 < np.median(widths) < 60


def test_p_values_small_for_real_changes():
    s = steps(600, changepoints=[300], levels=[0.0, 1.5], seed=2)
    res = detect_changepoints(s.values)
    assert len(res.changepoints) == 1
    assert res.changepoints[0].p_value < 1e-4 and res.changepoints[0].q_value == res.changepoints[0].p_value


def test_min_size_respected_and_times_reported():
    s = steps(300, changepoints=[100, 103, 200], levels=[0, 6, 0, 3], seed=4)
    t = 0.5 + 0.01 * np.arange(300)
    r1 = detect_changepoints(s.values, cost="l2", min_size=1, times=t)
    r5 = detect_changepoints(s.values, cost="l2", min_size=5, times=t)
    # a 3-value segment looks like a run of outliers: the auto cost goes robust and ignores it
    ra = detect_changepoints(s.values, times=t)
    assert ra.cost == "robust" and 100 not in ra.indices and 200 in ra.indices
    assert min(seg.n for seg in r5.segments) >= 5
    assert 100 in r1.indices and 103 in r1.indices
    assert not ({100, 103} <= set(r5.indices.tolist()))
    c = r1.changepoints[-1]
    assert c.time_s == pytest.approx(t[c.index])
    assert c.ci_time_low == pytest.approx(t[c.ci_low])


def test_large_offset_values_are_handled():
    s = steps(5000, changepoints=[1000, 3000], levels=[0, 2, 1], seed=9)
    res = detect_changepoints(1e9 + s.values, ci=False)
    assert np.all(np.abs(res.indices - [1000, 3000]) <= 5)


def test_result_to_dict_is_plain_json():
    s = steps(300, changepoints=[150], levels=[10.0, 0.0], seed=1)
    res = detect_changepoints(s.values)
    d = res.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["changepoints"][0]["index"] == res.changepoints[0].index
    assert d["changepoints"][0]["ratio"] is None or isinstance(d["changepoints"][0]["ratio"], float)

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        else:
            assert x is None or type(x) in (int, float, str, bool)

    walk(d)
    # a level of exactly 0 before the change gives ratio None (not inf)
    r0 = detect_changepoints(np.r_[np.zeros(50), np.ones(50)], cost="l2")
    assert r0.indices.tolist() == [50]
    assert r0.changepoints[0].before == 0.0 and r0.changepoints[0].ratio is None
    assert r0.to_dict()["changepoints"][0]["ratio"] is None


def test_fitted_and_estimator():
    s = steps(400, changepoints=[150, 260], levels=[0, 3, 1], seed=8)
    est = ChangePointDetector(cost="l2", ci=False)
    assert est.fit(s.values[:, None]) is est
    assert np.all(np.abs(est.changepoints_ - [150, 260]) <= 3)
    assert isinstance(est.result_, ChangePointResult)
    f = est.result_.fitted()
    assert f.shape == (400,) and len(np.unique(f)) == 3
    assert est.get_params()["cost"] == "l2"
    labels = est.predict(s.values[:, None])
    assert labels.tolist() == np.repeat([0, 1, 2], np.diff(np.r_[0, est.changepoints_, 400])).tolist()


def test_bad_input_raises_usage_error():
    with pytest.raises(UsageError):
        detect_changepoints([1.0, np.nan, 2.0])
    with pytest.raises(UsageError):
        detect_changepoints(np.ones((3, 3)))
    with pytest.raises(UsageError):
        detect_changepoints(np.ones(10), penalty="aic")
    with pytest.raises(UsageError):
        detect_changepoints(np.ones(10), penalty=-1.0)
    with pytest.raises(UsageError):
        detect_changepoints(np.ones(10), cost="huber")
    with pytest.raises(UsageError):
        detect_changepoints(np.ones(10), min_size=0)
    # tiny input: no change, one segment
    r = detect_changepoints([1.0, 2.0])
    assert r.changepoints == () and len(r.segments) == 1


def test_helpers():
    rng = np.random.default_rng(0)
    g = rng.standard_normal(20000)
    # the short-range noise scale ignores steps (each moves one difference)
    nm = short_range(3 * g + np.repeat([0, 50], 10000))
    assert nm.sigma == pytest.approx(3, rel=0.05) and nm.rho < 0.05
    assert outlier_fraction(g) < 1e-3
    assert 0.005 < outlier_fraction(rng.standard_t(3, 20000)) < 0.03
    assert choose_cost(g).cost == "l2" and choose_cost(g).reason == "light_tails"
    t3 = choose_cost(rng.standard_t(3, 20000))
    assert t3.cost == "robust" and t3.reason == "outliers" and t3.outlier_fraction > t3.threshold
    one = g[:500].copy()
    one[100] += 40  # a single far spike is enough
    assert choose_cost(one).reason == "extreme_outlier"
    e = np.zeros(5000)
    for i in range(1, 5000):
        e[i] = 0.5 * e[i - 1] + rng.standard_normal()
    assert robust_lag1(e) == pytest.approx(0.5, abs=0.08)
    assert short_range(e).rho == pytest.approx(0.5, abs=0.08)


def test_robust_scales_are_tie_aware_and_efficient():
    rng = np.random.default_rng(1)
    g = rng.standard_normal(100000)
    q = np.round(g / 2) * 2  # a clock tick of 2 noise SDs: most differences are 0
    assert clock_tick(q) == 2.0 and clock_tick(g) == 0.0
    assert np.median(np.abs(np.diff(q))) == 0  # the plain MAD would collapse
    assert m_scale(np.diff(q), 2.0) / np.sqrt(2) == pytest.approx(q.std(), rel=0.05)
    assert robust_sd(g) == pytest.approx(1, rel=0.02) and m_scale(g) == pytest.approx(1, rel=0.02)
    # the M-scale keeps the MAD's resistance to spikes
    sp = g.copy()
    sp[::50] += 100
    assert m_scale(sp) < 1.15


# ---------------------------------------------------------------- real data

def test_nile_change_at_aswan_dam():
    d = json.loads((DATA / "tcpd" / "nile.json").read_text())
    ann = json.loads((DATA / "tcpd" / "annotations.json").read_text())["nile"]
    y = np.array(d["series"][0]["raw"], dtype=float)
    z = (y - y.mean()) / y.std(ddof=1)
    res = detect_changepoints(z)
    assert res.indices.tolist() == [28]  # 1899: the first Aswan dam
    c = res.changepoints[0]
    assert c.ci_low <= 28 <= c.ci_high and c.p_value < 0.01
    assert f_measure(ann, res.indices.tolist()) == pytest.approx(1.0)
    assert covering(ann, res.indices.tolist(), y.size) > 0.85


def _ftq(name):
    tr = bandkit.load(DATA / "ftq" / name)
    return tr[0] if isinstance(tr, list) else tr


def test_report_section_on_real_ftq_traces():
    from bandkit.analyze import AnalysisOptions
    from bandkit.changepoints.section import section

    opts = AnalysisOptions()
    tr = _ftq("ftq_f7777_intf100Hz_1ms_0.dat.gz")
    s = section(tr, opts)
    info = s.fields["changepoint_analysis"]
    assert info["values"] == "block_means" and info["block"] == 78
    cps = s.fields["changepoints"]
    assert cps, "the guest's speed moves by 3-5 % for seconds at a time"
    idx = [c["index"] for c in cps]
    assert idx == sorted(idx) and all(0 < i < tr.values.size for i in idx)
    for c in cps:
        assert c["time_s"] == pytest.approx(tr.times[c["index"]])
        assert c["q_value"] <= 0.01 and c["p_value"] >= c["q_value"] and abs(c["ratio"] - 1) >= 0.02
        assert c["ci_low"] <= c["index"] <= c["ci_high"]
        assert c["after"] / c["before"] == pytest.approx(c["ratio"])
    assert info["n_reported"] + info["n_suppressed"] == info["n_detected"]
    assert info["cost_choice"]["reason"] in ("outliers", "extreme_outlier", "light_tails")
    # most of these changes go back and forth between the same levels: one sustained shift makes the finding
    assert 0 < info["n_sustained"] < len(cps) / 3
    assert s.findings and s.findings[0]["kind"] == "level_shift" and s.findings[0]["count"] == info["n_sustained"]
    json.dumps(s.fields, allow_nan=False)
    # both 10 kHz traces switch between two bands (reported by the bands section): significant block-mean
    # changes, but all back to earlier levels, so no level_shift finding (issue 12: the interferer trace had 21)
    for name in ("ftq_f10000_quiet_0.dat.gz", "ftq_f10000_intf100Hz_1ms_0.dat.gz"):
        q = section(_ftq(name), opts)
        assert q.fields["changepoint_analysis"]["n_sustained"] == 0 and not q.findings
        assert all(not c["sustained"] for c in q.fields["changepoints"])
    # stricter options suppress more
    strict = section(tr, AnalysisOptions(params={"changepoints": {"min_relative": 0.04}}))
    assert all(abs(c["ratio"] - 1) >= 0.04 for c in strict.fields["changepoints"])
    assert len(strict.fields["changepoints"]) < len(cps)


def test_sustained_shifts_tell_a_shift_from_band_switching():
    from bandkit.changepoints.section import sustained_shifts

    # two bands alternating, one long visit included: never a new level
    assert sustained_shifts([100, 95, 100, 95, 100], [10, 5, 60, 5, 20], 0.02, 0.1) == [False] * 4
    # a degraded stretch (new level, long) counts at its start, not at its return
    assert sustained_shifts([100, 72, 100], [20, 70, 50], 0.02, 0.1) == [True, False]
    # a short dip to a new level is an episode, not a shift; a final new level that holds is one
    assert sustained_shifts([100, 80, 100, 110], [50, 3, 30, 40], 0.02, 0.1) == [False, False, True]


def test_ftq_degraded_mode_is_found_in_a_synthetic_trace():
    # a real quiet trace with a 4 s, 10 % degraded stretch pasted in
    from bandkit.changepoints.section import analyse_trace

    tr = _ftq("ftq_f10000_quiet_0.dat.gz")
    v = tr.values.copy()
    i0, i1 = 40000, 80000
    v[i0:i1] *= 0.9
    data = tr.samples.assign(value=v)
    t2 = bandkit.Trace(data.reset_index(drop=True), tr.meta)
    res, block, x, xt = analyse_trace(t2)
    got = res.indices * block
    assert len(got) >= 2
    assert np.min(np.abs(got - i0)) <= 2 * block and np.min(np.abs(got - i1)) <= 2 * block


# ---------------------------------------------------------------- text and plot

def test_text_render_and_phrase():
    from bandkit.analyze import AnalysisOptions
    from bandkit.changepoints.section import section
    from bandkit.render.text_changepoints import phrase, render

    s = section(_ftq("ftq_f7777_intf100Hz_1ms_0.dat.gz"), AnalysisOptions())
    lines = render(s)
    assert lines[0].startswith("  step changes:")
    assert all(len(line) <= 100 for line in lines)
    held = [c for c in s.fields["changepoints"] if c["sustained"]]
    back = len(s.fields["changepoints"]) - len(held)
    note = 2 if any(c["p_value"] > 0.01 for c in held) else 0  # "p: ... q: ... which decides"
    assert len(lines) == 2 + (1 if back else 0) + 2 + len(held) + note
    p = phrase(s.findings[0])
    assert "step change" in p and "→" in p and "%" in p


def test_plot_changepoints_returns_axes():
    import matplotlib

    matplotlib.use("Agg")
    from bandkit.plots.changepoints import plot_changepoints

    s = steps(500, changepoints=[250], levels=[0, 2], seed=3)
    res = detect_changepoints(s.values)
    ax = plot_changepoints(s.values, res)
    assert ax.get_xlabel() == "index"
    assert len(ax.lines) >= 1
    ax2 = plot_changepoints(s.values, times=np.arange(500) * 0.1)
    assert ax2.get_xlabel() == "time (s)"


def test_balloon_shrink_20s_after_start_is_found_in_real_trace():
    # hyperalloc-bench: virtio-balloon shrinks the VM 20 s after FTQ starts (quanta of ~0.128 s);
    # the baseline run of the same benchmark does no resizing
    from bandkit.analyze import AnalysisOptions
    from bandkit.changepoints.section import section

    def first(path):
        tr = bandkit.load(DATA / "ftq-2009" / path)
        return tr[0] if isinstance(tr, list) else tr

    s = section(first("virtio-balloon-ftq_t1"), AnalysisOptions())
    cps = s.fields["changepoints"]
    drops = [c for c in cps if c["ratio"] < 0.9]
    assert drops, cps
    q = 2**28 / 2.1e9  # ~0.128 s per quantum (TSC rate of the host, about 2.1 GHz)
    assert abs(drops[0]["index"] * q - 20.0) < 1.5
    assert section(first("baseline-ftq_t1"), AnalysisOptions()).fields["changepoints"] == []


# ---------------------------------------------------------------- scikit-learn estimator

# sklearn's generic checks run in tests/test_estimators.py (expected failures listed there)


def test_estimator_contract_on_univariate_data(tmp_path):
    """The checks sklearn can only run on multi-feature data, re-done on one series."""
    import pickle

    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError

    s = steps(300, changepoints=[120, 200], levels=[0, 2.5, 1], seed=3)
    X = s.values[:, None]
    est = ChangePointDetector()
    with pytest.raises(NotFittedError):
        est.predict(X)
    params = est.get_params()
    assert est.fit(X) is est and est.get_params() == params  # fit returns self, leaves parameters alone
    assert est.n_features_in_ == 1 and est.n_samples_fit_ == 300
    first = est.changepoints_.copy()
    np.testing.assert_array_equal(clone(est).fit(X).changepoints_, first)  # idempotent, clonable
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    Xf = np.asfortranarray(np.c_[s.values])  # F-contiguous, read-only, int and float32 input
    Xf.setflags(write=False)
    np.testing.assert_array_equal(ChangePointDetector().fit(Xf).changepoints_, first)
    ChangePointDetector().fit(X.astype(np.float32))
    ChangePointDetector().fit(np.round(X * 10).astype(np.int64))
    for bad in (np.c_[s.values, s.values], s.values, np.r_[X, [[np.nan]]], X[:1]):
        with pytest.raises(ValueError):
            ChangePointDetector().fit(bad)
    with pytest.raises(ValueError):
        est.predict(X[:100])  # predict labels the fitted series
    # parameters are tunable with sklearn's model selection (score: TCPD F1 against segment labels)
    from sklearn.model_selection import GridSearchCV

    y = np.repeat([0, 1, 2], [120, 80, 100])
    grid = GridSearchCV(ChangePointDetector(ci=False), {"alpha": [1e-6, 0.01]},
                        cv=[(np.arange(300), np.arange(300))])  # one series: fit and score on it
    grid.fit(X, y)
    assert grid.best_score_ == pytest.approx(1.0)


def test_estimator_does_not_load_sklearn_on_import():
    import subprocess
    import sys

    code = ("import sys, numpy as np, bandkit.changepoints as c; c.detect_changepoints(np.arange(50.0)); "
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_run_means_step_near_the_start_is_a_step_not_outliers():
    """The post-mortem's call: detect_changepoints on the log run means. pickle_list (speedpython 2020): runs
    1-4 at x1.7, runs 5-20 at the base level. A running median truncated at the start took the four slow runs
    for outliers (robust cost, and no change at all); the single-value rule sees a step."""
    import math

    from bandkit.bands.api import run_means

    traces = bandkit.load(DATA / "runners" / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz")
    means, _ = run_means(next(t for t in traces if t.meta.name == "pickle_list"))
    res = detect_changepoints(np.log(means), min_size=1)
    assert res.cost == "l2" and res.info["cost_choice"]["reason"] == "light_tails"
    (c,) = res.changepoints
    assert c.index == 4 and c.ci_low <= 4 <= c.ci_high and c.p_value < 0.01
    assert math.exp(c.delta) == pytest.approx(1 / 1.7, rel=0.05)
    # a lone spike still selects the robust cost
    spiky = np.log(means[4:].copy())
    spiky[8] += 0.5
    assert detect_changepoints(spiky, min_size=1).info["cost_choice"]["reason"] == "extreme_outlier"


def test_robust_cost_reports_a_step_where_the_values_change():
    """07370 cpu-service-time-avg (SAP HANA CI history, per-build medians): a spike 6 builds before the
    x1.49 regression pulled the winsorising running median across the step, and the change came out one
    build early; the reported location is refined on the values."""
    from bandkit.history.builds import trace_build_table

    bt = trace_build_table(bandkit.load(DATA / "ci-history" / "07370__cpu-service-time-avg__ms.csv.gz"))
    y = np.log(bt.median)
    res = detect_changepoints(y)
    assert res.cost == "robust"
    big = max(res.changepoints, key=lambda c: abs(c.delta))
    assert big.index == 1407 and y[1406] < y[1407] - 0.3  # the first slow build
