"""Bands on the real traces (issue 3 "Done when"): the four recorded FTQ traces and the pyperf file.

For each FTQ trace prints the bands found next to what the count histogram shows (its two most
prominent humps after a 15-count moving average, which smooths FTQ's count comb), and for the
pyperf result the per-run means of pickle_list and their bands. Reads the copies under data/
(provenance in data/README.md); ``--shared`` reads /work/shared/data/ftq/recorded-vm instead.

Usage: python3 benchmarks/bands_real.py [--shared]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy.signal import find_peaks

import bandkit
from bandkit.bands import find_bands
from bandkit.bands.api import run_means

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["ftq_f10000_quiet_0", "ftq_f10000_intf100Hz_1ms_0", "ftq_f7777_quiet_0",
         "ftq_f7777_intf100Hz_1ms_0"]


def histogram_humps(v: np.ndarray, n: int = 2) -> list[int]:
    """The ``n`` most prominent humps of the integer count histogram (15-count moving average,
    humps at least 30 counts apart): what a person reading the histogram calls its levels."""
    v = v[v > 0].astype(int)
    lo = int(np.quantile(v, 0.01))
    v = v[v >= lo]
    h = np.bincount(v - lo).astype(float)
    sm = np.convolve(h, np.ones(15) / 15, mode="same")
    pk, prop = find_peaks(np.r_[0, sm, 0], prominence=0, distance=30)
    order = np.argsort(-prop["prominences"])[:n]
    return sorted(int(lo + pk[i] - 1) for i in order)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", action="store_true")
    a = ap.parse_args()
    for name in NAMES:
        path = (Path("/work/shared/data/ftq/recorded-vm") / f"{name}.dat" if a.shared
                else ROOT / "data" / "ftq" / f"{name}.dat.gz")
        t = bandkit.load(path)
        t0 = time.perf_counter()
        r = find_bands(t)
        el = time.perf_counter() - t0
        print(f"{name}: {r.n_analysed:,} samples analysed ({r.excluded:,} stall-adjacent excluded), "
              f"{el:.2f} s; histogram humps at {histogram_humps(t.values)}")
        for b in r.bands:
            print(f"   band {b.level:7.1f}  spread {b.spread:6.1f}  [{b.lo:.0f}, {b.hi:.0f}]  "
                  f"share {b.share:6.1%}  time {b.share_time:6.1%}  episodes {b.episodes:6d}  "
                  f"dwell median/p95/max {b.dwell_median_s * 1e3:.2f}/{b.dwell_p95_s * 1e3:.2f}/"
                  f"{b.dwell_max_s * 1e3:.1f} ms")
        print(f"   intermediate {r.intermediate:,}, outliers {r.outliers:,} "
              f"({r.outliers / r.n_analysed:.1%}), degraded episodes {len(r.degraded_episodes):,}")
    runs = bandkit.load(ROOT / "data" / "runners" / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz")
    pl = next(x for x in runs if x.meta.name == "pickle_list")
    means, _ = run_means(pl)
    r = find_bands(pl, per_run=True)
    print("pyperf pickle_list per-run means (us):", np.round(means * 1e6, 2).tolist())
    print(f"   {r.n_bands} bands: " + ", ".join(f"{b.level * 1e6:.2f} us x {b.count} runs" for b in r.bands)
          + f"; labels {r.labels.tolist()}")
    counts = {}
    for x in runs:
        n = find_bands(x, per_run=True).n_bands
        counts[n] = counts.get(n, 0) + 1
    print(f"   all {len(runs)} benchmarks of the file, number of bands of the run means: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
