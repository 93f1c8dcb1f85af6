"""Calibration harness: false-alarm rates on a null suite and detection rates on a power suite, for
every verdict / finding kind, through the public pipeline (``bandkit.analyze``).

Run from the repository root:

    python3 benchmarks/calibration.py [--quick] [--against OLD_CHECKOUT] [--save runs.json]
    python3 benchmarks/calibration.py --quick --load before=old.json   # saved results + this checkout

``--against DIR`` runs the same seeded suites through the bandkit of another checkout (e.g. a
worktree at the commit before a change) in a subprocess and prints both side by side. The suites
come from :mod:`bandkit.synthetic.noise` of *this* checkout (loaded by path, so the old checkout
needs nothing new). Results are written as Markdown to standard output (for
benchmarks/RESULTS_calibration.md).

Suites (seeded; counts for the full run, ``--quick`` about a quarter):

- runner null: stationary run sequences (20-10,000 runs, 1-50 values per run, noise drawn per
  series: 0.3-5 % sd, Gaussian or t3 tails, AR(1) <= 0.5, 1/f wander, isolated spikes on 0.1-2 %
  of the runs, clock-tick quantisation; see ``bandkit.synthetic.noise.random_noise``), analysed
  as runner traces (post-mortem); metadata columns independent of the values.
- series null: the same sequences (run means) as "series" traces (change points + bands).
- FTQ null: pairs of FTQ-like traces at 10 kHz and 7,777 Hz (5 s), noise as above, half with random
  (non-periodic) band switching, stalls; no periodic source.
- power suites: the same noise with a step (2-50 %), an episode that reverts, two levels (minority
  on 10-50 % of runs), a drift (5-50 %), slow first runs, or isolated spikes; and FTQ pairs with a
  physical line at 6-20 dB (as the default Welch spectrum would see it).

A *false alarm* is a null series with at least one finding of the kind (outliers: only counted on
null series without spikes and with Gaussian tails, where no run is an outlier by construction;
bands of FTQ traces: only on traces without band switching). *Detection*: the power series gets the
right verdict / finding (and where stated, at the right place).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _load_noise_module():
    spec = importlib.util.spec_from_file_location("_calib_noise", ROOT / "bandkit" / "synthetic" / "noise.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_calib_noise"] = mod
    spec.loader.exec_module(mod)
    return mod


nz = _load_noise_module()

# --------------------------------------------------------------------------- suite definition
RUNNER_EFFECTS = ("step", "episode", "two_level", "trend", "warmup", "spikes")
SERIES_EFFECTS = ("step", "two_level")
FTQ_SNR_DB = (6.0, 8.0, 10.0, 12.0, 15.0, 20.0)
FTQ_RATES = (10_000.0, 7_777.0)


def suite_cases(quick: bool) -> list[dict]:
    """The list of cases (plain dicts: every case is regenerated from its dict in the worker)."""
    f = 4 if quick else 1
    cases: list[dict] = []
    for i in range(800 // f):
        cases.append({"suite": "null", "trace": "runner", "effect": "none", "seed": i})
    for i in range(400 // f):
        cases.append({"suite": "null", "trace": "series", "effect": "none", "seed": 10_000 + i})
    for i in range(80 // f):
        cases.append({"suite": "null", "trace": "ftq", "effect": "none", "seed": 20_000 + i})
    for e in RUNNER_EFFECTS:
        for i in range(240 // f):
            cases.append({"suite": "power", "trace": "runner", "effect": e, "seed": 30_000 + 1000 * RUNNER_EFFECTS.index(e) + i})
    for e in SERIES_EFFECTS:
        for i in range(160 // f):
            cases.append({"suite": "power", "trace": "series", "effect": e, "seed": 40_000 + 1000 * SERIES_EFFECTS.index(e) + i})
    for snr in FTQ_SNR_DB:
        for i in range(24 // f):
            cases.append({"suite": "power", "trace": "ftq", "effect": "line", "snr_db": snr,
                          "seed": 50_000 + 100 * int(snr) + i})
    return cases


def generate(case: dict):
    """The RunSequence (runner / series) or the pair of FtqCounts (FTQ) of a case."""
    seed = case["seed"]
    rng = np.random.default_rng([seed, 1])
    if case["trace"] in ("runner", "series"):
        shape = {} if case["trace"] == "runner" else {"max_values": 10_000}
        if case["effect"] == "none":
            n, k = nz.random_shape(rng, **shape)
            if case["trace"] == "series":
                k = 1
            return nz.run_sequence("none", n_runs=n, values_per_run=k, noise=nz.random_noise(rng), seed=seed)
        seq = nz.power_case(case["effect"], rng, seed=seed, **shape)
        if case["trace"] == "series" and seq.values_per_run > 1:
            seq = nz.run_sequence(seq.effect, n_runs=seq.n_runs, values_per_run=1, noise=seq.noise, seed=seed,
                                  **{k: v for k, v in seq.truth.items() if k in ("at", "ratio", "share", "dwell")})
        return seq
    # FTQ pair: same noise draw, same physical line, two sampling rates
    tails = "t3" if rng.random() < 0.5 else "gaussian"
    kw = dict(duration_s=5.0, noise_sd=float(math.exp(rng.uniform(math.log(0.002), math.log(0.01)))),
              tails=tails, ar1=float(rng.uniform(0, 0.5)) if rng.random() < 0.6 else 0.0,
              wander_sd=0.0, stall_rate_hz=float(rng.choice([0.0, 0.5, 2.0])))
    if case["effect"] == "none" and rng.random() < 0.5:
        kw.update(band_ratio=float(rng.uniform(0.85, 0.97)), band_dwell_s=float(rng.uniform(0.005, 0.2)),
                  band_share=float(rng.uniform(0.1, 0.4)))
    if case["effect"] == "line":
        kw.update(line_hz=float(rng.uniform(20.0, 1500.0)), line_snr_db=float(case["snr_db"]))
    return [nz.ftq_counts(fs, seed=seed, rng=np.random.default_rng([seed, 2, int(fs)]), **kw)
            for fs in FTQ_RATES]


# --------------------------------------------------------------------------- traces (public API)
def runner_trace(seq, name: str):
    from bandkit.loaders.runner_common import build_runner_trace
    from bandkit.loaders.source import Source

    md = seq.metadata
    keys = list(md)
    runs = [(seq.values[r].tolist(), {k: md[k][r] for k in keys}) for r in range(seq.n_runs)]
    return build_runner_trace(Source(name=name), "csv", name, runs, value_unit="ms",
                              times=(np.arange(seq.n_runs) * 60.0).tolist())


def series_trace(seq, name: str):
    import pandas as pd

    from bandkit.trace import Trace, TraceMeta

    v = seq.run_means
    df = pd.DataFrame({"time": np.arange(v.size, dtype=np.float64), "value": v})
    return Trace(df, TraceMeta(path=name, format="synthetic", kind="series", value_unit="ms"))


def ftq_trace(fc, name: str):
    import pandas as pd

    from bandkit.trace import Trace, TraceMeta

    df = pd.DataFrame({"time": fc.time_s, "value": fc.count, "catchup": fc.catchup})
    return Trace(df, TraceMeta(path=name, format="synthetic", kind="ftq", sampling_hz=fc.fs, time_unit="s",
                               value_unit="count", header={"Frequency": fc.fs}))


# --------------------------------------------------------------------------- evaluation
def _kinds(findings) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for f in findings:
        out.setdefault(f["kind"], []).append(f)
    return out


def evaluate(case: dict) -> dict:
    """Analyse one case; returns the case plus what bandkit said (kinds, verdict, locations)."""
    import bandkit

    obj = generate(case)
    name = f"{case['trace']}-{case['effect']}-{case['seed']}"
    res: dict = dict(case)
    if case["trace"] == "ftq":
        traces = [ftq_trace(fc, f"{name}-{int(fc.fs)}") for fc in obj]
        rep = bandkit.analyze(traces)
        kinds = _kinds(rep.findings)
        res["kinds"] = sorted(kinds)
        res["bands_truth"] = len(obj[0].bands) > 1
        lines = [(f["alias_hz"], f["sampling_hz"]) for f in kinds.get("spectral_line", [])]
        res["lines"] = lines
        res["n_lines"] = len(lines)
        res["external"] = [f.get("freq_hz") for f in kinds.get("periodic_interference", [])]
        if obj[0].line_hz is not None:
            f0 = obj[0].line_hz
            hit = []
            for fs in FTQ_RATES:
                alias = abs(f0 - fs * round(f0 / fs))
                hit.append(any(abs(a - alias) <= 3.0 for a, s in lines if abs(s - fs) < 1))
            res["line_hz"] = f0
            res["line_found"] = all(hit)
            res["line_found_any"] = any(hit)
            res["external_found"] = any(x is not None and abs(x - f0) <= 3.0 for x in res["external"])
        return res
    seq = obj
    res.update(n_runs=seq.n_runs, values_per_run=seq.values_per_run, noise=seq.noise.describe(),
               run_sd=seq.noise.run_sd, value_sd=seq.noise.value_sd, tails=seq.noise.tails,
               spikes=int(seq.spike_runs.size), tick=seq.noise.tick, truth=seq.truth, marker=seq.marker)
    if case["trace"] == "runner":
        tr = runner_trace(seq, name)
        rep = bandkit.analyze(tr)
        entry = rep.to_dict()["traces"][0]
        kinds = _kinds(f for f in rep.findings if f.get("trace") == 0)
        res["kinds"] = sorted(kinds)
        res["verdict"] = entry.get("verdict")
        res["suspects"] = [s["metadata"] for s in entry.get("suspects") or []]
        res["steps"] = [s["run"] for s in entry.get("steps") or []]
        res["episodes"] = [[e.get("start_run"), e.get("end_run")] for e in entry.get("episodes") or []]
        res["outlier_runs"] = len(entry.get("outlier_runs") or [])
    else:
        tr = series_trace(seq, name)
        rep = bandkit.analyze(tr)
        entry = rep.to_dict()["traces"][0]
        kinds = _kinds(rep.findings)
        res["kinds"] = sorted(kinds)
        res["changepoints"] = [c["index"] for c in entry.get("changepoints") or []]
        res["n_bands"] = len(entry.get("bands") or [])
    return res


def worker_main(path_in: str, path_out: str) -> None:
    cases = json.loads(Path(path_in).read_text())
    out = []
    t0 = time.process_time()
    for c in cases:
        t = time.process_time()
        r = evaluate(c)
        r["cpu_s"] = time.process_time() - t
        out.append(r)
    Path(path_out).write_text(json.dumps({"results": out, "cpu_s": time.process_time() - t0}))


def run_cases(cases: list[dict], bandkit_root: Path, jobs: int) -> tuple[list[dict], float]:
    """Evaluate ``cases`` with the bandkit of ``bandkit_root`` in ``jobs`` subprocesses."""
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="calib-"))
    chunks = [cases[i::jobs] for i in range(jobs)]
    procs = []
    for j, ch in enumerate(chunks):
        pin, pout = tmp / f"in{j}.json", tmp / f"out{j}.json"
        pin.write_text(json.dumps(ch))
        env = dict(os.environ, PYTHONPATH=str(bandkit_root))
        procs.append((subprocess.Popen([sys.executable, __file__, "--worker", str(pin), str(pout)], env=env,
                                       cwd=str(bandkit_root)), pout))
    results, cpu = [], 0.0
    for p, pout in procs:
        if p.wait() != 0:
            raise SystemExit(f"worker failed for {bandkit_root}")
        d = json.loads(pout.read_text())
        results += d["results"]
        cpu += d["cpu_s"]
    order = {(c["trace"], c["effect"], c["seed"], c.get("snr_db")): i for i, c in enumerate(cases)}
    results.sort(key=lambda r: order[(r["trace"], r["effect"], r["seed"], r.get("snr_db"))])
    return results, cpu


# --------------------------------------------------------------------------- tables
RUNNER_KINDS = [("step", {"step"}), ("episode", {"episode_runs"}), ("bands / bimodal", {"bimodal", "bands"}),
                ("outliers", {"outlier_runs"}), ("trend", {"trend"}), ("warm-up", {"warmup"})]


def _rate(k: int, n: int) -> str:
    if n == 0:
        return "–"
    return f"{100.0 * k / n:.1f} % ({k}/{n})"


def false_alarms(res: list[dict]) -> list[tuple[str, str, int, int]]:
    """(kind, population, false alarms, series) rows."""
    rows = []
    rn = [r for r in res if r["suite"] == "null" and r["trace"] == "runner"]
    clean = [r for r in rn if r["spikes"] == 0 and r["tails"] == "gaussian"]
    for label, ks in RUNNER_KINDS:
        pop = clean if label == "outliers" else rn
        rows.append((label, "runner" + (" (no spikes, Gaussian)" if label == "outliers" else ""),
                     sum(bool(ks & set(r["kinds"])) for r in pop), len(pop)))
    rows.append(("suspect", "runner", sum(bool(r["suspects"]) for r in rn), len(rn)))
    sn = [r for r in res if r["suite"] == "null" and r["trace"] == "series"]
    rows.append(("level_shift", "series", sum("level_shift" in r["kinds"] for r in sn), len(sn)))
    rows.append(("bands", "series", sum("band_levels" in r["kinds"] for r in sn), len(sn)))
    fn = [r for r in res if r["suite"] == "null" and r["trace"] == "ftq"]
    fb = [r for r in fn if not r["bands_truth"]]
    rows.append(("bands", "FTQ (no band switching)", sum("band_levels" in r["kinds"] for r in fb), len(fb)))
    rows.append(("level_shift", "FTQ (no band switching)", sum("level_shift" in r["kinds"] for r in fb), len(fb)))
    rows.append(("spectral line", "FTQ pairs", sum("spectral_line" in r["kinds"] for r in fn), len(fn)))
    rows.append(("external interference", "FTQ pairs", sum("periodic_interference" in r["kinds"] for r in fn), len(fn)))
    return rows


def _effective_sd(r: dict) -> float:
    """Relative noise sd of a run mean (run noise + within-run noise averaged over the run)."""
    return math.sqrt(r["run_sd"] ** 2 + r["value_sd"] ** 2 / max(r["values_per_run"], 1))


def _hit(r: dict) -> bool:
    """Did bandkit say what the power case holds (kind, and for steps the place within 5 % of n)?"""
    e, t, ks = r["effect"], r["truth"], set(r["kinds"])
    if r["trace"] == "series":
        if e == "step":
            tol = max(2, int(0.05 * r["n_runs"]))
            return "level_shift" in ks and any(abs(c - t["at"]) <= tol for c in r["changepoints"])
        return "band_levels" in ks
    if e == "step":
        tol = max(2, int(0.05 * r["n_runs"]))
        return "step" in ks and any(abs((s - 1) - t["at"]) <= tol for s in r["steps"])
    if e == "episode":
        return "episode_runs" in ks
    if e == "two_level":
        return bool({"bimodal", "bands"} & ks)
    if e == "trend":
        return "trend" in ks
    if e == "warmup":
        return "warmup" in ks
    if e == "spikes":
        return "outlier_runs" in ks
    return False


def _bucket(r: dict) -> str:
    t = r["truth"]
    if r["effect"] in ("step", "episode", "two_level", "trend"):
        size = abs(t["ratio"] - 1.0)
        return "2-5 %" if size < 0.05 else "5-10 %" if size < 0.1 else "10-20 %" if size < 0.2 else "20-50 %"
    return "all"


def _resolvable(r: dict) -> bool:
    """The effect stands clear of the noise: |log ratio| >= 4 x the sd of a run mean (steps,
    episodes, levels), with the episode / minority level >= 3 runs long where that applies."""
    t = r["truth"]
    if "ratio" not in t:
        return True
    if abs(math.log(t["ratio"])) < 4 * _effective_sd(r):
        return False
    if r["effect"] == "step":
        return min(t["at"], r["n_runs"] - t["at"]) >= 3
    if r["effect"] == "episode":
        return t["end"] - t["start"] + 1 >= 3
    return True


def power_rows(res: list[dict]) -> list[tuple]:
    rows = []
    for tr, effects in (("runner", RUNNER_EFFECTS), ("series", SERIES_EFFECTS)):
        for e in effects:
            pop = [r for r in res if r["suite"] == "power" and r["trace"] == tr and r["effect"] == e]
            for b in ("2-5 %", "5-10 %", "10-20 %", "20-50 %", "all"):
                sub = [r for r in pop if _bucket(r) == b]
                if not sub:
                    continue
                res_ = [r for r in sub if _resolvable(r)]
                rows.append((tr, e, b, sum(map(_hit, sub)), len(sub), sum(map(_hit, res_)), len(res_)))
    return rows


def suspect_rows(res: list[dict]) -> list[tuple]:
    rows = []
    for e in RUNNER_EFFECTS:
        pop = [r for r in res if r["suite"] == "power" and r["trace"] == "runner" and r["effect"] == e
               and r["marker"] and _hit(r)]
        top = sum(bool(r["suspects"]) and r["suspects"][0] == r["marker"] for r in pop)
        wrong = sum(any(s != r["marker"] for s in r["suspects"]) for r in pop)
        rows.append((e, top, wrong, len(pop)))
    return rows


def ftq_rows(res: list[dict]) -> list[tuple]:
    rows = []
    for snr in FTQ_SNR_DB:
        pop = [r for r in res if r["suite"] == "power" and r["trace"] == "ftq" and r.get("snr_db") == snr]
        rows.append((snr, sum(r["line_found"] for r in pop), sum(r["external_found"] for r in pop), len(pop)))
    return rows


def confusion(res: list[dict]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in res:
        if r["trace"] != "runner":
            continue
        key = f"{r['suite']}:{r['effect']}"
        v = r.get("verdict") or "?"
        out.setdefault(key, {})
        out[key][v] = out[key].get(v, 0) + 1
    return out


def _side_by_side(lines: list[str], names: list[str], per_name: dict, keys, key_header: list[str],
                  cells, cell_headers: list[str]) -> None:
    """A Markdown table: key columns from the first column's rows, then each name's cells."""
    lines.append("| " + " | ".join(key_header + [f"{n}: {h}" for n in names for h in cell_headers]) + " |")
    lines.append("|" + "---|" * (len(key_header) + len(names) * len(cell_headers)))
    for i, row in enumerate(per_name[names[0]]):
        lines.append("| " + " | ".join(keys(row) + [c for n in names for c in cells(per_name[n][i])]) + " |")


def render(columns: dict[str, tuple[list[dict], float]]) -> str:
    names = list(columns)
    res = {n: columns[n][0] for n in names}
    lines = ["### False alarms on the null suite (share of series with the finding)\n"]
    _side_by_side(lines, names, {n: false_alarms(res[n]) for n in names}, lambda r: [r[0], r[1]],
                  ["kind", "population"], lambda r: [_rate(r[2], r[3])], ["false alarms"])
    lines.append("\n### Detection on the power suite\n")
    lines.append("*all*: every case of the bucket; *resolvable*: effect >= 4 sd of a run mean (and >= 3 runs "
                 "on the short side of a step / in an episode). Steps count only at the right run (+-5 % of n).\n")
    _side_by_side(lines, names, {n: power_rows(res[n]) for n in names}, lambda r: [r[0], r[1], r[2]],
                  ["trace", "effect", "size"], lambda r: [_rate(r[3], r[4]), _rate(r[5], r[6])],
                  ["all", "resolvable"])
    lines.append("\n### Suspects on the power suite (a metadata column marks the affected runs)\n")
    lines.append("Among the cases with the right verdict: the marker ranked first; any other column reported.\n")
    _side_by_side(lines, names, {n: suspect_rows(res[n]) for n in names}, lambda r: [r[0]], ["effect"],
                  lambda r: [_rate(r[1], r[3]), _rate(r[2], r[3])], ["marker first", "other column named"])
    lines.append("\n### FTQ lines (pairs at 10 kHz and 7,777 Hz; line at a random 20-1,500 Hz)\n")
    _side_by_side(lines, names, {n: ftq_rows(res[n]) for n in names}, lambda r: [f"{r[0]:g}"], ["SNR dB"],
                  lambda r: [_rate(r[1], r[3]), _rate(r[2], r[3])], ["line in both traces", "external at the true f"])
    lines.append("\n### Runner verdicts per suite (confusion)\n")
    for n in names:
        lines += [f"**{n}**\n", "| suite:effect | verdicts |", "|---|---|"]
        for key, d in confusion(res[n]).items():
            lines.append(f"| {key} | " + ", ".join(f"{v} {c}" for v, c in sorted(d.items(), key=lambda kv: -kv[1])) + " |")
        lines.append("")
    lines.append("CPU time: " + ", ".join(f"{n} {columns[n][1]:.0f} s" for n in names))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="about a quarter of the cases")
    ap.add_argument("--against", type=Path, help="another checkout of bandkit to compare with (column 'before')")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes per checkout")
    ap.add_argument("--save", type=Path, help="write every case's result as JSON (all columns)")
    ap.add_argument("--load", nargs="*", default=[], metavar="NAME=PATH",
                    help="add saved results as columns (from --save) instead of running them again")
    ap.add_argument("--skip-current", action="store_true", help="do not run this checkout (with --against: save the old one)")
    ap.add_argument("--traces", nargs="*", choices=("runner", "series", "ftq"),
                    help="only the cases of these trace kinds (e.g. runner: the suspects' and verdicts' rows)")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        worker_main(*a.worker)
        return 0
    cases = suite_cases(a.quick)
    if a.traces:
        cases = [c for c in cases if c["trace"] in a.traces]
    print(f"command: python3 benchmarks/calibration.py {' '.join(sys.argv[1:])}")
    print(f"date: {time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.1f}, "
          f"Python {platform.python_version()}, {len(cases)} cases\n")
    columns: dict[str, tuple[list[dict], float]] = {}
    for spec in a.load:
        name, _, path = spec.partition("=")
        saved = json.loads(Path(path).read_text())
        for k, v in saved.items():
            columns[name if len(saved) == 1 else f"{name}:{k}"] = (v["results"], v["cpu_s"])
    if a.against:
        columns["before"] = run_cases(cases, a.against.resolve(), a.jobs)
    if not a.skip_current:
        columns["now" if (a.against or a.load) else "bandkit"] = run_cases(cases, ROOT, a.jobs)
    if a.save:
        a.save.write_text(json.dumps({k: {"results": v[0], "cpu_s": v[1]} for k, v in columns.items()}))
    print(render(columns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
