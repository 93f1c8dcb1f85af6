"""A dip in stages whose last stage returns to the first stage's level (x0.90, x0.95, x0.90, then back) is one
episode in three stages, not "3 levels over 1000 runs: 5.54 s (6 %), 5.8 s (2 %), 6.15 s (92 %)": the stage rule
(``classify._staged_episodes``) asked each stage to be the only block of its band; it now asks each stage's band
to have no block outside the excursion."""
from __future__ import annotations

import numpy as np
import pytest

from bandkit.postmortem import classify, postmortem
from test_staged_episode import _dip, _trace


@pytest.mark.parametrize(("kw", "span"), [
    (dict(stages=(0.90, 0.95, 0.90), widths=(28, 26, 26)), (401, 480)),
    (dict(n=300, at=100, stages=(0.90, 0.95, 0.90), widths=(20, 20, 20)), (101, 160)),
    (dict(stages=(1.10, 1.05, 1.10), widths=(28, 26, 26)), (401, 480)),
    (dict(n=40, at=15, stages=(0.80, 0.88, 0.80), widths=(6, 6, 6)), (16, 33)),
])
def test_a_staged_dip_back_at_its_first_stage_is_one_episode(kw, span):
    for seed in range(3):
        pm = postmortem(_trace(_dip(seed, **kw)))
        assert pm.verdict == "episode", (kw, seed)  # (main: bands)
        (e,) = pm.episodes
        assert abs(e.start_run - span[0]) <= 2 and abs(e.end_run - span[1]) <= 2, (kw, seed, e)
        if kw.get("n") == 40 and not e.stages:
            continue  # (6-run stages of 40 runs may come out as one level: one episode all the same)
        assert len(e.stages) == 3
        assert e.stages[0][3] == pytest.approx(e.stages[2][3], abs=0.02)


def test_a_stage_level_seen_again_outside_the_dip_stays_a_level():
    m = _dip(0, stages=(0.90, 0.95, 0.90), widths=(28, 26, 26))
    m[700:728] = 6.15 * 0.90 * (1 + 0.02 * np.random.default_rng(9).standard_normal(28))
    assert classify(m).verdict != "episode"


def test_a_dip_then_a_bump_then_a_dip_is_not_one_episode():
    assert classify(_dip(1, stages=(0.90, 1.10, 0.90), widths=(28, 26, 26))).verdict != "episode"
