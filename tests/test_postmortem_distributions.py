"""bandkit.postmortem.distributions: the special functions of the runner post-mortem without scipy.special
and scipy.ndimage, against scipy (which the tests may import)."""
import math

import numpy as np
import pytest
from scipy import ndimage, special

from bandkit.postmortem import distributions as D
from bandkit.postmortem.classify import END_WIDTH, local_level, one_level_spread, outlier_sigmas
from tick_reference import detect_tick_plain


def test_erfc_and_ndtr_match_scipy():
    rng = np.random.default_rng(0)
    x = np.r_[rng.uniform(0, 10, 5000), [0.0, 1e-300, 0.5, 1.0, 8.0]]
    ours = np.array([D.erfc(v) for v in x])
    np.testing.assert_allclose(ours, special.erfc(x), rtol=1e-14, atol=0)
    z = rng.normal(0, 3, 5000)
    np.testing.assert_allclose([D.ndtr(v) for v in z], special.ndtr(z), rtol=1e-13, atol=1e-300)
    assert D.ndtr(math.inf) == 1.0 and D.ndtr(-math.inf) == 0.0 and math.isnan(D.ndtr(math.nan))


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.001])
def test_t_isf_matches_stdtrit(alpha):
    """The post-mortem's outlier bound (outlier_sigmas): within 1.5e-12 of scipy for up to 300 runs; for
    thousands of runs within 1e-10, where scipy's own stdtrit strays further from its stdtr than ours."""
    for n in list(range(1, 301)) + [500, 1000, 3000, 10_000, 22_971]:
        p, df = alpha / (2.0 * n), max(3.0, n - 1.0)
        ref = special.stdtrit(df, 1.0 - p)
        got = D.t_isf(p, df)
        assert abs(got - ref) <= (1.5e-12 if n <= 300 else 1e-10) * ref, (n, got, ref)
        assert abs(special.stdtr(df, -got) / p - 1) <= max(1e-9, abs(special.stdtr(df, -ref) / p - 1))
    assert outlier_sigmas(20) == pytest.approx(special.stdtrit(19, 1 - 0.01 / 40), rel=1e-13)
    with pytest.raises(ValueError):
        D.t_isf(0.6, 10)


def test_chi2_isf_matches_chdtri():
    for k in list(range(1, 400)) + [1000, 5000]:
        for alpha in (0.001, 0.01, 0.05, 0.5, 0.9):
            assert D.chi2_isf(alpha, k) == pytest.approx(special.chdtri(k, alpha), rel=1e-12, abs=0), (k, alpha)
    assert one_level_spread(5, 1.0) == pytest.approx(math.sqrt(special.chdtri(4, 0.001) / 5), rel=1e-13)


def test_local_level_equals_the_median_filter_version():
    """local_level by numpy windows is bit-equal to scipy.ndimage.median_filter's (the old code), the last runs'
    level from the last END_WIDTH runs."""
    def old(x, width=7):
        n = x.size
        w = min(width, n)
        rm = ndimage.median_filter(x, size=w, mode="nearest")
        h = w // 2
        if h:
            rm[:h] = np.median(x[:w])
            rm[n - h:] = np.median(x[n - w:])
        e = min(END_WIDTH, n)
        if e < w:  # (the last runs: the median of the last END_WIDTH)
            rm[n - e // 2:] = np.median(x[n - e:])
        return rm

    rng = np.random.default_rng(1)
    for n in list(range(1, 30)) + [100, 1001]:
        x = rng.standard_t(3, n)
        if n > 5:
            x[rng.integers(0, n, n // 5)] = 0.25  # ties
        assert np.array_equal(local_level(x), old(x)), n


def test_noise_median_is_numpys_bit_for_bit():
    """postmortem.noise.median (the post-mortem's ~3,500 medians of short arrays without np.median's
    per-call overhead) returns np.median's value, ties, infinities, signed zeros and NaN included."""
    from bandkit.postmortem.noise import median

    rng = np.random.default_rng(4)
    cases = [np.array([v]) for v in (1.5, -0.0, np.inf, np.nan)]
    cases += [np.array([-0.0, 0.0]), np.array([np.inf, -np.inf]), np.array([np.inf, np.inf, 1.0, 2.0]),
              np.array([1.0, np.nan, 3.0]), np.array([np.nan, 1.0]), np.array([0.0, -0.0, -0.0]),
              np.array([-0.0, 0.0, 1.0, -1.0]), np.array([0.0, -0.0, -0.0, 0.0])]
    for n in list(range(1, 40)) + [63, 64, 65, 66, 101]:  # (sorted copy up to 64 values, partition above)
        for _ in range(30):
            x = rng.standard_t(2, n)
            if rng.random() < 0.3:
                x = np.round(x, 1)  # ties
            cases.append(x)
    for x in cases:
        with np.errstate(invalid="ignore"):  # (inf + -inf warns here, not inside np.median's reduction)
            got, ref = median(x), np.median(x)
        assert (np.isnan(got) and np.isnan(ref)) or (got == ref and np.signbit(got) == np.signbit(ref)), x
        assert type(got) is type(ref)


def test_noise_mean_and_std_are_numpys_bit_for_bit():
    """postmortem.noise.mean / std (float(np.mean(a)), float(np.std(a)) without numpy's per-call overhead)
    give numpy's values bit for bit: pairwise sums of 1 to 300 values (numpy's blocks of 8 and 128), ties,
    large offsets (rounding), signed zeros, infinities and NaN."""
    from bandkit.postmortem.noise import mean, std

    rng = np.random.default_rng(7)
    cases = [np.array([-0.0]), np.array([-0.0, -0.0]), np.array([np.inf, 1.0]), np.array([np.nan, 1.0]),
             np.array([np.inf, -np.inf])]
    for n in list(range(1, 40)) + [127, 128, 129, 257, 300]:
        for _ in range(20):
            x = rng.standard_t(2, n) * 10.0 ** rng.integers(-6, 6) + rng.choice([0.0, 1e8])
            cases += [x, x[::2].copy(), x[1::3]]  # (x[1::3]: a strided view)
    for x in (c for c in cases if c.size):
        with np.errstate(invalid="ignore"):
            pairs = [(mean(x), float(np.mean(x))), (std(x), float(np.std(x)))]
        for got, ref in pairs:
            assert type(got) is float
            assert (np.isnan(got) and np.isnan(ref)) or (got == ref and np.signbit(got) == np.signbit(ref)), x


def test_detect_tick_equals_the_all_numpy_version():
    """robust.detect_tick (its first values tried in plain Python before each grid is tested on all of
    them, numpy's per-call cost paid only for the grids they fit) finds the same tick as testing every
    grid on all values: decimal grids, clock grids and their fractions, offsets, noise, specials."""
    from bandkit.robust import detect_tick

    rng = np.random.default_rng(11)
    found = 0
    for _ in range(6000):
        m = int(rng.integers(1, 40))
        kind = int(rng.integers(0, 7))
        if kind == 0:
            v = rng.random(m)
        elif kind == 1:
            v = np.round(rng.random(m) * 100, int(rng.integers(0, 7)))
        elif kind == 2:
            v = rng.integers(0, 20, m) * 4.9 + rng.choice([0, 1e-9, 1e-5])
        elif kind == 3:
            v = rng.integers(0, 20, m) * (4.9 / rng.integers(1, 12)) + 3.3
        elif kind == 4:
            v = np.round(rng.normal(1e6, 1e3, m), 2) * rng.choice([1, 1e-3, 1e6])
        elif kind == 5:
            v = rng.integers(0, 50, m) * 1e-9 * rng.choice([1, 3, 7.5])
        else:
            v = rng.choice([0.1, 0.2, 0.30000000000000004, np.nan, np.inf, -np.inf, 1e13, -0.0, 5e-7], m)
        got, want = detect_tick(v), detect_tick_plain(v)
        assert (got is None and want is None) or (got == want and type(got) is type(want)), v
        found += got is not None
    assert 1000 < found < 5500


def test_distinct_is_np_unique():
    """robust.distinct (np.unique's sort and comparisons without its checks, which import numpy.ma) gives
    np.unique's array: dtype, order, one NaN, the same signed zero."""
    from bandkit.robust import distinct

    rng = np.random.default_rng(12)
    for _ in range(5000):
        n = int(rng.integers(0, 30))
        kind = int(rng.integers(0, 4))
        a = (rng.integers(-3, 5, n) if kind == 0 else
             rng.choice([0.0, -0.0, 1.0, np.nan, np.inf, -np.inf, 2.5], n) if kind == 1 else
             rng.random(n) if kind == 2 else rng.integers(0, 3, n).astype(np.int8))
        want, got = np.unique(a), distinct(a)
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)
        assert np.array_equal(np.signbit(got), np.signbit(want)), a


def test_noise_quantiles_are_np_quantile():
    """postmortem.noise.quantiles (numpy's linear method in Python floats: robust_sd's central 90 % of
    quantised residuals) gives np.quantile's numbers - equal as floats (a zero's sign may differ: sort
    vs partition) - ties, infinities, q = 0, 0.5, 1 included."""
    from bandkit.postmortem.noise import quantiles

    rng = np.random.default_rng(13)
    for _ in range(5000):
        n = int(rng.integers(2, 120))
        a = rng.standard_t(2, n) * 10.0 ** rng.integers(-8, 8)
        kind = int(rng.integers(0, 4))
        if kind == 1:
            a = np.round(a, int(rng.integers(0, 3)))
        elif kind == 2:
            a[rng.random(n) < 0.3] = rng.choice([np.inf, -np.inf, 0.0, -0.0])
        elif kind == 3:
            a = rng.integers(0, 3, n) * 1e-3
        qs = (0.05, 0.95) if rng.random() < 0.7 else tuple(rng.random(3).tolist()) + (0.0, 1.0, 0.5)
        with np.errstate(invalid="ignore"):
            want = [float(v) for v in np.quantile(a, list(qs))]
        got = quantiles(a, qs)
        assert all(x == y or (np.isnan(x) and np.isnan(y)) for x, y in zip(got, want)), (a, qs)


def test_running_median_equals_the_sliding_window_partition():
    """running_median's windows by one fancy index, partitioned in place: np.partition of the sliding window
    view, value for value (ties, NaN, signed zeros, every odd width up to the length)."""
    from bandkit.postmortem.distributions import running_median

    rng = np.random.default_rng(6)
    for i in range(800):
        n = int(rng.integers(1, 40))
        x = rng.normal(size=n) if i % 3 else rng.choice([0.0, -0.0, 1.0, np.nan, 2.5], n)
        for w in range(1, n + 1, 2):
            want = np.partition(np.lib.stride_tricks.sliding_window_view(x, w), w // 2, axis=1)[:, w // 2]
            got = running_median(x, w)
            assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))
