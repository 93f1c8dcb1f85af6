"""Nothing the user owns is lost or corrupted (issue 18): output safety, pipes and FIFOs as inputs,
resource bounds, wrong numbers refused, interrupts and terminal safety.

Every test here failed on main before the fix (the docstrings say how)."""
from __future__ import annotations

import gzip
import importlib
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import bandkit
from bandkit.cli import main
from bandkit.errors import InputError
from bandkit.schema import validate_report

DATA = Path(__file__).resolve().parent.parent / "data"
QUIET = DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz"
FTQ2009 = DATA / "ftq-2009" / "baseline-ftq_t1"


def _digest(paths) -> dict:
    return {str(p): Path(p).read_bytes() for p in paths}


def _one_line_error(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert err.startswith("bandkit: error: ") and "Traceback" not in err
    return err


@pytest.fixture
def run2009(tmp_path) -> Path:
    d = tmp_path / "run"
    shutil.copytree(FTQ2009, d)
    return d


@pytest.fixture
def small_ftq(tmp_path) -> Path:
    p = tmp_path / "t.dat"
    p.write_text("# Frequency 10000.000000\n" + "".join(f"{i * 100000} {1000 + (i % 3)}\n" for i in range(400)))
    return p


def _no_temp_files(d: Path) -> bool:
    return not [p for p in d.iterdir() if p.name.startswith(".bandkit-")]


# -- 1. -o never replaces an input -----------------------------------------------------------
@pytest.mark.parametrize("inp,out", [
    ("run", "run/times.dat"),            # directory input: the loader opened times.dat
    ("run", "run/counts.dat"),
    ("run/times.dat", "run/counts.dat"),  # the partner file the CLI was never told about
    ("run/counts.dat", "run/times.dat"),
    ("run/times.dat", "link.dat"),        # a symbolic link to an input
    ("run", "hard.dat"),                  # a hard link to an input
])
def test_output_never_replaces_a_two_file_ftq_input(run2009, tmp_path, capsys, monkeypatch, inp, out):
    """Before: `report run/ -o run/times.dat` and `report run/times.dat -o run/counts.dat` exited 0
    and replaced the input."""
    monkeypatch.chdir(tmp_path)
    os.symlink("run/counts.dat", "link.dat")
    os.link("run/times.dat", "hard.dat")
    before = _digest(run2009.iterdir())
    assert main(["report", inp, "-o", out, "-q"]) == 2
    err = _one_line_error(capsys.readouterr().err)
    assert "refusing to overwrite an input file" in err
    assert _digest(run2009.iterdir()) == before
    assert os.path.islink("link.dat") and _no_temp_files(tmp_path) and _no_temp_files(run2009)


def test_output_never_replaces_a_sibling_the_loader_read(tmp_path, capsys):
    """Criterion's sample.json takes its name from the sibling benchmark.json: that file is an input."""
    d = tmp_path / "grp" / "fn" / "new"
    d.mkdir(parents=True)
    (d / "sample.json").write_text(json.dumps({"sampling_mode": "Linear", "iters": [1, 2, 3, 4, 5, 6],
                                               "times": [10.0, 21, 29, 41, 50, 62]}))
    (d / "benchmark.json").write_text(json.dumps({"full_id": "grp/fn", "title": "grp/fn"}))
    before = _digest([d / "benchmark.json"])
    assert main(["report", str(d / "sample.json"), "-o", str(d / "benchmark.json"), "-q"]) == 2
    assert "refusing to overwrite" in _one_line_error(capsys.readouterr().err)
    assert _digest([d / "benchmark.json"]) == before


def test_compare_and_fleet_outputs_never_replace_inputs(tmp_path, run2009, small_ftq, capsys):
    a = DATA / "runners" / "pytest-benchmark-tests_0001.json"
    b = tmp_path / "b.json"
    shutil.copy(a, b)
    before = b.read_bytes()
    assert main(["compare", str(a), str(b), "-o", str(b)]) == 2
    assert "refusing to overwrite" in _one_line_error(capsys.readouterr().err)
    assert b.read_bytes() == before
    # fleet: the counts file of a two-file pair found in a directory
    before = _digest(run2009.iterdir())
    assert main(["fleet", str(run2009), "-o", str(run2009 / "counts.dat"), "-q"]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert _digest(run2009.iterdir()) == before


def test_loaders_report_the_files_they_opened(run2009):
    from bandkit.loaders.source import Source
    src = Source.open(run2009)
    traces = bandkit.loaders.registry.load_traces(src)
    assert traces
    opened = {Path(f.path).name for f in src.files}
    assert opened == {"times.dat", "counts.dat"}
    st = os.stat(run2009 / "counts.dat")
    assert (st.st_dev, st.st_ino) in {(f.dev, f.ino) for f in src.files}


# -- 2. devices, FIFOs, symlinks, modes, write errors -----------------------------------------
def _device(tmp_path: Path, name: str, minor: int) -> Path:
    """A character device like /dev/<name> (memory devices, major 1). Made in ``tmp_path`` where
    possible, so that a regression can never replace the machine's own node (as root it would)."""
    dev = tmp_path / name
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        return dev
    except OSError:
        pass
    real = Path("/dev") / name
    if os.geteuid() != 0 and real.exists():  # not root: a regression cannot replace /dev nodes
        return real
    pytest.skip("cannot create a device node here")


def test_output_to_a_device_writes_in_place(tmp_path, small_ftq, capsys):
    """Before (as root): `-o /dev/null` replaced the device node with a regular file."""
    dev = _device(tmp_path, "null", 3)
    assert main(["report", str(small_ftq), "-o", str(dev), "-q"]) == 0
    assert stat.S_ISCHR(os.stat(dev).st_mode) and os.stat(dev).st_rdev == os.makedev(1, 3)
    assert _no_temp_files(tmp_path)


def test_output_to_a_fifo_writes_into_it(tmp_path, small_ftq):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = {}

    def reader():
        with open(fifo, "rb") as fh:
            got["data"] = fh.read()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    assert main(["report", str(small_ftq), "-o", str(fifo), "-q", "-f", "json"]) == 0
    t.join(60)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(got["data"])["traces"][0]["samples"] == 400


def test_output_through_a_symlink_keeps_the_link_and_the_mode(tmp_path, small_ftq):
    """Before: the link was replaced by a regular file, and a 0600 file came back 0644."""
    target = tmp_path / "private.txt"
    target.write_text("old\n")
    os.chmod(target, 0o600)
    link = tmp_path / "link.txt"
    os.symlink(target.name, link)
    assert main(["report", str(small_ftq), "-o", str(link), "-q"]) == 0
    assert link.is_symlink() and os.readlink(link) == target.name
    assert "verdict:" in target.read_text()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    # a plain existing file keeps its mode too; a new file gets 0666 & ~umask
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    os.chmod(plain, 0o640)
    assert main(["report", str(small_ftq), "-o", str(plain), "-q"]) == 0
    assert stat.S_IMODE(os.stat(plain).st_mode) == 0o640
    new = tmp_path / "new.txt"
    umask = os.umask(0o027)
    try:
        assert main(["report", str(small_ftq), "-o", str(new), "-q"]) == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o640
    assert _no_temp_files(tmp_path)


def test_dangling_symlink_output_creates_its_target(tmp_path, small_ftq):
    link = tmp_path / "l.txt"
    os.symlink("made.txt", link)
    assert main(["report", str(small_ftq), "-o", str(link), "-q"]) == 0
    assert link.is_symlink() and "verdict:" in (tmp_path / "made.txt").read_text()


def test_disk_full_is_one_clean_line(small_ftq, tmp_path):
    """Before: a traceback (stdout on /dev/full) and exit status 120 from the final flush."""
    full = _device(tmp_path, "full", 7)
    cmd = [sys.executable, "-m", "bandkit", "report", str(small_ftq), "-q"]
    with open(full, "w") as fh:
        r = subprocess.run(cmd, stdout=fh, stderr=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 2
    assert r.stderr == "bandkit: error: standard output: cannot write (no space left on device)\n"
    r = subprocess.run(cmd + ["-o", str(full)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stderr == f"bandkit: error: {full}: cannot write (no space left on device)\n"
    assert stat.S_ISCHR(os.stat(full).st_mode)


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))


def test_file_size_limit_leaves_no_partial_file(small_ftq, tmp_path):
    """Before: a traceback, and the temporary file stayed behind."""
    out = tmp_path / "r.json"
    out.write_text("previous report\n")
    r = subprocess.run([sys.executable, "-m", "bandkit", "report", str(small_ftq), "-q", "-f", "json", "-o", str(out)],
                       capture_output=True, text=True, timeout=300, preexec_fn=_limit_file_size)
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"bandkit: error: {out}: cannot write (file too large: file-size limit reached)\n"
    assert out.read_text() == "previous report\n" and _no_temp_files(tmp_path)
    fresh = tmp_path / "fresh.json"
    r = subprocess.run([sys.executable, "-m", "bandkit", "report", str(small_ftq), "-q", "-f", "json", "-o", str(fresh)],
                       capture_output=True, text=True, timeout=300, preexec_fn=_limit_file_size)
    assert r.returncode == 2 and not fresh.exists() and _no_temp_files(tmp_path)


def _os_fails(monkeypatch, module_attr: str, exc: OSError, tmp_path) -> Path:
    """Make ``bandkit.output.<module_attr>`` raise ``exc``; return an existing output file holding "old"."""
    output = importlib.import_module("bandkit.output")
    mod, attr = module_attr.split(".")

    def fail(*a, **k):
        raise exc

    target = getattr(output, mod, None) or importlib.import_module(mod)  # (tempfile: imported where it is used)
    monkeypatch.setattr(target, attr, fail)
    out = tmp_path / "r.txt"
    out.write_text("old\n")
    return out


def test_write_errors_keep_the_old_file(small_ftq, tmp_path, monkeypatch, capsys):
    import errno

    out = _os_fails(monkeypatch, "os.fsync", OSError(errno.ENOSPC, "No space left on device"), tmp_path)
    assert main(["report", str(small_ftq), "-o", str(out), "-q"]) == 2
    assert _one_line_error(capsys.readouterr().err) == f"bandkit: error: {out}: cannot write (no space left on device)\n"
    assert out.read_text() == "old\n" and _no_temp_files(tmp_path)


def test_unwritable_directory_falls_back_to_writing_the_file_in_place(small_ftq, tmp_path, monkeypatch):
    """A file the user may write, in a directory where no temporary file can be created."""
    import errno

    out = _os_fails(monkeypatch, "tempfile.mkstemp", PermissionError(errno.EACCES, "Permission denied"), tmp_path)
    assert main(["report", str(small_ftq), "-o", str(out), "-q"]) == 0
    assert "verdict:" in out.read_text()
    assert main(["report", str(small_ftq), "-o", str(tmp_path / "new.txt"), "-q"]) == 2


# -- 3. non-seekable inputs are read once, whole ----------------------------------------------
def _feed(write_end: int, data: bytes) -> threading.Thread:
    def run():
        try:
            with os.fdopen(write_end, "wb") as fh:
                fh.write(data)
        except BrokenPipeError:  # the reader stopped early (a limit)
            pass

    t = threading.Thread(target=run)
    t.start()
    return t


@pytest.mark.parametrize("forced", [True, False])
@pytest.mark.parametrize("compressed", [False, True])
def test_pipe_input_is_read_whole(capsys, forced, compressed):
    """Before: `report <(cat trace.dat) -F ftq` exited 0 with 129,934 of 200,000 samples."""
    raw = gzip.open(QUIET).read()
    r, w = os.pipe()
    t = _feed(w, gzip.compress(raw, 1) if compressed else raw)
    try:
        argv = ["report", f"/dev/fd/{r}", "-f", "json", "-q"] + (["-F", "ftq"] if forced else [])
        assert main(argv) == 0
    finally:
        t.join(60)
        os.close(r)
    rep = json.loads(capsys.readouterr().out)
    assert rep["traces"][0]["samples"] == 200000
    assert rep["traces"][0]["sampling_hz"] == pytest.approx(10000)


def test_fifo_input_is_read_whole(tmp_path, capsys):
    """Before: a FIFO hung (the second open waited for a writer that had gone) or lost data."""
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    raw = gzip.open(QUIET).read()

    def writer():
        with open(fifo, "wb") as fh:
            fh.write(raw)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    assert main(["report", str(fifo), "-f", "json", "-q"]) == 0
    t.join(60)
    assert json.loads(capsys.readouterr().out)["traces"][0]["samples"] == 200000


def test_binary_device_is_refused_without_reading_it_all(capsys):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    assert main(["report", "/dev/zero"]) == 2
    assert "binary data" in _one_line_error(capsys.readouterr().err)


def test_stream_size_limit():
    from bandkit.limits import Limits
    r, w = os.pipe()
    t = _feed(w, b"0 1000\n" * 100000)
    try:
        with pytest.raises(InputError, match="max-input-size"):
            bandkit.load(f"/dev/fd/{r}", limits=Limits(max_input_bytes=10000))
    finally:
        os.close(r)
        t.join(60)


# -- 4. resource bounds ----------------------------------------------------------------------
def test_one_huge_time_gap_is_refused_not_allocated(tmp_path, capsys):
    """Before: a 58-byte file asked for a 9e13-slot grid (23.7 GB killed by the kernel, or 'out of memory')."""
    p = tmp_path / "gap.dat"
    p.write_text("# Frequency 10000\n0 100\n100000 101\n9000000000000000000 99\n")
    assert main(["report", str(p)]) == 2
    err = _one_line_error(capsys.readouterr().err)
    assert err.startswith(f"bandkit: error: {p}:4: time jumps by 9e+13 sampling periods") and "--max-quanta" in err


def test_time_span_limit_can_be_raised(tmp_path):
    from bandkit.limits import Limits
    p = tmp_path / "gap.dat"
    p.write_text("# Frequency 10000\n0 100\n100000 101\n3000000000000 99\n")  # 3e7 periods
    with pytest.raises(InputError, match="max-quanta"):
        bandkit.load(p)
    t = bandkit.load(p, limits=Limits(max_quanta=10 ** 8))
    assert len(t) == 3
    with pytest.raises(InputError, match="max-quanta"):  # the two-file and MPI loaders check it too
        d = tmp_path / "two"
        d.mkdir()
        (d / "times.dat").write_text("".join(f"{1000 * (i + 1)}\n" for i in range(20)) + "9000000000000\n")
        (d / "counts.dat").write_text("5\n" * 21)
        bandkit.load(d)


def test_gzip_bomb_is_refused_and_the_limit_can_be_raised(tmp_path, capsys):
    """Before: a 6 MB .gz expanded to 3.2 GB in memory (and went on to 12 GB parsing it)."""
    from bandkit.limits import Limits
    p = tmp_path / "bomb.dat.gz"
    body = b"# Frequency 10000\n" + b"".join(b"%d 1000\n" % (i * 100000) for i in range(1000))
    with gzip.open(p, "wb", 9) as fh:
        fh.write(body)
        fh.write(b"# padding\n" * (2 * 1024 * 1024))  # 20 MiB of comments: compresses ~1000x
    assert p.stat().st_size < 100_000
    assert main(["report", str(p), "-q"]) == 2
    err = _one_line_error(capsys.readouterr().err)
    assert "gzip data expands to more than 16 MiB" in err and "--max-input-size" in err
    # also through a pipe, and through the library with the limit raised
    t = bandkit.load(p, limits=Limits(max_input_bytes=64 << 20))
    assert len(t) == 1000


def test_wide_lines_and_columns_are_bounded(tmp_path, capsys):
    """Before: a 101 KB CSV with one very wide line took 24 s and more than 6 GiB."""
    n = 12000
    p = tmp_path / "wide.csv"
    p.write_text(",".join(["value"] + [f"c{i}" for i in range(n)]) + "\n"
                 + "".join(",".join([str(1.5 + r % 2)] + ["1"] * n) + "\n" for r in range(3)))
    assert main(["report", str(p), "-q"]) == 2
    err = _one_line_error(capsys.readouterr().err)
    assert err.startswith(f"bandkit: error: {p}:1: line is ") and "--max-line-length" in err
    assert main(["report", str(p), "-q", "--max-line-length", "1M"]) == 2
    err = _one_line_error(capsys.readouterr().err)
    assert "12,001 columns, more than the limit of 256" in err and "--max-columns" in err
    # within the limits, the table is analysed
    q = tmp_path / "ok.csv"
    q.write_text("value,cpu\n" + "".join(f"{1.5 + r % 2},{r % 4}\n" for r in range(20)))
    assert main(["report", str(q), "-q", "-o", str(tmp_path / "r.txt")]) == 0


def _peak_bytes(fn):
    """Peak of Python/numpy allocations (tracemalloc) while ``fn()`` runs, and its result or error."""
    import tracemalloc

    tracemalloc.start()
    try:
        try:
            out = fn()
        except InputError as exc:
            out = exc
        return tracemalloc.get_traced_memory()[1], out
    finally:
        tracemalloc.stop()


def test_wide_first_line_does_not_pad_the_whole_table(tmp_path):
    """Before: the parser padded every short line to the first line's width (a 30,000-field first
    line over 400,000 short lines asked for 1.2e10 cells). Here 3,000 x 10,000 cells: 240 MB before,
    refused before parsing now."""
    p = tmp_path / "w.dat"
    p.write_text(" ".join(["1"] * 3000) + "\n" + "".join(f"{i * 100000} 5\n" for i in range(10000)))
    peak, err = _peak_bytes(lambda: bandkit.load(p, format="ftq"))
    assert isinstance(err, InputError) and "2: truncated line (expected 3000 fields, got 2)" in str(err)
    assert peak < 60e6, peak


def test_theil_sen_trend_is_bounded():
    """Before: Theil-Sen over 13,000 runs of a 0.8 MB CSV took every pair (4.5 GB, 120 s)."""
    classify = importlib.import_module("bandkit.postmortem.classify")
    rng = np.random.default_rng(0)
    n = 5000
    x = np.log(100 + 0.002 * np.arange(n) + rng.normal(0, 0.5, n))
    peak, c = _peak_bytes(lambda: classify.classify(np.exp(x)))
    assert peak < 80e6, peak  # all 12.5e6 pairs: 100 MB per array of slopes
    assert c.trend["slope_per_run"] == pytest.approx(0.002 / 110, rel=0.3)


def test_limits_parse_and_validate():
    from bandkit.limits import Limits, parse_size
    assert parse_size("64K") == 65536 and parse_size("2G") == 2 << 30 and parse_size("1.5MiB") == 1572864
    with pytest.raises(ValueError):
        parse_size("lots")
    with pytest.raises(ValueError):
        Limits(max_columns=0)
    assert Limits().gzip_bytes(10) == 16 << 20 and Limits().gzip_bytes(100 << 20) == 3200 << 20
    assert Limits(max_input_bytes=5).gzip_bytes(10 ** 9) == 5


# -- 5. wrong numbers ------------------------------------------------------------------------
@pytest.mark.parametrize("text,line,what", [
    ("# Frequency 10000\n# Max possible work is 3000\n0 1000\n100000 1000\n200000 1000000000\n", 5,
     "work count 1e+09 is above the most a quantum can do by the header"),
    ("# Frequency -10000\n0 5\n100000 6\n", 1, "header 'Frequency' must be a sampling rate from 0.001 Hz"),
    ("# Frequency 10000\n# Fraction is -0.5\n0 5\n100000 6\n", 2, "header 'Fraction' must be a fraction between 0"),
    ("# Frequency 10000\n# Fraction is 1.7\n0 5\n100000 6\n", 2, "header 'Fraction' must be a fraction between 0"),
    ("# Ticks per ns: -2.5\n0 5\n100000 6\n", 1, "header 'Ticks per ns' must be a clock rate from 1e-06"),
    ("# Frequency 10000\n# Total count is " + "9" * 5000 + "\n0 5\n100000 6\n", 2, "header 'Total count'"),
    ("# Frequency 10000\n0 5\n100000 -6\n", 3, "negative work count: -6"),
    ("# Frequency 10000\n0 5\n100000 6.5\n", 3, "work count is not a whole number: 6.5"),
])
def test_impossible_ftq_numbers_are_refused(tmp_path, capsys, text, line, what):
    """Before: exit 0 with a wrong FTQ fraction (0.001 for ~0.998), a negative rate or fraction in
    JSON that fails the project's schema, or a traceback (a 5000-digit count)."""
    p = tmp_path / "t.dat"
    p.write_text(text)
    assert main(["report", str(p), "-f", "json"]) == 2
    err = _one_line_error(capsys.readouterr().err)
    assert err.startswith(f"bandkit: error: {p}:{line}: {what}"), err


def test_all_zero_counts_are_not_nothing_unusual(tmp_path, capsys):
    """Before: an FTQ trace that did no work at all got "nothing unusual found"."""
    p = tmp_path / "z.dat"
    p.write_text("# Frequency 10000\n" + "".join(f"{i * 100000} 0\n" for i in range(200)))
    assert main(["report", str(p)]) == 2
    assert "every work count is 0 (200 rows): no work was measured" in _one_line_error(capsys.readouterr().err)
    d = tmp_path / "two"
    d.mkdir()
    (d / "times.dat").write_text("".join(f"{1000 + 256 * i}\n" for i in range(50)))
    (d / "counts.dat").write_text("0\n" * 50)
    with pytest.raises(InputError, match="every work count is 0"):
        bandkit.load(d)


def test_every_cli_json_validates_against_the_schema(tmp_path, capsys):
    """Odd but valid inputs: what the CLI writes always validates (before: 190 of 8,422 fuzzed
    reports failed the schema, e.g. negative rates and fractions)."""
    from bandkit.schema import validate_report

    cases = {
        "outlier.dat": "".join(f"{i * 100000} {1000 if i != 50 else 10 ** 9}\n" for i in range(300)),
        "onerow.dat": "# Frequency 10000\n0 5\n",
        "flat.dat": "".join(f"{i * 100000} 7\n" for i in range(300)),
        "ticks.csv": "name,value\n" + "".join(f"b,{-5.0 + (i % 3)}\n" for i in range(30)),
        "tiny.csv": "value\n0\n0\n0\n0\n0\n",
        "one.csv": "value\n1e300\n",
    }
    for name, text in cases.items():
        p = tmp_path / name
        p.write_text(text)
        status = main(["report", str(p), "-f", "json", "-q"])
        out, err = capsys.readouterr()
        if status == 2:
            _one_line_error(err)
            continue
        assert status == 0, (name, err)
        validate_report(json.loads(out))


# -- 6. interrupts, terminals, one-line errors ------------------------------------------------
def test_ctrl_c_exits_130_and_writes_nothing(small_ftq, tmp_path, monkeypatch, capsys):
    analyze_mod = importlib.import_module("bandkit.analyze")

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(analyze_mod, "analyze", interrupted)
    out = tmp_path / "r.html"
    assert main(["report", str(small_ftq), "-f", "html", "-o", str(out), "-q"]) == 130
    assert capsys.readouterr().err == "bandkit: interrupted\n"
    assert not out.exists() and _no_temp_files(tmp_path)


def test_a_swallowed_interrupt_never_exits_0(small_ftq, tmp_path, monkeypatch, capsys):
    """Before: one Ctrl-C in 93 gave an exit-0 HTML report with sections missing (a library caught
    the KeyboardInterrupt on its way up)."""
    analyze_mod = importlib.import_module("bandkit.analyze")

    real = analyze_mod.analyze

    def swallowing(*a, **k):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # the handler runs at the next bytecode boundary
                pass
        except KeyboardInterrupt:
            pass  # e.g. a plotting library's "except BaseException"
        return real(*a, **k)

    monkeypatch.setattr(analyze_mod, "analyze", swallowing)
    out = tmp_path / "r.html"
    assert main(["report", str(small_ftq), "-f", "html", "-o", str(out), "-q"]) == 130
    assert capsys.readouterr().err == "bandkit: interrupted\n"
    assert not out.exists() and _no_temp_files(tmp_path)
    # the handlers are restored after main()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_in_a_real_process(tmp_path):
    """SIGTERM while analysing: exit 143, one line, no output file, no temporary file, no traceback."""
    big = tmp_path / "big.dat"
    with gzip.open(QUIET) as fh:
        big.write_bytes(fh.read())
    out = tmp_path / "r.json"
    code = ("import importlib, os, signal, sys\n"
            "a = importlib.import_module('bandkit.analyze')\n"
            "real = a.analyze\n"
            "def slow(*x, **k):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(*x, **k)\n"
            "a.analyze = slow\n"
            "from bandkit.cli import main\n"
            f"sys.exit(main(['report', {str(big)!r}, '-f', 'json', '-q', '-o', {str(out)!r}]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 143 and r.stderr == "bandkit: interrupted\n"
    assert not out.exists() and _no_temp_files(tmp_path)


def test_terminal_escapes_in_names_are_escaped(tmp_path, capsys):
    """Before: a benchmark name holding ESC [2J cleared the user's terminal."""
    evil = "bench\x1b[2J\x1b]0;owned\x07\u202eevil"
    p = tmp_path / "r.csv"
    p.write_text("name,value\n" + "".join(f"{evil},{10 + (i % 2) * 0.01}\n" for i in range(20)))
    f = tmp_path / "t\x1b[31m.dat"
    f.write_text("".join(f"{i * 100000} {1000 + (i % 3)}\n" for i in range(200)))
    for argv in (["report", str(p)], ["report", str(f)], ["compare", str(p), str(p)], ["fleet", str(f)]):
        assert main(argv + ["-q"]) == 0, argv
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out, argv
    assert main(["report", str(p), "-q"]) == 0
    assert "bench\\x1b[2J\\x1b]0;owned\\x07\\u202eevil" in capsys.readouterr().out


@pytest.mark.parametrize("case", ["pandas", "newline_name", "warning", "usage", "no_command", "fleet",
                                  "fleet_write"])
def test_every_exit_2_message_is_one_line(tmp_path, capsys, monkeypatch, case):
    """Before: pandas CSV errors ended in a newline (two lines), warnings were printed before the
    error, and a newline in a file name split the message; argparse printed its usage first."""
    argv: list[str]
    if case == "pandas":
        p = tmp_path / "bad.csv"
        p.write_text("value\n1\n2\n3,4,5\n")
        argv = ["report", str(p)]
    elif case == "newline_name":
        p = tmp_path / "two\nlines.dat"
        p.write_text("")
        argv = ["report", str(p)]
    elif case == "warning":  # in a real process: pytest would catch the warning itself
        code = ("import sys, warnings, bandkit.loaders.registry as reg\n"
                "from bandkit.errors import InputError\n"
                "def warn_then_fail(*a, **k):\n"
                "    warnings.warn('something odd', RuntimeWarning)\n"
                "    raise InputError('x.dat', 'broken', line=3)\n"
                "reg.load_traces = warn_then_fail\n"
                "from bandkit.cli import main\n"
                "sys.exit(main(['report', 'x.dat']))\n")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and r.stderr == "bandkit: error: x.dat:3: broken\n", r.stderr
        return
    elif case == "usage":
        argv = ["report", "x.dat", "--fail-on", "bogus"]
    elif case == "no_command":
        argv = []
    else:
        p = tmp_path / "e.dat"
        p.write_text("")
        q = tmp_path / "f.dat"
        q.write_text("" if case == "fleet" else "".join(f"{i * 100000} {1000 + i % 3}\n" for i in range(300)))
        argv = ["fleet", str(p), str(q), "-q"] + (["-o", str(tmp_path / "no" / "r.txt")] if case == "fleet_write" else [])
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    assert status == 2
    err = _one_line_error(capsys.readouterr().err)
    if case == "newline_name":
        assert "two\\nlines.dat" in err


def test_warnings_after_success_are_one_line_each(small_ftq, tmp_path):
    """Before: Python's two-line warning form (file:line, then the source line). In a real process:
    pytest would catch the warning itself."""
    code = ("import importlib, sys, warnings\n"
            "a = importlib.import_module('bandkit.analyze')\n"
            "real = a.analyze\n"
            "def warn(*x, **k):\n"
            "    warnings.warn('plot failed:\\nsecond line', RuntimeWarning)\n"
            "    return real(*x, **k)\n"
            "a.analyze = warn\n"
            "from bandkit.cli import main\n"
            f"sys.exit(main(['report', {str(small_ftq)!r}, '-q', '-o', {str(tmp_path / 'r.txt')!r}]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stderr == "bandkit: warning: plot failed:\\nsecond line\n", r.stderr


def test_undecodable_and_overlong_file_names(tmp_path, capsys):
    """Before: a non-UTF-8 file name crashed the JSON writer; an over-long name was an OSError traceback."""
    raw = os.fsencode(str(tmp_path)) + b"/tr\xffce.dat"
    with open(raw, "w") as fh:
        fh.write("".join(f"{i * 100000} {1000 + (i % 3)}\n" for i in range(200)))
    name = os.fsdecode(raw)
    out = tmp_path / "r.json"
    assert main(["report", name, "-f", "json", "-q", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["traces"][0]["path"] == name  # "\udcff" escape: valid JSON
    assert main(["report", name, "-q"]) == 0
    assert "tr\\udcffce.dat" in capsys.readouterr().out
    assert main(["report", str(tmp_path / ("x" * 300))]) == 2
    assert "file name too long" in _one_line_error(capsys.readouterr().err)
    assert main(["report", name, "-q", "-o", str(tmp_path / ("y" * 300))]) == 2
    assert "file name too long" in _one_line_error(capsys.readouterr().err)


@pytest.mark.parametrize("delay", [0.3, 1.0])
def test_ctrl_c_at_any_time_of_a_real_run(tmp_path, delay):
    """Ctrl-C to the process group of the installed command's entry point, while it starts (imports)
    or analyses: exit 130, one line, no traceback, no output. Before: a traceback from inside an import."""
    big = tmp_path / "big.dat"
    with gzip.open(QUIET, "rt") as fh:
        lines = fh.read().splitlines()
    head = [ln for ln in lines if ln.startswith("#") and not ln.startswith(("# Total count", "# Max possible"))]
    rows = [ln.split() for ln in lines if ln and not ln.startswith("#")]
    span = int(rows[-1][0]) - int(rows[0][0]) + (int(rows[-1][0]) - int(rows[-2][0]))
    # ten copies end to end (2,000,000 quanta; header totals left out): a warm run lasts >= 2 s on a quiet
    # machine, so both delays land while it starts or analyses (one copy now ends in ~1 s: a Ctrl-C at
    # 1.0 s met the interpreter's exit, which dies by the signal, -2, with no line)
    body = [f"{int(t) + k * span} {c}" for k in range(10) for t, c in rows]
    big.write_text("\n".join(head + body) + "\n")
    out = tmp_path / "r.txt"
    code = "import sys; from bandkit_entry import main; sys.exit(main())"
    p = subprocess.Popen([sys.executable, "-c", code, "report", str(big), "-o", str(out)], start_new_session=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=DATA.parent)  # bandkit_entry from this tree, even in an older editable install
    import time

    time.sleep(delay)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 130 and err == "bandkit: interrupted\n", (p.returncode, err)
    assert not out.exists() and _no_temp_files(tmp_path)


def _interrupt_after_marker(tmp_path, first: str, marker: str, args, env=None):
    """Run the installed command's entry point with the Python code ``first`` run before it, send SIGINT to
    its process group as soon as ``marker`` appears on its stderr (never a timed race), and return
    (status, stderr without the marker line)."""
    import selectors

    code = first + "\nimport sys; from bandkit_entry import main; sys.exit(main())"
    p = subprocess.Popen([sys.executable, "-c", code, *args], start_new_session=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, cwd=DATA.parent, env={**os.environ, **(env or {})})
    err = b""
    sel = selectors.DefaultSelector()
    sel.register(p.stderr, selectors.EVENT_READ)
    while marker.encode() not in err:
        if sel.select(timeout=600):
            chunk = os.read(p.stderr.fileno(), 65536)
            if not chunk:
                break
            err += chunk
    assert marker.encode() in err, err.decode(errors="replace")
    os.killpg(p.pid, signal.SIGINT)
    _, rest = p.communicate(timeout=300)
    text = (err + rest).decode(errors="replace")
    return p.returncode, "".join(ln for ln in text.splitlines(keepends=True) if marker not in ln)


def test_ctrl_c_while_the_process_exits_keeps_the_finished_report(tmp_path, small_ftq):
    """Before: a Ctrl-C after the report was written, while the interpreter exited, printed a
    KeyboardInterrupt traceback (in an atexit function) or, once Python had given the signals back, killed
    the process by the signal (status -2, no line). Now the finished command exits with its own status at
    once: its report is complete; 130 would say nothing was written."""
    out = tmp_path / "r.json"
    first = ("import atexit, sys, time\n"
             "def _slow():\n"
             "    sys.stderr.write('MARK-EXIT\\n'); sys.stderr.flush(); time.sleep(60)\n"
             "atexit.register(_slow)\n")
    status, err = _interrupt_after_marker(tmp_path, first, "MARK-EXIT",
                                          ["report", str(small_ftq), "-f", "json", "-q", "-o", str(out)])
    assert status == 0 and err == "", (status, err)
    validate_report(json.loads(out.read_text()))
    assert _no_temp_files(tmp_path)


def test_ctrl_c_during_a_cold_numba_compile(tmp_path):
    """A Ctrl-C while numba compiles a kernel (cold cache), sent when numba announces the compile: one
    line, 130, nothing written. Before: "Exception ignored on calling ctypes callback function" with a
    traceback, then "bandkit: error: RuntimeError: no compiled object yet ... (internal error)" (when the
    signal landed in llvmlite's callback)."""
    out = tmp_path / "r.txt"
    first = ("import sys\n"
             "from numba.core import event\n"
             "class _L(event.Listener):\n"
             "    def on_start(self, ev): sys.stderr.write('MARK-COMPILE\\n'); sys.stderr.flush()\n"
             "    def on_end(self, ev): pass\n"
             "event.register('numba:compile', _L())\n")
    status, err = _interrupt_after_marker(
        tmp_path, first, "MARK-COMPILE", ["report", str(QUIET), "-o", str(out)],
        env={"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "BANDKIT_KERNELS": "compiled", "BANDKIT_WARM": "0"})
    assert status == 130 and err == "bandkit: interrupted\n", (status, err)
    assert not out.exists() and _no_temp_files(tmp_path)


def test_interrupt_swallowed_by_a_ctypes_callback_is_one_line(small_ftq, tmp_path, monkeypatch, capsys):
    """What llvmlite does during a compile, deterministically: the KeyboardInterrupt raised in a ctypes
    callback is printed as "Exception ignored" and swallowed, and numba then fails with a RuntimeError.
    Before: that traceback and an "internal error" line before "bandkit: interrupted"."""
    import ctypes

    analyze_mod = importlib.import_module("bandkit.analyze")

    def compiling(*a, **k):
        def callback():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10000):  # the handler runs here, inside the callback
                pass

        ctypes.CFUNCTYPE(None)(callback)()
        raise RuntimeError("no compiled object yet for <function _grow_kernel>")

    monkeypatch.setattr(analyze_mod, "analyze", compiling)
    out = tmp_path / "r.txt"
    assert main(["report", str(small_ftq), "-o", str(out), "-q"]) == 130
    assert capsys.readouterr().err == "bandkit: interrupted\n"
    assert not out.exists() and _no_temp_files(tmp_path)


def test_interrupt_inside_a_numba_kernel_is_one_line(small_ftq, tmp_path, monkeypatch, capsys):
    """A Ctrl-C landing in a compiled kernel comes out as ``SystemError: CPUDispatcher(...) returned a
    result with an exception set`` (its cause the KeyboardInterrupt). Before: that as an error line, then
    "bandkit: interrupted"."""
    analyze_mod = importlib.import_module("bandkit.analyze")

    def kernel(*a, **k):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10000):
                pass
        except KeyboardInterrupt as e:
            raise SystemError("CPUDispatcher(<function _grow_kernel>) returned a result with an exception set") from e

    monkeypatch.setattr(analyze_mod, "analyze", kernel)
    out = tmp_path / "r.txt"
    assert main(["report", str(small_ftq), "-o", str(out), "-q"]) == 130
    assert capsys.readouterr().err == "bandkit: interrupted\n"
    assert not out.exists()


def test_a_keyboard_interrupt_in_an_error_chain_is_an_interrupt(small_ftq, monkeypatch, capsys):
    """No signal seen (a library raised it), but the error was caused by a KeyboardInterrupt: 130."""
    analyze_mod = importlib.import_module("bandkit.analyze")

    def failing(*a, **k):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise ValueError("half-built state") from e

    monkeypatch.setattr(analyze_mod, "analyze", failing)
    assert main(["report", str(small_ftq), "-q"]) == 130
    assert capsys.readouterr().err == "bandkit: interrupted\n"


@pytest.mark.parametrize("text,line", [
    ("a" * 10 + "\n" + "b" * 10, None), ("a" * 11, 1), ("ab\n" * 5 + "c" * 11 + "\nd", 6),
    ("a" * 10 + "\n" + "b" * 11 + "\n", 2), ("\n" * 30 + "x" * 12, 31), ("a\n" * 100, None),
])
def test_line_length_check_finds_the_first_long_line(text, line):
    from bandkit.limits import Limits
    from bandkit.loaders.source import Source, check_line_length

    src = Source(name="x", limits=Limits(max_line_bytes=10))
    for t in (text, text.encode()):
        if line is None:
            check_line_length(src, t)
        else:
            with pytest.raises(InputError) as ei:
                check_line_length(src, t)
            assert ei.value.line == line
