"""The classifications of many run sequences run together: their segmentations on lists (``OPAsk`` requests of
``classify_steps``) answered for all series at once by one padded optimal-partitioning pass
(``fpop.op_many``, ``noise.answer_ops``), in the report's post-mortems (``postmortems``) and in compare's run
verdicts (``run_verdicts``). Everything must equal the per-series formulation it replaces (``op_lists`` row by
row, ``classify``, ``run_verdict``) bit for bit: generated series of mixed lengths 2-200 (ties, quantised values,
constant series, steps, heavy tails, huge and tiny scales) and the bundled runner files."""
from __future__ import annotations

import importlib
import json
import math

import numpy as np
import pytest

from bandkit.changepoints.fpop import op_lists, op_many
from bandkit.compare import compare
from bandkit.loaders.registry import load_traces
from bandkit.postmortem import _drive_all, classify, run_table, run_verdict, run_verdicts
from bandkit.postmortem.classify import classify_steps
from bandkit.postmortem.noise import OP_MANY_MIN, NoiseIterAsk, OPAsk, answer_ops, fpop_cps, run_ops

from conftest import DATA  # noqa: F401  (tests/conftest.py)

_pm = importlib.import_module("bandkit.postmortem")
N = importlib.import_module("bandkit.postmortem.noise")


def _series(rng, n: int, kind: int) -> np.ndarray:
    """One generated series of ``n`` values of one of 8 kinds."""
    if kind == 0:
        return rng.normal(size=n)
    if kind == 1:  # quantised: ties everywhere
        return np.round(rng.normal(size=n) * 3) / 3
    if kind == 2:  # steps
        return np.repeat(rng.normal(size=8) * 5, 1 + n // 8)[:n] + rng.normal(size=n) * 0.3
    if kind == 3:  # constant
        return np.full(n, float(rng.choice([0.0, 1.5, -2.0])))
    if kind == 4:  # heavy tails on scales 1e-3..1e3
        return rng.standard_t(2, size=n) * 10.0 ** int(rng.integers(-3, 4))
    if kind == 5:  # two values
        return rng.choice([0.0, 1.0], n)
    if kind == 6:  # a spike on a flat line
        y = np.zeros(n)
        y[int(rng.integers(0, n))] = 10.0
        return y
    return np.cumsum(rng.normal(size=n))  # a random walk


def _rows(seed: int, count: int, lengths) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    ys, pens = [], []
    for k in range(count):
        n = int(rng.choice(lengths))
        ys.append(_series(rng, n, k % 8).tolist())
        pens.append(float(rng.choice([0.0, 1.0, 3.0 * math.log(max(n, 2)), 25.0])))
    return ys, pens


@pytest.mark.parametrize("min_size", [1, 2, 3, 5])
def test_op_many_equals_op_lists_row_by_row(min_size):
    """Mixed lengths (padded rows) and one length (the rows as they are), every kind of series; near ties (None)
    where op_lists declines, and rows too short for min_size left to op_lists."""
    ys, pens = _rows(min_size, 900, np.r_[np.arange(1, 41), [64, 100, 200]])
    want = [op_lists(y, p, min_size) if len(y) >= min_size else "short" for y, p in zip(ys, pens)]
    ok = [i for i, w in enumerate(want) if w != "short"]
    got = op_many([ys[i] for i in ok], [pens[i] for i in ok], min_size)
    assert got == [want[i] for i in ok]
    assert sum(g is None for g in got) >= 20  # (the near-tie path was taken)
    assert sum(bool(g) for g in got) >= 200  # (and change points found)
    same, spens = _rows(10 + min_size, 200, [20])
    assert op_many(same, spens, min_size) == [op_lists(y, p, min_size) for y, p in zip(same, spens)]


def test_op_many_in_passes_of_bounded_size(monkeypatch):
    """Many rows (a compare of two large files) go through op_many in passes of at most _OP_MANY_CELLS candidate
    values: the same answers, and no pass larger than that."""
    ys, pens = _rows(21, 300, np.arange(2, 65))
    want = [op_lists(y, p, 1) for y, p in zip(ys, pens)]
    fp = importlib.import_module("bandkit.changepoints.fpop")
    seen = []
    real = fp._op_many
    monkeypatch.setattr(fp, "_op_many", lambda y, p, m: seen.append(len(y)) or real(y, p, m))
    monkeypatch.setattr(fp, "_OP_MANY_CELLS", 65 * 65 * 7)
    assert op_many(ys, pens, 1) == want
    assert max(seen) == 7 and sum(seen) == len(ys)
    assert op_many([], [], 1) == []


def test_op_many_far_values_and_empty_input():
    """Values whose squares near overflow (or an infinity, a NaN: a noise scale of ~0 can make them) go to op_lists
    row by row; no rows, no answers."""
    rng = np.random.default_rng(3)
    ys = [(rng.normal(size=20) * 1e150).tolist(), rng.normal(size=20).tolist(), [1e200, -1e200, 1e200, 0.0],
          [1.0, math.inf, 2.0, 3.0, 1.0], [0.5, 1.0, math.nan, 2.0], [v / 1e-320 for v in rng.normal(size=9).tolist()]]
    assert repr(op_many(ys, [1.0] * len(ys), 1)) == repr([op_lists(y, 1.0, 1) for y in ys])
    assert op_many([], [], 2) == []


def test_answer_ops_equals_fpop_cps_one_by_one():
    """Requests of two segment sizes in one batch (op_many from OP_MANY_MIN of a size, op_lists below), FPOP where
    op_lists declines: the change points fpop_cps gives for each."""
    ys, pens = _rows(7, 300, np.arange(4, 41))
    sizes = [1 if k % 3 else 2 for k in range(len(ys))]
    asks = [OPAsk(y, p, m) for y, p, m in zip(ys, pens, sizes) if len(y) >= 2 * m]
    want = [fpop_cps(np.array(a.y), a.penalty, a.min_size) for a in asks]
    assert answer_ops(asks) == want
    assert answer_ops(asks[:OP_MANY_MIN - 1]) == want[:OP_MANY_MIN - 1]
    assert sum(op_lists(a.y, a.penalty, a.min_size) is None for a in asks) >= 5  # (FPOP's answers in there)


def _key(c) -> str:
    """Every field of a Classification, floats by repr (bit for bit, the sign of a zero and NaN included)."""
    return repr((c.verdict, c.labels.tolist(), c.levels.tolist(), c.sigma, c.blocks, c.outliers, c.trend,
                 c.episodes, c.changes, c.noise, c.test_scale, c.warmup, None if c.x is None else c.x.tolist(),
                 c.gates))


def _run_means(rng, n: int, kind: int) -> np.ndarray:
    """Run means (positive, or some <= 0 for the kinds that test the non-ratio scale) of ``n`` runs."""
    if kind == 3:  # constant
        return np.full(n, 2.5e-3)
    if kind == 5:  # one clock tick of 1 ms, two levels
        return 0.010 + 0.001 * rng.choice([0, 0, 0, 1], n)
    if kind == 7:  # values around 0: not ratio data
        return rng.normal(0.0, 1.0, n)
    base = np.exp(0.02 * _series(rng, n, kind) / max(1.0, float(np.std(_series(rng, n, kind))) or 1.0))
    return 0.01 * base


@pytest.mark.parametrize("seed", [0, 1])
def test_classifications_together_equal_classify_one_by_one(seed):
    """classify_steps of ~200 series driven together (their segmentations answered in batches) = classify of each:
    lengths 2-200, steps, ties, quantised and constant series, values <= 0, with and without a tick / within."""
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(200):
        n = int(rng.choice(np.r_[np.arange(2, 41), [20] * 40, [60, 100, 200]]))
        m = _run_means(rng, n, k % 8)
        kw = {}
        if k % 5 == 1:
            kw["tick"] = 1e-4
        if k % 7 == 2:
            kw["within"] = 0.003
        if k % 11 == 3:
            kw["min_ratio"] = 1.05
        cases.append((m, kw))
    together = _drive_all([classify_steps(m, **kw) for m, kw in cases], answer_ops)
    alone = [classify(m, **kw) for m, kw in cases]
    assert [_key(c) for c in together] == [_key(c) for c in alone]
    assert len({c.verdict for c in alone}) >= 5
    assert [_key(run_ops(classify_steps(m, **kw))) for m, kw in cases[:20]] == [_key(c) for c in alone[:20]]


def _runner_files():
    for path in sorted((DATA / "runners").iterdir()):
        try:
            traces = load_traces(str(path))
        except Exception:  # (a file that needs a sibling or options: covered by its loader's tests)
            continue
        runner = [t for t in traces if t.kind == "runner"]
        if len(runner) >= 2:
            yield path, runner


def test_run_verdicts_equal_run_verdict_on_every_bundled_runner_file():
    checked = 0
    for _, traces in _runner_files():
        items = [(t, None if t.meta.extra.get("summary_only") else run_table(t, metadata=False)) for t in traces]
        assert run_verdicts(items) == [run_verdict(t, rt) for t, rt in items]
        assert run_verdicts([(t, None) for t in traces]) == [run_verdict(t) for t in traces]
        checked += 1
    assert checked >= 6
    assert run_verdicts([]) == []


def test_compare_with_verdicts_together_equals_one_by_one(monkeypatch):
    """bandkit compare classifies both sides of every pair together: the same comparison (JSON, text) as with
    run_verdict called pair by pair, both ways round."""
    a = load_traces(str(DATA / "runners" / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"))
    b = load_traces(str(DATA / "runners" / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz"))
    fast = [compare(a, b), compare(b, a)]
    monkeypatch.setattr(_pm, "run_verdicts", lambda items, **o: [run_verdict(t, rt, **o) for t, rt in items])
    slow = [compare(a, b), compare(b, a)]
    for f, s in zip(fast, slow):
        assert json.dumps(f.to_dict(), default=str) == json.dumps(s.to_dict(), default=str)
        assert f.to_text() == s.to_text()
    assert sum(len(c.benchmarks) for c in fast) >= 100


def test_op_many_near_ties_at_the_margin_beside_a_longer_row():
    """A run halfway between two levels, off by eps from 1e-16 to 1e-9: the two segmentations' costs differ by
    ~eps, around op_lists' near-tie margin (which grows with the row's own length and largest value); padded beside
    a row of 60, each row keeps its own margin: the same change points, or None, as op_lists."""
    rows = []
    for h in (1.0, 3.0, 1e3):
        for eps in np.geomspace(1e-16, 1e-9, 60):
            for k, c in ((3, 0.0), (5, 0.0), (4, 50.0)):  # (c: an offset, the values far from 0)
                rows.append([c + v for v in [0.0] * k + [h / 2 + eps * h] + [h] * k])
    long = np.random.default_rng(0).normal(size=60).tolist()
    want = [op_lists(y, 1.0, 1) for y in rows]
    assert op_many(rows + [long], [1.0] * (len(rows) + 1), 1) == want + [op_lists(long, 1.0, 1)]
    assert sum(w is None for w in want) >= 20 and sum(w is not None for w in want) >= 20


def _noise_asks(seed: int, count: int) -> list:
    """Iterations of the noise model on lists as estimate_noise asks them: Gaussian and t3 noise, steps, clock-tick
    grids (ties: the MAD declines, robust_sd's array path), two alternating levels, constants; 4..64 runs."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        n = int(rng.choice([4, 5, 9, 10, 11, 13, 20, 20, 20, 33, 64]))
        x = 0.01 * (rng.normal(size=n) if k % 6 != 1 else rng.standard_t(3, n))
        if k % 6 == 2:
            x[n // 2:] += 0.05
        elif k % 6 == 3:
            x = np.round(x / 0.004) * 0.004
        elif k % 6 == 4:
            x = np.where(rng.random(n) < 0.3, 0.08, 0.0) + 0.002 * rng.normal(size=n)
        elif k % 6 == 5 and k % 12 == 5:
            x = np.full(n, 0.5)
        xc = x - float(np.median(x))
        out.append(NoiseIterAsk(x.tolist(), xc.tolist(), float(rng.choice([1e-3, 4e-3, 0.01, 0.03])),
                                3.0 * math.log(n)))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_noise_iterations_together_equal_iterate_lists(seed):
    """One iteration of the noise model for many series at once (segmentations, segment medians, MADs of the
    residuals and of their neighbours' sums and differences; the array path where the lists' MAD declines) = the
    per-series _iterate_lists, bit for bit; mixed with segmentation requests in one answer."""
    asks = _noise_asks(seed, 1500)
    want = [N._iterate_lists(a.xl, a.xcl, a.s, a.penalty) for a in asks]
    assert repr(answer_ops(asks)) == repr(want)
    declined = sum(N._mad_list(N._segment_residuals(a.xl, N.answer_op(OPAsk([v / a.s for v in a.xcl], a.penalty, 2))))
                   is None for a in asks)
    assert declined >= 100  # (the array path of robust_sd was taken)
    ops = [OPAsk(a.xcl, 1.0, 1) for a in asks[:50]]
    mixed = answer_ops(asks[:40] + ops)
    assert repr(mixed) == repr(want[:40] + [fpop_cps(np.array(o.y), 1.0, 1) for o in ops])
    assert repr(answer_ops(asks[:OP_MANY_MIN - 1])) == repr(want[:OP_MANY_MIN - 1])


def test_mad_rows_equal_mad_list():
    """The lists' MAD of each row (or None where it declines: ties at the median, quantised values, a NaN or an
    infinity) = _mad_list of the row."""
    rng = np.random.default_rng(5)
    for n in (2, 3, 4, 7, 10, 19, 20, 21):
        R = np.round(rng.normal(size=(400, n)) * rng.choice([1, 3, 30], (400, 1))) / 3
        R[::17] = 0.0
        R[1::19, 0] = -0.0
        R[2::23, -1] = np.nan
        R[3::29, 0] = np.inf
        assert repr(N._mad_rows(R)) == repr([N._mad_list(r) for r in R.tolist()]), n
