"""Regression tests of the change-point detector's null behaviour (issue 12, open bars): each reproduces one
observed failure on seeded generated data and fails on the detector before the fix."""
from __future__ import annotations

import numpy as np
import pytest

from bandkit.changepoints import detect_changepoints
from bandkit.changepoints import robust as cr


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_noise_scale_does_not_collapse_on_log_quantised_timings(seed):
    # whole-unit timings around 30 with 1 % noise, in log units: ~85 % of the first differences are exactly 0
    # and the others log(k'/k), on no common grid; the Huber scale of the differences was 0 and the detector's
    # scale fell to ~0.55 of the noise SD
    rng = np.random.default_rng(seed)
    y = np.log(np.round(30.0 * np.exp(0.01 * rng.standard_normal(500))))
    assert np.mean(np.diff(y) == 0) > 0.7
    true_sd = float(np.std(y))
    d = np.diff(y)
    assert cr.m_scale(d) / np.sqrt(2.0) == pytest.approx(true_sd, rel=0.2)
    assert cr.robust_sd(d) / np.sqrt(2.0) == pytest.approx(true_sd, rel=0.25)
    res = detect_changepoints(y, ci=False)
    assert res.noise_scale >= 0.8 * true_sd  # (floored at half the grid step on such coarse ticks: see below)


def test_tie_aware_scale_leaves_continuous_data_alone():
    rng = np.random.default_rng(3)
    d = rng.standard_normal(2000)
    d[:50] = 0.0  # 2.5 % exact zeros: below the 5 % tie rule, the plain MAD
    assert cr.robust_sd(d) == pytest.approx(cr.MAD_TO_SD * np.median(np.abs(d - np.median(d))), rel=1e-9)


def test_an_excursion_is_one_piece_of_evidence_not_two_fdr_ranks():
    # a lone bump of 12 values in white noise: its two edges were two BH ranks (q = p / 2), so an excursion with
    # p between alpha and 2 alpha was reported (null false alarms above 1 % on AR, 1/f and log-normal noise)
    rng = np.random.default_rng(11)
    e = rng.standard_normal(1000)
    found = None
    for h in np.arange(1.3, 2.4, 0.02):
        y = e.copy()
        y[500:512] += h
        res = detect_changepoints(y, ci=False, alpha=1.0)
        edges = [c for c in res.candidates if c.index in (500, 512)]
        if len(edges) == 2 and 0.011 < min(c.p_value for c in edges) < 0.02:
            found = (y, edges)
            break
    assert found is not None, "no bump height gives p in (0.011, 0.02)"
    y, edges = found
    p = min(c.p_value for c in edges)
    assert all(c.q_value == pytest.approx(p, rel=1e-9) for c in edges)
    assert detect_changepoints(y, ci=False).changepoints == ()


def test_a_step_after_a_two_value_excursion_to_its_level_is_still_a_sustained_shift():
    # calibration power suite, series of 1,840 runs: a 9.7 % step at run 1577 was detected (changes at 1198,
    # 1200 and 1577) but made no level_shift finding, because the 2-value excursion at 1198 had visited the
    # new level "before"
    from bandkit.changepoints.section import sustained_shifts

    assert sustained_shifts([1.0, 1.1, 1.0, 1.097], [1198, 2, 377, 263], 0.02, 0.1) == [False, False, True]
    # band switching between levels held for several values is still no sustained shift
    assert sustained_shifts([1.0, 1.1, 1.0, 1.1], [1198, 3, 377, 263], 0.02, 0.1) == [False, False, False]


@pytest.mark.parametrize("log", [False, True])
def test_coarse_quantisation_two_values_one_tick_up_are_no_change(log):
    # whole-unit timings around 30 with 1 % noise: ~92 % of the values are 30, the others 29 or 31 (a tick of
    # 3.3 noise SDs); two adjacent 31s were two changes at p = 0.003 (also in log units, where the ties are on
    # no grid and the scale had collapsed). A one-tick shift held for half the series is still found.
    found = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        q = np.round(30.0 * np.exp(0.01 * rng.standard_normal(500)))
        f = np.log if log else (lambda v: v)
        found += len(detect_changepoints(f(q), ci=False).changepoints)
        q[250:] += 1.0
        (c,) = detect_changepoints(f(q), ci=False).changepoints
        assert abs(c.index - 250) <= 3
    assert found == 0


def test_step_table_shows_q_next_to_p():
    """A change is reported on its FDR q; on a series with many changes a later one can pass at a large
    family-wise p (0.62 with q 0.008 on a 1e5 signal with ~100 steps): the table shows both."""
    from types import SimpleNamespace

    from bandkit.render.text_changepoints import render

    cp = {"index": 500, "time_s": None, "ci_low": 490, "ci_high": 510, "before": 10.0, "after": 11.0,
          "ratio": 1.1, "p_value": 0.62, "q_value": 0.0076, "ci_level": 0.95, "sustained": True}
    sec = SimpleNamespace(fields={"changepoint_analysis": {"alpha": 0.01, "n_points": 1000, "values": "values",
                                                           "cost": "l2", "penalty_rule": "auto", "n_detected": 1},
                                  "changepoints": [cp]})
    lines = render(sec)
    head = next(ln for ln in lines if "interval" in ln)
    assert head.split()[-2:] == ["p", "q"]
    assert lines[-3].split()[-2:] == ["0.6", "0.008"]
    # p above alpha next to a reported change: the table says which of the two decides
    assert lines[-2].strip().startswith("p: chance that noise alone") and "which decides (reported when q ≤ 0.01)" in lines[-1]
    assert all(len(ln) <= 100 for ln in lines)
    cp["p_value"] = 0.004
    assert render(sec)[-1].split()[-2:] == ["0.004", "0.008"]  # every p under alpha: no note


def test_a_large_step_in_a_short_series_is_not_read_as_autocorrelation():
    # 20 values, a 20-SD step in the middle: the differences across the step entered the lag-1 / lag-2 noise
    # scales (one of 19 and two of 18), rho came out ~0.3-0.6 (median 0.31) and the long-run scale with it:
    # 5 of the 77 such series on the AR(1) branch missed the step. The differences across the strongest split
    # are left out of the variogram now. (The 23 whose full variogram sits at the unit-root cap keep that
    # branch, the guard for drift and random walks, and its scale: 6 of them are still missed.)
    from bandkit.changepoints import noise

    rng = np.random.default_rng(1)
    hits = ar1 = ar1_hits = 0
    rhos = []
    for _ in range(100):
        y = 100.0 + rng.standard_normal(20)
        y[10:] += 20.0
        assert noise.best_split(y) == 10
        res = detect_changepoints(y, ci=False)
        hit = bool(np.any(np.abs(res.indices - 10) <= 3))
        hits += hit
        if res.info["noise"]["model"] in ("ar1", "segments"):  # "segments": the short-series unit (noise.py)
            ar1 += 1
            ar1_hits += hit
        rhos.append(res.info["rho"])
    assert ar1 >= 70 and ar1_hits == ar1  # was 72 of 77
    assert hits >= 93  # was 89
    assert np.median(rhos) < 0.2  # was 0.31


def _plain_bic(fits, n):
    """noise.segments_choice without the drift guard (the line and the random-walk level): the rejected unit."""
    import math

    from bandkit.changepoints import noise

    ln = math.log(n)
    crit = {k: n * math.log(max(fits[k][0], 1e-300) / n) + (k + 1 + noise.LOCATION_BIC * k) * ln
            for k in (0, 1, 2) if k in fits}
    return min(crit, key=crit.get)


@pytest.mark.parametrize("seed", [0, 5, 13])
def test_a_5_percent_step_in_20_values_is_found(seed):
    # issue 12's bar: steps >= 5 % at >= 20 values. 1 % Gaussian noise, a 5 % (5-SD) step after 10 of 20 values:
    # main missed these three (its variogram rho read the series as autocorrelated or sent it to the unit-root
    # branch: 44 of 60 seeds found); the unit of the best 0/1/2-change segmentation finds them (57 of 60).
    rng = np.random.default_rng(seed)
    y = 100.0 * (1.0 + 0.01 * rng.standard_normal(20))
    y[10:] *= 1.05
    res = detect_changepoints(y, ci=False)
    assert res.info["noise"]["model"] == "segments"
    assert res.indices.size == 1 and abs(int(res.indices[0]) - 10) <= 1
    assert res.changepoints[0].p_value < 0.01


def _ar05(rng, n):
    """AR(1) 0.5 noise of ``n`` values, unit marginal SD (started at 0), drawn from ``rng``."""
    w = rng.standard_normal(n)
    e = np.zeros(n)
    for i in range(n):
        e[i] = (0.5 * e[i - 1] if i else 0.0) + w[i] * np.sqrt(0.75)
    return e


@pytest.mark.parametrize("seed", [14, 114, 131])
def test_a_5_percent_step_in_20_values_of_ar_noise_is_found(seed):
    # issue 12's bar at 20 values, AR(1) 0.5 noise (1 %), a 5 % step after 10 values. The short-series unit took
    # the long-run factor of its residuals' r1, which on 20 values is noise (r1 0.15-0.5 here, 0 in the null
    # series that alarm): these three were missed (180 of seeds 0-199 found). The unit ignores r1 at 20 values
    # now (noise.r1_weight; the table absorbs AR up to 0.5): 190 of 200 found, none lost.
    from bandkit.changepoints import noise

    rng = np.random.default_rng(seed)
    y = 100.0 * (1.0 + 0.01 * _ar05(rng, 20))
    y[10:] *= 1.05
    res = detect_changepoints(y, ci=False)
    assert res.info["noise"]["model"] == "segments" and noise.r1_weight(20) == 0.0
    assert res.indices.size == 1 and abs(int(res.indices[0]) - 10) <= 1
    assert res.changepoints[0].p_value < 0.01


@pytest.mark.parametrize("seed", [331, 1220, 1305])
def test_t3_ar_noise_of_20_values_stays_step_free(seed):
    # t3 + AR(1) 0.5 noise, 20 values, no change: main reported 1-2 changes on each (45 of seeds 0-2999, 1.5 %;
    # its 20-value row was calibrated on 4,000 series per family and let 1.3 % of this family through). The row
    # is recalibrated on 16,000 (benchmarks/RESULTS_changepoints.md section 10).
    rng = np.random.default_rng(seed)
    w = rng.standard_t(3, 20) / np.sqrt(3.0)
    e = np.zeros(20)
    for i in range(20):
        e[i] = (0.5 * e[i - 1] if i else 0.0) + w[i] * np.sqrt(0.75)
    res = detect_changepoints(100.0 * (1.0 + 0.01 * e), ci=False)
    assert res.indices.size == 0


@pytest.mark.parametrize("kind,seed", [("drift", 13), ("drift", 36), ("drift", 40), ("walk", 5), ("walk", 10),
                                        ("walk", 20)])
def test_a_drift_or_a_random_walk_in_30_values_stays_step_free(kind, seed, monkeypatch):
    # 30 values whose level moves without a step: AR(1) 0.5 noise (1 %) plus a 3-SD linear drift, or a random-walk
    # level (increments of 3 SDs). Main reports no change; the pooled unit of the best 1-2 changes without the
    # drift guard reports one on each (two steps fit a drift or a walk well enough to shrink the unit). The guard
    # (a line, or a random-walk level plus noise, explains the series about as well) keeps main's noise model.
    from bandkit.changepoints import noise

    rng = np.random.default_rng(seed)
    if kind == "drift":
        e = np.zeros(30)
        w = rng.standard_normal(30)
        for i in range(30):
            e[i] = (0.5 * e[i - 1] if i else 0.0) + w[i] * np.sqrt(0.75)
        y = 100.0 * np.exp(0.01 * (3.0 * np.arange(30) / 29 + e))
    else:
        lvl = np.cumsum(3.0 * rng.standard_normal(30))
        y = 100.0 * np.exp(0.01 * (lvl + rng.standard_normal(30)))
    res = detect_changepoints(y, ci=False)
    assert res.indices.size == 0
    assert res.info["noise"]["model"] != "segments"
    monkeypatch.setattr(noise, "segments_choice", _plain_bic)
    assert detect_changepoints(y, ci=False).indices.size > 0  # what the guard prevents
