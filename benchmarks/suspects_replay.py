"""CPU time of the suspects of a runner file's report, replayed in process, source trees alternating.

    python benchmarks/suspects_replay.py A.json.gz --tree /tmp/base --tree /tmp/head --rounds 3   # (outside a checkout)

Each round runs every tree in a fresh process (``PYTHONPATH`` = the tree): the file is loaded and analysed once with
``rank_suspects`` recorded (its arguments for each benchmark's post-mortem and for the pooled shared suspects; where
the tree has ``rank_steps``, its generator form, that one), then the recorded calls are replayed one by one 7 times (``time.process_time``; the objects made so far frozen out of the garbage
collector's scans, as ``analyze()`` does during its pass): the median of the per-benchmark calls together and
of the pooled call. A tree's suspects are checked equal to the first tree's (names, scores, evidence as text).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_CHILD = r"""
import gc, json, statistics, sys, time
import bandkit
import bandkit.postmortem as P, bandkit.postmortem.summary as SM
from bandkit.analyze import analyze
import bandkit.postmortem.suspects as S
calls = []
orig = S.rank_suspects
steps = getattr(S, "rank_steps", None)  # (the post-mortems run rank_suspects as a generator, rank_steps)
def record(md, aff, **kw):
    calls.append((md, aff, kw))
    return orig(md, aff, **kw)
def record_steps(md, aff, **kw):
    calls.append((md, aff, kw))
    return (yield from steps(md, aff, **kw))
if steps is not None:
    S.rank_steps = record_steps
else:  # (postmortem imports it from the suspects module when called, the summary module at its import)
    S.rank_suspects = SM.rank_suspects = record
analyze(bandkit.load(sys.argv[1]))
S.rank_suspects = SM.rank_suspects = orig
if steps is not None:
    S.rank_steps = steps
per = [c for c in calls if "strata" not in c[2]]
pooled = [c for c in calls if "strata" in c[2]]
out = {"calls": len(per), "suspects": [[[s.metadata, s.score, repr(s.evidence)] for s in orig(md, aff, **kw)]
                                        for md, aff, kw in calls]}
gc.freeze()  # (as analyze() does during its pass: the collector does not walk the loaded file's objects)
for name, sel in (("per_benchmark_ms", per), ("pooled_ms", pooled)):
    ts = []
    for _ in range(7):
        t = time.process_time()
        for md, aff, kw in sel:
            orig(md, aff, **kw)
        ts.append(time.process_time() - t)
    out[name] = statistics.median(ts) * 1e3
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--tree", action="append", required=True, help="a source tree (PYTHONPATH); repeat")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    print(f"load average (1 min) before {os.getloadavg()[0]:.2f}")
    first = None
    for r in range(a.rounds):
        trees = a.tree if r % 2 == 0 else a.tree[::-1]
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=tree)
            res = json.loads(subprocess.run([sys.executable, "-c", _CHILD, a.file], env=env, check=True,
                                            capture_output=True, text=True).stdout)
            if first is None:
                first = res["suspects"]
            same = "same suspects" if res["suspects"] == first else "SUSPECTS DIFFER"
            print(f"round {r + 1} {tree}: {res['calls']} per-benchmark calls {res['per_benchmark_ms']:.1f} ms, "
                  f"pooled {res['pooled_ms']:.1f} ms ({same})")
    print(f"load average (1 min) after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
