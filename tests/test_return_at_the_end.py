"""A slow stretch that ends one or two runs before the series does is an episode, not a step (issue 12, trust
on real data): the last runs back at the earlier level are its return, not outliers of a level that stays."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import bandkit
from bandkit.postmortem import postmortem
from bandkit.postmortem.classify import classify

SPEED2020 = Path(__file__).resolve().parent.parent / "data" / "runners" / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"


def test_sqlite_synth_slow_runs_17_to_20_then_back_is_an_episode():
    """speedpython 2020 sqlite_synth, run means over the median: 0.97-1.03 for runs 2-16 (run 16 x1.10), then
    x1.49 1.45 1.53 1.42 (runs 17-20) and x1.01 (run 21, the last). Main: "step at run 17: 7.33 us -> 10.8 us
    (x1.47)" and run 21 an outlier - a level that stays, which the last run contradicts."""
    pm = postmortem(next(t for t in bandkit.load(SPEED2020) if t.meta.name == "sqlite_synth"))
    assert pm.verdict == "episode" and not pm.steps
    (ep,) = pm.episodes
    assert (ep.start_run, ep.end_run) == (17, 20) and 1.4 < ep.ratio < 1.55
    assert 21 not in pm.outlier_runs


def test_a_step_that_stays_to_the_end_is_still_a_step():
    rng = np.random.default_rng(3)
    for k in range(20):
        x = 0.01 * rng.standard_normal(20)
        x[15:] += np.log(1.3)  # five slow runs at the end, none back
        c = classify(np.exp(x))
        assert c.verdict == "step" and not c.episodes, (k, c.verdict)
