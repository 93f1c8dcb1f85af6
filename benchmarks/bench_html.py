"""Cost of the report renderers per real file class, and PNG vs SVG plot embedding.

For each input: time of analyze(), and of rendering text / JSON / HTML (PNG plots, the default) and
HTML with inline SVG plots, side by side in one process; sizes of the outputs; number of plots.
Run: python3 benchmarks/bench_html.py [--repeat N]  (writes a Markdown table to stdout).
"""
from __future__ import annotations

import argparse
import platform
import re
import time
from pathlib import Path

import bandkit
from bandkit.render import html as H, html_kit

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path("/work/shared/data/runners/pyperf")
CASES = {
    "FTQ, one rate (10000 Hz, 200k quanta)": [ROOT / "data/ftq/ftq_f10000_quiet_0.dat.gz"],
    "FTQ pair at two rates (10000 + 7777 Hz)": [ROOT / "data/ftq/ftq_f10000_intf100Hz_1ms_0.dat.gz",
                                                ROOT / "data/ftq/ftq_f7777_intf100Hz_1ms_0.dat.gz"],
    "pyperf, 1 benchmark (telco)": [ROOT / "data/runners/pyperf-tests_telco.json.gz"],
    "pyperf, full pyperformance run": [SHARED / "fc_bm-20240702-linux-x86_64-python-6343486eb60ac5a9e154-3.14.0a0-6343486.json.gz"],
}


def best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu?'}, python {platform.python_version()}, "
          f"bandkit {bandkit.__version__}; best of {args.repeat}\n")
    print("| input | traces | analyze s | text s | JSON s | HTML (PNG) s | HTML (PNG) kB | plots | "
          "HTML (SVG) s | HTML (SVG) kB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, paths in CASES.items():
        if not all(p.exists() for p in paths):
            print(f"| {name} | missing input | | | | | | | | |")
            continue
        traces = bandkit.load_many([str(p) for p in paths])
        t_an, rep = best(lambda: bandkit.analyze(traces), args.repeat)
        t_txt, txt = best(rep.to_text, args.repeat)
        t_js, js = best(rep.to_json, args.repeat)
        html_kit.FIGURE_FORMAT = "png"
        t_png, png = best(rep.to_html, args.repeat)
        html_kit.FIGURE_FORMAT = "svg"
        t_svg, svg = best(rep.to_html, args.repeat)
        html_kit.FIGURE_FORMAT = "png"
        plots = len(re.findall(r"<figure>", png))
        print(f"| {name} | {len(rep.traces)} | {t_an:.2f} | {t_txt:.3f} | {t_js:.3f} | {t_png:.2f} | "
              f"{len(png.encode()) / 1e3:.0f} | {plots} | {t_svg:.2f} | {len(svg.encode()) / 1e3:.0f} |")


if __name__ == "__main__":
    main()
