"""The analysis pipeline: sections run by their registered names; skip and params take those names."""
import dataclasses

import numpy as np
import pandas as pd
import pytest

import bandkit
from bandkit.analyze import analyze, analyze_trace
from bandkit.errors import UsageError
from bandkit.section import SECTIONS, TRACE_SECTIONS, AnalysisOptions, SectionResult
from bandkit.synthetic.ftq import generate_ftq
from bandkit.trace import Trace, TraceMeta


def _ftq(n=20_000, seed=0) -> Trace:
    g = generate_ftq(n, stall_rate_hz=5.0, seed=seed)
    df = pd.DataFrame({"time": g.time_ns * 1e-9, "value": g.count, "catchup": g.catchup})
    return Trace(df, TraceMeta(path=f"ftq{seed}.dat", format="ftq", sampling_hz=g.freq_hz))


def _series() -> Trace:
    rng = np.random.default_rng(3)
    v = np.r_[rng.normal(10, 0.1, 200), rng.normal(12, 0.1, 200)]
    return Trace(pd.DataFrame({"value": v, "time": np.arange(v.size, dtype=float)}),
                 TraceMeta(path="s", format="csv", kind="series", sampling_hz=1.0))


@pytest.fixture(scope="module")
def ftq_trace():
    return _ftq()


@pytest.mark.parametrize("name", TRACE_SECTIONS["ftq"])
def test_skip_by_section_name(ftq_trace, name):
    """The bug: skip={"changepoints"} ran the change points (the name came from the module path: "section")."""
    tr = analyze_trace(ftq_trace, options=AnalysisOptions(skip=frozenset({name})))
    names = [s.name for s in tr.sections]
    assert name not in names
    assert names == [n for n in TRACE_SECTIONS["ftq"] if n != name]
    assert all(f["section"] != name for f in tr.findings)


def test_every_section_runs_under_its_registered_name(ftq_trace):
    rep = analyze([ftq_trace, _series()])
    assert [s.name for s in rep.traces[0].sections] == list(TRACE_SECTIONS["ftq"])
    assert [s.name for s in rep.traces[1].sections] == list(TRACE_SECTIONS["series"])
    assert [s.name for s in rep.cross] == ["interference"]  # runner_summary needs a runner trace
    for f in rep.findings:
        assert f["section"] in SECTIONS


def test_skip_cross_sections():
    rep = analyze([_ftq(seed=1)], AnalysisOptions(skip=frozenset({"interference", "spectrum"})))
    assert rep.cross == () and "interference" not in rep.to_dict()
    assert rep.traces[0].section("spectrum") is None


def test_skip_postmortem_skips_the_runner_summary_too():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"time": np.nan, "value": rng.normal(1.0, 0.01, 40), "run": np.repeat(np.arange(1, 9), 5)})
    tr = Trace(df, TraceMeta(path="x.json", format="pyperf", kind="runner", name="bench", value_unit="s"))
    assert [s.name for s in analyze([tr]).cross] == ["interference", "runner_summary"]
    rep = analyze([tr], AnalysisOptions(skip=frozenset({"postmortem"})))
    # the central value (section summary) stays: it is not part of the post-mortem
    assert [s.name for s in rep.traces[0].sections] == ["summary"] and [s.name for s in rep.cross] == ["interference"]


def test_params_reach_the_section_by_name(ftq_trace):
    rep = analyze_trace(ftq_trace, options=AnalysisOptions(params={"changepoints": {"alpha": 1e-300}}))
    assert rep.section("changepoints").fields["changepoint_analysis"]["alpha"] == 1e-300


@pytest.mark.parametrize("options", [AnalysisOptions(skip=frozenset({"changepoint"})),
                                     AnalysisOptions(params={"band": {"n_bands": 2}})])
def test_unknown_section_names_are_usage_errors(ftq_trace, options):
    with pytest.raises(UsageError, match="unknown section name"):
        analyze([ftq_trace], options)


def test_a_result_under_another_name_is_a_bug(monkeypatch, ftq_trace):
    monkeypatch.setitem(SECTIONS, "summary", dataclasses.replace(SECTIONS["summary"], run=f"{__name__}:_misnamed"))
    with pytest.raises(RuntimeError, match="returned a result named"):
        analyze_trace(ftq_trace)


def _misnamed(trace, options):
    return SectionResult("not_summary", {})


def test_package_exports_the_options():
    assert bandkit.AnalysisOptions is AnalysisOptions
