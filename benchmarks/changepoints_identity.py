"""Fingerprint of ``detect_changepoints`` outputs on seeded series, to check that a change leaves some lengths
byte-identical (issue 12: the short-series unit must not move anything from 50 values on).

Usage: python benchmarks/changepoints_identity.py [--sizes 50,51,64,100,200,1000] [--reps 40] [--per-series]

Runs against whichever ``bandkit`` is imported (``PYTHONPATH=/path/to/old/checkout`` for the previous version)
and prints one SHA-256 per (family, length) of the reported indices, p- and q-values, effects and the noise model
(``repr`` of the floats: exact), plus the overall one; compare the two outputs with ``diff``. Families: the
null, step (1.05 in the middle) and moving-level series of benchmarks/changepoints_families.py.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import changepoints_families as fam  # noqa: E402


def fingerprint(y) -> str:
    from bandkit.changepoints import detect_changepoints

    r = detect_changepoints(y, ci=False)
    parts = [repr(r.cost), repr(r.indices.tolist()), repr(sorted(r.info["noise"].items()))]
    parts += [repr((c.index, c.p_value, c.q_value, c.effect)) for c in r.changepoints]
    return "|".join(parts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="50,51,64,100,200,1000")
    ap.add_argument("--reps", type=int, default=40)
    a = ap.parse_args(argv)
    total = hashlib.sha256()
    kinds = [("null", f) for f in fam.CALIBRATION + fam.VALIDATION_EXTRA] + \
            [("step", f) for f in ("g", "t3", "ar=0.5", "g+spikes=0.01", "g+tick=1", "g+pink=0.3")] + \
            [("moving", f) for f in fam.MOVING]
    for n in (int(s) for s in a.sizes.split(",")):
        for kind, name in kinds:
            rng = np.random.default_rng([n, a.reps, len(name), sum(name.encode())])
            h = hashlib.sha256()
            for _ in range(a.reps):
                if kind == "null":
                    y = fam.null(name, n, rng)
                elif kind == "step":
                    y = fam.step(name, n, 1.05, n // 2, rng)
                else:
                    y = fam.moving(name, n, rng)
                h.update(fingerprint(y).encode())
            total.update(h.digest())
            print(f"{n:6d} {kind:6s} {name:18s} {h.hexdigest()[:16]}", flush=True)
    print(f"all {total.hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
