"""Auto-detection of benchmark-runner result formats from a file's first bytes (and name).

JSON files are told apart by their top-level keys (looked up in the head, which may be cut),
XML by its ``PhoronixTestSuite`` root, turbostat by its tab-separated ``Core\\tCPU`` / ``Avg_MHz``
header, Criterion ``raw.csv`` by its header (either layout) and ``sample.json`` by its keys or, in
the older layout, by being two lists of numbers; other ``.csv`` / ``.tsv`` files are plain CSV.
"""
from __future__ import annotations

import re

__all__ = ["sniff"]


_CRITERION_LISTS = re.compile(rb"\[\s*\[\s*-?[0-9.eE+\-,\s]*\]\s*,\s*\[\s*-?[0-9]")


def _has(head: bytes, *keys: str) -> bool:
    return all(re.search(rb'"' + re.escape(k.encode()) + rb'"\s*:', head) for k in keys)


def sniff(head: bytes, name: str) -> str | None:
    """Format name for a runner result file, or None if it is none of them."""
    h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    lname = name.lower()
    if h.startswith(b"<"):
        if b"<PhoronixTestSuite" in h:
            return "pts"
        return None
    if h.startswith(b"{") or h.startswith(b"["):
        if _has(h, "context") and _has(h, "benchmarks"):
            return "gbench"
        if _has(h, "machine_info") or _has(h, "commit_info") and _has(h, "benchmarks") and _has(h, "stats"):
            return "pytest-benchmark"
        if _has(h, "benchmarks") and (_has(h, "runs") or _has(h, "common_metadata")):
            return "pyperf"
        if _has(h, "results") and _has(h, "command") and (_has(h, "times") or _has(h, "mean")):
            return "hyperfine"
        if _has(h, "results") and (_has(h, "result_columns") or _has(h, "commit_hash") or _has(h, "env_name")
                                   or _has(h, "result")):
            return "asv"
        if _has(h, "machine") and _has(h, "num_cpu") and _has(h, "version"):
            return "asv"  # asv machine.json: the loader says it holds no results
        if _has(h, "sampling_mode") or (_has(h, "iters") and _has(h, "times")):
            return "criterion"
        if _has(h, "group_id") and _has(h, "full_id"):
            return "criterion"  # criterion benchmark.json: the loader points to sample.json
        if _has(h, "benchmarks") and _has(h, "version") and _has(h, "metadata"):
            return "pyperf"
        if _CRITERION_LISTS.match(h):
            return "criterion"  # criterion.rs < 0.3.4 sample.json: [[iters...], [times...]]
        return None
    first = h.split(b"\n", 1)[0]
    if first.startswith(b"group,function,value,"):
        from .criterion import is_raw_csv_header

        if is_raw_csv_header(first):
            return "criterion"
    if b"turbostat version" in h[:200] or re.search(rb"^(?:[^\n]*\t)?(?:Core|CPU|Package)\t[^\n]*Avg_MHz", h, re.M) \
            or re.search(rb"^[^\n]*\bAvg_MHz\t[^\n]*Busy%", h, re.M):
        return "turbostat"
    if lname.endswith((".csv", ".tsv", ".csv.gz", ".tsv.gz")):
        return "csv"
    return None

