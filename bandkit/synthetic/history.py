"""Seeded CI histories shaped like SAP HANA's performance-regression data (for tests, notebooks and
the benchmarks): ~1,000-1,700 builds, 1-8 measurements per build, build-to-build and within-build
noise of 0.5-5 %, Student-t tails, slow spikes, quantisation to a clock tick, optional AR(1)
build-level wander, and known regressions / episodes.

The multiplicative model per measurement j of build b:
``value = level(b) * exp(between(b) + within(b, j)) * spike(b, j)``, rounded to ``tick``.
``level(b)`` is 1 (times ``base``) with each ``events`` entry (``(start, end, ratio)``, end None =
open) multiplying the builds in [start, end).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class History:
    """A generated history: a measurement table (``run``, ``build``, ``value``; builds numbered
    from ``first_build``) and the truth: ``events`` [(start_index, end_index or None, ratio)]."""

    table: pd.DataFrame
    events: tuple
    base: float
    n_builds: int
    first_build: int

    def to_csv(self, path, timestamps: bool = True) -> None:
        """Write in SAP's layout ``index_1based,timestamp,sut_version,value``."""
        t = self.table
        df = pd.DataFrame({"index_1based": np.arange(1, len(t) + 1)})
        if timestamps:
            df["timestamp"] = (pd.Timestamp("2021-09-01") + pd.to_timedelta(t["run"].to_numpy() * 1800, unit="s")
                               ).strftime("%Y-%m-%d %H:%M:%S")
        df["sut_version"] = t["build"].to_numpy()
        df["value"] = t["value"].to_numpy()
        df.to_csv(path, index=False)


def generate_history(n_builds: int = 1500, *, base: float = 850.0, per_build: float = 4.0,
                     between_cv: float = 0.015, within_cv: float = 0.015, df: float = 3.0,
                     spikes: float = 0.005, spike_size: tuple = (1.2, 3.0), tick: float = 0.0,
                     rho: float = 0.0, events=(), ramps=(), first_build: int = 515000, seed: int = 0) -> History:
    """A history of ``n_builds`` builds (see the module docstring).

    ``per_build``: mean measurements per build (1 + Poisson(per_build - 1), at most 8);
    ``between_cv`` / ``within_cv``: scales of the build-level and measurement-level Student-t(df)
    noise (relative); ``spikes``: share of measurements multiplied by U(spike_size); ``tick``:
    quantisation step in value units (0: none); ``rho``: AR(1) coefficient of the build-level
    noise; ``events``: ((start, end, ratio), ...) in build indices; ``ramps``: ((start, end, ratio), ...)
    a level that moves log-linearly from 1 at ``start`` to ``ratio`` at ``end`` and stays there.
    """
    rng = np.random.default_rng(seed)
    counts = np.minimum(1 + rng.poisson(max(per_build - 1.0, 0.0), n_builds), 8)
    t_sd = np.sqrt(df / (df - 2.0)) if df > 2 else 1.0
    e = rng.standard_t(df, n_builds) / t_sd * between_cv
    if rho > 0:
        ar = np.empty(n_builds)
        acc = 0.0
        k = np.sqrt(1 - rho * rho)
        for i in range(n_builds):  # generator only: a loop over builds is fine here
            acc = rho * acc + k * e[i]
            ar[i] = acc
        e = ar
    level = np.ones(n_builds)
    for start, end, ratio in events:
        level[start:(end if end is not None else n_builds)] *= ratio
    for start, end, ratio in ramps:
        k = np.arange(n_builds)
        level *= np.exp(np.log(ratio) * np.clip((k - start) / max(end - start, 1), 0.0, 1.0))
    run = np.repeat(np.arange(1, n_builds + 1), counts)
    m = run.size
    w = rng.standard_t(df, m) / t_sd * within_cv
    v = base * level[run - 1] * np.exp(e[run - 1] + w)
    sp = rng.random(m) < spikes
    v[sp] *= rng.uniform(spike_size[0], spike_size[1], int(sp.sum()))
    if tick > 0:
        v = np.maximum(np.round(v / tick), 1) * tick
    table = pd.DataFrame({"run": run, "build": first_build + run - 1, "value": v})
    return History(table, tuple(events), base, n_builds, first_build)
