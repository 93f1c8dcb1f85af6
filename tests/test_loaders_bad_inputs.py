"""Hand-made bad inputs through the real CLI (issue 14): each is refused with exactly one stderr line
``bandkit: error: FILE...: what``, exit status 2, no traceback, the input unchanged and no output
file (or temporary file) left behind. In-process through ``bandkit.cli.main`` for every case, and
as a separate process (the installed entry point) for a sample. Also: an internal error is one line
with its own exit status, the traceback only under ``--debug``."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bandkit.cli import EXIT_INTERNAL, main

FTQ_HEAD = "# Frequency 10000.000000\n# Ticks per ns: 2.59613\n"
FTQ_BODY = "".join(f"{k * 100000} {1000 + k % 7}\n" for k in range(200))
PYPERF = {"version": "1.0", "metadata": {"name": "b", "unit": "second"},
          "benchmarks": [{"runs": [{"values": [0.1, 0.11, 0.12]}, {"values": [0.1, 0.1, 0.1]}]}]}
PTS_OK = ("<?xml version=\"1.0\"?><PhoronixTestSuite><System><Identifier>X</Identifier></System><Result>"
          "<Title>t</Title><Scale>s</Scale><Data><Entry><Identifier>X</Identifier><Value>1</Value>"
          "<RawString>{raw}</RawString></Entry></Data></Result></PhoronixTestSuite>")
RAW_OLD = "group,function,value,sample_time_nanos,iteration_count\n"


def _j(doc) -> str:
    return json.dumps(doc)


def _pyperf_with(values) -> str:
    doc = json.loads(_j(PYPERF))
    doc["benchmarks"][0]["runs"][0]["values"] = values
    return json.dumps(doc)


# name -> {file name: content (str or bytes)}; "entry" is what is given to bandkit (default: the only file)
CASES: dict[str, dict] = {
    # FTQ, current format
    "ftq-empty": {"t_0.dat": ""},
    "ftq-whitespace": {"t_0.dat": "  \n\n \t\n"},
    "ftq-binary": {"t_0.dat": b"\x00\x01\x02" * 100},
    "ftq-header-only": {"t_0.dat": FTQ_HEAD},
    "ftq-truncated-line": {"t_0.dat": FTQ_HEAD + FTQ_BODY + "20000000\n"},
    "ftq-extra-field": {"t_0.dat": FTQ_HEAD + FTQ_BODY[:100] + "1 2 3\n" + FTQ_BODY[100:]},
    "ftq-not-a-number": {"t_0.dat": FTQ_HEAD + "0 1000\n100000 abc\n"},
    "ftq-backwards": {"t_0.dat": FTQ_HEAD + "0 1000\n200000 1000\n100000 1000\n"},
    "ftq-frequency-1e400": {"t_0.dat": "# Frequency 1e400\n" + FTQ_BODY},
    "ftq-thread-5000-digits": {"t_0.dat": "# thread " + "7" * 5000 + ", core 1\n" + FTQ_BODY},
    "ftq-time-jump-9e18": {"t_0.dat": FTQ_HEAD + FTQ_BODY + "9000000000000000000 1000\n"},
    "ftq-negative-count": {"t_0.dat": FTQ_HEAD + "0 1000\n100000 -3\n200000 1000\n"},
    "ftq-invalid-utf8-row": {"t_0.dat": FTQ_HEAD.encode() + b"0 1000\n100000 \xff\xfe\n"},
    "gzip-corrupt": {"t_0.dat.gz": b"\x1f\x8b\x08\x00" + b"garbage" * 20},
    "gzip-truncated": {"t_0.dat.gz": gzip.compress((FTQ_HEAD + FTQ_BODY).encode())[:60]},
    # FTQ, two-file and MPI formats
    "ftq2009-no-counts": {"times.dat": "100\n200\n300\n"},
    "ftq2009-length-mismatch": {"times.dat": "100\n200\n300\n", "counts.dat": "5\n5\n", "entry": "times.dat"},
    "ftq2009-repeated-timestamp": {"times.dat": "100\n200\n200\n300\n", "counts.dat": "5\n5\n5\n5\n",
                                   "entry": "times.dat"},
    "ftq2009-float-ticks": {"times.dat": "100\n200.5\n300\n", "counts.dat": "5\n5\n5\n", "entry": "times.dat"},
    "ftq2009-empty-dir": {"sub/readme.txt": "nothing here", "entry": "sub"},
    "ftq-mpi-ragged": {"m.dat": "# Frequency 10000\n# Ticks per ns: 2.5\n0,5,5\n250000,5\n500000,5,5\n",
                       "format": "ftq-mpi"},
    # runner JSON
    "pyperf-truncated-json": {"p.json": _j(PYPERF)[:60]},
    "pyperf-string-value": {"p.json": _pyperf_with([0.1, "fast"])},
    "pyperf-nan-value": {"p.json": _pyperf_with([0.1, float("nan")])},
    "pyperf-deep-nesting": {"p.json": '{"version": "1.0", "benchmarks": ' + "[" * 100000 + "]" * 100000 + "}"},
    "pyperf-5000-digit-number": {"p.json": _j(PYPERF).replace("0.11", "1" + "0" * 5000)},
    "pyperf-1e400": {"p.json": _j(PYPERF).replace("0.11", "1e400")},
    "pyperf-bad-version": {"p.json": _j({**PYPERF, "version": 99}), "format": "pyperf"},
    "pyperf-metadata-object": {"p.json": _j({**PYPERF, "metadata": {"name": {"x": 1}}})},
    "hyperfine-results-object": {"h.json": _j({"results": {"command": "x", "times": [1]}}), "format": "hyperfine"},
    "hyperfine-inf-time": {"h.json": '{"results": [{"command": "c", "mean": 1, "times": [1.0, Infinity]}]}'},
    "gbench-missing-time": {"g.json": _j({"context": {}, "benchmarks": [{"name": "a", "run_type": "iteration"}]})},
    "gbench-benchmarks-string": {"g.json": _j({"context": {}, "benchmarks": "many"})},
    "pytest-benchmark-no-stats": {"b.json": _j({"machine_info": {}, "benchmarks": [{"name": "x"}]})},
    "pytest-benchmark-no-mean": {"b.json": _j({"machine_info": {}, "benchmarks": [{"name": "x", "stats": {"rounds": 5}}]})},
    "asv-results-list": {"a.json": _j({"version": 2, "results": [1, 2], "commit_hash": "x"}), "format": "asv"},
    "asv-machine-json": {"machine.json": _j({"arch": "x86_64", "cpu": "c", "machine": "m", "num_cpu": "8",
                                             "os": "Linux", "ram": "1", "version": 1})},
    "criterion-length-mismatch": {"sample.json": _j({"sampling_mode": "Linear", "iters": [1, 2], "times": [5.0]})},
    "criterion-benchmark-json-only": {"benchmark.json": _j({"group_id": "g", "function_id": "f", "full_id": "g/f",
                                                            "title": "g/f", "directory_name": "g/f"})},
    "criterion-raw-not-a-number": {"raw.csv": RAW_OLD + "g,f,,12.5,3\ng,f,,oops,3\n"},
    "criterion-raw-zero-iterations": {"raw.csv": RAW_OLD + "g,f,,12.5,0\n"},
    # PTS XML
    "pts-invalid-xml": {"composite.xml": "<PhoronixTestSuite><Result><Title>t</Title>"},
    "pts-billion-laughs": {"composite.xml": '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
                                            '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
                                            "<PhoronixTestSuite><Result><Title>&b;</Title></Result></PhoronixTestSuite>"},
    "pts-bogus-encoding": {"composite.xml": PTS_OK.format(raw="1:2:3").replace('version="1.0"',
                                                                               'version="1.0" encoding="bogus"')},
    "pts-rawstring-not-numbers": {"composite.xml": PTS_OK.format(raw="1:2:x")},
    "pts-rawstring-nan": {"composite.xml": PTS_OK.format(raw="1:nan:3")},
    # text tables
    "turbostat-no-header": {"t.out": "turbostat version 2023\nCPUID(0): GenuineIntel\n", "format": "turbostat"},
    "csv-labels-only": {"ids.csv": "id,name\n" + "".join(f"{i},n{i}\n" for i in range(1, 30))},
    "csv-no-numeric-column": {"c.csv": "a,b\nx,y\nz,w\n"},
    "csv-row-longer-than-header": {"c.csv": "value,name\n1,a\n2,b,c,d\n3,c\n"},
    "csv-infinite-value": {"c.csv": "value,name\n1,a\ninf,a\n3,a\n"},
    "turbostat-infinite-value": {"t.out": "Core\tCPU\tAvg_MHz\tBusy%\tBzy_MHz\n-\t-\t100\t5.0\t2000\n"
                                          "Core\tCPU\tAvg_MHz\tBusy%\tBzy_MHz\n-\t-\t100\t5.0\t1e400\n"},
    # nothing recognisable
    "unknown-json-keys": {"x.json": _j({"foo": 1, "bar": [1, 2]})},
    "unknown-xml-root": {"x.xml": '<?xml version="1.0"?><root/>'},
    "unknown-text": {"notes.txt": "# a note\nhello world\n"},
    "forced-format-mismatch": {"h.json": _j({"results": [{"command": "c", "times": [1.0]}]}), "format": "pyperf"},
}


def _build(tmp_path: Path, case: dict) -> tuple[Path, list[str], dict[Path, tuple]]:
    src = tmp_path / "in"
    src.mkdir()
    for name, content in case.items():
        if name in ("entry", "format"):
            continue
        p = src / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    files = [n for n in case if n not in ("entry", "format")]
    entry = src / case.get("entry", files[0])
    extra = ["--input-format", case["format"]] if "format" in case else []
    snapshot = {p: _state(p) for p in src.rglob("*") if p.is_file()}
    return entry, extra, snapshot


def _state(p: Path) -> tuple:
    st = p.stat()
    return hashlib.sha256(p.read_bytes()).hexdigest(), st.st_size, st.st_mtime_ns, st.st_mode


def _check_refusal(err: str, rc: int, entry: Path, out_dir: Path, snapshot: dict) -> None:
    lines = err.splitlines()
    assert rc == 2, err
    assert len(lines) == 1 and lines[0].startswith("bandkit: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    assert entry.name in lines[0] or str(entry.parent) in lines[0], lines[0]
    for p, before in snapshot.items():
        assert _state(p) == before, f"{p} was modified"
    assert sorted(os.listdir(out_dir)) == [], "output or temporary files left behind"


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_through_cli(name, tmp_path, capfd):
    entry, extra, snapshot = _build(tmp_path, CASES[name])
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    rc = main(["report", str(entry), "-f", "json", "-o", str(out_dir / "report.json"), "-q", *extra])
    cap = capfd.readouterr()
    assert cap.out == ""
    _check_refusal(cap.err, rc, entry, out_dir, snapshot)


def test_case_count():
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", ["ftq-time-jump-9e18", "pyperf-deep-nesting", "pts-billion-laughs",
                                  "gzip-truncated", "criterion-raw-not-a-number", "unknown-text"])
def test_bad_input_through_the_installed_command(name, tmp_path):
    entry, extra, snapshot = _build(tmp_path, CASES[name])
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    r = subprocess.run([sys.executable, "-m", "bandkit", "report", str(entry), "-f", "json", "-o",
                        str(out_dir / "report.json"), *extra], capture_output=True, text=True, timeout=300)
    assert r.stdout == ""
    _check_refusal(r.stderr, r.returncode, entry, out_dir, snapshot)


def test_bad_input_in_compare(tmp_path, capfd):
    good = tmp_path / "a.json"
    good.write_text(_j(PYPERF))
    bad = tmp_path / "b.json"
    bad.write_text(_pyperf_with([0.1, None]))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    rc = main(["compare", str(good), str(bad), "-o", str(out_dir / "c.txt")])
    err = capfd.readouterr().err
    assert rc == 2 and len(err.splitlines()) == 1 and "b.json" in err and "values[1]" in err
    assert os.listdir(out_dir) == []


def test_internal_error_is_one_line_with_its_own_status(tmp_path, capfd, monkeypatch):
    import importlib

    p = tmp_path / "t_0.dat"
    p.write_text(FTQ_HEAD + FTQ_BODY)

    def boom(*a, **k):
        raise ZeroDivisionError("division by zero\nsecond line")

    monkeypatch.setattr(importlib.import_module("bandkit.analyze"), "analyze", boom)
    rc = main(["report", str(p), "-q"])
    err = capfd.readouterr().err
    assert rc == EXIT_INTERNAL and rc not in (0, 1, 2)
    assert err.splitlines() == ["bandkit: error: ZeroDivisionError: division by zero\\nsecond line "
                                "(internal error: please report)"]
    assert "Traceback" not in err
    for argv in (["--debug", "report", str(p), "-q"], ["report", str(p), "-q", "--debug"]):
        rc = main(argv)
        err = capfd.readouterr().err
        assert rc == EXIT_INTERNAL and "Traceback (most recent call last)" in err and "boom" in err
        assert err.rstrip().splitlines()[-1].endswith("(internal error: please report)")
