"""Long mutation-fuzzing run of bandkit's inputs (issue 14), on demand; results in RESULTS_fuzz.md.

Every mutant (``tests/fuzz/fuzzkit.py``: seeds from ``data/``, seeded mutators) goes through the
whole pipeline: load (auto-detected, or forced for 20 %) -> analyse -> JSON report validated
against the report schema -> text.
Every 10th runner mutant (``--compare-every``) is also compared with its seed.
Worker processes run chunks of mutant indices; the parent watches each mutant:

- hang: a mutant on which bandkit uses more than ``--hang-cpu`` CPU seconds (default 10; CPU, not
  wall time, because the machine is shared) or ``--hang-wall`` wall seconds is killed and recorded
  with bandkit's CPU time (``cpu_s``) and the harness's (``harness_s``). Only bandkit is timed: the
  clock starts when the mutant is built (time spent in the mutators is the harness's, counted apart
  as ``slow_mutator`` when above 10 s) and stops while the harness parses and schema-checks the
  JSON report (``fuzzkit.run_target(on_checks=...)``; 8 s of the 18 s an asv file of 63,226
  benchmarks took). Each record also holds its slowest mutant (``slowest``: index, bandkit CPU s);
- memory: workers run under ``RLIMIT_AS`` (``--max-gb``, default 4: the libraries alone map
  ~1.5 GB of address space) so a runaway allocation fails instead of taking the machine; their peak
  resident set is read after every mutant and one above ``--rss-gb`` (default 2) is recorded.

Chunks are appended to a JSONL file as they finish, so a run can be stopped and resumed
(``--resume``); ``--summary`` prints the per-format table. Examples::

    nice -n 19 python benchmarks/fuzz.py --count 100000 --workers 2 --out benchmarks/fuzz_results.jsonl
    python benchmarks/fuzz.py --summary --out benchmarks/fuzz_results.jsonl
    python benchmarks/fuzz.py --replay pyperf:12345 --keep /tmp/m   # rerun one mutant, keep its files
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))
sys.path.insert(0, str(ROOT))

import fuzzkit  # noqa: E402

CLK = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            parts = fh.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / CLK
    except (OSError, IndexError, ValueError):
        return 0.0


#: Shared state per worker: index in progress (-1: none timed), its start time, the worker's CPU
#: seconds then (``time.process_time``, the clock /proc reports in ticks), CPU seconds of the
#: harness's own checks since, 1 while such a check runs.
STATE = 5
_IDX, _T0, _CPU0, _HARNESS, _IN_CHECK = range(STATE)


def _worker(tasks, results, slot, state, max_gb: float, rss_gb: float, flush: int, args_compare_every: int) -> None:
    """Run tasks (fmt, start, stop); post a record every ``flush`` mutants. ``state[slot + _IDX]`` =
    index in progress (-1 idle), ``state[slot + _T0]`` = its start time, ``state[slot + _HARNESS]`` =
    CPU seconds the harness's checks took since (not bandkit's), ``state[slot + _IN_CHECK]`` = 1
    during such a check; ``state[slot + _CPU0]``: the worker's CPU seconds at the start."""
    if max_gb > 0:
        lim = int(max_gb * 2 ** 30)
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    corpus = fuzzkit.corpus()
    seeds = {}
    workdir = Path(tempfile.mkdtemp(prefix="bandkit-fuzz-"))
    import matplotlib

    matplotlib.use("Agg")
    while True:
        try:
            task = tasks.get(timeout=1)
        except queue.Empty:
            continue
        if task is None:
            return
        fmt, start, stop = task
        results.put({"event": "task", "slot": slot, "fmt": fmt, "start": start, "stop": stop})
        lo = start
        counts: Counter = Counter()
        fails = []
        t0, c0 = time.time(), time.process_time()
        slowest = [-1, 0.0]
        for i in range(start, stop):
            state[slot + _IDX] = -1  # building the mutant: not timed (the watch times bandkit only)
            timer = {}

            def _target_starts(i=i, timer=timer):
                state[slot + _HARNESS] = 0.0
                state[slot + _IN_CHECK] = 0.0
                state[slot + _T0] = time.time()
                timer["cpu"] = state[slot + _CPU0] = time.process_time()
                state[slot + _IDX] = i

            def _checks(running: bool, timer=timer):
                if running:
                    timer["check"] = time.process_time()
                    state[slot + _IN_CHECK] = 1.0
                else:  # (the total first, then the flag: the watch never sees the check's CPU as bandkit's)
                    state[slot + _HARNESS] += time.process_time() - timer.pop("check")
                    state[slot + _IN_CHECK] = 0.0
            kw = {}
            if fmt not in ("ftq", "ftq-2009", "ftq-mpi") and i % args_compare_every == 0:
                if fmt not in seeds:
                    seeds[fmt] = fuzzkit.write_seed(corpus[fmt][0], Path(tempfile.mkdtemp(dir=workdir)))
                kw["compare_with"] = seeds[fmt]
            try:
                out, info = fuzzkit.run_mutant(fmt, i, corpus, workdir, on_target=_target_starts, on_checks=_checks,
                                               **kw)
            except Exception as exc:  # noqa: BLE001 - a bug of the harness itself, kept apart from bandkit's
                out = fuzzkit.Outcome("harness", f"{type(exc).__name__}: {exc}"[:300], "harness error")
                info = {"ops": [], "seed": "?", "size": 0}
            counts[out.kind] += 1
            if "cpu" in timer:
                took = time.process_time() - timer["cpu"] - state[slot + _HARNESS]
                if took > slowest[1]:
                    slowest = [i, round(took, 3)]
            if info.get("mutate_s", 0.0) > 10.0:  # the harness's own slowness, kept apart from bandkit's
                counts["slow_mutator"] += 1
            if out.kind in fuzzkit.FAILURES or out.kind == "harness":
                fails.append({"index": i, "kind": out.kind, "signature": out.signature, "detail": out.detail,
                              "ops": info["ops"], "seed": info["seed"], "size": info["size"],
                              "traceback": out.info.get("traceback", "")[-1500:]})
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20  # GB (ru_maxrss in KB)
            over = rss > rss_gb
            if over:
                fails.append({"index": i, "kind": "rss", "signature": f"peak RSS {rss:.2f} GB", "ops": info["ops"],
                              "seed": info["seed"], "size": info["size"]})
                counts["rss"] += 1
            if over or i + 1 == stop or (i + 1 - lo) >= flush:
                state[slot + _IDX] = -1
                results.put({"fmt": fmt, "start": lo, "stop": i + 1, "counts": dict(counts), "fails": fails,
                             "cpu_s": time.process_time() - c0, "wall_s": time.time() - t0, "max_rss_gb": rss,
                             "slowest": slowest})
                lo, counts, fails, t0, c0 = i + 1, Counter(), [], time.time(), time.process_time()
                slowest = [-1, 0.0]
            if over:  # the high-water mark cannot be reset: the parent starts a fresh worker
                if i + 1 < stop:
                    tasks.put((fmt, i + 1, stop))
                return


def run(args) -> None:
    out = Path(args.out)
    done: set[tuple[str, int]] = set()
    if args.resume and out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            for i in range(r["start"], r["stop"]):
                done.add((r["fmt"], i))
    formats = args.formats.split(",") if args.formats else list(fuzzkit.corpus())
    end = args.start + args.count
    pending = []
    for s in range(args.start, end, args.chunk):
        for f in formats:
            todo = [i for i in range(s, min(s + args.chunk, end)) if (f, i) not in done]
            if todo:
                pending.append((f, todo[0], todo[-1] + 1))  # a resumed chunk restarts at its first gap
    total = sum(e - s for _, s, e in pending)
    print(f"{len(pending)} chunks, {total} mutants to run", flush=True)
    ctx = mp.get_context("fork")
    tasks, results = ctx.Queue(), ctx.Queue()
    state = ctx.Array("d", STATE * args.workers)
    for t in pending:
        tasks.put(t)
    workers: dict[int, list] = {}  # k -> [process, timed index, CPU at its start, current task]

    def start(k: int) -> None:
        state[STATE * k + _IDX] = -1
        p = ctx.Process(target=_worker, args=(tasks, results, STATE * k, state, args.max_gb, args.rss_gb, args.flush,
                                              args.compare_every), daemon=True)
        p.start()
        workers[k] = [p, None, 0.0, None]

    for k in range(args.workers):
        start(k)
    covered = 0
    flushed: dict[int, int] = {}  # slot -> first index not yet recorded in its current task
    with out.open("a") as fh:
        while covered < total:
            try:
                r = results.get(timeout=0.5)
                if r.get("event") == "task":
                    workers[r["slot"] // STATE][3] = (r["fmt"], r["start"], r["stop"])
                    flushed[r["slot"]] = r["start"]
                    continue
                fh.write(json.dumps(r) + "\n")
                fh.flush()
                covered += r["stop"] - r["start"]
                for k, w in workers.items():
                    if w[3] and w[3][0] == r["fmt"] and w[3][1] <= r["start"] < w[3][2]:
                        flushed[STATE * k] = r["stop"]
                print(f"{r['fmt']:>16} {r['start']:>7}-{r['stop']:<7} {r['counts']} {r['cpu_s']:.0f} s cpu "
                      f"{len(r['fails'])} failures [{covered}/{total}]", flush=True)
            except queue.Empty:
                pass
            for k, w in list(workers.items()):
                p, timed, cpu0, task = w
                if not p.is_alive():  # died on its own (not a hang kill): its unrecorded mutants go back
                    if task is not None:
                        fmt, _, stop = task
                        lo = flushed.get(STATE * k, task[1])
                        if lo < stop:
                            tasks.put((fmt, lo, stop))
                            print(f"worker died: {fmt} {lo}-{stop} requeued", flush=True)
                    start(k)
                    continue
                base = STATE * k
                idx = int(state[base + _IDX])
                if idx < 0:
                    w[1] = None
                    continue
                cpu = _cpu_seconds(p.pid)
                if timed != idx:
                    w[1], w[2] = idx, state[base + _CPU0]
                    continue
                checking = state[base + _IN_CHECK] > 0  # (the flag first: the total is final when it is 0)
                harness = state[base + _HARNESS]
                bandkit = cpu - cpu0 - harness  # since the mutant was built, less the harness's checks
                if (not checking and bandkit > args.hang_cpu) or time.time() - state[base + _T0] > args.hang_wall:
                    p.kill()
                    p.join()
                    fmt, _, stop = task
                    sig = f"> {args.hang_cpu:g} s CPU" if bandkit > args.hang_cpu else f"> {args.hang_wall:g} s wall"
                    rec = {"fmt": fmt, "start": idx, "stop": idx + 1, "counts": {"hang": 1},
                           "fails": [{"index": idx, "kind": "hang", "signature": sig, "cpu_s": bandkit,
                                      "harness_s": cpu - cpu0 - bandkit}],
                           "cpu_s": cpu - cpu0, "wall_s": 0, "max_rss_gb": 0}
                    fh.write(json.dumps(rec) + "\n")
                    fh.flush()
                    covered += 1
                    print(f"HANG {fmt} {idx} (bandkit {bandkit:.1f} s CPU, harness {cpu - cpu0 - bandkit:.1f} s)",
                          flush=True)
                    lo = flushed.get(STATE * k, idx)
                    if lo < idx:  # mutants run but not yet recorded: run them again
                        tasks.put((fmt, lo, idx))
                    if idx + 1 < stop:
                        tasks.put((fmt, idx + 1, stop))
                    start(k)
    for _ in workers:
        tasks.put(None)


def summary(args) -> None:
    per: dict[str, Counter] = {}
    sigs: Counter = Counter()
    cpu: Counter = Counter()
    rss: dict[str, float] = {}
    examples = {}
    seen: set = set()
    for line in Path(args.out).read_text().splitlines():
        r = json.loads(line)
        key = (r["fmt"], r["start"], r["stop"])
        if key in seen:  # a range run twice (resumed run): count once
            continue
        seen.add(key)
        per.setdefault(r["fmt"], Counter()).update(r["counts"])
        cpu[r["fmt"]] += r.get("cpu_s", 0)
        rss[r["fmt"]] = max(rss.get(r["fmt"], 0), r.get("max_rss_gb", 0))
        for f in r["fails"]:
            sigs[(r["fmt"], f["kind"], f["signature"])] += 1
            examples.setdefault((r["fmt"], f["kind"], f["signature"]), f)
    print("| format | mutants | ok | refused (one-line error) | crash | bad message | schema | memory | hang | "
          "RSS > 2 GB | CPU s / mutant | peak RSS GB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    tot = Counter()
    def mutants(c: Counter) -> int:  # "rss" and "slow_mutator" mark mutants already counted by their outcome
        return sum(v for k, v in c.items() if k not in ("rss", "slow_mutator"))

    for fmt, c in sorted(per.items()):
        n = mutants(c)
        tot.update(c)
        print(f"| {fmt} | {n:,} | {c['ok']:,} | {c['refused']:,} | {c['crash']} | {c['bad_message']} | {c['schema']} | "
              f"{c['memory']} | {c['hang']} | {c['rss']} | {cpu[fmt] / max(n, 1):.3f} | {rss[fmt]:.2f} |")
    n = mutants(tot)
    print(f"| all | {n:,} | {tot['ok']:,} | {tot['refused']:,} | {tot['crash']} | {tot['bad_message']} | "
          f"{tot['schema']} | {tot['memory']} | {tot['hang']} | {tot['rss']} | {sum(cpu.values()) / max(n, 1):.3f} | "
          f"{max(rss.values(), default=0):.2f} |")
    if tot["slow_mutator"]:
        print(f"({tot['slow_mutator']} mutants took the harness's mutators > 10 CPU s to build; not timed as hangs)")
    for (fmt, kind, sig), k in sigs.most_common(args.top):
        ex = examples[(fmt, kind, sig)]
        print(f"{k:6d} {fmt} {kind}: {sig} (e.g. #{ex['index']} {ex.get('ops')} {ex.get('detail', '')[:160]})")


def replay(args) -> None:
    fmt, idx = args.replay.rsplit(":", 1)
    corpus = fuzzkit.corpus()
    mutant, info = fuzzkit.mutate(corpus[fmt][0], int(idx), corpus)
    d = Path(args.keep) if args.keep else Path(tempfile.mkdtemp())
    d.mkdir(parents=True, exist_ok=True)
    t = time.process_time()
    o = fuzzkit.run_target(mutant, d, forced=info["forced"])
    cpu = time.process_time() - t
    checks = o.info.get("checks_s", 0.0)
    print(info, o.kind, o.signature, o.detail, f"{cpu:.2f} s CPU (bandkit {cpu - checks:.2f} s, the harness's "
          f"JSON parse and schema check {checks:.2f} s)", f"files in {d}")
    if o.info.get("traceback"):
        print(o.info["traceback"])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--formats", help="comma-separated (default: all in the corpus)")
    ap.add_argument("--count", type=int, default=1000, help="mutants per format")
    ap.add_argument("--start", type=int, default=0, help="first mutant index")
    ap.add_argument("--chunk", type=int, default=500, help="mutants per task")
    ap.add_argument("--flush", type=int, default=50, help="mutants per result record")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "fuzz_results.jsonl"))
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--compare-every", type=int, default=10,
                    help="runner mutants: every N-th is also compared with its seed (bandkit compare)")
    ap.add_argument("--hang-cpu", type=float, default=10.0)
    ap.add_argument("--hang-wall", type=float, default=600.0)
    ap.add_argument("--max-gb", type=float, default=4.0)
    ap.add_argument("--rss-gb", type=float, default=2.0)
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--replay", metavar="FMT:INDEX")
    ap.add_argument("--keep", metavar="DIR", help="with --replay: write the mutant's files here")
    args = ap.parse_args(argv)
    if args.summary:
        summary(args)
    elif args.replay:
        replay(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
