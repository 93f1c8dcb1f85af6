"""The fast kernels of the change-point detector give exactly the values of the plain ones they replace.

Each fast kernel (sample-bracketed selection, the median-of-9 network, the one-pass prefix sums, the
branch-free spike scan) must return the same floating-point numbers as a straightforward computation, so
that the detector's decisions do not depend on which one ran.
"""
from __future__ import annotations

import numpy as np
import pytest

from bandkit.changepoints import robust as R
from bandkit.changepoints._eliminate import prefix_sums


def _series(kind: str, m: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "gauss":
        return rng.standard_normal(m)
    if kind == "ties":
        return np.round(rng.standard_normal(m) * 2)
    if kind == "sorted":
        return np.sort(rng.standard_normal(m))
    if kind == "periodic":  # a period the sample stride can hit: the bracket may miss, the copy answers
        return np.tile(rng.standard_normal(7), m // 7 + 1)[:m]
    if kind == "cauchy":
        return rng.standard_t(1, m)
    if kind == "zeros":  # mostly one value: the rank falls inside a long run of ties
        return np.where(rng.random(m) < 0.6, 0.0, rng.standard_normal(m))
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["gauss", "ties", "sorted", "periodic", "cauchy", "zeros"])
@pytest.mark.parametrize("m", [1, 2, 5, 4095, 4096, 5001, 65536, 100001])
def test_select_pair_is_the_selection_of_a_copy(kind, m):
    rng = np.random.default_rng(m + len(kind))
    x = _series(kind, m, rng)
    x0 = x.copy()
    for k in sorted({0, m // 2, m - 1, int(rng.integers(0, m))}):
        for c, absdev in ((0.0, False), (0.3, True)):
            v = np.sort(np.abs(x - c) if absdev else x)
            lo, hi = R._select_pair(x, c, absdev, k)
            assert hi == v[k]
            assert (np.isnan(lo) if k == 0 else lo == v[k - 1])
    assert np.array_equal(x, x0)  # the input is not reordered


@pytest.mark.parametrize("m", [3, 4, 4096, 20000, 65537])
def test_median_of_equals_numpy_median_and_robust_sd_the_mad(m):
    rng = np.random.default_rng(m)
    for x in (rng.standard_normal(m), np.round(rng.standard_normal(m) * 3)):
        med = float(np.median(x))
        mad = float(np.median(np.abs(x - med)))
        assert R._median_of(x, 0.0, False) == med
        assert R._median_of(x, med, True) == mad
        if np.mean(x == med) < 0.05:  # continuous: the plain MAD
            assert R.robust_sd(x) == R.MAD_TO_SD * mad
        else:  # whole numbers, >= 5 % tied at the median: the MAD interpolated in its unit cell
            assert abs(R.robust_sd(x) / R.MAD_TO_SD - mad) <= 0.5


def _running_median_plain(y: np.ndarray, width: int) -> np.ndarray:
    h = width // 2
    return np.array([np.median(y[max(0, i - h):i + h + 1]) for i in range(y.size)])


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8, 9, 10, 17, 500])
def test_running_median_of_9_network_and_sliding_window(n):
    rng = np.random.default_rng(n)
    for y in (rng.standard_normal(n), np.round(rng.standard_normal(n))):
        ref = _running_median_plain(y, 9)
        assert np.array_equal(R.running_median(y, 9), ref)
        assert np.array_equal(R._running_median(y, 9), ref)  # the sliding window (other widths) agrees
        assert np.array_equal(R.running_median_residuals(y, 9), y - ref)
        assert np.array_equal(R.running_median(y, 15), _running_median_plain(y, 15))
        if n:
            assert np.array_equal(R.running_median_residuals(y, 9, 3), (y - ref)[::3])


def test_med9_network_every_order_of_ties():
    rng = np.random.default_rng(9)
    for _ in range(3000):
        v = rng.integers(0, 3, 9).astype(float)
        assert R._med9(*v) == np.sort(v)[4]
        w = rng.standard_normal(9)
        assert R._med9(*w) == np.sort(w)[4]


def test_prefix_sums_are_numpy_cumsum_bit_for_bit():
    rng = np.random.default_rng(3)
    z = rng.standard_normal(10007) * 3 + 1e6
    z -= z.mean()
    S, D2 = prefix_sums(z, 18.0)
    assert np.array_equal(S, np.r_[0.0, np.cumsum(z)])
    assert np.array_equal(D2, np.r_[0.0, np.cumsum(np.minimum(np.square(np.diff(z)), 18.0))])


def test_spike_max_branch_free_scan():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(5000)
    a, b = np.diff(x)[:-1], np.diff(x)[1:]
    inner = np.where(a * b < 0, np.minimum(np.abs(a), np.abs(b)), 0.0).max()
    assert R.spike_max(x) == max(inner, abs(x[1] - x[0]), abs(x[-1] - x[-2]))
    x[2500] += 40.0
    assert R.spike_max(x) > 38.0


def test_segment_level_medians_are_the_medians_of_segment_stats():
    rng = np.random.default_rng(6)
    y = np.round(rng.standard_normal(3000) * 4)
    bounds = np.r_[0, np.sort(rng.choice(np.arange(1, 3000), 40, replace=False)), 3000]
    med = R.segment_level_medians(y, bounds)
    assert np.array_equal(med, R.segment_stats(y, bounds)[2])
    assert np.array_equal(med, [np.median(y[a:b]) for a, b in zip(bounds[:-1], bounds[1:])])
