"""The plain formulation of ``bandkit.robust.detect_tick`` that the tests check its shortcuts against."""
import numpy as np


def detect_tick_plain(values, max_decimals=6, max_divisor=10):
    """bandkit.robust.detect_tick written plainly, every grid tested on all the values with numpy (no values tried
    in Python first, no shortcuts): the reference its faster formulation is tested against."""
    v = np.unique(np.asarray(values, dtype=np.float64))
    v = v[np.isfinite(v)]
    if v.size < 2 or np.max(np.abs(v)) > 1e12:
        return None
    for d in range(max_decimals + 1):
        s = v * 10.0 ** d
        r = np.round(s)
        if np.all(np.abs(s - r) <= 1e-6 * np.maximum(1.0, np.abs(s))):
            g = int(np.gcd.reduce(np.diff(r).astype(np.int64)))
            if v.size == 2:  # (two distinct values: the unit they are written in)
                return 1.0 / 10.0 ** d
            return g / 10.0 ** d if g > 0 else None
    gaps = np.diff(v)
    d0 = float(np.min(gaps))
    for k in range(1, max_divisor + 1):
        q = gaps / (d0 / k)
        if np.all(np.abs(q - np.round(q)) <= 1e-6 * np.maximum(1.0, q)):
            return d0 / k
    return None
