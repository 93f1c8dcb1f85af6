"""Outlier runs must be rare on pure Gaussian noise whatever its sd (issue 12: every verdict kind <= 5 % of null
series): ``classify.gate_outliers`` keeps an outlier run only when a generalized ESD test (Rosner 1983) at
``outlier_alpha`` finds it. Main flagged "outlier runs" on 6-10 % of Gaussian series of 10-50 runs at >= 2 % sd
(benchmarks/outlier_null.py), because ``far`` was a Student-t quantile times a noise scale measured from the same
runs that, in those series, came out at a third to a half of the true sd. And a band resting on the noise scale
inside two groups of values must pass the two-group gate (right-skewed noise: benchmarks/skewed_null.py)."""
from __future__ import annotations

import numpy as np
import pytest

from bandkit.postmortem.classify import Gates, classify, esd_count, esd_lambda, two_groups_apart
from test_step_gate import _ar


def _with_outliers(n: int, sd: float, seed: int, rho: float = 0.0, reps: int = 400) -> int:
    rng = np.random.default_rng(seed)
    return sum(bool(classify(np.exp(sd * (_ar(rng, n, rho) if rho else rng.standard_normal(n)))).outliers)
               for _ in range(reps))


@pytest.mark.parametrize(("n", "sd"), [(10, 0.05), (20, 0.05), (30, 0.02)])
def test_gaussian_noise_of_few_runs_rarely_has_outlier_runs(n, sd):
    """Main: 36 / 26 / 21 of 400 series (9 / 6.5 / 5.3 %); the ESD test at 1 %: a few."""
    assert _with_outliers(n, sd, 12) <= 8


def test_ar1_noise_of_20_runs_rarely_has_outlier_runs():
    """AR(1) 0.3, 5 % sd: main 45 of 400 (11 %)."""
    assert _with_outliers(20, 0.05, 13, rho=0.3) <= 12


@pytest.mark.parametrize("spikes", [1, 2])
def test_real_outlier_runs_are_still_found(spikes):
    """One or two runs x1.3 at 2 % sd (13 sd) in 20 runs, not at the start (a warm-up there): every one an outlier
    run (two of them must not mask each other: the ESD count is the largest step past its critical value)."""
    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(200):
        x = 0.02 * rng.standard_normal(20)
        at = rng.choice(np.arange(2, 20), spikes, replace=False)
        x[at] += np.log(1.3)
        hits += set(at.tolist()) <= set(classify(np.exp(x)).outliers)
    assert hits >= 196


def test_esd_critical_values_are_grubbs_two_sided():
    """The first ESD step is Grubbs' two-sided test: 2.290 (10 values) and 2.709 (20) at 5 %, 2.482 / 3.001 at 1 %
    (the published tables)."""
    assert esd_lambda(10, 0.05) == pytest.approx(2.290, abs=2e-3)
    assert esd_lambda(20, 0.05) == pytest.approx(2.709, abs=2e-3)
    assert esd_lambda(10, 0.01) == pytest.approx(2.482, abs=2e-3)
    assert esd_lambda(20, 0.01) == pytest.approx(3.001, abs=2e-3)


def test_esd_finds_two_outliers_that_mask_each_other():
    r = np.r_[np.linspace(-1.5, 1.5, 18), 9.0, 9.2]
    count, order = esd_count(r, 3, 0.01)
    assert count == 2 and set(order[:2].tolist()) == {18, 19}


def test_a_slow_tail_is_not_two_levels_by_the_two_group_noise_scale():
    """exGaussian noise (1 % Gaussian + exponential tail of mean 3 %), 20 runs: 3 runs at x1.06-1.16 in a
    continuous tail - main "bimodal", judged with the sd inside two groups of values (0.7 %) that the values
    themselves do not hold (two-group t 2.8, 4.4 needed)."""
    v = np.array([1.0505, 1.0396, 1.0038, 1.0588, 1.0024, 1.0243, 1.0015, 0.9853, 1.0027, 1.1097, 1.0655, 1.0007,
                  1.0522, 1.0557, 1.1638, 0.9937, 1.0068, 1.0013, 1.0003, 1.0061])
    assert not two_groups_apart(np.log(v), Gates())
    assert classify(v).verdict not in ("bimodal", "bands")
