"""A drift cut into a staircase of 2-3 changes is a trend (classify._ramp, RAMP_LR99); a real staircase stays a step,
also through the AR(1) likelihood-ratio check of the step gate (classify.change_holds)."""
import importlib
import math

import numpy as np

from bandkit.postmortem.classify import classify

K = importlib.import_module("bandkit.postmortem.classify")

# x1.10 over 30 runs at 2 % noise (rounded to 0.01): the classifier cuts it into 3 blocks (runs 0-6, 7-20, 21-29),
# whose band-level BIC beats the line; main read "step at run 7"
RAMP30 = [100.89, 99.38, 99.59, 100.39, 101.38, 99.95, 101.1, 102.23, 102.69, 104.45, 102.82, 104.32, 101.02, 102.84,
          103.63, 101.19, 105.66, 104.05, 102.28, 105.99, 105.08, 111.49, 109.25, 112.0, 105.68, 111.15, 108.73,
          107.86, 110.11, 109.89]


def test_a_ramp_cut_into_three_blocks_is_a_trend():
    c = classify(np.array(RAMP30))
    assert c.verdict == "trend"
    tr = c.trend
    assert tr["bic_linear"] < tr["bic_one_step"]  # the line beats the best single step
    assert tr["ramp_lr"] < K._interp(K.RAMP_LR99[2], 30)  # and the two changes add nothing to it
    assert 1.07 < tr["drift_ratio"] < 1.14


def test_drifts_of_50_runs_read_step_less_often():
    # x1.10 over 50 runs at 2 % noise, 400 series: main 23 "step", this branch 9 (the rest: mostly 2 blocks - a drift
    # and a step of half its size in the middle are the same to a line-vs-step comparison)
    n = 50
    rng = np.random.default_rng(20261125 + n)
    steps = 0
    for _ in range(400):
        x = 0.02 * rng.standard_normal(n) + math.log(1.10) * np.arange(n) / (n - 1)
        steps += classify(100 * np.exp(x)).verdict == "step"
    assert steps <= 14


def test_two_clear_steps_stay_a_step():
    # x1.10 at a third and two thirds of 30 runs at 1 % noise: the changes stand far out from a line through them
    rng = np.random.default_rng(31)
    verdicts = []
    for _ in range(100):
        x = 0.01 * rng.standard_normal(30)
        x[10:] += math.log(1.10)
        x[20:] += math.log(1.10)
        verdicts.append(classify(100 * np.exp(x)).verdict)
    assert verdicts.count("step") >= 90


def test_ramp_lr_does_not_see_a_line():
    rng = np.random.default_rng(3)
    y = rng.standard_normal(40)
    at = np.delete(np.arange(42), [5, 17])  # (two outlier runs left out)
    lr = K.ramp_lr(y, at, [14, 30])
    assert abs(K.ramp_lr(y + 0.3 * at - 2.0, at, [14, 30]) - lr) < 1e-9
    # = n log(SSE line / SSE line + shifts), written out
    a = np.column_stack([np.ones(40), at, at >= 14, at >= 30]).astype(float)
    sse = [float(np.sum((y - b @ np.linalg.lstsq(b, y, rcond=None)[0]) ** 2)) for b in (a[:, :2], a)]
    assert abs(lr - 40 * math.log(sse[0] / sse[1])) < 1e-9


# two x1.10 steps at 1 % noise (runs 0-5, 6-12, 13-19): main read "trend x1.26" - the step gate's one-shift AR(1)
# likelihood ratio on the whole series (12.5) was under STEP_LR99, the runs became one level with a drift
STAIRS20 = [1.008, 0.989, 1.007, 1.029, 1.011, 1.014, 1.109, 1.106, 1.109, 1.087, 1.088, 1.105, 1.11, 1.222, 1.229,
            1.208, 1.197, 1.223, 1.229, 1.204]


def test_three_clear_levels_are_a_step():
    c = classify(100 * np.array(STAIRS20))
    assert c.verdict == "step"
    assert [(b[1], b[2]) for b in c.blocks] == [(0, 5), (6, 12), (13, 19)]
    assert K.step_lr(c.x) < K.STEP_LR99  # (the whole series: a wander to the one-shift AR(1) test)


def test_two_clear_steps_in_20_runs_stay_a_step():
    # x1.10 at runs 7 and 14 of 20 at 1 % noise, 100 series: main 48 "step" (the rest trend / stable), this branch 99
    rng = np.random.default_rng(20)
    steps = 0
    for _ in range(100):
        x = 0.01 * rng.standard_normal(20)
        x[6:] += math.log(1.10)
        x[13:] += math.log(1.10)
        steps += classify(100 * np.exp(x)).verdict == "step"
    assert steps >= 95
