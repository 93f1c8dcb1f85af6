"""Plots (matplotlib, imported lazily): every function takes an optional ``ax`` and returns the Axes.

``from bandkit.plots import plot_trace`` (or ``bandkit.plots.plot_trace``) imports only the module
that holds the function; ``import bandkit.plots`` itself imports neither matplotlib nor a plot module.
"""
from __future__ import annotations

import importlib
from typing import Any

#: public plot function -> module of bandkit.plots that holds it
_WHERE = {
    "plot_trace": "trace", "plot_stalls": "trace",
    "plot_band_histogram": "bands", "plot_band_scatter": "bands",
    "plot_changepoints": "changepoints",
    "plot_spectrum": "spectrum", "plot_rates": "spectrum", "plot_fold": "spectrum", "plot_spectrogram": "spectrum",
    "plot_runs": "runs", "plot_runs_with_metadata": "runs",
    "plot_history": "history",
    "plot_fleet_heatmap": "fleet",
    "plot_compare": "compare",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module 'bandkit.plots' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
