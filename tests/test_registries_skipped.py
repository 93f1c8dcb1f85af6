"""Nothing is silently dropped (issues 12/15): a section registered for a trace's kind either analyses
it or is listed under the trace's ``skipped`` with a reason code of ``bandkit.section.SKIP_REASONS``;
every code has its words in the text and HTML renderers, its enum and detail keys in the schema and a
README row; each code a section writes is reached by a real input here."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import bandkit
import report_cache as rc
from bandkit.analyze import TraceReport
from bandkit.errors import InvalidValueError
from bandkit.render.skipped import PHRASES, SECTION_TITLES, skipped_phrase
from bandkit.schema import report_schema, validate_report
from bandkit.section import SECTIONS, SKIP_REASONS, TRACE_SECTIONS, AnalysisOptions, skip_reasons_table, skipped
from bandkit.trace import Trace, TraceMeta

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")

#: A detail of each reason, and words its phrase must show (not the bare code).
EXAMPLES = {
    "option": ({}, "left out on request"),
    "too_short": ({"n": 5, "needed": 8, "what": "quanta"}, "8 quanta needed, 5 given"),
    "no_data": ({"n": 3}, "no finite measured value in 3 rows"),
    "non_finite": ({"n": 9, "n_non_finite": 2}, "2 of 9 values are NaN or infinite"),
    "all_zero": ({"n": 200}, "no work measured: at least 99 % of the counts are zero"),
    "no_sampling_rate": ({"time_unit": "ticks"}, "no sampling rate in seconds"),
    "usage_error": ({"message": "segment of 5 s does not fit"}, "segment of 5 s does not fit"),
    "too_few_spectra": ({"n": 1, "needed": 2}, "1 FTQ trace(s) with a spectrum, 2 needed"),
    "one_rate": ({"rates_hz": [10000.0]}, "every FTQ trace sampled at 10000 Hz"),
    "multiple_rates": ({"rates_hz": [1000.0, 2000.0]}, "sampling rates 1000 and 2000 Hz are multiples"),
}


def _trace(values, kind="series", hz=None, time_unit="s", path="x.dat"):
    v = np.asarray(values, dtype=np.float64)
    return Trace({"time": np.arange(v.size) / (hz or 1.0), "value": v},
                 TraceMeta(path, "csv", kind=kind, sampling_hz=hz, time_unit=time_unit))


def _skips(rep, i=0):
    return {(k["section"], k["reason"]): k["detail"] for k in rep.to_dict()["traces"][i]["skipped"]}


# -- the registry and the renderers ---------------------------------------------------------------
def test_every_reason_has_an_example_and_a_phrase_and_nothing_else():
    assert set(EXAMPLES) == set(SKIP_REASONS)
    assert set(PHRASES) == set(SKIP_REASONS), "bandkit/render/skipped.py PHRASES must match SKIP_REASONS"
    assert set(SECTION_TITLES) >= set(SECTIONS), "every section needs its words in SECTION_TITLES"


@pytest.mark.parametrize("reason", list(SKIP_REASONS))
def test_each_reason_shows_in_text_and_html(reason):
    detail, words = EXAMPLES[reason]
    s = skipped("changepoints", reason, **detail)  # (checks the detail keys against the registry)
    t = _trace(np.arange(20.0) % 3)
    rep = bandkit.analyze(t)
    tr = TraceReport(t, 0, rep.traces[0].sections,
                     skipped=({"section": "changepoints", **s.skipped},))
    rep = type(rep)((tr,), rep.cross, rep.options)
    line = f"not analysed: change points ({words}"
    assert words in skipped_phrase({"section": "changepoints", **s.skipped})
    text = rep.to_text(width=200)
    assert line in text, text
    html = rep.to_html()
    assert "Not analysed: change points (" in html and words.replace("'", "&#x27;") in html
    validate_report(rep)


def test_unregistered_reason_or_detail_is_refused():
    with pytest.raises(ValueError, match="unregistered"):
        skipped("bands", "too_small", n=1)
    with pytest.raises(ValueError, match="takes detail"):
        skipped("bands", "too_short", n=1)


def test_schema_and_readme_read_the_table():
    d = bandkit.analyze(_trace([1.0, 2.0, 3.0])).to_dict()
    assert list(d)[-1] == "skipped" and list(d["traces"][0])[-1] == "skipped"  # always written
    s = report_schema()["$defs"]["skipped"]
    assert s["properties"]["reason"]["enum"] == list(SKIP_REASONS)
    assert s["properties"]["section"]["enum"] == list(SECTIONS)
    assert skip_reasons_table() in README, "README's skipped reasons are stale: paste `python -m bandkit.section`"
    d = bandkit.analyze(_trace([1.0, 2.0, 3.0])).to_dict()
    d["traces"][0]["skipped"][0]["detail"]["extra"] = 1
    import jsonschema

    with pytest.raises(jsonschema.ValidationError):
        validate_report(d)


# -- each code a section writes, on an input that reaches it ----------------------------------------
def test_short_series_lists_change_points_and_keeps_bands():
    rep = bandkit.analyze(_trace([5.0, 3.0, 4.0, 7.0, 5.0]))
    assert _skips(rep) == {("changepoints", "too_short"): {"n": 5, "needed": 8, "what": "values"}}
    assert [s.name for s in rep.traces[0].sections] == ["bands"]
    assert "  not analysed: change points (8 values needed, 5 given)\n" in rep.to_text()
    validate_report(rep)


def test_short_ftq_lists_spectrum_and_change_points_with_the_spectrum_field_null():
    rep = bandkit.analyze(_trace([10.0, 11, 10, 12, 10], kind="ftq", hz=1000.0))
    assert _skips(rep) == {("spectrum", "too_short"): {"n": 5, "needed": 64, "what": "quanta"},
                           ("changepoints", "too_short"): {"n": 5, "needed": 8, "what": "quanta"}}
    entry = rep.to_dict()["traces"][0]
    assert entry["spectrum"] is None and list(entry)[-1] == "skipped"
    assert "not analysed: spectrum (64 quanta needed, 5 given); change points (8 quanta needed, 5 given)" \
        in rep.to_text(width=200)


def test_empty_ftq_and_zero_ftq_and_nan_series():
    rep = bandkit.analyze([_trace([], kind="ftq", hz=1000.0), _trace(np.zeros(200), kind="ftq", hz=1000.0),
                           _trace([1.0, 2, np.nan, 4, 5, 6, 7, 8, 9])])
    assert set(_skips(rep, 0)) == {("bands", "no_data"), ("spectrum", "no_data"), ("changepoints", "too_short")}
    assert _skips(rep, 1) == {("spectrum", "all_zero"): {"n": 200}}
    assert _skips(rep, 2) == {("changepoints", "non_finite"): {"n": 9, "n_non_finite": 1}}
    validate_report(rep)


def test_ticks_without_clock_rate_say_why_no_spectrum():
    rep = rc.report(rc.FTQ_2009)
    for i, tr in enumerate(rep.traces):
        assert ("spectrum", "no_sampling_rate") in _skips(rep, i)
    assert "spectrum (no sampling rate in seconds: times are clock ticks; --clock-hz gives the rate)" \
        in rep.to_text(width=200)


def test_bad_option_is_shown_as_usage_error_and_skip_as_option():
    t = _trace(np.r_[np.full(500, 100.0), np.full(500, 90.0)], kind="ftq", hz=1000.0)
    rep = bandkit.analyze(t, AnalysisOptions(skip=frozenset({"bands"}), params={"spectrum": {"segment_s": 100.0}}))
    sk = _skips(rep)
    assert sk[("bands", "option")] == {}
    assert "does not fit" in sk[("spectrum", "usage_error")]["message"]
    assert list(sk) == [("bands", "option"), ("spectrum", "usage_error")]  # section order


# -- nothing silently dropped, on every bundled real input -----------------------------------------
def _real_reports():
    ftq = sorted(rc.DATA.glob("ftq/*.dat.gz"))
    return [rc.report(p) for p in ftq] + [rc.report(rc.FTQ_2009)] + \
        [rc.report(p) for p in rc.pyperf_files()[:3]]


def test_every_registered_section_ran_or_is_listed():
    short = bandkit.analyze([_trace([1.0, 2.0]), _trace([], kind="ftq", hz=1000.0), _trace([3.0] * 30)])
    for rep in _real_reports() + [short]:
        for tr in rep.traces:
            ran = {s.name for s in tr.sections if s.skipped is None}
            listed = [k["section"] for k in tr.skipped]
            assert not ran & set(listed)
            assert ran | set(listed) == set(TRACE_SECTIONS[tr.trace.kind]), (tr.trace.path, ran, listed)


# -- the two-rate test across traces: the report's top-level skipped -------------------------------
def _ftq(hz, n=400, path="a.dat"):
    rng = np.random.default_rng(int(hz) + n)
    return _trace(1000.0 + rng.normal(0, 5, n), kind="ftq", hz=hz, path=path)


@pytest.mark.parametrize("traces,reason,detail", [
    ([(10000.0, 400), (10000.0, 400)], "one_rate", {"rates_hz": [10000.0]}),
    ([(1000.0, 400), (2000.0, 400)], "multiple_rates", {"rates_hz": [1000.0, 2000.0]}),
    ([(10000.0, 400), (7777.0, 20)], "too_few_spectra", {"n": 1, "needed": 2}),
])
def test_two_rate_test_that_cannot_run_says_why(traces, reason, detail):
    rep = bandkit.analyze([_ftq(hz, n, f"t{i}.dat") for i, (hz, n) in enumerate(traces)])
    d = rep.to_dict()
    assert d["interference"] is None
    assert d["skipped"] == [{"section": "interference", "reason": reason, "detail": detail}]
    words = PHRASES[reason](detail)
    assert f"Across traces — not analysed: two-rate interference test ({words})" in rep.to_text(width=300)
    assert f"Across traces — not analysed: two-rate interference test ({words})" in rep.to_html()
    validate_report(d)


def test_two_rates_or_one_ftq_trace_list_nothing_across():
    assert bandkit.analyze([_ftq(10000.0, path="a"), _ftq(7777.0, path="b")]).to_dict()["skipped"] == []
    one = bandkit.analyze(_ftq(10000.0))  # the two-rate test never applies to one trace: not "skipped"
    assert one.to_dict()["skipped"] == [] and "not analysed" not in one.to_text()
    # nor to the threads of one file (one run, one rate)
    threads = bandkit.analyze([_ftq(10000.0, path="mpi.dat"), _ftq(10000.0, n=401, path="mpi.dat")])
    assert threads.to_dict()["skipped"] == [] and threads.to_dict()["interference"] is None


@pytest.mark.parametrize("section, params, needle", [
    ("bands", {"n_bands": -1}, "n_bands"),
    ("bands", {"min_share": 5}, "min_share"),
    ("changepoints", {"alpha": 7}, "alpha"),
    ("changepoints", {"penalty": "nope"}, "penalty"),
    ("spectrum", {"segment_s": -3.0}, "segment_s"),
    ("spectrum", {"alpha": 2.0}, "alpha"),
])
def test_an_invalid_option_is_the_callers_error_not_a_skipped_section(section, params, needle):
    """A value wrong whatever the trace raises (naming the section), instead of a ``skipped`` entry
    on every trace; one that only does not fit this trace stays a skip (test above)."""
    t = _trace(np.r_[np.full(500, 100.0), np.full(500, 90.0)], kind="ftq", hz=1000.0)
    with pytest.raises(InvalidValueError, match=rf"params\['{section}'\].*{needle}"):
        bandkit.analyze(t, AnalysisOptions(params={section: params}))
    with pytest.raises(ValueError):  # scikit-learn's convention for a bad parameter value
        bandkit.analyze(t, AnalysisOptions(params={section: params}))
