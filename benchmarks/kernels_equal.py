"""numpy and compiled change-point kernels give the same ``detect_changepoints(...).to_dict()`` on long series
(benchmarks/RESULTS_speed.md §8; the tests check short ones). Runs each case in two fresh processes
(``BANDKIT_KERNELS=python`` and ``compiled``) and compares the JSON byte for byte:

    python benchmarks/kernels_equal.py 100000 250000 --seeds 6
"""
import argparse
import json
import os
import subprocess
import sys

CASE = r"""
import json, sys
import numpy as np
from bandkit.changepoints import detect_changepoints
n, seed, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(seed)
y = np.repeat(rng.normal(0, 2, n // 1000 + 1), 1000)[:n] + (rng.standard_t(3, n) if kind == "t3" else rng.normal(size=n))
if kind == "grid":
    y = np.round(y * 2) / 2
print(json.dumps(detect_changepoints(y).to_dict(), sort_keys=True, default=str))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", type=int, nargs="+")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--kinds", default="normal,t3,grid")
    a = ap.parse_args(argv)
    same = total = 0
    for n in a.sizes:
        for kind in a.kinds.split(","):
            for seed in range(1, a.seeds + 1):
                out = [subprocess.run([sys.executable, "-c", CASE, str(n), str(seed), kind], check=True, text=True,
                                      capture_output=True, env={**os.environ, "BANDKIT_KERNELS": mode}).stdout
                       for mode in ("python", "compiled")]
                total += 1
                same += out[0] == out[1]
                print(f"n={n} {kind} seed={seed}: {'same' if out[0] == out[1] else 'DIFFERENT'}", flush=True)
    print(f"{same}/{total} identical")
    return 0 if same == total else 1


if __name__ == "__main__":
    sys.exit(main())
