"""The magnitude gate of suspects (issue 12): a significant difference of a unit or two of a column's
readings, or a frequency change far too small to explain the slowdown, is never the verdict's suspect."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import bandkit
from bandkit.analyze import analyze
from bandkit.loaders.runner_common import build_runner_trace
from bandkit.loaders.source import Source
from bandkit.postmortem import postmortem, rank_suspects, summarize
from bandkit.postmortem.magnitude import assess, quantum
from bandkit.render.text_runners import negligible_line
from bandkit.schema import validate_report

DATA = Path(__file__).resolve().parent.parent / "data" / "runners"
SPEED2020 = DATA / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"


def _trace(values: np.ndarray, md: dict[str, np.ndarray], name: str = "bench"):
    runs = [(values[r].tolist(), {k: (v[r].item() if hasattr(v[r], "item") else v[r]) for k, v in md.items()})
            for r in range(len(values))]
    return build_runner_trace(Source(name=name), "csv", name, runs, value_unit="ms")


def _step_case(seed: int, marker_temp: bool):
    """20 runs x 3 values, x1.25 slower from run 11 on; ``cpu_freq_mhz_max`` reads 3,330 MHz before and
    3,331 after (one reading unit, every run: the pattern is as significant as can be); ``load_avg_1min``
    0.91 vs 0.92; with ``marker_temp`` the package is also 15 C hotter in the slow runs."""
    rng = np.random.default_rng(seed)
    n = 20
    slow = np.arange(n) >= 10
    level = np.where(slow, 125.0, 100.0)
    values = level[:, None] * (1 + 0.005 * rng.standard_normal((n, 3)))
    md = {"cpu_freq_mhz_max": np.where(slow, 3331.0, 3330.0),
          "load_avg_1min": np.where(slow, 0.92, 0.91),
          "cpu_temp_c": np.round(55 + rng.normal(0, 0.8, n) + (15.0 if marker_temp else 0.0) * slow)}
    return _trace(values, md)


def test_one_unit_separation_is_not_the_verdicts_suspect():
    """Seeded: two columns separate the slow runs exactly (10/10 vs 0/10, p_adjusted ~0.001) by one reading
    unit. Before the gate cpu_freq_mhz_max was the top suspect; now no suspect is named, both are kept as
    flagged data, and the text says why."""
    pm = postmortem(_step_case(3, marker_temp=False))
    assert pm.verdict == "step"
    assert pm.suspects == ()
    flagged = {s.metadata: s.evidence for s in pm.negligible_suspects}
    assert set(flagged) == {"cpu_freq_mhz_max", "load_avg_1min"}
    ev = flagged["cpu_freq_mhz_max"]
    assert ev["negligible"] and ev["magnitude_gate"] == "resolution" and ev["p_adjusted"] < 0.05
    assert ev["quantum"] == pytest.approx(1.0) and ev["effect_quanta"] == pytest.approx(1.0)
    assert flagged["load_avg_1min"]["quantum"] == pytest.approx(0.01)
    rep = analyze([_step_case(3, marker_temp=False)])
    (f,) = [f for f in rep.findings if f["kind"] == "step"]
    assert "top_suspect" not in f
    doc = rep.to_dict()
    validate_report(doc)  # (negligible_suspects and the evidence's magnitude fields are in the schema)
    entry = doc["traces"][0]
    assert [s["metadata"] for s in entry["negligible_suspects"]] and entry["suspects"] == []
    assert "cpu_freq_mhz_max" in negligible_line(entry["negligible_suspects"])
    text = rep.to_text()
    assert "top suspect" not in text and "too little to matter" in text
    # the API without keep_negligible drops them; with it they come last, flagged
    aff = np.arange(20) >= 10
    md = pm.metadata
    assert rank_suspects(md, aff, step_index=10, slowdown=1.25) == []
    kept = rank_suspects(md, aff, step_index=10, slowdown=1.25, keep_negligible=True)
    assert kept and all(s.evidence["negligible"] for s in kept)


def test_a_real_marker_beside_a_negligible_one_is_the_top_suspect():
    pm = postmortem(_step_case(3, marker_temp=True))
    assert pm.suspects[0].metadata == "cpu_temp_c"
    ev = pm.suspects[0].evidence
    assert not ev["negligible"] and ev["magnitude_gate"] is None and ev["effect"] >= 10
    assert "cpu_freq_mhz_max" in {s.metadata for s in pm.negligible_suspects}


def test_frequency_bound_against_the_slowdown():
    """Rule (b): 4 MHz of 3,330 is 0.12 % of the clock - at most 0.3 % of a x1.42 slowdown; 766 MHz is
    not negligible. Without a known slowdown the 0.5 % floor still holds."""
    v = np.array([3330.0, 3334.0, 3331.0, 3326.0, 2500.0, 3332.0])
    ev = {"median_affected": 3334.0, "median_reference": 3330.0}
    assess("cpu_freq_mhz_max", v, ev, 1.42, 3334.0)
    assert ev["negligible"] and ev["magnitude_gate"] == "frequency"
    assert ev["explains"] == pytest.approx(4 / 3334 / np.log(1.42), rel=1e-9)
    ev = {"median_affected": 3332.5, "median_reference": 2567.0}
    assess("cpu_freq_mhz.cpu19", v, ev, 1.42, 3334.0)
    assert not ev["negligible"] and ev["explains"] > 0.5
    ev = {"median_affected": 3334.0, "median_reference": 3330.0}
    assess("cpu_freq_mhz_max", v, ev, None, None)
    assert ev["negligible"] and ev["explains"] is None


def test_counts_keep_their_one_unit_change():
    """A count read in whole units (2 runnable threads instead of 1) is a big change: rule (a) needs the
    difference to be small next to the value too."""
    v = np.array([1.0, 1, 2, 2, 1, 2])
    ev = {"median_affected": 2.0, "median_reference": 1.0}
    assess("runnable_threads", v, ev, 1.3, None)
    assert not ev["negligible"] and ev["effect_quanta"] == 1.0
    ev = {"median_affected": 56.0, "median_reference": 55.0}
    assess("cpu_temp_c", np.array([55.0, 56, 55, 57]), ev, 1.3, None)
    assert ev["negligible"]  # one degree C
    assert quantum(np.array([3325.0, 3332, 3339])) == 1.0  # readings written in whole MHz
    assert quantum(np.array([0.91, 0.93, 0.97])) == pytest.approx(0.01)
    assert quantum(np.array([5.0])) is None


@pytest.fixture(scope="module")
def speed2020():
    return {t.meta.name: postmortem(t) for t in bandkit.load_all(SPEED2020)}


def test_real_crypto_pyaes_max_frequency_is_not_the_suspect(speed2020):
    """speedpython 2020, crypto_pyaes (two levels, slow runs x1.42): cpu_freq_mhz_max read 3,334 vs
    3,330 MHz (6/6 vs 2/13 at >= 3,330.5) was the top suspect; now a per-CPU frequency that fell by
    ~770 MHz in the other runs is, and the maximum is listed as negligible."""
    pm = speed2020["crypto_pyaes"]
    top = pm.suspects[0]
    assert top.metadata.startswith("cpu_freq_mhz.cpu")
    assert abs(top.evidence["median_affected"] - top.evidence["median_reference"]) > 500
    flagged = {s.metadata: s.evidence for s in pm.negligible_suspects}
    assert flagged["cpu_freq_mhz_max"]["magnitude_gate"] == "frequency"
    assert flagged["cpu_freq_mhz_max"]["explains"] < 0.01
    for pm in speed2020.values():  # no reported suspect anywhere rests on a few MHz
        for s in pm.suspects:
            ev = s.evidence
            if ev.get("unit") == "MHz":
                assert abs(ev["median_affected"] - ev["median_reference"]) > 30, (pm.name, s.metadata)


def test_real_large_effects_are_kept(speed2020):
    """Held-in: pickle_list's cpu_freq suspect (2,573 vs 3,332 MHz) and the shared cpu_freq_mhz_mean
    (3,332 vs 2,708 MHz over 1,200 pooled runs) pass the gate."""
    top = speed2020["pickle_list"].suspects[0]
    assert top.metadata.startswith("cpu_freq") and not top.evidence["negligible"]
    assert top.evidence["explains"] > 0.3
    cs = summarize(list(speed2020.values()))
    shared = cs.shared_suspects[0]
    assert shared.metadata == "cpu_freq_mhz_mean"
    assert shared.evidence["median_affected"] == pytest.approx(3332, abs=1)
    # (2,708 MHz over 242 slow runs; 2,702 since main's nearest-level pass counts 248)
    assert shared.evidence["median_reference"] == pytest.approx(2705, abs=10)
    assert not shared.evidence["negligible"] and shared.evidence["explains"] > 0.3


def test_quantum_on_lists_equals_the_array_path():
    """quantum's Python-float path (up to 64 values) gives the numpy path's reading unit, bit for bit: readings
    written to 0..3 decimals, full-precision ones, ties, NaN / inf, signed zeros, one or no distinct value."""
    import bandkit.postmortem.magnitude as M

    rng = np.random.default_rng(5)
    checked = 0
    for trial in range(3000):
        n = int(rng.integers(1, 40))
        kind = trial % 5
        if kind == 0:
            v = np.round(rng.normal(3300, 40, n), int(rng.integers(0, 4)))
        elif kind == 1:
            v = rng.normal(0, 1, n)
        elif kind == 2:
            v = rng.choice([0.0, -0.0, 1.0, 2.5], n)
        elif kind == 3:
            v = np.round(rng.uniform(0, 5, n), 2)
            v[rng.random(n) < 0.2] = np.nan
            v[rng.random(n) < 0.1] = np.inf
        else:
            v = np.full(n, float(rng.integers(0, 9)))
        fast = M.quantum(v)
        old, M._LISTS_MAX = M._LISTS_MAX, -1
        try:
            slow = M.quantum(v)
        finally:
            M._LISTS_MAX = old
        assert (fast is None) == (slow is None)
        if fast is not None:
            assert type(fast) is float and fast == slow
            checked += 1
    assert checked > 2000


def test_freq_scale_of_all_columns_at_once_equals_the_loop():
    """magnitude.freq_scale_of reads the MHz columns of one length as one array: the largest finite |reading|,
    as column by column (NaN, inf, empty and other columns ignored; None without a finite MHz reading)."""
    import bandkit.postmortem.magnitude as M

    rng = np.random.default_rng(3)
    for trial in range(500):
        n = int(rng.integers(0, 25))
        cols = []
        for j in range(int(rng.integers(0, 6))):
            v = rng.normal(3000, 300, n) * (-1 if trial % 7 == 0 else 1)
            v[rng.random(n) < 0.3] = np.nan
            if trial % 5 == 0 and n:
                v[0] = np.inf
            cols.append((f"cpu_freq_mhz.cpu{j}" if j % 3 else "load_avg_1min", True, v))
        want = None
        for name, numeric, data in cols:
            if numeric and M.physical_kind(name) == "frequency":
                f = data[np.isfinite(data)]
                if f.size:
                    want = float(np.max(np.abs(f))) if want is None else max(want, float(np.max(np.abs(f))))
        got = M.freq_scale_of(cols)
        assert got == want and type(got) is type(want)


def test_decimal_resolution_of_sorted_floats_equals_the_general_one():
    """robust.decimal_resolution_sorted (quantum's sorted distinct Python floats: no array round trip, the
    largest magnitude from the ends, the first value's test inline) gives decimal_resolution's unit: values
    written to 0..7 decimals, full-precision ones, negatives, zeros, beyond 1e12, one value, none."""
    from bandkit.robust import decimal_resolution, decimal_resolution_sorted

    rng = np.random.default_rng(17)
    seen = set()
    for trial in range(6000):
        n = int(rng.integers(0, 25))
        scale = 10.0 ** int(rng.integers(-3, 14))
        v = rng.normal(0, 1, n) * scale
        if trial % 3:
            v = np.round(v, int(rng.integers(0, 8)))
        if trial % 7 == 0 and n:
            v[rng.random(n) < 0.3] = rng.choice([0.0, -0.0, 1.0])
        u = sorted({x for x in v.tolist()})
        got, want = decimal_resolution_sorted(u), decimal_resolution(np.asarray(u))
        assert got == want and type(got) is type(want)
        seen.add(want)
    assert None in seen and {1.0, 0.1, 0.01, 1e-06} <= seen
