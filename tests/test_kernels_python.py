"""The change-point kernels give the same results without numba (Python functions and the numpy stand-ins of
bandkit.changepoints._numpy_kernels) as compiled (bandkit._numba); the history report's imports are guarded in
tests/test_lite_numerics.py."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from bandkit import _numba
from bandkit.changepoints import fpop as _fpop  # noqa: F401  (declares its kernels)
from bandkit.changepoints import robust as _robust  # noqa: F401
from bandkit.changepoints import _eliminate  # noqa: F401
from bandkit.changepoints.fpop import _backtrack, fpop_lists


def _pair(name):
    """(function run without numba, compiled dispatcher) of the kernel ``module.name``."""
    _numba.use_compiled()
    for k in _numba._KERNELS:
        if f"{k.__module__}.{k.__name__}" == name:
            return k.python(), k.dispatcher
    raise AssertionError(f"no kernel {name}")


def _series(seed):
    """Short series of every kind the history path meets: steps, spikes, heavy tails, values on a clock grid
    (many ties), constants."""
    rng = np.random.default_rng(seed)
    for i in range(120):
        n = int(rng.integers(1, 400))
        y = rng.standard_t(3, n) if i % 4 == 0 else rng.normal(size=n)
        y = y + np.repeat(rng.normal(0, 3, 4), -(-n // 4))[:n]
        if i % 3 == 0:
            y = np.round(y * 2) / 2  # a grid: ties
        if i % 7 == 0:
            y = np.full(n, 2.5)
        if i % 5 == 1 and n > 3:
            y[rng.integers(0, n, 3)] += 50.0
        yield y + (1000.0 if i % 2 else 0.0)


TWINNED = sorted(_numba.TWINS)


@pytest.mark.parametrize("name", TWINNED)
def test_numpy_stand_ins_equal_the_compiled_kernels(name):
    py, jit = _pair(name)
    short = name.rsplit(".", 1)[1]
    checked = 0
    for y in _series(hash(short) % 1000):
        n = y.size
        if short == "_fpop_l2":
            for ms in (1, 2, 5):
                if n >= 2 * ms:
                    pen = float(np.var(y) * 3 + 0.5)
                    a, b = py(y, pen, ms), jit(y, pen, ms)
                    # the segmentation (the path through ``last``) and the optimal cost, bit for bit; ``last``
                    # itself may differ where two last changes tie off the path
                    np.testing.assert_array_equal(_backtrack(a[0], n), _backtrack(b[0], n))
                    assert a[1] == b[1]
                    # FPOP's own function on Python lists (fpop's short path): the same, ``last`` included
                    c = fpop_lists(y, pen, ms)
                    assert c[1] == b[1] and c[2] == b[2]
                    np.testing.assert_array_equal(np.asarray(c[0]), b[0])
                    checked += 1
            continue
        if short == "_running_median":
            for w in (3, 9, 15):
                np.testing.assert_array_equal(py(y, w), jit(y, w))
                checked += 1
        elif short in ("_select",):
            for k in {0, n // 2, n - 1}:
                a, b = y.copy(), y.copy()
                assert py(a, k) == jit(b, k)
                assert np.all(a[:k] <= a[k]) and np.all(a[k:] >= a[k])
                checked += 1
        elif short == "_select_pair":
            for k in {0, n // 2, n - 1}:
                for c, absdev in ((0.0, False), (float(np.median(y)), True)):
                    a, b = py(y, c, absdev, k), jit(y, c, absdev, k)
                    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
                    checked += 1
        elif short == "_running_median9":
            for resid in (False, True):
                np.testing.assert_array_equal(py(y, resid), jit(y, resid))
                checked += 1
        elif short == "_residuals_at":
            for width, stride in ((9, 1), (9, 7), (5, 3), (15, 2)):
                np.testing.assert_array_equal(py(y, width, stride), jit(y, width, stride))
                checked += 1
        elif short == "prefix_sums":
            for cap in (np.inf, 1.0, 0.0):
                for a, b in zip(py(y, cap), jit(y, cap)):
                    np.testing.assert_array_equal(a, b)
                checked += 1
        elif short == "_median_inplace":
            assert py(y.copy()) == jit(y.copy()) or n == 0
            checked += 1
        elif short in ("_robust_sd", "_m_scale"):
            for tick in (0.0, 0.5, 0.25):
                a, b = py(y, tick), jit(y, tick)
                np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
                checked += 1
        elif short == "_lag_diffs":
            for lag, stride in ((1, 1), (2, 3), (5, 1)):
                np.testing.assert_array_equal(py(y, lag, stride), jit(y, lag, stride))
                checked += 1
        elif short == "_spike_max":
            assert py(y) == jit(y)
            checked += 1
        elif short == "_segment_stats":
            bounds = np.unique(np.r_[0, np.sort(np.random.default_rng(n).integers(0, n + 1, 4)), n]).astype(np.int64)
            for a, b in zip(py(y, bounds), jit(y, bounds)):
                np.testing.assert_array_equal(a, b)
            checked += 1
        else:
            raise AssertionError(f"no check written for {name}")
    assert checked >= 100


SCRIPT = r"""
import json, sys
import numpy as np
from bandkit.changepoints import detect_changepoints
from bandkit.history import analyse_values
rng = np.random.default_rng(5)
out = []
for i in range(60):
    n = int(rng.integers(8, 3000))
    y = np.repeat(rng.normal(0, 2, 6), -(-n // 6))[:n] + (rng.standard_t(3, n) if i % 2 else rng.normal(size=n))
    if i % 3 == 0:
        y = np.round(y * 4) / 4
    if i % 5 == 0:
        y[rng.integers(0, n, 4)] += 30
    y = y + 100.0
    out.append(detect_changepoints(y).to_dict())
    out.append(detect_changepoints(y, cost="l2", min_size=3).to_dict())
    builds = np.repeat(np.arange(n // 3 + 1), 3)[:n]
    out.append(analyse_values(np.exp(y / 100.0), builds=builds).to_dict())
print(json.dumps(out, sort_keys=True, default=str))
print(sorted(m for m in ("numba", "scipy", "llvmlite") if m in sys.modules))
"""


def _python(code: str, env=None) -> str:
    """stdout of ``code`` run by a fresh interpreter (kernels start uncompiled there)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout


def _run(mode):
    out = _python(SCRIPT, {**os.environ, "BANDKIT_KERNELS": mode})
    results, imported = out.strip().split("\n")
    return results, imported


def test_detect_changepoints_and_histories_are_the_same_with_and_without_numba():
    """The whole engine, run in a process that never imports numba and in one that compiles everything."""
    py, py_imported = _run("python")
    jit, _ = _run("compiled")
    assert py_imported == "[]"  # neither numba nor scipy was imported
    assert json.loads(py) == json.loads(jit)
    assert py == jit  # byte for byte


def test_a_long_series_brings_numba_in_and_kernels_stay_callable():
    """Past the numpy path's sizes (made small here: 8,192 values) numba is brought in."""
    code = ("import sys, numpy as np\n"
            "from bandkit import _numba\n"
            "_numba.PYTHON_MAX = _numba.PYTHON_COLD_MAX = 8192\n"
            "from bandkit.changepoints import detect_changepoints, robust\n"
            "y = np.r_[np.zeros(6000), np.ones(6000)] + np.random.default_rng(0).normal(0, 0.3, 12000)\n"
            "r = detect_changepoints(y)\n"
            "print([c.index for c in r.changepoints], 'numba' in sys.modules, _numba.compiled_in_use(),"
            " type(robust._select).__name__)\n")
    out = _python(code)
    assert out.split() == ["[6000]", "True", "True", "CPUDispatcher"], out


def test_a_long_series_runs_numpy_while_the_cache_is_cold(tmp_path):
    """With numba's cache empty (a first call after an install) and no background compile, a series of 70,000
    values (past PYTHON_MAX, within PYTHON_COLD_MAX) runs the numpy kernels: no compile in the caller."""
    code = ("import sys, numpy as np\n"
            "from bandkit import _numba\n"
            "from bandkit.changepoints import detect_changepoints\n"
            "assert _numba.PYTHON_MAX < 70000 <= _numba.PYTHON_COLD_MAX\n"
            "y = np.repeat([0.0, 1.0], 35000) + np.random.default_rng(0).normal(0, 0.3, 70000)\n"
            "r = detect_changepoints(y)\n"
            "print([c.index for c in r.changepoints], 'numba' in sys.modules)\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "BANDKIT_WARM": "0"}
    env.pop("BANDKIT_KERNELS", None)
    out = _python(code, env)
    assert out.split() == ["[35000]", "False"], out


def test_many_short_series_bring_numba_in_after_the_time_budget():
    """A process analysing series after series (a notebook, a fleet) switches to the compiled kernels once the
    Python ones have cost about what numba's start-up does."""
    code = ("import sys, numpy as np\n"
            "from bandkit import _numba\n"
            "from bandkit.changepoints import detect_changepoints\n"
            "y = np.random.default_rng(0).normal(size=1500)\n"
            "first = detect_changepoints(y).to_dict()\n"
            "print('numba' in sys.modules)\n"
            "_numba.PYTHON_BUDGET_S = 2.5 * _numba._PY['spent']  # two or three more calls\n"
            "for _ in range(20):\n"
            "    r = detect_changepoints(y).to_dict()\n"
            "print('numba' in sys.modules, _numba.compiled_in_use(), r == first)\n")
    out = _python(code)
    assert out.split() == ["False", "True", "True", "True"], out
