"""The runner post-mortems of a file run together (bandkit.postmortem.postmortems, analyze's section batch):
the metadata columns of the benchmarks that share a run count scored side by side
(suspects._block_suspects_many). Everything must equal the per-benchmark formulation: the block scores and
the max-T statistics of each benchmark, the post-mortems, the sections and the report (JSON and text), on
generated files (mixed run counts, metadata gaps, NaN values, categorical columns, steps, episodes, one
benchmark) and on every bundled runner file."""
from __future__ import annotations

import datetime as dt
import importlib
import json

import numpy as np
import pytest

import bandkit
from bandkit.analyze import analyze
from bandkit.loaders.registry import load_traces
from bandkit.postmortem import postmortem, postmortems
from bandkit.postmortem import suspects as S
from bandkit.postmortem.section import runner_section, runner_sections
from bandkit.section import AnalysisOptions
from bandkit.synthetic.pyperf import write_pyperf

from conftest import DATA  # noqa: F401  (tests/conftest.py)

_analyze = importlib.import_module("bandkit.analyze")


def _columns(rng, n: int, aff: np.ndarray, step: int) -> list:
    """The column entries of one benchmark: separating, tied, monotone, constant-after-shift, stepped at the
    step (and near it), smooth, large and tied, noise; and a categorical column."""
    makers = [lambda: rng.normal(0, 1, n) + 2.0 * aff, lambda: np.round(rng.normal(0, 1, n) + aff, 0),
              lambda: np.arange(n, dtype=float) + rng.normal(0, 0.01, n), lambda: np.r_[1.0, np.full(n - 1, 2.0)],
              lambda: np.r_[np.zeros(max(step + int(rng.integers(-2, 3)), 0)), np.ones(n)][:n] * 3.0,
              lambda: np.cumsum(rng.normal(0, 1, n)), lambda: rng.integers(0, 3, n).astype(float) * 1e9,
              lambda: rng.normal(0, 1, n)]
    cols = {(f"k{j}.cpu{j % 2}" if j % 4 == 0 else f"k{j}"): makers[int(rng.integers(0, len(makers)))]()
            for j in range(int(rng.integers(4, 14)))}
    cols["host"] = __import__("pandas").Categorical(np.asarray(rng.choice(["a", "b"], n)))
    return S._array_columns(cols)


def _jobs(seed: int, count: int) -> list[tuple]:
    """(entries, aff, step index) of ``count`` benchmarks of three run counts."""
    rng = np.random.default_rng(seed)
    out = []
    for b in range(count):
        n = (20, 20, 13, 47)[b % 4]
        step = int(rng.integers(3, n - 3))
        scattered = rng.choice(n, int(rng.integers(3, n - 3)), replace=False)
        aff = np.isin(np.arange(n), scattered) if b % 3 == 0 else np.arange(n) >= step
        out.append((_columns(rng, n, aff, step), aff, step if b % 3 else None))
    return out


def _job(entries, aff, si, min_score):
    dense = S._dense_columns(entries)
    return S._BlockJob([entries[i] for i in dense], dense, aff, si, (0, 1, -1), min_score,
                       max(1.0, aff.size / 50.0), S._MaxT(aff), {})


def _found(found: dict) -> list:
    return [(i, s.metadata, s.score, [(k, [a.tolist() for a in v] if k == "_data" else v)
                                      for k, v in s.evidence.items()]) for i, s in found.items()]


def _perm(p: S._MaxT) -> list:
    return [(r.tolist(), v.tolist()) for r, v in p.blocks] + [p.n_ranks]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_block_suspects_together_equal_one_benchmark_at_a_time(seed):
    """_block_suspects_many of 40 benchmarks (run counts 13, 20 and 47; steps and scattered runs; ties,
    monotone, constant-after-shift and smooth columns) gives each the suspects, evidence (bit for bit, key
    order included), max-T rank blocks and lag-0 ranks of _block_suspects on it alone."""
    jobs = _jobs(seed, 40)
    min_score = 0.0 if seed != 2 else 0.3
    together = [_job(e, a, si, min_score) for e, a, si in jobs]
    alone = [_job(e, a, si, min_score) for e, a, si in jobs]
    many = S._block_suspects_many(together)
    one = [S._block_suspects(*j) for j in alone]
    checked = 0
    for a, b, ja, jb in zip(many, one, together, alone):
        assert _found(a) == _found(b)
        assert _perm(ja.perm) == _perm(jb.perm)
        assert {k: (v[0].tolist(), v[1].tolist()) for k, v in ja.ranks0.items()} == \
            {k: (v[0].tolist(), v[1].tolist()) for k, v in jb.ranks0.items()}
        checked += len(a)
    assert checked > 100


def test_block_suspects_together_leave_a_doubtful_monotone_test_to_each_benchmark(monkeypatch):
    """When any column of the stacked blocks is within 1e-9 of the 0.98 boundary, each benchmark's monotone
    test is decided on its own columns (np.corrcoef, as _block_suspects alone): the same kept columns."""
    jobs = [j for j in _jobs(5, 12) if j[2] is not None]
    calls = []
    real = S._index_sums_doubtful

    def doubtful(rho):
        calls.append(rho.size)
        return len(calls) == 1 or real(rho)  # (the stacked block: doubtful)
    monkeypatch.setattr(S, "_index_sums_doubtful", doubtful)
    many = S._block_suspects_many([_job(e, a, si, 0.0) for e, a, si in jobs])
    assert len(calls) > len({a.size for _, a, _ in jobs})  # (each benchmark again, on its own)
    monkeypatch.undo()
    one = [S._block_suspects(*_job(e, a, si, 0.0)) for e, a, si in jobs]
    assert [_found(f) for f in many] == [_found(f) for f in one]


def _suite(seed: int, runs: list[int]) -> dict:
    """A pyperf suite of benchmarks with the given run counts: steps, episodes, scattered slow runs or none;
    metadata with gaps (a key in some runs only; a null value), a categorical key, smooth and noisy numbers."""
    rng = np.random.default_rng(seed)
    t = dt.datetime(2024, 3, 1, 12)
    benches = []
    for b, n in enumerate(runs):
        kind = b % 4 if n >= 10 else 3
        slow = set()
        if kind == 0:
            slow = set(range(int(rng.integers(n // 3, n - 3)), n + 1))
        elif kind == 1:
            a = int(rng.integers(2, n - 6))
            slow = set(range(a, a + 4))
        elif kind == 2:
            slow = set(rng.choice(np.arange(1, n + 1), 3, replace=False).tolist())
        load = 1.0
        bench_runs = []
        for k in range(n + 1):
            f = 1.25 if k in slow else 1.0
            load = 0.8 * load + 0.2 * (2.0 if k in slow else 1.0) + 0.02 * rng.standard_normal()
            md = {"date": t.isoformat(sep=" "), "duration": 1.0, "load_avg_1min": round(load, 2),
                  "cpu_temp": f"coretemp:Package id 0={int(60 + (8 if k in slow else 0) + rng.normal(0, 1))} C",
                  "mem_max_rss": int(9e6 * (1 + 0.01 * rng.standard_normal())),
                  "cpu_freq": f"1,3={int(3300 + rng.integers(-30, 31))} MHz; 5,7=3300 MHz"}
            if rng.random() < 0.7:  # (a gap in the other runs)
                md["runnable_threads"] = int(rng.integers(1, 4) + (2 if k in slow else 0))
            if b % 5 == 0:
                md["hostname"] = "fast-host" if k not in slow else "slow-host"
            run = {"metadata": md, "warmups": [[1, 0.0105]]}
            if k == 0:
                md["calibrate_loops"] = 1
            else:
                run["values"] = (0.01 * f * (1 + 0.004 * rng.standard_normal(3))).tolist()
                if b % 3 == 0 and k == 2:
                    md["load_avg_1min"] = None  # (NaN in a numeric column)
            bench_runs.append(run)
            t += dt.timedelta(seconds=1.1)
        benches.append({"metadata": {"name": f"bm_{b:02d}", "loops": 1}, "runs": bench_runs})
    return {"version": "1.0", "metadata": {"hostname": "t", "unit": "second"}, "benchmarks": benches}


def _pm_json(pms) -> str:
    return json.dumps([pm.to_dict() for pm in pms], default=str)


def _reports(traces, options=None, monkeypatch=None):
    fast = analyze(traces, options)
    with pytest.MonkeyPatch.context() as mp:  # (every section one trace at a time)
        mp.setattr(_analyze._SectionBatches, "result", lambda self, i, sec: _analyze._run(sec, self.traces[i],
                                                                                            self.options))
        slow = analyze(traces, options)
    return fast, slow


def _same_reports(fast, slow) -> None:
    assert fast.to_json() == slow.to_json()
    assert fast.to_text(color=False) == slow.to_text(color=False)
    assert fast.findings == slow.findings


@pytest.mark.parametrize("seed,runs", [(0, [20] * 12 + [13] * 5 + [40] * 4 + [3, 2]), (1, [20] * 30),
                                       (2, [25, 9, 25, 9, 60, 25, 25])])
def test_postmortems_of_a_file_equal_the_per_benchmark_post_mortems(tmp_path, seed, runs):
    traces = load_traces(str(write_pyperf(tmp_path / "s.json", _suite(seed, runs))))
    together = postmortems(traces)
    alone = [postmortem(t) for t in traces]
    assert _pm_json(together) == _pm_json(alone)
    assert sum(len(pm.suspects) for pm in alone) >= 5  # (the suspects were ranked)
    opts = AnalysisOptions(params={"postmortem": {"min_ratio": 1.05, "max_suspects": 2}})
    a, b = runner_sections(traces, opts), [runner_section(t, opts) for t in traces]
    assert [json.dumps(s.fields, default=str) for s in a] == [json.dumps(s.fields, default=str) for s in b]
    assert [s.findings for s in a] == [s.findings for s in b]
    _same_reports(*_reports(traces))
    _same_reports(*_reports(traces, opts))


def test_chunks_and_progress_equal_the_per_benchmark_path(tmp_path, monkeypatch):
    """The batch runs in chunks of BATCH_CHUNK traces, as the steps reach them: a progress wrapper sees every
    step, and the report is the same for any chunk size."""
    traces = load_traces(str(write_pyperf(tmp_path / "s.json", _suite(6, [20] * 9 + [11] * 4))))
    want = _reports(traces)[1]
    for chunk in (1, 2, 5, 64):
        monkeypatch.setattr(_analyze, "BATCH_CHUNK", chunk)
        seen = []
        asked = []
        real = _analyze.resolve

        def counting(spec):
            f = real(spec)
            if spec.endswith(":runner_sections"):
                return lambda ts, options: asked.append(len(ts)) or f(ts, options)
            return f
        monkeypatch.setattr(_analyze, "resolve", counting)
        got = analyze(traces, progress=lambda steps: (seen.append(s) or s for s in steps))
        monkeypatch.undo()
        _same_reports(got, want)
        assert len(seen) == 2 * len(traces)
        assert asked == [min(chunk, len(traces) - k) for k in range(0, len(traces), chunk)]


def test_one_benchmark_and_bad_options(tmp_path):
    traces = load_traces(str(write_pyperf(tmp_path / "one.json", _suite(3, [20]))))
    assert _pm_json(postmortems(traces)) == _pm_json([postmortem(traces[0])])
    _same_reports(*_reports(traces))
    two = load_traces(str(write_pyperf(tmp_path / "two.json", _suite(4, [20, 20]))))
    with pytest.raises(ValueError, match="min_ratio"):
        analyze(two, AnalysisOptions(params={"postmortem": {"min_ratio": 0.5}}))
    assert postmortems([]) == []


def test_every_bundled_runner_file_equals_the_per_benchmark_path():
    checked = 0
    for path in sorted((DATA / "runners").iterdir()):
        try:
            traces = load_traces(str(path))
        except Exception:  # (a file that needs a sibling or options: covered by its loader's tests)
            continue
        if sum(t.kind == "runner" for t in traces) < 2:
            continue
        _same_reports(*_reports(traces))
        checked += 1
    assert checked >= 6
