"""The JSON report contract: ``report.schema.json`` (JSON Schema draft 2020-12), schema_version 1.

``report_schema()`` returns it as a dict, with the finding kinds of :mod:`bandkit.findings` filled in
(the ``kind`` enum, and the data keys each kind requires) and the codes of ``skipped`` entries from
:data:`bandkit.section.SKIP_REASONS`, so that those tables are the one place a kind or a code is
declared; ``validate_report(d)`` checks a ``Report.to_dict()`` (or parsed JSON) against it and raises ``jsonschema.ValidationError`` on drift (needs ``jsonschema``, a test
dependency).
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

SCHEMA_FILE = "report.schema.json"


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return resources.files(__name__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def report_schema() -> dict[str, Any]:
    """The report schema with the finding kinds filled in (a fresh dict each call)."""
    from ..findings import FINDING_KINDS

    schema = json.loads(_schema_text())
    finding = schema["$defs"]["finding"]
    finding["properties"]["kind"]["enum"] = list(FINDING_KINDS)
    finding["allOf"] = [
        {"if": {"properties": {"kind": {"const": fk.kind}}},
         "then": {"required": list(fk.fields), "properties": {"severity": {"enum": list(fk.severities)},
                                                              "section": {"const": fk.section}}}}
        for fk in FINDING_KINDS.values()]
    from ..section import SECTIONS, SKIP_REASONS

    skipped = schema["$defs"]["skipped"]
    skipped["properties"]["section"]["enum"] = list(SECTIONS)
    skipped["properties"]["reason"]["enum"] = list(SKIP_REASONS)
    skipped["allOf"] = [
        {"if": {"properties": {"reason": {"const": code}}},
         "then": {"properties": {"detail": {"required": list(keys), "additionalProperties": False,
                                            "properties": {k: {} for k in keys}}}}}
        for code, (keys, _) in SKIP_REASONS.items()]
    return schema


def validate_report(report: Any) -> None:
    """Validate a report dict / Report / JSON text against the schema (raises
    ``jsonschema.ValidationError`` on any mismatch). Needs the ``jsonschema`` package, which a plain
    install does not bring (the report's own field checks do not need it)."""
    try:
        import jsonschema
    except ImportError:
        from ..errors import UsageError

        raise UsageError("validate_report needs the 'jsonschema' package (pip install jsonschema); "
                         "bandkit.schema.report_schema() gives the schema itself") from None

    if hasattr(report, "to_dict"):
        report = report.to_dict()
    elif isinstance(report, str):
        report = json.loads(report)
    jsonschema.Draft202012Validator(report_schema(), format_checker=jsonschema.FormatChecker()).validate(report)
