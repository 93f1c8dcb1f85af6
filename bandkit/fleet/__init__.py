"""Rank a fleet of FTQ traces (one per node / CPU): same per-trace analyses as ``bandkit report``,
one compact row per trace, robust outlier flags, a work-fraction profile per trace for the heat-map.

Work is spread over local processes (``jobs``) or a Dask cluster (``client`` / ``scheduler``); only
paths travel to the workers, which load and analyse the file themselves and send back a small dict
(no samples). The ranking and outlier statistics are computed afterwards from those rows, so the
result does not depend on where or in which order the files were analysed.

Outliers: modified z-score (:func:`bandkit.robust.modified_z`) of the FTQ fraction (both
directions) and of the stall share of time (high side only), flagged at ``|z| > z_threshold`` (3.5).

Modules: :mod:`.inputs` (paths -> files), :mod:`.rows` (per trace, in the workers), :mod:`.history`
(rows and ranking of histories and runner results), :mod:`.report` (ranking, outliers,
:class:`FleetReport`), :mod:`.run` (back ends, :func:`rank_fleet`).
"""
from __future__ import annotations

from ..robust import modified_z as robust_z
from .inputs import FTQ_NAME, TABLE_NAME, expand_inputs, natural_key
from .report import DEFAULT_Z, FLEET_SCHEMA_VERSION, FleetReport, FleetRow, build_report, common_prefix
from .rows import DEFAULT_BINS, row_from_report, summarize_path, work_profile
from .run import rank_fleet

__all__ = ["rank_fleet", "FleetReport", "FleetRow", "build_report", "summarize_path", "row_from_report",
           "work_profile", "expand_inputs", "natural_key", "common_prefix", "robust_z", "FTQ_NAME", "TABLE_NAME",
           "DEFAULT_BINS", "DEFAULT_Z", "FLEET_SCHEMA_VERSION"]
