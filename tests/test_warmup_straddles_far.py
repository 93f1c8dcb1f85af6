"""A warm-up whose slow runs straddle the outlier threshold ``far`` is a warm-up (``classify._warmup_runs``, issue
12). 2 runs x1.05 at 1 % noise: when the first is beyond ``far`` it is an outlier run and the second, within it,
joins the later band; the warm-up was then the one outlier run, and a later spike (one more slow outlier run)
outnumbered it: "outliers" (main: 144 of 400 series of 20 runs with a x1.10 spike, benchmarks/warmup_spike.py).
The band's runs among or right after leading outlier runs that are ``min_ratio`` slower than the band are now part
of the warm-up."""
from __future__ import annotations

import numpy as np

from bandkit.postmortem.classify import classify
from test_warmup_and_spike import _verdicts

#: 20 runs (% from the later level): run 1 far (+5.5 %), run 2 within `far` (+4.1 %), run 15 a spike (+11 %).
STRADDLE = np.exp(np.array([5.5, 4.1, 0.4, 0.9, -1.0, -0.2, -0.9, -0.1, -1.4, 0.0, -0.5, -1.4, 0.3, -0.0, 11.0,
                            -0.2, 0.0, 0.7, -0.9, 0.7]) / 100)


def test_one_far_one_near_warmup_run_and_a_spike_is_a_warmup():
    c = classify(STRADDLE)
    assert c.verdict == "warmup"  # (main: outliers (0, 14))
    assert c.warmup == 2
    assert c.outliers == (14,)
    assert c.labels[1] < 0 and (c.labels[2:14] == c.labels[2]).all()  # (run 2 is the warm-up's, not the band's)
    assert abs(c.levels[c.labels[2]] - np.mean(np.log(np.delete(STRADDLE, [0, 1, 14])))) < 1e-3


def test_a_far_later_spike_beside_a_straddling_warmup():
    """x1.10 spike: main warm-up 126 / outliers 61 of 200; branch 164 / 30."""
    v = _verdicts(1.10, seed=12)
    assert v["warmup"] >= 150
    assert v["outliers"] <= 45


def test_without_a_spike_more_warmups_are_found():
    assert _verdicts(None, seed=12)["warmup"] >= 160  # (main 150, branch 172)


def test_a_lone_far_first_run_beside_noise_is_not_stretched():
    """Guard: the runs after a far first run join the warm-up only if min_ratio slower than the band."""
    x = np.exp(np.r_[0.08, 0.01, -0.005, 0.0, 0.004, -0.01, 0.002] * 1.0)
    x = np.r_[x, np.exp(0.003 * np.random.default_rng(4).standard_normal(13))]
    c = classify(x)
    assert c.verdict == "warmup" and c.warmup == 1


def test_gaussian_null_at_5_percent_stays_rare():
    """Guard: 20-run Gaussian series at 5 % sd read a warm-up rarely (main 4, branch 6 of 2,000)."""
    rng = np.random.default_rng(5)
    n = sum(classify(np.exp(0.05 * rng.standard_normal(20))).verdict == "warmup" for _ in range(2000))
    assert n <= 15
