"""The one table of finding kinds (ground floor).

A finding is data: ``{"kind", "severity", ...numbers}``, emitted by a section
(:mod:`bandkit.section`). Every kind a section can emit has a row here: the section that emits it,
the severities it can have, its ``--fail-on`` group, the renderer function that turns it into a
verdict phrase (English is written only there), the data keys every finding of the kind carries,
and a one-line meaning for the README. The text and HTML verdicts, ``bandkit report --fail-on``, the
fleet table, the README's kinds table and the JSON schema read this table
(``tests/test_registries.py`` checks that they agree and that every emitted kind is here).

Regenerate the README table after a change: ``python -m bandkit.findings``.
"""
from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("info", "warning")

#: ``bandkit report --fail-on`` groups: name -> what it catches (the kinds name their group).
FAIL_ON_GROUPS: dict[str, str] = {
    "step": "a step change in a run sequence or a series",
    "bands": "two or more performance levels",
    "interference": "periodic interference from outside the measurement",
    "stalls": "FTQ stalls",
    "regression": "an open regression in a performance history (in force at the last build)",
}


@dataclass(frozen=True)
class FindingKind:
    """One kind of finding.

    ``severities``: the severities it can have; ``fail_on``: its :data:`FAIL_ON_GROUPS` group (None:
    never fails a run); ``phrase``: ``"module:function"`` of the renderer's ``(finding) -> str``;
    ``fields``: data keys every finding of this kind carries (besides ``kind`` and ``severity``;
    the JSON report adds ``trace``, ``path`` and ``section``); ``meaning``: one line for the README.
    """

    kind: str
    section: str
    severities: tuple[str, ...]
    phrase: str
    fields: tuple[str, ...]
    meaning: str
    fail_on: str | None = None


_T = "bandkit.render."
_INFO, _BOTH, _WARN = ("info",), ("info", "warning"), ("warning",)
_RUN = ("name", "unit", "runs")  # every runner post-mortem finding
_LINES = ("verdict", "freq_hz", "fraction", "harmonics", "snr_db", "paths")
_HIST = _T + "text_history:phrase"

#: Every finding kind, by name (README order).
FINDING_KINDS: dict[str, FindingKind] = {k.kind: k for k in (
    FindingKind("stalls", "summary", _BOTH, _T + "text_summary:phrase_stalls",
                ("count", "total_s", "longest_s", "lost_quanta", "share_of_time"),
                "FTQ stall episodes (catch-up rows): no work was measured; warning above 1 % of the time",
                fail_on="stalls"),
    FindingKind("partial_quantum", "summary", _INFO, _T + "text_summary:phrase_partial",
                ("rows", "quantum_ticks", "first_quantum_ticks"),
                "a short first quantum (two-file FTQ format), left out of the analyses"),
    FindingKind("time_in_ticks", "summary", _INFO, _T + "text_summary:phrase_ticks", ("quantum_ticks",),
                "times are TSC ticks (no clock rate given): no times in seconds"),
    FindingKind("fraction_mismatch", "summary", _INFO, _T + "text_summary:phrase_fraction", ("computed", "header"),
                "the FTQ fraction differs from the one in the file's header"),
    FindingKind("band_levels", "bands", _BOTH, _T + "text_bands:phrase",
                ("n_bands", "levels", "shares", "best_level", "degraded_share", "degraded_episodes", "values",
                 "value_unit"),
                "two or more bands (levels); warning when the degraded bands hold 5 % or more", fail_on="bands"),
    FindingKind("spectral_line", "spectrum", _INFO, _T + "text_interference:phrase_line",
                ("alias_hz", "snr_db", "harmonics", "sampling_hz"),
                "a line in one trace's spectrum (an alias: the two-rate test says which are real)"),
    FindingKind("level_shift", "changepoints", _BOTH, _T + "text_changepoints:phrase",
                ("count", "largest_before", "largest_after", "largest_ratio", "largest_time_s", "largest_index",
                 "largest_p_value", "changes_listed", "value_unit"),
                "a sustained shift of an FTQ trace or series (a new level held >= 10 % of it, q <= 0.01; not band "
                "switching); warning from 5 %", fail_on="step"),
    FindingKind("step", "postmortem", _WARN, _T + "text_runners:phrase_step",
                _RUN + ("run", "before", "after", "ratio", "factor", "n_steps"),
                "the run means step to another level (the largest step)", fail_on="step"),
    FindingKind("episode_runs", "postmortem", _WARN, _T + "text_runners:phrase_episode",
                _RUN + ("start_run", "end_run", "level", "baseline", "ratio", "factor", "p_value", "n_episodes",
                        "stages"),
                "the run means leave their level for a stretch of runs and come back (the largest episode)",
                fail_on="bands"),
    FindingKind("bimodal", "postmortem", _WARN, _T + "text_runners:phrase_bands",
                _RUN + ("n_bands", "levels", "shares", "slow_runs", "factor"),
                "the run means alternate between two levels", fail_on="bands"),
    FindingKind("bands", "postmortem", _WARN, _T + "text_runners:phrase_bands",
                _RUN + ("n_bands", "levels", "shares", "slow_runs", "factor"),
                "the run means fall on three or more levels", fail_on="bands"),
    FindingKind("trend", "postmortem", _WARN, _T + "text_runners:phrase_trend",
                _RUN + ("drift_ratio", "p_value"), "the run means drift over the runs"),
    FindingKind("warmup", "postmortem", _INFO, _T + "text_runners:phrase_warmup", _RUN + ("warmup_runs",),
                "the first runs are slower, then stable"),
    FindingKind("outlier_runs", "postmortem", _INFO, _T + "text_runners:phrase_outliers",
                _RUN + ("outlier_runs", "max_factor"), "a few runs far from the main level"),
    FindingKind("stable_runs", "postmortem", _INFO, _T + "text_runners:phrase_stable", _RUN,
                "one level at the gate (3 %) over the runs; significant shifts of a long sequence that the gate does not report are named"),
    FindingKind("no_per_run_data", "postmortem", _INFO, _T + "text_runners:phrase_no_runs", _RUN + ("reason",),
                "the file has summary statistics only"),
    FindingKind("too_few_runs", "postmortem", _INFO, _T + "text_runners:phrase_too_few", _RUN + ("reason",),
                "too few runs to classify"),
    FindingKind("regression", "history", _WARN, _HIST,
                ("count", "build", "before", "after", "ratio", "ratio_ci", "build_ci", "p_value", "higher_is_better",
                 "value_unit"),
                "open regressions of a history (in force at the last build); the largest", fail_on="regression"),
    FindingKind("episode", "history", _INFO, _HIST,
                ("count", "regressions_fixed", "start_build", "end_build", "ratio", "episode_kind", "builds",
                 "higher_is_better"),
                "regressions fixed later, improvements lost later; the largest"),
    FindingKind("drift", "history", _BOTH, _HIST, ("start_build", "end_build", "ratio", "drift_kind", "higher_is_better"),
                "a gradual change over builds (same-direction steps); warning in the slower direction"),
    FindingKind("improvement", "history", _INFO, _HIST,
                ("count", "build", "before", "after", "ratio", "higher_is_better", "value_unit"),
                "lasting improvements of a history; the largest"),
    FindingKind("stable_history", "history", _INFO, _HIST,
                ("builds", "runs", "level", "cv", "value_unit", "higher_is_better"),
                "no change at or above the reporting threshold across the builds (smaller significant "
                "changes and how far the level moves are given)"),
    FindingKind("too_few_builds", "history", _INFO, _HIST, ("builds", "runs", "needed"),
                "too few builds to look for changes"),
    FindingKind("periodic_interference", "interference", _BOTH, _T + "text_interference:phrase_interference",
                _LINES, "a line at the same true frequency at every sampling rate: an outside source (info when only inferred from harmonics)",
                fail_on="interference"),
    FindingKind("sampling_locked", "interference", _INFO, _T + "text_interference:phrase_locked", _LINES,
                "a pattern tied to the sampling grid (moves with the rate): not an outside source"),
    FindingKind("shared_suspect", "runner_summary", _WARN, _T + "text_runners:phrase_shared",
                ("metadata", "score", "slow_runs", "runs", "affected_benchmarks"),
                "one metadata column marks the slow runs of several benchmarks: significant with the slow-run "
                "labels permuted within each benchmark (a column that only differs between benchmarks, like their "
                "memory use, does not count) and marking them (a threshold holds >= 50 % more of the slow runs "
                "than of the others: `evidence.ks`)"),
)}


def fail_on_kinds(groups) -> frozenset[str]:
    """The finding kinds caught by these ``--fail-on`` names: a group of :data:`FAIL_ON_GROUPS` (its
    kinds) or a finding kind of :data:`FINDING_KINDS` (itself, whatever its group)."""
    names = set(groups)
    return frozenset(k for k, fk in FINDING_KINDS.items() if fk.fail_on in names or k in names)


#: ``--fail-on`` name that catches every finding of severity "warning", whatever its kind.
FAIL_ON_ANY_WARNING = "warning"


def fail_on_names() -> tuple[str, ...]:
    """Every name ``--fail-on`` accepts: the groups, "warning", then every finding kind."""
    return (*FAIL_ON_GROUPS, FAIL_ON_ANY_WARNING, *(k for k in FINDING_KINDS if k not in FAIL_ON_GROUPS))


def markdown_table() -> str:
    """The README's table of finding kinds (``python -m bandkit.findings`` prints it)."""
    rows = ["| kind | section | severity | `--fail-on` | data (besides `kind`, `severity`) | meaning |",
            "|---|---|---|---|---|---|"]
    for fk in FINDING_KINDS.values():
        rows.append(f"| `{fk.kind}` | {fk.section} | {' / '.join(fk.severities)} | {fk.fail_on or '–'} | "
                    f"{', '.join(f'`{x}`' for x in fk.fields)} | {fk.meaning} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(markdown_table(), end="")
