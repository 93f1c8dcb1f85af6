"""The two 1-D scipy.ndimage filters bandkit's FTQ path used, in numpy, giving the same numbers.

Why not scipy.ndimage itself: importing it costs ~0.04 s of CPU on top of the scipy.special that
the spectrum needs anyway (0.2-0.4 s when it comes first), for two filters of a few thousand values.
Both are checked against scipy.ndimage in tests/test_lite_numerics.py.

- :func:`gaussian_filter1d`: ``scipy.ndimage.gaussian_filter1d(x, sigma)`` (order 0, ``truncate=4``,
  ``mode="reflect"``: ``d c b a | a b c d | d c b a``), with the same kernel and the same order of
  operations as scipy's symmetric correlation (``w0·x[i] + Σ_{j=r..1} w_j·(x[i-j] + x[i+j])``), so the
  results are bit-identical on the machines we checked (and within 1e-12 relative wherever a compiler
  would contract scipy's C loop differently).
- :func:`window_rank`: the ``rank``-th smallest (0-based) of the ``size`` values centred on every
  sample, ``mode="nearest"`` (edge values repeated): ``scipy.ndimage.rank_filter(x, rank, size=size,
  mode="nearest")``. A selection returns one of the inputs, so the result is exact.
"""
from __future__ import annotations

import numpy as np

__all__ = ["gaussian_kernel", "gaussian_filter1d", "window_rank"]


def gaussian_kernel(sigma: float, truncate: float = 4.0) -> np.ndarray:
    """scipy.ndimage's order-0 Gaussian kernel: ``2r + 1`` weights, ``r = int(truncate·sigma + 0.5)``."""
    sigma = float(sigma)
    radius = int(truncate * sigma + 0.5)
    x = np.arange(-radius, radius + 1)
    phi = np.exp(-0.5 / (sigma * sigma) * x ** 2)
    return phi / phi.sum()


def gaussian_filter1d(x, sigma: float, truncate: float = 4.0) -> np.ndarray:
    """Gaussian smoothing of a 1-D float array, boundary ``reflect`` (see the module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError("gaussian_filter1d: a 1-D array is needed")
    w = gaussian_kernel(sigma, truncate)
    r = (w.size - 1) // 2
    n = x.size
    if n == 0 or r == 0:
        return x * w[r] if n else x.copy()
    # 'reflect' repeats the edge sample: np.pad's 'symmetric' (several times over when r > n)
    xp = np.pad(x, r, mode="symmetric")
    out = xp[r: r + n] * w[r]
    for j in range(r, 0, -1):
        out += (xp[r - j: r - j + n] + xp[r + j: r + j + n]) * w[r - j]
    return out


def window_rank(x, rank: int, size: int) -> np.ndarray:
    """``rank``-th smallest (0-based) of the ``size`` values centred on each sample (edge values repeated
    beyond the ends; for an even ``size`` the window reaches one further left, as scipy.ndimage's)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or size < 1 or not 0 <= rank < size:
        raise ValueError(f"window_rank: need a 1-D array and 0 <= rank < size, got rank={rank}, size={size}")
    if x.size == 0:
        return x.copy()
    left = size // 2
    xp = np.pad(x, (left, size - 1 - left), mode="edge")
    win = np.lib.stride_tricks.sliding_window_view(xp, size)
    return np.partition(win, rank, axis=1)[:, rank]
