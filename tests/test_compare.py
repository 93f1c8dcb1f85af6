"""A/B comparison (bandkit.compare and `bandkit compare`)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import bandkit
from bandkit.cli import main
from bandkit.compare import compare, compare_files
from bandkit.errors import UsageError

R = Path(__file__).resolve().parent.parent / "data" / "runners"


def _suite(levels_by_bench: dict[str, list[float]], seed: int, rel: float = 0.01) -> dict:
    rng = np.random.default_rng(seed)
    benches = []
    for name, levels in levels_by_bench.items():
        runs = [{"metadata": {"calibrate_loops": 1}, "warmups": [[1, levels[0]]]}]
        for lv in levels:
            runs.append({"metadata": {"load_avg_1min": float(rng.uniform(0.5, 1.0))},
                         "values": (lv * (1 + rel * rng.standard_normal(3))).tolist()})
        benches.append({"metadata": {"name": name}, "runs": runs})
    return {"version": "1.0", "metadata": {"unit": "second"}, "benchmarks": benches}


@pytest.fixture
def ab(tmp_path):
    a = {"faster": [1.0] * 20, "same": [2.0] * 20, "glitchy": [1.0] * 20, "only_a": [1.0] * 5}
    b = {"faster": [0.8] * 20, "same": [2.0] * 20, "glitchy": [1.0] * 8 + [1.5] * 4 + [1.0] * 8, "only_b": [1.0] * 5}
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(_suite(a, 1)))
    pb.write_text(json.dumps(_suite(b, 2)))
    return pa, pb


def test_compare_generated(ab):
    cmp = compare_files(*ab)
    by = {c.name: c for c in cmp.benchmarks}
    assert set(by) == {"faster", "same", "glitchy"}
    assert cmp.only_a == ("only_a",) and cmp.only_b == ("only_b",)
    f = by["faster"]
    assert f.ratio == pytest.approx(0.8, rel=0.01) and f.ci_low < 0.8 < f.ci_high and f.significant
    assert not f.noisy and f.runs_a == 20 and f.runs_b == 20
    s = by["same"]
    assert s.ci_low < 1.0 < s.ci_high and not s.significant and not s.noisy
    g = by["glitchy"]
    # runs 9-12 at 1.5x between runs at 1.0: a slow episode that came back (issue 12), still noisy
    assert g.noisy and "B episode" in g.noisy_reasons and g.verdict_b == "episode"
    expected_gm = float(np.exp(np.mean(np.log([f.ratio, s.ratio, g.ratio]))))
    assert cmp.geomean == pytest.approx(expected_gm)
    assert cmp.geomean_clean == pytest.approx(float(np.sqrt(f.ratio * s.ratio)))
    assert cmp.geomean_ci[0] < cmp.geomean < cmp.geomean_ci[1]
    d = cmp.to_dict()
    json.dumps(d, allow_nan=False)
    # glitchy: its mean really differs (4 of 20 runs at 1.5x), so significant - and flagged noisy
    assert g.significant and d["n_compared"] == 3 and d["n_significant"] == 2 and d["n_noisy"] == 1


def test_compare_is_seeded(ab):
    c1, c2 = compare_files(*ab, seed=4), compare_files(*ab, seed=4)
    assert c1.to_dict() == c2.to_dict()


def test_compare_real_files():
    a = bandkit.load(R / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz")
    b = bandkit.load(R / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz")
    cmp = compare(a, b)
    by = {c.name: c for c in cmp.benchmarks}
    assert len(by) == 59 and "pyflate" in cmp.only_b and "html5lib" in cmp.only_a
    # sympy_sum: 197 ms -> 390 ms, clean on both sides
    assert by["sympy_sum"].ratio == pytest.approx(1.976, abs=0.01) and by["sympy_sum"].significant
    assert by["pickle_list"].noisy and "B step" in by["pickle_list"].noisy_reasons


def test_compare_summary_only_from_statistics_and_rejects_bad_confidence(tmp_path):
    p = R / "pytest-benchmark-tests_0001.json"
    cmp = compare_files(p, p)
    (c,) = cmp.benchmarks
    assert c.method == "welch-stats" and c.ratio == 1.0 and not c.significant and c.p_value == pytest.approx(1.0)
    with pytest.raises(UsageError):
        compare_files(p, p, confidence=1.5)


def test_cli_compare_text_and_json(ab, tmp_path, capsys):
    pa, pb = ab
    assert main(["compare", str(pa), str(pb)]) == 0
    out = capsys.readouterr().out
    assert "geometric mean of B/A over 3 benchmarks" in out and "faster" in out
    assert max(len(l) for l in out.splitlines()) <= 100
    outp = tmp_path / "c.json"
    assert main(["compare", str(pa), str(pb), "--format", "json", "-o", str(outp)]) == 0
    d = json.loads(outp.read_text())
    assert d["only_b"] == ["only_b"]
    assert main(["compare", str(pa), str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_welch_p_is_scipys_ttest_ind():
    """compare.welch_p (no scipy import on the compare path): scipy.stats.ttest_ind(equal_var=False)
    within 1e-12 relative (the t tail is distributions.t_sf, not scipy.special.stdtr) - rounded values,
    constant sides, unequal sizes, and far tails (p down to 1e-300)."""
    import warnings

    import numpy as np
    from scipy import stats

    from bandkit.compare import welch_p

    rng = np.random.default_rng(3)
    for i in range(1500):
        n1, n2 = (int(k) for k in rng.integers(2, 60, 2))
        a = np.log(rng.lognormal(0, rng.uniform(0.001, 0.3), n1) + rng.uniform(0, 2))
        b = np.log(rng.lognormal(0.01, rng.uniform(0.001, 0.3), n2) + rng.uniform(0, 2))
        if i % 10 == 0:
            a, b = np.round(a, 2), np.round(b, 2)
        if i % 50 == 0:
            a = np.full(n1, 0.5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ref = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
        got = welch_p(a, b)
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-300) or (np.isnan(got) and np.isnan(ref))
    for shift in (0.0, 1e-9, 0.5, 3.0, 30.0):  # t from 0 to ~1e3, p from 1 to below 1e-300
        a, b = rng.normal(0, 1, 40), rng.normal(shift, 1, 25)
        ref = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
        assert welch_p(a, b) == pytest.approx(ref, rel=1e-12, abs=1e-300)


def _pts(path: Path, system: str, results: list[tuple[str, str, str, str]]) -> Path:
    """A small PTS composite.xml: ("title: description", scale, proportion HIB/LIB/"", raw "v:v:v") per result."""
    body = "".join(
        f"<Result><Title>{t.split(': ', 1)[0]}</Title><Description>{t.split(': ', 1)[1] if ': ' in t else ''}"
        f"</Description><Scale>{sc}</Scale>"
        + (f"<Proportion>{pr}</Proportion>" if pr else "")
        + f"<Data><Entry><Identifier>{system}</Identifier><Value>0</Value><RawString>{raw}</RawString>"
          f"</Entry></Data></Result>" for t, sc, pr, raw in results)
    path.write_text(f'<?xml version="1.0"?><PhoronixTestSuite><System><Identifier>{system}</Identifier>'
                    f"<TimeStamp>2024-01-01 00:00:00</TimeStamp></System>{body}</PhoronixTestSuite>")
    return path


def test_equal_trials_written_in_a_unit_are_not_certain(tmp_path):
    """PTS trials "9:9:9" vs "10:10:10" iterations per minute were "significant, p < 1e-16, CI
    1.111-1.111": three equal readings of a whole number only say the value is within half a unit."""
    a = _pts(tmp_path / "a.xml", "A", [("Sharpen", "Iterations Per Minute", "HIB", "9:9:9"),
                                       ("Noise", "Iterations Per Minute", "HIB", "13:13:13")])
    b = _pts(tmp_path / "b.xml", "B", [("Sharpen", "Iterations Per Minute", "HIB", "10:10:10"),
                                       ("Noise", "Iterations Per Minute", "HIB", "13:13:13")])
    cmp = {c.name: c for c in compare_files(a, b).benchmarks}
    sharpen, noise = cmp["Sharpen"], cmp["Noise"]
    assert sharpen.resolution == 1.0 and 1e-3 < sharpen.p_value < 0.05
    assert sharpen.ci_low < 1.111 < sharpen.ci_high and sharpen.ci_high - sharpen.ci_low > 0.05
    assert noise.p_value == pytest.approx(1.0) and noise.ci_low < 1 < noise.ci_high and not noise.significant


def test_geomean_never_mixes_throughputs_and_times(tmp_path):
    """B is better everywhere: 2x the MB/s and half the seconds. The geometric mean of raw B/A was 1.0
    ("no change"); oriented, it is 0.5; results of unknown direction (install size in bytes) are left out."""
    a = _pts(tmp_path / "a.xml", "A", [("Zstd", "MB/s", "HIB", "100.1:100.2:99.9"),
                                       ("Build", "Seconds", "LIB", "10.1:10.2:9.9"),
                                       ("Size", "Bytes", "", "100:100:100")])
    b = _pts(tmp_path / "b.xml", "B", [("Zstd", "MB/s", "HIB", "200.2:200.1:199.9"),
                                       ("Build", "Seconds", "LIB", "5.1:4.9:5.0"),
                                       ("Size", "Bytes", "", "300:300:300")])
    cmp = compare_files(a, b)
    assert cmp.geomean == pytest.approx(0.5, rel=0.01)
    d = cmp.to_dict()
    assert d["geomean_n"] == 2 and "A/B of higher-is-better" in d["geomean_definition"]
    assert [x["higher_is_better"] for x in d["benchmarks"]] == [True, False, None]
    text = cmp.to_text()
    assert re.search(r"\(< 1: B better\): 0\.(49|50)\d", " ".join(text.split()))
    assert "1 of unknown direction left out" in text
    assert "B better in 2, worse in 0, 1 of unknown direction" in text
    # times only (pyperf): the geomean stays that of B/A
    assert compare_files(R / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz",
                         R / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz").to_dict()["geomean_definition"] == "B/A"


def test_compare_text_keeps_long_names_of_other_units_whole(tmp_path):
    long = [f"GraphicsMagick: Operation: Sharpen with a long description number {i}" for i in range(3)]
    a = _pts(tmp_path / "a.xml", "A", [(n, "Iterations Per Minute", "HIB", "9:9:10") for n in long])
    b = _pts(tmp_path / "b.xml", "B", [(n, "Iterations Per Minute", "HIB", "10:10:10") for n in long])
    text = compare_files(a, b).to_text(width=100)
    for n in long:
        assert n in text  # (was cut to "…Sharpen…" beside 27-column "9.333 Iterations Per Minute" cells)
    assert all(len(line) <= 100 for line in text.splitlines() if "/" not in line)
    assert all(line.count("Iterations Per") <= 1 for line in text.splitlines())  # (the unit column only)


def test_welch_p_float_path_is_bit_equal_to_numpy_steps(monkeypatch):
    """welch_p's Python-float path (_welch_t_df) gives its numpy steps' p-value bit for bit: random sizes,
    scales from 1e-200 to 1e200 (overflow and underflow of the squares), rounded values, constant sides,
    identical sides; and it is taken for ordinary samples (else the test would check nothing)."""
    import warnings

    import numpy as np

    import bandkit.compare as cmp
    from bandkit.compare import _welch_t_df, welch_p

    def numpy_steps(a, b):
        with monkeypatch.context() as m:
            m.setattr(cmp, "_welch_t_df", lambda a, b: None)
            return welch_p(a, b)

    rng = np.random.default_rng(11)
    taken = 0
    for i in range(4000):
        n1, n2 = (int(k) for k in rng.integers(2, 80, 2))
        sc = 10.0 ** rng.uniform(-200, 200) if i % 3 == 0 else 1.0
        a = np.log(rng.lognormal(0, rng.uniform(1e-6, 0.5), n1) + rng.uniform(0, 2)) * sc
        b = np.log(rng.lognormal(0.01, rng.uniform(1e-6, 0.5), n2) + rng.uniform(0, 2)) * sc
        if i % 7 == 0:
            a, b = np.round(a, 2), np.round(b, 2)
        if i % 50 == 0:
            a = np.full(n1, 0.5)
        if i % 53 == 0:
            b = a.copy()
        taken += _welch_t_df(a, b) is not None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ref, got = numpy_steps(a, b), welch_p(a, b)
        assert got == ref or (np.isnan(got) and np.isnan(ref)), (i, got, ref)
    assert taken > 2000


def test_bootstrap_interval_is_numpy_quantile_of_the_mean_ratios():
    """_boot_ratio (take + row sums / n) and _interval (one sort) equal ``b[ib].mean(axis=1) /
    a[ia].mean(axis=1)`` and np.quantile at both ends bit for bit, for several confidence levels."""
    import numpy as np

    from bandkit.compare import _boot_ratio, _interval

    rng = np.random.default_rng(5)
    for i in range(600):
        n, m = (int(k) for k in rng.integers(2, 60, 2))
        a, b = rng.lognormal(0, 0.2, n), rng.lognormal(0, 0.2, m)
        if i % 5 == 0:
            a = np.round(a, 1) + 0.1
        alpha = 1 - [0.95, 0.9, 0.99, 0.8, float(rng.uniform(0.51, 0.999))][i % 5]
        r1, r2 = np.random.default_rng(i), np.random.default_rng(i)
        ia, ib = r1.integers(0, n, size=(500, n)), r1.integers(0, m, size=(500, m))
        ref = b[ib].mean(axis=1) / a[ia].mean(axis=1)
        got = _boot_ratio(a, b, 500, r2)
        assert np.array_equal(ref, got)
        assert _interval(got, alpha) == (float(np.quantile(ref, alpha / 2)), float(np.quantile(ref, 1 - alpha / 2)))


def _speedpython_traces():
    from bandkit.loaders import load_many

    root = Path(__file__).resolve().parent.parent / "data" / "runners"
    a = load_many([root / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"])
    b = load_many([root / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz"])
    return a[:20] + b[:20]


def test_compare_verdicts_are_the_run_verdicts_of_each_side():
    """compare's per-benchmark verdicts (from the run tables it already made) are
    ``postmortem.run_verdict`` of each trace on its own."""
    import bandkit.compare as C
    from bandkit.postmortem import run_verdict

    traces = _speedpython_traces()
    a, b = traces[:20], traces[20:]
    cmp = C.compare(a, b)
    by_a, by_b = {t.meta.name: t for t in a}, {t.meta.name: t for t in b}
    checked = 0
    for c in cmp.benchmarks:
        if c.verdict_a:
            assert c.verdict_a == run_verdict(by_a[c.name]) and c.verdict_b == run_verdict(by_b[c.name])
            checked += 1
    assert checked >= 5 and len({c.verdict_a for c in cmp.benchmarks} | {c.verdict_b for c in cmp.benchmarks}) > 1
