"""Which files the plain-table loader (:mod:`.table`) claims, decided without pandas: format
detection runs on every input, FTQ traces included, and :mod:`.table` imports pandas."""
from __future__ import annotations

import re

_TABLE_NAME = re.compile(r"\.(csv|tsv)(\.gz)?$", re.I)
#: First lines of CSV files that belong to other loaders (Criterion raw.csv, turbostat).
_OTHER_CSV_HEADS = (b"group,function,value,throughput_num", b"group,function,value,sample_time_nanos")


def looks_like_plain_table(head: bytes, name: str) -> bool:
    """A ``.csv`` / ``.tsv`` file whose first line is a plain header (no ``#`` preamble as FTQ-MPI
    files have, not a Criterion or turbostat header): decided from the first line only."""
    if not _TABLE_NAME.search(str(name)):
        return False
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    if not first or first.startswith((b"#", b"{", b"[", b"<")) or first.startswith(_OTHER_CSV_HEADS):
        return False
    return b"Avg_MHz" not in first and b"turbostat" not in first
