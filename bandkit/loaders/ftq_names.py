"""The file names of the two-file FTQ format (``*_times.dat`` + ``*_counts.dat``, :mod:`.ftq2009`): what format
detection and the CLI's input list ask of every input, without importing the FTQ loaders (~1.5-2.5 ms a
process that loads a runner file)."""
from __future__ import annotations

import os
import re
from pathlib import Path

_TIMES = re.compile(r"(^|_)times\.dat(\.gz)?$")
_COUNTS = re.compile(r"(^|_)counts\.dat(\.gz)?$")


def is_times_name(name: str) -> bool:
    return bool(_TIMES.search(Path(name).name))


def is_counts_name(name: str) -> bool:
    return bool(_COUNTS.search(Path(name).name))


def pair_key(path) -> str | None:
    """The real path of the times file of the two-file run that ``path`` (a times or counts file) belongs
    to, so that both files of one run name one input; None for other paths."""
    p = Path(path)
    if is_counts_name(p.name):
        p = p.with_name(_COUNTS.sub(lambda m: m.group(1) + "times.dat" + (m.group(2) or ""), p.name))
    elif not is_times_name(p.name):
        return None
    return os.path.realpath(p)
