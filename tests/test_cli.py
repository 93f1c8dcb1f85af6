"""The `bandkit` command, called in-process through `main(argv)` and once as a real subprocess."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bandkit.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"
QUIET = DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz"


def test_report_json_contract(capsys):
    assert main(["report", str(QUIET), "--format", "json", "--quiet"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["schema_version"] >= 1 and rep["bandkit_version"]
    (t,) = rep["traces"]
    assert t["path"] == str(QUIET) and t["kind"] == "ftq" and t["format"] == "ftq" and t["thread"] == 0
    assert t["samples"] == 200000
    assert t["sampling_hz"] == pytest.approx(10000)
    assert t["duration_s"] == pytest.approx(20.0, abs=1e-3)
    assert abs(t["ftq_fraction"] - 0.71164) < 1e-4
    st = t["stalls"]
    assert st["count"] == 1550 and st["lost_quanta"] == 46429
    assert 0 < st["longest_s"] < 0.02 and st["total_s"] == pytest.approx(st["share_of_time"] * t["duration_s"])
    assert isinstance(rep["findings"], list)
    assert any(f["kind"] == "stalls" and f["trace"] == 0 for f in rep["findings"])


def test_report_text_and_output_file(tmp_path, capsys):
    out = tmp_path / "r.txt"
    assert main(["report", str(QUIET), "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    text = out.read_text()
    assert "verdict:" in text and "FTQ fraction" in text and "1,550" in text
    assert max(len(l) for l in text.splitlines()) <= 100
    assert "\x1b[" not in text  # no colour in files


def test_json_is_byte_identical(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["report", str(QUIET), "-f", "json", "-o", str(a), "-q"]) == 0
    assert main(["report", str(QUIET), "-f", "json", "-o", str(b), "-q"]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_bad_input_one_line_exit_2(tmp_path, capsys):
    p = tmp_path / "bad.dat"
    p.write_text("# Frequency 10000.000000\n0 100\n100000 x1\n")
    assert main(["report", str(p)]) == 2
    err = capsys.readouterr().err
    assert err == f"bandkit: error: {p}:3: not a number: 'x1'\n"


def test_missing_file_and_usage(capsys, tmp_path):
    assert main(["report", str(tmp_path / "nope.dat")]) == 2
    assert capsys.readouterr().err.strip() == f"bandkit: error: {tmp_path / 'nope.dat'}: no such file"
    with pytest.raises(SystemExit) as ei:
        main(["report"])
    assert ei.value.code == 2
    assert main([]) == 2


def test_refuses_to_overwrite_input(tmp_path, capsys):
    p = tmp_path / "t.dat"
    p.write_text("0 100\n100000 101\n200000 99\n")
    before = p.read_bytes()
    assert main(["report", str(p), "-o", str(p)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert p.read_bytes() == before


def test_fail_on(tmp_path, capsys):
    assert main(["report", str(QUIET), "--fail-on", "stalls", "-q", "-o", str(tmp_path / "x")]) == 1
    p = tmp_path / "calm.dat"
    p.write_text("".join(f"{i * 100000} {1000 + (i % 3)}\n" for i in range(200)))
    assert main(["report", str(p), "--fail-on", "stalls", "-q", "-o", str(tmp_path / "y")]) == 0
    with pytest.raises(SystemExit) as ei:
        main(["report", str(p), "--fail-on", "bogus"])
    assert ei.value.code == 2


def test_help_shows_examples(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "examples:" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "examples:" in capsys.readouterr().out


def test_console_script_stdin():
    """The installed entry point, reading a trace from standard input, exits 0 and prints a report."""
    import gzip

    raw = gzip.open(QUIET).read()
    r = subprocess.run([sys.executable, "-m", "bandkit", "report", "-", "-f", "json"], input=raw,
                       capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["traces"][0]["path"] == "<stdin>" and rep["traces"][0]["samples"] == 200000


def test_console_script_bad_input_no_traceback(tmp_path):
    p = tmp_path / "e.dat"
    p.write_bytes(b"")
    r = subprocess.run([sys.executable, "-m", "bandkit", "report", str(p)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2
    assert r.stderr == f"bandkit: error: {p}: empty file\n"
    assert "Traceback" not in r.stderr


def test_progress_bar_only_on_a_terminal(monkeypatch, capsys, tmp_path):
    """On a terminal, loading and analysing show tqdm bars on stderr; --quiet or a pipe: nothing."""
    out = tmp_path / "r.json"
    assert main(["report", str(QUIET), "-f", "json", "-o", str(out)]) == 0
    assert capsys.readouterr().err == ""  # stderr is not a terminal under pytest
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["report", str(QUIET), "-f", "json", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "loading" in err and "analysing" in err
    assert main(["report", str(QUIET), "-f", "json", "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("width", range(30, 101, 7))
def test_text_wrapping_keeps_numbers_with_their_units(width):
    from bandkit.render.text import _wrap

    line = ("  verdict: 2 bands: 1338 (71 %) and 1270 (24 %); 2124 stalls, longest 9.9 ms; "
            "periodic interference at 100 Hz (external), 7.5 kHz, 58 °C")
    out = _wrap(line, width).split("\n")
    assert all(len(x) <= width for x in out)
    assert " ".join(x.strip() for x in out) == line.strip()
    for token in ("71 %", "24 %", "9.9 ms", "100 Hz", "7.5 kHz", "58 °C"):
        assert any(token in x for x in out), (token, out)
