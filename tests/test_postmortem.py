"""Post-mortem of runner traces: classification of run sequences, suspects, the report section,
the speedpython 2020 file and the generated 400-run glitch."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bandkit
from bandkit.analyze import analyze
from bandkit.cli import main
from bandkit.postmortem import classify, postmortem, rank_suspects, summarize
from bandkit.synthetic.pyperf import pyperf_step_suite, write_pyperf

R = Path(__file__).resolve().parent.parent / "data" / "runners"
SPEED2020 = R / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"


@pytest.fixture(scope="module")
def speed2020():
    traces = bandkit.load(SPEED2020)
    return {t.label: postmortem(t) for t in traces}


@pytest.fixture(scope="module")
def glitch_path(tmp_path_factory):
    return write_pyperf(tmp_path_factory.mktemp("g") / "glitch.json.gz", pyperf_step_suite())


def _noisy(levels, seed, rel=0.01):
    rng = np.random.default_rng(seed)
    lv = np.asarray(levels, dtype=float)
    return lv * (1 + rel * rng.standard_normal(len(lv)))


# -- classification on generated run sequences ----------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("levels, verdict", [
    ([1.0] * 30, "stable"),
    ([1.0] * 12 + [1.5] * 18, "step"),
    ([1.0] * 5 + [1.4] * 4 + [1.0] * 10 + [1.4] * 5 + [1.0] * 6, "bimodal"),
    ([1.0] * 5 + [1.3] * 4 + [1.6] * 4 + [1.0] * 5 + [1.3] * 4 + [1.6] * 4 + [1.0] * 4, "bands"),
    ([1.3, 1.3] + [1.0] * 28, "warmup"),
    ([1.0] * 14 + [2.0] + [1.0] * 15, "outliers"),
    (list(np.linspace(1.0, 1.3, 30)), "trend"),
    ([1.0, 2.0, 3.0], "too_few_runs"),
])
def test_classify_generated(levels, verdict, seed):
    c = classify(_noisy(levels, seed, rel=0.005 if verdict == "trend" else 0.01))
    assert c.verdict == verdict


def test_classify_step_location_and_outlier_index():
    c = classify(_noisy([1.0] * 12 + [1.5] * 18, 5))
    assert [(b[1], b[2]) for b in c.blocks] == [(0, 11), (12, 29)]
    c = classify(_noisy([1.0] * 14 + [2.0] + [1.0] * 15, 5))
    assert c.outliers == (14,)


def test_small_differences_are_not_steps():
    # a 2 % shift is below min_ratio (5 %): stable, however clean
    assert classify(_noisy([1.0] * 15 + [1.02] * 15, 0, rel=0.001)).verdict == "stable"
    assert classify(_noisy([1.0] * 15 + [1.02] * 15, 0, rel=0.001), min_ratio=1.01).verdict == "step"


# -- suspects ---------------------------------------------------------------------------------
def test_suspects_categorical_exact_and_monotone_excluded():
    n = 40
    aff = np.arange(n) >= 25
    rng = np.random.default_rng(0)
    md = pd.DataFrame({
        "governor": pd.array(["powersave" if a else "performance" for a in aff], dtype="string"),
        "uptime_like": np.arange(n, dtype=float) * 3.0 + 100,   # monotone: separates any step
        "noise": rng.standard_normal(n),
        "constant": np.ones(n),
    })
    sus = rank_suspects(md, aff, step_index=25)
    assert sus[0].metadata == "governor" and sus[0].score == pytest.approx(1.0)
    assert sus[0].evidence["affected_with_value"] == 15 and sus[0].evidence["reference_with_value"] == 0
    names = [s.metadata for s in sus]
    assert "uptime_like" not in names and "constant" not in names and "noise" not in names


def test_suspects_lagged_metadata_reports_the_lag():
    n = 40
    aff = np.zeros(n, dtype=bool)
    aff[[5, 6, 7, 20, 21, 30]] = True
    temp = np.where(np.roll(aff, 1), 80.0, 50.0)  # recorded one run late
    md = pd.DataFrame({"cpu_temp_c": temp})
    (s,) = rank_suspects(md, aff)
    assert s.evidence["lag"] == 1 and s.score == pytest.approx(0.9)


# -- the generated 400-run case ----------------------------------------------------------------
def test_glitch_400_runs_step_at_106_temperature_top(glitch_path):
    pm = postmortem(bandkit.load(glitch_path))
    assert pm.verdict == "step" and pm.n_runs == 400
    (step,) = pm.steps
    # pyperf dump's numbering: the calibration run is run 1, so the generator's 106th measured run is run 107
    assert step.run == 107 and step.runs_before == 105 and step.runs_after == 295
    assert step.before == pytest.approx(20.3e-3, rel=0.01) and step.after == pytest.approx(11.0e-3, rel=0.01)
    assert step.ci_low < step.ratio < step.ci_high
    assert step.run_ci_low <= 107 <= step.run_ci_high  # location interval from detect_changepoints
    top = pm.suspects[0]
    assert top.metadata.startswith("cpu_temp_c") and top.score > 0.95
    assert top.evidence["changepoint_run"] == 107
    assert top.evidence["median_reference"] - top.evidence["median_affected"] == pytest.approx(12, abs=1.5)
    names = [s.metadata for s in pm.suspects]
    # the load average changes too, but late (1-minute smoothing): never ranked above the temperature
    if "load_avg_1min" in names:
        assert names.index("load_avg_1min") > 0
    assert not any(n.startswith("cpu_freq") for n in names)  # frequency did not change


def test_glitch_step_moves_with_the_generator(tmp_path):
    p = write_pyperf(tmp_path / "g.json", pyperf_step_suite(n_runs=120, step_run=37, seed=9))
    pm = postmortem(bandkit.load(p))
    assert pm.verdict == "step" and pm.steps[0].run == 38  # + the calibration run (pyperf dump's numbering)


# -- real file: speedpython 2020 -----------------------------------------------------------
def test_pickle_list_step_between_runs_5_and_6(speed2020):
    """Run numbers as ``pyperf dump`` shows them (the calibration run is run 1)."""
    pm = speed2020["pickle_list"]
    assert pm.verdict == "step"
    (step,) = pm.steps
    assert step.run == 6 and step.factor == pytest.approx(1.7, abs=0.05)
    assert pm.slow_runs == (2, 3, 4, 5)
    assert pm.suspects and pm.suspects[0].metadata.startswith("cpu_freq")


@pytest.mark.parametrize("name, slow", [
    # run numbers as pyperf dump shows them (the calibration run is run 1)
    ("deltablue", (15, 16, 17, 18)), ("django_template", (10, 11, 12, 13)), ("genshi_text", (11, 12, 13, 14)),
    ("richards", (5, 6, 7, 8)), ("regex_v8", (11, 12, 13)), ("unpickle_list", (14, 15, 16)),
])
def test_other_glitchy_benchmarks_found(speed2020, name, slow):
    pm = speed2020[name]
    assert pm.verdict in ("bimodal", "bands", "step", "episode")  # a slow stretch that came back: an episode
    assert set(slow) <= set(pm.slow_runs)
    assert pm.suspects[0].metadata.startswith("cpu_freq")


def test_speed2020_counts_and_shared_cpu_freq_pattern(speed2020):
    cs = summarize(list(speed2020.values()))
    assert cs.n_benchmarks == 60
    assert cs.counts.get("stable", 0) >= 5
    # slow stretches that came back are episodes; slow runs that keep coming back are bimodal
    assert sum(cs.counts.get(k, 0) for k in ("step", "episode", "bimodal", "bands")) >= 30
    assert len(cs.affected) >= 45  # + outlier runs and warm-up
    for calm in ("float", "xml_etree_parse", "sympy_sum"):
        assert speed2020[calm].verdict == "stable"
    top = cs.shared_suspects[0]
    assert top.metadata.startswith("cpu_freq")
    spread = next(s for s in cs.shared_suspects if s.metadata == "cpu_freq_mhz_spread")
    ev = spread.evidence
    # slow runs: (almost) every CPU at 3332 MHz, i.e. a small spread; other runs rarely
    assert ev["affected_when"] == "below"
    assert ev["affected_on_side"] / ev["affected"] > 0.7 and ev["reference_on_side"] / ev["reference"] < 0.06


# -- report integration ----------------------------------------------------------------------
def test_report_json_fields_and_text(glitch_path):
    rep = analyze(bandkit.load(glitch_path))
    d = json.loads(rep.to_json())
    (entry,) = d["traces"]
    for key in ("name", "runs", "unit", "verdict", "steps", "bands", "suspects"):
        assert key in entry
    assert entry["name"] == "bm_glitch" and entry["runs"] == 400 and entry["verdict"] == "step"
    assert entry["steps"][0]["run"] == 107 and set(entry["steps"][0]) >= {"run", "before", "after", "ratio"}
    assert set(entry["suspects"][0]) == {"metadata", "evidence", "score"}
    assert [b["n_runs"] for b in entry["run_bands"]] == [295, 105] and entry["run_bands"][1]["runs"][0] == 2
    assert d["runner_summary"]["counts"] == {"step": 1}
    assert any(f["kind"] == "step" and f["run"] == 107 for f in d["findings"])
    text = rep.to_text()
    assert "step at run 107" in text and "cpu_temp_c" in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_summary_only_traces_say_so():
    traces = bandkit.load(R / "pytest-benchmark-tests_0001.json")
    pm = postmortem(traces)
    assert pm.verdict == "no_runs" and "stats.data" in pm.note
    text = analyze(traces).to_text()
    assert "no per-run data" in text


def test_cli_report_and_fail_on(glitch_path, capsys):
    assert main(["report", str(glitch_path), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Benchmarks: 1 — step 1")
    assert main(["report", str(glitch_path), "--fail-on", "step"]) == 1


def test_plots_runs_and_metadata(glitch_path):
    import matplotlib.pyplot as plt

    from bandkit.plots.runs import plot_runs, plot_runs_with_metadata

    t = bandkit.load(glitch_path)
    pm = postmortem(t)
    ax = plot_runs(t, pm)
    offsets = ax.collections[0].get_offsets()
    assert len(offsets) == 400 and offsets[105][0] == 107  # one dot per run, at its run number (pyperf dump's)
    assert any(abs(line.get_xdata()[0] - 106.5) < 1e-9 for line in ax.lines if len(line.get_xdata()) == 2)
    axes = plot_runs_with_metadata(t, ["cpu_temp_c", "cpu_freq"], pm)
    assert len(axes) == 3 and axes[1].get_ylabel() == "cpu_temp_c"
    with pytest.raises(KeyError):
        plot_runs_with_metadata(t, ["no_such_column"], pm)
    plt.close("all")


def test_one_value_benchmarks_are_too_few_runs():
    traces = bandkit.load(R / "bpfilter_005d041.json")
    d = analyze(traces).to_dict()
    assert {e["verdict"] for e in d["traces"]} == {"too_few_runs"}
    assert d["runner_summary"]["counts"] == {"too_few_runs": 8}


def test_suspect_mann_whitney_p_values_equal_scipys():
    """suspects._mannwhitney_p without scipy.stats' per-call overhead: bit for bit what
    scipy.stats.mannwhitneyu returns on its exact path (tiny groups), within 1e-13 on the normal
    approximation (ties, one-run groups; the normal tail without scipy.special)."""
    from scipy import stats as st

    from bandkit.postmortem.suspects import _mannwhitney_p, _ranks

    rng = np.random.default_rng(11)
    exact_path = ties = 0
    for _ in range(1500):
        n1, n2 = int(rng.integers(1, 30)), int(rng.integers(1, 30))
        q = rng.choice([0.5, 1.0, 1e-3])
        x, y = np.round(rng.normal(0, 1, n1) / q) * q, np.round(rng.normal(0.4, 1, n2) / q) * q
        xy = np.r_[x, y]
        np.testing.assert_array_equal(_ranks(xy), st.rankdata(xy))
        tied = len(np.unique(xy)) < len(xy)
        ties += tied
        exact = (n1 <= 8 or n2 <= 8) and not tied
        exact_path += exact
        got, ref = _mannwhitney_p(x, y), st.mannwhitneyu(x, y, alternative="two-sided")[1]
        if exact:
            assert got == ref
        else:  # the normal tail by the C library's erfc, not scipy.special's ndtr: an ulp or two apart
            assert got == pytest.approx(ref, rel=1e-13, abs=0)
    assert exact_path > 50 and ties > 500  # both of scipy's paths were compared


def test_run_verdict_is_the_post_mortems_verdict(tmp_path):
    """bandkit compare flags noisy benchmarks by run_verdict (no suspects ranked): the same verdicts."""
    from bandkit.postmortem import run_verdict

    root = Path(__file__).resolve().parent.parent / "data" / "runners"
    path = tmp_path / "steps.json"
    write_pyperf(path, pyperf_step_suite(seed=3))
    traces = [*bandkit.load_many([root / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz",
                                  root / "pyperf-tests_telco.json.gz"]), *bandkit.load_many([path])]
    verdicts = [postmortem(t).verdict for t in traces]
    assert [run_verdict(t) for t in traces] == verdicts
    assert len(set(verdicts)) >= 3  # not one verdict everywhere


def test_run_metadata_is_the_first_value_of_each_run():
    """run_table takes a run's first row where a column has no gaps: equal to groupby(...).first()."""
    from bandkit.postmortem.runs import NON_METADATA, run_table

    root = Path(__file__).resolve().parent.parent / "data" / "runners"
    files = [p for p in sorted(root.iterdir()) if not p.name.endswith((".md", ".txt"))]
    traces = []
    for p in files:
        try:
            traces.extend(bandkit.load_many([p]))
        except bandkit.BandkitError:  # (a file that holds no results, e.g. asv's machine.json)
            pass
    holey = pd.DataFrame({"run": [1, 1, 2, 2, 3], "value": [1.0, 2, 3, 4, 5], "host": [None, "a", "b", "b", None],
                          "temp": [np.nan, 50.0, 51.0, np.nan, np.nan]})
    traces.append(bandkit.Trace(holey, bandkit.TraceMeta(path="x", format="csv", kind="runner")))
    # whole runs missing (a run's first row is its first non-missing value: the take path), and not
    holey2 = holey.assign(temp=[np.nan, np.nan, 51.0, 51.0, np.nan], host=["a", "a", None, None, "c"],
                          load=[np.nan, 1.0, 2.0, 2.0, 3.0])
    traces.append(bandkit.Trace(holey2, bandkit.TraceMeta(path="y", format="csv", kind="runner")))
    gaps = 0
    for t in traces:
        df = t.samples
        if "run" not in df.columns:
            continue
        df = df[np.isfinite(df["value"].to_numpy(dtype=np.float64))]
        cols = [c for c in df.columns if c not in NON_METADATA]
        if not len(df) or not cols:
            continue
        ref = df.groupby("run", sort=True)[cols].first().reset_index(drop=True)
        if "time" in df.columns:
            ref = ref.assign(time=df.groupby("run", sort=True)["time"].first().to_numpy(dtype=np.float64))
        pd.testing.assert_frame_equal(run_table(t).metadata, ref)
        gaps += int(df[cols].isna().any().any())
    assert len(traces) > 100 and gaps > 0  # (the hand-made trace has missing values: groupby's path too)


def test_run_table_one_row_per_run_equals_the_groupby():
    """The no-groupby path (rows already one per run, in order: hyperfine, one-value benchmarks) gives
    what the groupby gives; an asv file of 22,971 one-value benchmarks spent 70 s in the groupby."""
    import glob

    import pandas as pd

    from bandkit.postmortem.runs import run_table

    checked = 0
    for p in sorted(glob.glob("data/runners/*")):
        try:
            traces = bandkit.load_all(p)
        except bandkit.BandkitError:
            continue
        for t in traces:
            df = t.samples
            if t.kind != "runner" or "run" not in df.columns or not len(df):
                continue
            rt = run_table(t)
            g = df[np.isfinite(df["value"].to_numpy(dtype=float))].groupby("run", sort=True)
            assert np.array_equal(rt.runs, g["value"].mean().index.to_numpy())
            assert np.allclose(rt.means, g["value"].mean().to_numpy())
            assert np.array_equal(rt.counts, g["value"].size().to_numpy())
            cols = [c for c in rt.metadata.columns if c != "time"]
            if cols:
                pd.testing.assert_frame_equal(rt.metadata[cols], g[cols].first().reset_index(drop=True),
                                              check_dtype=False)
            checked += 1
    assert checked > 50


def test_exact_tests_match_scipy():
    """postmortem.exact_tests (no scipy.stats import on the report path): the exact Mann-Whitney
    p-value bit-equal to scipy's, also with a long second group (its uint64 -> float switch); Fisher's
    exact p within 1e-15 of scipy's (ours is summed exactly, then rounded once); binom bit-equal."""
    import math

    from scipy import special
    from scipy import stats as st

    from bandkit.postmortem.exact_tests import binom, fisher_exact_p, mannwhitney_exact_p

    for n1 in range(1, 9):
        for n2 in (1, 2, 7, 8, 9, 30, 211, 1000, 5001):
            assert binom(n1 + n2, n1) == special.binom(n1 + n2, n1)
    rng = np.random.default_rng(5)
    for _ in range(400):
        n1, n2 = int(rng.integers(1, 9)), int(rng.integers(1, 400))
        x, y = rng.normal(0.3, 1, n1), rng.normal(0, 1, n2)
        if rng.random() < 0.5:
            x, y = y, x
        u1 = float(st.rankdata(np.r_[x, y])[:len(x)].sum()) - len(x) * (len(x) + 1) / 2
        assert mannwhitney_exact_p(u1, len(x), len(y)) == st.mannwhitneyu(x, y, method="exact")[1]
    worst = 0.0
    for _ in range(3000):
        a, b, c, d = (int(v) for v in rng.integers(0, 40, 4))
        s, m = st.fisher_exact([[a, b], [c, d]])[1], fisher_exact_p(a, b, c, d)
        worst = max(worst, abs(s - m) / max(s, m, 1e-300))
        assert (s == 1.0) == (m == 1.0)
    assert worst <= 1e-15
    assert fisher_exact_p(8, 2, 1, 5) == 5 / 143 and fisher_exact_p(0, 0, 3, 4) == 1.0  # (scipy: 0.034965034965034975)
    assert math.isclose(fisher_exact_p(6, 2, 1, 4), 0.10256410256410257, rel_tol=1e-15)


def test_runner_report_and_compare_do_not_import_scipy_stats():
    """scipy.stats costs ~0.5 s of CPU to import, as much as a 60-benchmark pyperf report's post-mortems:
    the report of a pyperf file (whose suspects take the exact Mann-Whitney path) and the compare of two
    stay off it (exact tests in postmortem.exact_tests, Welch's p in compare.welch_p). The report also
    stays off scipy.special and scipy.ndimage (≈ 0.2 s: postmortem.distributions)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent / "data" / "runners"
    a = root / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"
    b = root / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz"
    code = ("import sys, bandkit\n"
            f"r = bandkit.report({str(a)!r}); r.to_json(); r.to_text()\n"
            f"assert any(t['suspects'] for t in r.to_dict()['traces'])\n"
            "print(sorted(m for m in ('scipy.special', 'scipy.ndimage', 'scipy.stats') if m in sys.modules))\n"
            "from bandkit.compare import compare_files\n"
            f"compare_files({str(a)!r}, {str(b)!r}).to_dict()\n"
            "print('scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "False"], out


def test_pooled_suspects_leave_out_columns_that_only_tell_benchmarks_apart():
    """speedpython_2017-03-31 named ``description`` ("Benchmark json.loads()") the shared suspect
    (p_adjusted 0.002): a column constant within every benchmark marks which benchmarks have slow
    runs, not what the slow runs have in common."""
    from bandkit.postmortem.summary import _pooled

    rng = np.random.default_rng(0)
    frames = []
    for k in range(6):
        n = 20
        frames.append(pd.DataFrame({
            "description": pd.Categorical([f"Benchmark {k}"] * n),
            "loops": np.full(n, 2.0 ** k),
            "cpu_freq": rng.choice([2000.0, 3300.0], n),
            "tag": pd.Categorical(rng.choice(["a", "b"], n)),
        }))
    names = [e[0] for e in _pooled(frames)]
    assert "cpu_freq" in names and "tag" in names
    assert "description" not in names and "loops" not in names


def _frame_backed(t):
    """The same trace with its rows as a DataFrame (the frame path of run_table)."""
    from bandkit.trace import Trace

    return Trace(t.data, t.meta)


@pytest.mark.parametrize("name", ["speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz",
                                  "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz",
                                  "pyperf-tests_telco.json.gz", "3em_tools_benchmarks_results.json",
                                  "bpfilter_005d041.json", "simple_insert_hecs_new_raw.csv"])
def test_run_table_from_arrays_equals_the_frame_path(name):
    """run_table on a trace built from arrays (no pandas) gives what the groupby of its frame gives:
    the same runs, bit-equal means, counts and the same metadata frame (first non-missing per run)."""
    from bandkit.postmortem.runs import run_table

    from bandkit.loaders.registry import load_traces

    traces = [t for t in load_traces(R / name) if t.kind == "runner"]
    assert traces and all(t.column_arrays is not None for t in traces)
    for t in traces:
        for md in (True, False):
            a, b = run_table(t, metadata=md), run_table(_frame_backed(t), metadata=md)
            assert a.metadata_columns is not None or not md or not len(a)
            assert np.array_equal(a.runs, b.runs) and a.runs.dtype == b.runs.dtype
            assert np.array_equal(a.means, b.means)  # bit-equal (pandas' own summation)
            assert np.array_equal(a.counts, b.counts)
            pd.testing.assert_frame_equal(a.metadata, b.metadata, check_exact=True)


def test_run_table_arrays_with_gaps_and_shuffled_runs():
    """Runs out of order, a run whose first row misses a metadata value that a later row has, and a
    non-finite value: same as the frame path (pandas' compensated sums, groupby's first())."""
    from bandkit.postmortem.runs import run_table
    from bandkit.trace import Trace, TraceMeta

    rng = np.random.default_rng(3)
    n = 60
    run = rng.integers(1, 9, n)
    value = rng.lognormal(size=n) * 1e-5
    value[5] = np.nan
    freq = rng.choice([1800.0, 2400.0], n)
    freq[np.flatnonzero(run == run[0])[0]] = np.nan
    host = pd.Categorical.from_codes(rng.integers(-1, 2, n), categories=["a", "b"])
    cols = {"time": np.full(n, np.nan), "run": run, "value_index": np.zeros(n, np.int64), "value": value,
            "cpu_freq_mhz": freq, "hostname": host}
    t = Trace(cols, TraceMeta(path="x", format="pyperf", kind="runner", name="b"))
    for md in (True, False):
        a, b = run_table(t, metadata=md), run_table(_frame_backed(t), metadata=md)
        assert np.array_equal(a.means, b.means) and np.array_equal(a.runs, b.runs)
        pd.testing.assert_frame_equal(a.metadata, b.metadata, check_exact=True)


def test_run_table_float_columns_gathered_at_once_equal_the_column_by_column_path(monkeypatch):
    """runs._floats_at_first (the float metadata columns of a run table gathered at each run's first row in
    one pass) gives _first_present's arrays, bit for bit (signed zeros, NaN at a first row -> that column
    by itself), each its own array: random float / int / datetime / coded columns, repeated and shuffled
    runs, dropped non-finite values, and the runner files of data/runners."""
    from bandkit.loaders.registry import load_traces
    from bandkit.postmortem import runs as RR
    from bandkit.trace import Trace, TraceMeta

    def both(t):
        fast = RR._run_table_arrays(t, True)
        monkeypatch.setattr(RR, "_floats_at_first", lambda arrays, first: (None, {}))
        slow = RR._run_table_arrays(t, True)
        monkeypatch.undo()
        assert list(fast.metadata_columns) == list(slow.metadata_columns)
        for c, a in fast.metadata_columns.items():
            b = slow.metadata_columns[c]
            assert type(a) is type(b)
            if isinstance(a, np.ndarray):
                assert a.dtype == b.dtype and a.tobytes() == b.tobytes() and a.flags.owndata
            else:
                assert np.array_equal(np.asarray(a.codes), np.asarray(b.codes))
        ids = [id(a) for a in fast.metadata_columns.values()]
        assert len(set(ids)) == len(ids)
        return fast

    rng = np.random.default_rng(31)
    fixed = 0
    for trial in range(60):
        n = int(rng.integers(2, 80))
        run = np.sort(rng.integers(1, max(2, n // 3), n)) if trial % 2 else rng.integers(1, 9, n)
        value = rng.lognormal(size=n)
        if trial % 5 == 0:
            value[int(rng.integers(0, n))] = np.nan
        cols = {"time": np.arange(n, dtype=float), "run": run, "value_index": np.zeros(n, np.int64),
                "value": value}
        for j in range(int(rng.integers(0, 8))):
            v = rng.choice([-0.0, 0.0, 1.5, 2400.0, 1e300], n)
            if rng.random() < 0.4:
                v[rng.random(n) < 0.3] = np.nan
            cols[f"f{j}"] = v
        cols["loops"] = rng.integers(1, 5, n)
        cols["host"] = pd.Categorical.from_codes(rng.integers(-1, 2, n), categories=["a", "b"])
        fast = both(Trace(cols, TraceMeta(path="x", format="pyperf", kind="runner", name="b")))
        fixed += sum(1 for c, a in fast.metadata_columns.items() if c.startswith("f"))
    assert fixed > 50
    for name in ("speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz", "pyperf-tests_telco.json.gz"):
        for t in load_traces(R / name):
            both(t)


def test_runner_report_builds_no_dataframe_of_the_rows():
    """The runner path reads the loaders' arrays: analysing and writing the report of a pyperf file
    never builds a trace's row frame (``trace.data``: pandas, ~0.5 ms a benchmark; built on demand)."""
    from bandkit.loaders.registry import load_traces

    traces = load_traces(R / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz")
    rep = bandkit.analyze(traces)
    rep.to_json()
    rep.to_text()
    assert all(t._data is None for t in traces)
    assert len(traces[0].data) == len(traces[0]) and traces[0]._data is not None  # (still there when asked)


def test_values_of_an_array_trace_are_read_only():
    """``trace.values`` of a trace built from arrays cannot be edited in place (as pandas' copy-on-write
    views cannot): ``v /= 1e6`` in a notebook must not change the trace."""
    from bandkit.loaders.registry import load_traces

    t = load_traces(R / "pyperf-tests_telco.json.gz")[0]
    before = t.values.copy()
    with pytest.raises(ValueError):
        t.values[0] = 0.0
    with pytest.raises(ValueError):
        t.column("run")[0] = 7
    assert np.array_equal(t.values, before)


def test_block_suspects_equal_the_column_by_column_scores(monkeypatch):
    """rank_suspects scores the numeric columns without gaps all at once (suspects._block_suspects): the
    same suspects, scores and evidence (bit for bit, key order included) as the column-by-column loop,
    with steps (coincidence, monotone columns left out), ties, constant-after-shift columns, lags."""
    from bandkit.postmortem import suspects as S

    rng = np.random.default_rng(5)
    checked = 0
    for trial in range(60):
        n = int(rng.integers(8, 70))
        step = int(rng.integers(3, n - 3))
        aff = np.zeros(n, dtype=bool)
        if trial % 3:
            aff[step:] = True
        else:
            aff[rng.choice(n, int(rng.integers(3, n - 3)), replace=False)] = True
        cols = {}
        for j in range(12):
            kind = j % 6
            if kind == 0:
                v = rng.normal(0, 1, n) + 2.0 * aff
            elif kind == 1:
                v = np.round(rng.normal(0, 1, n) + aff, 0)  # ties
            elif kind == 2:
                v = np.arange(n, dtype=float) + rng.normal(0, 0.01, n)  # monotone
            elif kind == 3:
                v = np.r_[1.0, np.full(n - 1, 2.0)]  # constant after a shift
            elif kind == 4:
                v = np.r_[np.zeros(step + int(rng.integers(-2, 3))), np.ones(n)][:n] * 3.0
            else:
                v = rng.normal(0, 1, n)
            cols[f"k{j}.cpu{j % 2}" if j % 4 == 0 else f"k{j}"] = v
        cols["host"] = np.asarray(rng.choice(["a", "b"], n))
        si = step if trial % 3 else None
        entries = S._array_columns(dict((c, v if c != "host" else __import__("pandas").Categorical(v))
                                        for c, v in cols.items()))
        fast = S.rank_suspects(entries, aff, step_index=si, max_suspects=50, min_score=0.0)
        monkeypatch.setattr(S, "_dense_columns", lambda cols: [])
        slow = S.rank_suspects(entries, aff, step_index=si, max_suspects=50, min_score=0.0)
        monkeypatch.undo()
        assert [(s.metadata, s.score, list(s.evidence.items())) for s in fast] == \
            [(s.metadata, s.score, list(s.evidence.items())) for s in slow]
        checked += len(fast)
    assert checked > 100


def test_max_t_subset_sums_equal_the_gathered_sums():
    """suspects._subset_sums (the max-T null's rank sums and counts, by row gathers of the subset or of its
    complement) equals ``A[sub].sum(axis=1)`` exactly for half-integer ranks and 0/1 counts."""
    from bandkit.postmortem.suspects import _subset_sums

    rng = np.random.default_rng(2)
    for n, m in [(20, 3), (20, 17), (9, 4), (9, 5), (60, 30), (2, 1)]:
        A = np.r_[rng.integers(0, 2 * n, (n, 7)) / 2.0].reshape(n, 7)
        A[:, 0] = rng.integers(0, 2, n)
        sub = np.argsort(rng.random((50, n)), axis=1)[:, :m]
        assert np.array_equal(_subset_sums(A, sub), A[sub].sum(axis=1))


def test_index_correlations_decide_the_monotone_test_as_corrcoef_does():
    """suspects._index_correlations (the Spearman test of columns monotone in run order, by numpy sums
    instead of np.corrcoef's BLAS product) gives np.corrcoef's first row within 1e-12, and the same
    |rho| > 0.98 decision on random walks, trends and ties."""
    from bandkit.postmortem.suspects import _index_correlations, _ranks

    rng = np.random.default_rng(9)
    decided = set()
    for _ in range(1500):
        n, k = int(rng.integers(4, 80)), int(rng.integers(1, 20))
        V = np.cumsum(rng.normal(size=(n, k)) * rng.choice([0.01, 1.0]), axis=0)
        V += np.arange(n)[:, None] * rng.choice([0.0, 1.0, 5.0])
        V = np.round(V, int(rng.integers(0, 3)))
        R = np.column_stack([_ranks(V[:, j]) for j in range(k)])
        R = R[:, np.ptp(R, axis=0) > 0]
        if not R.shape[1]:
            continue
        got = _index_correlations(R)
        want = np.corrcoef(np.vstack([np.arange(n, dtype=np.float64), R.T]))[0, 1:]
        assert np.max(np.abs(got - want)) < 1e-12
        assert np.array_equal(np.abs(got) > 0.98, np.abs(want) > 0.98)
        decided |= set((np.abs(got) > 0.98).tolist())
    assert decided == {True, False}


@pytest.mark.parametrize("int32", [True, False])
def test_max_t_null_by_set_extremes_equals_every_column(int32, monkeypatch):
    """_MaxT.null_max takes, per set of runs with values, the separation at the largest and smallest rank
    sum of its columns (|2 auc - 1| is monotone on either side of its centre), the rank sums and counts of
    all sets from one pass of gathers (in int32, or float64 for long sequences): the same null as the
    separation of every column, computed here the long way."""
    from bandkit.postmortem import suspects
    from bandkit.postmortem.suspects import _MaxT, _permuted_subsets, _ranks

    if not int32:
        monkeypatch.setattr(suspects, "_INT32_SUMS", 0.0)
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(6, 40))
        aff = np.zeros(n, dtype=bool)
        aff[rng.choice(n, int(rng.integers(1, n)), replace=False)] = True
        mt = _MaxT(aff, n_perm=199, seed=int(rng.integers(0, 9)))
        ranks, valid = [], []
        for _ in range(int(rng.integers(1, 8))):
            ok = np.ones(n, dtype=bool)
            if rng.random() < 0.5:
                ok[rng.integers(0, n)] = False
            block = []
            for _ in range(int(rng.integers(1, 4))):  # (columns sharing the runs with values)
                v = np.round(rng.normal(size=n), int(rng.integers(0, 3)))  # (ties)
                r = np.zeros(n)
                r[ok] = _ranks(v[ok])
                block.append(r)
                ranks.append(r)
                valid.append(ok.astype(np.float64))
            if rng.random() < 0.5:
                mt.add_rank_block(np.column_stack(block), ok.astype(np.float64))
            else:
                for r in block:
                    mt.add_ranks(np.where(ok, 0.0, np.nan), slice(0, n), r[ok])  # (the values only mark the gaps)
        assert mt.n_tests == len(ranks)
        sub = _permuted_subsets(n, int(aff.sum()), 199, mt.seed)
        want = np.zeros(199)
        for r, ok in zip(ranks, valid):
            na = ok[sub].sum(axis=1)
            nr = ok.sum() - na
            with np.errstate(divide="ignore", invalid="ignore"):
                auc = (r[sub].sum(axis=1) - na * (na + 1) / 2.0) / (na * nr)
            want = np.maximum(want, np.where((na > 0) & (nr > 0), np.abs(2.0 * auc - 1.0), 0.0))
        assert np.array_equal(mt.null_max(), want)


def _group_levels_quadratic(means, sizes, ses, thr_min):
    """The rescanning version of classify._group_levels (before the heap), as the reference."""
    import math

    order = sorted(range(len(means)), key=lambda i: means[i])
    groups = [[i] for i in order]
    gm, gn, gv = [means[i] for i in order], [sizes[i] for i in order], [ses[i] ** 2 for i in order]
    while len(groups) > 1:
        gaps = [gm[i + 1] - gm[i] for i in range(len(groups) - 1)]
        thr = [max(thr_min, 3.0 * math.sqrt(gv[i] + gv[i + 1])) for i in range(len(gaps))]
        cand = [i for i in range(len(gaps)) if gaps[i] < thr[i]]
        if not cand:
            break
        i = min(cand, key=lambda k: gaps[k] / thr[k])
        n_a, n_b = gn[i], gn[i + 1]
        gm[i] = (gm[i] * n_a + gm[i + 1] * n_b) / (n_a + n_b)
        gv[i] = (gv[i] * n_a ** 2 + gv[i + 1] * n_b ** 2) / (n_a + n_b) ** 2
        gn[i] = n_a + n_b
        groups[i] = groups[i] + groups.pop(i + 1)
        gm.pop(i + 1), gn.pop(i + 1), gv.pop(i + 1)
    return groups


def test_group_levels_heap_merges_as_the_rescanning_version():
    """classify._group_levels merges through a heap (a fuzzed pytest-benchmark file, 12,000 segments, spent
    60 s rescanning all pairs per merge): same groups, same order, ties to the leftmost pair, on 2,000
    random cases (ties, clusters, integer levels, zero thresholds) and one of 800 levels."""
    from bandkit.postmortem.classify import _group_levels

    rng = np.random.default_rng(0)
    for t in range(2001):
        k = 800 if t == 2000 else int(rng.integers(1, 60))
        means = [rng.normal(0, 1, k), np.round(rng.normal(0, 1, k), 1),
                 np.repeat(rng.normal(0, 1, 3), k)[:k] + rng.normal(0, 0.01, k),
                 rng.integers(0, 5, k).astype(float)][t % 4].tolist()
        sizes = [int(x) for x in rng.integers(1, 20, k)]
        ses = rng.uniform(0, 0.3, k).tolist() if t % 3 else [0.1] * k
        thr = float(rng.choice([0.0, 0.05, 0.3, 1.0]))
        assert _group_levels(means, sizes, ses, thr) == _group_levels_quadratic(means, sizes, ses, thr), t


def test_max_t_permutations_shared_between_calls_are_the_seeded_ones():
    """The max-T null's permuted label sets are kept between calls (suspects._permuted_subsets: the
    benchmarks of a file share run counts): a kept set equals a fresh draw of the same seed, is
    read-only, and rank_suspects gives the same suspects (p_adjusted included) with the store cleared
    as with it warm, for the same and for different numbers of affected runs."""
    from bandkit.postmortem import suspects as S

    rng = np.random.default_rng(8)
    n = 20
    for na in (3, 4, 3, 16):
        S._SUBSETS.clear()
        u = np.random.default_rng(0).random((999, n))
        fresh = np.argpartition(u, na - 1, axis=1)[:, :na]
        kept = S._permuted_subsets(n, na, 999, 0)
        assert np.array_equal(kept, fresh) and not kept.flags.writeable
        assert S._permuted_subsets(n, na, 999, 0) is kept  # (kept, not drawn again)
        aff = np.zeros(n, dtype=bool)
        aff[rng.choice(n, na, replace=False)] = True
        cols = {"a": rng.normal(0, 1, n) + 6.0 * aff, "b": np.round(rng.normal(0, 1, n)), "c": rng.normal(0, 1, n)}
        warm = S.rank_suspects(cols, aff, max_suspects=5, min_score=0.0)
        S._SUBSETS.clear()
        cold = S.rank_suspects(cols, aff, max_suspects=5, min_score=0.0)
        assert warm and [(s.metadata, s.score, list(s.evidence.items())) for s in warm] == \
            [(s.metadata, s.score, list(s.evidence.items())) for s in cold]


def test_marks_benchmarks_all_segments_at_once_equals_the_segment_loop():
    """The pooled ranking's test of a column constant within every benchmark (numbers: NaN missing;
    category codes: -1 missing), done for all benchmarks at once by fmin/fmax (min/max) per segment, gives
    the per-segment loop's answer: signed zeros, infinities, NaN-only and one-value segments included."""
    from bandkit.postmortem.summary import _marks_benchmarks

    def loop(values, starts):
        for a, b in zip(starts[:-1], starts[1:]):
            seg = values[a:b]
            seg = seg[~np.isnan(seg)] if seg.dtype.kind == "f" else seg[seg >= 0]
            if seg.size > 1 and not np.all(seg == seg[0]):
                return False
        return True

    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(4000):
        k = int(rng.integers(1, 6))
        sizes = rng.integers(1, 5, k)
        starts = np.r_[0, np.cumsum(sizes)]
        n = int(starts[-1])
        if rng.random() < 0.5:
            v = rng.choice([0.0, -0.0, 1.0, np.nan, np.inf, -np.inf], n)
            if rng.random() < 0.5:  # constant within benchmarks, with gaps
                v = np.repeat(rng.choice([0.0, -0.0, 1.0, np.nan, np.inf], k), sizes)
                v[rng.random(n) < 0.2] = np.nan
        else:
            v = rng.choice([-1, 0, 1, 2], n).astype(np.int64)
            if rng.random() < 0.5:
                v = np.repeat(rng.choice([-1, 0, 3], k), sizes)
                v[rng.random(n) < 0.2] = -1
        want = loop(v, starts)
        seen.add(want)
        assert _marks_benchmarks(v, starts) == want, (v, starts)
    assert seen == {True, False}


def test_column_entry_keeps_the_columns_that_vary():
    """suspects.column_entry (fmin/fmax for numbers, bincount for category codes) keeps exactly the columns
    the nunique rule keeps: numbers with two different non-NaN values (signed zeros equal, infinities
    count), categories with 2 to n/2 distinct present values."""
    from bandkit.postmortem.suspects import column_entry

    rng = np.random.default_rng(3)
    kept = set()
    for _ in range(3000):
        n = int(rng.integers(1, 12))
        v = rng.choice([0.0, -0.0, 2.0, np.nan, np.inf], n)
        vals = v[~np.isnan(v)]
        want = not (vals.size == 0 or np.all(vals == vals[0]))
        assert (column_entry("c", True, v) is not None) == want, v
        codes = rng.choice([-1, 0, 1, 2, 5], n).astype(np.int64)
        present = codes[codes >= 0]
        k = np.unique(present).size
        want_c = not (k < 2 or k > 0.5 * present.size)
        assert (column_entry("c", False, (codes, np.array(list("abcdef")))) is not None) == want_c, codes
        kept |= {want, want_c}
    assert kept == {True, False}


def test_serial_gate_of_all_suspects_equals_the_one_by_one_gate():
    """suspects._serial_all (the serial-dependence gate of every suspect: numeric columns without gaps of one lag
    as 2-D row reductions) gives the floats of suspects._serial_inflation called suspect by suspect: smooth,
    tied, quantised, blocky and constant-within-group columns, lags -1..1, strata, steps and scattered labels,
    a column with a gap and a categorical one (both still one by one). Fails on a one-ulp difference."""
    from bandkit.postmortem import suspects as S

    rng = np.random.default_rng(11)
    checked = passed = 0
    for trial in range(80):
        n = int(rng.integers(6, 90))
        aff = np.zeros(n, dtype=bool)
        if trial % 2:
            aff[int(rng.integers(2, n - 2)):] = True
        else:
            aff[rng.choice(n, int(rng.integers(2, n - 2)), replace=False)] = True
        strata = np.repeat(np.arange(3), -(-n // 3))[:n] if trial % 5 == 0 else \
            rng.integers(0, 3, n) if trial % 5 == 1 else None  # (strata in stretches, or interleaved)
        entries, sus = [], []
        for j in range(14):
            kind = j % 7
            if kind == 0:
                v = np.cumsum(rng.normal(0, 1, n))  # smooth: passes the gate
            elif kind == 1:
                v = np.round(rng.normal(0, 1, n) + aff, 0)  # ties
            elif kind == 2:
                v = np.round(np.cumsum(rng.normal(0, 1, n)) * 4) / 4 * 1e3  # quantised, smooth
            elif kind == 3:
                v = np.where(aff, 2.0, 1.0) + (np.arange(n) % 2)  # constant within a group but for a flip
            elif kind == 4:
                v = rng.normal(0, 1, n) * 10.0 ** int(rng.integers(-6, 7))
            elif kind == 5:
                v = np.sin(np.arange(n) / 3.0) + rng.normal(0, 0.05, n)
            else:
                v = rng.normal(0, 1, n)
                v[int(rng.integers(0, n))] = np.nan  # a gap: one by one
            name = f"c{j}"
            entries.append((name, True, v))
            sus.append(S.Suspect(name, 0.5, {"lag": int(rng.integers(-1, 2))}))
        codes = rng.integers(0, 3, n)
        entries.append(("host", False, (codes, np.array(["a", "b", "c"]))))
        sus.append(S.Suspect("host", 0.5, {"lag": 0, "value": "b"}))
        entry_of = {e[0]: e for e in entries}
        fast = S._serial_all(sus, entry_of, aff, strata)
        slow = [S._serial_inflation(entry_of[s.metadata], s.evidence, aff, strata) for s in sus]
        assert [(type(a), type(b)) for a, b in fast] == [(float, float)] * len(sus)
        assert fast == slow
        # the ranks _block_suspects keeps at lag 0 (ranked in its own block) in place of ranking again
        dense = [e for e in entries if e[1] and bool(np.isfinite(e[2]).all())]
        ranks0: dict = {}
        S._block_suspects(dense, list(range(len(dense))), aff, trial % 3 or None, (0, 1, -1), 0.0, 1.0,
                          S._MaxT(aff), ranks0)
        assert ranks0 and S._serial_all(sus, entry_of, aff, strata, ranks0) == slow
        checked += len(sus)
        passed += sum(f != 1.0 for _, f in slow)
    assert checked > 1000 and passed > 100


def test_reported_suspect_p_value_and_medians_on_lists_equal_the_numpy_path():
    """A reported numeric suspect's Mann-Whitney p-value and group medians are computed on Python lists for
    short samples (suspects._mannwhitney_p_lists, noise.median_list): the floats of the numpy path (_tie_runs'
    ranks, noise.median / np.median), bit for bit, on ties, quantised and signed-zero values, one-run groups,
    both p-value paths and a zero spread (left to numpy)."""
    from bandkit.postmortem import suspects as S

    rng = np.random.default_rng(17)
    lists = 0
    for trial in range(3000):
        n1, n2 = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        q = rng.choice([0.5, 1.0, 1e-3, 0.0])
        x, y = rng.normal(0, 1, n1), rng.normal(0.4, 1, n2)
        if q:
            x, y = np.round(x / q) * q, np.round(y / q) * q
        if trial % 7 == 0:
            x, y = x * 0.0, -y * 0.0  # signed zeros, all tied: no spread
        ev = {"_data": (x, y)}
        S._finish_numeric(ev)
        xy = np.concatenate((x, y))
        # the numpy path, forced
        old = S.LISTS_MAX
        S.LISTS_MAX = 0
        try:
            ref = {"_data": (x, y)}
            S._finish_numeric(ref)
        finally:
            S.LISTS_MAX = old
        assert [ev[k] for k in ("median_affected", "median_reference", "p_value")] == \
            [ref[k] for k in ("median_affected", "median_reference", "p_value")]
        assert ev["median_affected"] == float(np.median(x)) and ev["median_reference"] == float(np.median(y))
        lists += xy.size <= S.LISTS_MAX
    assert lists > 1500



def test_robust_sd_on_lists_equals_the_numpy_path():
    """noise.robust_sd answers short residuals' MAD on a Python list (noise._mad_list): the float of the array path,
    bit for bit, and the array path decides the rest (quantised residuals: MAD 0 or a quarter at the median; NaN,
    infinities, sums that overflow): Gaussian, tied, three-level, tiny, signed-zero and non-finite samples."""
    import sys

    N = sys.modules["bandkit.postmortem.noise"]
    rng = np.random.default_rng(5)
    on_lists = 0
    for i in range(6000):
        n = int(rng.integers(2, 70))
        kind = i % 6
        if kind == 0:
            r = rng.normal(size=n)
        elif kind == 1:
            r = np.round(rng.normal(size=n) * 2) / 2
        elif kind == 2:
            r = rng.integers(0, 3, n).astype(float) * 1e-3 - 1e-3
        elif kind == 3:
            r = rng.standard_t(1, n) * 1e-200
        elif kind == 4:
            r = rng.normal(size=n)
            r[rng.integers(0, n)] = rng.choice([np.nan, np.inf, -np.inf, 1e308])
        else:
            r = np.where(rng.random(n) < 0.5, -0.0, 0.0) + np.round(rng.normal(size=n))
        with np.errstate(invalid="ignore"):
            got = N.robust_sd(r)
            old = N.LISTS_MAX
            N.LISTS_MAX = 0
            try:
                ref = N.robust_sd(r)
            finally:
                N.LISTS_MAX = old
        assert type(got) is float
        assert (got == ref and np.signbit(got) == np.signbit(ref)) or (got != got and ref != ref), (r, got, ref)
        on_lists += n <= N.LISTS_MAX and N._mad_list(r.tolist()) is not None
    assert on_lists > 2000


def test_lag1_clip_on_python_floats_equals_np_clip():
    """noise.lag1 clips its ratio with min / max of Python floats: np.clip's float, bit for bit (NaN kept,
    -0.0 kept at the lower bound, the bounds themselves)."""
    import math
    import sys

    N = sys.modules["bandkit.postmortem.noise"]
    rng = np.random.default_rng(3)
    vals = [float(v) for v in rng.normal(0, 1, 20000)] + [0.0, -0.0, 0.95, 1.0, -1.0, math.nan, math.inf, -math.inf,
                                                           math.nextafter(0.95, 1), 5e-324, -5e-324]
    for v in vals:
        a, b = float(np.clip(v, 0.0, 0.95)), min(max(v, 0.0), 0.95)
        assert (a == b and math.copysign(1, a) == math.copysign(1, b)) or (a != a and b != b), v
    for i in range(300):  # and lag1 itself, against the np.clip of its own scales
        r = rng.normal(size=int(rng.integers(10, 60))).cumsum() * rng.choice([1.0, 1e-3])
        s_plus, s_minus = N.robust_sd(r[:-1] + r[1:]), N.robust_sd(r[:-1] - r[1:])
        ref = float(np.clip((s_plus ** 2 - s_minus ** 2) / (s_plus ** 2 + s_minus ** 2), 0.0, 0.95))
        assert N.lag1(r) == ref and type(N.lag1(r)) is float


def test_gate_screen_before_the_serial_gate_keeps_the_same_suspects(monkeypatch):
    """rank_suspects leaves out, before the serial gate, the suspects that cannot pass without it
    (suspects._can_pass: too little support, or a max-T p-value >= alpha before the inflation, which only
    lowers the separation). The same suspects and evidence (key order included) as running the serial gate on
    every suspect: generated columns (strong, weak, smooth ones that the inflation stops, ties), strata,
    steps and scattered labels; and every benchmark of a real 60-benchmark pyperf file and of the pooled runs."""
    from bandkit.postmortem import suspects as S

    def both(*a, **k):
        fast = S.rank_suspects(*a, **k)
        monkeypatch.setattr(S, "_can_pass", lambda sus, *_: sus)
        slow = S.rank_suspects(*a, **k)
        monkeypatch.undo()
        return [(s.metadata, s.score, list(s.evidence.items())) for s in fast], \
            [(s.metadata, s.score, list(s.evidence.items())) for s in slow]

    rng = np.random.default_rng(23)
    found = 0
    for trial in range(40):
        n = int(rng.integers(10, 60))
        aff = np.zeros(n, dtype=bool)
        step = int(rng.integers(3, n - 3))
        if trial % 2:
            aff[step:] = True
        else:
            aff[rng.choice(n, int(rng.integers(3, n - 3)), replace=False)] = True
        strata = np.repeat(np.arange(3), -(-n // 3))[:n] if trial % 4 == 0 else None
        cols = {}
        for j in range(10):
            kind = j % 5
            if kind == 0:
                v = rng.normal(0, 1, n) + 3.0 * aff  # strong: passes
            elif kind == 1:
                v = np.cumsum(rng.normal(0, 1, n)) + aff  # smooth: the inflation's case
            elif kind == 2:
                v = np.round(rng.normal(0, 1, n) + 0.7 * aff, 0)  # ties, near the threshold
            elif kind == 3:
                v = rng.normal(0, 1, n) + 0.5 * aff  # weak
            else:
                v = rng.normal(0, 1, n)
            cols[f"c{j}"] = v
        cols["host"] = __import__("pandas").Categorical(rng.choice(["a", "b", "c"], n))
        entries = S._array_columns(cols)
        fast, slow = both(entries, aff, step_index=step if trial % 2 else None, max_suspects=50,
                          min_score=0.0, strata=strata, keep_negligible=True)
        assert fast == slow
        found += len(fast)
    assert found > 50
    # real runs: the report of a 60-benchmark file (every benchmark's suspects and the pooled ones), and how
    # many suspects the screen leaves out there (so that the check is not vacuous)
    traces = bandkit.load(SPEED2020)
    seen = []
    real = S._can_pass
    monkeypatch.setattr(S, "_can_pass", lambda sus, *a: seen.append((len(sus), len(real(sus, *a)))) or
                        real(sus, *a))
    fast = analyze(traces).to_dict()
    monkeypatch.setattr(S, "_can_pass", lambda sus, *_: sus)
    slow = analyze(traces).to_dict()
    assert fast == slow and json.dumps(fast) == json.dumps(slow)
    assert sum(a - b for a, b in seen) > 100 and sum(b for _, b in seen) > 100


def test_serial_inflation_equals_the_lag_by_lag_sums():
    """suspects._inflation (the variance inflation of an AR(1) column: lagged sums of the contrast kept per group
    of columns, and +0.0 without computing beyond the longest stretch of one stratum) equals the sum over every
    lag of the contrast's products written out, bit for bit: strata in stretches of several lengths,
    interleaved strata, no strata, gaps, rho up to the cap."""
    import math

    from bandkit.postmortem import suspects as S

    def reference(rho, ok, lab, st):
        rho = min(rho, S.SERIAL_RHO_MAX)
        na, nr = int(np.count_nonzero(lab & ok)), int(np.count_nonzero(~lab & ok))
        c = np.where(ok, np.where(lab, 1.0 / na, -1.0 / nr), 0.0)
        cc = float(c @ c)
        num = cc
        L = min(len(c) - 1, int(math.ceil(math.log(1e-6) / math.log(rho))) if rho > 0 else 0)
        for k in range(1, L + 1):
            prod = c[:-k] * c[k:] if st is None else np.where(st[:-k] == st[k:], c[:-k] * c[k:], 0.0)
            num += 2.0 * rho ** k * float(np.sum(prod))
        return float(rho), float(max(1.0, num / cc))

    rng = np.random.default_rng(31)
    for trial in range(300):
        n = int(rng.integers(4, 400))
        lab = rng.random(n) < rng.choice([0.1, 0.5])
        lab[:2] = [True, False]
        ok = rng.random(n) < 0.95
        ok[:2] = True
        kind = trial % 3
        st = np.repeat(np.arange(n), rng.integers(1, 30, n))[:n] if kind == 0 else \
            rng.integers(0, 4, n) if kind == 1 else None
        memo: dict = {}
        for rho in rng.uniform(0.3, 1.0, 4):
            assert S._inflation(float(rho), 400, ok, lab, st, memo) == reference(float(rho), ok, lab, st)


def test_array_columns_block_equals_column_by_column():
    """suspects._array_columns converts the plain numeric arrays of one length as one block and tests them
    for variation at once: the same entries (names, order, kinds, data bits) as column_entry column by column;
    _dense_columns' one-pass test equals the test per column."""
    import bandkit.postmortem.suspects as S
    from bandkit.metadata import Coded

    rng = np.random.default_rng(11)
    for trial in range(300):
        n = int(rng.integers(0, 30))
        cols = {}
        for j in range(int(rng.integers(1, 14))):
            kind = int(rng.integers(0, 7))
            if kind == 0:
                v = rng.normal(0, 1, n)
            elif kind == 1:
                v = rng.integers(0, 3, n)
            elif kind == 2:
                v = np.full(n, 2.0)
            elif kind == 3:
                v = rng.normal(0, 1, n)
                v[rng.random(n) < 0.5] = np.nan
            elif kind == 4:
                v = np.full(n, np.nan)
            elif kind == 5:
                v = Coded(rng.integers(-1, 3, n), ("a", "b", "c"))
            else:
                v = np.arange(n).astype("datetime64[s]")
            cols[("duration" if j == 0 and trial % 7 == 0 else f"k{j}")] = v
        got = S._array_columns(cols)
        want = []
        for c, a in cols.items():
            if isinstance(a, Coded):
                e = S.column_entry(c, False, (a.codes, a.categories)) if S.candidate(c, None) else None
            elif S.candidate(c, a.dtype):
                e = S.column_entry(c, True, np.array(a, dtype=np.float64))
            else:
                e = None
            if e is not None:
                want.append(e)
        assert [(c, k) for c, k, _ in got] == [(c, k) for c, k, _ in want]
        for (_, k, d), (_, _, w) in zip(got, want):
            if k:
                assert d.dtype == np.float64 and d.tobytes() == w.tobytes()
            else:
                assert np.array_equal(d[0], w[0]) and tuple(d[1]) == tuple(w[1])
        assert S._dense_columns(got) == [i for i, c in enumerate(got) if c[1] and bool(np.isfinite(c[2]).all())]


def test_max_t_set_extremes_equal_reduceat():
    """suspects._set_extremes (the max-T null's largest and smallest rank sum of each set of columns) equals
    np.maximum / np.minimum.reduceat over the sets' first rows: int32 and float64 sums, sets of one row,
    and an empty set (reduceat's own rule)."""
    from bandkit.postmortem.suspects import _set_extremes

    rng = np.random.default_rng(4)
    for trial in range(200):
        width = [int(w) for w in rng.integers(0 if trial % 10 == 0 else 1, 6, int(rng.integers(1, 5)))]
        rows = max(sum(width), 1)
        ST = rng.integers(0, 900, (rows, int(rng.integers(1, 50))))
        ST = ST.astype(np.int32) if trial % 2 else ST * 0.5
        if sum(width) == 0:
            continue
        at = np.cumsum([0] + width[:-1])
        if at[-1] >= ST.shape[0]:
            continue  # (reduceat needs every start inside the array)
        hi, lo = _set_extremes(ST, width)
        assert hi.dtype == ST.dtype and lo.dtype == ST.dtype
        assert np.array_equal(hi, np.maximum.reduceat(ST, at, axis=0))
        assert np.array_equal(lo, np.minimum.reduceat(ST, at, axis=0))


def test_within_run_se_in_run_order_equals_the_sorted_path():
    """within_run_se skips its stable sort when the rows are in run order (the runner loaders'), and finds
    the runs' ends by slicing: the float of the plain formulation (stable sort by run, np.append / np.diff,
    ``** 2``), bit for bit, for rows in run order and shuffled."""
    import sys

    from bandkit.robust import median

    N = sys.modules["bandkit.postmortem.noise"]

    def plain(v, r):
        order = np.argsort(r, kind="stable")
        v, r = v[order], r[order]
        starts = np.flatnonzero(np.concatenate(([True], r[1:] != r[:-1])))
        counts = np.diff(np.append(starts, v.size))
        if not np.any(counts >= 2):
            return None
        means = np.add.reduceat(v, starts) / counts
        dev2 = np.add.reduceat((v - np.repeat(means, counts)) ** 2, starts)
        ok = (counts >= 2) & (means > 0)
        if not ok.any():
            return None
        return float(median(np.sqrt(dev2[ok] / (counts[ok] - 1)) / means[ok] / np.sqrt(counts[ok])))

    rng = np.random.default_rng(11)
    for i in range(600):
        k = int(rng.integers(1, 25))
        r = np.repeat(np.arange(1, k + 1) * 2, rng.integers(1, 5, k))
        v = rng.normal(1.0, 0.05, r.size) * rng.choice([1.0, 1e-6, -1.0])
        if i % 3 == 2:
            perm = np.argsort(rng.random(r.size))
            v, r = v[perm], r[perm]
        assert N.within_run_se(v, r) == plain(v, r)


def test_detect_tick_shortcuts_equal_the_plain_tests():
    """detect_tick's shortcuts (the largest |v| from the sorted ends, the finite filter only when an end is
    not finite, the first head value tested inline, np.diff / np.min as slicing and .min()): the answers of
    the plain formulation on decimal grids, clock grids, float timings, ties, non-finite and huge values."""
    from bandkit.robust import detect_tick
    from tick_reference import detect_tick_plain

    rng = np.random.default_rng(4)
    for i in range(6000):
        n = int(rng.integers(0, 30))
        kind = i % 6
        if kind == 0:
            v = rng.normal(1.0, 0.1, n)
        elif kind == 1:
            v = np.round(rng.normal(100, 3, n)) * 0.01
        elif kind == 2:
            v = rng.integers(0, 5, n) * 4.9 + 10.0
        elif kind == 3:
            v = rng.choice([np.nan, np.inf, -np.inf, 1.0, 2.0, 0.0, -0.0, 1e13, -3.5], n)
        elif kind == 4:
            v = np.round(rng.exponential(1, n), int(rng.integers(0, 7)))
        else:
            v = rng.normal(0, 1e12, n)
        got, want = detect_tick(v), detect_tick_plain(v)
        assert got == want or (got is None and want is None), (v, got, want)


def test_trend_without_numpy_wrappers_equals_the_plain_formulation():
    """classify._trend's slope, z, p and BICs with np.add.reduce, x * x and max / min for np.mean, np.sum,
    ``** 2`` and np.clip: the floats of the plain formulation, bit for bit (drifts, steps, outliers)."""
    import importlib
    import math

    K = importlib.import_module("bandkit.postmortem.classify")
    from bandkit.changepoints.penalty import long_run_factor
    from bandkit.postmortem.noise import lag1

    def plain(x, labels, g, noise, n_params):
        idx = np.flatnonzero(labels >= 0)
        y, t = x[idx], idx.astype(np.float64)
        tc = t - t.mean()
        sxx = float(np.sum(tc * tc))
        slope = float(np.sum(tc * (y - y.mean())) / sxx)
        resid_lin = y - (y.mean() + slope * tc)
        r = np.clip(resid_lin, -g.clip * noise.sigma, g.clip * noise.sigma)
        s_lr = max(float(np.std(r)), noise.floor) * long_run_factor(max(lag1(r), noise.rho))
        pc = np.zeros_like(y)
        for lab in np.unique(labels[idx]):
            pc[labels[idx] == lab] = np.mean(y[labels[idx] == lab])
        m = y.size
        return (slope, slope / (s_lr / math.sqrt(sxx)),
                m * math.log(max(float(np.sum(resid_lin ** 2)) / m, 1e-300)) + 2 * math.log(m),
                m * math.log(max(float(np.sum((y - pc) ** 2)) / m, 1e-300)) + n_params * math.log(m))

    rng = np.random.default_rng(8)
    seen = 0
    for i in range(400):
        n = int(rng.integers(8, 60))
        m = np.exp(rng.normal(0, 0.02, n) + (i % 3 == 0) * 0.002 * np.arange(n) + (i % 4 == 1) * 0.1 * (np.arange(n) > n // 2))
        if i % 5 == 0:
            m[rng.integers(0, n, 3)] *= 1.3
        c = K.classify(m)
        x = np.log(m)
        tr = K._trend(x, c.labels, c.gates, c.noise, c.test_scale, n_params=3)
        if tr is None:
            continue
        seen += 1
        slope, z, bic_lin, bic_pc = plain(x, c.labels, c.gates, c.noise, 3)
        assert (tr["slope_per_run"], tr["z"], tr["bic_linear"], tr["bic_steps"]) == (slope, z, bic_lin, bic_pc)
    assert seen > 300


def test_two_distinct_readings_are_not_their_own_clock_tick():
    """A series of only two readings (70 and 100 ms) has one gap, its own gcd: detect_tick took it for the clock
    tick (30 ms), the noise floor became ~10 % and 10 of 39 runs at x0.70 read "stable" (power2). Two distinct
    values give the unit they are written in; whole-ms readings one unit apart keep their tick."""
    from bandkit.loaders.runner_common import build_runner_trace
    from bandkit.loaders.source import Source
    from bandkit.robust import detect_tick

    assert detect_tick(np.array([70.0, 100.0, 70.0])) == 1.0
    assert detect_tick(np.array([0.0727, 0.0731])) == pytest.approx(1e-4)
    assert detect_tick(np.array([5.0, 6.0, 5.0])) == 1.0 and detect_tick(np.array([1.0, 4.0, 7.0])) == 3.0
    lab = np.zeros(39, bool)
    lab[np.random.default_rng(0).permutation(39)[:10]] = True
    t = build_runner_trace(Source(name="two.csv"), "csv", "two", [([v], {}) for v in np.where(lab, 70.0, 100.0)],
                           value_unit="ms")
    pm = postmortem(t)
    assert pm.verdict == "bimodal" and [round(b.level) for b in pm.bands] == [70, 100]
    rng = np.random.default_rng(1)  # whole-ms timings, 5 % of them one tick higher: quantisation, not two levels
    t = build_runner_trace(Source(name="ms.csv"), "csv", "ms",
                           [([v], {}) for v in np.where(rng.random(200) < 0.05, 6.0, 5.0)], value_unit="ms")
    assert postmortem(t).verdict == "stable"
