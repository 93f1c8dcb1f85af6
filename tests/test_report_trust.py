"""Issue 15: the report a performance engineer trusts at a glance. One group of tests per point of the
issue (each failed before the work on it); the browser half of point 1 is in tests/test_browser.py."""
from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest

import bandkit
import report_cache as rc
from report_cache import DATA, FTQ_7777, FTQ_10000

R = DATA / "runners"
SPEED2020 = R / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"
TELCO = R / "pyperf-tests_telco.json.gz"
HYPERFINE = R / "3em_tools_benchmarks_results.json"
GBENCH = R / "bpfilter_005d041.json"
PYTEST_BENCH = R / "pytest-benchmark-tests_0001.json"
ASV = R / "pvlib_fff1131b-conda-py3.8.json"
QUIET = (DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz", DATA / "ftq" / "ftq_f7777_quiet_0.dat.gz")
FTQ2009 = DATA / "ftq-2009" / "llfree-ftq_t1" / "times.dat"

#: Files in data/ that are not inputs of `bandkit report` (each refused with one error line).
NOT_INPUTS = {
    "README.md": None, "LICENSE-CC-BY-4.0.txt": None,
    "baseline-ftq_meta.json": "no result format bandkit knows", "llfree-ftq_meta.json": "no result format bandkit knows",
    "virtio-balloon-ftq_meta.json": "no result format bandkit knows",  # the two-file runs' descriptions
    "ftq_f10000_intf100Hz_1ms.interferer_log.txt.gz": "no result format bandkit knows",  # ground truth of the interferer
    "ftq_f7777_intf100Hz_1ms.interferer_log.txt.gz": "no result format bandkit knows",
    "nile.json": "no result format bandkit knows", "annotations.json": "no result format bandkit knows",  # TCPD series (tests of change points)
    "pvlib_machine.json": "machine", "simple_insert_hecs_new_benchmark.json": "benchmark.json",  # siblings
}


def data_inputs() -> list[Path]:
    return sorted(p for p in DATA.rglob("*") if p.is_file() and p.name not in NOT_INPUTS)


def _lines_before_first_trace(text: str, report) -> str:
    first = next(i for i, line in enumerate(text.splitlines()) if line.startswith(report.traces[0].trace.label))
    return "\n".join(text.splitlines()[:first])


def _phrases(findings) -> list[str]:
    from bandkit.render.text import phrase

    return [p for p in (phrase(f) for f in findings) if p]


def _flat(text: str) -> str:
    return " ".join(text.split())


# -- 1. the headline says what the data says, in every renderer --------------------------------------
@pytest.mark.parametrize("paths", [(SPEED2020,), QUIET], ids=["shared_suspect", "two_rates"])
def test_1_cross_trace_verdict_heads_the_text_and_the_html(paths):
    """A finding across traces (shared suspect, two-rate interference) is the first thing the text says,
    in the same words as the HTML's verdict; the HTML never says 'nothing unusual' then."""
    report = rc.report(*paths)
    cross = [f for f in report.findings if f.get("trace") is None]
    assert any(f["severity"] == "warning" for f in cross)
    text = report.to_text()
    head = _flat(_lines_before_first_trace(text, report))
    html = rc.html(*paths)
    summary = html[html.index('<section class="summary">'):]
    summary = _flat(re.sub(r"<[^>]+>", " ", summary[: summary.index("</section>")]))
    for p in _phrases(cross):
        assert p in head, (p, head[:300])
        assert _flat(p).replace("&", "&amp;") in summary or p in summary
    assert "nothing unusual" not in summary.split("Across traces")[-1]


def test_1_inferred_fundamental_worded_alike_in_text_and_html():
    report = rc.report(*QUIET)
    (inferred,) = [f for f in report.findings if f["kind"] == "periodic_interference" and f["fundamental_inferred"]]
    (p,) = _phrases([inferred])
    assert "inferred from harmonics n ≥ 7" in p
    assert p in _flat(report.to_text()) and p in _flat(re.sub(r"<[^>]+>", " ", rc.html(*QUIET)))


# -- 2. the fleet heat-map shows what each bin holds ----------------------------------------------
def test_2_profile_of_a_coarse_trace_has_no_stripes():
    """2^28-tick quanta (0.128 s), 1,096 of them in 200 bins: 5 or 6 quanta per bin, each bin divided
    by what it holds (not by 5.48), so a steady trace is flat and never above 1."""
    from bandkit.fleet.rows import work_profile
    from bandkit.loaders.registry import load_traces

    (t,) = load_traces(FTQ2009, clock_hz=2.1e9)
    prof, width = work_profile(t)
    p = np.array([v for v in prof if v is not None])
    assert len(p) == 200 and width == pytest.approx(t.period * 1096 / 200, rel=0.01)
    assert p.max() <= 1.0 + 1e-9
    steady = p[1:]  # the first bin holds the short first quantum
    assert np.abs(np.diff(steady)).max() < 0.02  # was 0.18: 0.91 / 1.09 stripes
    from bandkit.summary import summarize_ftq

    assert np.average(p, weights=None) == pytest.approx(summarize_ftq(t).ftq_fraction, abs=2e-3)


def test_2_heatmap_never_clips_silently():
    import matplotlib

    matplotlib.use("Agg")
    from bandkit.fleet.report import build_report
    from bandkit.plots.fleet import plot_fleet_heatmap

    rows = [{"path": f"n{i}.dat", "label": f"n{i}.dat", "kind": "ftq", "time_unit": "s", "ftq_fraction": 0.9,
             "stall_share": 0.0, "stall_count": 0, "profile": [0.9, 1.2 if i == 0 else 0.95, 0.0 if i == 1 else 0.9],
             "profile_bin": 1.0} for i in range(5)]
    rep = build_report(rows)
    ax = plot_fleet_heatmap(rep)
    mesh = ax.collections[0]
    cbar = mesh.colorbar
    vmin, vmax = mesh.norm.vmin, mesh.norm.vmax
    assert vmax >= 1.2  # a cell above 1 is on the scale, not painted as 1
    if vmin > 0.0:  # the dead bin is below the scale: the colour bar says so
        assert cbar.extend in ("min", "both") and "below" in cbar.ax.get_ylabel()


# -- 3. the numbers people look for ------------------------------------------------------------------
_STATS = re.compile(r"(time|value): .*± .* \(mean ± sd\), median .*, min … max .* … ")


@pytest.mark.parametrize("path", [HYPERFINE, TELCO, SPEED2020], ids=["hyperfine", "pyperf", "pyperformance"])
def test_3_every_benchmark_shows_its_central_value(path):
    report = rc.report(path)
    text = report.to_text()
    blocks = text.split("\n\n")
    for tr in report.traces:
        block = next(b for b in blocks if _flat(b).startswith(tr.trace.label + " — "))
        assert _STATS.search(_flat(block)), block[:400]
        vs = tr.to_dict()["value_stats"]
        v = tr.trace.values
        assert vs["n"] == len(v) and vs["mean"] == pytest.approx(v.mean()) and vs["median"] == pytest.approx(
            np.median(v)) and vs["min"] == v.min() and vs["max"] == v.max()
        assert vs["stddev"] == pytest.approx(np.std(v, ddof=1))
    html = rc.html(path)
    assert html.count("(mean ± sd)") >= len(report.traces)


def test_3_hyperfine_numbers_match_the_file():
    doc = json.loads(HYPERFINE.read_text())
    report = rc.report(HYPERFINE)
    for res, tr in zip(doc["results"], report.traces):
        vs = tr.to_dict()["value_stats"]
        for k in ("mean", "median", "min", "max"):
            assert vs[k] == pytest.approx(res[k], rel=1e-9), k
        assert vs["stddev"] == pytest.approx(res["stddev"], rel=1e-9)


@pytest.mark.parametrize("path, n", [(PYTEST_BENCH, 1), (ASV, 37)], ids=["pytest-benchmark", "asv"])
def test_3_summary_only_files_show_their_statistics(path, n):
    report = rc.report(path)
    text = report.to_text()
    assert len(report.traces) == n
    for tr in report.traces:
        vs = tr.to_dict()["value_stats"]
        assert vs["source"] == "file" and (vs["mean"] is not None or vs["median"] is not None)
    stats = (report.traces[0].trace.meta.extra.get("summary_stats") or {})
    for k in ("mean", "stddev", "median", "min", "max"):
        if stats.get(k) is not None:
            assert report.traces[0].to_dict()["value_stats"][k] == pytest.approx(stats[k])
    if n == 1:
        assert re.search(r"the file states: mean [\d.]+ ns ± [\d.]+ ns \(sd\), median [\d.]+ ns, min–max", text), text
        assert "(mean ± sd)" not in text  # once, not twice
    else:  # one table, a row per benchmark, not 37 identical blocks; names cut at 100 columns stay apart
        assert text.count("summary statistics only") == 1
        wide = report.to_text(width=100_000)
        for tr in report.traces:
            assert tr.trace.label in wide
        rows = [line.split()[0] for line in text.splitlines() if line.startswith("    ") and "…" in line]
        assert len(set(rows)) == len(rows)


def test_3_too_few_runs_is_one_table_with_every_value():
    report = rc.report(GBENCH)
    text = report.to_text()
    assert len(report.traces) == 8
    assert text.count("too few runs to classify") == 1  # was 8 identical blocks
    doc = json.loads(GBENCH.read_text())
    for b in doc["benchmarks"]:
        row = next(line for line in text.splitlines() if line.strip().startswith(b["name"] + " "))
        assert re.search(r"\d", row)
    html = rc.html(GBENCH)
    assert html.count("too few runs to classify") <= 2  # the overview row and the table's heading


PTS = R / "ManuelJBrito_GVNO3_simdjson-201_composite.xml"


@pytest.mark.parametrize("width", [100, 60])
def test_3_a_group_of_other_units_keeps_its_names_and_puts_the_unit_in_a_column(width):
    """PTS throughputs: the unit went into every cell ("1.360 GB/s  ± 2.719e-16 GB/s ..."), which left
    8 columns for 90 names ("…FT Siz…" on every row of a real composite.xml); equal trials gave a
    float-noise sd."""
    text = rc.report(PTS).to_text(width=width)
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.rstrip().endswith("unit"))
    assert "e-1" not in text and "± 0 " in text + " "
    for name in ("simdjson: Throughput Test: PartialTweets", "simdjson: Throughput Test: DistinctUserID"):
        row = next(i for i, line in enumerate(lines) if line.strip().startswith(name))
        numbers = lines[row] if width == 100 else lines[row + 1]  # narrow: the name has a line of its own
        assert numbers.rstrip().endswith("GB/s") and numbers.count("GB/s") == 1 and row > head
    assert all(len(line) <= width or "/" in line for line in lines)
    equal = next(tr for tr in rc.report(PTS).traces if tr.trace.label.endswith("PartialTweets"))
    assert equal.to_dict()["value_stats"]["stddev"] == 0.0  # three trials of 1.36 GB/s


# -- 4. run numbers as pyperf's own tools show them -----------------------------------------------
def test_4_run_numbers_are_pyperf_dumps():
    """`pyperf dump` numbers runs by their position in the file, the calibration run counted: the
    slow runs of pickle_list are its runs 2-5 (runs[1..4] in the JSON)."""
    raw = json.loads(gzip.decompress(SPEED2020.read_bytes()))
    bench = next(b for b in raw["benchmarks"] if b["metadata"]["name"] == "pickle_list")
    means = {k + 1: np.mean(r["values"]) for k, r in enumerate(bench["runs"]) if r.get("values")}
    slow_by_dump = sorted(k for k, m in means.items() if m > 1.3 * np.median(list(means.values())))
    report = rc.report(SPEED2020)
    tr = next(t for t in report.traces if t.trace.label == "pickle_list")
    entry = tr.to_dict()
    assert sorted(entry["slow_runs"]) == slow_by_dump == [2, 3, 4, 5]
    assert "pyperf dump" in entry["postmortem"]["run_numbering"]
    text = report.to_text()
    block = next(b for b in text.split("\n\n") if b.startswith("pickle_list —"))  # the path may wrap
    assert "run numbers as in pyperf dump" in block and "step at run 6" in block


def test_4_a_change_inside_runs_is_mentioned(tmp_path):
    """Warm-up values slower than the measured ones (pyperf leaves them out): the report says so."""
    from bandkit.synthetic.pyperf import pyperf_step_suite, write_pyperf

    suite = pyperf_step_suite(n_runs=30, step_run=30, seed=1)
    for run in suite["benchmarks"][0]["runs"]:
        run["warmups"] = [[1, 1.6 * 20.3e-3]]
    p = write_pyperf(tmp_path / "w.json", suite)
    report = bandkit.report(str(p))
    w = report.traces[0].to_dict()["within_run"]
    assert w["warmups"] == 31 - 1 and w["warmup_ratio"] == pytest.approx(1.6, rel=0.03)
    assert "warm-ups ×1.6" in _flat(report.to_text())


# -- 5. text at 100 columns: nothing cut without "…", the verdict first ---------------------------
def _tokens(text: str) -> set[str]:
    return set(text.split())


def _input_names(report) -> set[str]:
    """Words of the strings that came from the input: paths, benchmark names, metadata names."""
    d = report.to_dict()
    names = set()
    for e in d["traces"]:
        names.update(str(e.get("path") or "").split())
        names.update(str(e.get("name") or "").split())
        names.update(s["metadata"] for s in e.get("suspects") or [])
    names.update(s["metadata"] for s in (d.get("runner_summary") or {}).get("shared_suspects") or [])
    return {n for n in names if len(n) >= 6 and re.search(r"[^A-Za-z]", n)}


def _check_no_cut(narrow: str, wide: str, names: set[str], width: int = 100, every_name: set[str] = frozenset()) -> None:
    """No line of ``narrow`` is wider than ``width`` (but for a single word), no token of it is cut
    without "…" (each is a token of ``wide``, table rules aside), and no name is shown cut (a token
    that is the start of a longer name of ``names`` and not itself a name of ``every_name``)."""
    wide_tokens = _tokens(wide)
    for line in narrow.splitlines():
        assert len(line) <= width or len(line.split()) == 1, line
        for tok in line.split():
            if "…" in tok or set(tok) == {"-"}:  # table rules follow the column widths
                continue
            assert tok in wide_tokens, f"{tok!r} is cut: {line!r}"
            if tok in names or tok in every_name:
                continue
            bare = tok.strip(",;:()[]'\"")
            assert bare in names or bare in every_name or not any(
                n.startswith(bare) and n != bare for n in names if len(bare) >= 6), f"{bare!r} is a cut name: {line!r}"


@pytest.mark.parametrize("path", data_inputs(), ids=lambda p: str(p.relative_to(DATA)))
def test_5_every_data_file_renders_at_100_columns_without_a_silent_cut(path):
    report = rc.report(path)
    narrow = report.to_text(width=100)
    wide = report.to_text(width=100_000)
    _check_no_cut(narrow, wide, _input_names(report), every_name={e.get("name") for e in report.to_dict()["traces"]})
    # and the verdict of every trace is in it, whole
    for tr in report.traces:
        for p in _phrases(tr.findings):
            assert _flat(p) in _flat(narrow) or tr.findings[0]["kind"] in ("too_few_runs", "no_per_run_data")


@pytest.mark.parametrize("name", sorted(NOT_INPUTS))
def test_5_other_data_files_are_refused_in_one_line(name):
    if NOT_INPUTS[name] is None:
        return
    (path,) = [p for p in DATA.rglob(name)]
    with pytest.raises(bandkit.InputError, match=NOT_INPUTS[name]):
        bandkit.report(str(path))


def test_5_stall_share_is_not_read_as_the_longest_stall():
    text = rc.report(FTQ_10000).to_text()
    assert not re.search(r"longest [\d.]+ [mµn]?s \([\d.]+ % of the time\)", text)
    assert re.search(r"[\d,]+ stalls, [\d.]+ % of the time in all; longest [\d.]+ [mµ]?s", _flat(text))


def test_5_shortened_names_stay_distinct():
    from bandkit.render.textutil import shorten_distinct

    names = [f"rack{r}/node-{n:03d}-with-a-long-common-tail-of-words.dat" for r in (1, 2) for n in range(3)]
    short = shorten_distinct(names, 24)
    assert len(set(short)) == len(names) and all(len(s) <= 24 and "…" in s for s in short)
    # the fleet table uses it
    from bandkit.fleet.report import build_report
    from bandkit.render.text_fleet import fleet_rows

    rows = [{"path": n, "label": n, "kind": "ftq", "time_unit": "s", "ftq_fraction": 0.9 - 0.01 * i,
             "stall_share": 0.0, "stall_count": 0, "profile": [], "profile_bin": None} for i, n in enumerate(names)]
    _, cells = fleet_rows(build_report(rows), label_width=20)
    assert len({c[1] for c in cells}) == len(names)


def test_5_compare_text_cuts_nothing_silently():
    from bandkit.compare import compare_files
    from bandkit.render.text_runners import compare_text

    cmp = compare_files(str(R / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz"), str(SPEED2020))
    narrow, wide = compare_text(cmp, width=100), compare_text(cmp, width=100_000)
    names = {b.name for b in cmp.benchmarks if len(b.name) >= 6 and re.search(r"[^A-Za-z]", b.name)}
    _check_no_cut(narrow, wide, names, every_name={b.name for b in cmp.benchmarks})
    assert any("noisy" in line for line in narrow.splitlines())


# -- 6. plots: units, no overlapping labels, the folded picture ----------------------------------
def test_6_time_axes_have_units_not_offsets():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bandkit.plots.runs import plot_runs

    from bandkit.loaders.registry import load_traces

    (t,) = load_traces(TELCO)
    fig, ax = plt.subplots()
    plot_runs(t, ax=ax)
    fig.canvas.draw()
    assert ax.get_ylabel() == "value (ms)"
    assert ax.yaxis.get_offset_text().get_text() == ""
    labels = [x.get_text() for x in ax.get_yticklabels() if x.get_text()]
    assert labels and all(20 < float(x.replace("−", "-")) < 25 for x in labels), labels  # 22.5 ms, not 0.0225
    plt.close(fig)


def test_6_two_rate_plot_labels_do_not_overlap():
    import matplotlib

    matplotlib.use("Agg")
    from bandkit.plots.spectrum import plot_rates
    from bandkit.render.html_kit import new_figure

    comp = rc.report(FTQ_10000, FTQ_7777).cross_section("interference").result
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = new_figure(height=3.8)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    plot_rates(comp, ax=ax)
    canvas.draw()
    r = canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in ax.texts + [ax.xaxis.label, ax.yaxis.label]]
    if ax.get_legend() is not None:
        boxes.append(ax.get_legend().get_window_extent(r))
    boxes += [t.get_window_extent(r) for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)
    legend = ax.get_legend()
    assert legend is not None and not legend.get_window_extent(r).overlaps(ax.get_window_extent(r))
    texts = " ".join(t.get_text() for t in legend.get_texts())
    for e in comp.external:
        assert f"{e.freq_hz:.2f}" in texts


def test_6_html_shows_the_folded_plot_of_the_top_external_source():
    html = rc.html(FTQ_10000, FTQ_7777)
    report = rc.report(FTQ_10000, FTQ_7777)
    top = report.cross_section("interference").result.external[0]
    m = re.search(r'<img src="data:image/png;base64,[^"]+" alt="The traces folded at ([\d.,]+) Hz', html)
    assert m and float(m.group(1).replace(",", "")) == pytest.approx(top.freq_hz, abs=1e-3)
    assert html.index("folded at") > html.index("Periodic interference")


# -- 7. CLI paper cuts ------------------------------------------------------------------------------
def test_7_unknown_format_error_names_the_input_flag(tmp_path, capsys):
    from bandkit.cli import main

    p = tmp_path / "x.json"
    p.write_text('{"hello": 1}')
    assert main(["report", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--input-format" in err and "use --format" not in err


def test_7_fail_on_takes_every_kind_the_readme_lists(capsys):
    from bandkit.cli import main
    from bandkit.findings import FINDING_KINDS

    readme = (DATA.parent / "README.md").read_text()
    kinds_table = readme[readme.index("| kind | section | severity | `--fail-on` |"):].split("\n\n")[0]
    listed = re.findall(r"^\| `([a-z_]+)` \|", kinds_table, flags=re.M)
    assert set(listed) >= set(FINDING_KINDS)
    from bandkit.cli import _fail_on

    assert _fail_on(",".join(listed)) == frozenset(listed)  # every kind of the table (was: only the five groups)
    # an info kind named by itself catches too: the hyperfine file's benchmarks are stable_runs
    assert main(["report", str(HYPERFINE), "--fail-on", ",".join(listed), "-o", "/dev/null", "-q"]) == 1
    assert main(["report", str(HYPERFINE), "--fail-on", "stable_runs", "-o", "/dev/null", "-q"]) == 1
    assert main(["report", str(HYPERFINE), "--fail-on", "bands,step", "-o", "/dev/null", "-q"]) == 0
    assert main(["report", str(SPEED2020), "--fail-on", "bimodal", "-q", "-f", "json", "-o", "/dev/null"]) == 1
    assert main(["report", str(SPEED2020), "--fail-on", "shared_suspect", "-q", "-f", "json", "-o", "/dev/null"]) == 1
    assert main(["report", str(SPEED2020), "--fail-on", "warning", "-q", "-f", "json", "-o", "/dev/null"]) == 1
    assert main(["report", str(HYPERFINE), "--fail-on", "warning", "-q", "-f", "json", "-o", "/dev/null"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as ei:
        main(["report", str(HYPERFINE), "--fail-on", "bimodl"])
    assert ei.value.code == 2
    assert "unknown finding kind(s) bimodl" in capsys.readouterr().err


def test_7_compare_has_html_and_progress(tmp_path, monkeypatch):
    from bandkit.cli import main
    from bandkit.compare import compare_files

    out = tmp_path / "cmp.html"  # the CLI writes the page (small files: compare's speed is not tested here)
    assert main(["compare", str(TELCO), str(TELCO), "--format", "html", "-o", str(out), "-q"]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>") and "telco" in out.read_text()
    a, b = R / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz", SPEED2020
    seen = []

    def progress(it):
        items = list(it)
        seen.append(len(items))
        return items

    cmp = compare_files(str(a), str(b), progress=progress)
    assert seen == [len(cmp.benchmarks) + len(cmp.skipped)]
    page = cmp.to_html()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert cmp._repr_html_().startswith('<div class="bk">')  # the notebook view
    assert page.count('<img src="data:image/png;base64,') == 1
    text = _flat(cmp.to_text(width=100_000))
    flat_page = _flat(re.sub(r"<[^>]+>", " ", page)).replace("&amp;", "&")
    for c in cmp.benchmarks:  # every benchmark with its ratio, as in the text
        assert c.name in flat_page and f"{c.ratio:.3f}" in flat_page
    geo = re.search(r"geometric mean of B/A over \d+ benchmarks: [\d.]+ \([\d.–]+\)", text).group(0)
    assert geo in flat_page


def test_7_both_files_of_a_two_file_run_are_one_run(capsys):
    from bandkit.cli import main

    times, counts = FTQ2009, FTQ2009.with_name("counts.dat")
    assert len(bandkit.report(str(times), str(counts)).traces) == 1
    assert len(bandkit.report(str(counts), str(times)).traces) == 1
    assert main(["report", str(times), str(counts), "-q", "-f", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["traces"]) == 1


def test_5_a_long_list_of_runs_keeps_its_count():
    """The band table's run list was cut by the table ("46-49, ……"), losing "(76 runs)"."""
    from bandkit.render.text_runners import fmt_runs

    runs = [r for r in range(1, 101) if r % 3]
    text = fmt_runs(runs, width=40)
    assert len(text) <= 40 and text.endswith(f"… ({len(runs)} runs)")
    assert fmt_runs([1, 2, 3, 7], width=40) == "1-3, 7"


def test_runs_that_pair_up_show_their_spread_beside_the_neighbour_noise():
    """Real speedpython 2020 'go': 4 outlier runs, noise 0.71 % between neighbouring runs while the runs
    spread 2.0 % (robust sd): the text and the HTML name both (JSON postmortem.spread_rel), so a small
    noise number does not read as 'the runs agree to 0.7 %'. A plain stable benchmark whose spread is the
    noise does not get the note."""
    rep = rc.report(SPEED2020)
    by = {tr.trace.label: tr for tr in rep.traces}
    go = by["go"].section("postmortem").fields
    assert go["postmortem"]["spread_rel"] > 2 * go["postmortem"]["noise_rel"]
    from bandkit.render.text_runners import spread_note

    assert "the runs spread 2.04 % (robust sd)" in spread_note(go)
    assert "runs spread" in _flat(rep.to_text(width=100))
    flt = by["float"].section("postmortem").fields
    assert flt["verdict"] == "stable" and spread_note(flt) == ""
    assert "robust sd of all runs" in rep.to_html()
