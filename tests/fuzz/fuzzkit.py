"""Mutation fuzzing of bandkit's inputs: a seed corpus from ``data/``, seeded mutators, and the
target (load -> analyse -> JSON (schema-checked) and text; for runner files also compare).

Shared by the short deterministic run in CI (``tests/fuzz/test_fuzz_short.py``) and the long run
on demand (``benchmarks/fuzz.py``). A mutant is fully determined by ``(format, index)``: its RNG
seed is derived from both, so any finding replays exactly (``benchmarks/fuzz.py --replay``).

Mutators (1-4 stacked per mutant, like AFL's havoc stage, plus format-aware ones): bit flips, byte
overwrites with interesting bytes, range deletion / insertion / duplication, truncation, splicing
two seeds, numbers replaced by hostile ones (huge, tiny, NaN, inf, 5000 digits, negative, hex),
line deletion / duplication / swapping / separators, bad encodings (invalid UTF-8, Latin-1,
UTF-16, BOM, NUL, CRLF), gzip (valid and corrupt); JSON-aware: a field's value replaced by
another type, deep nesting, huge arrays, keys dropped / renamed / added; XML-aware: element text
replaced, elements dropped or repeated, entity declarations, bogus encoding declarations.

Outcome of one mutant: ``ok`` (loaded, analysed, rendered; JSON valid against the report schema),
``refused`` (a :class:`bandkit.BandkitError`, whose message must be one line naming the file), or
a failure: ``crash`` (any other exception), ``bad_message`` (a refusal that is not one line
naming the file), ``schema`` (a JSON report the schema rejects), ``memory`` (MemoryError).
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import shutil
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"

# -- corpus -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seed:
    """One seed input: ``files`` maps file names to bytes (two files for ftq-2009); ``entry`` is the
    name given to bandkit (a file, or ``"."`` for the directory)."""

    fmt: str
    name: str
    files: tuple[tuple[str, bytes], ...]
    entry: str


def _read(p: Path) -> bytes:
    raw = p.read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def _ftq_head(p: Path, rows: int) -> bytes:
    lines = _read(p).split(b"\n")
    n_head = next(i for i, ln in enumerate(lines) if ln and not ln.startswith(b"#"))
    return b"\n".join(lines[: n_head + rows]) + b"\n"


def _pyperf_subset(p: Path, n: int) -> bytes:
    doc = json.loads(_read(p))
    doc["benchmarks"] = doc["benchmarks"][:n]
    return json.dumps(doc).encode()


def _asv_subset(p: Path, n: int) -> bytes:
    doc = json.loads(_read(p))
    doc["results"] = dict(list(doc["results"].items())[:n])
    return json.dumps(doc).encode()


def corpus() -> dict[str, list[Seed]]:
    """Seeds per format, from the real files in ``data/`` (FTQ bodies and large suites cut to keep
    each input well under 1 MB and one analysis short; derived layouts noted)."""
    r = DATA / "runners"
    out: dict[str, list[Seed]] = {}

    def add(fmt: str, name: str, data: bytes | dict[str, bytes], entry: str | None = None) -> None:
        files = tuple(data.items()) if isinstance(data, dict) else ((name, data),)
        out.setdefault(fmt, []).append(Seed(fmt, name, files, entry or files[0][0]))

    for f in ("ftq_f10000_quiet_0.dat.gz", "ftq_f7777_intf100Hz_1ms_0.dat.gz"):
        add("ftq", f[:-3], _ftq_head(DATA / "ftq" / f, 1500))
    # mpiftq layout derived from a real FTQ body: ticks (2.59613 per ns) and two ranks' counts
    body = [ln.split() for ln in _ftq_head(DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz", 800).split(b"\n")
            if ln and not ln.startswith(b"#")]
    mpi = b"# Frequency 10000.000000\n# Ticks per ns: 2.59613\n" + b"".join(
        b"%d,%s,%s\n" % (int(int(t) * 2.59613), c, c) for t, c in body)
    add("ftq-mpi", "mpiftq_0.dat", mpi)
    for d in ("baseline-ftq_t1", "baseline-ftq_t4", "llfree-ftq_t1"):
        add("ftq-2009", d, {"times.dat": (DATA / "ftq-2009" / d / "times.dat").read_bytes(),
                            "counts.dat": (DATA / "ftq-2009" / d / "counts.dat").read_bytes()}, entry=".")
    add("pyperf", "telco.json", _read(r / "pyperf-tests_telco.json.gz"))
    add("pyperf", "speed2020_3.json", _pyperf_subset(r / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz", 3))
    add("pyperf", "speed2017_perf5_3.json",
        _pyperf_subset(r / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz", 3))
    add("hyperfine", "3em_results.json", _read(r / "3em_tools_benchmarks_results.json"))
    add("gbench", "bpfilter.json", _read(r / "bpfilter_005d041.json"))
    add("gbench", "aggregates_bigo.json", json.dumps({"context": {"date": "2024", "num_cpus": 2, "load_avg": [1, 2, 3]},
                                                      "benchmarks": _gbench_rows()}).encode())
    add("pytest-benchmark", "0001_pb.json", _read(r / "pytest-benchmark-tests_0001.json"))
    pb = json.loads(_read(r / "pytest-benchmark-tests_0001.json"))
    pb["benchmarks"][0]["stats"]["data"] = [1.1e-5, 1.2e-5, 1.0e-5, 1.3e-5, 1.1e-5, 1.15e-5]
    add("pytest-benchmark", "0002_pb_data.json", json.dumps(pb).encode())
    add("asv", "pvlib-py3.8.json", _asv_subset(r / "pvlib_fff1131b-conda-py3.8.json", 5))
    add("asv", "machine.json", _read(r / "pvlib_machine.json"))
    add("asv", "abc-env-v2.json", json.dumps(_asv_v2()).encode())
    add("pts", "simdjson_composite.xml", _read(r / "ManuelJBrito_GVNO3_simdjson-201_composite.xml"))
    add("criterion", "sample.json", _read(r / "simple_insert_hecs_new_sample.json"))
    add("criterion", "raw.csv", _read(r / "simple_insert_hecs_new_raw.csv"))
    add("criterion", "benchmark.json", _read(r / "simple_insert_hecs_new_benchmark.json"))
    s = json.loads(_read(r / "simple_insert_hecs_new_sample.json"))
    add("criterion", "old_sample.json", json.dumps([s["iters"], s["times"]]).encode())
    add("criterion", "old_raw.csv", b"group,function,value,sample_time_nanos,iteration_count\n" + b"".join(
        b"simple_insert,hecs,20,%r,%d\n" % (t, int(n)) for n, t in zip(s["iters"][:40], s["times"][:40])))
    add("turbostat", "turbostat.out", b"\n".join(_read(r / "analyseTurbostatData_2020_06_16_21H39.out.gz")
                                                .split(b"\n")[:400]) + b"\n")
    telco = json.loads(_read(r / "pyperf-tests_telco.json.gz"))
    rows = [b"name,run,value,cpu_freq,date"]
    for k, run in enumerate(telco["benchmarks"][0]["runs"][1:30], start=1):
        md = run.get("metadata", {})
        for v in run.get("values", []):
            rows.append(b"telco,%d,%r,%s,%s" % (k, v, str(md.get("cpu_freq", "")).replace(",", ";").encode(),
                                                 str(md.get("date", "")).encode()))
    add("csv", "telco.csv", b"\n".join(rows) + b"\n")
    try:  # the same table as Parquet (pyarrow: the 'parquet' extra)
        import pandas as pd

        buf = io.BytesIO()
        pd.read_csv(io.BytesIO(b"\n".join(rows) + b"\n")).to_parquet(buf, index=False)
        add("parquet", "telco.parquet", buf.getvalue())
    except ImportError:
        pass
    return out


def _gbench_rows() -> list[dict[str, Any]]:
    rows = []
    for n in (8, 64):
        for i, v in enumerate((3.0 * n, 3.1 * n, 2.9 * n)):
            rows.append({"name": f"BM_sort/{n}/repeats:3", "run_name": f"BM_sort/{n}/repeats:3",
                         "run_type": "iteration", "repetitions": 3, "repetition_index": i, "threads": 1,
                         "iterations": 1000, "real_time": v, "cpu_time": v, "time_unit": "ns", "items": 5.0})
        for agg, v in (("mean", 3.0 * n), ("median", 3.0 * n), ("stddev", 0.1 * n), ("cv", 0.03)):
            rows.append({"name": f"BM_sort/{n}/repeats:3_{agg}", "run_name": f"BM_sort/{n}/repeats:3",
                         "run_type": "aggregate", "repetitions": 3, "threads": 1, "aggregate_name": agg,
                         "iterations": 3, "real_time": v, "cpu_time": v, "time_unit": "ns"})
    rows.append({"name": "BM_sort_BigO", "run_name": "BM_sort", "run_type": "aggregate", "repetitions": 3,
                 "threads": 1, "aggregate_name": "BigO", "aggregate_unit": "time", "cpu_coefficient": 3.0,
                 "real_coefficient": 3.0, "big_o": "N", "time_unit": "ns"})
    rows.append({"name": "BM_sort_RMS", "run_name": "BM_sort", "run_type": "aggregate", "repetitions": 3,
                 "threads": 1, "aggregate_name": "RMS", "aggregate_unit": "percentage", "rms": 0.02})
    return rows


def _asv_v2() -> dict[str, Any]:
    cols = ["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b",
            "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"]
    return {"commit_hash": "abc", "env_name": "conda-py3.8", "date": 1600000000000, "python": "3.8",
            "version": 2, "result_columns": cols,
            "results": {"m.time_a": [[1.5, 2.5], [["1", "2"]], "v", 1600000000000, 1.0, [1.4, 2.3], [1.6, 2.7],
                                     [1.45, 2.4], [1.55, 2.6], [3, 3], [7, 7],
                                     [[1.5, 1.4, 1.6, 1.5, 1.45, 1.55, 1.5], [2.5, 2.3, 2.7, 2.5, 2.4, 2.6, 2.5]],
                                     None],
                        "m.track_b": [[10.0], [], "v", 1600000000000, 1.0, [9.0], [11.0], [9.5], [10.5], [1],
                                      [5], None, None]}}


# -- mutators -----------------------------------------------------------------------------------
INTERESTING_NUMBERS = [b"0", b"-0", b"-1", b"1e400", b"-1e400", b"1e-400", b"4.9e-324", b"1.7976931348623157e308",
                       b"NaN", b"nan", b"-inf", b"Infinity", b"18446744073709551616", b"-9223372036854775809",
                       b"9" * 5000, b"0x10", b"1_000", b"", b"1e99", b"-1e99", b"3.5", b"1e30", b"2147483648"]
INTERESTING_BYTES = b"\x00\xff\"{}[],:\n\r\t -.e9<>&#\\/\x7f\xc3\x80"
_NUM_RE = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _rand_bytes(rng: np.random.Generator, n: int) -> bytes:
    return rng.integers(0, 256, size=n, dtype=np.uint8).tobytes()


def m_flip(rng, data: bytes, seed: Seed, others) -> bytes:
    if not data:
        return data
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 9))):
        i = int(rng.integers(len(b)))
        b[i] ^= 1 << int(rng.integers(8))
    return bytes(b)


def m_interesting_byte(rng, data, seed, others):
    if not data:
        return data
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 5))):
        b[int(rng.integers(len(b)))] = INTERESTING_BYTES[int(rng.integers(len(INTERESTING_BYTES)))]
    return bytes(b)


def m_delete(rng, data, seed, others):
    if len(data) < 2:
        return data
    i = int(rng.integers(len(data)))
    n = int(rng.integers(1, max(2, min(len(data) - i, 1 << int(rng.integers(1, 14))))))
    return data[:i] + data[i + n:]


def m_insert(rng, data, seed, others):
    i = int(rng.integers(len(data) + 1))
    if rng.random() < 0.5 and data:
        j = int(rng.integers(len(data)))
        chunk = data[j:j + int(rng.integers(1, 200))]
        chunk = chunk * int(rng.integers(1, 50))
    else:
        chunk = _rand_bytes(rng, int(rng.integers(1, 64)))
    return data[:i] + chunk + data[i:]


def m_truncate(rng, data, seed, others):
    return data[: int(rng.integers(len(data) + 1))]


def m_splice(rng, data, seed, others):
    if not others:
        return data
    other = others[int(rng.integers(len(others)))]
    a, b = int(rng.integers(len(data) + 1)), int(rng.integers(len(other) + 1))
    return data[:a] + other[b:]


def m_number(rng, data, seed, others):
    nums = list(_NUM_RE.finditer(data[:2_000_000]))
    if not nums:
        return data
    out = data
    for _ in range(int(rng.integers(1, 4))):
        m = nums[int(rng.integers(len(nums)))]
        rep = INTERESTING_NUMBERS[int(rng.integers(len(INTERESTING_NUMBERS)))]
        if m.end() <= len(out):
            out = out[:m.start()] + rep + out[m.end():]
        nums = list(_NUM_RE.finditer(out[:2_000_000])) or nums
    return out


def m_lines(rng, data, seed, others):
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    op = int(rng.integers(7))
    i, j = int(rng.integers(len(lines))), int(rng.integers(len(lines)))
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[j])
    elif op == 2:
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:
        lines.insert(i, b"x" * int(rng.integers(1, 200_000)))
    elif op == 4:
        lines.insert(i, [b"", b"#", b"# Frequency 1e400", b"   ", b"\t", b"1 2 3 4", b"a,b,c"][int(rng.integers(7))])
    elif op == 5:
        sep = [b" ", b"\t", b",", b";"][int(rng.integers(4))]
        lines[i] = re.sub(rb"[ \t,;]", sep, lines[i])
    else:
        k = int(rng.integers(2, 20))
        lines[i:i] = lines[i:i + k] * int(rng.integers(2, 100))
    return b"\n".join(lines)


def m_encoding(rng, data, seed, others):
    op = int(rng.integers(7))
    if op == 0:
        i = int(rng.integers(len(data) + 1))
        return data[:i] + [b"\xc3\x28", b"\xff\xfe", b"\xe2\x82", b"\xe9", b"\xed\xa0\x80"][int(rng.integers(5))] + data[i:]
    if op == 1:
        return data.decode("utf-8", "replace").encode("utf-16")
    if op == 2:
        return b"\xef\xbb\xbf" + data
    if op == 3:
        return data.replace(b"\n", b"\r\n")
    if op == 4:
        i = int(rng.integers(len(data) + 1))
        return data[:i] + b"\x00" * int(rng.integers(1, 10)) + data[i:]
    if op == 5:
        return data.decode("utf-8", "replace").encode("latin-1", "replace")
    return data.replace(b"\n", b"\r")


def m_gzip(rng, data, seed, others):
    z = gzip.compress(data, compresslevel=1, mtime=0)
    op = int(rng.integers(3))
    if op == 0:
        return z
    if op == 1:
        return z[: int(rng.integers(2, len(z) + 1))]
    b = bytearray(z)
    b[int(rng.integers(10, len(b))) if len(b) > 10 else 0] ^= 0xFF
    return bytes(b)


def _walk(doc: Any, path: tuple = (), out: list | None = None, limit: int = 2000) -> list[tuple]:
    """Paths to nodes of a JSON document (breadth-limited)."""
    out = [] if out is None else out
    out.append(path)
    if len(out) >= limit:
        return out
    if isinstance(doc, dict):
        for k, v in list(doc.items())[:50]:
            _walk(v, path + (k,), out, limit)
    elif isinstance(doc, list):
        idx = range(len(doc)) if len(doc) <= 20 else [0, 1, len(doc) // 2, len(doc) - 1]
        for k in idx:
            _walk(doc[k], path + (k,), out, limit)
    return out


def _get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def _set(doc, path, value):
    if not path:
        return value
    _get(doc, path[:-1])[path[-1]] = value
    return doc


DEEP = "__DEEP__"


def _weight(x: Any, limit: int = 200_000) -> int:
    """Rough size of a JSON value in leaves (a string counts one per 8 characters), counted up to
    ``limit`` only: a cheap bound, whatever the nesting."""
    total, stack = 0, [x]
    while stack and total < limit:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
            total += 1
        elif isinstance(v, list):
            stack.extend(v)
            total += 1
        elif isinstance(v, str):
            total += 1 + len(v) // 8
        else:
            total += 1
    return total


def _copies(old: Any) -> int:
    """How many copies of ``old`` a list may hold: 2000 copies of a 100,000-item list were 1.3 GB of
    JSON to build before the 1 MB mutant limit threw it away (25 s counted as a 'hang', asv:4517);
    the size counts nested values too (a dict of long lists: asv:12061, 90 s in the mutator)."""
    return max(2, 100_000 // max(_weight(old), 1))


def _other_value(rng, old: Any) -> Any:
    choices: list[Callable[[], Any]] = [
        lambda: "", lambda: "x" * int(rng.integers(1, 100_000)), lambda: "1.5", lambda: "NaN",
        lambda: 0, lambda: -1, lambda: 1e308, lambda: float("nan"), lambda: float("inf"), lambda: -float("inf"),
        lambda: 10 ** 30, lambda: 5e-324, lambda: True, lambda: False, lambda: None, lambda: [], lambda: {},
        lambda: [1, "a", None], lambda: {"a": 1}, lambda: [old] * min(int(rng.integers(2, 2000)), _copies(old)),
        lambda: [[old]], lambda: {"x": old}, lambda: DEEP, lambda: list(range(int(rng.integers(1, 100_000)))),
        lambda: "\ud800" if rng.random() < 0.5 else "é\u202e\n\t\"<script>",
    ]
    return choices[int(rng.integers(len(choices)))]()


def m_json(rng, data, seed, others):
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return m_number(rng, data, seed, others)
    for _ in range(int(rng.integers(1, 4))):
        paths = _walk(doc)
        path = paths[int(rng.integers(len(paths)))]
        op = int(rng.integers(5))
        node = _get(doc, path)
        if op <= 1 or not isinstance(node, (dict, list)):
            doc = _set(doc, path, _other_value(rng, node))
        elif op == 2 and isinstance(node, dict) and node:
            k = list(node)[int(rng.integers(len(node)))]
            if rng.random() < 0.5:
                del node[k]
            else:
                node[k + "x" if rng.random() < 0.5 else k.upper()] = node.pop(k)
        elif op == 3 and isinstance(node, list) and node:
            node *= min(int(rng.integers(2, 20)), _copies(node))
        elif isinstance(node, dict):
            node["unknown_" + str(int(rng.integers(100)))] = _other_value(rng, None)
        elif isinstance(node, list):
            node.clear()
    indent = 1 if rng.random() < 0.3 else None
    if _weight(doc, 300_000) >= 300_000:  # > 1 MB of JSON for sure: encoding it took 10-90 s (asv:9840,
        raise ValueError("mutant over the size limit")  # asv:12061); mutate() records it as skipped
    try:
        text = json.dumps(doc, indent=indent)
    except (ValueError, RecursionError):
        return data
    if DEEP in text:
        depth = int(rng.choice([10, 70, 1000, 100_000]))
        text = text.replace(f'"{DEEP}"', "[" * depth + "]" * depth, 1)
    return text.encode("utf-8", "surrogatepass")


def _transform(rng, vals: list[float]) -> list[float]:
    """A hostile but well-formed change to a series of numbers (keeps it a list of numbers)."""
    n = len(vals)
    op = int(rng.integers(12))
    if op == 0:
        return [0.0] * n
    if op == 1:
        return [0.0] * (n // 2) + vals[n // 2:]
    if op == 2:
        return [vals[0]] * n if n else vals
    if op == 3:
        return [-v for v in vals]
    if op == 4:
        # one vectorised draw (the same numbers as one rng.choice per value, which took minutes)
        return [v * float(f) for v, f in zip(vals, rng.choice([1e25, 1e-25, 1e300, 1e-300], size=n))]
    if op == 5:
        return sorted(vals)
    if op == 6:
        return vals[:1]
    if op == 7:  # repeated; at most 100,000 values (applied up to 3 times it grew to 199^3 copies)
        return vals * min(int(rng.integers(2, 200)), max(1, 100_000 // max(n, 1)))
    if op == 8:  # a step: the second half scaled
        return vals[: n // 2] + [v * float(rng.choice([2.0, 0.5, 10.0, 1.0001])) for v in vals[n // 2:]]
    if op == 9:  # two alternating levels (bands)
        return [v * (1.5 if k % 2 else 1.0) for k, v in enumerate(vals)]
    if op == 10:  # spikes
        return [v * (100.0 if u < 0.05 else 1.0) for v, u in zip(vals, rng.random(n))]
    return [float(int(v)) if abs(v) < 9e18 else v for v in vals]  # integer-valued (NaN/inf kept)


def m_json_values(rng, data, seed, others):
    """A list of numbers in the document transformed (structure kept: reaches the analyses)."""
    if len(data) > MAX_MUTANT_BYTES // 4:  # the result would mostly exceed the mutant limit: the time
        return data                       # spent building it counted as a bandkit 'hang' (asv:4517, 32 s)
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return data
    arrays = [p for p in _walk(doc) if isinstance(_get(doc, p), list) and _get(doc, p)
              and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in _get(doc, p))]
    if not arrays:
        return m_json(rng, data, seed, others)
    for _ in range(int(rng.integers(1, 4))):
        path = arrays[int(rng.integers(len(arrays)))]
        _set(doc, path, _transform(rng, [float(x) for x in _get(doc, path)]))
    return json.dumps(doc).encode()


def m_column(rng, data, seed, others):
    """A numeric column of a text table (FTQ body, CSV, turbostat, raw.csv) transformed."""
    lines = data.split(b"\n")
    rows = [i for i, ln in enumerate(lines) if ln and not ln.startswith(b"#") and _NUM_RE.match(ln.split()[0]
                                                                                                    if ln.split() else b"")]
    if len(rows) < 3:
        return m_lines(rng, data, seed, others)
    sep = b"," if b"," in lines[rows[0]] else b"\t" if b"\t" in lines[rows[0]] else None
    fields = [lines[i].split(sep) for i in rows]
    width = min(len(f) for f in fields)
    col = int(rng.integers(width))
    try:
        vals = [float(f[col]) for f in fields]
    except ValueError:
        return m_lines(rng, data, seed, others)
    new = _transform(rng, vals)[: len(fields)]
    is_int = all(v == int(v) for v in vals if abs(v) < 1e18)
    for f, v, i in zip(fields, new, rows):
        f[col] = (b"%d" % int(v)) if is_int and abs(v) < 9e18 else repr(v).encode()
        lines[i] = (sep or b" ").join(f)
    return b"\n".join(lines)


def m_xml(rng, data, seed, others):
    text = data.decode("utf-8", "replace")
    op = int(rng.integers(6))
    tags = re.findall(r"<([A-Za-z]+)>", text)
    if not tags:
        return data
    tag = tags[int(rng.integers(len(tags)))]
    if op == 0:  # element text
        vals = ["", "1e400", "nan", "x", "1:2:x", "::", "-1", "9" * 5000, "1:" * 50_000, "<![CDATA[x]]>", "&amp;"]
        text = re.sub(rf"<{tag}>[^<]*</{tag}>", f"<{tag}>{vals[int(rng.integers(len(vals)))]}</{tag}>", text, count=1)
    elif op == 1:  # drop elements
        text = re.sub(rf"<{tag}>.*?</{tag}>", "", text, count=int(rng.integers(1, 5)), flags=re.S)
    elif op == 2:  # repeat an element
        m = re.search(rf"<{tag}>.*?</{tag}>", text, flags=re.S)
        if m:
            text = text[:m.end()] + m.group(0) * int(rng.integers(2, 300)) + text[m.end():]
    elif op == 3:
        text = re.sub(r"<\?xml[^>]*\?>", '<?xml version="1.0" encoding="bogus"?>', text, count=1)
    elif op == 4:
        text = re.sub(r"(<PhoronixTestSuite>)", '<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>\\1',
                      text, count=1).replace("<Title>", "<Title>&b;", 1)
    else:
        text = text.replace(f"</{tag}>", "", 1)
    return text.encode("utf-8", "surrogatepass")


#: Largest mutant file (bytes): an operation that would grow a file beyond it is skipped.
MAX_MUTANT_BYTES = 1 << 20

GENERIC = [m_flip, m_interesting_byte, m_delete, m_insert, m_truncate, m_splice, m_number, m_lines, m_encoding]
WEIGHTS = {"json": [m_json] * 6 + [m_json_values] * 6, "xml": [m_xml] * 4, "text": [m_number, m_lines] * 2 + [m_column] * 6}
JSON_FORMATS = {"pyperf", "hyperfine", "gbench", "pytest-benchmark", "asv"}


def mutate(seed: Seed, index: int, corpus_: dict[str, list[Seed]]) -> tuple[Seed, dict[str, Any]]:
    """Mutant ``index`` of a format: a seed chosen and mutated with an RNG seeded by (format, index)."""
    h = hashlib.sha256(f"{seed.fmt}:{index}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(h[:8], "little"))
    seeds = corpus_[seed.fmt]
    base = seeds[int(rng.integers(len(seeds)))]
    kind = "json" if base.fmt in JSON_FORMATS or base.files[0][0].endswith(".json") else \
        "xml" if base.fmt == "pts" else "text"
    ops = GENERIC + WEIGHTS[kind]
    files = dict(base.files)
    targets = list(files)
    names = []
    for _ in range(int(rng.integers(1, 5))):
        fname = targets[int(rng.integers(len(targets)))]
        op = ops[int(rng.integers(len(ops)))]
        others = [d for s in seeds for n, d in s.files if n == fname or len(s.files) == 1]
        try:
            new = op(rng, files[fname], base, others)
        except (ValueError, OverflowError, TypeError, IndexError, KeyError, RecursionError, UnicodeError) as exc:
            names.append(f"{op.__name__[2:]}({fname}): skipped ({type(exc).__name__})")  # a mutator's own limit
            continue
        if len(new) > MAX_MUTANT_BYTES:  # the bars are about inputs under 1 MB: keep mutants there
            names.append(f"{op.__name__[2:]}({fname}): skipped (> 1 MB)")
            continue
        files[fname] = new
        names.append(f"{op.__name__[2:]}({fname})")
    if rng.random() < 0.05:
        fname = targets[int(rng.integers(len(targets)))]
        files[fname] = m_gzip(rng, files[fname], base, [])
        names.append(f"gzip({fname})")
    forced = base.fmt if rng.random() < 0.2 else None
    return Seed(base.fmt, base.name, tuple(files.items()), base.entry), {"ops": names, "seed": base.name,
                                                                         "forced": forced}


# -- target -------------------------------------------------------------------------------------
_VALIDATOR = None


def _schema_validator():
    global _VALIDATOR
    if _VALIDATOR is None:
        import jsonschema

        from bandkit.schema import report_schema

        _VALIDATOR = jsonschema.Draft202012Validator(report_schema(), format_checker=jsonschema.FormatChecker())
    return _VALIDATOR


_FAST = None

#: Lists longer than this are checked by jsonschema on one item of each shape (see :func:`schema_errors`).
_DEDUPE_OVER = 50


def _shape(x: Any) -> Any:
    """The structure of a JSON value: keys and the kinds of values, not the values."""
    if isinstance(x, dict):
        return tuple((k, _shape(v)) for k, v in x.items())
    if isinstance(x, list):
        return ("[]",) + tuple(sorted({_shape(v) for v in x}, key=repr))
    return type(x).__name__


def _one_per_shape(x: Any) -> Any:
    """``x`` with every long list cut to the first item of each distinct shape."""
    if isinstance(x, dict):
        return {k: _one_per_shape(v) for k, v in x.items()}
    if isinstance(x, list):
        if len(x) > _DEDUPE_OVER:
            seen: dict[Any, Any] = {}
            for v in x:
                seen.setdefault(_shape(v), v)
            x = list(seen.values())
        return [_one_per_shape(v) for v in x]
    return x


def schema_errors(doc: Any) -> list:
    """The report-schema errors of ``doc`` (jsonschema's, sorted by path), as the full jsonschema
    validation finds them but without its cost on a report of thousands of benchmarks (22 s of CPU
    on an asv file of 22,971): fastjsonschema checks every value of the whole document (compiled
    once; ~1000x faster), and jsonschema checks a copy in which each long list keeps one item per
    distinct shape (keys and kinds of values) - which covers the keywords fastjsonschema does not
    know (``dependentRequired``: key presence only, so the shape decides it). Any error from either
    is confirmed by jsonschema on the whole document (what is reported)."""
    global _FAST
    import fastjsonschema

    from bandkit.schema import report_schema

    if _FAST is None:
        _FAST = fastjsonschema.compile(report_schema())
    full = _schema_validator()
    try:
        _FAST(doc)
    except fastjsonschema.JsonSchemaValueException:
        return sorted(full.iter_errors(doc), key=lambda e: list(e.path))
    if not any(True for _ in full.iter_errors(_one_per_shape(doc))):
        return []
    return sorted(full.iter_errors(doc), key=lambda e: list(e.path))


@dataclass
class Outcome:
    kind: str  # ok | refused | crash | bad_message | schema | memory
    detail: str = ""
    signature: str = ""
    info: dict = field(default_factory=dict)


def signature(exc: BaseException) -> str:
    """Crash signature: exception type + innermost bandkit frame + message with numbers masked."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "bandkit" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].name}" if frames else "?"
    msg = re.sub(r"\d+", "N", str(exc))[:80]
    return f"{type(exc).__name__} @ {where}: {msg}"


def write_seed(seed: Seed, directory: Path) -> Path:
    for name, data in seed.files:
        (directory / name).write_bytes(data)
    return directory if seed.entry == "." else directory / seed.entry


def run_target(seed: Seed, directory: Path, *, forced: str | None = None, analyse: bool = True,
               compare_with: Path | None = None, html: bool = False, on_checks=None) -> Outcome:
    """Feed one input through bandkit like the CLI does; classify what happened.

    ``on_checks(True)`` / ``on_checks(False)`` are called around the harness's own JSON parse and
    schema check of the report (not bandkit's time: a hang watch leaves it out; ``checks_s``)."""
    from bandkit import analyze
    from bandkit.errors import BandkitError
    from bandkit.loaders.registry import load_traces

    path = write_seed(seed, directory)
    stage = "load"
    checks_s = 0.0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traces = load_traces(str(path), format=forced)
            if not analyse:
                return Outcome("ok", info={"traces": len(traces), "stage": "load"})
            stage = "analyse"
            rep = analyze(traces)
            stage = "json"
            text = rep.to_json()
            if on_checks is not None:
                on_checks(True)
            c0 = time.process_time()  # (the harness's own checks, timed apart: checks_s)
            try:
                doc = json.loads(text)
                errors = schema_errors(doc)
            finally:
                checks_s = time.process_time() - c0
                if on_checks is not None:
                    on_checks(False)
            if errors:
                e = errors[0]
                return Outcome("schema", f"{list(e.path)}: {e.message[:200]}", f"schema: {e.validator} at "
                               + "/".join(str(p) if not isinstance(p, int) else "N" for p in e.path))
            stage = "text"
            rep.to_text(color=False)
            if html:
                stage = "html"
                rep.to_html()
            if compare_with is not None and traces and traces[0].meta.kind == "runner":
                stage = "compare"
                from bandkit.compare import compare

                cmp = compare(traces, load_traces(str(compare_with)))
                cmp.to_text()
                json.dumps(cmp.to_dict(), allow_nan=False)
        return Outcome("ok", info={"traces": len(traces), "stage": stage, "checks_s": checks_s})
    except BandkitError as exc:
        msg = str(exc)
        if "\n" in msg or "\r" in msg or not msg.strip():
            return Outcome("bad_message", repr(msg[:300]), f"multi-line message from {stage}")
        return Outcome("refused", msg[:300], info={"stage": stage, "checks_s": checks_s})
    except MemoryError as exc:
        return Outcome("memory", f"{stage}: {exc!r}"[:300], f"MemoryError @ {stage}")
    except RecursionError as exc:
        return Outcome("crash", f"{stage}: RecursionError", signature(exc))
    except Exception as exc:  # noqa: BLE001 - any other exception is what the fuzzer looks for
        return Outcome("crash", f"{stage}: {type(exc).__name__}: {str(exc)[:300]}", signature(exc),
                       info={"traceback": traceback.format_exc()[-3000:]})


def run_mutant(fmt: str, index: int, corpus_: dict[str, list[Seed]], workdir: Path, on_target=None,
               **kw) -> tuple[Outcome, dict]:
    """Mutate, write into a fresh subdirectory of ``workdir``, run, clean up.

    ``on_target()`` is called when the mutant is built and bandkit is about to run: a hang watch
    times bandkit from there, not the mutators (``info["mutate_s"]``: CPU seconds spent building)."""
    c0 = time.process_time()
    mutant, info = mutate(corpus_[fmt][0], index, corpus_)
    info["mutate_s"] = time.process_time() - c0
    if on_target is not None:
        on_target()
    d = Path(tempfile.mkdtemp(dir=workdir))
    try:
        out = run_target(mutant, d, forced=info["forced"], **kw)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    info["size"] = sum(len(b) for _, b in mutant.files)
    return out, info


FAILURES = ("crash", "bad_message", "schema", "memory")
