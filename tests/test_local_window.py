"""The level the last runs are measured from (``classify.local_level``, ``END_WIDTH``): ``min_block`` slow runs at
the end of a sequence make their own level, so that a step on the last 3 runs is a step, not 2 outliers and a run
left in the main band (benchmarks/step_at_the_end.py; RESULTS_calibration.md, "No worse than today anywhere")."""
from __future__ import annotations

import numpy as np

from bandkit.postmortem.classify import END_WIDTH, Gates, classify, local_level


def _end_step_cell(reps: int = 300):
    """The series of step_at_the_end.py's cell: Gaussian, 50 runs, 3 % sd, x1.15 on the last 3 runs (same seed)."""
    n, k, eff, sd = 50, 3, 1.15, 0.03
    rng = np.random.default_rng((n, k, int(eff * 100), int(sd * 1000), False))
    for _ in range(reps):
        x = sd * rng.standard_normal(n)
        x[n - k:] += np.log(eff)
        yield np.exp(x)


def test_the_last_runs_are_measured_from_the_last_five():
    assert END_WIDTH == 2 * Gates().min_block - 1
    x = np.zeros(50)
    x[-3:] = 1.0  # three runs at a new level at the end: the level of the last ones is theirs
    assert np.array_equal(local_level(x)[-2:], np.ones(2))
    x = np.zeros(50)
    x[-2:] = 1.0  # two far runs at the end stay far from the level there
    assert np.array_equal(local_level(x)[-2:], np.zeros(2))


def test_three_slow_runs_at_the_end_are_a_step():
    """The first series of the cell: runs 48-50 at +3.2 / +4.4 / +5.1 sd; with the last 7 runs' median as their
    level, runs 49-50 were outliers and run 48 the main level ("outliers")."""
    c = classify(next(_end_step_cell(1)))
    assert c.verdict == "step"
    assert c.blocks[-1][1] == 47 and not c.outliers


def test_step_on_the_last_three_runs_found_about_as_often_as_c1bce99():
    """c1bce99 found the step in 213 of these 300 series, main before this in 176, now 200."""
    found = sum(classify(m).verdict == "step" for m in _end_step_cell())
    assert found >= 195


def test_three_slow_runs_at_the_end_of_noise_are_rarely_a_step():
    """Null guard: Gaussian noise of 50 runs at 3 % sd (the noise of the cell above): step in <= 1 % of series."""
    rng = np.random.default_rng(20261125)
    steps = sum(classify(np.exp(0.03 * rng.standard_normal(50))).verdict == "step" for _ in range(400))
    assert steps <= 4
