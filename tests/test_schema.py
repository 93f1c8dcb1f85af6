"""The JSON report contract: real reports validate against bandkit/schema/report.schema.json,
identical input gives byte-identical JSON, and drift from the schema is caught."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

import bandkit
from bandkit.analyze import SCHEMA_VERSION
from bandkit.schema import report_schema, validate_report
from bandkit.trace import Trace, TraceMeta

import report_cache as rc
from report_cache import FTQ_2009, FTQ_7777, FTQ_10000, pyperf_files


@pytest.fixture(scope="module")
def pair_json() -> str:
    return rc.json_text(FTQ_10000, FTQ_7777)


def _validator():
    return jsonschema.Draft202012Validator(report_schema())


def test_schema_is_valid_draft_2020_12():
    s = report_schema()
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(s)
    assert s["properties"]["schema_version"]["const"] == SCHEMA_VERSION


def test_schema_is_package_data():
    """The schema ships inside the package (pyproject package-data) and is listed there."""
    import bandkit.schema as pkg

    assert (Path(pkg.__file__).parent / "report.schema.json").is_file()
    pyproject = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    assert '"schema/*.json"' in pyproject


def test_ftq_pair_report_validates(pair_json):
    d = json.loads(pair_json)
    validate_report(d)
    assert [t["kind"] for t in d["traces"]] == ["ftq", "ftq"]
    assert d["traces"][0]["samples"] == 200000


def test_ftq_2009_ticks_report_validates():
    d = json.loads(rc.json_text(FTQ_2009))
    validate_report(d)
    assert d["traces"][0]["time_unit"] == "ticks" and d["traces"][0]["duration_s"] is None


@pytest.mark.skipif(not pyperf_files(), reason="no pyperf file under data/")
def test_pyperf_report_validates():
    d = json.loads(rc.json_text(pyperf_files()[0]))
    validate_report(d)
    assert d["traces"] and all(t["kind"] == "runner" and isinstance(t["name"], str) for t in d["traces"])


#: One real file per runner format under data/runners (fast ones; the pyperformance runs take seconds).
RUNNER_FILES = ["bpfilter_005d041.json", "pvlib_fff1131b-conda-py3.8.json", "pytest-benchmark-tests_0001.json",
                "simple_insert_hecs_new_sample.json", "simple_insert_hecs_new_raw.csv",
                "ManuelJBrito_GVNO3_simdjson-201_composite.xml", "analyseTurbostatData_2020_06_16_21H39.out.gz",
                "3em_tools_benchmarks_results.json"]


@pytest.mark.parametrize("name", RUNNER_FILES)
def test_runner_formats_validate(name):
    p = rc.DATA / "runners" / name
    if not p.exists():
        pytest.skip(f"{p} not shipped")
    d = json.loads(rc.json_text(p))
    validate_report(d)
    assert d["traces"]
    for t in d["traces"]:
        assert t["kind"] in ("runner", "series")  # turbostat columns are plain series
        assert ("verdict" in t) if t["kind"] == "runner" else ("changepoints" in t)


def test_bands_section_validates():
    """With the bands section on FTQ traces, the report validates and the band fields are there."""
    from bandkit.section import TRACE_SECTIONS

    assert "bands" in TRACE_SECTIONS["ftq"]
    d = json.loads(rc.json_text(FTQ_10000, FTQ_7777))
    validate_report(d)
    t = d["traces"][0]
    assert t["bands"] and {"level", "share", "lo", "hi"} <= set(t["bands"][0])
    bad = copy.deepcopy(d)
    bad["traces"][0]["bands"][0]["share"] = "64 %"
    with pytest.raises(jsonschema.ValidationError):
        validate_report(bad)


def test_synthetic_runner_report_validates():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"time": np.nan, "value": rng.normal(1.0, 0.01, 40), "run": np.repeat(np.arange(1, 9), 5)})
    tr = Trace(df, TraceMeta(path="x.json", format="pyperf", kind="runner", name="bench", value_unit="s"))
    validate_report(bandkit.analyze([tr]))


def test_byte_identical_across_processes(tmp_path, pair_json):
    """The CLI in a fresh interpreter (another hash seed) writes the same bytes as this process's
    independent analysis of the same two files: no set/dict-order, hash or cache dependence."""
    out = tmp_path / "r.json"
    subprocess.run([sys.executable, "-m", "bandkit", "report", str(FTQ_10000), str(FTQ_7777), "--format", "json",
                    "-o", str(out), "--quiet"], check=True, env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert out.read_bytes() == pair_json.encode()
    json.loads(out.read_bytes())  # strict JSON


def test_key_order_is_documented_order(pair_json):
    d = json.loads(pair_json)
    assert list(d)[:4] == ["schema_version", "bandkit_version", "traces", "findings"]
    t = d["traces"][0]
    assert list(t)[:3] == ["path", "kind", "format"]
    for f in d["findings"]:
        assert list(f)[:5] == ["trace", "path", "section", "kind", "severity"]


# -- drift: every one of these mutations must make the validation fail --------------------------
def _set(path, value):
    def mutate(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return mutate


def _drop(path):
    def mutate(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        del obj[path[-1]]
    return mutate


def _rename(path, new):
    def mutate(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj[new] = obj.pop(path[-1])
    return mutate


DRIFTS = {
    "schema_version bumped without schema": _set(["schema_version"], 2),
    "schema_version as string": _set(["schema_version"], "1"),
    "traces not a list": _set(["traces"], {}),
    "samples renamed": _rename(["traces", 0, "samples"], "n_samples_total"),
    "samples fractional": _set(["traces", 0, "samples"], 200000.5),
    "samples as string": _set(["traces", 0, "samples"], "200000"),
    "stalls.count dropped": _drop(["traces", 0, "stalls", "count"]),
    "stalls.longest_s as string": _set(["traces", 0, "stalls", "longest_s"], "9.8 ms"),
    "share above 1 (percent)": _set(["traces", 0, "stalls", "share_of_time"], 24.0),
    "ftq_fraction dropped": _drop(["traces", 0, "ftq_fraction"]),
    "unknown kind": _set(["traces", 0, "kind"], "FTQ"),
    "path null": _set(["traces", 0, "path"], None),
    "percentile key renamed": _set(["traces", 0, "count_percentiles", "median"], 1.0),
    "finding severity English": _set(["findings", 0, "severity"], "Warning!"),
    "finding without kind": _drop(["findings", 0, "kind"]),
    "bandkit_version dropped": _drop(["bandkit_version"]),
    "spectrum peak frequency as text": _set(["traces", 0, "spectrum", "peaks", 0, "freq_hz"], "500 Hz"),
    "spectrum peaks dropped": _drop(["traces", 0, "spectrum", "peaks"]),
    "changepoints without analysis": _drop(["traces", 0, "changepoint_analysis"]),
    "interference verdict unknown": _set(["interference", 0, "verdict"], "maybe"),
    "interference observed not a list": _set(["interference", 0, "observed"], {"alias_hz": 1.0}),
}


RUNNER_DRIFTS = {
    "runner without name": _drop(["traces", 0, "name"]),
    "runner verdict unknown": _set(["traces", 0, "verdict"], "fine"),
    "runner steps dropped": _drop(["traces", 0, "steps"]),
    "postmortem noise as percent text": _set(["traces", 0, "postmortem", "noise_rel"], "0.7 %"),
    "runner_summary counts as list": _set(["runner_summary", "counts"], [1]),
}


@pytest.mark.skipif(not pyperf_files(), reason="no pyperf file under data/")
@pytest.mark.parametrize("name", list(RUNNER_DRIFTS))
def test_runner_drift_is_caught(name):
    d = json.loads(rc.json_text(pyperf_files()[0]))
    validate_report(d)
    RUNNER_DRIFTS[name](d)
    with pytest.raises(jsonschema.ValidationError):
        validate_report(d)


@pytest.mark.parametrize("name", list(DRIFTS))
def test_drift_is_caught(pair_json, name):
    d = json.loads(pair_json)
    _validator().validate(d)  # the unmutated report passes ...
    bad = copy.deepcopy(d)
    DRIFTS[name](bad)
    with pytest.raises(jsonschema.ValidationError):  # ... the drifted one does not
        validate_report(bad)


def test_renderer_drift_is_caught(monkeypatch):
    """A section that changes a documented field's type in the renderer's output fails validation."""
    import bandkit.summary as summary

    orig = summary.FtqSummary.to_dict

    def drifted(self):
        d = orig(self)
        d["stalls"] = d["stalls"]["count"]  # a renderer "simplification"
        return d

    monkeypatch.setattr(summary.FtqSummary, "to_dict", drifted)
    rep = bandkit.report(str(FTQ_2009))  # small FTQ file: fast
    with pytest.raises(jsonschema.ValidationError, match="stalls|object"):
        validate_report(rep)


def test_additional_fields_allowed(pair_json):
    d = json.loads(pair_json)
    d["traces"][0]["a_new_section"] = {"x": 1}
    d["new_top_level"] = []
    validate_report(d)
