"""`compare` of summary-only results: from the statistics the files state, with a ratio and the
method named (issue 14): pytest-benchmark / asv / Google Benchmark files written in their real layouts."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from bandkit.cli import main
from bandkit.compare import compare_files


def _pb(path, mean, sd, rounds, data=None):
    st = {"min": mean * 0.8, "max": mean * 1.3, "mean": mean, "stddev": sd, "rounds": rounds, "median": mean,
          "iqr": sd, "q1": mean - sd / 2, "q3": mean + sd / 2, "iqr_outliers": 0, "stddev_outliers": 1,
          "outliers": "1;0", "ld15iqr": mean * 0.8, "hd15iqr": mean * 1.3, "ops": 1 / mean, "total": mean * rounds,
          "iterations": 1}
    if data is not None:
        st["data"] = data
    doc = {"machine_info": {"node": "h"}, "commit_info": {"id": "abc"}, "datetime": "2024-01-01T00:00:00",
           "version": "4.0.0", "benchmarks": [{"group": None, "name": "test_parse", "fullname": "t.py::test_parse",
                                               "params": None, "param": None, "stats": st}]}
    path.write_text(json.dumps(doc))
    return path


def test_pytest_benchmark_summary_pair_welch_from_stats(tmp_path, capsys):
    a = _pb(tmp_path / "a.json", 1.21e-3, 0.11e-3, 120)
    b = _pb(tmp_path / "b.json", 1.50e-3, 0.12e-3, 100)
    cmp = compare_files(a, b)
    (c,) = cmp.benchmarks
    assert c.method == "welch-stats" and c.statistic == "mean"
    assert c.ratio == pytest.approx(1.50 / 1.21)
    ref = stats.ttest_ind_from_stats(1.21e-3, 0.11e-3, 120, 1.50e-3, 0.12e-3, 100, equal_var=False)
    assert c.p_value == pytest.approx(ref.pvalue) and c.significant
    assert c.ci_low < c.ratio < c.ci_high and c.ci_low > 1.2
    assert (c.runs_a, c.runs_b) == (120, 100)
    d = cmp.to_dict()
    assert d["n_significant"] == 1 and d["methods"]["welch-stats"] == 1 and d["benchmarks"][0]["method"] == "welch-stats"
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "significant: 1 of 1" in out and "Welch's t-test from mean, sd and n" in out and "stats" in out


def test_pytest_benchmark_equal_summaries_not_significant(tmp_path):
    a = _pb(tmp_path / "a.json", 1.21e-3, 0.11e-3, 120)
    b = _pb(tmp_path / "b.json", 1.212e-3, 0.11e-3, 120)
    (c,) = compare_files(a, b).benchmarks
    assert not c.significant and c.ci_low < 1 < c.ci_high and c.p_value > 0.5


def test_one_side_with_rounds_other_summary_only(tmp_path):
    rng = np.random.default_rng(0)
    data = (1.2e-3 + 1e-4 * rng.standard_normal(50)).tolist()
    a = _pb(tmp_path / "a.json", float(np.mean(data)), float(np.std(data, ddof=1)), 50, data=data)
    b = _pb(tmp_path / "b.json", 1.5e-3, 1e-4, 50)
    (c,) = compare_files(a, b).benchmarks
    assert c.method == "welch-stats" and c.significant and c.ratio == pytest.approx(1.5e-3 / np.mean(data))


def _asv_v2(path, results):
    cols = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b",
            "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]
    rows = {name: [[med], [], "v", 0, 1.0, [lo], [hi], [lo], [hi], [1], [10], None, None]
            for name, (med, lo, hi) in results.items()}
    path.write_text(json.dumps({"version": 2, "commit_hash": "abc", "env_name": "e", "result_columns": cols,
                                "results": rows}))
    return path


def test_asv_v2_pair_compared_by_interval_overlap(tmp_path):
    a = _asv_v2(tmp_path / "a.json", {"m.time_a": (1.0, 0.95, 1.05), "m.time_b": (2.0, 1.9, 2.1)})
    b = _asv_v2(tmp_path / "b.json", {"m.time_a": (1.2, 1.1, 1.3), "m.time_b": (2.05, 1.95, 2.2)})
    cmp = compare_files(a, b)
    by = {c.name: c for c in cmp.benchmarks}
    assert {c.method for c in cmp.benchmarks} == {"ci-overlap"} and by["m.time_a"].statistic == "median"
    assert by["m.time_a"].ratio == pytest.approx(1.2) and by["m.time_a"].significant
    assert by["m.time_a"].ci_low == pytest.approx(1.1 / 1.05) and by["m.time_a"].ci_level == 0.99
    assert by["m.time_b"].ratio == pytest.approx(1.025) and not by["m.time_b"].significant
    assert by["m.time_b"].p_value is None


def test_asv_v1_pair_with_mean_sd_repeat_uses_welch(tmp_path):
    def v1(path, mean):
        path.write_text(json.dumps({"version": 1, "results": {"m.time_x": {
            "result": [mean], "stats": [{"ci_99": [mean * 0.9, mean * 1.1], "q_25": mean * 0.97, "q_75": mean * 1.03,
                                         "min": mean * 0.9, "max": mean * 1.1, "mean": mean, "std": mean * 0.02,
                                         "repeat": 10, "number": 1}]}}}))
        return path
    (c,) = compare_files(v1(tmp_path / "a.json", 1.0), v1(tmp_path / "b.json", 1.1)).benchmarks
    assert c.method == "welch-stats" and c.significant and c.ratio == pytest.approx(1.1)


def test_gbench_single_runs_compared_as_point_values(tmp_path):
    def gb(path, v):
        path.write_text(json.dumps({"context": {}, "benchmarks": [
            {"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
             "threads": 1, "iterations": 1000, "real_time": v, "cpu_time": v, "time_unit": "ns"}]}))
        return path
    cmp = compare_files(gb(tmp_path / "a.json", 100.0), gb(tmp_path / "b.json", 80.0))
    (c,) = cmp.benchmarks
    assert c.method == "point" and c.ratio == pytest.approx(0.8) and not c.significant and c.ci_low is None
    assert "ratio only, significance not assessed" in cmp.to_text()
