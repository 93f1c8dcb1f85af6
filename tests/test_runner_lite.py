"""The runner load and compare path without pandas (issue 17 / 15: `bandkit compare` of two 60-benchmark pyperf
files): metadata parsed into numpy arrays and coded strings (the same columns as the pandas path), per-value
metadata columns built only when read, values converted in one go per benchmark."""
from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bandkit
from bandkit.loaders.runner_common import RunnerColumns, _seconds_since_first, as_floats, flat_floats
from bandkit.loaders.source import Source
from bandkit.metadata import Coded, parse_date, run_metadata_arrays, run_metadata_columns

RUNNERS = Path(__file__).resolve().parent.parent / "data" / "runners"
A = RUNNERS / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"
B = RUNNERS / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz"
PYPERF_FILES = [A, B, RUNNERS / "pyperf-tests_telco.json.gz"]


def test_compare_imports_neither_pandas_nor_scipy_on_import_and_no_pandas_when_run():
    """``import bandkit.compare`` pays for neither pandas nor scipy; loading two pyperf files and comparing
    them imports neither pandas nor scipy (Welch's p uses postmortem.distributions.t_sf) and reads no
    per-value metadata column (none is built)."""
    code = ("import sys\n"
            "import bandkit.compare\n"
            "print(sorted(m for m in ('pandas', 'scipy') if m in sys.modules))\n"
            "from bandkit.loaders import load_many\n"
            f"a, b = load_many([{str(A)!r}]), load_many([{str(B)!r}])\n"
            "print('pandas' in sys.modules)\n"
            "c = bandkit.compare.compare(a, b)\n"
            "c.to_text(); c.to_dict()\n"
            "print('pandas' in sys.modules, 'scipy' in sys.modules, len(c.benchmarks),\n"
            "      sum(len(t.column_arrays._built) for t in a + b))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:3] == ["[]", "False", "False False 59 0"], out


def _records():
    rng = np.random.default_rng(3)
    recs = []
    for i in range(40):
        r = {"date": f"2020-06-05 16:{i // 60:02d}:{i % 60:02d}.{int(rng.integers(0, 10**6)):06d}",
             "cpu_freq": rng.choice(["0-3=3300 MHz", "0,2=1200 MHz; 1,3=3300 MHz"]),
             "host": rng.choice(["a", "b", "c"]), "loops": int(rng.integers(1, 4)), "tag": i % 7,
             "numstr": str(rng.choice(["1.5", "2", "3e2"])), "lst": ["x", i % 2]}
        if i % 5 == 0:
            del r["host"]
        if i % 9 == 0:
            r["date"] = "2020-06-05T16:00:00+02:00"  # a zone: pandas parses it (UTC, then naive)
        if i % 11 == 0:
            r["boot_time"] = "2020-06-01 08:00:00"
        if i % 13 == 0:
            r["date"] = None
        recs.append(r)
    return recs


def test_metadata_columns_equal_the_pandas_path():
    """Dates read by numpy (pyperf's plain form) or by pandas (anything else) and strings coded without pandas
    give the columns pandas gives: ``pd.to_datetime`` of the parsed Timestamps, ``pd.Categorical`` with the
    categories in order of first appearance (object dtype)."""
    recs = _records()
    cols = run_metadata_columns(recs)
    arrays = run_metadata_arrays(recs)
    assert list(cols) == list(arrays)
    for key in ("date", "boot_time"):
        ref = pd.to_datetime(pd.Series([None if r.get(key) is None else parse_date(r[key]) for r in recs],
                                       dtype=object), errors="coerce").to_numpy(dtype="datetime64[ns]")
        assert cols[key].dtype == np.dtype("datetime64[ns]")
        np.testing.assert_array_equal(cols[key], ref)
    for key in ("host", "lst", "cpu_freq"):
        strings = [None if r.get(key) is None else (",".join(map(str, r[key])) if isinstance(r[key], list)
                                                    else str(r[key])) for r in recs]
        ref = pd.Categorical(strings, categories=pd.Index(list(dict.fromkeys(s for s in strings if s)),
                                                          dtype=object))
        assert isinstance(arrays[key], Coded) and isinstance(cols[key], pd.Categorical)
        assert cols[key].dtype == ref.dtype and cols[key].categories.dtype == object
        assert list(cols[key].astype(object)) == list(ref.astype(object))
    assert cols["numstr"].dtype == np.float64 and cols["tag"].dtype == np.float64
    frame = bandkit.metadata.parse_run_metadata(recs)
    assert list(frame.columns) == list(cols) and isinstance(frame["host"].dtype, pd.CategoricalDtype)


@pytest.mark.parametrize("text", ["2020-02-30 00:00:00", "2020-06-05 24:00:00", "2100-02-29 10:00:00",
                                  "1677-01-01 00:00:00", "2020-06-05 16:02:52.", "yesterday"])
def test_dates_numpy_does_not_read_fail_or_parse_as_pandas(text):
    """A date outside the plain form, or one numpy refuses, goes to pandas: the same value or the same error."""
    from bandkit.metadata import _parse_date_fast

    try:
        ref = parse_date(text).to_datetime64()
    except (ValueError, OverflowError) as exc:
        with pytest.raises(type(exc)) as got:
            _parse_date_fast(text)
        assert str(got.value) == str(exc)
    else:
        assert np.datetime64(_parse_date_fast(text), "ns") == ref


def test_seconds_since_first_equal_pandas_total_seconds():
    base = np.datetime64("2020-06-05T16:02:52.637194", "ns")
    rng = np.random.default_rng(5)
    for span in (1e9, 3e14, 2e16):  # the last beyond 2**53 ns: pandas' own path
        d = base + rng.integers(0, int(span), 50).astype("timedelta64[ns]")
        d[[3, 17]] = np.datetime64("NaT")
        s = pd.Series(d)
        ref = (s - s.dropna().min()).dt.total_seconds().to_numpy(dtype=np.float64, na_value=np.nan)
        got = _seconds_since_first(d)
        assert np.array_equal(got, ref, equal_nan=True) and got.tobytes() == ref.tobytes()
    assert np.isnan(_seconds_since_first(np.array(["NaT"] * 3, dtype="datetime64[ns]"))).all()


def test_flat_floats_equal_as_floats_or_leave_the_error_to_it():
    src = Source("x.json")
    rng = np.random.default_rng(2)
    lists = [[float(v) for v in rng.lognormal(-7, 2, int(rng.integers(0, 30)))] + [3, 2 ** 60 + 1]
             for _ in range(20)]
    got = flat_floats(lists)
    ref = np.array([x for lst in lists for x in as_floats(lst, src, "v")], dtype=np.float64)
    assert got.tobytes() == ref.tobytes()
    for bad in ([1.0, True], [1.0, None], [1.0, "2"], [math.nan], [1e31], [1e-31], [10 ** 400]):
        assert flat_floats([[1.0], bad]) is None
    assert flat_floats([[1.0], (2.0,)]) is None and flat_floats([]).size == 0


@pytest.mark.parametrize("path", PYPERF_FILES, ids=lambda p: p.name[:24])
def test_runner_trace_columns_as_pandas_would_build_them(path):
    """Every benchmark of the bundled pyperf files: values as the file's numbers, ``value_index`` the position in
    the run, ``time`` seconds since the first run's date (pandas' total_seconds), metadata columns repeated onto
    each value of their run; listed before any is built, built once, and the frame holds them all."""
    doc = json.loads(gzip.open(path).read())
    traces = bandkit.load(path)
    traces = traces if isinstance(traces, list) else [traces]
    for bench, t in zip(doc["benchmarks"], traces):
        cols = t.column_arrays
        assert isinstance(cols, RunnerColumns) and not cols._built
        names = t.column_names
        assert names[:4] == ["time", "run", "value_index", "value"] and "date" in names and not cols._built
        runs = [r.get("values", r.get("samples")) for r in bench["runs"]]
        runs = [v for v in runs if v]
        assert t.column("value").tolist() == [float(v) for r in runs for v in r]
        assert t.column("value_index").tolist() == [i for r in runs for i in range(len(r))]
        frame = t.data
        assert list(frame.columns) == names and len(cols._built) == len(names) - 4
        d = frame["date"]
        ref = (d - d.dropna().min()).dt.total_seconds().to_numpy(dtype=np.float64, na_value=np.nan)
        assert frame["time"].to_numpy().tobytes() == ref.tobytes()
        run_of_row = np.repeat(np.arange(len(runs)), [len(r) for r in runs])
        for c in names[4:]:
            a = cols[c]
            if isinstance(a, pd.Categorical):
                first = a.take(np.unique(run_of_row, return_index=True)[1])
                assert list(a.astype(object)) == list(first.astype(object).take(run_of_row))
            assert cols[c] is a  # (built once)


def _same_columns(x: dict, y: dict) -> bool:
    if list(x) != list(y):
        return False
    for c in x:
        a, b = x[c], y[c]
        if isinstance(a, Coded) or isinstance(b, Coded):
            if not (isinstance(a, Coded) and isinstance(b, Coded) and a.categories == b.categories
                    and a.codes.dtype == b.codes.dtype and np.array_equal(a.codes, b.codes)):
                return False
        elif a.dtype != b.dtype or a.tobytes() != b.tobytes():
            return False
    return True


def test_constant_metadata_parsed_once_gives_the_merged_records_columns():
    """``run_metadata_arrays(runs, constant=c)`` (a constant key no run overrides parsed once, its column filled
    in one go) equals ``run_metadata_arrays([{**c, **r} for r in runs])``: names, order, dtypes, values, and the
    same first error, on random records with overrides, None, colliding column names and bad values."""
    rng = np.random.default_rng(11)
    pool = {"host": ["a", "b", 3, None], "loops": [1, 2.0, "4", None], "cpu_freq": ["0-1=1000 MHz", "2=3 MHz", None],
            "cpu_freq_mhz_min": [5.0, 7, "x", None], "cpu_temp_c": [40, None], "cpu_temp": ["s=50 C", None],
            "boot_time": ["2020-06-01 08:00:00", "2020-06-01T08:00:00+01:00", None],
            "date": ["2020-06-05 16:02:52.5", None], "flag": [True, False, None], "lst": [["a", 1], None]}
    bad = {"cpu_freq": "nonsense", "date": "not a date", "loops": "many"}
    keys = list(pool)
    checked = errors = collided = 0
    for trial in range(400):
        ck = rng.choice(keys, size=int(rng.integers(0, len(keys))), replace=False)
        const = {str(k): pool[k][int(rng.integers(0, len(pool[k])))] for k in ck}
        runs = []
        for _ in range(int(rng.integers(0, 6))):
            rk = rng.choice(keys, size=int(rng.integers(0, 4)), replace=False)
            runs.append({str(k): pool[k][int(rng.integers(0, len(pool[k])))] for k in rk})
        if trial % 7 == 0 and runs:
            k = str(rng.choice(list(bad)))
            (const if trial % 2 else runs[int(rng.integers(0, len(runs)))])[k] = bad[k]
        calls = []
        try:
            ref = run_metadata_arrays([{**const, **r} for r in runs], on_error=lambda i, k, e: calls.append((i, k)))
        except ValueError as exc:  # (an on_error that returns: every bad value is reported)
            raise AssertionError(exc) from None
        calls_ref, calls = calls, []
        got = run_metadata_arrays(runs, constant=const, on_error=lambda i, k, e: calls.append((i, k)))
        assert _same_columns(got, ref), (const, runs)
        assert sorted(calls) == sorted(calls_ref), (const, runs)
        collided += any(k == "cpu_freq_mhz_min" for _, k in calls_ref)
        with pytest.raises(ValueError) if calls_ref else _no_error():
            run_metadata_arrays(runs, constant=const)
        if calls_ref:
            with pytest.raises(ValueError) as e_ref:
                run_metadata_arrays([{**const, **r} for r in runs])
            with pytest.raises(ValueError) as e_got:
                run_metadata_arrays(runs, constant=const)
            assert str(e_got.value) == str(e_ref.value)
            errors += 1
        checked += bool(runs)
    assert checked > 300 and errors > 20 and collided > 5


def test_a_metadata_key_named_like_a_number_column_with_a_string_is_an_input_error(tmp_path):
    """A run's ``cpu_freq_mhz_min: "x"`` next to another run's ``cpu_freq`` (whose expansion makes that column
    numeric) was an internal error (ValueError traceback); now one line naming the run, benchmark and field."""
    from bandkit.cli import main
    from bandkit.errors import InputError

    doc = {"version": "1.0", "metadata": {"name": "b"}, "benchmarks": [{"runs": [
        {"metadata": {"cpu_freq": "0=1000 MHz"}, "values": [1.0]},
        {"metadata": {"cpu_freq_mhz_min": "x"}, "values": [1.0]}]}]}
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        bandkit.load(p)
    assert err.value.field == "cpu_freq_mhz_min" and "run 2 of benchmark 'b'" in str(err.value)
    assert main(["report", str(p), "-q", "-o", str(tmp_path / "r.txt")]) == 2


class _no_error:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_plain_cpu_freq_strings_split_as_the_general_parser_reads_them(monkeypatch):
    """pyperf's own ``cpu_freq`` form is read by splitting: the same {cpu: MHz} (order too) as the general
    parser, and the same error for what that refuses (reversed or huge ranges, too many CPUs)."""
    import re

    import bandkit.metadata as md

    rng = np.random.default_rng(4)
    texts = ["1,3,5=3332 MHz; 13=1828 MHz", "0-3=1200.5 MHz", "3-1=5 MHz", "0-70000=1 MHz", "0-8192=2 MHz",
             "0-4096=1 MHz; 4096-8192=2 MHz", "5=1 MHz; 5=2 MHz; 1=3 MHz", "007=10 MHz",
             "0=1 MHz; " * 600 + "0=2 MHz", "; ".join(f"{c}=1 MHz" for c in range(8193)),  # (items read once each)
             "0-8191=1 MHz; 8191=2 MHz", "0-8191=1 MHz; 8192=2 MHz"]
    for _ in range(300):
        groups = []
        for _ in range(int(rng.integers(1, 6))):
            parts = [f"{a}-{a + int(rng.integers(0, 4))}" if rng.random() < 0.3 else str(a)
                     for a in rng.integers(0, 40, int(rng.integers(1, 4)))]
            groups.append(",".join(parts) + "=" + str(rng.choice([int(rng.integers(800, 4000)), 2674.5])) + " MHz")
        texts.append("; ".join(groups))

    def read(text):
        try:
            out = md.parse_cpu_freq(text)
            return list(out.items())
        except ValueError as exc:
            return str(exc)

    assert all(md._FREQ_PLAIN.fullmatch(t) for t in texts)
    monkeypatch.setattr(md, "_CPU_LISTS", {})
    fast = [read(t) for t in texts]
    assert md._CPU_LISTS and [read(t) for t in texts] == fast  # (again, the CPU lists read from the memo)
    assert "0-4096" not in md._CPU_LISTS and "3-1" not in md._CPU_LISTS  # (long or refused lists: not kept)
    monkeypatch.setattr(md, "_FREQ_PLAIN", re.compile(r"(?!)"))
    general = [read(t) for t in texts]
    assert fast == general
    assert sum(isinstance(x, str) for x in fast) == 6 and fast[0] == [(1, 3332.0), (3, 3332.0), (5, 3332.0),
                                                                         (13, 1828.0)]


def test_mean_of_a_list_is_numpys_bit_for_bit():
    from bandkit.metadata import _mean

    rng = np.random.default_rng(9)
    for t in range(4000):
        n = int(rng.integers(1, 1500)) if t % 10 == 0 else int(rng.integers(1, 200))
        v = (rng.lognormal(7, 1, n) if t % 2 else rng.integers(800, 4000, n) + rng.choice([0, 0.5, 1 / 3], n)).tolist()
        assert _mean(v).hex() == float(np.mean(v)).hex(), (t, n)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_report_of_a_pyperf_file_imports_no_pandas(fmt):
    """``bandkit report A`` (60 benchmarks: run tables, suspects, the cross-benchmark summary) reads the coded
    metadata columns as codes (``metadata.Coded``), so pandas is never imported; the public frames still give
    ``pd.Categorical`` (``test_report_public_columns_stay_categorical``). Nor ``numpy.ma`` (~10 ms to import),
    which np.unique and np.median's NaN check pull in (the report's medians and distinct values by
    ``bandkit.robust``). Nor the change-point API (noise model, significance, result classes: ~8 ms), of
    which the post-mortem needs ``fpop`` only (``bandkit.changepoints`` imports the rest on first use)."""
    code = ("import sys, io, contextlib\n"
            "from bandkit.cli import main\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            f"    rc = main(['report', {str(A)!r}, '--format', {fmt!r}])\n"
            "print(rc, 'pandas' in sys.modules, 'numpy.ma' in sys.modules, 'bandkit.changepoints.api' in sys.modules,"
            " len(buf.getvalue()) > 1000)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().split("\n")[-1] == "0 False False False True", out


@pytest.mark.parametrize("args", [["report", str(A)], ["compare", str(A), str(B)]])
def test_runner_report_and_compare_import_neither_statistics_nor_tempfile(args):
    """``statistics`` (fractions, decimal: ~2-3 ms) is imported only where a series on a clock tick needs its
    NormalDist (``noise._one_sided_tick_sd``), ``tempfile`` (~1-2 ms) only where output goes to a file, the FTQ
    loaders only for FTQ input (format detection and the CLI's input list read the two-file names from
    ``loaders.ftq_names``): none of them for a report or a comparison of the two speedpython files on stdout."""
    code = ("import sys, io, contextlib\n"
            "from bandkit.cli import main\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            f"    rc = main({args!r})\n"
            "print(rc, sorted(m for m in ('statistics', 'fractions', 'tempfile', 'bandkit.loaders.ftq',"
            " 'bandkit.loaders.ftq2009') if m in sys.modules),"
            " len(buf.getvalue()) > 1000)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().split("\n")[-1] == "0 [] True", out


def test_report_public_columns_stay_categorical_and_suspects_equal_the_frame_path():
    """The report path keeps string columns as ``Coded`` (``RunTable.raw_columns``), but ``Trace.data``,
    ``Trace.column_arrays[name]``, ``PostMortem.metadata_columns`` and ``PostMortem.metadata`` still give
    ``pd.Categorical``; suspects ranked from the raw columns equal those ranked from the frame."""
    from bandkit.postmortem import postmortem
    from bandkit.postmortem.suspects import rank_suspects

    from bandkit.loaders import load_many

    traces = load_many([str(A)])
    seen_coded = checked = 0
    for t in traces[:30]:
        pm = postmortem(t)
        rt = pm.run_table
        if rt is None or rt.raw_columns is None:
            continue
        coded = [c for c, a in rt.raw_columns.items() if isinstance(a, Coded)]
        seen_coded += len(coded)
        for c in coded:
            assert isinstance(pm.metadata_columns[c], pd.Categorical)
            assert isinstance(pm.metadata[c].dtype, pd.CategoricalDtype)
            assert isinstance(t.data[c].dtype, pd.CategoricalDtype)
            assert isinstance(t.column_arrays[c], pd.Categorical)
            raw = rt.raw_columns[c]
            assert list(pm.metadata_columns[c].categories) == list(raw.categories)
            assert np.array_equal(pm.metadata_columns[c].codes, raw.codes)
        if pm.n_runs >= 6:
            rng = np.random.default_rng(len(coded))
            aff = np.zeros(pm.n_runs, dtype=bool)
            aff[rng.choice(pm.n_runs, pm.n_runs // 3, replace=False)] = True
            kw = dict(min_score=0.0, max_suspects=50, min_support=1, alpha=1.0)
            a = rank_suspects(rt.raw_columns, aff, **kw)
            b = rank_suspects(pm.metadata.reset_index(drop=True), aff, **kw)
            assert [(s.metadata, s.score, s.evidence) for s in a] == [(s.metadata, s.score, s.evidence) for s in b]
            checked += 1
    assert seen_coded > 0 and checked > 5


def test_row_medians_equal_numpys_row_medians():
    """bandkit.summary._row_medians (each run's other values' median, without np.median's numpy.ma import):
    np.median(M, axis=1) on odd and even widths, ties, NaN rows and infinities (signed zeros compare equal)."""
    from bandkit.summary import _row_medians

    rng = np.random.default_rng(3)
    for _ in range(500):
        M = np.round(rng.normal(size=(int(rng.integers(1, 30)), int(rng.integers(1, 12)))), int(rng.integers(0, 3)))
        if rng.random() < 0.3:
            M.flat[rng.integers(0, M.size, 2)] = rng.choice([np.nan, np.inf, -np.inf, -0.0], 2)
        got, want = _row_medians(M), np.median(M, axis=1)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_parses_cleanly_vouches_only_for_metadata_that_parses_without_an_error():
    """``metadata.parses_cleanly`` (the check that lets a loader parse the metadata on first read): whenever it
    vouches for records + constant, ``run_metadata_arrays`` of them calls no ``on_error`` and raises nothing;
    random records of good and bad values (numbers as strings, overflowing ints, bad / zoned / impossible dates,
    cpu_freq ranges and nonsense, cpu_temp, keys colliding with expanded columns, lists, None). It vouches for
    most records of well-formed values (else the loaders would parse everything at once) and for none with a
    bad value."""
    from bandkit.metadata import parses_cleanly

    rng = np.random.default_rng(17)
    good = {"date": ["2020-06-05 16:02:52.637194", "2020-06-05T16:02:53", None],
            "boot_time": ["2020-04-18 01:36:35", None], "duration": [2.5, 3, None, True],
            "mem_max_rss": [23396352, 10 ** 30, None],
            "cpu_freq": ["1=2967 MHz; 3,5,7=3332 MHz", "0,1=1000.5 MHz", "2=3596 MHz, 3=2998 MHz", " 0 =1 MHz", None],
            "cpu_temp": ["coretemp:Physical id 0=67 C, coretemp:Core 0=51 C", "s=50 C", None],
            "host": ["a", 3, None, ["x", 1], 10 ** 40], "loops": [1, 2.0], "flag": [True, False]}
    bad = {"date": ["not a date", "2020-02-30 10:00:00", "2020-06-05T16:00:00+02:00", 20200605, "2020-06-05"],
           "boot_time": ["yesterday"], "duration": ["2.5 s", "x", 10 ** 400], "mem_max_rss": ["many", [1]],
           "cpu_freq": ["nonsense", "3-1=3300 MHz", "1-=3300 MHz", 3300, "x" * 70000 + "=1 MHz"],
           "cpu_temp": ["hot", 50, "x" * 70000 + "=50 C"],
           "cpu_freq_mhz_min": ["x", 5.0], "cpu_temp_c": [40], "host": [10 ** 400]}
    vouched = vouched_good = 0
    for trial in range(1500):
        with_bad = trial % 2 == 1
        keys = list(good)
        pick = lambda most: [str(k) for k in rng.choice(keys, size=int(rng.integers(0, most)), replace=False)]  # noqa: E731
        const = {k: good[k][int(rng.integers(0, len(good[k])))] for k in pick(5)}
        runs = [{k: good[k][int(rng.integers(0, len(good[k])))] for k in pick(6)} for _ in range(int(rng.integers(1, 8)))]
        if with_bad:
            k = str(rng.choice(list(bad)))
            v = bad[k][int(rng.integers(0, len(bad[k])))]
            (const if trial % 4 == 1 else runs[int(rng.integers(0, len(runs)))])[k] = v
        ok = parses_cleanly(runs, const)
        calls = []
        try:
            run_metadata_arrays(runs, constant=const, on_error=lambda i, k, e: calls.append((i, k)))
            raised = None
        except Exception as exc:  # noqa: BLE001 (any exception counts against a vouched set)
            raised = exc
        if ok is not None:
            vouched += 1
            vouched_good += not with_bad
            assert not calls and raised is None, (const, runs, calls, raised)
            assert ok == set(const).union(*runs)
    assert vouched_good > 600 and vouched < 1100


@pytest.mark.parametrize("path", PYPERF_FILES, ids=lambda p: p.name[:24])
def test_metadata_parsed_on_first_read_equals_the_parse_at_load(path, monkeypatch):
    """Loading a pyperf file in ``metadata_on_read`` (compare's) parses no metadata when the check vouches for it;
    outside it, at load as before; the columns
    parsed on first read - names, order, dtypes, values, ``time`` - equal those of the parse at load (the path
    taken when the check does not vouch), and ``name in columns`` answers alike before and after the parse."""
    import bandkit.loaders.runner_common as rc

    assert all(t.column_arrays._per_run is not None for t in bandkit.load_many([path]))  # (outside: at load)
    with rc.metadata_on_read():
        lazy = bandkit.load_many([path])
    assert all(t.column_arrays._per_run is None for t in lazy)
    probes = ["time", "run", "value", "catchup", "partial", "nope", "date", "cpu_freq", "cpu_freq_mhz_min"]
    before = [[p in t.column_arrays for p in probes[:6]] for t in lazy]
    assert all(t.column_arrays._per_run is None for t in lazy)  # (answered without the parse)
    monkeypatch.setattr(rc, "parses_cleanly", lambda records, const: None)
    with rc.metadata_on_read():
        eager = bandkit.load_many([path])
    assert len(lazy) == len(eager)
    for t, e, b in zip(lazy, eager, before):
        assert t.column_names == e.column_names
        assert [p in t.column_arrays for p in probes] == [p in e.column_arrays for p in probes]
        assert b == [p in e.column_arrays for p in probes[:6]]
        for c in t.column_names:
            x, y = t.column_arrays.raw(c), e.column_arrays.raw(c)
            if isinstance(x, Coded):
                assert x.categories == y.categories and np.array_equal(x.codes, y.codes)
            else:
                assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), c


def test_pyperf_warmups_inline_path_equals_warmup_function(tmp_path, monkeypatch):
    """pyperf 1.0 warm-ups read inline (plain numbers that _warmup accepts) give what _warmup gives, and every
    other warm-up goes to _warmup (the same error): random warm-ups of ints, floats, bools, zero / negative /
    huge / tiny values, strings, NaN, short lists; compared with the loader whose inline path is off."""
    import bandkit.loaders.pyperf as lp
    from bandkit.errors import InputError

    rng = np.random.default_rng(23)
    pool = [1, 2, 3.0, 0.5, 0, -1, True, 1e31, 1e-31, 2.5e-05, 0.61, "1", None, float("nan"), 10 ** 40]

    def outcome(path):
        try:
            return [t.meta.extra["warmups"] for t in bandkit.load_many([path])]
        except InputError as exc:
            return str(exc)

    inline = 0
    for trial in range(300):
        runs = []
        for _ in range(3):
            ws = []
            for _ in range(int(rng.integers(0, 4))):
                k = int(rng.integers(0, 12))
                if k == 0:
                    ws.append([pool[int(rng.integers(0, len(pool)))]])
                elif k < 8:
                    ws.append([int(rng.choice([1, 2, 4])), float(rng.uniform(0.1, 1))])
                else:
                    ws.append([pool[int(rng.integers(0, len(pool)))], pool[int(rng.integers(0, len(pool)))]])
            runs.append({"warmups": ws, "values": [0.5, 0.6]})
        p = tmp_path / f"w{trial}.json"
        p.write_text(json.dumps({"version": "1.0", "metadata": {"name": "b"}, "benchmarks": [{"runs": runs}]}))
        got = outcome(p)
        with monkeypatch.context() as m:
            m.setattr(lp, "_PLAIN", frozenset())
            ref = outcome(p)
        assert got == ref or (str(got) == str(ref)), (runs, got, ref)
        inline += isinstance(got, list)
    assert 50 < inline < 300


def test_registry_numbers_read_without_the_memo_give_the_same_columns(monkeypatch):
    """``_ColumnState.fill`` reads a registry number key given a JSON int / float (duration, uptime, RSS) straight
    into its column: the same columns, kinds, errors and constant-key handling as the general (memoised) path."""
    import bandkit.metadata as md

    rng = np.random.default_rng(12)
    pool = [1.5, 2, 0.0, -0.0, True, False, 10 ** 400, "3.5", "7 MB", "", None, float("nan"), 2 ** 70, "x"]
    keys = ["duration", "uptime", "command_max_rss", "load_avg_1min", "loops", "hostname", "cpu_freq"]

    def value(k):
        if k == "cpu_freq":
            return str(rng.choice(["1=2000 MHz", "0-1=1000 MHz; 2=3 MHz", "bad"]))
        v = pool[int(rng.integers(len(pool)))] if rng.random() < 0.5 else float(rng.normal())
        return 2 ** 70 if k == "hostname" and v == 10 ** 400 else v  # (10 ** 400: registry keys only)

    def read(records, constant):
        errors = []
        try:
            cols = md.run_metadata_arrays(records, constant=constant,
                                          on_error=lambda i, k, e: errors.append((i, k, str(e))))
        except ValueError as exc:
            return str(exc)
        out = {}
        for c, a in cols.items():
            out[c] = (a.codes.tolist(), a.categories) if isinstance(a, md.Coded) else (str(a.dtype), a.tobytes())
        return out, errors

    cases = []
    for _ in range(400):
        n = int(rng.integers(1, 6))
        records = [{k: value(k) for k in keys if rng.random() < 0.7} for _ in range(n)]
        constant = {k: value(k) for k in keys if rng.random() < 0.3}
        cases.append((records, constant))
    fast = [read(r, c) for r, c in cases]
    monkeypatch.setattr(md, "_PLAIN_NUMBER_KEYS", frozenset())
    general = [read(r, c) for r, c in cases]
    assert fast == general
    assert sum(isinstance(x, tuple) and bool(x[1]) for x in fast) > 50  # (cases with parse errors included)
