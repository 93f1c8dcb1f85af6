"""fpop's short path (FPOP's own function run on Python lists, bandkit.changepoints.fpop.fpop_lists) gives the
segmentation and optimal cost of the numpy stand-in with its near-tie fallback (what fpop ran before) and of
FPOP's function on numpy scalars, on the inputs where they could part: ties of every kind (equal values,
values on a grid, constants, alternations), n = 2..64, min_size 1..3, penalties from 0 up. The compiled kernel
is compared in tests/test_kernels_python.py."""
import sys

import numpy as np
import pytest

import bandkit.changepoints.fpop  # noqa: F401
from bandkit.changepoints import _numpy_kernels as NK

F = sys.modules["bandkit.changepoints.fpop"]


def _tied_series(rng, count):
    for i in range(count):
        n = int(rng.integers(2, 65))
        kind = i % 8
        if kind == 0:
            y = rng.normal(size=n)
        elif kind == 1:
            y = np.round(rng.normal(size=n) * 2) / 2  # a grid
        elif kind == 2:
            y = np.full(n, float(rng.integers(-3, 4)))  # constant
        elif kind == 3:
            y = rng.integers(0, 2, n).astype(float)  # two values
        elif kind == 4:
            y = np.repeat(rng.normal(0, 3, 4), -(-n // 4))[:n] + np.round(rng.normal(size=n)) * 0.25  # steps
        elif kind == 5:
            y = np.round(rng.standard_t(2, n)) * 1e-3 + 1e6  # quantised, far from zero
        elif kind == 6:
            y = np.tile([0.0, 1.0], n)[:n]  # alternation: many exact ties
        else:
            y = (np.arange(n) % 3).astype(float) * rng.choice([1, -1])
        yield y


@pytest.mark.parametrize("seed", [0, 1])
def test_fpop_on_lists_equals_the_numpy_path_and_fpop_on_numpy_scalars(seed):
    rng = np.random.default_rng(seed)
    checked = exact = 0
    calls = []
    orig = NK._exact

    def counted(*a):
        calls.append(1)
        return orig(*a)

    NK._exact = counted
    try:
        for y in _tied_series(rng, 400):
            n = y.size
            for ms in (1, 2, 3):
                if n < 2 * ms:
                    continue
                for pen in (0.0, 1e-9, 0.5, 3.0, float(np.var(y) * 2 + 0.1), 1e3):
                    a = NK.fpop_l2(y, pen, ms)
                    b = F.fpop_lists(y, pen, ms)
                    c = F._fpop_l2.py_func(y, pen, ms)
                    path = F._backtrack(np.asarray(b[0]), n)
                    np.testing.assert_array_equal(F._backtrack(a[0], n), path)
                    np.testing.assert_array_equal(F._backtrack(c[0], n), path)
                    assert float(a[1]) == b[1] == float(c[1])
                    assert type(b[1]) is float
                    # and fpop itself (short path) returns that path
                    np.testing.assert_array_equal(F.fpop(y, pen, ms), path)
                    checked += 1
    finally:
        NK._exact = orig
    assert checked > 3000 and len(calls) > 100  # (the numpy path met near-ties and settled them by FPOP)


def test_fpop_short_path_is_taken_up_to_lists_max(monkeypatch):
    seen = []
    monkeypatch.setattr(F, "fpop_lists", lambda *a: seen.append(a[0].size) or F._fpop_l2_lists(
        F._Values(a[0].tolist()), a[1], a[2]))
    declined = []
    op = F.op_lists
    monkeypatch.setattr(F, "op_lists", lambda *a: declined.append(len(a[0])))  # (None: FPOP decides)
    y = np.r_[np.zeros(40), np.ones(40)]
    assert F.fpop(y[:F.LISTS_MAX], 1.0).tolist() == [40]
    assert F.fpop(y, 1.0).tolist() == [40]
    assert seen == [F.LISTS_MAX] and declined == [F.LISTS_MAX]
    monkeypatch.setattr(F, "op_lists", op)
    assert F.fpop(y[:F.LISTS_MAX], 1.0).tolist() == [40]
    assert seen == [F.LISTS_MAX]  # (settled by op_lists: no FPOP run)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_op_lists_gives_fpops_path_or_declines(seed):
    """Plain optimal partitioning on lists (fpop's first try up to LISTS_MAX values) returns FPOP's change points,
    or None where a near-tie lies on the path; without that check 424 of 7,026 of these cases (seed 0) part."""
    rng = np.random.default_rng(seed)
    agreed = declined = 0
    for y in _tied_series(rng, 400):
        n = y.size
        for scale in (1.0, 1e-3):
            y2 = y * scale
            for ms in (1, 2, 3):
                if n < 2 * ms:
                    continue
                for pen in (0.0, 1e-9, 0.5, 3.0, float(np.var(y2) * 2 + 0.1), 1e3, 3.0 * np.log(n)):
                    path = F._backtrack(np.asarray(F.fpop_lists(y2, pen, ms)[0]), n).tolist()
                    got = F.op_lists(y2.tolist(), pen, ms)
                    if got is None:
                        declined += 1
                    else:
                        assert got == path, (y2.tolist(), pen, ms)
                        agreed += 1
    assert agreed > 10000 and declined > 500


def test_op_lists_on_run_means_like_a_post_mortems():
    """Log run means of ~20 runs (the post-mortem's input: noise, steps, a few outliers), scaled as classify
    scales them: FPOP's path every time, and no near-tie among them."""
    rng = np.random.default_rng(7)
    declined = 0
    for i in range(1500):
        n = int(rng.integers(4, 65))
        x = np.log(1e-3 * (1 + 0.01 * rng.standard_t(3, n)))
        if i % 3 == 0:
            x[int(rng.integers(1, n)):] += 0.05
        sigma = float(rng.uniform(0.002, 0.03))
        for ms in (1, 2):
            if n < 2 * ms:
                continue
            y = (x - np.median(x)) / sigma
            pen = 3.0 * np.log(n)
            path = F._backtrack(np.asarray(F.fpop_lists(y, pen, ms)[0]), n).tolist()
            got = F.op_lists(y.tolist(), pen, ms)
            declined += got is None
            assert got is None or got == path
    assert declined == 0


def _op_lists_eager(y: list, penalty: float, min_size: int):
    """op_lists as it was before the tie test moved to the optimal path (cmpfast2): argmin and near-tie test
    at every time t."""
    import math
    n = len(y)
    ms = min_size
    S1, vmax = F._centred_prefix(y)
    tie_abs = 1e-13 * n * vmax * vmax + 1e-12
    inf = math.inf
    K = [inf] * (n + 1)
    K[0] = 0.0
    last = [0] * (n + 1)
    tie = [False] * (n + 1)
    cK, cS, cT = [], [], []
    for t in range(ms, n + 1):
        tn = t - ms
        if K[tn] != inf:
            cK.append(K[tn])
            cS.append(S1[tn])
            cT.append(tn)
        S1t = S1[t]
        vals = [k - (d := S1t - s1) * d / (t - tau) for k, s1, tau in zip(cK, cS, cT)]
        best = min(vals)
        j = vals.index(best)
        K[t] = best + penalty
        last[t] = cT[j]
        if len(vals) > 1:
            vals[j] = inf
            sec = min(vals)
            if sec - best <= 1e-12 * (abs(best) + abs(sec)) + tie_abs:
                tie[t] = True
    cps = []
    t = n
    while t > 0:
        if tie[t]:
            return None
        t = last[t]
        if t > 0:
            cps.append(t)
    return cps[::-1]


@pytest.mark.parametrize("seed", [0, 3])
def test_op_lists_equals_the_eager_tie_test(seed):
    """op_lists tests near-ties only at the times of the optimal path (the others were computed and thrown away):
    the same change points, and the same declines (None), as testing every time, on the tied series above."""
    rng = np.random.default_rng(seed)
    declined = 0
    for y in _tied_series(rng, 300):
        for scale in (1.0, 1e-3):
            y2 = (y * scale).tolist()
            for ms in (1, 2, 3):
                if len(y2) < 2 * ms:
                    continue
                for pen in (0.0, 1e-9, 0.5, 3.0, 3.0 * np.log(len(y2))):
                    want = _op_lists_eager(y2, pen, ms)
                    assert F.op_lists(y2, pen, ms) == want, (y2, pen, ms)
                    declined += want is None
    assert declined > 300
