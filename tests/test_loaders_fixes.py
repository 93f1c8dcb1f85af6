"""Regression tests of issue 14's loader gaps, each on a small file written here in the real layout
of its runner: both Criterion layouts, summary-only results carried as statistics, stable PTS
names, Google Benchmark complexity rows, pyperf < 1.0 warm-ups, bounded JSON."""
from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest

import bandkit
from bandkit.compare import compare
from bandkit.errors import InputError
from bandkit.loaders import detect_format
from bandkit.loaders.source import Source


def _traces(path, **kw):
    t = bandkit.load(path, **kw)
    return t if isinstance(t, list) else [t]


def _fmt(path):
    return detect_format(Source.open(path))


# -- Criterion ---------------------------------------------------------------------------------
# criterion.rs 0.2 (the layout of the book's CSV chapter before 0.3): value = the benchmark's
# parameter, sample_time_nanos = total time of the sample, iteration_count = iterations in it.
ITERS = [10, 20, 30, 40, 50]
TIMES = [48.0, 95.5, 142.2, 190.4, 237.5]  # ns per sample
PER_ITER = [t / n for t, n in zip(TIMES, ITERS)]


@pytest.mark.parametrize("param, label", [("20", "Fibonacci/Iterative/20"), ("", "Fibonacci/Iterative")])
def test_criterion_raw_csv_old_layout_parameter_column_is_not_the_measurement(tmp_path, param, label):
    p = tmp_path / "raw.csv"
    rows = ["group,function,value,sample_time_nanos,iteration_count"]
    rows += [f"Fibonacci,Iterative,{param},{t},{n}" for t, n in zip(TIMES, ITERS)]
    p.write_text("\n".join(rows) + "\n")
    assert _fmt(p) == "criterion"
    (t,) = _traces(p)
    assert t.label == label and len(t.values) == 5
    assert t.values.tolist() == pytest.approx(PER_ITER)
    assert t.values.mean() == pytest.approx(np.mean(PER_ITER))  # Criterion's per-iteration sample mean
    assert 20 not in t.values.tolist()
    assert t.data["iters"].tolist() == ITERS


def test_criterion_raw_csv_new_layout_units_normalised(tmp_path):
    p = tmp_path / "raw.csv"
    rows = ["group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count"]
    rows += [f"Fibonacci,Iterative,,,,{t / 1000},us,{n}" for t, n in zip(TIMES, ITERS)]
    p.write_text("\n".join(rows) + "\n")
    assert _fmt(p) == "criterion"
    (t,) = _traces(p)
    assert t.meta.value_unit == "ns" and t.values.tolist() == pytest.approx(PER_ITER)


def test_criterion_raw_csv_bad_row_names_line(tmp_path):
    p = tmp_path / "raw.csv"
    p.write_text("group,function,value,sample_time_nanos,iteration_count\ng,f,,12,3\ng,f,,x,3\n")
    with pytest.raises(InputError) as err:
        bandkit.load(p)
    assert err.value.line == 3 and "not a number" in str(err.value)
    p.write_text("group,function,value,sample_time_nanos,iteration_count\ng,f,,12,0\n")
    with pytest.raises(InputError, match="iteration_count must be >= 1"):
        bandkit.load(p)


@pytest.mark.parametrize("doc, where", [
    ({"full_id": "g/f", "title": "g/f", "times": [1.0, 2.0]}, "iters"),
    ({"full_id": "g/f", "iters": [1.0, 2.0], "times": 3}, "times")])
def test_criterion_sample_json_without_its_lists_is_refused(tmp_path, doc, where):
    # (fuzz long run, criterion:28743: a benchmark.json with 'times' but no 'iters' passes the input schema's
    # benchmark.json branch and was a KeyError traceback)
    p = tmp_path / "sample.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        bandkit.load(p, format="criterion")
    assert err.value.field == where


@pytest.mark.parametrize("layout", ["lists", "object"])
def test_criterion_sample_json_both_layouts(tmp_path, layout):
    d = tmp_path / "Fibonacci" / "Iterative" / "new"
    d.mkdir(parents=True)
    p = d / "sample.json"
    if layout == "lists":  # criterion.rs before 0.3.4
        p.write_text(json.dumps([[float(n) for n in ITERS], TIMES]))
    else:
        p.write_text(json.dumps({"sampling_mode": "Linear", "iters": [float(n) for n in ITERS], "times": TIMES}))
    assert _fmt(p) == "criterion"
    (t,) = _traces(p)
    assert t.label == "Fibonacci/Iterative"
    assert t.values.mean() == pytest.approx(np.mean(PER_ITER))
    (d / "benchmark.json").write_text(json.dumps({"group_id": "Fibonacci", "function_id": "Iterative",
                                                  "full_id": "Fibonacci/Iterative/20", "title": "x"}))
    (t,) = _traces(p)
    assert t.label == "Fibonacci/Iterative/20"


def test_criterion_sibling_benchmark_json_deeply_nested_is_ignored(tmp_path):
    (tmp_path / "benchmark.json").write_text("[" * 100000 + "]" * 100000)
    p = tmp_path / "sample.json"
    p.write_text(json.dumps({"sampling_mode": "Flat", "iters": [1.0, 1.0], "times": [3.0, 4.0]}))
    (t,) = _traces(p)
    assert t.values.tolist() == [3.0, 4.0]


# -- a table that is not measurements ----------------------------------------------------------
def test_csv_of_labels_is_refused_with_a_reason(tmp_path):
    p = tmp_path / "ids.csv"
    p.write_text("id,name\n" + "".join(f"{i},item{i}\n" for i in range(1, 40)))
    with pytest.raises(InputError) as err:
        bandkit.load(p)
    assert "id is a row index" in str(err.value) and "measurement" in str(err.value)
    # measurements beside the same kind of table load
    p.write_text("value,name\n" + "".join(f"{1.5 + (i % 7) * 0.01},b\n" for i in range(1, 40)))
    (t,) = _traces(p)
    assert len(t.values) == 39


# -- summary-only results carried as statistics -------------------------------------------------
def _pytest_benchmark(stats: dict, name="test_fast") -> dict:
    return {"machine_info": {"node": "h"}, "commit_info": {"id": "abc"}, "datetime": "2024-01-01T00:00:00",
            "version": "4.0.0", "benchmarks": [{"group": None, "name": name, "fullname": f"t.py::{name}",
                                                "params": None, "param": None, "stats": stats}]}


PB_STATS = {"min": 0.0010, "max": 0.0016, "mean": 0.00121, "stddev": 0.00011, "rounds": 120, "median": 0.0012,
            "iqr": 0.0001, "q1": 0.00115, "q3": 0.00125, "iqr_outliers": 3, "stddev_outliers": 5,
            "outliers": "5;3", "ld15iqr": 0.0010, "hd15iqr": 0.0014, "ops": 826.4, "total": 0.1452, "iterations": 10}


def test_pytest_benchmark_summary_only_carries_statistics(tmp_path):
    p = tmp_path / "0001_pb.json"
    p.write_text(json.dumps(_pytest_benchmark(PB_STATS)))
    (t,) = _traces(p)
    st = t.meta.extra["summary_stats"]
    assert t.meta.extra["summary_only"]
    assert st == {"statistic": "mean", "mean": 0.00121, "stddev": 0.00011, "median": 0.0012, "min": 0.0010,
                  "max": 0.0016, "q1": 0.00115, "q3": 0.00125, "n": 120, "iterations": 10,
                  "source": "pytest-benchmark stats"}
    rep = bandkit.analyze(t)
    entry = json.loads(rep.to_json())["traces"][0]
    assert entry["summary_stats"]["mean"] == 0.00121 and entry["summary_stats"]["n"] == 120
    text = rep.to_text(color=False)
    assert "the file states: mean 1.21 ms ± 110 µs (sd)" in text and "n = 120 × 10" in text
    assert "the file states" in rep.to_html()


def test_asv_v1_and_v2_summary_stats(tmp_path):
    v1 = {"version": 1, "commit_hash": "abc", "env_name": "e", "results": {
        "m.time_x": {"result": [0.0024], "stats": [{"ci_99": [0.0022, 0.0027], "q_25": 0.0023, "q_75": 0.0025,
                                                    "min": 0.0022, "max": 0.0027, "mean": 0.00241, "std": 0.00012,
                                                    "repeat": 10, "number": 1}]}}}
    p = tmp_path / "abc-e.json"
    p.write_text(json.dumps(v1))
    (t,) = _traces(p)
    st = t.meta.extra["summary_stats"]
    assert st["statistic"] == "median" and st["median"] == 0.0024 and st["mean"] == 0.00241
    assert st["stddev"] == 0.00012 and st["n"] == 10 and st["iterations"] == 1
    assert (st["ci_low"], st["ci_high"], st["ci_level"]) == (0.0022, 0.0027, 0.99)
    v2 = {"version": 2, "commit_hash": "abc", "env_name": "e",
          "result_columns": ["result", "params", "version", "started_at", "duration", "stats_ci_99_a",
                             "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat",
                             "samples", "profile"],
          "results": {"m.time_y": [[1.5, 2.5], [["1", "2"]], "v", 0, 1.0, [1.4, 2.3], [1.6, 2.7], [1.45, 2.4],
                                   [1.55, 2.6], [3, 3], [7, 7], None, None]}}
    p2 = tmp_path / "abc-e2.json"
    p2.write_text(json.dumps(v2))
    a, b = _traces(p2)
    assert a.label == "m.time_y(1)" and a.meta.extra["summary_stats"]["ci_low"] == 1.4
    assert b.meta.extra["summary_stats"]["n"] == 7 and b.meta.extra["summary_stats"]["median"] == 2.5


def test_gbench_aggregates_only_and_single_run_stats(tmp_path):
    rows = [{"name": f"BM_a_{agg}", "run_name": "BM_a", "run_type": "aggregate", "repetitions": 5,
             "threads": 1, "aggregate_name": agg, "iterations": 5, "real_time": v, "cpu_time": v,
             "time_unit": "ns"} for agg, v in (("mean", 100.0), ("median", 99.0), ("stddev", 4.0), ("cv", 0.04))]
    rows.append({"name": "BM_b", "run_name": "BM_b", "run_type": "iteration", "repetitions": 1,
                 "repetition_index": 0, "threads": 1, "iterations": 7000, "real_time": 50.0, "cpu_time": 49.0,
                 "time_unit": "ns"})
    p = tmp_path / "gb.json"
    p.write_text(json.dumps({"context": {"date": "2024", "num_cpus": 2}, "benchmarks": rows}))
    a, b = _traces(p)
    assert a.meta.extra["summary_only"]
    assert a.meta.extra["summary_stats"] == {"statistic": "mean", "mean": 100.0, "stddev": 4.0, "median": 99.0,
                                             "n": 5, "source": "Google Benchmark aggregates"}
    assert not b.meta.extra.get("summary_only") and b.values.tolist() == [50.0]
    assert b.meta.extra["summary_stats"]["iterations"] == 7000 and b.meta.extra["summary_stats"]["n"] == 1


def test_gbench_complexity_rows_are_not_benchmarks(tmp_path):
    rows = [{"name": f"BM_sort/{n}", "run_name": f"BM_sort/{n}", "run_type": "iteration", "repetitions": 1,
             "repetition_index": 0, "threads": 1, "iterations": 1000, "real_time": 3.0 * n, "cpu_time": 3.0 * n,
             "time_unit": "ns", "family_index": 0} for n in (8, 64, 512)]
    rows.append({"name": "BM_sort_BigO", "run_name": "BM_sort", "run_type": "aggregate", "repetitions": 1,
                 "threads": 1, "aggregate_name": "BigO", "aggregate_unit": "time", "cpu_coefficient": 3.01,
                 "real_coefficient": 3.02, "big_o": "N", "time_unit": "ns"})
    rows.append({"name": "BM_sort_RMS", "run_name": "BM_sort", "run_type": "aggregate", "repetitions": 1,
                 "threads": 1, "aggregate_name": "RMS", "aggregate_unit": "percentage", "rms": 0.01})
    p = tmp_path / "gb.json"
    p.write_text(json.dumps({"context": {}, "benchmarks": rows}))
    traces = _traces(p)
    assert [t.label for t in traces] == ["BM_sort/8", "BM_sort/64", "BM_sort/512"]
    assert traces[0].meta.extra["complexity"] == {"big_o": "N", "time_unit": "ns", "real_coefficient": 3.02,
                                                  "cpu_coefficient": 3.01, "rms": 0.01}
    # a file with the fit only: one trace that says what it is, no "aggregates only"
    p.write_text(json.dumps({"context": {}, "benchmarks": rows[3:]}))
    (t,) = _traces(p)
    assert t.label == "BM_sort (complexity fit)" and "complexity fit" in t.meta.extra["no_runs_reason"]
    assert "aggregates only" not in t.meta.extra["no_runs_reason"]


def test_hyperfine_without_times_carries_statistics(tmp_path):
    p = tmp_path / "h.json"
    p.write_text(json.dumps({"results": [{"command": "sleep 0.1", "mean": 0.105, "stddev": 0.002, "median": 0.104,
                                          "user": 0.001, "system": 0.001, "min": 0.101, "max": 0.11}]}))
    (t,) = _traces(p)
    assert t.meta.extra["summary_stats"]["stddev"] == 0.002 and "n" not in t.meta.extra["summary_stats"]


# -- PTS names -----------------------------------------------------------------------------------
def _pts(systems: list[str], entries: dict[str, list[tuple[str, str, str]]]) -> str:
    sys_xml = "".join(f"<System><Identifier>{s}</Identifier><Hardware>h</Hardware><Software>s</Software>"
                      f"<TimeStamp>2024-01-01 00:00:00</TimeStamp></System>" for s in systems)
    res = ""
    for title, ents in entries.items():
        data = "".join(f"<Entry><Identifier>{s}</Identifier><Value>{v}</Value><RawString>{raw}</RawString></Entry>"
                       for s, v, raw in ents)
        res += (f"<Result><Identifier>pts/x-1.0</Identifier><Title>{title}</Title><AppVersion>1</AppVersion>"
                f"<Arguments>a</Arguments><Description>Test: {title}</Description><Scale>MB/s</Scale>"
                f"<Proportion>HIB</Proportion><Data>{data}</Data></Result>")
    return f"<?xml version=\"1.0\"?><PhoronixTestSuite><Generated><Title>t</Title></Generated>{sys_xml}{res}" \
           "</PhoronixTestSuite>"


def test_pts_names_stable_across_files(tmp_path):
    a = tmp_path / "a_composite.xml"
    a.write_text(_pts(["GVNO3"], {"zstd": [("GVNO3", "10", "9:10:11")],
                                   "Install Size": [("GVNO3", "5", ""), ("GVNO3", "6", "")]}))
    b = tmp_path / "b_composite.xml"
    b.write_text(_pts(["NoGVNO3"], {"zstd": [("NoGVNO3", "12", "11:12:13")],
                                     "Install Size": [("NoGVNO3", "5", ""), ("NoGVNO3", "7", "")]}))
    la = [t.label for t in _traces(a)]
    lb = [t.label for t in _traces(b)]
    assert la == lb == ["zstd: Test: zstd", "Install Size: Test: Install Size", "Install Size: Test: Install Size #2"]
    cmp = compare(_traces(a), _traces(b))
    assert {c.name for c in cmp.benchmarks} == set(la) and not cmp.only_a and not cmp.only_b
    # a file with two systems: labels are unique, and each pairs with its system in a one-system file
    ab = tmp_path / "ab_composite.xml"
    ab.write_text(_pts(["GVNO3", "NoGVNO3"], {"zstd": [("GVNO3", "10", "9:10:11"), ("NoGVNO3", "12", "11:12:13")]}))
    tr = _traces(ab)
    assert [t.label for t in tr] == ["zstd: Test: zstd [GVNO3]", "zstd: Test: zstd [NoGVNO3]"]
    cmp = compare(_traces(b), tr)
    (c,) = cmp.benchmarks
    assert c.ratio == pytest.approx(1.0) and cmp.only_b == ("zstd: Test: zstd [GVNO3]",)


def test_pts_entry_without_rawstring_has_stats(tmp_path):
    a = tmp_path / "composite.xml"
    a.write_text(_pts(["X"], {"size": [("X", "128444", "")]}))
    (t,) = _traces(a)
    assert t.meta.extra["summary_only"] and t.meta.extra["summary_stats"]["mean"] == 128444.0


# -- pyperf < 1.0 warm-ups -----------------------------------------------------------------------
@pytest.mark.parametrize("version, expect", [(5, 0.8 / (4 * 10)), ("1.0", 0.8)])
def test_pyperf_old_format_warmups_divided_by_loops_and_inner_loops(tmp_path, version, expect):
    key = "samples" if version == 5 else "values"
    md = "common_metadata" if version == 5 else "metadata"
    doc = {"version": version, "benchmarks": [{md: {"name": "b", "loops": 4, "inner_loops": 10, "unit": "second"},
                                               "runs": [{"warmups": [[4, 0.8]], key: [0.02, 0.021]}]}]}
    p = tmp_path / "old.json.gz"
    p.write_bytes(gzip.compress(json.dumps(doc).encode()))
    (t,) = _traces(p)
    (w,) = t.meta.extra["warmups"]
    assert w[2] == 4 and w[3] == pytest.approx(expect)


# -- bounded JSON ------------------------------------------------------------------------------
@pytest.mark.parametrize("text, needle, line", [
    ('{"version": "1.0", "benchmarks": ' + "[" * 5000 + "]" * 5000 + "}", "nested deeper than 64", 1),
    ('{"version": "1.0",\n"benchmarks": [{"runs": [{"values": [1' + "0" * 5000 + "]}]}]}",
     "number with 5001 characters", 2),
    ('{"version": "1.0",\n\n"benchmarks": [{"runs": [{"values": [1e400]}]}]}', "out of range", 3),
])
def test_json_depth_and_number_bounds(tmp_path, text, needle, line):
    p = tmp_path / "b.json"
    p.write_text(text)
    with pytest.raises(InputError) as err:
        bandkit.load(p, format="pyperf")
    assert needle in str(err.value) and err.value.line == line


@pytest.mark.parametrize("fmt, doc, field, needle", [
    ("pyperf", {"version": "1.0", "benchmarks": [{"runs": [{"values": [1.0, "x"]}]}]},
     "benchmarks[0].runs[0].values[1]", "must be number, got string"),
    ("pyperf", {"version": "1.0", "benchmarks": [{"runs": [{"values": [1.0], "metadata": {"a": {"b": 1}}}]}]},
     "benchmarks[0].runs[0].metadata.a", "got object"),
    ("pyperf", {"version": "1.0", "benchmarks": {"a": 1}}, "benchmarks", "must be array"),
    ("hyperfine", {"results": [{"command": 5}]}, "results[0].command", "must be string"),
    ("hyperfine", {"results": [{"command": "c", "times": [1.0], "exit_codes": ["0"]}]}, "results[0].exit_codes[0]",
     "got string"),
    ("gbench", {"benchmarks": [{"name": "a", "real_time": "fast"}]}, "benchmarks[0].real_time", "got string"),
    ("gbench", {"benchmarks": [{"run_name": "a"}]}, "benchmarks[0].name", "missing field"),
    ("pytest-benchmark", {"benchmarks": [{"name": "a", "stats": {"mean": [1]}}]}, "benchmarks[0].stats.mean",
     "got array"),
    ("asv", {"version": 2, "results": {"b": "x"}}, "results.b", "got string"),
    ("criterion", {"iters": [1, 2], "times": "x"}, None, "got object"),
])
def test_type_confused_fields_name_their_path(tmp_path, fmt, doc, field, needle):
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        bandkit.load(p, format=fmt)
    assert err.value.field == field and needle in str(err.value)


@pytest.mark.parametrize("fmt, doc, needle", [
    ("pyperf", {"version": "1.0", "benchmarks": [{"runs": [{"values": [1.0, float("nan")]}]}]}, "values[1]"),
    ("hyperfine", {"results": [{"command": "c", "times": [1.0, float("inf")]}]}, "times[1]"),
    ("gbench", {"benchmarks": [{"name": "a", "run_type": "iteration", "real_time": 1e300}]}, "real_time"),
])
def test_non_finite_or_absurd_measurements_refused(tmp_path, fmt, doc, needle):
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        bandkit.load(p, format=fmt)
    assert needle in str(err.value) and "finite" in str(err.value)


# -- FTQ: options, header ranges, time column ----------------------------------------------------
FTQ_HEAD = "# Frequency 10000.000000\n# Ticks per ns: 2.59613\n# Total count is 1000\n"


def _ftq(path, rows, head=FTQ_HEAD):
    path.write_text(head + "".join(f"{t} {c}\n" for t, c in rows))
    return path


def test_ftq_loaders_reject_unknown_options_but_take_the_clock_hint(tmp_path, data_dir):
    p = _ftq(tmp_path / "x_0.dat", [(k * 100000, 1000) for k in range(50)])
    for fmt in ("ftq", "ftq-2009", "ftq-mpi"):
        with pytest.raises(bandkit.UsageError, match="unknown options"):
            bandkit.load(data_dir / "ftq-2009" / "baseline-ftq_t1" if fmt == "ftq-2009" else p,
                         format=fmt, bogus=1)
    (t,) = _traces(p, clock_hz=2.6e9)  # a hint: given only to the loaders that take it
    assert t.meta.time_unit == "s"
    mpi = tmp_path / "mpi.dat"
    mpi.write_text("# Frequency 10000\n" + "".join(f"{k * 260000},{1000},{990}\n" for k in range(20)))
    a, b = _traces(mpi, format="ftq-mpi", clock_hz=2.6e9)
    assert a.meta.time_unit == "s" and a.data["time"].iloc[1] == pytest.approx(1e-4)


def test_cli_clock_hz_with_mixed_inputs(tmp_path, data_dir, capsys):
    from bandkit.cli import main

    p = _ftq(tmp_path / "x_0.dat", [(k * 100000, 1000 + (k % 3)) for k in range(300)])
    out = tmp_path / "r.json"
    assert main(["report", str(p), str(data_dir / "ftq-2009" / "baseline-ftq_t1"), "--clock-hz", "2.6e9",
                 "-f", "json", "-o", str(out), "-q"]) == 0
    doc = json.loads(out.read_text())
    assert [t["format"] for t in doc["traces"]] == ["ftq", "ftq-2009"]
    assert doc["traces"][1]["time_unit"] == "s"


@pytest.mark.parametrize("line, needle", [
    ("# Frequency 1e400", "header 'Frequency' must be"),
    ("# Frequency 0", "header 'Frequency' must be"),
    ("# Frequency 4.9e-324", "header 'Frequency' must be"),  # (fuzz ftq:46558: spectrum bin width 0)
    ("# Ticks per ns: 4.9e-324", "header 'Ticks per ns' must be"),
    ("# Ticks per ns: " + "9" * 5000, "header 'Ticks per ns' must be"),
    ("# Total count is 1e300", "header 'Total count' must be"),
    ("# thread " + "1" * 5000 + ", core 2", "header 'thread' must be"),
])
def test_ftq_header_numbers_range_checked(tmp_path, line, needle):
    p = _ftq(tmp_path / "h_0.dat", [(k * 100000, 1000) for k in range(10)], head="# FTQ\n" + line + "\n")
    with pytest.raises(InputError) as err:
        bandkit.load(p, format="ftq")
    assert needle in str(err.value) and err.value.line == 2


def test_ftq_time_jump_beyond_any_trace_is_an_error_not_an_allocation(tmp_path):
    rows = [(k * 100000, 1000) for k in range(100)] + [(9 * 10 ** 18, 1000)]
    p = _ftq(tmp_path / "j_0.dat", rows)
    with pytest.raises(InputError) as err:
        bandkit.load(p)
    assert "sampling periods" in str(err.value) and err.value.line == 3 + 101
    # a long stall inside the bound is data: loaded (the analyses report it as a stall)
    rows = [(k * 100000, 1000) for k in range(100)] + [(1000 * 10 ** 9, 1000)]
    (t,) = _traces(_ftq(tmp_path / "s_0.dat", rows))
    assert t.data["time"].iloc[-1] == pytest.approx(1000.0)


def test_ftq_counts_must_be_plausible(tmp_path):
    p = _ftq(tmp_path / "c_0.dat", [(0, 1000), (100000, -5), (200000, 1000)])
    with pytest.raises(InputError, match="negative work count: -5") as err:
        bandkit.load(p)
    assert err.value.line == 5


def test_ftq2009_many_time_restarts_refused_quickly(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    ticks = np.tile([100, 50], 5000)
    (d / "times.dat").write_text("".join(f"{t}\n" for t in ticks))
    (d / "counts.dat").write_text("".join("7\n" for _ in ticks))
    with pytest.raises(InputError, match="time goes backwards 5000 times"):
        bandkit.load(d)
    ticks = np.tile(np.arange(100, 110), 30)  # 30 blocks of 10 lines: not thread runs
    (d / "times.dat").write_text("".join(f"{t}\n" for t in ticks))
    (d / "counts.dat").write_text("".join("7\n" for _ in ticks))
    with pytest.raises(InputError, match="every 10 lines"):
        bandkit.load(d)


@pytest.mark.parametrize("data, needle, line", [
    (b'{"a": 1,\n "b": [1, 2}', "invalid JSON", 2),
    (b'{"a": 1, "foo": 2}', "JSON object with keys 'a', 'foo' is no result format", None),
    (b'<?xml version="1.0"?>\n<root/>', "XML with root <root>", 1),
    (b"# comment\n1 2 3\n", "'1 2 3' is not FTQ's", 2),
])
def test_detection_errors_are_precise(tmp_path, data, needle, line):
    p = tmp_path / "mystery.txt"
    p.write_bytes(data)
    with pytest.raises(InputError) as err:
        bandkit.load(p)
    assert needle in str(err.value) and err.value.line == line and str(p) in str(err.value)


def test_detection_sees_keys_beyond_the_head(tmp_path):
    doc = {"benchmarks": [{"metadata": {"name": "b", "pad": "x" * 70000}, "runs": [{"values": [1.0, 2.0]}]}],
           "version": "1.0"}
    p = tmp_path / "big.json"
    p.write_text(json.dumps(doc))
    assert _fmt(p) == "pyperf"


# -- metadata strings: linear-time parsing, bounded sizes ------------------------------------------
def test_cpu_freq_and_temp_parsing_unchanged_and_bounded():
    from bandkit.metadata import parse_cpu_freq, parse_cpu_temp

    assert parse_cpu_freq("1,3,5=3332 MHz; 13=1828 MHz") == {1: 3332.0, 3: 3332.0, 5: 3332.0, 13: 1828.0}
    assert parse_cpu_freq("0-1=2000 MHz, 2=1000 MHz") == {0: 2000.0, 1: 2000.0, 2: 1000.0}
    assert parse_cpu_temp("coretemp:Package id 0=56 C, coretemp:Core 8=57 C") == \
        {"coretemp:Package id 0": 56.0, "coretemp:Core 8": 57.0}
    # a long list of CPU numbers without '=' (quadratic for the former regex): refused, not slow
    with pytest.raises(ValueError, match="no 'CPUS=N MHz'"):
        parse_cpu_freq(", ".join(map(str, range(9000))))
    with pytest.raises(ValueError, match="characters"):
        parse_cpu_freq(", ".join(map(str, range(30000))))
    with pytest.raises(ValueError, match="more than 8192 CPUs"):
        parse_cpu_freq("0-8000,0-8000=1000 MHz")
    with pytest.raises(ValueError, match="no 'SENSOR=N C' item in 'xxx"):
        parse_cpu_temp("x" * 60000 + "=5 C")


def test_pyperf_metadata_sizes_bounded(tmp_path):
    doc = {"version": "1.0", "metadata": {"name": "b"},
           "benchmarks": [{"runs": [{"values": [1.0], "metadata": {"cpu_freq": list(range(5000))}}]}]}
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        bandkit.load(p)
    assert err.value.field == "benchmarks[0].runs[0].metadata.cpu_freq" and "array of 5000 items" in str(err.value)


@pytest.mark.parametrize("runs", [[[0.0]] * 3 + [[1.0]] * 3, [[1.0]] * 3 + [[0.0]] * 3])
def test_runner_step_from_or_to_zero_is_reported(tmp_path, runs):
    from bandkit.schema import validate_report

    p = tmp_path / "z.json"
    p.write_text(json.dumps({"version": "1.0", "metadata": {"name": "b", "unit": "second"},
                             "benchmarks": [{"runs": [{"values": v} for v in runs]}]}))
    rep = bandkit.analyze(bandkit.load(p))
    doc = json.loads(rep.to_json())
    validate_report(doc)
    assert doc["traces"][0]["verdict"] == "step" and doc["traces"][0]["steps"][0]["run"] == 4
    assert "step at run 4" in rep.to_text(color=False)


def test_run_level_grouping_keeps_sorted_neighbours_and_separates_groups():
    """The post-mortem groups segment levels nearest first (it replaced merge_levels, whose running
    sums fixed a 27 s hang on a 2,860-run hyperfine file): groups are runs of the sorted levels, and
    neighbouring groups end up at least max(threshold, 3 SE) apart."""
    import math

    from bandkit.postmortem.classify import _group_levels

    rng = np.random.default_rng(3)
    for _ in range(200):
        k = int(rng.integers(1, 80))
        means = rng.random(k).tolist()
        sizes = rng.integers(1, 9, k).tolist()
        ses = (0.01 * rng.random(k)).tolist()
        thr = float(rng.choice([0.01, 0.05, 0.2]))
        groups = _group_levels(means, sizes, ses, thr)
        order = sorted(range(k), key=lambda i: means[i])
        assert [i for g in groups for i in g] == order
        lv = [sum(means[i] * sizes[i] for i in g) / sum(sizes[i] for i in g) for g in groups]
        se = [math.sqrt(sum((ses[i] * sizes[i]) ** 2 for i in g)) / sum(sizes[i] for i in g) for g in groups]
        for j in range(len(groups) - 1):
            assert lv[j + 1] - lv[j] >= max(thr, 3 * math.sqrt(se[j] ** 2 + se[j + 1] ** 2)) - 1e-12


def test_trend_of_many_runs_is_found_with_its_slope():
    """11,000 rounds (a pytest-benchmark default) took 480 MB and 20 s in the former Theil-Sen; the
    trend is now least squares (O(n)); a drifting series of that length is found, with its drift."""
    from bandkit.postmortem.classify import classify

    n = 11000
    x = np.log(1.0 + 0.2 * np.arange(n) / n) + 0.001 * np.random.default_rng(0).standard_normal(n)
    c = classify(np.exp(x))
    assert c.verdict == "trend" and c.trend["significant"]
    assert c.trend["drift_ratio"] == pytest.approx(1.2, rel=0.01)


# -- found by the long fuzz run -------------------------------------------------------------------
def test_json_with_raw_surrogate_bytes_loads(tmp_path):
    """UTF-8-encoded surrogate bytes (ED A0 80) in a key: json.loads(bytes) decodes them with
    "surrogatepass", and the run metadata then crashed with UnicodeEncodeError (fuzz
    pytest-benchmark:3315); they become U+FFFD like an escaped lone surrogate."""
    doc = _pytest_benchmark(dict(PB_STATS, data=[0.0012 + 1e-5 * (k % 7) for k in range(30)]))
    doc["commit_info"] = {"dirty": True, "id": "abc"}
    data = json.dumps(doc).encode().replace(b'"dirty"', b'"d\xed\xa0\x80irty"')
    p = tmp_path / "pb.json"
    p.write_bytes(data)
    (t,) = _traces(p)
    assert len(t.values) == 30
    assert "\ud800" not in bandkit.analyze(t).to_json()


def test_csv_dates_with_mixed_time_zones(tmp_path):
    """One date of a run table that dateutil reads with an offset ("03:10-21 03:14:20") among naive
    ones made pandas raise 'Mixed timezones detected' (fuzz csv:3432): dates are read on one clock."""
    import pandas as pd

    from bandkit.loaders.table import parse_dates

    s = parse_dates(pd.Series(["2016-10-21 03:14:20", "2016-10-21 03:10-21 03:14:20"]))
    assert s.notna().iloc[0]
    rows = [f"t,{k // 3 + 1},{0.0225 + 1e-5 * (k % 5)},2016-10-21 03:14:{20 + k // 3:02d}" for k in range(30)]
    rows[4] = rows[4].replace("03:14:21", "03:10-21 03:14:21")
    p = tmp_path / "runs.csv"
    p.write_text("name,run,value,date\n" + "\n".join(rows) + "\n")
    (t,) = _traces(p)
    assert len(t.values) == 30
    bandkit.analyze(t).to_json()


def test_gbench_microsecond_benchmarks_are_shown_in_readable_time_units(tmp_path):
    """Google Benchmark writes time_unit "us"; the table showed "28,500 us" beside "53.2 ms" (Kokkos file)."""
    rows = [{"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
             "threads": 1, "iterations": 24, "real_time": v, "cpu_time": v, "time_unit": unit}
            for name, v, unit in (("BM_us", 28500.1, "us"), ("BM_ms", 53.2, "ms"), ("BM_ns", 95.6, "ns"))]
    p = tmp_path / "gb.json"
    p.write_text(json.dumps({"context": {"date": "2024", "num_cpus": 2}, "benchmarks": rows}))
    text = bandkit.analyze(bandkit.load(str(p))).to_text()
    assert "28.5 ms" in text and "53.2 ms" in text and "95.6 ns" in text
    assert " us" not in text
