"""Verdicts that don't cry wolf (issue 12): the run-sequence failures seen on real CI histories and
pyperf files, rebuilt as small generated series of the same shape, and a seeded smoke run of the
calibration suites (benchmarks/calibration.py has the full version)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bandkit
from bandkit.analyze import analyze
from bandkit.postmortem import postmortem, rank_suspects
from bandkit.postmortem.noise import detect_tick, within_run_se
from bandkit.synthetic.noise import NoiseModel, null_suite, run_sequence


def _history(tmp_path, values, name="h.csv", runs=None):
    """A CI history as the CSV loader reads it (one row per run unless ``runs`` is given)."""
    df = pd.DataFrame({"value": np.asarray(values, dtype=float)})
    if runs is not None:
        df.insert(0, "run", runs)
    p = tmp_path / name
    df.to_csv(p, index=False)
    return bandkit.load(p)


def _noisy(n, level, rel, seed):
    rng = np.random.default_rng(seed)
    return level * np.exp(rel * rng.standard_normal(n))


# -- the concrete failures of the issue --------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("rel", [0.005, 0.01, 0.03])
def test_four_isolated_slow_runs_are_outliers_not_two_levels(tmp_path, seed, rel):
    """Old main: "bimodal" (2,594 (100 %), 2,980 (0 %)) at 0.5-1 % noise."""
    v = _noisy(6085, 2594.0, rel, seed)
    v[[700, 2100, 3500, 5400]] = 2980.0 * np.exp(0.003 * np.random.default_rng(seed).standard_normal(4))
    pm = postmortem(_history(tmp_path, v))
    assert pm.verdict in ("stable", "outliers")
    assert len(pm.bands) == 1
    if rel <= 0.01:
        assert pm.outlier_runs == (701, 2101, 3501, 5401)


def test_two_brief_visits_of_a_level_are_episodes_not_two_levels(tmp_path):
    """A real SAP history (07145): runs 867-870 and 945-947 at x1.18 gave "2 levels: 287 ms (94 %),
    339 ms (0 %)"; two short visits of a level that holds 0.4 % of the runs are two episodes."""
    v = _noisy(1665, 287.0, 0.02, 11)
    v[866:870] *= 1.18
    v[944:947] *= 1.18
    pm = postmortem(_history(tmp_path, v))
    assert pm.verdict == "episode"
    assert [(e.start_run, e.end_run) for e in pm.episodes] == [(867, 870), (945, 947)]
    assert all(e.ratio == pytest.approx(1.18, rel=0.02) for e in pm.episodes)


@pytest.mark.parametrize("seed", [0, 1])
def test_fourteen_scattered_slow_runs_are_not_bimodal(tmp_path, seed):
    rng = np.random.default_rng(seed)
    v = _noisy(4943, 3.8, 0.04, seed)
    v[rng.choice(4943, 14, replace=False)] *= 1.5
    pm = postmortem(_history(tmp_path, v))
    assert pm.verdict == "outliers" and len(pm.outlier_runs) >= 10


def test_four_far_spikes_leave_a_stable_series_stable(tmp_path):
    v = _noisy(402, 100.0, 0.02, 3)
    v[[60, 170, 250, 330]] *= 3.0
    pm = postmortem(_history(tmp_path, v))
    assert pm.verdict == "outliers" and pm.outlier_runs == (61, 171, 251, 331)


@pytest.mark.parametrize("rel", [0.005, 0.01, 0.03])
def test_regression_with_three_low_spikes_is_a_step(tmp_path, rel):
    """816 -> 1,375 at run 99 with 3 low spikes at one level after it: old main said "3 levels"."""
    v = np.r_[_noisy(98, 816.0, rel, 4), _noisy(300, 1375.0, rel, 5)]
    v[[150, 250, 350]] = 1375.0 * 0.45 * np.exp(0.003 * np.random.default_rng(1).standard_normal(3))
    pm = postmortem(_history(tmp_path, v))
    assert pm.verdict == "step"
    (st,) = pm.steps
    assert st.run == 99 and st.ratio == pytest.approx(1375 / 816, rel=0.02)
    assert st.p_value < 1e-6 and st.ci_low < st.ratio < st.ci_high
    assert set(pm.outlier_runs) == {151, 251, 351}


def test_slow_episode_later_fixed_is_an_episode(tmp_path):
    v = _noisy(6000, 100.0, 0.03, 6)
    v[4152:4605] *= 1.19  # runs 4153-4605
    rep = analyze(_history(tmp_path, v))
    pm = rep.traces[0].result("postmortem")
    assert pm.verdict == "episode"
    (e,) = pm.episodes
    assert (e.start_run, e.end_run) == (4153, 4605)
    assert e.ratio == pytest.approx(1.19, rel=0.01) and e.p_value < 1e-6
    d = rep.to_dict()
    f = next(x for x in d["findings"] if x["kind"] == "episode_runs")
    assert (f["start_run"], f["end_run"]) == (4153, 4605) and f["ratio"] == pytest.approx(1.19, rel=0.01)
    assert d["traces"][0]["episodes"][0]["level"] == pytest.approx(119, rel=0.01)
    assert "episode at runs 4153-4605" in rep.to_text()


def test_whole_millisecond_timings_one_tick_higher_are_stable(tmp_path):
    rng = np.random.default_rng(7)
    v = np.full(9354, 2.0)
    v[rng.choice(9354, 12, replace=False)] = 3.0
    traces = _history(tmp_path, v)
    assert detect_tick(traces.values) == 1.0
    assert postmortem(traces).verdict == "stable"


@pytest.mark.parametrize("seed", range(8))
def test_pyperf_runs_1_to_5_slower_is_a_step_using_the_values_within_runs(tmp_path, seed):
    """Old main: "stable" for seeds 0, 4, 5 and 7."""
    rng = np.random.default_rng(seed)
    level = np.r_[[107.0] * 5, [101.7] * 15] * np.exp(0.003 * rng.standard_normal(20))
    vals = level[:, None] * (1 + 0.01 * rng.standard_normal((20, 3)))  # 3 values per run, 1 % noise
    runs = np.repeat(np.arange(1, 21), 3)
    tr = _history(tmp_path, vals.ravel(), runs=runs)
    assert within_run_se(tr.values, tr.samples["run"].to_numpy()) == pytest.approx(0.01 / np.sqrt(3), rel=0.4)
    pm = postmortem(tr)
    assert pm.verdict == "step" and [s.run for s in pm.steps] == [6]
    assert pm.steps[0].ratio == pytest.approx(101.7 / 107.0, rel=0.01)


def test_one_affected_run_never_makes_a_suspect():
    rng = np.random.default_rng(0)
    n = 20
    aff = np.zeros(n, dtype=bool)
    aff[7] = True
    md = pd.DataFrame({"k": rng.standard_normal(n), "host": [f"h{i}" for i in rng.integers(0, 4, n)]})
    md.loc[7, "k"] = 9.0  # separates 1/1 vs 0/19: separation 1.00, no evidence
    assert rank_suspects(md, aff) == []


def test_suspects_need_significance_over_every_key_tried():
    rng = np.random.default_rng(1)
    n = 40
    aff = np.zeros(n, dtype=bool)
    aff[[3, 11, 25]] = True
    noise_keys = pd.DataFrame({f"k{i}": rng.standard_normal(n) for i in range(30)})
    sus = rank_suspects(noise_keys, aff)
    assert sus == [] or all(s.evidence["p_adjusted"] < 0.05 for s in sus)
    marked = noise_keys.assign(temp=np.where(aff, 80.0, 50.0) + rng.standard_normal(n))
    (top, *_) = rank_suspects(marked, aff)
    assert top.metadata == "temp" and top.evidence["p_adjusted"] < 0.05 and top.evidence["tests"] == 3 * 31


def test_a_smooth_column_is_no_suspect_of_a_warmup_block():
    """A 4-run warm-up of 30 runs beside a 1-minute load average (AR(1) 0.8): the permutation null
    exchanges runs one by one, so the smooth column "separated" the block in 30 of these 100 seeds
    (as in 28 % of the calibration suite's warm-ups). Judged in units of its AR(1) spread (variance
    inflation), it is named at about the nominal rate (4); the marker that jumps with the
    warm-up stays first."""
    named = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        n = 30
        e = rng.standard_normal(n)
        x = np.empty(n)
        x[0] = e[0]
        for i in range(1, n):
            x[i] = 0.8 * x[i - 1] + 0.6 * e[i]
        aff = np.zeros(n, dtype=bool)
        aff[:4] = True
        md = pd.DataFrame({"cpu_temp_c": 55 + rng.standard_normal(n) + 12 * aff,
                           "load_avg_1min": np.round(0.5 + 0.2 * x, 2)})
        sus = rank_suspects(md, aff)
        assert sus[0].metadata == "cpu_temp_c" and sus[0].evidence["variance_inflation"] == 1.0
        load = [s for s in sus if s.metadata == "load_avg_1min"]
        named += bool(load)
    assert named <= 8  # (before: 30 of these 100; now 4)


def test_ranks_equal_scipy():
    from scipy import stats

    from bandkit.postmortem.suspects import _ranks

    rng = np.random.default_rng(2)
    for _ in range(20):
        v = np.round(rng.standard_normal(60), 1)
        np.testing.assert_allclose(_ranks(v), stats.rankdata(v))


# -- seeded smoke run of the calibration suites -------------------------------------------------
def _runner_trace(seq, name):
    from bandkit.loaders.runner_common import build_runner_trace
    from bandkit.loaders.source import Source

    runs = [(seq.values[r].tolist(), {k: v[r] for k, v in seq.metadata.items()}) for r in range(seq.n_runs)]
    return build_runner_trace(Source(name=name), "csv", name, runs, value_unit="ms")


def test_null_suite_smoke_no_false_steps_bands_or_suspects():
    """60 stationary sequences (20-2,000 runs, t3 tails, AR(1), 1/f wander, spikes, ticks): the
    verdict kinds that claim a change must stay silent (fixed seed; the benchmark measures rates)."""
    verdicts = []
    for k, seq in enumerate(null_suite(60, seed=5, max_runs=2000)):
        pm = postmortem(_runner_trace(seq, f"null{k}"))
        verdicts.append(pm.verdict)
        assert not pm.suspects, (k, seq.noise.describe())
    assert not {"step", "episode", "bimodal", "bands"} & set(verdicts), verdicts
    assert verdicts.count("trend") <= 1


def test_power_suite_smoke_steps_found_at_their_run():
    hits = 0
    for k in range(20):
        rng = np.random.default_rng([9, k])
        n = int(rng.integers(20, 400))
        seq = run_sequence("step", n_runs=n, values_per_run=3, noise=NoiseModel(run_sd=0.01, tails="t3", ar1=0.3),
                           ratio=float(rng.choice([0.9, 1.1, 1.25])), at=int(rng.integers(max(3, n // 10), n - n // 10)),
                           seed=k)
        pm = postmortem(_runner_trace(seq, f"step{k}"))
        hits += pm.verdict == "step" and any(abs(s.run - 1 - seq.truth["at"]) <= 1 for s in pm.steps)
    assert hits >= 19


def _series_trace(v):
    from bandkit.trace import Trace, TraceMeta

    df = pd.DataFrame({"time": np.arange(v.size, dtype=np.float64), "value": v})
    return Trace(df, TraceMeta(path="s", format="synthetic", kind="series", value_unit="ms"))


def test_clock_tick_grid_is_not_bands_but_levels_two_ticks_apart_are():
    """Bands section, quantisation gate: whole-tick readings of one level (sd ~ 1 tick) made '3-4
    bands' one tick apart on old main; two true levels 2 ticks apart stay two bands."""
    rng = np.random.default_rng(4)
    grid = np.round(100 + 2.0 * rng.standard_normal(1500) / 2) * 2  # tick 2, sd 1 tick
    f = [x for x in analyze(_series_trace(grid)).to_dict()["findings"] if x["kind"] == "band_levels"]
    assert not f
    lv = np.where((np.arange(1200) // 60) % 3 == 0, 90.0, 100.0)  # dwell 60, a third at 90
    for sd in (0.004, 0.015):  # values 90 / 100 only; or 90, 95, 100, 105 (tick 5)
        two = np.round((lv * np.exp(sd * rng.standard_normal(1200))) / 5) * 5
        (f,) = [x for x in analyze(_series_trace(two)).to_dict()["findings"] if x["kind"] == "band_levels"]
        assert f["n_bands"] == 2 and sorted(round(x) for x in f["levels"]) == [90, 100]


# -- two levels whose minority is scattered run by run; a step on a coarse clock tick -------------
def _scattered(n, k, rng):
    """``k`` run indices of ``n``, no two adjacent (a minority level visited one run at a time)."""
    while True:
        idx = np.sort(rng.choice(np.arange(1, n - 1), k, replace=False))
        if np.all(np.diff(idx) > 1):
            return idx


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("n", "k", "ratio", "rel"), [(24, 3, 1.33, 0.01), (22, 5, 1.2, 0.02), (60, 8, 0.8, 0.02)])
def test_scattered_minority_level_with_a_share_is_two_levels(tmp_path, seed, n, k, ratio, rel):
    """A second level on >= 10 % of the runs, visited one run at a time, far from the first and as
    tight as the noise: two levels (old main: "outliers", its support gate wanted 5 runs in a
    common cluster within 1.5 sd, cut at 2 sd gaps - 3 of 24 runs, or 5 spread over 1.6 sd, failed)."""
    rng = np.random.default_rng(seed)
    v = _noisy(n, 100.0, rel, seed + 50)
    v[_scattered(n, k, rng)] *= ratio
    pm = postmortem(_history(tmp_path, v))
    assert pm.verdict == "bimodal"
    assert len(pm.bands) == 2 and not pm.outlier_runs


@pytest.mark.parametrize("seed", range(6))
def test_scattered_spikes_of_many_sizes_stay_outliers(tmp_path, seed):
    """The other side of that gate: 3 far runs of 24 whose sizes differ (x1.3, x1.8, x2.6: spikes,
    spread far wider than the 1 % noise) are outliers, not a level."""
    rng = np.random.default_rng(seed)
    v = _noisy(24, 100.0, 0.01, seed + 60)
    idx = _scattered(24, 3, rng)
    v[idx] *= rng.permutation([1.3, 1.8, 2.6])
    pm = postmortem(_history(tmp_path, v))
    assert pm.verdict == "outliers" and set(pm.outlier_runs) == set(idx + 1)


@pytest.mark.parametrize("seed", range(4))
def test_step_on_a_coarse_clock_tick_is_a_step(tmp_path, seed):
    """Whole-10 timings of a ~100 -> ~66 step (x0.66 at run 25 of 57, 4.6 % noise): most neighbours
    are equal, the MAD of their differences is 0 and the old lag-1 estimate read rho = 0.9 (a
    x4.4 long-run sd), so the step failed its test and the verdict was "outliers"."""
    rng = np.random.default_rng(seed)
    level = np.r_[np.full(24, 97.0), np.full(33, 64.0)]
    v = 10.0 * np.round(level * np.exp(0.046 * rng.standard_normal(57)) / 10.0)
    pm = postmortem(_history(tmp_path, v))
    assert pm.verdict == "step"
    (st,) = pm.steps
    assert st.run == 25 and st.p_value < 1e-6
