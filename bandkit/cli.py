"""The ``bandkit`` command: thin argparse wrappers over library functions.

``main(argv) -> int``: 0 success, 1 a ``--fail-on`` finding exists, 2 bad input or usage (one line
``bandkit: error: ...`` on stderr, no traceback), 70 (``EXIT_INTERNAL``) an internal error (a bug: one
line ending ``(internal error: please report)``; the traceback only with ``--debug`` or
``BANDKIT_DEBUG=1``). Add a subcommand by writing ``_add_<name>(subparsers)`` that sets ``func``
(``func(args) -> int``) and listing it in ``_SUBCOMMANDS``.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Sequence

from . import display
from ._version import __version__
from .errors import BandkitError, UsageError
from .findings import FAIL_ON_ANY_WARNING, FAIL_ON_GROUPS, fail_on_kinds, fail_on_names

EPILOG_MAIN = """examples:
  bandkit report trace.dat                       text report of one FTQ trace
  bandkit report a_10000.dat b_7777.dat          two sampling rates: periodic interference test
  bandkit report results.json --format json -o report.json
  bandkit report run/times.dat --clock-hz 2.6e9  two-file FTQ format, TSC at 2.6 GHz
"""

EPILOG_REPORT = """examples:
  bandkit report data/ftq/ftq_f10000_quiet_0.dat.gz
  bandkit report ftq_f10000_0.dat ftq_f7777_0.dat --format json -o report.json
  bandkit report ftq_f10000_0.dat ftq_f7777_0.dat --format html -o report.html   one self-contained page
  bandkit report - < trace.dat                   read one trace from standard input
  bandkit report hyperalloc/times.dat --clock-hz 2.6e9
  bandkit report results.json --fail-on step,bands   exit 1 when a step or bands are found (CI gating)
  bandkit report history.csv --build sut_version --value value --since 517000 --fail-on regression
"""

#: Exit status of an unexpected exception (a bug, not bad input): sysexits' EX_SOFTWARE.
EXIT_INTERNAL = 70

#: ``--fail-on`` group -> the finding kinds it catches (from :mod:`bandkit.findings`).
FAIL_ON_KINDS = {group: fail_on_kinds([group]) for group in FAIL_ON_GROUPS}


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return v


def _fail_on(text: str) -> frozenset[str]:
    kinds = frozenset(k.strip() for k in text.split(",") if k.strip())
    unknown = kinds - set(fail_on_names())
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown finding kind(s) {', '.join(sorted(unknown))} (known: groups {', '.join(FAIL_ON_KINDS)}; "
            f"'{FAIL_ON_ANY_WARNING}' for any warning; or a finding kind of the README's table, e.g. bimodal)")
    return kinds


def _add_input_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input-format", "-F", dest="input_format", metavar="FMT",
                   help="input format instead of auto-detection (ftq, ftq-2009, ftq-mpi, pyperf, hyperfine, "
                        "gbench, pytest-benchmark, asv, pts, criterion, turbostat, csv)")
    p.add_argument("--clock-hz", type=_positive_float, metavar="HZ",
                   help="TSC ticks per second for the two-file FTQ format (time is in ticks without it)")
    _add_limit_options(p)


def _size(text: str) -> int:
    from .limits import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_limit_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("resource limits (an input beyond one is refused with a message naming the option)")
    g.add_argument("--max-input-size", type=_size, metavar="SIZE",
                   help="decompressed size of a .gz input and size of a stream (stdin, pipe, FIFO) "
                        "(default: 32x the compressed size, at least 16M; streams 2G)")
    g.add_argument("--max-line-length", type=_size, metavar="SIZE",
                   help="longest line of a CSV / turbostat / raw.csv table (default 64K)")
    g.add_argument("--max-columns", type=_positive_int, metavar="N", help="columns of such a table (default 256)")
    g.add_argument("--max-quanta", type=_positive_int, metavar="N",
                   help="sampling periods an FTQ trace may span (default: 16x its rows, at least 20,000,000)")
    g.add_argument("--max-benchmarks", type=_positive_int, metavar="N",
                   help="benchmarks (traces) one input may hold (default 50,000; each costs ~0.1 ms)")


def _limits(args):
    """The Limits the options ask for (None: the defaults)."""
    from .limits import Limits

    given = {"max_input_bytes": getattr(args, "max_input_size", None),
             "max_line_bytes": getattr(args, "max_line_length", None),
             "max_columns": getattr(args, "max_columns", None),
             "max_quanta": getattr(args, "max_quanta", None),
             "max_benchmarks": getattr(args, "max_benchmarks", None)}
    return Limits().replace(**given) if any(v is not None for v in given.values()) else None


def _add_output_options(p: argparse.ArgumentParser, formats=None) -> None:
    formats = formats or ("text", "json", *display.outputs("Report"))
    p.add_argument("--format", "-f", choices=formats, default="text", help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of standard output")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--no-color", action="store_true", help="no colour even on a terminal")


def _load_options(args) -> dict:
    opts = {"clock_hz": args.clock_hz} if getattr(args, "clock_hz", None) else {}
    opts.update(_table_load_options(args))
    limits = _limits(args)
    if limits is not None:
        opts["limits"] = limits
    return opts


def _add_table_options(p: argparse.ArgumentParser) -> None:
    """Column options of tables (CSV / TSV / Parquet): which column is what (see bandkit.loaders.csvfile)."""
    g = p.add_argument_group("tables (CSV, TSV, Parquet)")
    g.add_argument("--value", metavar="COLUMN", help="the measured value (default: a column named value, "
                   "measurement, duration, mean or time, or the only numeric column)")
    g.add_argument("--build", "--group", dest="build", metavar="COLUMN",
                   help="the build (or any group measured together): one run per build, a performance history "
                        "(default: a column named build, sut_version, commit, revision, version, ...)")
    g.add_argument("--time", dest="time_column", metavar="COLUMN", help="the time or date of each measurement")
    g.add_argument("--series", metavar="COLUMN", help="long tables: the column naming the benchmark of each row")
    g.add_argument("--unit", metavar="UNIT", help="unit of the value (default: from the header or the file name)")
    g.add_argument("--higher-is-better", action="store_true", default=None,
                   help="the value is a throughput (default: from the unit, e.g. TPS, ops/s, MB/s)")


def _table_load_options(args) -> dict:
    keys = {"value": "value", "build": "build", "time_column": "time", "series": "series", "unit": "unit",
            "higher_is_better": "higher_is_better"}
    return {opt: getattr(args, attr) for attr, opt in keys.items() if getattr(args, attr, None) is not None}


def _history_params(args) -> dict:
    """Analysis options of history traces from the command line (``--since``)."""
    since = getattr(args, "since", None)
    return {"history": {"since": _build_id(since)}} if since is not None else {}


def _build_id(text: str):
    try:
        return int(text)
    except ValueError:
        return text


def write_output(text: str, output: str | None, inputs: Sequence[str] = ()) -> None:
    """Write to stdout, or safely to ``output`` (see :mod:`bandkit.output`): never over one of the
    ``inputs`` nor over any file the loaders opened in this command (siblings, symlink targets)."""
    from .loaders.source import opened_files
    from .output import write_output as _write

    _write(text, output, [*inputs, *opened_files()])


def _progress(args, desc: str = "analysing", unit: str = "trace"):
    """A tqdm wrapper for long loops, only on a terminal and without --quiet."""
    if getattr(args, "quiet", False) or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        return None
    return lambda it: tqdm(it, desc=desc, unit=unit, leave=False, file=sys.stderr)


def _load_with_progress(args, paths: Sequence[str]) -> list:
    """Load every input; on a terminal (and without --quiet) a progress bar counts the input bytes."""
    from .loaders.registry import distinct_inputs, load_traces

    paths = distinct_inputs(paths, args.input_format)  # times.dat counts.dat: one run
    options = _load_options(args)
    bar = None
    if not getattr(args, "quiet", False) and sys.stderr.isatty():
        try:
            from tqdm import tqdm

            sizes = [os.path.getsize(p) if p != "-" and os.path.isfile(p) else 0 for p in paths]
            bar = tqdm(total=sum(sizes), desc="loading", unit="B", unit_scale=True, leave=False, file=sys.stderr)
        except (ImportError, OSError):  # pragma: no cover
            bar = None
    traces = []
    try:
        for k, p in enumerate(paths):
            if bar is not None:
                bar.set_postfix_str(os.path.basename(str(p)), refresh=True)
            traces.extend(load_traces(p, format=args.input_format, **options))
            if bar is not None:
                bar.update(sizes[k])
    finally:
        if bar is not None:
            bar.close()
    return traces


def render(report, fmt: str, args) -> str:
    """The report as ``fmt``: JSON, coloured text, or any renderer registered for it in bandkit.display."""
    if fmt == "json":
        return report.to_json()
    if fmt == "text":
        from .render.text import use_color

        color = not args.no_color and args.output in (None, "-") and use_color(sys.stdout)
        return report.to_text(color=color)
    return display.render(report, fmt)


def exit_status(report, fail_on: frozenset[str] | None) -> int:
    if not fail_on:
        return 0
    wanted = fail_on_kinds(fail_on)
    any_warning = FAIL_ON_ANY_WARNING in fail_on
    return 1 if any(f.get("kind") in wanted or (any_warning and f.get("severity") == "warning")
                    for f in report.findings) else 0


def _announce_compiles(traces) -> None:
    """On a terminal: say so when numba compiles (the first report after an install, ~10 s of silence
    otherwise). The analyses about to run are imported first, so that the estimate counts their kernels."""
    from ._numba import announce_compiles
    from .section import SECTIONS, TRACE_SECTIONS, resolve

    for kind in {t.kind for t in traces}:
        for name in TRACE_SECTIONS.get(kind, ()):
            resolve(SECTIONS[name].run)
    announce_compiles(sys.stderr)


def _cmd_report(args) -> int:
    from .analyze import analyze

    from .analyze import AnalysisOptions

    traces = _load_with_progress(args, args.paths)
    params = _history_params(args)
    if not args.quiet and sys.stderr.isatty():
        _announce_compiles(traces)
    report = analyze(traces, AnalysisOptions(params=params) if params else None,
                     progress=_progress(args, "analysing", "step"))
    write_output(render(report, args.format, args), args.output, args.paths)
    return exit_status(report, args.fail_on)


def _add_report(sub) -> None:
    p = sub.add_parser("report", help="analyse traces and print a report",
                       description="Analyse FTQ traces or benchmark results: stalls, bands, step changes, "
                                   "periodic interference; post-mortems of benchmark runs.",
                       epilog=EPILOG_REPORT, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH", help="trace or result files ('-' for standard input)")
    _add_input_options(p)
    _add_output_options(p)
    p.add_argument("--fail-on", type=_fail_on, metavar="KINDS",
                   help="exit 1 when a finding of these kinds exists: a group (" + ",".join(FAIL_ON_KINDS)
                        + f"), '{FAIL_ON_ANY_WARNING}' (any warning) or a finding kind (README: bimodal, "
                          "level_shift, shared_suspect, ...)")
    _add_table_options(p)
    p.add_argument("--since", metavar="BUILD", help="histories: report only changes at or after this build")
    p.set_defaults(func=_cmd_report)


EPILOG_COMPARE = """examples:
  bandkit compare powersave.json performance.json
  bandkit compare base.json.gz patched.json.gz --format json -o compare.json
"""


def _cmd_compare(args) -> int:
    from .compare import compare_files

    cmp = compare_files(args.a, args.b, format=args.input_format, confidence=args.confidence, seed=args.seed,
                        limits=_limits(args), progress=_progress(args, "comparing", "benchmark"))
    from ._json import dumps
    from .render.textutil import escape_lines

    if args.format == "text":
        text = escape_lines(cmp.to_text())
    elif args.format == "json":
        text = dumps(cmp)
    else:
        text = display.render(cmp, args.format)
    write_output(text, args.output, [args.a, args.b])
    return 0


def _add_compare(sub) -> None:
    p = sub.add_parser("compare", help="A/B comparison of two benchmark result files",
                       description="Per-benchmark ratio B/A of the mean run means with a bootstrap confidence "
                                   "interval and Welch's t-test, geometric mean, noisy benchmarks flagged.",
                       epilog=EPILOG_COMPARE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="baseline result file")
    p.add_argument("b", metavar="B", help="result file compared with A")
    p.add_argument("--input-format", "-F", dest="input_format", metavar="FMT", help="input format of both files")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    _add_limit_options(p)
    _add_output_options(p, formats=("text", "json", *display.outputs("Comparison")))
    p.set_defaults(func=_cmd_compare)


EPILOG_FLEET = """examples:
  bandkit fleet runs/                            every *.dat[.gz] under runs/, ranked, worst first
  bandkit fleet 'runs/node*_0.dat' --jobs 8      a glob (quote it), 8 local processes
  bandkit fleet runs/ --format html -o fleet.html    ranking table + heat-map (trace x time)
  bandkit fleet runs/ --dask-scheduler tcp://10.0.0.1:8786   on a Dask cluster (workers see runs/)
  bandkit fleet 'histories/*.csv.gz' --jobs 2 --since 517000 --fail-on regression   CI histories, worst first
"""


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return v


def _cmd_fleet(args) -> int:
    from .fleet import rank_fleet

    if args.dask_scheduler and args.jobs is not None:
        raise UsageError("--jobs and --dask-scheduler exclude each other (the cluster sets the parallelism)")
    progress = None
    if not args.quiet and sys.stderr.isatty():
        from tqdm import tqdm

        progress = lambda it: tqdm(it, desc="analysing", unit="file", leave=False, file=sys.stderr)  # noqa: E731
    from .analyze import AnalysisOptions

    params = _history_params(args)
    rep = rank_fleet(args.paths, jobs=args.jobs or 1, scheduler=args.dask_scheduler, format=args.input_format,
                     load_options=_load_options(args), n_bins=args.bins, z_threshold=args.z, progress=progress,
                     options=AnalysisOptions(params=params) if params else None)
    if not rep.rows:  # nothing to rank: one error line (the first input's error, and how many more)
        more = f" (and {len(rep.errors) - 1} more input(s) that could not be analysed)" if len(rep.errors) > 1 else ""
        raise UsageError(f"{rep.errors[0][1] if rep.errors else 'no input could be analysed'}{more}")
    if args.format == "json":
        text = rep.to_json(profiles=not args.no_profiles)
    elif args.format == "html":
        text = rep.to_html()
    else:
        from .render.textutil import escape_lines

        text = escape_lines(rep.to_text(limit=args.limit))
    write_output(text, args.output, _fleet_inputs(args.paths))
    _fleet_skipped(rep.errors)  # after the write: an exit-2 write error stays the only stderr line
    if args.fail_on_outliers and rep.outliers:
        return 1
    return _fleet_fail_on(rep, args.fail_on)


def _fleet_fail_on(rep, kinds) -> int:
    """``bandkit fleet --fail-on regression``: exit 1 while any series has an open regression."""
    if kinds and "regression" in kinds and any((r.extra or {}).get("open_regressions") for r in rep.rows):
        return 1
    return 0


def _fleet_fail_kind(text: str) -> frozenset[str]:
    kinds = frozenset(k.strip() for k in text.split(",") if k.strip())
    if kinds - {"regression"}:
        raise argparse.ArgumentTypeError(f"unknown kind(s) {', '.join(sorted(kinds - {'regression'}))} (known: regression)")
    return kinds


def _fleet_skipped(errors) -> None:
    from .render.textutil import escape_control

    for p, e in errors[:5]:
        print(f"bandkit: warning: skipped: {escape_control(str(e))}", file=sys.stderr)
    if len(errors) > 5:
        print(f"bandkit: warning: ... and {len(errors) - 5} more input(s) that could not be analysed "
              "(listed in the report)", file=sys.stderr)


def _fleet_inputs(paths) -> list:
    """Every file the fleet's loaders read, also in worker processes (whose opened-file records do
    not come back): the expanded inputs, and the counts file of each two-file FTQ times file."""
    from .fleet import expand_inputs
    from .loaders.ftq2009 import is_times_name, pair_paths
    from .loaders.source import Source

    files: list = []
    for p in expand_inputs(paths):
        files.append(p)
        if is_times_name(p):
            try:
                files.extend(pair_paths(Source.open(p)))
            except BandkitError:
                pass
    return files


def _add_fleet(sub) -> None:
    p = sub.add_parser("fleet", help="analyse many traces or histories and rank them (worst first)",
                       description="Analyse many traces (one per node / CPU) with the same analyses as "
                                   "'bandkit report', rank them by FTQ fraction and flag outliers (modified "
                                   "z-score of FTQ fraction and stall share). Histories and runner results are "
                                   "ranked by open regressions (size, then confidence), then episodes, then noise.",
                       epilog=EPILOG_FLEET, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="DIR_OR_GLOB",
                   help="directories (searched for *.dat[.gz]), glob patterns or files")
    p.add_argument("--jobs", "-j", type=_positive_int, default=None, metavar="N",
                   help="local worker processes (default 1)")
    p.add_argument("--dask-scheduler", metavar="ADDRESS", help="run on this Dask scheduler (e.g. tcp://host:8786)")
    p.add_argument("--bins", type=_positive_int, default=200, metavar="N", help="time bins per trace in the heat-map")
    p.add_argument("--z", type=_positive_float, default=3.5, metavar="Z",
                   help="outlier threshold on the modified z-score (default 3.5)")
    p.add_argument("--limit", type=_positive_int, default=None, metavar="N", help="text: show the N worst traces only")
    p.add_argument("--no-profiles", action="store_true", help="json: leave out the per-trace time profiles")
    p.add_argument("--fail-on-outliers", action="store_true", help="exit 1 when an outlier is found")
    p.add_argument("--fail-on", type=_fleet_fail_kind, metavar="regression",
                   help="histories / runner results: exit 1 while a series has an open regression")
    p.add_argument("--since", metavar="BUILD", help="histories: report only changes at or after this build")
    _add_table_options(p)
    _add_input_options(p)
    _add_output_options(p, formats=("text", "json", *display.outputs("FleetReport")))
    p.set_defaults(func=_cmd_fleet)


_SUBCOMMANDS = [_add_report, _add_compare, _add_fleet]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bandkit",
        description="Explains why a performance measurement misbehaves: bands, step changes and periodic "
                    "interference in FTQ OS-noise traces and benchmark-runner results.",
        epilog=EPILOG_MAIN, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"bandkit {__version__}")
    parser.add_argument("--debug", action="store_true", help="print the traceback of an internal error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _SUBCOMMANDS:
        add(sub)
    for p in sub.choices.values():  # --debug also after the subcommand
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's error form: one line ``bandkit: error: ...`` and exit status 2."""

    def error(self, message: str):
        from .render.textutil import escape_control

        self.exit(2, f"bandkit: error: {escape_control(message.strip())} (see '{self.prog} --help')\n")


@contextlib.contextmanager
def _quiet_swallowed_interrupts():
    """A KeyboardInterrupt raised where Python can only report it as "Exception ignored" (a ctypes callback
    of llvmlite during a numba compile, a ``__del__``) prints no traceback: the signal is remembered all
    the same (:func:`bandkit.output.pending_signal`), so the command ends with its one interrupted line.
    Other unraisable exceptions go to the previous hook."""
    previous = sys.unraisablehook

    def hook(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt) or (
                unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt)):
            return
        previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


class _Session:
    """One command's safety net (used by :func:`main`):

    - SIGINT / SIGTERM / SIGHUP become KeyboardInterrupt; an interrupted command exits 128 +
      signal (130 for Ctrl-C) with one line ``bandkit: interrupted``, never 0 (even when a library
      swallowed the KeyboardInterrupt), and writes no report (:mod:`bandkit.output`);
    - every file a loader opens is recorded, so that ``-o`` is never one of them;
    - Python warnings are held back: after a failure only the error line is printed; after
      success each distinct warning is one line ``bandkit: warning: ...``.
    """

    def __enter__(self) -> "_Session":
        import contextlib
        import warnings

        from .loaders.source import record_opened
        from .output import signals_as_interrupts

        self.status = 2
        self.interrupted = False
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(signals_as_interrupts())
        self._stack.enter_context(_quiet_swallowed_interrupts())
        self._stack.enter_context(record_opened())
        self.warnings = self._stack.enter_context(warnings.catch_warnings(record=True))
        return self

    def __exit__(self, et, ev, tb) -> bool:
        from .output import pending_signal

        self.signal = pending_signal()
        self._stack.close()
        if et is not None and issubclass(et, KeyboardInterrupt):
            self.interrupted = True
            return True
        if et is not None and self.signal is not None and issubclass(et, Exception):
            self.interrupted = True  # an exception raised on the interrupt's way up: still an interrupt
            return True
        return False

    def finish(self) -> int:
        from .render.textutil import escape_control

        if self.interrupted or self.signal is not None:
            import signal

            print("bandkit: interrupted", file=sys.stderr)
            return 128 + int(self.signal or signal.SIGINT)
        if self.status != 2:
            seen = []
            for w in self.warnings:
                msg = escape_control(str(w.message).strip())
                if msg not in seen:
                    seen.append(msg)
            for msg in seen[:10]:
                print(f"bandkit: warning: {msg}", file=sys.stderr)
            if len(seen) > 10:
                print(f"bandkit: warning: ... and {len(seen) - 10} more warnings", file=sys.stderr)
        return self.status


def error_line(exc: BaseException) -> str:
    """The one line printed for an error: control characters (a newline in a file name, a
    message ending in a newline, terminal escapes) escaped."""
    from .render.textutil import escape_control

    return f"bandkit: error: {escape_control(str(exc).strip())}"


def main(argv: Sequence[str] | None = None) -> int:
    with _Session() as session:
        session.status = _main(argv)
    return session.finish()


def _main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        print("bandkit: error: a command is required: " + ", ".join(_command_names(parser))
              + " (see 'bandkit --help')", file=sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except Exception as exc:
        if _caused_by_interrupt(exc):  # e.g. numba's SystemError or "no compiled object yet" after a Ctrl-C
            raise KeyboardInterrupt from None
        if isinstance(exc, BandkitError):
            print(error_line(exc), file=sys.stderr)
            return 2
        if isinstance(exc, BrokenPipeError):
            return 0
        if isinstance(exc, MemoryError):
            print("bandkit: error: out of memory", file=sys.stderr)
            return 2
        # a bug: one line and a distinct status; the traceback only with --debug
        if getattr(args, "debug", False) or os.environ.get("BANDKIT_DEBUG"):
            import traceback

            traceback.print_exc()
        from .render.textutil import escape_control

        msg = escape_control(str(exc).strip())
        msg = msg if len(msg) <= 300 else msg[:300] + "…"
        print(f"bandkit: error: {type(exc).__name__}: {msg} (internal error: please report)", file=sys.stderr)
        return EXIT_INTERNAL


def _caused_by_interrupt(exc: BaseException) -> bool:
    """Whether an exception is the aftermath of a Ctrl-C (or SIGTERM, SIGHUP): a signal arrived in this
    command, or a KeyboardInterrupt is in its chain. numba turns a KeyboardInterrupt raised inside a
    compiled kernel into ``SystemError: CPUDispatcher(...) returned a result with an exception set``, and
    one swallowed by a ctypes callback during a compile into ``RuntimeError: no compiled object yet``:
    the user pressed Ctrl-C, so neither is an error line."""
    from .output import pending_signal

    if pending_signal() is not None:
        return True
    seen = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def _command_names(parser: argparse.ArgumentParser) -> list[str]:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return list(a.choices)
    return []


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
