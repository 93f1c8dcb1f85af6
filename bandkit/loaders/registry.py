"""Format registry and auto-detection: :func:`load` is ``bandkit.load``.

FORMATS maps a format name to ``"module:function"``; each loader takes a
:class:`~bandkit.loaders.source.Source` plus options and returns a list of Traces.
"""
from __future__ import annotations

import inspect
import os
from typing import Any, Callable, Iterable

from ..errors import InputError, UsageError
from ..limits import Limits
from ..section import resolve
from ..trace import Trace
from .source import PathOrFile, Source, check_benchmarks

FORMATS: dict[str, str] = {
    "ftq": "bandkit.loaders.ftq:load_ftq",
    "ftq-mpi": "bandkit.loaders.ftq:load_ftq_mpi",
    "ftq-2009": "bandkit.loaders.ftq2009:load_ftq2009",
    "pyperf": "bandkit.loaders.pyperf:load_pyperf",
    "hyperfine": "bandkit.loaders.hyperfine:load_hyperfine",
    "gbench": "bandkit.loaders.gbench:load_gbench",
    "pytest-benchmark": "bandkit.loaders.pytest_benchmark:load_pytest_benchmark",
    "asv": "bandkit.loaders.asv:load_asv",
    "pts": "bandkit.loaders.pts:load_pts",
    "criterion": "bandkit.loaders.criterion:load_criterion",
    "turbostat": "bandkit.loaders.turbostat:load_turbostat",
    "csv": "bandkit.loaders.csvfile:load_csv",
    "parquet": "bandkit.loaders.csvfile:load_parquet",
}
#: Options that describe the measurement rather than a loader (``clock_hz``: TSC ticks per second,
#: from the CLI's ``--clock-hz``): given only to the loaders that take them, so that one command line
#: may mix formats. Any other option a loader does not take is a UsageError.
HINTS = frozenset({"clock_hz"})
#: Alternative names accepted by ``format=``.
ALIASES = {"ftq2009": "ftq-2009", "ftq-old": "ftq-2009", "two-file": "ftq-2009", "mpiftq": "ftq-mpi",
           "google-benchmark": "gbench", "googlebenchmark": "gbench", "pytest_benchmark": "pytest-benchmark",
           "phoronix": "pts", "tsv": "csv", "history": "csv", "pq": "parquet"}


def _loader(fmt: str) -> Callable[..., list[Trace]]:
    return resolve(FORMATS[fmt])


def _looks_like_ftq(head: bytes) -> str | None:
    lines = [ln.strip() for ln in head.splitlines()[:400]]
    hashed = [ln for ln in lines if ln.startswith(b"#")]
    body = [ln for ln in lines if ln and not ln.startswith(b"#")]
    if hashed and any(b"Frequency" in h or b"Ticks per ns" in h or b"Fraction is" in h for h in hashed):
        if body and b"," in body[0]:
            return "ftq-mpi"
        return "ftq"
    if body and not hashed:
        first = body[0].split()
        if len(first) == 2 and all(p.isdigit() for p in first):
            return "ftq"
    return None


def detect_format(source: Source) -> str:
    """Guess the format of ``source`` from its name and first bytes."""
    from .ftq_names import is_counts_name, is_times_name

    if source.is_dir:
        return "ftq-2009"
    name = source.name
    if is_times_name(name) or is_counts_name(name):
        return "ftq-2009"
    head = source.head(65536)
    if not head.strip():
        raise InputError(name, "empty file")
    if head[:4] == b"PAR1":
        return "parquet"
    from .table_sniff import looks_like_plain_table

    if looks_like_plain_table(head, name):  # before the slower sniffing below: a history is loaded by
        return "csv"  # the thousand in a fleet
    if b"\x00" in head:
        raise InputError(name, "binary data: not a trace or result file bandkit knows")
    fmt = _looks_like_ftq(head)
    if fmt:
        return fmt
    try:
        from .sniff_runners import sniff
    except ImportError:  # runner loaders not installed in this build
        sniff = None
    if sniff is not None:
        fmt = sniff(head, name)
        if fmt:
            return fmt
        if head.lstrip()[:1] in (b"{", b"[") and len(head) == 65536:  # keys beyond the head: the whole document
            fmt = sniff(source.read_bytes(), name)
            if fmt:
                return fmt
    raise _unrecognised(source, head)


#: What auto-detection looks for in a JSON document, per format (for the error when nothing fits).
JSON_SIGNS = ("pyperf: 'benchmarks' with 'runs'; hyperfine: 'results' with 'command'; gbench: 'context' and "
              "'benchmarks'; pytest-benchmark: 'machine_info' and 'benchmarks'; asv: 'results'; "
              "criterion: 'iters' and 'times'")


def _unrecognised(source: Source, head: bytes) -> InputError:
    """As precise an error as a forced format would give: invalid JSON/XML with its line, the keys
    found, or the first line that fits no format."""
    name = source.name
    h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    known = " (use --input-format; known: " + ", ".join(FORMATS) + ")"
    if h[:1] in (b"{", b"["):
        from .jsoninput import parse_json

        doc = parse_json(name, source.read_bytes())  # invalid JSON: the parser's error with its line
        if isinstance(doc, dict):
            keys = ", ".join(repr(k) for k in list(doc)[:8]) + (", ..." if len(doc) > 8 else "")
            return InputError(name, f"JSON object with keys {keys or 'none'} is no result format bandkit knows "
                                    f"({JSON_SIGNS})" + known)
        return InputError(name, f"JSON {type(doc).__name__} at the top level is no result format bandkit knows "
                                f"({JSON_SIGNS})" + known)
    if h[:1] == b"<":
        import re

        m = re.search(rb"<([A-Za-z_][\w.\-]*)", h.split(b"?>", 1)[-1] if h.startswith(b"<?") else h)
        root = m.group(1).decode("ascii", "replace") if m else "?"
        return InputError(name, f"XML with root <{root}>: not a Phoronix Test Suite composite.xml "
                                f"(<PhoronixTestSuite>)" + known, line=1)
    lines = head.splitlines()
    for i, ln in enumerate(lines[:1000], start=1):
        s = ln.strip()
        if s and not s.startswith(b"#"):
            shown = s[:40].decode("utf-8", "replace") + ("…" if len(s) > 40 else "")
            return InputError(name, f"{shown!r} is not FTQ's '<ns> <count>' and no result format bandkit knows"
                                    + known, line=i)
    return InputError(name, "only '#' comment lines: no data" + known)



def load_traces(path_or_file: PathOrFile, format: str | None = None, limits: Limits | None = None,
                **options: Any) -> list[Trace]:
    """Load every trace in one input (a file, a directory of the two-file FTQ format, ``-`` or a file object).

    ``limits``: resource bounds (:class:`bandkit.Limits`; defaults when None). Pass a
    :class:`~bandkit.loaders.source.Source` to learn afterwards which files were read (``.files``).
    """
    source = Source.open(path_or_file, limits=limits)
    if format is not None:
        fmt = ALIASES.get(format, format)
        if fmt not in FORMATS:
            raise UsageError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    else:
        fmt = detect_format(source)
    if source.is_dir and fmt != "ftq-2009":
        raise InputError(source.name, "is a directory")
    loader = _loader(fmt)
    if any(k in HINTS for k in options):
        params = inspect.signature(loader).parameters
        options = {k: v for k, v in options.items() if k not in HINTS or k in params}
    traces = loader(source, **options)
    if not traces:
        raise InputError(source.name, "no traces found in file")
    check_benchmarks(source, len(traces))
    return traces


def load(path_or_file: PathOrFile, format: str | None = None, limits: Limits | None = None,
         **options: Any) -> Trace | list[Trace]:
    """Load a trace or result file: one :class:`Trace`, or a list when the input holds several
    (interactive convenience; scripts should use :func:`load_one` or :func:`load_all`, whose return
    type does not depend on the file).

    ``format``: one of :data:`FORMATS` (auto-detected when None). ``limits``: resource bounds
    (:class:`bandkit.Limits`, e.g. ``Limits(max_input_bytes=8 << 30)`` for a huge ``.gz``). Options
    go to the loader, e.g. ``clock_hz=`` (ticks per second) for the two-file FTQ format.
    """
    traces = load_traces(path_or_file, format=format, limits=limits, **options)
    return traces[0] if len(traces) == 1 else traces


def load_one(path_or_file: PathOrFile, format: str | None = None, limits: Limits | None = None,
             **options: Any) -> Trace:
    """Load an input that holds exactly one trace (one benchmark, one FTQ thread); UsageError naming
    the count otherwise (use :func:`load_all` for several). The strict form of :func:`load`."""
    traces = load_traces(path_or_file, format=format, limits=limits, **options)
    if len(traces) != 1:
        from ..errors import UsageError

        name = getattr(path_or_file, "name", path_or_file)
        raise UsageError(f"{name}: holds {len(traces)} traces, not one; use bandkit.load_all() for a list")
    return traces[0]


def load_all(path_or_file: PathOrFile, format: str | None = None, limits: Limits | None = None,
             **options: Any) -> list[Trace]:
    """Load every trace an input holds: always a list (one element for a single trace)."""
    return load_traces(path_or_file, format=format, limits=limits, **options)


def distinct_inputs(paths: Iterable[PathOrFile], format: str | None = None) -> list[PathOrFile]:
    """``paths`` without the second file of a two-file FTQ run whose other file is given too
    (``times.dat counts.dat`` is one run, analysed once)."""
    from .ftq_names import pair_key

    out, seen = [], set()
    for p in paths:
        key = pair_key(p) if isinstance(p, (str, os.PathLike)) and p != "-" and format in (None, "ftq-2009") else None
        if key is not None and key in seen:
            continue
        if key is not None:
            seen.add(key)
        out.append(p)
    return out


def load_many(paths: Iterable[PathOrFile], format: str | None = None, limits: Limits | None = None,
              **options: Any) -> list[Trace]:
    """Load several inputs into one flat list of traces (both files of a two-file FTQ run: once)."""
    out: list[Trace] = []
    for p in distinct_inputs(paths, format):
        out.extend(load_traces(p, format=format, limits=limits, **options))
    return out
