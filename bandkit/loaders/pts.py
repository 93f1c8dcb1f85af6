"""Phoronix Test Suite ``composite.xml`` (parsed with defusedxml: no entity expansion).

One Trace per ``Result`` and system (``Entry/Identifier``): the per-trial values of ``RawString``
(``"1.36:1.36:1.36"``) are the runs, with per-run column ``test_run_time_s`` from the entry's
``JSON`` ``test-run-times`` when present. Unit = ``Scale``; ``meta.extra["higher_is_better"]``
from ``Proportion`` (HIB / LIB). An entry without ``RawString`` is summary-only (its ``Value``).
"""
from __future__ import annotations

import json
from typing import Any

from ..errors import InputError
from ..trace import Trace
from .runner_common import build_runner_trace, reject_options, summary_trace
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
    if root.tag != "PhoronixTestSuite":
        raise InputError(source.name, f"root element is <{root.tag}>, not <PhoronixTestSuite>")
    systems = {}
    for s in root.findall("System"):
        systems[_text(s, "Identifier")] = {"hardware": _text(s, "Hardware"), "software": _text(s, "Software"),
                                           "timestamp": _text(s, "TimeStamp")}
    results = root.findall("Result")
    traces: list[Trace] = []
    for ri, res in enumerate(results):
        title = _text(res, "Title") or _text(res, "Identifier") or f"result{ri + 1}"
        desc = _text(res, "Description") or _text(res, "Arguments")
        scale = _text(res, "Scale")
        prop = _text(res, "Proportion")
        entries = res.findall("Data/Entry")
        for ei, e in enumerate(entries):
            system = _text(e, "Identifier")
            name = f"{title}: {desc}" if desc else title
            if len(systems) > 1 or len(entries) > 1:
                name += f" [{system}]"
            const = {"pts_test": _text(res, "Identifier"), "pts_system": system,
                     "pts_timestamp": systems.get(system, {}).get("timestamp", "")}
            extra = {"higher_is_better": {"HIB": True, "LIB": False}.get(prop), "proportion": prop,
                     "system": systems.get(system, {})}
            raw = _text(e, "RawString")
            field = f"Result[{ri + 1}]/Data/Entry[{ei + 1}]"
            if raw:
                try:
                    vals = [float(x) for x in raw.split(":") if x.strip() != ""]
                except ValueError:
                    raise InputError(source.name, f"RawString holds a non-number: {raw[:60]!r}",
                                     field=field + "/RawString") from None
                times: list[float] = []
                js = _text(e, "JSON")
                if js:
                    try:
                        trt = json.loads(js).get("test-run-times", "")
                        times = [float(x) for x in str(trt).split(":") if x.strip()]
                    except (ValueError, AttributeError):
                        times = []
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
                traces.append(summary_trace(source, "pts", name, v, value_unit=scale, stats=extra, metadata=const,
                                            reason="entry has no RawString (per-trial values)"))
    if not traces:
        raise InputError(source.name, "no results with values in composite.xml")
    return traces
