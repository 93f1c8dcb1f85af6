"""Library API contracts (issue 15, point 8): load_one / load_all return types that do not depend on
the file, short reprs, bandkit.plots exports its functions, validate_report's missing dependency."""
from __future__ import annotations

import sys

import pytest

import bandkit
from bandkit.errors import UsageError

FTQ = "data/ftq/ftq_f10000_quiet_0.dat.gz"


def _multi():
    import glob

    for p in sorted(glob.glob("data/runners/**/*.json*", recursive=True)):
        if len(bandkit.load_all(p)) > 1:
            return p
    pytest.skip("no multi-benchmark runner file in data/")


def test_load_one_and_load_all():
    t = bandkit.load_one(FTQ)
    assert isinstance(t, bandkit.Trace)
    assert [x.path for x in bandkit.load_all(FTQ)] == [t.path]
    multi = _multi()
    ts = bandkit.load_all(multi)
    assert isinstance(ts, list) and len(ts) > 1
    with pytest.raises(UsageError, match=f"holds {len(ts)} traces"):
        bandkit.load_one(multi)


def test_reprs_are_short():
    rep = bandkit.analyze(bandkit.load_one(FTQ))
    for obj in (rep, rep.traces[0], *rep.traces[0].sections):
        assert len(repr(obj)) < 600, (type(obj).__name__, len(repr(obj)))
    assert "findings:" in repr(rep) and "Report of 1 trace" in repr(rep)
    assert len(rep.to_json()) > 10_000  # the data is in to_dict / to_json


def test_plots_export_their_functions():
    import bandkit.plots as plots

    assert "plot_trace" in plots.__all__ and "plot_fold" in plots.__all__
    for name in plots.__all__:
        assert callable(getattr(plots, name)), name
    with pytest.raises(AttributeError):
        plots.no_such_plot  # noqa: B018


def test_validate_report_without_jsonschema(monkeypatch):
    from bandkit.schema import validate_report

    monkeypatch.setitem(sys.modules, "jsonschema", None)  # import fails as if not installed
    with pytest.raises(UsageError, match="needs the 'jsonschema' package"):
        validate_report({"schema_version": 1})


def test_detect_changepoints_takes_a_trace_like_find_bands():
    """detect_changepoints(trace) raised TypeError while find_bands(trace) worked; a Trace gives the
    series the report's change-point section analyses (FTQ: 10 ms block means)."""
    from bandkit.changepoints import detect_changepoints
    from bandkit.changepoints.section import analyse_trace

    t = bandkit.load_one(FTQ)
    res = detect_changepoints(t)
    ref, block, x, _ = analyse_trace(t)
    assert block > 1 and res.n == x.size
    assert [c.index for c in res.changepoints] == [c.index for c in ref.changepoints]
    with pytest.raises(UsageError, match="times="):
        detect_changepoints(t, times=[0.0])
