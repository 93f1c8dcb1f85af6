"""Power suite for "two-level runs" (issue 12 bar: detection >= 90 % for two-level runs with each level >= 10 %
of the runs, at >= 20 runs), big enough to decide: runner two-level cases generated as
``benchmarks/calibration.py`` generates them (``bandkit.synthetic.noise``: noise 0.3-5 % per run, Gaussian or t3
tails, AR(1) <= 0.5, 1/f wander, clock ticks, 1-50 values per run, no spikes; minority level on 10-50 % of the runs
in alternating blocks of geometric length, mean dwell 1 .. share n / 4), with 20-200 runs (log-uniform), the level
gap drawn log-uniform inside each bin (5-10, 10-20, 20-50 %, either direction).

    python benchmarks/two_level_power.py [--per-bin 800] [--jobs 2] [--save runs.json]
    python benchmarks/two_level_power.py --load before=main.json now=branch.json   # side by side
    PYTHONPATH=/other/checkout python benchmarks/two_level_power.py --save main.json  # another bandkit

Every case has a **null twin**: the same seed, shape, noise draw and level pattern with ratio 1 (the generator
draws the same random numbers), so the false-alarm rate is measured on exactly the population the hit rate is.

*Detected* (as ``calibration.py`` counts it): the runner trace's findings hold ``bimodal`` or ``bands`` (the
post-mortem verdicts "bimodal" / "N levels"). A false alarm: a null twin with either.

*Oracles* (what anyone could resolve at the detector's false-alarm rate): (a) **labels known**: Welch's t of the log
run means of the two true groups; (b) **order-blind, labels unknown**: the best least-squares split of the sorted
log run means (``noise.two_group_t``, groups >= 3 runs and 10 %). Each oracle's threshold is set on the null twins
(the same labels for (a)) so that its false-alarm rate equals the detector's (floor 1 %); its hit rate is then
measured on the power cases.

Cells: level gap in % and in units of the within-level noise sd of a run mean (``gap_sd`` = |log ratio| / pooled
sd of the log run means inside the true groups: measured, so it holds AR, 1/f, ticks and tails; floored by the
quantisation noise tick / sqrt(12)). "Resolvable" in
``calibration.py`` is gap >= 4 sd of the nominal run-mean sd. Rates carry a Wilson 95 % interval.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
from collections import Counter
from pathlib import Path

import warnings

import numpy as np

warnings.filterwarnings("ignore", category=RuntimeWarning)

HERE = Path(__file__).resolve().parent
GAP_BINS = ((0.05, 0.10), (0.10, 0.20), (0.20, 0.50))
SD_BINS = ((0, 2), (2, 4), (4, 6), (6, 10), (10, math.inf))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


calib = _load("_calib_harness", HERE / "calibration.py")
nz = calib.nz


def cases(per_bin: int, effect: str = "two_level") -> list[dict]:
    off = {"two_level": 0, "episode": 100_000, "step": 200_000}[effect]
    out = []
    for b, (lo, hi) in enumerate(GAP_BINS):
        for i in range(per_bin):
            out.append({"bin": b, "seed": 70_000 + off + 10_000 * b + i, "effect": effect})
    return out


def generate(case: dict, ratio_one: bool = False):
    rng = np.random.default_rng([case["seed"], 3])
    n = int(round(math.exp(rng.uniform(math.log(20), math.log(200)))))
    _, k = nz.random_shape(rng, min_runs=20, max_runs=200)
    noise = nz.random_noise(rng, spikes=False)
    lo, hi = GAP_BINS[case["bin"]]
    gap = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    ratio = 1.0 + gap * rng.choice([-1.0, 1.0])
    return nz.run_sequence(case.get("effect", "two_level"), n_runs=n, values_per_run=k, noise=noise, marked=True, seed=case["seed"],
                           ratio=1.0 if ratio_one else float(ratio)), float(ratio)


def _welch_p(x: np.ndarray, lab: np.ndarray) -> float:
    from scipy import stats
    a, b = x[lab], x[~lab]
    if a.size < 2 or b.size < 2:
        return 1.0
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def _verdict(seq, name: str) -> dict:
    import bandkit
    rep = bandkit.analyze(calib.runner_trace(seq, name))
    entry = rep.to_dict()["traces"][0]
    kinds = sorted({f["kind"] for f in rep.findings if f.get("trace") == 0})
    return {"kinds": kinds, "verdict": entry.get("verdict"), "n_outliers": len(entry.get("outlier_runs") or []),
            "n_bands": len(entry.get("bands") or []), "n_steps": len(entry.get("steps") or []),
            "n_episodes": len(entry.get("episodes") or [])}


def evaluate(case: dict) -> dict:
    from bandkit.postmortem.noise import two_group_t
    seq, ratio = generate(case)
    twin, _ = generate(case, ratio_one=True)
    lab = seq.signal != 1.0
    x, x0 = np.log(seq.run_means), np.log(twin.run_means)
    r = dict(case, n_runs=seq.n_runs, values_per_run=seq.values_per_run, noise=seq.noise.describe(),
             ratio=ratio, share=float(lab.mean()), dwell=seq.truth.get("dwell"), blocks=seq.truth.get("episodes"),
             tick_rel=seq.noise.tick / seq.level,
             nominal_sd=math.sqrt(seq.noise.run_sd ** 2 + seq.noise.value_sd ** 2 / seq.values_per_run))
    # within-level sd measured on the null twin's values with the true groups (pooled)
    res = np.r_[x0[lab] - x0[lab].mean(), x0[~lab] - x0[~lab].mean()] if 0 < lab.sum() < lab.size else x0 - x0.mean()
    # (floored by the quantisation noise of the clock tick, tick / sqrt(12): runs that a coarse tick rounds to
    # one value have no spread, yet a level one tick away is no clearer for it)
    r["level_sd"] = max(float(np.sqrt(np.sum(res ** 2) / max(res.size - 2, 1))), r["tick_rel"] / math.sqrt(12.0))
    r["gap_sd"] = abs(math.log(ratio)) / r["level_sd"] if r["level_sd"] > 0 else math.inf
    r["p_known"], r["p_known_null"] = _welch_p(x, lab), _welch_p(x0, lab)
    t, t0 = two_group_t(x, 0.10, 3), two_group_t(x0, 0.10, 3)
    r["t_blind"] = -1.0 if t is None else float(t)
    r["t_blind_null"] = -1.0 if t0 is None else float(t0)
    name = f"two-level-{case['seed']}"
    r["power"] = _verdict(seq, name)
    r["null"] = _verdict(twin, name + "-null")
    return r


def _worker(path_in: str, path_out: str) -> None:
    cs = json.loads(Path(path_in).read_text())
    t0 = time.process_time()
    out = [evaluate(c) for c in cs]
    Path(path_out).write_text(json.dumps({"results": out, "cpu_s": time.process_time() - t0}))


def run(cs: list[dict], jobs: int) -> tuple[list[dict], float]:
    import subprocess
    import tempfile
    tmp = Path(tempfile.mkdtemp(prefix="tlpower-"))
    procs = []
    for j in range(jobs):
        pin, pout = tmp / f"in{j}.json", tmp / f"out{j}.json"
        pin.write_text(json.dumps(cs[j::jobs]))
        procs.append((subprocess.Popen([sys.executable, __file__, "--worker", str(pin), str(pout)],
                                       env=dict(os.environ)), pout))
    res, cpu = [], 0.0
    for p, pout in procs:
        if p.wait() != 0:
            raise SystemExit("worker failed")
        d = json.loads(pout.read_text())
        res += d["results"]
        cpu += d["cpu_s"]
    res.sort(key=lambda r: r["seed"])
    return res, cpu


# --------------------------------------------------------------------------- tables
def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def rate(k: int, n: int) -> str:
    if n == 0:
        return "–"
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.1f} % ({k}/{n}; {100 * lo:.1f}-{100 * hi:.1f})"


def hit(v: dict) -> bool:
    return bool({"bimodal", "bands"} & set(v["kinds"]))


def oracle_thresholds(res: list[dict]) -> dict:
    """Thresholds of the two oracles at the detector's null rate (floor 1 %) over all null twins."""
    fa = sum(hit(r["null"]) for r in res) / len(res)
    alpha = max(fa, 0.01)
    p0 = np.sort([r["p_known_null"] for r in res])
    t0 = np.sort([r["t_blind_null"] for r in res])
    return {"fa": fa, "alpha": alpha, "p_known": float(np.quantile(p0, alpha)),
            "t_blind": float(np.quantile(t0, 1 - alpha))}


def in_bar(r: dict) -> bool:
    """The bar's population: each level >= 10 % of the runs (realised), >= 20 runs."""
    return 0.10 <= r["share"] <= 0.90 and r["n_runs"] >= 20


def _sd_bin(r: dict) -> int:
    return next(i for i, (lo, hi) in enumerate(SD_BINS) if lo <= r["gap_sd"] < hi)


def render(named: dict[str, list[dict]]) -> str:
    names = list(named)
    ref = named[names[-1]]
    th = oracle_thresholds(ref)
    L = []
    L.append(f"False alarms (null twins, `bimodal` or `bands`): " + "; ".join(
        f"{k}: {rate(sum(hit(r['null']) for r in v), len(v))}" for k, v in named.items()))
    L.append(f"Oracle alpha (the detector's null rate of `{names[-1]}`, floor 1 %): {100 * th['alpha']:.2f} % -> "
             f"known-label Welch p <= {th['p_known']:.3g}; order-blind split t >= {th['t_blind']:.2f}; their own "
             f"null rates {100 * np.mean([r['p_known_null'] <= th['p_known'] for r in ref]):.2f} % / "
             f"{100 * np.mean([r['t_blind_null'] >= th['t_blind'] for r in ref]):.2f} %")
    L.append("")
    head = "| gap | gap / level sd | cases | " + " | ".join(f"{k}: detected" for k in names) + \
        " | oracle, labels known | oracle, order-blind |"
    L.append(head)
    L.append("|" + "---|" * (head.count("|") - 1))

    def row(label_gap, label_sd, sel):
        idx = [i for i, r in enumerate(ref) if sel(r)]
        cells = [rate(sum(hit(named[k][i]["power"]) for i in idx), len(idx)) for k in names]
        ok = rate(sum(ref[i]["p_known"] <= th["p_known"] for i in idx), len(idx))
        ob = rate(sum(ref[i]["t_blind"] >= th["t_blind"] for i in idx), len(idx))
        L.append(f"| {label_gap} | {label_sd} | {len(idx)} | " + " | ".join(cells) + f" | {ok} | {ob} |")

    for b, (lo, hi) in enumerate(GAP_BINS):
        g = f"{100 * lo:g}-{100 * hi:g} %"
        row(g, "all", lambda r, b=b: r["bin"] == b and in_bar(r))
        for s, (slo, shi) in enumerate(SD_BINS):
            row(g, f"{slo:g}-{shi:g}" if shi < math.inf else f">= {slo:g}",
                lambda r, b=b, s=s: r["bin"] == b and in_bar(r) and _sd_bin(r) == s)
        row(g, "resolvable (calibration.py: >= 4 nominal sd)",
            lambda r, b=b: r["bin"] == b and in_bar(r) and abs(math.log(r["ratio"])) >= 4 * r["nominal_sd"])
    row("all", ">= 4", lambda r: in_bar(r) and r["gap_sd"] >= 4)
    row("all", ">= 6", lambda r: in_bar(r) and r["gap_sd"] >= 6)
    L.append("")
    L.append("Where the misses go (bar population, verdicts of the power cases not detected, by gap / level sd):")
    L.append("")
    for k in names:
        res = named[k]
        for s, (slo, shi) in enumerate(SD_BINS):
            c = Counter(r["power"]["verdict"] for r in res if in_bar(r) and _sd_bin(r) == s and not hit(r["power"]))
            if c:
                L.append(f"- {k}, {slo:g}-{shi:g} sd: " + ", ".join(f"{v} {m}" for v, m in c.most_common()))
    return "\n".join(L)


def render_other(named: dict[str, list[dict]]) -> str:
    """Episodes / steps: verdicts per gap bin (the right kind, and "bimodal" / "N levels" that would be wrong)."""
    L = ["| gap | " + " | ".join(f"{k}: right kind | {k}: bimodal / bands | {k}: verdicts" for k in named) + " |"]
    L.append("|---|" + "---|---|---|" * len(named))
    want = {"episode": "episode_runs", "step": "step"}
    for b, (lo, hi) in enumerate(GAP_BINS):
        cells = []
        for k, res in named.items():
            sub = [r for r in res if r["bin"] == b]
            w = want[sub[0]["effect"]] if sub else ""
            c = Counter(r["power"]["verdict"] for r in sub)
            cells += [rate(sum(w in r["power"]["kinds"] for r in sub), len(sub)),
                      rate(sum(hit(r["power"]) for r in sub), len(sub)), ", ".join(f"{v} {m}" for v, m in c.most_common())]
        L.append(f"| {100 * lo:g}-{100 * hi:g} % | " + " | ".join(cells) + " |")
    return "\n".join(L)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-bin", type=int, default=800)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--effect", choices=("two_level", "episode", "step"), default="two_level",
                    help="episode / step: the same shapes and noise with an episode that reverts or a step, to see "
                         "that a change of the two-level gates does not turn them into levels")
    ap.add_argument("--save")
    ap.add_argument("--load", nargs="*", default=[], help="NAME=FILE saved results to show beside")
    ap.add_argument("--skip-current", action="store_true")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        _worker(*a.worker)
        return 0
    named = {}
    for item in a.load:
        k, _, f = item.partition("=")
        named[k] = json.loads(Path(f).read_text())["results"]
    if not a.skip_current:
        t = time.time()
        res, cpu = run(cases(a.per_bin, a.effect), a.jobs)
        print(f"{len(res)} cases x 2 (power + null twin): {time.time() - t:.0f} s wall, {cpu:.0f} s CPU, "
              f"load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        if a.save:
            Path(a.save).write_text(json.dumps({"results": res}))
        named["now"] = res
    print(render(named) if a.effect == "two_level" else render_other(named))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
