"""Text of the history section (one benchmark across builds) and the phrases of its findings."""
from __future__ import annotations

from typing import Any

from .textutil import fmt_num, table


def _b(x) -> str:
    return "–" if x is None else str(x)


def _u(unit: str) -> str:
    return f" {unit}" if unit else ""


def fmt_ratio(ratio, hib: bool = False) -> str:
    """×1.19 slower / ×0.84 lower (for throughputs) / unchanged."""
    if ratio is None:
        return "–"
    if abs(ratio - 1.0) < 5e-4:
        return "×1.00 (unchanged)"
    if hib:
        word = "higher (better)" if ratio > 1 else "lower (worse)"
    else:
        word = "slower" if ratio > 1 else "faster"
    return f"×{ratio:.3g} {word}"


def _p(p) -> str:
    if p is None:
        return "–"
    return "<1e-12" if p < 1e-12 else f"{p:.2g}"


def render(section) -> list[str]:
    h = section.fields.get("history") or {}
    unit = h.get("value_unit") or ""
    hib = bool(h.get("higher_is_better"))
    pr = h.get("params") or {}
    out = [f"  history: {h.get('builds', 0):,} builds, {h.get('runs', 0):,} measurements, builds "
           f"{_b(h.get('first_build'))} – {_b(h.get('last_build'))}; "
           + ("higher is better" if hib else "lower is better")]
    lt = h.get("latest")
    if lt:
        r = lt.get("vs_best_ratio")
        if r is not None and abs(r - 1) >= (pr.get("min_relative") or 0.0):
            out.append(f"    latest: {fmt_num(lt.get('level'))}{_u(unit)} since build {_b(lt.get('since_build'))}, "
                       f"currently {fmt_ratio(r, hib)} than build {_b(lt.get('best_build'))} "
                       f"(best sustained level {fmt_num(lt.get('best_level'))}{_u(unit)}, builds "
                       f"{_b(lt.get('best_build'))} – {_b(lt.get('best_until_build'))})")
        else:
            out.append(f"    latest: {fmt_num(lt.get('level'))}{_u(unit)} since build {_b(lt.get('since_build'))}, "
                       f"at the best sustained level of the history (within {100 * (pr.get('min_relative') or 0):g} %)")
    changes = sorted([*h.get("regressions", []), *h.get("improvements", [])], key=lambda c: c.get("index", 0))
    if h.get("since") is not None:
        out.append(f"    changes since build {h['since']}")
    if changes:
        rows = []
        for c in changes:
            lo, hi = (c.get("build_ci") or [None, None])[:2]
            rlo, rhi = (c.get("ratio_ci") or [None, None])[:2]
            note = "regr." if c.get("kind") == "regression" else "impr."
            if c.get("fixed_at") is not None:
                note += f" undone at {c['fixed_at']}"
            if c.get("reverts") is not None:
                note += f" undoes {c['reverts']}"
            r = c.get("ratio")
            rows.append([_b(c.get("build")), _b(lo) if lo == hi else f"{_b(lo)}–{_b(hi)}",
                         f"{fmt_num(c.get('before'))} → {fmt_num(c.get('after'))}",
                         "–" if r is None else f"×{r:.3g}", "–" if rlo is None else f"×{rlo:.3g}–{rhi:.3g}",
                         _p(c.get("p_value")), note])
        lvl = pr.get("confidence") or 0.95
        out.append(f"    changes (p < {pr.get('alpha')}, ≥ {100 * (pr.get('min_relative') or 0):g} %, "
                   f"{100 * lvl:g} % intervals; levels in{_u(unit) or ' value units'}):")
        out += table(rows, header=["build", "interval", "level", "ratio", "ratio interval", "p", "what"],
                     align="lrrrrrl", indent=6)
    else:
        out.append(f"    no change of level (p < {pr.get('alpha')}, ≥ {100 * (pr.get('min_relative') or 0):g} %)")
    for e in h.get("episodes", []):
        what = "regression fixed" if e.get("kind") == "regression" else "improvement lost"
        out.append(f"    episode ({what}): builds {_b(e.get('start_build'))} – {_b(e.get('end_build'))} "
                   f"({e.get('builds', 0):,} builds) at {fmt_ratio(e.get('ratio'), hib)}")
    for d in h.get("drifts", []):
        out.append(f"    drift: builds {_b(d.get('start_build'))} – {_b(d.get('end_build'))}, "
                   f"{fmt_ratio(d.get('ratio'), hib)} in all ({100 * (d.get('per_build') or 0):+.2g} % per build)")
    eras = h.get("eras", [])
    if eras:
        rows = [[f"{_b(e.get('start_build'))} – {_b(e.get('end_build'))}", f"{e.get('builds', 0):,}",
                 fmt_num(e.get("level")), f"{100 * (e.get('cv') or 0):.2g} %",
                 "–" if e.get("within_build_cv") is None else f"{100 * e['within_build_cv']:.2g} %",
                 f"{100 * (e.get('spikes') or 0):.2g} %"] for e in eras[:20]]
        out.append("    noise per era:")
        out += table(rows, header=["builds", "n", "level", "build to build", "within a build", "spikes"],
                     indent=8)
        if len(eras) > 20:
            out.append(f"      … {len(eras) - 20} more eras in the JSON report")
    return out


def phrase(f: dict[str, Any]) -> str:
    kind = f.get("kind")
    hib = bool(f.get("higher_is_better"))
    if kind == "regression":
        ci = f.get("ratio_ci") or [None, None]
        n = f.get("count", 1)
        more = f" ({n} open regressions)" if n > 1 else ""
        ci_txt = f", 95 % ×{ci[0]:.3g} – ×{ci[1]:.3g}" if ci[0] is not None else ""
        return (f"regression {fmt_ratio(f.get('ratio'), hib)} at build {_b(f.get('build'))} "
                f"({fmt_num(f.get('before'))} → {fmt_num(f.get('after'))}{_u(f.get('value_unit') or '')}"
                f"{ci_txt}, p {_p(f.get('p_value'))}){more}")
    if kind == "episode":
        n = f.get("count", 1)
        what = "regression fixed" if f.get("episode_kind") == "regression" else "improvement lost"
        head = f"{n} episodes, largest" if n > 1 else "episode:"
        return (f"{head} {what}, {fmt_ratio(f.get('ratio'), hib)} from build {_b(f.get('start_build'))} "
                f"to {_b(f.get('end_build'))} ({f.get('builds', 0):,} builds)")
    if kind == "drift":
        return (f"drift {fmt_ratio(f.get('ratio'), hib)} over builds {_b(f.get('start_build'))} – "
                f"{_b(f.get('end_build'))}")
    if kind == "improvement":
        n = f.get("count", 1)
        head = f"{n} improvements, largest" if n > 1 else "improvement"
        return f"{head} {fmt_ratio(f.get('ratio'), hib)} at build {_b(f.get('build'))}"
    if kind == "too_few_builds":
        return f"only {f.get('builds', 0):,} build(s): too few to look for changes (at least {f.get('needed')})"
    if kind == "stable_history":
        cv = f.get("cv")
        noise = f", build-to-build noise {100 * cv:.2g} %" if cv is not None else ""
        nb = f"{f.get('builds', 0):,} builds"
        thr = f.get("min_relative")
        thr_txt = f" ≥ {100 * thr:.3g} %" if thr else ""
        small = f.get("largest_small_change")
        if small:
            n = f.get("small_changes", 1)
            more = f" (largest of {n})" if n > 1 else ""
            return (f"no change{thr_txt} across {nb}, but a smaller significant one: "
                    f"{fmt_ratio(small.get('ratio'), f.get('higher_is_better', False))} at build "
                    f"{_b(small.get('build'))}{more}, p {_p(small.get('p_value'))}{noise}")
        rng = f.get("level_range")
        lv = f.get("level")
        if rng and lv and f.get("level_moves"):
            u = _u(f.get("value_unit") or "")
            half = 50 * (rng[1] - rng[0]) / lv
            return (f"no step change{thr_txt} across {nb}; the level moves between {fmt_num(rng[0])} and "
                    f"{fmt_num(rng[1])}{u} (±{half:.2g} %){noise}")
        return f"stable across {nb}{noise}"
    return ""
