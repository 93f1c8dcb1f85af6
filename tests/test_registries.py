"""Contract tests over every registry (in the spirit of skchange's test_all.py).

Every "module:function" entry resolves; every finding kind a section emits is in the table of kinds,
with a phrase, a schema entry and a README row; every input format is sniffable and documented; the
display hook and the notebook plots resolve. The fixture section at the end adds a section the way
ARCHITECTURE.md says and shows that the whole report (text, JSON, HTML, schema, --fail-on, fleet)
follows from the files it touched.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import re
import textwrap
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

import report_cache as rc
from bandkit import display
from bandkit.errors import InputError
from bandkit.findings import FAIL_ON_GROUPS, FINDING_KINDS, SEVERITIES, FindingKind, fail_on_kinds, markdown_table
from bandkit.loaders.registry import ALIASES, FORMATS, detect_format
from bandkit.loaders.source import Source
from bandkit.schema import report_schema, validate_report
from bandkit.section import SECTIONS, TRACE_SECTIONS, AnalysisOptions, Section, resolve
from bandkit.trace import KINDS, Trace, TraceMeta

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


# -- sections ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(SECTIONS))
def test_section_entries_resolve(name):
    sec = SECTIONS[name]
    assert sec.name == name and re.fullmatch(r"[a-z_]+", name)
    for spec in (sec.run, sec.text, sec.html, sec.batch):
        if spec is not None:
            assert callable(resolve(spec)), spec
    if sec.cross:
        assert not sec.traces and (sec.needs is None or sec.needs[0] in KINDS)
    else:
        assert sec.traces and sec.needs is None and not sec.preamble  # a per-trace section runs somewhere
    assert not sec.preamble or sec.text


def test_trace_sections_name_registered_per_trace_sections():
    assert set(TRACE_SECTIONS) == set(KINDS)
    for names in TRACE_SECTIONS.values():
        assert len(set(names)) == len(names)
        assert all(n in SECTIONS and not SECTIONS[n].cross for n in names)


# -- finding kinds -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(FINDING_KINDS))
def test_finding_kind_entries(kind):
    fk = FINDING_KINDS[kind]
    assert fk.kind == kind and re.fullmatch(r"[a-z_]+", kind)
    assert fk.section in SECTIONS
    assert fk.severities and set(fk.severities) <= set(SEVERITIES)
    assert fk.fail_on is None or fk.fail_on in FAIL_ON_GROUPS
    assert callable(resolve(fk.phrase)) and fk.phrase.startswith("bandkit.render.")  # English lives there
    assert all(isinstance(f, str) and f not in ("kind", "severity", "trace", "path", "section") for f in fk.fields)
    assert fk.meaning and kind in SECTIONS[fk.section].emits


def test_every_fail_on_group_catches_something():
    for group in FAIL_ON_GROUPS:
        assert fail_on_kinds([group]), group


def _emitted_literal_kinds() -> dict[str, str]:
    """Kind strings the section modules write into findings: ``"kind": "..."`` in dict displays (both
    branches of a conditional) and the values of module-level ``*KIND*`` dicts -> module."""
    out = {}
    for sec in SECTIONS.values():
        module = inspect.getmodule(resolve(sec.run))
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            values = []
            if isinstance(node, ast.Dict):
                values = [v for k, v in zip(node.keys, node.values)
                          if isinstance(k, ast.Constant) and k.value == "kind"]
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                    isinstance(t, ast.Name) and "KIND" in t.id for t in node.targets):
                values = list(node.value.values)
            while values:
                v = values.pop()
                if isinstance(v, ast.IfExp):  # "a" if ... else "b": both branches, not the test
                    values += [v.body, v.orelse]
                elif isinstance(v, ast.Constant) and isinstance(v.value, str):
                    out[v.value] = module.__name__
    return out


def test_every_kind_a_section_writes_is_registered():
    emitted = _emitted_literal_kinds()
    assert {"stalls", "band_levels", "level_shift", "step", "periodic_interference"} <= set(emitted)  # the scan works
    unknown = {k: m for k, m in emitted.items() if k not in FINDING_KINDS}
    assert not unknown, f"finding kinds without a row in bandkit/findings.py: {unknown}"
    dead = set(FINDING_KINDS) - set(emitted)
    assert not dead, f"rows of bandkit/findings.py that no section writes: {dead}"


RUNNERS = rc.DATA / "runners"


def _real_reports():
    return [rc.report(rc.FTQ_10000, rc.FTQ_7777), rc.report(rc.FTQ_2009),
            rc.report(RUNNERS / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"),
            rc.report(RUNNERS / "ManuelJBrito_GVNO3_simdjson-201_composite.xml"),
            *(rc.report(p) for p in sorted((rc.DATA / "ci-history").glob("*.csv.gz")))]


#: Kinds the bundled data does not produce: an example finding each (the kind's fields), for the phrase.
EXAMPLES = {
    "trend": {"name": "b", "unit": "s", "runs": 40, "drift_ratio": 1.08, "p_value": 1e-5},
    "bands": {"name": "b", "unit": "s", "runs": 30, "n_bands": 3, "levels": [1.0, 1.1, 1.3],
              "shares": [0.5, 0.3, 0.2], "slow_runs": [3, 4], "factor": 1.3},
    "sampling_locked": {"verdict": "sampling-locked", "freq_hz": None, "fraction": 0.25, "harmonics": 1,
                        "snr_db": 20.0, "paths": ["a", "b"]},
    "fraction_mismatch": {"computed": 0.91, "header": 0.95},
    "partial_quantum": {"rows": [0], "quantum_ticks": 4096, "first_quantum_ticks": 1000},
    "drift": {"start_build": 100, "end_build": 180, "ratio": 1.12, "drift_kind": "regression", "higher_is_better": False},
    "improvement": {"count": 1, "build": 120, "before": 2.0, "after": 1.6, "ratio": 0.8, "higher_is_better": False,
                    "value_unit": "s"},
    "too_few_builds": {"builds": 3, "runs": 9, "needed": 8},
}


def test_every_kind_on_real_data_has_its_phrase_fields_and_schema_entry():
    from bandkit.render.text import phrase

    seen = {}
    for rep in _real_reports():
        validate_report(rep.to_dict())
        for f in rep.to_dict()["findings"]:
            fk = FINDING_KINDS[f["kind"]]
            assert f["section"] == fk.section and f["severity"] in fk.severities
            missing = set(fk.fields) - set(f)
            assert not missing, (f["kind"], missing)
            p = phrase(f)
            assert isinstance(p, str) and p and p != f["kind"].replace("_", " ")
            seen.setdefault(f["kind"], f)
    assert set(seen) | set(EXAMPLES) == set(FINDING_KINDS), set(FINDING_KINDS) - set(seen) - set(EXAMPLES)
    schema = report_schema()
    for kind, data in EXAMPLES.items():
        fk = FINDING_KINDS[kind]
        assert set(data) == set(fk.fields), kind
        f = {"trace": None, "path": None, "section": fk.section, "kind": kind, "severity": fk.severities[0], **data}
        assert phrase(f)
        jsonschema.validate({"schema_version": 1, "bandkit_version": "x", "traces": [], "findings": [f]}, schema)


def test_schema_reads_the_table_of_kinds():
    schema = report_schema()
    finding = schema["$defs"]["finding"]
    assert finding["properties"]["kind"]["enum"] == list(FINDING_KINDS)
    doc = json.loads(rc.json_text(rc.FTQ_2009))
    validate_report(doc)
    unknown = json.loads(json.dumps(doc))
    unknown["findings"][0]["kind"] = "made_up"
    with pytest.raises(jsonschema.ValidationError):
        validate_report(unknown)
    short = json.loads(json.dumps(doc))
    f = short["findings"][0]
    del f[FINDING_KINDS[f["kind"]].fields[0]]
    with pytest.raises(jsonschema.ValidationError):
        validate_report(short)


def test_readme_table_of_kinds_is_the_table():
    assert markdown_table() in README, "README's finding kinds are stale: paste `python -m bandkit.findings`"


def test_cli_and_fleet_read_the_table():
    from bandkit import cli
    from bandkit.fleet import rows

    assert set(cli.FAIL_ON_KINDS) == set(FAIL_ON_GROUPS)
    for group, kinds in cli.FAIL_ON_KINDS.items():
        assert kinds == {k for k, fk in FINDING_KINDS.items() if fk.fail_on == group}
    assert rows.STEP_KINDS == fail_on_kinds(["step"])
    assert set(rows.LINE_KINDS) <= set(FINDING_KINDS) and rows.BANDS_KIND in FINDING_KINDS
    assert all("freq_hz" in FINDING_KINDS[k].fields or "alias_hz" in FINDING_KINDS[k].fields for k in rows.LINE_KINDS)


# -- formats -------------------------------------------------------------------------------------------
#: Formats without a bundled file: a minimal sample each (name, bytes) that auto-detection must recognise.
SAMPLES = {
    "parquet": ("history.parquet", None),  # written by pandas below (needs pyarrow, a test dependency)
    "ftq-mpi": ("mpi.out", b"# Frequency: 10000\n# Ticks per ns: 2.6\n0,1300,1299\n26000,1301,1300\n"),
    "csv": ("results.csv", b"name,value\na,1.0\na,1.1\n"),
}


def _bundled_formats() -> dict[str, str]:
    found = {}
    for p in sorted((ROOT / "data").rglob("*")):
        if p.is_file() and p.name != "README.md":
            try:
                found.setdefault(detect_format(Source.open(str(p))), str(p))
            except InputError:  # provenance notes, interferer logs: not results
                pass
    return found


def test_every_format_resolves_is_sniffable_and_documented(tmp_path):
    for fmt, spec in FORMATS.items():
        assert callable(resolve(spec)), spec
        assert f"| `{fmt}` |" in README, f"format {fmt} has no row in the README's formats table"
    assert set(ALIASES.values()) <= set(FORMATS)
    detected = _bundled_formats()
    for fmt, (name, body) in SAMPLES.items():
        if body is None:
            pd.DataFrame({"build": [1, 2, 3], "value": [1.0, 1.1, 1.0]}).to_parquet(tmp_path / name)
        else:
            (tmp_path / name).write_bytes(body)
        detected.setdefault(detect_format(Source.open(str(tmp_path / name))), name)
    assert set(FORMATS) <= set(detected), set(FORMATS) - set(detected)


# -- display hook and notebook plots ---------------------------------------------------------------------
def test_display_registry_resolves():
    from bandkit.render.notebook import RESULT_PLOTS

    for spec in [*display.RENDERERS.values(), display.DEFAULT_NOTEBOOK, *RESULT_PLOTS.values()]:
        assert callable(resolve(spec)), spec


def test_repr_html_only_through_the_display_hook():
    """No hand-written ``_repr_html_`` bodies: every notebook view goes through bandkit.display."""
    bodies = [str(p.relative_to(ROOT)) for p in (ROOT / "bandkit").rglob("*.py")
              if "def _repr_html_" in p.read_text(encoding="utf-8")]
    assert bodies == ["bandkit/display.py"]
    import bandkit
    from bandkit.analyze import TraceReport
    from bandkit.bands import BandResult
    from bandkit.changepoints import ChangePointResult
    from bandkit.fleet import FleetReport
    from bandkit.postmortem import PostMortem
    from bandkit.spectrum import RateComparison, TraceSpectrum

    for cls in (bandkit.Trace, bandkit.Report, TraceReport, BandResult, ChangePointResult, FleetReport, PostMortem,
                RateComparison, TraceSpectrum):
        assert issubclass(cls, display.DisplayMixin), cls


# -- the fixture section: adding a section ------------------------------------------------------------------
FIXTURE_SECTION = '''
"""A fixture analysis: the spread of a trace's values (p99 / p1)."""
import numpy as np

from bandkit.section import SectionResult


def section(trace, options):
    v = trace.values
    p1, p99 = (float(x) for x in np.percentile(v, [1, 99]))
    ratio = p99 / p1 if p1 > 0 else None
    findings = []
    if ratio is not None and ratio > float(options.for_section("value_range").get("limit", 1.02)):
        findings.append({"kind": "wide_range", "severity": "warning", "ratio": ratio})
    return SectionResult("value_range", {"value_range": {"p1": p1, "p99": p99, "ratio": ratio}}, None, findings)
'''
FIXTURE_TEXT = '''
"""Text of the fixture section (English only here)."""


def render(section):
    r = section.fields["value_range"]
    return [f"  value range: p1 {r['p1']:g}, p99 {r['p99']:g}"]


def phrase(f):
    return f"values spread x{f['ratio']:.2f} from p1 to p99"
'''


def test_adding_a_section_touches_at_most_five_files(tmp_path, monkeypatch):
    import bandkit
    from bandkit import cli, findings, section
    from bandkit.fleet import summarize_path
    from bandkit.synthetic.ftq import generate_ftq

    pkg = tmp_path / "bk_fixture"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "value_range.py").write_text(textwrap.dedent(FIXTURE_SECTION))
    (pkg / "text_value_range.py").write_text(textwrap.dedent(FIXTURE_TEXT))
    monkeypatch.syspath_prepend(str(tmp_path))
    # the registrations, and nothing else: a row in section.py (and its place in the FTQ order) ...
    monkeypatch.setitem(section.SECTIONS, "value_range", Section(
        "value_range", "bk_fixture.value_range:section", text="bk_fixture.text_value_range:render"))
    monkeypatch.setitem(section.TRACE_SECTIONS, "ftq", section.TRACE_SECTIONS["ftq"] + ("value_range",))
    # ... and a row in findings.py
    monkeypatch.setitem(findings.FINDING_KINDS, "wide_range", FindingKind(
        "wide_range", "value_range", ("warning",), "bk_fixture.text_value_range:phrase", ("ratio",),
        "the values spread more than the limit", fail_on="bands"))
    touched = {Path(inspect.getsourcefile(m)).resolve() for m in (section, findings)}
    touched |= {pkg / "value_range.py", pkg / "text_value_range.py", ROOT / "README.md"}
    assert len(touched) <= 5, sorted(map(str, touched))

    g = generate_ftq(20_000, levels=(1338.0, 1200.0), seed=2)
    tr = Trace(pd.DataFrame({"time": g.time_ns * 1e-9, "value": g.count, "catchup": g.catchup}),
               TraceMeta(path="fixture.dat", format="ftq", sampling_hz=g.freq_hz))
    rep = bandkit.analyze(tr)
    doc = rep.to_dict()
    assert doc["traces"][0]["value_range"]["ratio"] > 1.02                       # JSON fields
    f = next(f for f in doc["findings"] if f["kind"] == "wide_range")
    assert f["section"] == "value_range" and f["trace"] == 0                      # finding data
    validate_report(doc)                                                           # the schema reads the table
    text = rep.to_text(width=10_000)
    assert "values spread x" in text.splitlines()[1] and "value range: p1" in text  # verdict phrase, table
    assert "values spread x" in rep.to_html()                                      # HTML verdict + <pre> table
    only = bandkit.analyze(tr, AnalysisOptions(skip=frozenset(TRACE_SECTIONS["ftq"][:-1]) | {"interference"}))
    assert [f["kind"] for f in only.findings] == ["wide_range"]
    assert cli.exit_status(only, frozenset({"bands"})) == 1                        # --fail-on group
    assert cli.exit_status(only, frozenset({"stalls"})) == 0
    assert "wide_range" in summarize_path(tr)[0]["finding_kinds"]                 # fleet rows
    quiet = bandkit.analyze(tr, AnalysisOptions(params={"value_range": {"limit": 10.0}}))
    assert "wide_range" not in [f["kind"] for f in quiet.findings]                 # params by section name
    assert "| `wide_range` | value_range |" in markdown_table()                    # the README row to paste
    skipped = bandkit.analyze(tr, AnalysisOptions(skip=frozenset({"value_range"})))
    assert "value_range" not in skipped.to_dict()["traces"][0]


def test_the_fixture_section_would_fail_without_its_kind(tmp_path, monkeypatch):
    """Without its row in findings.py the new kind fails the schema and shows as a bare name."""
    from bandkit import section

    pkg = tmp_path / "bk_fixture2"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "value_range.py").write_text(textwrap.dedent(FIXTURE_SECTION))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(section.SECTIONS, "value_range", Section("value_range", "bk_fixture2.value_range:section"))
    monkeypatch.setitem(section.TRACE_SECTIONS, "ftq", ("value_range",))
    import bandkit
    from bandkit.synthetic.ftq import generate_ftq

    g = generate_ftq(5_000, levels=(1338.0, 1200.0), seed=2)
    tr = Trace(pd.DataFrame({"time": g.time_ns * 1e-9, "value": g.count.astype(np.float64)}),
               TraceMeta(path="f.dat", format="ftq", sampling_hz=g.freq_hz))
    rep = bandkit.analyze(tr)
    assert "wide range" in rep.to_text()  # never silently dropped from the verdict
    with pytest.raises(jsonschema.ValidationError):
        validate_report(rep)
    assert dataclasses.replace(section.SECTIONS["value_range"]).emits == ()
