"""Level shifts that a one-level verdict does not report (issue 12, trust on real data).

1. A long quiet history called "stable" while a 1.5 % step stands 5 sd clear of its noise (SAP HANA 08755: 1,077
   builds at ~0.3 % noise, a +1.5 % step at build ~333 and a second rise later), and one called "20 outlier runs"
   whose dip of 1.5 % and jump of 3.5 % net under the 3 % gate (SAP 01096): the post-mortem now names the
   significant shifts (``gate.unreported_changes``, :mod:`bandkit.postmortem.shifts`), verdict kept.
2. A clean x1.025 step in the middle of the runs read "drift x1.037" (the least-squares drift of a step is 1.5
   times its size): a drift now needs a straight line to fit better than one step.
False alarms and power: benchmarks/shifts_null.py (benchmarks/RESULTS_calibration.md).
"""
from __future__ import annotations

import numpy as np
import pytest

from bandkit.loaders.runner_common import build_runner_trace
from bandkit.loaders.source import Source
from bandkit.postmortem import classify, postmortem
from bandkit.postmortem.classify import _one_step_sse
from bandkit.postmortem.section import _finding
from bandkit.render.text_runners import phrase_outliers, phrase_stable


def _trace(means):
    runs = [([float(v)], {}) for v in means]
    return build_runner_trace(Source(name="history.csv"), "csv", "history", runs, value_unit="ms")


def _series(n, sd, seed, step=None, at=None):
    rng = np.random.default_rng(seed)
    m = 100.0 * np.exp(sd * rng.standard_normal(n))
    if step is not None:
        m[at:] *= step
    return m


@pytest.mark.parametrize("seed", range(4))
def test_a_long_quiet_history_with_a_1p5_percent_step_names_it(seed):
    pm = postmortem(_trace(_series(1000, 0.003, seed, 1.015, 333)))
    assert pm.verdict == "stable"  # (the 3 % gate: the verdict is kept)
    shifts = pm.gate["unreported_changes"]
    assert len(shifts) == 1 and shifts[0]["run"] in range(318, 349), shifts
    assert 1.012 < shifts[0]["ratio"] < 1.018 and shifts[0]["p_value"] < 1e-10
    text = phrase_stable(_finding(pm))
    assert text == f"stable at the 3 % gate over 1000 runs, but significant shift under it: " \
                   f"×{shifts[0]['ratio']:.3f} higher at run {shifts[0]['run']}", text


def test_a_dip_and_a_jump_that_net_under_the_gate_are_named_in_run_order():
    # (SAP 01096: 20 outlier runs, a dip of 1.5 % at build ~398, a jump of 3.5 % at ~522, then smaller moves)
    m = _series(1000, 0.01, 5)
    m[400:520] *= 0.985
    m[520:] *= 1.02
    m[[30, 300, 700]] *= 1.4
    pm = postmortem(_trace(m))
    assert pm.verdict == "outliers", pm.verdict
    shifts = pm.gate["unreported_changes"]
    assert [s["run"] for s in shifts] == sorted(s["run"] for s in shifts) and len(shifts) == 2, shifts
    assert abs(shifts[0]["run"] - 400) <= 10 and abs(shifts[1]["run"] - 520) <= 10
    assert shifts[1]["ratio"] > 1.03 > shifts[0]["ratio"] ** -1  # the jump from the dip is over the gate
    text = phrase_outliers(_finding(pm))
    assert text.endswith(f"; significant shifts: ×{1 / shifts[0]['ratio']:.3f} lower at run {shifts[0]['run']}, "
                         f"×{shifts[1]['ratio']:.3f} higher at run {shifts[1]['run']}"), text


def test_the_note_is_only_for_long_one_level_sequences():
    # a step the gate reports is a step, with no note; a short sequence gets none (its own step gate decides)
    assert postmortem(_trace(_series(1000, 0.003, 1, 1.05, 333))).gate["unreported_changes"] == []
    assert postmortem(_trace(_series(150, 0.003, 1, 1.015, 50))).gate["unreported_changes"] == []


@pytest.mark.parametrize("seed", range(12))
def test_no_smaller_change_in_stationary_noise(seed):
    rng = np.random.default_rng(seed)
    sd = (0.003, 0.01, 0.03)[seed % 3]
    e = rng.standard_normal(2000)
    if seed % 2:  # AR(1) 0.5, unit marginal sd
        for i in range(1, e.size):
            e[i] = 0.5 * e[i - 1] + np.sqrt(0.75) * e[i]
    pm = postmortem(_trace(100.0 * np.exp(sd * e)))
    assert pm.gate["unreported_changes"] == [] and pm.verdict in ("stable", "outliers")
    assert phrase_stable(_finding(pm)) == "stable over 2000 runs" or pm.verdict == "outliers"


@pytest.mark.parametrize("n", [40, 100, 300])
def test_a_step_under_the_gate_in_the_middle_is_no_drift(n):
    # main: "trend" (drift x1.037) on 40 of 40 series at 300 runs, 36 of 40 at 100
    for seed in range(10):
        c = classify(_series(n, 0.003, seed, 1.025, n // 2))
        assert c.verdict == "stable", (seed, c.verdict, c.trend)
        assert c.trend is not None and not c.trend["significant"]


@pytest.mark.parametrize("n", [20, 40, 100, 300])
def test_a_drift_is_still_a_drift(n):
    for seed in range(10):
        m = 100.0 * np.exp(0.003 * np.random.default_rng(seed).standard_normal(n) + np.linspace(0, np.log(1.05), n))
        c = classify(m)
        assert c.verdict == "trend", (seed, c.verdict)
        assert 1.03 < c.trend["drift_ratio"] < 1.07


def test_one_step_sse_is_the_best_split():
    rng = np.random.default_rng(3)
    for m in (6, 7, 30, 101):
        y = rng.standard_normal(m) + np.r_[np.zeros(m // 3), np.ones(m - m // 3)]
        brute = min(((y[:k] - y[:k].mean()) ** 2).sum() + ((y[k:] - y[k:].mean()) ** 2).sum()
                    for k in range(3, m - 2))
        assert _one_step_sse(y, 3) == pytest.approx(brute, rel=1e-9, abs=1e-12)
    y = rng.standard_normal(5)
    assert _one_step_sse(y, 3) == pytest.approx(((y - y.mean()) ** 2).sum())
