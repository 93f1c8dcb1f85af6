"""An episode that goes in stages is one episode, not "3 levels" (issue 12, trust on real data).

SAP HANA 05360 (1,077 builds at 6.15 s, 3 % noise): runs 401-428 at 5.55 s, then 429-454 at 5.85 s, then back to
6.15 s. One dip in two stages read "3 levels over 1077 runs: 5.55 s (3 %), 5.85 s (2 %), 6.15 s (95 %)"; it now reads
"episode at runs 401-454 in 2 stages: 6.15 s → 5.55 s → 5.85 s (...), then back", each stage in ``stages``.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from bandkit.loaders.runner_common import build_runner_trace
from bandkit.loaders.source import Source
from bandkit.postmortem import classify, postmortem
from bandkit.postmortem.section import _finding
from bandkit.render.text_runners import phrase_episode


def _trace(means):
    runs = [([float(v)], {}) for v in means]
    return build_runner_trace(Source(name="history.csv"), "csv", "history", runs, value_unit="s")


def _dip(seed, n=1000, sd=0.02, stages=(0.90, 0.95), at=400, widths=(28, 26)):
    rng = np.random.default_rng(seed)
    m = 6.15 * (1.0 + sd * rng.standard_normal(n))
    s = at
    for f, w in zip(stages, widths):
        m[s:s + w] *= f
        s += w
    return m


@pytest.mark.parametrize("seed", range(3))
def test_a_dip_in_two_stages_is_one_episode(seed):
    pm = postmortem(_trace(_dip(seed)))
    assert pm.verdict == "episode"
    (e,) = pm.episodes
    assert (e.start_run, e.end_run, e.n_runs) == (401, 454, 54)
    assert [(s[0], s[1]) for s in e.stages] == [(401, 428), (429, 454)]
    assert e.baseline == pytest.approx(6.15, rel=0.01)  # (the runs around the whole dip, not the other stage)
    assert [s[3] for s in e.stages] == pytest.approx([0.90, 0.95], abs=0.01)
    assert e.ratio == pytest.approx((28 * 0.90 + 26 * 0.95) / 54, abs=0.01)
    assert e.to_dict()["stages"][1]["start_run"] == 429
    f = _finding(pm)
    text = phrase_episode(f)
    assert re.match(r"episode at runs 401-454 in 2 stages: 6\.1\d* s → 5\.[45]\d* s → 5\.[89]\d* s \(×1\.\d+ lower overall\), "
                    r"then back$", text), text
    assert pm.affected_runs == tuple(range(401, 455))


@pytest.mark.parametrize("kw", [dict(n=300, at=100), dict(n=120, at=40, widths=(10, 10)),
                                dict(stages=(1.10, 1.05)), dict(stages=(0.85, 0.90, 0.95), widths=(20, 20, 20))])
def test_staged_episodes_of_other_shapes(kw):
    at, width = kw.get("at", 400), sum(kw.get("widths", (28, 26)))
    for seed in range(3):
        pm = postmortem(_trace(_dip(seed, **kw)))
        assert pm.verdict == "episode", (kw, seed)
        (e,) = pm.episodes  # (stages of one episode; 10-run stages at 120 runs may be one level)
        assert abs(e.start_run - (at + 1)) <= 2 and abs(e.end_run - (at + width)) <= 2, (kw, seed, e)


def test_a_one_level_episode_has_no_stages():
    pm = postmortem(_trace(_dip(0, stages=(0.90,), widths=(54,))))
    assert pm.verdict == "episode"
    assert pm.episodes[0].stages == () and pm.episodes[0].to_dict()["stages"] == []


def test_a_dip_then_a_bump_is_not_one_episode():
    """Stages go one way: a dip followed at once by a bump stays levels (two things happened)."""
    for seed in range(3):
        assert classify(_dip(seed, stages=(0.90, 1.10))).verdict != "episode"


def test_a_stage_that_recurs_is_not_a_staged_episode():
    """A level visited again later is a level of its own (the rule needs each stage's band to be its only block)."""
    m = _dip(0)
    m[700:728] = 6.15 * 0.95 * (1 + 0.02 * np.random.default_rng(9).standard_normal(28))
    assert classify(m).verdict != "episode"


@pytest.mark.parametrize("seed", range(4))
def test_a_short_staged_episode_is_an_episode(seed):
    """40 runs (under the step gate's 200), runs 19-25 at x0.80 and 26-32 at x0.88 (main: "3 levels")."""
    assert classify(_dip(seed, n=40, sd=0.02, stages=(0.80, 0.88), at=18, widths=(7, 7))).verdict == "episode"


#: benchmarks/two_level_power.py case 90656 (38 runs, 4.5 % Gaussian noise, AR 0.22, minority level x0.81): a 14-run
#: stay at the low level (runs 19-32) that the noise splits into two stages, and 3 single low runs before it.
_CASE_90656 = [120.14, 116.74, 123.1, 122.59, 122.21, 133.96, 129.25, 137.39, 127.36, 103.05, 96.46, 120.63, 122.98,
               123.63, 121.19, 120.05, 105.95, 121.55, 92.3, 94.04, 92.32, 92.3, 95.97, 100.61, 105.49, 108.82, 103.2,
               95.29, 101.83, 95.9, 109.13, 105.9, 130.69, 121.77, 127.06, 127.54, 131.08, 139.37]


def test_the_step_gate_tests_a_stage_against_the_runs_around_the_whole_episode():
    """change_holds (<= 200 runs) tested the first stage against the main band and the second stage (which is near
    it), found no episode and called the 38 runs "stable"; against the runs around the whole episode it holds."""
    c = classify(np.array(_CASE_90656))
    assert c.verdict == "episode"
    assert [(b[1], b[2]) for b in c.episodes] == [(18, 22), (23, 31)]
