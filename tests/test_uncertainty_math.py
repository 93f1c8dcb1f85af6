"""The special functions of bandkit.changepoints.uncertainty (written with :mod:`math` so that the history path
does not import scipy.special) equal scipy's."""
import math

import numpy as np
from scipy import special

from bandkit.changepoints import uncertainty as U


def _points(lo, hi, n, seed):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.uniform(lo, hi, n), np.linspace(lo, hi, 1001)])


def test_kolmogorov_sf_is_scipys_bit_for_bit():
    rng = np.random.default_rng(1)
    xs = np.concatenate([_points(0.0, 3.0, 20000, 2), np.exp(rng.uniform(-6, 4, 5000)),
                         [0.0, -1.0, 0.0406119722037517, 0.041, 0.82, np.nextafter(0.82, 1), 1e-300, 40.0, np.inf]])
    got = np.array([U.kolmogorov_sf(float(x)) for x in xs])
    np.testing.assert_array_equal(got, special.kolmogorov(xs))
    assert math.isnan(U.kolmogorov_sf(math.nan))
    assert got.min() == 0.0 and got.max() == 1.0  # both ends of [0, 1] were reached


def test_erfcx_and_ndtr_match_scipy():
    xs = np.concatenate([_points(0.0, 40.0, 20000, 3), np.exp(np.random.default_rng(4).uniform(-20, 6, 5000))])
    got = np.array([U.erfcx(float(x)) for x in xs])
    np.testing.assert_allclose(got, special.erfcx(xs), rtol=1e-12, atol=0)
    zs = _points(-30.0, 9.0, 20000, 5)
    np.testing.assert_allclose([U.ndtr(float(z)) for z in zs], special.ndtr(zs), rtol=1e-13, atol=0)


def test_argmax_quantile_unchanged():
    """q(0.95) of the location intervals: 11.03 (Bai 1994's table); the closed form's CDF is monotone."""
    assert abs(U.argmax_quantile(0.95) - 11.03) < 0.01
    g = [U.argmax_cdf(x) for x in np.linspace(-50, 50, 401)]
    assert np.all(np.diff(g) >= 0) and abs(U.argmax_cdf(0.0) - 0.5) < 1e-15
