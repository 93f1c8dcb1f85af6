"""bandkit's import-light numerics (peaks1d, spectrum.welch, filters1d) give scipy.signal's and
scipy.ndimage's results."""
import numpy as np
import pytest
from scipy import ndimage, signal, special, stats

from bandkit.filters1d import gaussian_filter1d, window_rank
from bandkit.peaks1d import local_maxima, peak_prominences_widths
from bandkit.spectrum.welch import hann, welch


def _arrays():
    rng = np.random.default_rng(7)
    for i in range(300):
        n = int(rng.integers(0, 60))
        if i % 3 == 0:
            yield rng.integers(0, 4, size=n).astype(float)  # many plateaus and ties
        elif i % 3 == 1:
            yield rng.standard_normal(n)
        else:
            yield np.repeat(rng.integers(0, 5, size=max(n // 4, 1)), 4).astype(float)[:n]


def test_local_maxima_match_scipy_find_peaks():
    checked = 0
    for x in _arrays():
        ref, _ = signal.find_peaks(x)
        np.testing.assert_array_equal(local_maxima(x), ref)
        if x.size:
            h = float(np.median(x))
            np.testing.assert_array_equal(local_maxima(x, height=h), signal.find_peaks(x, height=h)[0])
        checked += ref.size
    assert checked > 500  # the arrays really had peaks, plateaus included


def test_prominences_and_widths_match_scipy():
    for x in _arrays():
        pk, prop = signal.find_peaks(x, prominence=0, width=0)
        prom, wid = peak_prominences_widths(x, local_maxima(x))
        np.testing.assert_allclose(prom, prop["prominences"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(wid, prop["widths"], rtol=1e-12, atol=1e-12)


def test_prominence_rejects_bad_index():
    with pytest.raises(ValueError):
        peak_prominences_widths(np.arange(5.0), [7])


@pytest.mark.parametrize("n,nperseg,noverlap", [(1000, 128, 64), (1001, 127, 63), (4096, 4096, 0),
                                                (50_000, 1024, 100), (300, 256, 255)])
def test_welch_matches_scipy(n, nperseg, noverlap, monkeypatch):
    import bandkit.spectrum.welch as w

    monkeypatch.setattr(w, "BLOCK", 3 * nperseg)  # several blocks, a ragged last one
    x = np.random.default_rng(n).standard_normal(n) + 5.0
    f_ref, p_ref = signal.welch(x, fs=777.0, window="hann", nperseg=nperseg, noverlap=noverlap,
                                detrend="constant", scaling="density")
    f, p = welch(x, 777.0, nperseg, noverlap)
    np.testing.assert_allclose(f, f_ref, rtol=1e-12)
    np.testing.assert_allclose(p, p_ref, rtol=1e-10, atol=1e-14 * p_ref.max())
    np.testing.assert_allclose(hann(nperseg), signal.get_window("hann", nperseg), atol=1e-15)


def test_welch_rejects_bad_segment():
    with pytest.raises(ValueError):
        welch(np.zeros(10), 1.0, 20)


def test_special_functions_equal_the_distributions_they_replace():
    dof = np.array([2.0, 7.3, 40.0])
    np.testing.assert_allclose(special.chdtri(dof, 1e-6), stats.chi2.isf(1e-6, dof), rtol=1e-10)
    np.testing.assert_allclose(special.chdtri(dof, 0.5), stats.chi2.median(dof), rtol=1e-10)
    t = np.array([0.3, 1.0, 2.5])
    np.testing.assert_allclose(special.kolmogorov(t), stats.kstwobign.sf(t), rtol=1e-10)


def _filter_inputs():
    rng = np.random.default_rng(11)
    for i in range(400):
        n = int(rng.integers(1, 40)) if i % 4 == 0 else int(rng.integers(1, 5000))
        x = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 6)
        yield np.round(np.abs(x)) if i % 5 == 0 else x  # (histogram counts, residuals)


def test_gaussian_filter1d_equals_scipy_ndimage():
    """Same kernel, same 'reflect' boundary (also when the radius exceeds the length), same numbers: the
    bands' seeds are taken from this smoothing, so a last-digit change could move a reported band."""
    for i, x in enumerate(_filter_inputs()):
        sigma = (2.0, 0.5, 1.3, 7.0)[i % 4]
        want = ndimage.gaussian_filter1d(x, sigma)
        got = gaussian_filter1d(x, sigma)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * float(np.max(np.abs(want))))
        assert np.array_equal(got, want)  # bit-identical (scipy's order of operations) on this machine


def test_window_rank_equals_scipy_rank_filter():
    rng = np.random.default_rng(5)
    for x in _filter_inputs():
        size = int(rng.integers(1, 60))
        rank = int(rng.integers(0, size))
        assert np.array_equal(window_rank(x, rank, size),
                              ndimage.rank_filter(x, rank, size=size, mode="nearest"))
    with pytest.raises(ValueError):
        window_rank(np.ones(5), 3, 3)


def test_spectrum_floor_is_the_full_window_rank_as_with_scipy():
    """spectrum.floor's full-width floor was scipy's rank_filter with the guard bins left out of the
    footprint, which scipy (1.17) ignores in 1-D: the floor is the rank of the FULL window (guard bins
    in). floor.py keeps that (its calibration was measured on it); this checks both facts, so a scipy
    that starts honouring the holes is noticed here."""
    from bandkit.spectrum.floor import GUARD, HALF_WIDTH, _rank, local_floor

    rng = np.random.default_rng(3)
    psd = rng.exponential(size=3000)
    psd[1500] = 1e3  # a line: its own guard bins are where the two floors differ
    psd[1499] = psd[1501] = 300.0
    fp = np.ones(2 * HALF_WIDTH + 1, dtype=bool)
    fp[HALF_WIDTH - GUARD: HALF_WIDTH + GUARD + 1] = False
    k = _rank(int(fp.sum()))
    scipy_floor = ndimage.rank_filter(psd, rank=k - 1, footprint=fp, mode="nearest")
    full = window_rank(psd, k - 1, fp.size)
    assert np.array_equal(scipy_floor, full)
    f = local_floor(psd, 2.0)
    inside = np.arange(HALF_WIDTH + 5, psd.size - 2 * HALF_WIDTH)
    assert np.all(f.cells[inside] == 2 * (HALF_WIDTH - GUARD))
    np.testing.assert_allclose(f.level[inside] * f.bias[inside], full[inside], rtol=1e-14)


#: Modules an FTQ report (and a fleet worker) never imports: scipy.signal, scipy.stats and scikit-learn
#: (0.5-1 s), scipy.optimize, matplotlib (plots are drawn only for HTML), the runner-only modules.
#: scipy.ndimage: its two filters are bandkit.filters1d (~0.04 s of CPU, 0.2-0.4 s if it came first).
HEAVY_OFF_FTQ = ("scipy.signal", "scipy.stats", "sklearn", "scipy.optimize", "scipy.ndimage", "matplotlib",
                 "bandkit.postmortem", "bandkit.compare", "bandkit.history", "tqdm")


def test_analysing_an_ftq_trace_does_not_import_scipy_signal_or_stats(tmp_path):
    """Cold start: a report or a fleet worker on FTQ traces pays for none of these imports."""
    import subprocess
    import sys

    from bandkit.synthetic.ftq import write_ftq

    path = tmp_path / "t.dat"
    write_ftq(path, 20_000, seed=1)
    code = ("import sys, bandkit\n"
            "import bandkit.fleet as F, bandkit.fleet.run as R\n"
            "R._warm_up(None, F.DEFAULT_BINS)\n"
            f"bandkit.report({str(path)!r}).to_json()\n"
            f"print(sorted(m for m in {HEAVY_OFF_FTQ!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_import_bandkit_imports_no_analysis_library():
    """``import bandkit`` (and so ``bandkit --version``, a notebook's first cell) pays for none of the
    analysis libraries: pandas (a Trace builds its frame on first access), numba, scipy, scikit-learn
    and matplotlib wait until an analysis needs them."""
    import subprocess
    import sys

    code = ("import sys, bandkit\n"
            "print(sorted(m for m in ('numba', 'scipy', 'sklearn', 'matplotlib', 'llvmlite', 'tqdm', 'pandas') "
            "if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_an_ftq_report_imports_no_pandas(tmp_path):
    """``bandkit report`` of FTQ traces (text and JSON; the bundled ones have ~1,500-2,900 stalls) never
    imports pandas (~0.3 s, issue 17): the loaders hand the Trace numpy columns and the sections read
    them and :attr:`Trace.stall_columns`; ``trace.data`` and ``trace.stalls`` stay DataFrames."""
    import subprocess
    import sys
    from pathlib import Path

    data = Path(__file__).resolve().parent.parent / "data" / "ftq"
    files = sorted(str(p) for p in data.glob("*_0.dat.gz"))
    assert len(files) >= 2
    code = ("import sys\n"
            "from bandkit.cli import main\n"
            f"for p in {files!r}:\n"
            f"    assert main(['report', p, '-o', {str(tmp_path / 'r.txt')!r}, '-q']) in (0, 1)\n"
            f"    assert main(['report', p, '-f', 'json', '-o', {str(tmp_path / 'r.json')!r}, '-q']) in (0, 1)\n"
            "print('pandas' in sys.modules)\n"
            "import bandkit\n"
            f"t = bandkit.load({files[0]!r})\n"
            "t = t[0] if isinstance(t, list) else t\n"
            "st, cols = t.stalls, t.stall_columns\n"
            "print(type(t.data).__name__, type(st).__name__, list(st.columns), len(st) == len(cols['row']) > 0,\n"
            "      all((st[c].to_numpy() == cols[c]).all() for c in cols))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "DataFrame", "DataFrame", "['start_s',", "'duration_s',", "'gap_s',",
                           "'lost_quanta',", "'row']", "True", "True"], out


def test_a_history_report_imports_neither_numba_nor_scipy(tmp_path):
    """``bandkit report`` of a CI history (the bundled SAP HANA ones) pays for no numba, scipy or FTQ
    analysis start-up (issue 13: numba and scipy.special were ~0.5 s of a 1.5 s report)."""
    import subprocess
    import sys
    from pathlib import Path

    data = Path(__file__).resolve().parent.parent / "data" / "ci-history"
    code = ("import sys, bandkit\n"
            "from bandkit.cli import main\n"
            f"for p in {sorted(str(p) for p in data.glob('*.csv.gz'))!r}:\n"
            f"    assert main(['report', p, '-f', 'json', '-o', {str(tmp_path / 'r.json')!r}, '-q']) == 0\n"
            "print(sorted(m for m in ('numba', 'llvmlite', 'scipy', 'sklearn', 'matplotlib', 'bandkit.bands', "
            "'bandkit.spectrum', 'bandkit.postmortem') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_cli_ftq_report_does_not_import_scipy_linalg(tmp_path):
    """``python -m bandkit report`` of an FTQ trace: numba's BLAS check finds scipy's BLAS extension
    (loaded on its own by bandkit._numba.light_blas_check) and does not import scipy.linalg (~0.1 s)."""
    import subprocess
    import sys

    from bandkit.synthetic.ftq import write_ftq

    path = tmp_path / "t.dat"
    write_ftq(path, 20_000, seed=1)
    code = ("import contextlib, io, runpy, sys\n"
            f"sys.argv = ['bandkit', 'report', {str(path)!r}]\n"
            "try:\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        runpy.run_module('bandkit', run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    assert e.code in (0, 1), e.code\n"
            "import numba.np.arraymath as A\n"
            "print('scipy.linalg' in sys.modules, 'scipy.linalg.cython_blas' in sys.modules, A._HAVE_BLAS)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True"], out


def test_light_blas_check_keeps_numba_blas_and_scipy_linalg_working():
    """After the light check numba's BLAS calls (np.dot in a kernel) run on scipy's BLAS, and a later
    ``import scipy.linalg`` works; a second call, or one after numba's own check, changes nothing."""
    import subprocess
    import sys

    code = ("import sys, numpy as np\n"
            "from bandkit._numba import light_blas_check\n"
            "assert light_blas_check() is True\n"
            "assert 'scipy.linalg' not in sys.modules\n"
            "assert light_blas_check() is False\n"
            "import numba\n"
            "f = numba.njit(lambda a, b: np.dot(a, b))\n"
            "a = np.arange(12.0).reshape(3, 4); b = np.arange(8.0).reshape(4, 2)\n"
            "assert np.array_equal(f(a, b), a @ b)\n"
            "import scipy.linalg\n"
            "from scipy.linalg import cython_blas\n"
            "assert cython_blas is sys.modules['scipy.linalg.cython_blas']\n"
            "np.testing.assert_allclose(scipy.linalg.solve(np.eye(3) * 2, np.ones(3)), 0.5)\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.strip() == "ok", out.stderr
