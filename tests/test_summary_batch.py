"""The summary-only batch (bandkit.postmortem.batch): the report of many one-value benchmarks is the
one the per-benchmark sections write (JSON, text, findings, results), on generated asv files of
thousands of benchmarks and on every bundled runner file."""
from __future__ import annotations

import importlib
import json
import math
import random

import numpy as np
import pytest

from bandkit import AnalysisOptions, analyze
from bandkit.loaders.registry import load_traces
from bandkit.postmortem import batch
from bandkit.postmortem.result import PostMortem

from conftest import DATA  # noqa: F401  (tests/conftest.py)

_analyze = importlib.import_module("bandkit.analyze")


def _asv_v1(n: int, seed: int = 7) -> dict:
    """An asv v1 result file: one parametrised benchmark of ``n`` one-value combinations (some
    failed: null; some with stats, some with only the result), a track_ benchmark (no unit), one
    with recorded samples (per-run values: not batched), and plain one-value benchmarks."""
    rng = random.Random(seed)
    result, stats = [], []
    for i in range(n):
        r = rng.random()
        result.append(None if r < 0.02 else 10 ** rng.uniform(-7, 1))
        stats.append(None if r < 0.5 else {"mean": result[-1] and result[-1] * 1.01, "std": rng.random() * 1e-4,
                                           "min": result[-1] and result[-1] * 0.9, "max": result[-1] and result[-1] * 1.2,
                                           "repeat": rng.randint(1, 20), "number": 3,
                                           "ci_99": [result[-1] and result[-1] * 0.8, result[-1] and result[-1] * 1.3]})
    return {"version": 1, "commit_hash": "abc", "env_name": "conda-py3.11", "python": "3.11",
            "date": 1600000000000, "params": {"machine": "m", "cpu": "x"},
            "results": {
                "suite.Big.time_f": {"result": result, "stats": stats, "params": [[str(i) for i in range(n)]]},
                "suite.track_size": {"result": [4096], "stats": [{"repeat": 1}]},
                "suite.time_plain": 0.25,
                "suite.time_samples": {"result": [0.1], "samples": [[0.1, 0.11, 0.09, 0.1, 0.12]],
                                       "stats": [{"mean": 0.104}]},
                "suite.time_zero": {"result": [0.0]},
            }}


def _asv_v2(n: int) -> dict:
    return {"version": 2, "commit_hash": "def", "env_name": "e", "python": "3.12", "date": 1600000000000,
            "result_columns": ["result", "params", "version", "started_at", "duration", "stats_ci_99_a",
                               "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat"],
            "results": {f"m.time_{i}": [[1e-3 * (1 + i % 17)], [], "v", 1, 2, [9e-4], [1.2e-3 * (1 + i % 17)],
                                        [1e-3], [1.1e-3], [10], [5]] for i in range(n)}}


def _reports(path, options=None):
    traces = load_traces(str(path))
    fast = analyze(traces, options)
    saved = _analyze.BATCH_MIN
    _analyze.BATCH_MIN = 10 ** 9
    try:
        slow = analyze(traces, options)
    finally:
        _analyze.BATCH_MIN = saved
    return traces, fast, slow


def _same(fast, slow) -> None:
    assert fast.to_json() == slow.to_json()
    assert fast.to_text(color=False) == slow.to_text(color=False)
    assert fast.to_text(color=False, width=160) == slow.to_text(color=False, width=160)
    assert fast.findings == slow.findings
    for a, b in zip(fast.traces, slow.traces):
        assert [s.name for s in a.sections] == [s.name for s in b.sections]
        if not (a.plain or b.plain):  # (the same code made both)
            continue
        for sa, sb in zip(a.sections, b.sections):
            assert json.dumps(sa.fields, sort_keys=False, default=str) == json.dumps(sb.fields, default=str)
            ra, rb = sa.result, sb.result
            assert type(ra) is type(rb)
            if isinstance(ra, PostMortem):
                for f in ("name", "unit", "verdict", "n_runs", "n_values", "summary_only", "note", "gate", "steps",
                          "bands", "suspects", "sigma", "affected_runs", "reference", "slow_runs", "episodes"):
                    assert getattr(ra, f) == getattr(rb, f), f
                for f in ("run_numbers", "run_means", "labels"):
                    x, y = getattr(ra, f), getattr(rb, f)
                    assert x.dtype == y.dtype and np.array_equal(x, y), f
            else:
                assert ra == rb


def test_five_thousand_one_value_asv_benchmarks_equal_the_per_benchmark_path(tmp_path):
    p = tmp_path / "many.json"
    p.write_text(json.dumps(_asv_v1(5000)))
    traces, fast, slow = _reports(p)
    assert len(traces) > 4900
    n_batch = sum(tr.plain for tr in fast.traces)
    assert n_batch > 4800 and not any(tr.plain for tr in slow.traces)
    # the one with samples is analysed one section at a time, as is the first summary-only trace
    assert not fast.traces[0].plain
    sampled = [tr for tr in fast.traces if tr.trace.meta.name == "suite.time_samples"]
    assert sampled and not sampled[0].plain and sampled[0].result("postmortem").verdict != "no_runs"
    _same(fast, slow)
    verdicts = {tr.result("postmortem").verdict for tr in fast.traces}
    assert "no_runs" in verdicts


def test_asv_v2_and_analysis_options_equal_the_per_benchmark_path(tmp_path):
    p = tmp_path / "v2.json"
    p.write_text(json.dumps(_asv_v2(300)))
    for options in (None, AnalysisOptions(skip=("summary",)), AnalysisOptions(skip=("postmortem",)),
                    AnalysisOptions(params={"postmortem": {"min_runs": 2, "min_ratio": 1.1}})):
        _, fast, slow = _reports(p, options)
        assert any(tr.plain for tr in fast.traces)
        _same(fast, slow)


def test_bad_options_still_raise_with_the_batch(tmp_path):
    p = tmp_path / "v2.json"
    p.write_text(json.dumps(_asv_v2(50)))
    with pytest.raises(ValueError, match="min_ratio"):
        analyze(load_traces(str(p)), AnalysisOptions(params={"postmortem": {"min_ratio": 0.5}}))


def test_every_bundled_runner_file_equals_the_per_benchmark_path():
    seen = 0
    for path in sorted((DATA / "runners").iterdir()):
        if path.name in ("pvlib_machine.json", "simple_insert_hecs_new_benchmark.json") or path.suffix == ".csv":
            continue
        _, fast, slow = _reports(path)
        _same(fast, slow)
        seen += 1
    assert seen >= 8


def test_batchable_is_only_one_row_summary_traces():
    from bandkit.loaders.registry import load_traces as lt

    traces = lt(str(DATA / "runners" / "pvlib_fff1131b-conda-py3.8.json"))
    assert all(batch.batchable(t) for t in traces)
    pyperf = lt(str(DATA / "runners" / "bpfilter_005d041.json"))
    assert not any(batch.batchable(t) for t in pyperf)


def test_nan_summary_values_are_batched_like_the_per_benchmark_path(tmp_path):
    """Google Benchmark aggregates-only rows load as summary traces whose value is NaN."""
    doc = {"context": {"date": "2024-01-01T00:00:00", "num_cpus": 2, "mhz_per_cpu": 1000,
                       "library_build_type": "release"},
           "benchmarks": []}
    for i in range(40):
        for agg, v in (("mean", 10.0 + i), ("median", 9.5 + i), ("stddev", 0.5), ("cv", 0.05)):
            doc["benchmarks"].append({"name": f"BM_{i}_{agg}", "run_name": f"BM_{i}", "run_type": "aggregate",
                                      "aggregate_name": agg, "repetitions": 3, "threads": 1, "iterations": 100,
                                      "real_time": v, "cpu_time": v, "time_unit": "ns"})
    doc["benchmarks"].append({"name": "BM_bigo_BigO", "run_name": "BM_bigo", "run_type": "aggregate",
                              "aggregate_name": "BigO", "cpu_coefficient": 1.0, "real_coefficient": 1.0,
                              "big_o": "N", "time_unit": "ns"})
    p = tmp_path / "gb.json"
    p.write_text(json.dumps(doc))
    traces, fast, slow = _reports(p)
    assert any(tr.plain for tr in fast.traces)
    assert any(not math.isfinite(float(t.column_arrays["value"][0])) for t in traces if batch.batchable(t))
    _same(fast, slow)


def test_more_benchmarks_than_the_limit_are_refused_in_one_line(tmp_path, capsys):
    """bandkit.limits.MAX_BENCHMARKS: an input of more benchmarks is refused with one line naming the
    file, the count and the option (asv: as soon as the count passes it; other formats after loading)."""
    from bandkit import Limits
    from bandkit.cli import main
    from bandkit.errors import InputError
    from bandkit.limits import MAX_BENCHMARKS

    assert Limits().max_benchmarks == MAX_BENCHMARKS == 50_000
    p = tmp_path / "many.json"
    p.write_text(json.dumps(_asv_v2(1500)))
    rc = main(["report", "-q", "--max-benchmarks", "1000", str(p)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith(f"bandkit: error: {p}: at least 1,001 benchmarks, more than the limit of 1,000") \
        and "--max-benchmarks" in err
    assert main(["report", "-q", "--max-benchmarks", "1500", "-f", "json", "-o", str(tmp_path / "r.json"), str(p)]) == 0
    assert len(json.loads((tmp_path / "r.json").read_text())["traces"]) == 1500
    src = DATA / "runners" / "bpfilter_005d041.json"  # (pyperf: checked after loading)
    n = len(load_traces(str(src)))
    with pytest.raises(InputError, match=f"{n:,} benchmarks, more than the limit of {n - 1:,}"):
        load_traces(str(src), limits=Limits(max_benchmarks=n - 1))
