"""``bandkit compare`` over many benchmarks: p < 0.05 per benchmark lets ~5 % of unchanged benchmarks through, so a
60-benchmark comparison of two runs of the same code says "significant: 2-4 of 60" (measured: random halves of the
runs of three real pyperf files, 3.5-4.8 % per benchmark, >= 1 in 90-100 % of the pairs). The comparison states the
Benjamini-Hochberg q-values and the count that holds at that false discovery rate (issue 12, false alarms)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from bandkit.compare import bh_q_values, compare
from bandkit.loaders.runner_common import build_runner_trace
from bandkit.loaders.source import Source


def _side(name, rng, shifts, n_runs=20):
    return [build_runner_trace(Source(name=name), "csv", f"bench{i}",
                               [(list(np.exp(0.02 * rng.standard_normal(3)) * s), {}) for _ in range(n_runs)],
                               value_unit="s")
            for i, s in enumerate(shifts)]


def test_q_values_are_benjamini_hochberg():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    for _ in range(100):
        p = rng.uniform(0, 1, rng.integers(1, 80)) ** rng.uniform(0.2, 3)
        np.testing.assert_allclose(bh_q_values(list(p)), stats.false_discovery_control(p))
    assert bh_q_values([0.01, None, 0.04, 0.03]) == pytest.approx([0.03, None, 0.04, 0.04])
    assert bh_q_values([None]) == [None] and bh_q_values([]) == []


@pytest.mark.parametrize("seed", range(3))
def test_unchanged_benchmarks_do_not_survive_the_false_discovery_rate(seed):
    rng = np.random.default_rng(seed)
    shifts = [1.0] * 60
    c = compare(_side("a.json", rng, shifts), _side("b.json", rng, shifts), n_boot=200)
    d = c.to_dict()
    assert d["expected_by_chance"] == pytest.approx(3.0)
    assert d["n_significant_fdr"] == 0
    assert all(b["q_value"] is not None and b["q_value"] >= b["p_value"] for b in d["benchmarks"])
    json.dumps(d)
    text = c.to_text()
    if d["n_significant"]:
        assert "0 of them hold at a 5 % false discovery rate (Benjamini–Hochberg); ≈ 3.0 would pass by chance" in text


def test_real_changes_hold_at_the_false_discovery_rate():
    rng = np.random.default_rng(5)
    shifts = [1.0] * 50 + [1.1] * 10
    c = compare(_side("a.json", rng, [1.0] * 60), _side("b.json", rng, shifts), n_boot=200)
    d = c.to_dict()
    changed = {f"bench{i}" for i in range(50, 60)}
    held = {b["name"] for b in d["benchmarks"] if b["significant"] and b["q_value"] < 0.05}
    assert held == changed and d["n_significant_fdr"] == 10
