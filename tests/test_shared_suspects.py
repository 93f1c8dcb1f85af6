"""The cross-benchmark ``shared_suspect``: a column must mark the slow runs *within* benchmarks, and mark
them clearly (postmortem/summary.py: labels permuted within benchmarks, MIN_MARK)."""
from __future__ import annotations

import datetime as dt

import numpy as np

import bandkit
from bandkit.analyze import analyze
from bandkit.synthetic.pyperf import write_pyperf


def _suite(rng, n_bench, n_runs, slow_of, md_of):
    """``slow_of(b)``: set of slow run numbers of benchmark b; ``md_of(b, k, slow)``: extra metadata."""
    t = dt.datetime(2024, 3, 1, 12)
    benches = []
    for b in range(n_bench):
        slow = slow_of(b)
        runs = []
        for k in range(n_runs + 1):
            f = 1.3 if k in slow else 1.0
            md = {"date": t.isoformat(sep=" "), "duration": 1.0, **md_of(b, k, k in slow)}
            run = {"metadata": md, "warmups": [[1, 0.0105]]}
            if k == 0:
                md["calibrate_loops"] = 1
            else:
                run["values"] = (0.01 * f * (1 + 0.005 * rng.standard_normal(3))).tolist()
            runs.append(run)
            t += dt.timedelta(seconds=1.1)
        benches.append({"metadata": {"name": f"bm_{b:02d}", "loops": 1}, "runs": runs})
    return {"version": "1.0", "metadata": {"hostname": "t", "unit": "second"}, "benchmarks": benches}


def _shared(tmp_path, suite):
    rep = analyze(bandkit.load(write_pyperf(tmp_path / "s.json", suite)))
    return [f["metadata"] for f in rep.findings if f["kind"] == "shared_suspect"], rep


def test_a_column_that_differs_between_benchmarks_is_no_shared_suspect(tmp_path):
    """Real pyperf files: the slow runs sat in benchmarks that use less memory, and mem_max_rss was the
    'shared suspect' of 4 of 10 files (0/24 slow runs beyond its threshold)."""
    rng = np.random.default_rng(1)
    rss = {b: (10e6 if b < 10 else 30e6) for b in range(30)}
    s = _suite(rng, 30, 20, lambda b: {3, 11} if b < 8 else set(),
               lambda b, k, slow: {"mem_max_rss": int(rss[b] * (1 + 0.003 * rng.standard_normal()))})
    names, rep = _shared(tmp_path, s)
    assert rep.cross_section("runner_summary").fields["runner_summary"]["pooled_affected"] >= 10
    assert "mem_max_rss" not in names


def test_a_significant_but_slight_difference_does_not_mark_the_slow_runs(tmp_path):
    """3,701 vs 3,700.75 MHz: slow runs read one MHz higher a bit more often than the others."""
    rng = np.random.default_rng(2)
    s = _suite(rng, 40, 20, lambda b: {2, 9, 15} if b % 2 == 0 else set(),
               lambda b, k, slow: {"load_avg_1min": 1.01 if rng.random() < (0.85 if slow else 0.45) else 1.0})
    names, rep = _shared(tmp_path, s)
    sus = rep.cross_section("runner_summary").result.shared_suspects
    assert "load_avg_1min" not in names and all(x.metadata != "load_avg_1min" for x in sus)


def test_a_column_that_marks_the_slow_runs_in_every_benchmark_is_the_shared_suspect(tmp_path):
    rng = np.random.default_rng(3)
    s = _suite(rng, 30, 20, lambda b: {4, 12} if b % 3 == 0 else set(),
               lambda b, k, slow: {"cpu_temp": f"coretemp:Package id 0={int(60 + (12 if slow else 0) + rng.normal(0, 1))} C",
                                   "mem_max_rss": int((10e6 if b % 3 == 0 else 30e6) * (1 + 0.003 * rng.standard_normal()))})
    names, rep = _shared(tmp_path, s)
    assert names[:1] == ["cpu_temp_c"]
    ev = rep.cross_section("runner_summary").result.shared_suspects[0].evidence
    assert ev["ks"] >= 0.9 and ev["p_adjusted"] < 0.01


def test_a_runs_own_wall_time_is_never_a_suspect():
    """PTS writes each run's wall time (``test_run_time_s``): slow runs take longer by construction, and a
    real composite.xml opened with "test_run_time_s marks the slow runs across 3 benchmarks (score 0.93)"."""
    from bandkit.postmortem.suspects import candidate

    assert not candidate("test_run_time_s", None) and not candidate("duration", None)
    assert candidate("cpu_temp_c", None)


def test_the_pooled_threshold_marks_the_slow_runs_on_the_side_of_their_median(tmp_path):
    """speedpython 2020: "cpu_freq_mhz.cpu19 3,332 vs 2,629 MHz; <=1,654: 1/248 vs 0/952" - the cut that
    classified most pooled runs right was the trivial one below a single slow run's extreme reading (952 other
    runs right for free), on the other side of both medians. Here: slow runs read 3,332 MHz (one reads 1,000),
    two in five other runs 3,332 and the rest 1,500-3,000; the cut must be the one that marks them (KS)."""
    rng = np.random.default_rng(4)
    def md(b, k, slow):
        if slow:
            return {"cpu_x": 1000.0 if (b, k) == (0, 4) else 3332.0 + rng.integers(-1, 2)}
        return {"cpu_x": 3332.0 + rng.integers(-1, 2) if rng.random() < 0.4 else float(rng.uniform(1500, 3000))}

    s = _suite(rng, 20, 20, lambda b: {4, 9, 13, 17}, md)
    names, rep = _shared(tmp_path, s)
    assert "cpu_x" in names
    ev = next(x for x in rep.cross_section("runner_summary").result.shared_suspects if x.metadata == "cpu_x").evidence
    assert ev["median_affected"] > ev["median_reference"]
    assert ev["affected_when"] == "above" and 3000 < ev["threshold"] < 3332
    assert ev["affected_on_side"] / ev["affected"] - ev["reference_on_side"] / ev["reference"] >= 0.5
    assert ev["correct"] == ev["affected_on_side"] + ev["reference"] - ev["reference_on_side"]
