"""Every per-benchmark and shared suspect of real runner files, for judging by eye (issue 12, the
magnitude gate of :mod:`bandkit.postmortem.magnitude`).

    python benchmarks/suspects_byeye.py --save now.json FILE...        # this checkout
    PYTHONPATH=<other checkout> python benchmarks/suspects_byeye.py --save before.json FILE...
    python benchmarks/suspects_byeye.py --diff before.json now.json    # suspects that left / came

Per benchmark: the verdict, the slowdown of the affected runs (median run mean of the affected runs
over that of the others), and each suspect with its medians, threshold, support and (where the
checkout has them) the magnitude fields (``quantum``, ``effect_quanta``, ``effect_rel``,
``negligible``). ``--diff`` lists per (file, benchmark) the suspects reported (not negligible) in one
dump and not in the other, with their evidence, and the verdict lines whose top suspect changed.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


def _sus(s) -> dict:
    ev = s.evidence if hasattr(s, "evidence") else s["evidence"]
    keys = ("median_affected", "median_reference", "threshold", "affected_when", "affected_on_side", "affected",
            "reference_on_side", "reference", "unit", "kind", "value", "affected_with_value",
            "reference_with_value", "p_adjusted", "effect", "quantum", "effect_quanta", "effect_rel", "explains",
            "negligible",
            "magnitude_gate", "ks")
    return {"metadata": s.metadata, "score": round(float(s.score), 3),
            **{k: ev[k] for k in keys if k in ev}}


def dump(paths: list[str]) -> list[dict]:
    import bandkit
    from bandkit.postmortem import postmortem, summarize

    out = []
    for p in paths:
        traces = bandkit.load_all(p)
        pms = []
        for tr in traces:
            try:
                pm = postmortem(tr)
            except Exception as e:  # (a trace the post-mortem cannot take: noted, not fatal)
                out.append({"file": Path(p).name, "bench": tr.label, "error": repr(e)})
                continue
            pms.append(pm)
            aff = np.isin(pm.run_numbers, np.asarray(pm.affected_runs, dtype=np.int64))
            slow = None
            if aff.any() and not aff.all():
                a, r = float(np.median(pm.run_means[aff])), float(np.median(pm.run_means[~aff]))
                slow = a / r if r else None
            out.append({"file": Path(p).name, "bench": pm.name, "verdict": pm.verdict, "runs": pm.n_runs,
                        "ratio": slow, "suspects": [_sus(s) for s in pm.suspects + getattr(pm, "negligible_suspects", ())]})
        cs = summarize(pms)
        out.append({"file": Path(p).name, "bench": "<shared>", "verdict": f"{len(cs.affected)} affected",
                    "runs": cs.pooled_runs, "ratio": None, "suspects": [_sus(s) for s in cs.shared_suspects]})
    return out


def _reported(rec: dict) -> list[dict]:
    return [s for s in rec.get("suspects", []) if not s.get("negligible")]


def _line(s: dict) -> str:
    if s.get("kind") == "categorical":
        return (f"{s['metadata']} = {s.get('value')!r}: {s.get('affected_with_value')}/{s.get('affected')} vs "
                f"{s.get('reference_with_value')}/{s.get('reference')} (score {s['score']})")
    u = s.get("unit") or ""
    extra = ""
    if "effect_quanta" in s:
        extra = f"; {s['effect_quanta']:.3g} quanta of {s['quantum']:.3g}"
        if s.get("effect_rel") is not None:
            extra += f", rel {100 * s['effect_rel']:.3g} %"
    return (f"{s['metadata']} {s.get('median_affected')} vs {s.get('median_reference')} {u}; "
            f"{'>=' if s.get('affected_when') == 'above' else '<='}{s.get('threshold')}: "
            f"{s.get('affected_on_side')}/{s.get('affected')} vs {s.get('reference_on_side')}/{s.get('reference')}"
            f" (score {s['score']}{extra})")


def diff(before: list[dict], now: list[dict]) -> str:
    key = lambda r: (r["file"], r["bench"])  # noqa: E731
    b, n = {key(r): r for r in before}, {key(r): r for r in now}
    lines = []
    gone = came = top = 0
    for k in n:
        if k not in b or "error" in n[k]:
            continue
        rb, rn = b[k], n[k]
        sb = {s["metadata"]: s for s in _reported(rb)}
        sn = {s["metadata"]: s for s in _reported(rn)}
        flagged = {s["metadata"]: s for s in rn.get("suspects", []) if s.get("negligible")}
        left = [m for m in sb if m not in sn]
        new = [m for m in sn if m not in sb]
        tb = next(iter(sb), None)
        tn = next(iter(sn), None)
        if not left and not new and tb == tn:
            continue
        ratio = f" ×{rn['ratio']:.3f}" if rn.get("ratio") else ""
        lines.append(f"- {k[0]} / {k[1]}: {rn['verdict']}{ratio}; top {tb} -> {tn}")
        for m in left:
            gone += 1
            s = flagged.get(m, sb[m])
            lines.append(f"    - gone{' (kept, flagged negligible)' if m in flagged else ''}: {_line(s)}")
        for m in new:
            came += 1
            lines.append(f"    - new: {_line(sn[m])}")
        top += tb != tn
    lines.insert(0, f"{gone} suspects left the reported lists, {came} came in, {top} top suspects changed\n")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "NOW"))
    a = ap.parse_args(argv)
    if a.diff:
        print(diff(json.loads(a.diff[0].read_text()), json.loads(a.diff[1].read_text())))
        return 0
    recs = dump(a.files)
    if a.save:
        a.save.write_text(json.dumps(recs, indent=0))
    for r in recs:
        if r.get("suspects"):
            ratio = f" ×{r['ratio']:.3f}" if r.get("ratio") else ""
            print(f"{r['file']} / {r['bench']}: {r['verdict']}{ratio}")
            for s in r["suspects"]:
                print(f"    {'(negligible) ' if s.get('negligible') else ''}{_line(s)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
