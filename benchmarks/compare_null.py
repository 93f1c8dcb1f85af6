"""False alarms and power of ``bandkit compare`` on real run sequences: each benchmark's runs of one real file are
split at random into two halves (A and B: the same code, machine and session, so nothing changed), optionally B
multiplied by ``--shift``; counts the benchmarks called significant per benchmark and per file, with and without
the Benjamini-Hochberg false discovery rate (``q_value``).

    python benchmarks/compare_null.py FILE [FILE ...] [--reps 50] [--shift 1.0 1.05]

Seeded; prints a Markdown table.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import bandkit
from bandkit.compare import compare
from bandkit.loaders.runner_common import build_runner_trace
from bandkit.loaders.source import Source


def _runs(path: str):
    out = []
    for t in bandkit.load(path):
        if t.meta.extra.get("summary_only") or not t.has_column("run"):
            continue
        v = np.asarray(t.values, float)
        r = np.asarray(t.column("run", samples=True))
        runs = [v[r == k] for k in np.unique(r)]
        if len(runs) >= 8:
            out.append((t.meta.name, runs, t.meta.value_unit))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--shift", type=float, nargs="+", default=[1.0])
    a = ap.parse_args(argv)
    print("| file | benchmarks | B shifted | significant, per benchmark | per file (mean) | files with >= 1 | "
          "at 5 % FDR, per benchmark | per file (mean) | files with >= 1 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in a.files:
        per = _runs(path)
        for shift in a.shift:
            rng = np.random.default_rng(1)
            sig, fdr = [], []
            for i in range(a.reps):
                A, B = [], []
                for name, runs, unit in per:
                    idx = rng.permutation(len(runs))
                    h = len(runs) // 2
                    A.append(build_runner_trace(Source(name="a.json"), "csv", name,
                                                [(list(runs[j]), {}) for j in sorted(idx[:h])], value_unit=unit))
                    B.append(build_runner_trace(Source(name="b.json"), "csv", name,
                                                [(list(runs[j] * shift), {}) for j in sorted(idx[h:])],
                                                value_unit=unit))
                d = compare(A, B, n_boot=500, seed=i).to_dict()
                sig.append(d["n_significant"])
                fdr.append(d["n_significant_fdr"])
            n = len(per)
            print(f"| {Path(path).name[:40]} | {n} | x{shift:g} | {100 * sum(sig) / (n * a.reps):.1f} % | "
                  f"{np.mean(sig):.2f} | {100 * np.mean(np.array(sig) > 0):.0f} % | "
                  f"{100 * sum(fdr) / (n * a.reps):.1f} % | {np.mean(fdr):.2f} | {100 * np.mean(np.array(fdr) > 0):.0f} % |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
