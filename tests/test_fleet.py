"""Fleet ranking (local processes, Dask), the synthetic FTQ generator and the fast FTQ parser."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bandkit
import bandkit.loaders.ftq as ftqmod
from bandkit import InputError, UsageError
from bandkit.cli import main
from bandkit.fleet import build_report, expand_inputs, rank_fleet, robust_z, summarize_path, work_profile
from bandkit.synthetic.ftq import format_rows, generate_ftq, write_fleet, write_ftq

DATA = Path(__file__).resolve().parent.parent / "data"
REAL = DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz"
REAL_INTF = DATA / "ftq" / "ftq_f7777_intf100Hz_1ms_0.dat.gz"

# node 2: many stalls; node 5: slower bands (lower FTQ fraction); everything else alike
MISBEHAVING = {2: {"stall_rate_hz": 40.0, "stall_median_s": 3e-3}, 5: {"levels": (1338.0, 1000.0)}}


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("fleet")
    write_fleet(d, 8, 20_000, misbehaving=MISBEHAVING, stall_rate_hz=3.0, seed=7)
    return d


@pytest.fixture(scope="module")
def local_report(fleet_dir):
    return rank_fleet([fleet_dir], jobs=1)


# -- synthetic generator -------------------------------------------------------------------
def test_format_rows_matches_python_formatting():
    rng = np.random.default_rng(1)
    t = np.concatenate([[0, 9, 10, 99, 100], rng.integers(0, 10**13, 500)])
    c = np.concatenate([[0, 1, 10, 0, 12345], rng.integers(0, 10**6, 500)])
    expected = "".join(f"{a} {b}\n" for a, b in zip(t.tolist(), c.tolist())).encode()
    assert format_rows(t, c) == expected
    with pytest.raises(ValueError):
        format_rows(np.array([-1]), np.array([1]))


def test_generator_ground_truth_survives_the_loader(tmp_path):
    g = write_ftq(tmp_path / "s_0.dat.gz", 60_000, stall_rate_hz=20, interference_hz=100, seed=3)
    tr = bandkit.load(tmp_path / "s_0.dat.gz")
    assert len(tr) == 60_000
    np.testing.assert_array_equal(tr.data["value"].to_numpy(), g.count)
    np.testing.assert_array_equal(tr.data["time"].to_numpy(), g.time_ns * 1e-9)
    # the loader's catch-up rule finds exactly the rows the generator wrote as catch-up rows
    np.testing.assert_array_equal(tr.data["catchup"].to_numpy(), g.catchup)
    assert len(tr.stalls) == len(g.stalls) > 50
    # header totals are the file's
    assert tr.meta.header["Total count"] == int(g.count.sum())
    assert tr.meta.header["Fraction"] == pytest.approx(g.ftq_fraction, abs=1e-6)
    # stalls: each episode's lost quanta ~ its length / period
    lost = tr.stalls["lost_quanta"].to_numpy()
    expected = np.floor(g.stalls[:, 1] / 1e5) - np.floor(g.stalls[:, 0] / 1e5) - 1
    assert np.abs(lost - expected).max() <= 1


def test_generator_bands_and_interference():
    g = generate_ftq(100_000, levels=(1300.0, 1200.0), weights=(0.7, 0.3), noise_sd=3.0, seed=5)
    assert abs(np.mean(g.band == 1) - 0.3) < 0.05
    assert abs(np.median(g.count[g.band == 0]) - 1300) <= 1
    quiet = generate_ftq(100_000, levels=(1000.0,), noise_sd=0.0, seed=5)
    noisy = generate_ftq(100_000, levels=(1000.0,), noise_sd=0.0, interference_hz=100, interference_s=1e-3, seed=5)
    # 1 ms every 10 ms: 10 % of the work is lost
    assert noisy.count.sum() / quiet.count.sum() == pytest.approx(0.9, abs=0.002)


# -- fast parser -----------------------------------------------------------------------------
@pytest.mark.parametrize("path", [REAL, REAL_INTF])
def test_fast_parser_equals_pandas_path(path, monkeypatch):
    fast = bandkit.load(path)
    monkeypatch.setattr(ftqmod, "FAST_PARSE", False)
    slow = bandkit.load(path)
    pd.testing.assert_frame_equal(fast.data, slow.data)
    assert fast.meta == slow.meta


def _both(tmp_path, monkeypatch, text: bytes):
    """Load ``text`` through the pandas path and the fast numpy path; return (slow, fast) results or errors."""
    p = tmp_path / "t_0.dat"
    p.write_bytes(text)
    out = []
    for fast in (False, True):
        monkeypatch.setattr(ftqmod, "FAST_PARSE", fast)
        try:
            out.append(bandkit.load(p).data)
        except InputError as exc:
            out.append(str(exc))
    return out


@pytest.mark.parametrize("body", [
    b"0 10\n100 11\n200 0\n220 0\n240 5\n300 12",            # no final newline
    b"0 10\r\n100 11\r\n\n  200\t12  \n# comment\n300 13\n",  # CRLF, blank, tabs, comment lines
    b"0 10\n100 11.5\n200 12\n",                              # a float: handled by the pandas path
    b"0 10\n100 11 7\n200 12\n",                              # three columns
])
def test_fast_parser_accepts_or_defers(tmp_path, monkeypatch, body):
    slow, fast = _both(tmp_path, monkeypatch, b"# Frequency 10000.000000\n" + body)
    if isinstance(slow, str):
        assert fast == slow
    else:
        pd.testing.assert_frame_equal(fast, slow)


@pytest.mark.parametrize("body,needle", [
    (b"0 10\n100 11\n50 12\n300 13\n", "timestamp goes backwards"),
    (b"0 10\n100 11\n200\n300 13\n", "truncated line"),
    (b"0 10\n100 x1\n200 12\n", "not a number"),
])
def test_fast_parser_errors_are_the_same(tmp_path, monkeypatch, body, needle):
    slow, fast = _both(tmp_path, monkeypatch, b"# Frequency 10000.000000\n" + body)
    assert isinstance(slow, str) and needle in slow
    assert fast == slow
    assert ":4:" in slow or ":3:" in slow  # names the line


# -- statistics ------------------------------------------------------------------------------
def test_robust_z():
    z = robust_z([1.0, 2.0, 3.0, 4.0, 100.0, None])
    # median 3, MAD 1 -> z = 0.67449 (x - 3)
    assert z[:5] == pytest.approx([-1.34898, -0.67449, 0.0, 0.67449, 65.42551], abs=1e-5)
    assert z[5] is None
    # MAD 0 -> mean absolute deviation x sqrt(pi / 2) = 1.2533
    z = robust_z([5.0, 5.0, 5.0, 5.0, 9.0])
    assert z[4] == pytest.approx(4 / (0.8 * 1.25331), rel=1e-5)
    assert robust_z([2.0, 2.0, 2.0]) == [0.0, 0.0, 0.0]
    assert robust_z([1.0, None]) == [None, None]


def test_work_profile_mean_is_the_ftq_fraction(tmp_path):
    g = write_ftq(tmp_path / "p_0.dat", 40_000, stall_rate_hz=10, seed=2)
    tr = bandkit.load(tmp_path / "p_0.dat")
    prof, width = work_profile(tr, 100)
    assert len(prof) == 100 and width == pytest.approx(4.0 / 100, rel=1e-3)
    # every count lands in one bin: sum(prof) x max count x quanta per bin = total count
    assert sum(prof) * g.count.max() * (width / 1e-4) == pytest.approx(g.count.sum(), rel=1e-9)
    assert np.mean(prof) == pytest.approx(g.ftq_fraction, rel=1e-3)
    # the bin with the longest stall is among the lowest
    longest = g.stalls[np.argmax(g.stalls[:, 1] - g.stalls[:, 0])]
    b = int(longest[0] * 1e-9 / width)
    assert prof[b] < np.percentile(prof, 10)


# -- ranking -----------------------------------------------------------------------------------
def test_rank_fleet_finds_the_misbehaving_nodes(local_report):
    rep = local_report
    assert len(rep.rows) == 8 and not rep.errors
    assert [r.rank for r in rep.rows] == list(range(1, 9))
    fr = [r.ftq_fraction for r in rep.rows]
    assert fr == sorted(fr)
    out = {Path(r.path).name: set(r.outlier_reasons) for r in rep.outliers}
    assert set(out) == {"node2_0.dat", "node5_0.dat"}
    assert "stalls" in out["node2_0.dat"] and "low_fraction" in out["node5_0.dat"]
    assert "stalls" not in out["node5_0.dat"]
    # rows carry the report's summary figures
    row = next(r for r in rep.rows if r.path.endswith("node2_0.dat"))
    tr = bandkit.load(row.path)
    rep1 = bandkit.analyze(tr).traces[0].section("summary").fields
    assert row.ftq_fraction == rep1["ftq_fraction"]
    assert row.stall_count == rep1["stalls"]["count"] and row.stall_share == rep1["stalls"]["share_of_time"]
    assert row.node == "node2" and len(row.profile) == 200
    d = rep.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["kind"] == "fleet" and len(d["outliers"]) == 2


def test_jobs_2_equals_jobs_1(fleet_dir, local_report):
    sizes = []

    def progress(it):
        sizes.append(len(it))
        return it

    rep2 = rank_fleet([fleet_dir], jobs=2, progress=progress)
    assert rep2.to_dict() == local_report.to_dict()
    assert sizes == [len(local_report.rows)]  # the progress bar knows the total


def test_traces_and_paths_give_the_same_rows(fleet_dir, local_report):
    paths = expand_inputs([fleet_dir])
    traces = [bandkit.load(p) for p in paths]
    rep = rank_fleet(traces)
    assert rep.to_dict() == local_report.to_dict()


def test_dask_local_cluster_equals_local_run(fleet_dir, local_report):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            rep = rank_fleet([fleet_dir], client=client)
        seen = []

        def progress(it):  # what the CLI's progress bar receives: a sized iterable of results
            seen.append(len(it))
            for x in it:
                seen.append(x)
                yield x

        rep_addr = rank_fleet([str(fleet_dir / "node*_0.dat")], scheduler=cluster.scheduler_address,
                              progress=progress)
    assert seen[0] == len(local_report.rows) and len(seen) == 1 + len(local_report.rows)
    assert rep.backend == "dask"
    assert rep.to_dict() == local_report.to_dict()
    assert rep_addr.to_dict() == local_report.to_dict()


def test_bad_files_are_reported_not_fatal(fleet_dir, tmp_path):
    d = tmp_path / "mixed"
    shutil.copytree(fleet_dir, d)
    (d / "broken_0.dat").write_text("# Frequency 10000\n0 10\n100 x\n")
    rep = rank_fleet([d])
    assert len(rep.rows) == 8 and len(rep.errors) == 1
    assert rep.errors[0][0].endswith("broken_0.dat") and "not a number" in rep.errors[0][1]
    assert "could not be analysed" in rep.to_text()


def test_expand_inputs(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("n10_0.dat", "n2_0.dat", "b/n1_0.dat.gz", "x_times.dat", "x_counts.dat", "notes.md", "log.txt"):
        (tmp_path / "a" / name).write_bytes(b"0 1\n")
    got = [Path(p).relative_to(tmp_path / "a").as_posix() for p in expand_inputs([tmp_path / "a"])]
    assert got == ["b/n1_0.dat.gz", "n2_0.dat", "n10_0.dat", "x_times.dat"]  # a two-file pair once
    assert len(expand_inputs([str(tmp_path / "a" / "n*_0.dat"), tmp_path / "a" / "n2_0.dat"])) == 2
    with pytest.raises(InputError, match="matches no file"):
        expand_inputs([str(tmp_path / "zz*")])
    with pytest.raises(InputError, match="no such file"):
        expand_inputs([tmp_path / "missing.dat"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no FTQ trace files"):
        expand_inputs([tmp_path / "empty"])


def test_usage_errors(fleet_dir):
    with pytest.raises(UsageError):
        rank_fleet([fleet_dir], jobs=0)
    with pytest.raises(UsageError):
        rank_fleet([fleet_dir], client=object(), scheduler="tcp://x:1")
    with pytest.raises(UsageError):
        rank_fleet([])


def test_text_html_and_plot(local_report):
    text = local_report.to_text()
    assert "2 outliers" in text and "node2_0.dat" in text and "node5_0.dat" in text
    assert all(len(line) <= 100 for line in text.splitlines())
    html = local_report.to_html()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html and "<script" not in html
    import matplotlib.pyplot as plt

    ax = local_report.plot()
    labels = {t.get_text(): t.get_color() for t in ax.get_yticklabels()}
    assert labels["node2_0.dat"] == "#c62828" and labels["node0_0.dat"] != "#c62828"
    mat, edges, rows = local_report.profile_matrix()
    assert mat.shape == (8, 200) and np.isfinite(mat).all() and edges[-1] == pytest.approx(2.0, rel=1e-3)
    plt.close("all")


def test_build_report_keeps_order_independent_of_input_order(local_report):
    rows = [summarize_path(r.path)[0] for r in local_report.rows]
    rev = build_report(rows[::-1])
    assert rev.to_dict() == local_report.to_dict()


# -- CLI --------------------------------------------------------------------------------------
def test_cli_fleet(fleet_dir, tmp_path, capsys):
    assert main(["fleet", str(fleet_dir), "-q"]) == 0
    out = capsys.readouterr().out
    assert "node2_0.dat" in out and "outlier" in out
    assert main(["fleet", str(fleet_dir), "-q", "--fail-on-outliers"]) == 1
    capsys.readouterr()
    out_json = tmp_path / "f.json"
    assert main(["fleet", str(fleet_dir / "*.dat"), "--format", "json", "-o", str(out_json), "--jobs", "2"]) == 0
    d = json.loads(out_json.read_text())
    assert d["n_traces"] == 8 and len(d["rows"][0]["profile"]) == 200
    assert main(["fleet", str(fleet_dir), "--format", "html", "-o", str(tmp_path / "f.html")]) == 0
    assert "<img" in (tmp_path / "f.html").read_text()


def test_cli_fleet_errors(fleet_dir, tmp_path, capsys):
    assert main(["fleet", str(tmp_path / "nothing*")]) == 2
    assert "matches no file" in capsys.readouterr().err
    assert main(["fleet", str(fleet_dir), "--jobs", "2", "--dask-scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "exclude each other" in capsys.readouterr().err
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "b_0.dat").write_text("# Frequency 10000\n0 10\n100 x\n")
    assert main(["fleet", str(bad)]) == 2
    assert "not a number" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["fleet", str(fleet_dir), "--jobs", "0"])
    assert e.value.code == 2


def test_a_crashing_analysis_loses_one_trace_not_the_fleet(fleet_dir, monkeypatch):
    import bandkit.fleet.rows as fleet

    real = fleet.row_from_report

    def flaky(tr, n_bins):
        if tr.trace.path.endswith("node4_0.dat"):
            raise ValueError("boom")
        return real(tr, n_bins)

    monkeypatch.setattr(fleet, "row_from_report", flaky)
    rep = rank_fleet([fleet_dir])
    assert len(rep.rows) == 7 and len(rep.errors) == 1
    assert "internal error" in rep.errors[0][1] and "ValueError: boom" in rep.errors[0][1]


def test_fast_parser_from_a_file_object(monkeypatch):
    raw = gzip.decompress(REAL.read_bytes())
    import io

    tr = bandkit.load(io.BytesIO(raw))
    assert len(tr) == 200_000
    ref = bandkit.load(REAL)
    np.testing.assert_array_equal(tr.data["catchup"].to_numpy(), ref.data["catchup"].to_numpy())
    np.testing.assert_array_equal(tr.data["value"].to_numpy(), ref.data["value"].to_numpy())


def test_fleet_walk_finds_two_file_ftq_runs():
    """The published 2009 data (directories of times.dat + counts.dat) rank like any other fleet."""
    d = DATA / "ftq-2009"
    paths = expand_inputs([d])
    assert paths and all(Path(p).name == "times.dat" for p in paths)
    rep = rank_fleet(paths, jobs=1)
    assert not rep.errors
    assert len(rep.rows) == 1 + 4 + 12 + 1 + 1  # t1, t4, t12 baselines, llfree t1, balloon t1
    assert rep.rows[0].path.endswith("virtio-balloon-ftq_t1/times.dat") and rep.rows[0].outlier
