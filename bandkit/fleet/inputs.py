"""Fleet inputs: directories, glob patterns and paths -> a sorted list of trace files."""
from __future__ import annotations

import glob
import os
import re
from pathlib import Path
from typing import Iterable

from ..errors import InputError

#: File names picked up when a directory is given.
FTQ_NAME = re.compile(r"\.(dat|ftq)(\.gz)?$", re.I)
#: Tables (histories, result tables) picked up in a directory without FTQ files.
TABLE_NAME = re.compile(r"\.(csv|tsv|parquet)(\.gz)?$", re.I)


def natural_key(p: str):
    """Sort key that orders embedded numbers numerically (node2 before node10)."""
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", p)]


def expand_inputs(items: Iterable[str | os.PathLike]) -> list[str]:
    """Directories (searched recursively for ``*.dat[.gz]`` and ``*.ftq[.gz]``; a two-file FTQ
    pair counts once, by its ``times`` file), glob patterns and plain paths -> sorted unique
    file list.

    Raises InputError for a path or pattern that matches nothing.
    """
    from ..loaders.ftq2009 import is_counts_name

    out: list[str] = []
    for item in items:
        s = os.fspath(item)
        if os.path.isdir(s):
            found = [str(p) for p in Path(s).rglob("*") if p.is_file() and FTQ_NAME.search(p.name)
                     and not is_counts_name(p.name)]
            if not found:  # a directory of histories / result tables
                found = [str(p) for p in Path(s).rglob("*") if p.is_file() and TABLE_NAME.search(p.name)]
            if not found:
                raise InputError(s, "directory holds no FTQ trace files (*.dat, *.dat.gz) and no tables "
                                    "(*.csv, *.tsv, *.parquet)")
            out.extend(sorted(found, key=natural_key))
        elif any(ch in s for ch in "*?["):
            found = [p for p in glob.glob(s, recursive=True) if os.path.isfile(p)]
            if not found:
                raise InputError(s, "pattern matches no file")
            out.extend(sorted(found, key=natural_key))
        elif os.path.exists(s):
            out.append(s)
        else:
            raise InputError(s, "no such file")
    seen: set[str] = set()
    uniq = []
    for p in out:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    return uniq
