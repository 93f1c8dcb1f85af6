"""Performance-CI histories: one benchmark across many builds.

``analyse_trace(trace)`` / ``analyse_values(values, run=...)`` -> :class:`HistoryResult`
(regressions and improvements located at a build with their intervals, episodes, drifts, noise per
era, latest state); the report section is ``bandkit.history.section:section``.
"""
from __future__ import annotations

from .analysis import DEFAULTS, analyse_history, analyse_trace, analyse_values
from .builds import BuildTable, build_table
from .result import Change, Drift, Episode, Era, HistoryResult, Latest

__all__ = ["analyse_history", "analyse_trace", "analyse_values", "build_table", "BuildTable", "HistoryResult",
           "Change", "Episode", "Drift", "Era", "Latest", "DEFAULTS"]
