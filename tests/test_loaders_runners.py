"""Runner loaders (pyperf, hyperfine, Google Benchmark, pytest-benchmark, asv, PTS, Criterion,
turbostat, CSV), format sniffing and metadata parsing: real files under data/runners and
generated ones."""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

import bandkit
from bandkit.errors import InputError
from bandkit.loaders import detect_format
from bandkit.loaders.source import Source
from bandkit.metadata import parse_cpu_freq, parse_cpu_list, parse_cpu_temp, parse_run_metadata
from bandkit.synthetic.pyperf import pyperf_step_suite, write_pyperf

R = Path(__file__).resolve().parent.parent / "data" / "runners"
SPEED2020 = R / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"

EXPECTED_FORMAT = {
    "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz": "pyperf",
    "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz": "pyperf",
    "pyperf-tests_telco.json.gz": "pyperf",
    "3em_tools_benchmarks_results.json": "hyperfine",
    "bpfilter_005d041.json": "gbench",
    "pytest-benchmark-tests_0001.json": "pytest-benchmark",
    "pvlib_fff1131b-conda-py3.8.json": "asv",
    "pvlib_machine.json": "asv",
    "ManuelJBrito_GVNO3_simdjson-201_composite.xml": "pts",
    "simple_insert_hecs_new_sample.json": "criterion",
    "simple_insert_hecs_new_raw.csv": "criterion",
    "simple_insert_hecs_new_benchmark.json": "criterion",
    "analyseTurbostatData_2020_06_16_21H39.out.gz": "turbostat",
}
NO_RESULTS = {"pvlib_machine.json": "no results", "simple_insert_hecs_new_benchmark.json": "no measurements"}


def _traces(path, **kw):
    t = bandkit.load(path, **kw)
    return t if isinstance(t, list) else [t]


# -- every real file: detected, loaded or refused with a clear message -------------------------
@pytest.mark.parametrize("name", sorted(EXPECTED_FORMAT))
def test_real_file_detected_and_loaded(name):
    path = R / name
    assert detect_format(Source.open(path)) == EXPECTED_FORMAT[name]
    if name in NO_RESULTS:
        with pytest.raises(InputError) as err:
            bandkit.load(path)
        assert NO_RESULTS[name] in str(err.value) and name in str(err.value)
        return
    traces = _traces(path)
    assert traces
    for t in traces:
        assert t.meta.format == EXPECTED_FORMAT[name]
        assert t.kind in ("runner", "series")
        assert len(t.values) >= 1
        assert (t.data["run"].to_numpy() >= 1).all()
        json.dumps(t.meta.to_dict()["extra"])  # JSON-ready


def test_data_dir_holds_every_listed_file():
    assert {p.name for p in R.iterdir()} >= set(EXPECTED_FORMAT)


# -- pyperf ----------------------------------------------------------------------------------
def test_pyperf_speedpython_2020_structure():
    traces = _traces(SPEED2020)
    assert len(traces) == 60
    t = next(t for t in traces if t.label == "pickle_list")
    d = t.data
    assert t.kind == "runner" and t.meta.value_unit == "s"
    assert d["run"].nunique() == 20 and (d.groupby("run").size() == 3).all()
    assert t.meta.extra["calibration_runs"] == 1
    # 14 warm-ups in the calibration run + 1 per measured run
    assert len(t.meta.extra["warmups"]) == 14 + 20
    assert [w[1] for w in t.meta.extra["warmups"][:14]] == [None] * 14
    # first measured run: slow, every CPU at 3332 MHz; runs are numbered as pyperf dump numbers them
    # (the calibration run is run 1, the first measured run is run 2)
    assert d["run"].min() == 2 and d["run"].max() == 21
    r1 = d[d["run"] == 2]
    raw = json.loads(gzip.decompress(SPEED2020.read_bytes()))
    bench = next(b for b in raw["benchmarks"] if b["metadata"]["name"] == "pickle_list")
    assert r1["value"].tolist() == bench["runs"][1]["values"]  # runs[0] is the calibration run
    assert (r1["cpu_freq_mhz.cpu13"] == 3332).all() and (r1["cpu_freq_mhz_spread"] == 0).all()
    # suite and benchmark metadata merged into every row
    assert (d["hostname"] == "speed-python").all() and (d["name"] == "pickle_list").all()
    # time = seconds since the first run's date, increasing by run
    times = d.groupby("run")["time"].first().to_numpy()
    assert times[0] == 0 and np.all(np.diff(times) > 0) and times[-1] < 60
    assert str(d["date"].dtype).startswith("datetime64")


def test_pyperf_format5_samples_and_common_metadata():
    traces = _traces(R / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz")
    assert len(traces) == 64
    t = traces[0]
    assert t.label == "2to3"
    assert t.meta.extra["calibration_runs"] == 1  # "samples": [] is a calibration run
    assert t.data["run"].max() == 21 and len(t.values) == 60  # pyperf dump's numbering: calibration run 1
    assert t.values[0] == pytest.approx(0.6229946170001313)


def test_pyperf_old_comma_separated_cpu_freq_and_temp():
    (t,) = _traces(R / "pyperf-tests_telco.json.gz")
    assert t.label == "telco"  # name from the suite metadata (benchmark has none)
    first = t.data[t.data["run"] == 2].iloc[0]  # run 1 is the calibration run (pyperf dump's numbering)
    assert first["cpu_freq_mhz.cpu2"] == 3596 and first["cpu_freq_mhz.cpu3"] == 2998
    assert first["cpu_temp_c"] == 67 and first["cpu_temp_c.coretemp_core_0"] == 51


def test_pyperf_hoisted_metadata_merge_order(tmp_path):
    suite = {"version": "1.0", "metadata": {"unit": "second", "hostname": "h", "load_avg_1min": 9.0, "x": "suite"},
             "benchmarks": [{"metadata": {"name": "b", "x": "bench"},
                             "runs": [{"metadata": {"load_avg_1min": 1.5}, "values": [1.0, 2.0]},
                                      {"metadata": {}, "values": [3.0]},
                                      {"metadata": {"x": "run"}, "warmups": [[1, 5.0]]}]}]}
    p = tmp_path / "s.json"
    p.write_text(json.dumps(suite))
    (t,) = _traces(p)
    assert t.data["load_avg_1min"].tolist() == [1.5, 1.5, 9.0]
    assert set(t.data["x"]) == {"bench"}
    assert t.data["run"].tolist() == [1, 1, 2] and t.data["value_index"].tolist() == [0, 1, 0]
    assert t.meta.extra["calibration_runs"] == 1 and t.meta.extra["warmups"] == [[3, None, 1.0, 5.0]]


def test_pyperf_synthetic_roundtrip(tmp_path):
    p = write_pyperf(tmp_path / "g.json.gz", pyperf_step_suite(n_runs=50, step_run=20, seed=3))
    (t,) = _traces(p)
    assert t.data["run"].max() == 51 and len(t.values) == 150  # run 1 is the calibration run (pyperf dump)
    means = t.data.groupby("run")["value"].mean().to_numpy()
    assert np.all(means[:19] > 0.018) and np.all(means[19:] < 0.0125)
    temp = t.data.groupby("run")["cpu_temp_c"].first().to_numpy()
    assert temp[:19].mean() > 68 and temp[25:].mean() < 60


@pytest.mark.parametrize("text, where", [
    ('{"version": "1.0", "benchmarks": [{"runs": [{"values": ["x"]}]}]}', "benchmarks[0].runs[0].values[0]"),
    ('{"version": "1.0", "benchmarks": {}}', "benchmarks"),
    ('{"benchmarks": []}', "version"),
    ('{"version": "9.9", "benchmarks": []}', "version"),
])
def test_pyperf_bad_fields_name_the_field(tmp_path, text, where):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(InputError) as err:
        bandkit.load(p, format="pyperf")
    assert err.value.field == where and str(p) in str(err.value)


def test_truncated_json_names_the_line(tmp_path):
    text = gzip.decompress(SPEED2020.read_bytes())[:5000]
    p = tmp_path / "cut.json"
    p.write_bytes(text)
    with pytest.raises(InputError) as err:
        bandkit.load(p, format="pyperf")
    assert err.value.line is not None and err.value.line >= 1 and "invalid JSON" in str(err.value)


# -- other runners ---------------------------------------------------------------------------
def test_hyperfine_times_are_runs():
    traces = _traces(R / "3em_tools_benchmarks_results.json")
    raw = json.loads((R / "3em_tools_benchmarks_results.json").read_text())
    assert [t.label for t in traces] == [r["command"] for r in raw["results"]]
    assert np.allclose(traces[0].values, raw["results"][0]["times"])
    assert traces[0].data["run"].tolist() == list(range(1, 21))
    assert (traces[0].data["exit_code"] == 0).all() and np.isnan(traces[0].data["time"]).all()


def test_gbench_real_file_one_row_per_benchmark():
    traces = _traces(R / "bpfilter_005d041.json")
    assert len(traces) == 8
    t = traces[0]
    assert t.label == "loadChainLargeSet/10000/iterations:10" and t.meta.value_unit == "ms"
    assert t.values[0] == pytest.approx(16.268916699999636)
    assert t.data["load_avg_1min"].iloc[0] == pytest.approx(0.833496)


def test_gbench_repetitions_aggregates_and_bare_nan(tmp_path):
    rows = []
    for i, v in enumerate([10.0, 11.0, 12.0]):
        rows.append(f'{{"name": "BM_x/rep", "run_name": "BM_x", "run_type": "iteration", "repetitions": 3, '
                    f'"repetition_index": {i}, "iterations": 100, "real_time": {v}, "cpu_time": {v - 1}, '
                    f'"time_unit": "us", "counter": {"NaN" if i == 1 else "-inf"}}}')
    rows.append('{"name": "BM_x_mean", "run_name": "BM_x", "run_type": "aggregate", "aggregate_name": "mean", '
                '"real_time": 11.0, "cpu_time": 10.0, "time_unit": "us"}')
    rows.append('{"name": "BM_y_mean", "run_name": "BM_y", "run_type": "aggregate", "aggregate_name": "mean", '
                '"real_time": 5.0, "cpu_time": 4.0, "time_unit": "ns"}')
    p = tmp_path / "gb.json"
    p.write_text('{"context": {"date": "2024-01-01", "load_avg": [1, 2, 3]}, "benchmarks": [' + ",".join(rows) + "]}")
    assert detect_format(Source.open(p)) == "gbench"
    x, y = _traces(p)
    assert x.values.tolist() == [10.0, 11.0, 12.0] and x.meta.value_unit == "us"
    assert x.meta.extra["aggregates"] == {"mean": 11.0}
    assert x.data["cpu_time"].tolist() == [9.0, 10.0, 11.0]
    assert math.isnan(x.data["counter"].iloc[1]) and x.data["counter"].iloc[0] == -math.inf
    assert y.meta.extra["summary_only"] and y.values.tolist() == [5.0]
    (xc, _) = _traces(p, value="cpu_time")
    assert xc.values.tolist() == [9.0, 10.0, 11.0]


def test_pytest_benchmark_without_and_with_data(tmp_path):
    (t,) = _traces(R / "pytest-benchmark-tests_0001.json")
    assert t.meta.extra["summary_only"] and "stats.data" in t.meta.extra["no_runs_reason"]
    doc = json.loads((R / "pytest-benchmark-tests_0001.json").read_text())
    doc["benchmarks"][0]["stats"]["data"] = [1e-6, 2e-6, 3e-6, 4e-6]
    p = tmp_path / "pb.json"
    p.write_text(json.dumps(doc))
    (t2,) = _traces(p)
    assert not t2.meta.extra["summary_only"] and t2.values.tolist() == [1e-6, 2e-6, 3e-6, 4e-6]
    assert t2.data["run"].tolist() == [1, 2, 3, 4]


def test_asv_v1_summary_only_and_v2_samples(tmp_path):
    traces = _traces(R / "pvlib_fff1131b-conda-py3.8.json")
    assert all(t.meta.extra["summary_only"] for t in traces)
    t = next(t for t in traces if t.label == "irradiance.Irradiance.time_aoi")
    assert t.values.tolist() == [0.002369216550141573] and t.meta.extra["stats"]["repeat"] == 10
    v2 = {"version": 2, "commit_hash": "abc", "env_name": "e",
          "result_columns": ["result", "params", "version", "stats_q_25", "samples"],
          "results": {"b.time_x": [[1.0, 2.0], [["1", "2"]], "v", [0.9, 1.9], [[1.0, 1.1, 0.9], [2.0, 2.1, 1.9]]],
                      "b.failed": None}}
    p = tmp_path / "asv.json"
    p.write_text(json.dumps(v2))
    a, b = _traces(p)
    assert a.label == "b.time_x(1)" and b.label == "b.time_x(2)"
    assert b.values.tolist() == [2.0, 2.1, 1.9] and not b.meta.extra["summary_only"]


def test_pts_rawstring_trials_and_run_times():
    traces = _traces(R / "ManuelJBrito_GVNO3_simdjson-201_composite.xml")
    t = traces[0]
    assert t.label == "simdjson: Throughput Test: PartialTweets" and t.meta.value_unit == "GB/s"
    assert t.values.tolist() == [1.36, 1.36, 1.36]
    assert t.data["test_run_time_s"].tolist() == [55.59, 54.56, 54.50]
    assert t.meta.extra["higher_is_better"] is True


def test_pts_refuses_entity_expansion(tmp_path):
    p = tmp_path / "bomb.xml"
    p.write_text('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
                 '<PhoronixTestSuite><Result><Title>&b;</Title></Result></PhoronixTestSuite>')
    with pytest.raises(InputError) as err:
        bandkit.load(p, format="pts")
    assert "unsafe XML" in str(err.value)


def test_criterion_sample_json_and_raw_csv_agree():
    (s,) = _traces(R / "simple_insert_hecs_new_sample.json")
    (r,) = _traces(R / "simple_insert_hecs_new_raw.csv")
    assert s.label == "simple_insert/hecs" and r.label == "simple_insert/hecs"
    assert len(s.values) == 100 and s.meta.value_unit == "ns"
    doc = json.loads((R / "simple_insert_hecs_new_sample.json").read_text())
    assert s.values[0] == pytest.approx(doc["times"][0] / doc["iters"][0])
    assert np.allclose(np.sort(s.values), np.sort(r.values))


def test_turbostat_summary_rows_and_ragged_cpu_rows():
    (t,) = _traces(R / "analyseTurbostatData_2020_06_16_21H39.out.gz")
    assert t.kind == "series" and t.meta.value_unit == "MHz"
    assert len(t.values) == 160  # one summary row per header
    # first interval (file lines 70-71): summary Bzy_MHz 2729, CPU 0 2679, Avg_MHz 1022
    assert t.values[0] == 2729 and t.data["Bzy_MHz.cpu0"].iloc[0] == 2679
    assert t.data["Avg_MHz"].iloc[0] == 1022 and "Bzy_MHz.cpu4" in t.data.columns
    assert t.data["PkgTmp.cpu0"].iloc[0] == 92 and "PkgTmp.cpu4" not in t.data.columns  # ragged rows
    (w,) = _traces(R / "analyseTurbostatData_2020_06_16_21H39.out.gz", column="PkgWatt")
    assert w.meta.value_unit == "W" and w.values[0] == pytest.approx(20.36)


def test_csv_plain(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("# comment\nname,run,value,cpu_temp_c,host\na,1,1.0,50,x\na,1,1.2,50,x\na,2,2.0,60,x\nb,1,5,40,y\n")
    a, b = _traces(p)
    assert a.label == "a" and a.values.tolist() == [1.0, 1.2, 2.0] and a.data["run"].tolist() == [1, 1, 2]
    assert a.data["cpu_temp_c"].tolist() == [50, 50, 60] and b.values.tolist() == [5.0]
    bad = tmp_path / "bad.csv"
    bad.write_text("value\n1\nx\n")
    with pytest.raises(InputError) as err:
        bandkit.load(bad)
    assert err.value.line == 3


# -- metadata parsing ------------------------------------------------------------------------
def test_parse_cpu_freq_variants():
    assert parse_cpu_freq("1,3,5=3332 MHz; 13=1828 MHz") == {1: 3332.0, 3: 3332.0, 5: 3332.0, 13: 1828.0}
    assert parse_cpu_freq("2=3596 MHz, 3=1352 MHz") == {2: 3596.0, 3: 1352.0}
    assert parse_cpu_freq("0-2,7=800 MHz") == {0: 800.0, 1: 800.0, 2: 800.0, 7: 800.0}
    assert parse_cpu_list("0-3,8") == [0, 1, 2, 3, 8]
    with pytest.raises(ValueError):
        parse_cpu_freq("garbage")


def test_parse_cpu_temp_and_run_metadata():
    assert parse_cpu_temp("coretemp:Package id 0=56 C, coretemp:Core 8=57 C") == {
        "coretemp:Package id 0": 56.0, "coretemp:Core 8": 57.0}
    df = parse_run_metadata([{"cpu_freq": "1=1000 MHz; 2=3000 MHz", "date": "2020-06-05 16:02:52.5", "k": "a"},
                             {"cpu_temp": "acpitz:temp1=40 C", "date": "2020-06-05 16:02:53.5", "k": "b"}])
    assert df["cpu_freq_mhz_spread"].iloc[0] == 2000 and math.isnan(df["cpu_freq_mhz_spread"].iloc[1])
    assert df["cpu_temp_c"].iloc[1] == 40 and (df["date"].iloc[1] - df["date"].iloc[0]).total_seconds() == 1.0
    assert df["k"].tolist() == ["a", "b"]


def test_bad_metadata_value_is_input_error(tmp_path):
    suite = {"version": "1.0", "metadata": {"name": "b"},
             "benchmarks": [{"runs": [{"metadata": {"cpu_freq": "nonsense"}, "values": [1.0]}]}]}
    p = tmp_path / "m.json"
    p.write_text(json.dumps(suite))
    with pytest.raises(InputError) as err:
        bandkit.load(p)
    assert err.value.field == "cpu_freq" and "run 1" in str(err.value)


@pytest.mark.parametrize("fmt, name, text, needle", [
    ("hyperfine", "h.json", '{"results": {"command": "x"}}', "results: must be array, got object"),
    ("hyperfine", "h.json", '{"results": [{"command": "x", "times": [1, "a"]}]}', "results[0].times[1]"),
    ("gbench", "g.json", '{"context": {}, "benchmarks": [{"name": "a", "run_type": "iteration"}]}', "real_time"),
    ("criterion", "sample.json", '{"sampling_mode": "Linear", "iters": [1, 2], "times": [1]}',
     "2 iteration counts but 1 times"),
    ("criterion", "sample.json", '{"sampling_mode": "Linear", "iters": [0], "times": [1]}', "must be >= 1"),
    ("turbostat", "t.out", "turbostat version 1\nno header here\n", "no turbostat header"),
    ("csv", "c.csv", "a,b\nx,y\n", "no 'value' column"),
    ("pts", "p.xml", "<PhoronixTestSuite><Result><Data><Entry><RawString>1:x</RawString></Entry></Data></Result>"
                     "</PhoronixTestSuite>", "RawString"),
    ("pts", "p.xml", "<PhoronixTestSuite><Result>", "invalid XML"),
    ("asv", "a.json", '{"results": {"b": [[1, 2], 5]}, "result_columns": ["result", "params"], "version": 2}',
     "results.b"),
    ("pytest-benchmark", "pb.json", '{"machine_info": {}, "benchmarks": [{"name": "x"}]}', "stats"),
    ("pyperf", "pp.json", '{"version": "1.0", "benchmarks": [{"runs": [{"values": [1.0], "warmups": [[1]]}]}]}',
     "warmups[0]"),
])
def test_malformed_inputs_are_input_errors(tmp_path, fmt, name, text, needle):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(InputError) as err:
        bandkit.load(p, format=fmt)
    assert str(p) in str(err.value) and needle in str(err.value)


@pytest.mark.parametrize("name", ["pyperf-tests_telco.json.gz", "pvlib_machine.json", "bpfilter_005d041.json",
                                  "simple_insert_hecs_new_raw.csv"])
def test_unknown_loader_options_are_a_usage_error(name):
    """A wrong option is the caller's mistake (exit 2 as usage), not a defect of the file."""
    from bandkit.errors import UsageError

    with pytest.raises(UsageError, match=name.replace(".", r"\.") + ".*options.*'frobnicate'"):
        bandkit.load(R / name, frobnicate=1)


def test_run_metadata_columns_memo_keeps_types_apart():
    """parse_run_metadata memoises (key, value) parses: 1, 1.0 and True are equal dict keys but
    different metadata (the categorical text "1" vs "1.0", numbers vs booleans) - kept apart."""
    df = parse_run_metadata([{"k": 1, "b": True, "cpu_freq": "1=1000 MHz"},
                             {"k": 1.0, "b": 1, "cpu_freq": "1=1000 MHz"},
                             {"k": "x", "b": True, "cpu_freq": "1=2000 MHz", "date": "2020-01-01 00:00:01"}])
    assert list(df["k"].astype(str)) == ["1", "1.0", "x"]
    assert list(df["b"].astype(str)) == ["True", "1", "True"]
    assert list(df["cpu_freq_mhz.cpu1"]) == [1000.0, 1000.0, 2000.0]
    assert list(df.columns)[:4] == ["k", "b", "cpu_freq", "cpu_freq_mhz.cpu1"] and df["date"].isna().sum() == 2
