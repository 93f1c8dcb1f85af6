"""A/B comparison (bandkit.compare and `bandkit compare`)."""
from __future__ import annotations

import json
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
