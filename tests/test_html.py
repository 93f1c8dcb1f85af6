"""HTML report: self-contained, escaped, same verdicts as the text report, plots embedded."""
from __future__ import annotations

import base64
import io
import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import bandkit
from bandkit.analyze import SectionResult, TraceReport
from bandkit.render import html as H
from bandkit.trace import Trace, TraceMeta

# a section whose HTML fails is shown as an error box *and* warned about: in tests that is a failure
pytestmark = pytest.mark.filterwarnings("error:bandkit HTML")

import report_cache as rc
from report_cache import FTQ_7777, FTQ_10000, pyperf_files

EVIL = "<script>alert(1)</script>"


VOID = {"meta", "img", "br", "hr", "input", "link", "source", "wbr"}


class Doc(HTMLParser):
    """Collects tags, attributes and text of an HTML document; records mis-nested end tags."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.style: list[str] = []
        self.open: list[str] = []
        self.misnested: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False
        if self.open and self.open[-1] == tag:
            self.open.pop()
        else:
            self.misnested.append(tag)

    def handle_data(self, data):
        (self.style if self._in_style else self.text).append(data)


def parse(html: str) -> Doc:
    d = Doc()
    d.feed(html)
    d.close()
    return d


def assert_self_contained(html: str) -> Doc:
    """Well nested; no scripts, no event handlers, no URL that would cause a network request."""
    d = parse(html)
    assert d.misnested == [] and d.open == [], (d.misnested[:5], d.open[-5:])
    names = [t for t, _ in d.tags]
    assert "script" not in names and "iframe" not in names and "object" not in names and "link" not in names
    for tag, attrs in d.tags:
        for k, v in attrs.items():
            assert not k.startswith("on"), (tag, k, v)
            if k in ("src", "href", "srcset", "action", "poster", "data"):
                assert v is not None
                assert v.startswith("data:image/png;base64,") or v.startswith("#"), (tag, k, v[:80])
    css = "".join(d.style)
    assert "url(" not in css and "@import" not in css and "@font-face" not in css
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    return d


@pytest.fixture(scope="module")
def ftq_pair_report():
    return rc.report(FTQ_10000, FTQ_7777)


@pytest.fixture(scope="module")
def ftq_pair_html(ftq_pair_report):
    return rc.html(FTQ_10000, FTQ_7777)


def _runner_trace(name: str, path: str = "crafted.json", n_runs: int = 6, seed: int = 0) -> Trace:
    rng = np.random.default_rng(seed)
    run = np.repeat(np.arange(1, n_runs + 1), 5)
    value = 0.010 + 0.001 * (run > n_runs // 2) + rng.normal(0, 1e-5, len(run))
    df = pd.DataFrame({"time": np.nan, "value": value, "run": run,
                       "hostname": ["<b>host</b>" if r % 2 else "h&2" for r in run]})
    meta = TraceMeta(path=path, format="pyperf", kind="runner", name=name, value_unit="s",
                     extra={"note": "<img src=x onerror=alert(2)>"})
    return Trace(df, meta)


# -- document structure ---------------------------------------------------------------------
def test_document_shell(ftq_pair_html):
    h = ftq_pair_html
    assert h.startswith("<!DOCTYPE html>")
    assert '<meta charset="utf-8">' in h
    assert 'name="viewport"' in h and "width=device-width" in h
    assert "Content-Security-Policy" in h and "default-src 'none'" in h
    assert "max-width:100%" in h  # images scale on a phone


def test_self_contained(ftq_pair_html):
    d = assert_self_contained(ftq_pair_html)
    imgs = [a for t, a in d.tags if t == "img"]
    assert len(imgs) >= 2, "one raw plot per trace at least"
    assert all(a.get("alt") for a in imgs), "every plot has alt text"


def test_sections_present(ftq_pair_report, ftq_pair_html):
    d = parse(ftq_pair_html)
    ids = [a.get("id") for t, a in d.tags if a.get("id")]
    assert ids[:2] == ["trace-0", "trace-1"]
    # the overview links to each trace section
    hrefs = [a["href"] for t, a in d.tags if t == "a" and "href" in a]
    assert "#trace-0" in hrefs and "#trace-1" in hrefs
    text = " ".join(d.text)
    for tr in ftq_pair_report.traces:
        assert tr.trace.path in text
        for s in tr.sections:
            assert f"sec-{s.name}" in ftq_pair_html, s.name
    assert "Summary" in text and "FTQ fraction" in text
    # the summary table's figures are the analysis' figures
    s0 = ftq_pair_report.traces[0].section("summary").fields
    assert f"{s0['samples']:,}" in text and f"{s0['stalls']['count']:,}" in text


def test_verdicts_match_text_report(ftq_pair_report, ftq_pair_html):
    """The HTML shows, at the top, exactly the verdict phrases of the text report."""
    txt = ftq_pair_report.to_text()
    verdicts = [l.split("verdict:", 1)[1].strip() for l in txt.splitlines() if l.strip().startswith("verdict:")]
    assert len(verdicts) == 2
    d = parse(ftq_pair_html)
    text = "".join(d.text)
    top = text[: text.index(ftq_pair_report.traces[0].trace.path + " —")]  # before the first trace section
    for v in verdicts:
        assert v in top
    assert "of the time in all; longest" in top


def test_plots_are_real_pngs(ftq_pair_html):
    from matplotlib.image import imread

    srcs = re.findall(r'src="data:image/png;base64,([^"]+)"', ftq_pair_html)
    assert srcs
    img = imread(io.BytesIO(base64.b64decode(srcs[0])), format="png")
    assert img.shape[0] > 200 and img.shape[1] > 600
    rgb = img[..., :3]
    blue = (rgb[..., 2] > 0.5) & (rgb[..., 0] < 0.4)  # the scatter's points
    assert blue.mean() > 0.01
    assert (rgb.min(axis=2) > 0.95).mean() > 0.3  # and white background


def test_html_deterministic(ftq_pair_report, ftq_pair_html):
    assert ftq_pair_report.to_html() == ftq_pair_html


# -- escaping ---------------------------------------------------------------------------------
def test_crafted_name_is_text():
    tr = _runner_trace(EVIL, path='evil"<path>.json')
    rep = bandkit.analyze([tr])
    h = rep.to_html()
    assert "<script" not in h.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in h
    assert "evil&quot;&lt;path&gt;.json" in h
    d = assert_self_contained(h)
    assert EVIL in "".join(d.text)  # shown to the reader as text
    assert ("title", {}) in d.tags and EVIL in h.replace("&lt;", "<").replace("&gt;", ">")


def test_crafted_pyperf_file(tmp_path):
    """A pyperf JSON whose benchmark name and metadata are HTML renders them as text."""
    runs = [{"metadata": {"date": f"2024-01-01T00:00:0{i}", "hostname": "<i>h</i>"},
             "values": [0.01 + 0.001 * i, 0.0101 + 0.001 * i, 0.0102 + 0.001 * i]} for i in range(4)]
    doc = {"version": "1.0", "metadata": {"description": "<svg onload=alert(3)>"},
           "benchmarks": [{"metadata": {"name": EVIL, "unit": "second", "loops": 1}, "runs": runs}]}
    p = tmp_path / "evil.json"
    p.write_text(json.dumps(doc))
    traces = bandkit.load(str(p))
    traces = traces if isinstance(traces, list) else [traces]
    assert traces[0].label == EVIL
    h = bandkit.analyze(traces).to_html()
    low = h.lower()
    assert "<script" not in low and "<svg" not in low and "<i>h</i>" not in h
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in h
    assert_self_contained(h)


def test_crafted_csv_file(tmp_path):
    p = tmp_path / "results.csv"
    p.write_text("name,value\n" + "".join(f'"{EVIL}",{0.01 + i * 1e-4}\n' for i in range(10)))
    traces = bandkit.load(str(p))
    traces = traces if isinstance(traces, list) else [traces]
    h = bandkit.analyze(traces).to_html()
    assert "<script" not in h.lower() and "&lt;script&gt;alert(1)&lt;/script&gt;" in h


def test_table_and_verdict_escaping(monkeypatch):
    """Findings' phrases (which may quote input strings) are escaped too."""
    from bandkit.findings import FINDING_KINDS, FindingKind
    from bandkit.section import SECTIONS, Section

    def section(trace, options):
        return SectionResult("evil", {"x": EVIL}, None, [{"kind": "evil_kind", "severity": "warning", "s": EVIL}])

    tr = _runner_trace("bench")
    rep = bandkit.analyze([tr])
    rep = type(rep)((TraceReport(tr, 0, (section(tr, None),)),))
    monkeypatch.setitem(FINDING_KINDS, "evil_kind", FindingKind("evil_kind", "evil", ("warning",),
                                                                f"{__name__}:_evil_phrase", ("s",), "test"))
    monkeypatch.setitem(SECTIONS, "evil", Section("evil", f"{__name__}:section", text=f"{__name__}:_evil_lines"))
    h = rep.to_html()
    assert "<script" not in h.lower()
    assert h.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3  # verdict (overview + trace) and table


def _evil_phrase(f):
    return "phrase " + f["s"]


def _evil_lines(section):
    return ["  x  " + section.fields["x"]]


def test_table_html_escapes():
    out = H.table_html([[EVIL, "<b>"]], header=["<h>", "v"])
    assert "<script" not in out and "&lt;b&gt;" in out and "&lt;h&gt;" in out


# -- real pyperf results ---------------------------------------------------------------------
@pytest.mark.skipif(not pyperf_files(), reason="no pyperf file under data/")
def test_pyperf_report_html():
    p = pyperf_files()[0]
    rep = rc.report(p)
    h = rc.html(p)
    d = assert_self_contained(h)
    text = " ".join(d.text)
    for tr in rep.traces:
        assert tr.trace.label in text
    assert len(re.findall(r"<img ", h)) >= len(rep.traces)


# -- robustness and notebook views ------------------------------------------------------------
def test_failing_section_is_shown_not_fatal(monkeypatch):
    rep = rc.report(rc.FTQ_2009)
    import dataclasses

    from bandkit.section import SECTIONS

    monkeypatch.setitem(SECTIONS, "summary", dataclasses.replace(SECTIONS["summary"], html=f"{__name__}:_boom"))
    with pytest.warns(RuntimeWarning, match="boom"):
        h = H.trace_report_html(rep.traces[0])
    assert 'class="err"' in h and "RuntimeError: boom" in h
    assert "sec-changepoints" in h and "<img " in h  # the rest of the trace's report is still there


def _boom(section, tr):
    raise RuntimeError("boom")


def test_repr_html_fragments():
    rep = rc.report(rc.FTQ_2009)  # small: the point is the equality of the two renderings
    frag = rep._repr_html_()
    assert "<html" not in frag and "Content-Security-Policy" not in frag  # safe inside JupyterLab
    assert frag.startswith('<div class="bk"><style>')
    assert frag in rc.html(rc.FTQ_2009)  # the notebook shows exactly what the HTML file shows
    t = rep.traces[0]._repr_html_()
    assert t.startswith('<div class="bk">') and "llfree-ftq_t1" in t and "<img " in t
    title = H.esc(H.trace_title(rep.traces[0]))
    assert f"<h2>{title}</h2>" in t and f"<h2>{title}</h2>" in frag
    assert_self_contained(frag)


def test_trace_repr_html():
    tr = _runner_trace(EVIL)
    h = tr._repr_html_()
    assert "<script" not in h.lower() and "&lt;script&gt;" in h
    assert "<img " in h and "runs" in h
    ftq = rc.report(FTQ_7777).traces[0].trace
    h = ftq._repr_html_()
    assert "stalls" in h and "catch-up rows" in h and "<img " in h
    assert_self_contained(h)


class _Res:
    def to_dict(self):
        return {"n": 2, "level": 1.5, "nested": {"a": None}, "items": [1, 2], "s": EVIL}

    def plot(self, ax=None):
        ax.plot([0, 1], [1, 0])
        return ax


def test_result_html_through_the_display_hook():
    from bandkit.display import DisplayMixin
    from bandkit.render.notebook import result_html

    class R(_Res, DisplayMixin):
        pass

    h = R()._repr_html_()
    assert h == result_html(R())
    assert "nested.a" in h and "[2 items]" in h and "&lt;script&gt;" in h and "<img " in h


def test_cli_html(tmp_path):
    from bandkit.cli import main

    out = tmp_path / "report.html"
    assert main(["report", str(rc.FTQ_2009), "--format", "html", "-o", str(out), "--quiet"]) == 0
    h = out.read_text(encoding="utf-8")
    assert h.startswith("<!DOCTYPE html>") and "llfree-ftq_t1" in h and "<img " in h
    assert_self_contained(h)


# -- CI gating: --fail-on ------------------------------------------------------------------------
def test_fail_on_interference():
    """The two-rate pair has external interference (exit 1); one trace alone cannot show it (exit 0)."""
    from bandkit.cli import exit_status

    pair = rc.report(FTQ_10000, FTQ_7777)
    assert any(f["kind"] == "periodic_interference" for f in pair.findings)
    assert exit_status(pair, frozenset({"interference"})) == 1
    assert exit_status(pair, None) == 0
    assert exit_status(rc.report(FTQ_7777), frozenset({"interference"})) == 0


def test_fail_on_step(tmp_path):
    """A pyperf benchmark whose runs get 30 % slower half-way: --fail-on step exits 1; a stable one 0."""
    from bandkit.cli import main

    rng = np.random.default_rng(7)

    def write(name, jump):
        runs = [{"metadata": {"date": f"2024-01-01T00:{i // 60:02d}:{i % 60:02d}"},
                 "values": list(0.010 * (1 + jump * (i >= 20)) * (1 + rng.normal(0, 0.002, 3)))} for i in range(40)]
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps({"version": "1.0", "metadata": {}, "benchmarks": [
            {"metadata": {"name": name, "unit": "second", "loops": 1}, "runs": runs}]}))
        return str(p)

    stepped, stable = write("stepped", 0.3), write("stable", 0.0)
    out = str(tmp_path / "o.txt")
    assert main(["report", stepped, "-q", "-o", out, "--fail-on", "step"]) == 1
    assert main(["report", stable, "-q", "-o", out, "--fail-on", "step"]) == 0
    assert main(["report", stepped, "-q", "-o", out]) == 0  # no gating without --fail-on


def test_many_traces_plot_only_warnings(monkeypatch):
    """Over PLOT_ALL_TRACES_UP_TO traces, only traces with a warning get plots; all keep their verdict."""
    rng = np.random.default_rng(3)

    def trace(i, step):
        run = np.repeat(np.arange(1, 31), 3)
        v = 0.01 * (1 + (0.3 if step else 0.0) * (run > 15)) * (1 + rng.normal(0, 0.002, len(run)))
        return Trace(pd.DataFrame({"time": np.nan, "value": v, "run": run}),
                     TraceMeta(path="many.json", format="pyperf", kind="runner", name=f"b{i}", value_unit="s"))

    traces = [trace(i, step=(i == 4)) for i in range(8)]
    rep = bandkit.analyze(traces)
    warned = [tr.index for tr in rep.traces if any(f["severity"] == "warning" for f in tr.findings)]
    assert warned == [4]
    monkeypatch.setattr(H, "PLOT_ALL_TRACES_UP_TO", 5)
    h = rep.to_html()
    sections = h.split('<section class="trace"')[1:]
    assert len(sections) == 8
    assert ["<img " in s for s in sections] == [i == 4 for i in range(8)]
    assert h.count("Plots left out") == 7
    monkeypatch.setattr(H, "PLOT_ALL_TRACES_UP_TO", 8)
    assert rep.to_html().count("<img ") >= 8


def test_analysis_results_display_in_notebooks(ftq_pair_report):
    """Band, change-point, spectrum, rate-comparison and post-mortem results show a table and a plot."""
    results = [ftq_pair_report.traces[0].result(n) for n in ("bands", "spectrum", "changepoints")]
    results.append(ftq_pair_report.cross_section("interference").result)
    if pyperf_files():
        results.append(rc.report(pyperf_files()[0]).traces[0].result("postmortem"))
    results = [r for r in results if r is not None]
    assert len(results) >= 4
    for r in results:
        h = r._repr_html_()
        assert h.startswith('<div class="bk">'), type(r)
        assert f"<h3>{type(r).__name__}</h3>" in h
        assert "<table>" in h and "<img " in h and 'class="err"' not in h, type(r).__name__


def test_html_draws_the_series_the_analysis_saw(monkeypatch):
    """Renderers only draw: the bands and step-change figures use SectionResult.series, and computing run
    means or block means again in the renderer would fail here."""
    import bandkit.bands.api
    import bandkit.changepoints.section
    from bandkit.render.html_sections import bands_html, changepoints_html

    rng = np.random.default_rng(4)
    run = np.repeat(np.arange(1, 41), 3)
    v = np.where(run % 7 == 0, 1.3, 1.0) + rng.normal(0, 0.005, run.size)
    runner = Trace(pd.DataFrame({"time": np.nan, "value": v, "run": run}),
                   TraceMeta(path="r.json", format="pyperf", kind="runner", name="b", value_unit="s"))
    from bandkit.section import AnalysisOptions
    from bandkit.bands.section import section as bands_section

    bsec = bands_section(runner, AnalysisOptions())
    assert bsec.series.what == "run_means" and len(bsec.series.values) == 40
    tr = bandkit.analyze([_ftq_series()]).traces[0]
    csec = tr.section("changepoints")
    assert csec.series.what == "block_means" and csec.series.block > 1

    def boom(*a, **k):
        raise AssertionError("a renderer computed what the analysis had")

    monkeypatch.setattr(bandkit.bands.api, "run_means", boom)
    import bandkit.changepoints.traceseries

    monkeypatch.setattr(bandkit.changepoints.traceseries, "aggregate", boom)  # where block means are made
    rtr = type(tr)(runner, 0, (bsec,))
    assert "<img " in bands_html(bsec, rtr)
    assert "<img " in changepoints_html(csec, tr)


def _ftq_series() -> Trace:
    from bandkit.synthetic.ftq import generate_ftq

    g = generate_ftq(60_000, levels=(1338.0, 1200.0), seed=5)
    return Trace(pd.DataFrame({"time": g.time_ns * 1e-9, "value": g.count, "catchup": g.catchup}),
                 TraceMeta(path="s.dat", format="ftq", sampling_hz=g.freq_hz))


# -- stop 26: what the runner HTML claims ----------------------------------------------------
def test_too_few_runs_claim_no_noise_estimate():
    """3 runs are not classified: no noise is estimated, so the JSON's ``noise_rel`` is null (was 0.0)
    and the HTML has no "noise per run 0.00 %" row beside a 28 % spread."""
    t = _runner_trace("three", n_runs=3)
    rep = bandkit.analyze(t)
    pm = rep.traces[0].section("postmortem")
    assert pm.fields["verdict"] == "too_few_runs"
    assert pm.fields["postmortem"]["noise_rel"] is None
    assert "noise per run" not in rep.to_html()
    six = bandkit.analyze(_runner_trace("six", n_runs=6))
    assert six.traces[0].section("postmortem").fields["postmortem"]["noise_rel"] > 0
    assert "noise per run" in six.to_html()


def test_overview_tells_apart_the_same_benchmark_in_two_files():
    rep = bandkit.analyze([_runner_trace("bench", path="/x/amd.json"), _runner_trace("bench", path="/y/arm.json"),
                           _runner_trace("other", path="/y/arm.json")])
    links = [a for a in re.findall(r'href="#trace-\d+">([^<]*)', rep.to_html())]
    assert links[:3] == ["bench (amd.json)", "bench (arm.json)", "other"]


def test_run_axis_has_whole_run_numbers():
    import matplotlib
    matplotlib.use("Agg")
    from bandkit.plots import plot_runs

    ax = plot_runs(_runner_trace("three", n_runs=3))
    ax.figure.canvas.draw()
    ticks = [x for x in ax.get_xticks() if ax.get_xlim()[0] <= x <= ax.get_xlim()[1]]
    assert ticks and all(float(x).is_integer() for x in ticks)
