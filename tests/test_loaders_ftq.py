"""FTQ loaders on the real files in data/ and on every kind of bad input."""
from __future__ import annotations

import gzip
import io
import os
import shutil
import sys

import numpy as np
import pytest

import bandkit
from bandkit import InputError, UsageError
from bandkit.loaders.ftq import flag_catchup, parse_header, split_header
from bandkit.summary import summarize_ftq

from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"

FTQ = DATA / "ftq"
OLD = DATA / "ftq-2009"


def _raw_rows(path):
    """Independent reference reading of a current-format FTQ file (plain Python)."""
    rows = []
    with gzip.open(path, "rt") as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            t, c = line.split()
            rows.append((int(t), int(c)))
    return np.array(rows, dtype=np.int64)


@pytest.mark.parametrize("name,freq,n", [
    ("ftq_f10000_quiet_0.dat.gz", 10000.0, 200000),
    ("ftq_f7777_quiet_0.dat.gz", 7777.017358, 155540),
    ("ftq_f10000_intf100Hz_1ms_0.dat.gz", 10000.0, 200000),
    ("ftq_f7777_intf100Hz_1ms_0.dat.gz", 7777.017358, 155540),
])
def test_current_format_real_files(name, freq, n):
    tr = bandkit.load(FTQ / name)
    assert isinstance(tr, bandkit.Trace)
    assert tr.meta.format == "ftq" and tr.kind == "ftq"
    assert len(tr) == n
    assert tr.meta.sampling_hz == pytest.approx(freq)
    assert tr.meta.header["Frequency"] == pytest.approx(freq)
    assert tr.meta.ticks_per_ns == pytest.approx(2.59613, rel=1e-3)
    assert tr.meta.cpu_model == "AMD EPYC"
    assert "6.18" in tr.meta.kernel
    assert tr.meta.thread == 0 and tr.meta.cpu is None  # "core -1": not pinned by FTQ itself
    ref = _raw_rows(FTQ / name)
    np.testing.assert_array_equal(tr.data["value"].to_numpy(), ref[:, 1])
    np.testing.assert_allclose(tr.data["time"].to_numpy(), ref[:, 0] * 1e-9, rtol=0, atol=1e-12)
    # FTQ fraction computed from the data equals the header's (rounded to %g there)
    s = summarize_ftq(tr)
    assert s.ftq_fraction == pytest.approx(tr.meta.header["Fraction"], abs=1e-4)
    assert s.samples == n
    total = tr.meta.header["Total count"]
    assert s.total_count == total
    assert s.max_count * n == tr.meta.header["Max possible work"]


def test_catchup_rows_match_the_file():
    tr = bandkit.load(FTQ / "ftq_f10000_quiet_0.dat.gz")
    ref = _raw_rows(FTQ / "ftq_f10000_quiet_0.dat.gz")
    t, c = ref[:, 0], ref[:, 1]
    gap_next = np.append(np.diff(t), t[-1] - t[-2])
    expected = (c == 0) & (gap_next < 50_000)
    np.testing.assert_array_equal(tr.data["catchup"].to_numpy(), expected)
    # catch-up rows are ~20 ns apart: every catch-up row but the run's last is followed within 1 µs
    cu = np.flatnonzero(expected)
    assert np.median(np.diff(t)[cu[:-1]]) < 100
    # stall episodes = runs of consecutive catch-up rows
    runs = np.sum(np.diff(np.concatenate([[0], expected.astype(int), [0]])) == 1)
    st = tr.stalls
    assert len(st) == runs
    assert st["lost_quanta"].sum() == expected.sum()
    # the first stall: quantum at 3.599925 ms (count 1051) ran long, 40 catch-up rows, resumed at 7.747625 ms
    first = st.iloc[0]
    assert first["row"] == 37 and first["lost_quanta"] == 40
    assert first["gap_s"] == pytest.approx(7.747625e-3 - 3.599925e-3, abs=1e-9)
    assert 0 < first["duration_s"] <= first["gap_s"]
    assert first["duration_s"] == pytest.approx(first["gap_s"] - 1051 / 1277 * 1e-4, rel=0.02)
    # samples exclude catch-up rows but keep everything else
    assert len(tr.samples) == len(tr) - expected.sum()
    assert (tr.values > 0).all() or (tr.values == 0).sum() < 5


def test_flag_catchup_rule():
    t = np.array([0, 100, 500, 520, 540, 560, 600, 700], dtype=float)
    c = np.array([10, 3, 0, 0, 0, 5, 10, 10])
    # period 100: row 1 ran long (100 -> 500), rows 2-4 are catch-up, row 5 a partial quantum
    np.testing.assert_array_equal(flag_catchup(t, c, 100.0), [0, 0, 1, 1, 1, 0, 0, 0])
    # a zero count on the grid (full quantum with no work) is a measurement, not catch-up
    c2 = np.array([10, 0, 0, 0, 0, 5, 0, 10])
    np.testing.assert_array_equal(flag_catchup(t, c2, 100.0), [0, 0, 1, 1, 1, 0, 0, 0])


def test_header_parsing_fields():
    with gzip.open(FTQ / "ftq_f7777_quiet_0.dat.gz", "rb") as fh:
        data = fh.read()
    lines, offset = split_header(data)
    h = parse_header(lines)
    assert h["Frequency"] == pytest.approx(7777.017358)
    assert h["thread"] == 0 and h["core"] == -1
    assert h["uname"]["sysname"] == "Linux" and h["uname"]["machine"] == "x86_64"
    assert h["cpuinfo"]["vendor_id"] == "AuthenticAMD"
    assert data[offset:].startswith(b"0 ")


def test_stdin_and_file_objects(monkeypatch):
    raw = gzip.open(FTQ / "ftq_f10000_quiet_0.dat.gz").read()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    tr = bandkit.load("-")
    assert tr.meta.path == "<stdin>" and len(tr) == 200000
    tr2 = bandkit.load(io.BytesIO(gzip.compress(raw)))  # gzip detected by magic, not name
    assert len(tr2) == 200000


def test_uncompressed_and_thread_from_name(tmp_path):
    raw = gzip.open(FTQ / "ftq_f10000_quiet_0.dat.gz").read()
    body = b"\n".join(l for l in raw.splitlines() if not l.startswith(b"# thread")) + b"\n"
    p = tmp_path / "run_3.dat"
    p.write_bytes(body)
    tr = bandkit.load(p)
    assert tr.meta.thread == 3


def test_headerless_current_format(tmp_path):
    p = tmp_path / "plain.dat"
    p.write_text("0 100\n1000 101\n2000 0\n2020 0\n2040 50\n3000 100\n")
    tr = bandkit.load(p)
    assert tr.meta.sampling_hz == pytest.approx(1e6)
    assert tr.data["catchup"].tolist() == [False, False, True, True, False, False]


def test_two_file_format_threads():
    for threads in (1, 4, 12):
        traces = bandkit.load_many([OLD / f"baseline-ftq_t{threads}"])
        assert len(traces) == threads
        for i, tr in enumerate(traces):
            assert tr.meta.format == "ftq-2009" and tr.meta.thread == i
            assert tr.meta.time_unit == "ticks" and tr.meta.sampling_hz is None
            assert len(tr) == 1096
            assert tr.meta.extra["quantum_bits"] == 28
            assert tr.data["partial"].tolist()[:2] == [True, False]
            t = tr.data["time"].to_numpy()
            assert t[0] == 0 and np.all(np.diff(t) > 0)
    # the times file and the counts file name the same trace
    a = bandkit.load(OLD / "baseline-ftq_t1" / "times.dat")
    b = bandkit.load(OLD / "baseline-ftq_t1" / "counts.dat")
    np.testing.assert_array_equal(a.data["value"], b.data["value"])


def test_two_file_format_partial_first_quantum_gets_its_bands(tmp_path):
    """The 2009 format's short first quantum is left out of ``trace.samples``; the stall-adjacency mask
    must have one entry per sample too (it had one more, so find_bands raised and the report dropped the
    bands section of every such trace without a word)."""
    from bandkit.bands import find_bands, stall_adjacent

    tr = bandkit.load(OLD / "virtio-balloon-ftq_t1")
    assert tr.data["partial"].tolist()[0] is True
    assert len(stall_adjacent(tr)) == len(tr.values) == 1095
    res = find_bands(tr)
    assert res.n_analysed + res.excluded == 1095 and len(res.bands) >= 2
    from bandkit.cli import main

    out = tmp_path / "r.json"
    assert main(["report", str(OLD / "virtio-balloon-ftq_t1"), "--format", "json", "-o", str(out),
                 "--quiet"]) == 0
    import json

    rep = json.loads(out.read_text())["traces"][0]
    assert len(rep["bands"]) >= 2 and rep["band_analysis"]["n_analysed"] > 1000


def test_two_file_format_clock_rate():
    tr = bandkit.load(OLD / "baseline-ftq_t1", clock_hz=2.1e9)
    assert tr.meta.time_unit == "s"
    assert tr.meta.sampling_hz == pytest.approx(2.1e9 / 2**28)
    ticks = tr.data["ticks"].to_numpy()
    assert tr.data["time"].iloc[-1] == pytest.approx((ticks[-1] - ticks[0]) / 2.1e9)


def test_mpi_csv_variant(tmp_path):
    p = tmp_path / "mpi.out"
    p.write_text("# Frequency 1000.000000\n# Ticks per ns: 2\n0,10,11\n2000000,12,13\n4000000,14,15\n")
    traces = bandkit.load(p)
    assert [t.meta.format for t in traces] == ["ftq-mpi", "ftq-mpi"]
    assert traces[1].data["value"].tolist() == [11, 13, 15]
    np.testing.assert_allclose(traces[0].data["time"], [0, 1e-3, 2e-3])


def test_format_override(tmp_path):
    p = tmp_path / "weird.txt"
    p.write_text("0 5\n100 6\n")
    assert bandkit.load(p, format="ftq").meta.format == "ftq"
    with pytest.raises(UsageError):
        bandkit.load(p, format="nope")


# ----------------------------------------------------------------------------- bad input
def _err(path, **kw) -> str:
    with pytest.raises(InputError) as ei:
        bandkit.load(path, **kw)
    return str(ei.value)


def test_bad_empty(tmp_path):
    p = tmp_path / "empty.dat"
    p.write_bytes(b"")
    assert _err(p) == f"{p}: empty file"


def test_bad_binary(tmp_path):
    p = tmp_path / "junk.dat"
    p.write_bytes(bytes(range(256)) * 8)
    assert "binary data" in _err(p)
    assert "binary data" in _err(p, format="ftq")


def test_bad_truncated_line(tmp_path):
    p = tmp_path / "t.dat"
    p.write_text("# Frequency 10000.000000\n0 100\n100000 101\n200000\n300000 99\n")
    assert _err(p) == f"{p}:4: truncated line (expected 2 fields, got 1): '200000'"


def test_bad_non_numeric(tmp_path):
    p = tmp_path / "n.dat"
    p.write_text("# Frequency 10000.000000\n0 100\n100000 abc\n")
    assert _err(p) == f"{p}:3: not a number: 'abc'"


def test_bad_decreasing_time(tmp_path):
    p = tmp_path / "d.dat"
    p.write_text("# Frequency 10000.000000\n# Fraction is 1\n0 100\n\n100000 101\n50000 99\n")
    assert _err(p) == f"{p}:6: timestamp goes backwards (50000 after 100000)"


def test_bad_header_only(tmp_path):
    p = tmp_path / "h.dat"
    p.write_text("# Frequency 10000.000000\n# Ticks per ns: 2.5\n")
    assert "no data lines" in _err(p)


def test_bad_counts_without_times(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (d / "counts.dat").write_text("1\n2\n")
    msg = _err(d / "counts.dat")
    assert "counts file without its times file" in msg and msg.startswith(str(d / "counts.dat"))
    assert "no times.dat" in _err(d)
    (d / "x_3_counts.dat").write_text("1\n")
    assert "x_3_times.dat" in _err(d / "x_3_counts.dat")


def test_bad_two_file_length_mismatch(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (d / "times.dat").write_text("10\n20\n30\n")
    (d / "counts.dat").write_text("1\n2\n")
    msg = _err(d)
    assert msg.startswith(f"{d / 'counts.dat'}:3:") and "pair line by line" in msg


def test_bad_unreadable(tmp_path, monkeypatch):
    assert _err(tmp_path / "missing.dat") == f"{tmp_path / 'missing.dat'}: no such file"
    p = tmp_path / "secret.dat"
    p.write_text("0 1\n")
    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    assert "permission denied" in _err(p)


def test_bad_corrupt_gzip(tmp_path):
    p = tmp_path / "c.dat.gz"
    p.write_bytes(gzip.compress(b"0 1\n100 2\n" * 100)[:40])
    assert "gzip" in _err(p)


def test_bad_input_files_are_not_modified(tmp_path):
    src = FTQ / "ftq_f7777_quiet_0.dat.gz"
    p = tmp_path / "copy.dat.gz"
    shutil.copy(src, p)
    before = p.read_bytes()
    bandkit.load(p)
    assert p.read_bytes() == before


def test_nominal_period_when_most_rows_are_catch_up_rows(tmp_path):
    """Without a Frequency header the sampling period comes from the gaps; a trace whose catch-up
    rows (~20 ns apart, one per missed quantum) outnumber the measured quanta used to get the
    catch-up spacing (20 ns, 50 MHz) as its period, and no catch-up row was flagged."""
    rng = np.random.default_rng(3)
    t, c = [1_000_000], [900]
    for _ in range(40):  # 20 quanta of 100 µs, one that ran 31 quanta long, 30 catch-up rows
        for k in range(20):  # (the quantum after the catch-up rows starts ~20 ns after the last one)
            t.append(t[-1] + (20 if k == 0 and len(t) > 1 else 100_000 + int(rng.integers(-50, 50))))
            c.append(int(rng.integers(880, 900)))
        t.append(t[-1] + 31 * 100_000)
        c.append(15)
        for _ in range(30):
            t.append(t[-1] + 20)
            c.append(0)
    p = tmp_path / "catchup.dat"
    p.write_text("".join(f"{a} {b}\n" for a, b in zip(t, c)))
    tr = bandkit.load_one(p)
    assert tr.meta.sampling_hz == pytest.approx(1e4, rel=1e-3)
    assert int(tr.data["catchup"].sum()) == 40 * 30
    assert np.mean(np.asarray(c) == 0) > 0.5  # the case: most rows are catch-up rows
