"""Phoronix Test Suite ``composite.xml`` (parsed with defusedxml: no entity expansion).

One Trace per ``Result`` and system (``Entry/Identifier``): the per-trial values of ``RawString``
(``"1.36:1.36:1.36"``) are the runs, with per-run column ``test_run_time_s`` from the entry's
``JSON`` ``test-run-times`` when present. Unit = ``Scale``; ``meta.extra["higher_is_better"]``
from ``Proportion`` (HIB / LIB). An entry without ``RawString`` is summary-only (its ``Value``,
the mean of the trials, in ``summary_stats``).

Names are stable across files: ``"<Title>: <Description>"``, plus ``" #k"`` for the k-th repeat of
the same test in one file (PTS writes e.g. several "Test Install Size" entries), plus
``" [<system>]"`` only when the file holds several systems. ``meta.extra["match_name"]`` (the name
without the system) and ``meta.extra["variant"]`` (the system) let :func:`bandkit.compare.compare`
pair a benchmark of system X in one file with the same benchmark of system Y in another.
"""
from __future__ import annotations

import math
from typing import Any

from ..errors import InputError
from ..trace import Trace
from .jsoninput import parse_json
from .runner_common import build_runner_trace, plausible, reject_options, summary_trace
from .source import Source


def _text(el: Any, tag: str) -> str:
    child = el.find(tag)
    return (child.text or "").strip() if child is not None and child.text else ""


def load_pts(source: Source, **options: Any) -> list[Trace]:
    reject_options(source, "pts", options)
    import defusedxml.ElementTree as DET
    from defusedxml import DefusedXmlException
    from xml.etree.ElementTree import ParseError

    try:
        root = DET.fromstring(source.read_bytes())
    except ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise InputError(source.name, f"invalid XML: {exc}", line=line) from None
    except DefusedXmlException as exc:  # entities / external references refused
        raise InputError(source.name, f"unsafe XML refused: {exc}") from None
    except (LookupError, ValueError, UnicodeError) as exc:  # e.g. encoding="bogus" in the declaration
        raise InputError(source.name, f"invalid XML: {type(exc).__name__}: {str(exc)[:100]}", line=1) from None
    if root.tag != "PhoronixTestSuite":
        raise InputError(source.name, f"root element is <{root.tag}>, not <PhoronixTestSuite>")
    systems = {}
    for s in root.findall("System"):
        systems[_text(s, "Identifier")] = {"hardware": _text(s, "Hardware"), "software": _text(s, "Software"),
                                           "timestamp": _text(s, "TimeStamp")}
    results = root.findall("Result")
    entry_systems = {_text(e, "Identifier") for res in results for e in res.findall("Data/Entry")}
    several = len(set(systems) | entry_systems) > 1
    seen: dict[tuple[str, str], int] = {}
    traces: list[Trace] = []
    for ri, res in enumerate(results):
        title = _text(res, "Title") or _text(res, "Identifier") or f"result{ri + 1}"
        desc = _text(res, "Description") or _text(res, "Arguments")
        scale = _text(res, "Scale")
        prop = _text(res, "Proportion")
        entries = res.findall("Data/Entry")
        for ei, e in enumerate(entries):
            system = _text(e, "Identifier")
            base = f"{title}: {desc}" if desc else title
            k = seen[(base, system)] = seen.get((base, system), 0) + 1
            match_name = base if k == 1 else f"{base} #{k}"
            name = f"{match_name} [{system}]" if several else match_name
            const = {"pts_test": _text(res, "Identifier"), "pts_system": system,
                     "pts_timestamp": systems.get(system, {}).get("timestamp", "")}
            extra = {"higher_is_better": {"HIB": True, "LIB": False}.get(prop), "proportion": prop,
                     "system": systems.get(system, {}), "match_name": match_name, "variant": system}
            raw = _text(e, "RawString")
            field = f"Result[{ri + 1}]/Data/Entry[{ei + 1}]"
            if raw:
                vals = _numbers(source, raw, field + "/RawString")
                times: list[float] = []
                js = _text(e, "JSON")
                if js:
                    try:
                        doc = parse_json(source.name, js.encode("utf-8", "replace")) if len(js) < 1 << 20 else {}
                        trt = doc.get("test-run-times", "") if isinstance(doc, dict) else ""
                        times = [float(x) for x in str(trt).split(":") if x.strip()]
                    except (ValueError, InputError):
                        times = []  # run times are optional metadata: unreadable ones are left out
                    times = [t if math.isfinite(t) else math.nan for t in times]
                runs = [([v], {"test_run_time_s": times[k]} if len(times) == len(vals) else {})
                        for k, v in enumerate(vals)]
                traces.append(build_runner_trace(source, "pts", name, runs, value_unit=scale,
                                                 constant_metadata=const, extra=extra))
            else:
                val = _text(e, "Value")
                try:
                    v = float(val)
                except ValueError:
                    continue  # no numeric result (e.g. a failed test): nothing to load
                if not plausible(v):
                    raise InputError(source.name, f"Value {val[:40]!r} is not a finite number of plausible size",
                                     field=field + "/Value")
                st = {"statistic": "mean", "mean": v, "source": "PTS Value (mean of the trials; no RawString)"}
                traces.append(summary_trace(source, "pts", name, v, value_unit=scale, stats=extra, metadata=const,
                                            summary_stats=st, reason="entry has no RawString (per-trial values)"))
    if not traces:
        raise InputError(source.name, "no results with values in composite.xml")
    return traces


def _numbers(source: Source, raw: str, field: str) -> list[float]:
    """The per-trial values of a ``RawString`` (``"1.36:1.36:1.36"``), each finite and plausible."""
    out = []
    for x in raw.split(":"):
        if not x.strip():
            continue
        try:
            v = float(x)
        except ValueError:
            raise InputError(source.name, f"RawString holds a non-number: {raw[:60]!r}", field=field) from None
        if not plausible(v):
            raise InputError(source.name, f"RawString value {x[:40]!r} is not a finite number of plausible size",
                             field=field)
        out.append(v)
    return out
