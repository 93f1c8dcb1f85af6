"""Compile bandkit's change-point kernels into numba's cache, in a background process.

Started by :func:`bandkit._numba.warm_in_background` when a call ran the kernels without numba on a series
long enough for numba to pay off and the cache was cold: that call and the ones after it keep running the
numpy path until this process has written its marker, then the compiled kernels are loaded from the cache.
Niced, one at a time (an exclusive lock on ``bandkit-warm.lock`` in the cache directory), its output
discarded. Writes only to numba's cache directory (the package's ``__pycache__`` or ``NUMBA_CACHE_DIR``).
``python -m bandkit._warm`` runs it in the foreground (with ``BANDKIT_KERNELS=compiled``).
"""
from __future__ import annotations

import os
import sys

#: Series the warm-up analyses: both noise-scale paths (n <= 2 x 65,536 values, and longer: subsampled),
#: continuous, heavy-tailed and clock-grid values.
SIZES = (20000, 140000)


def _series(n: int, kind: str, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    y = np.repeat(rng.normal(0, 2, n // 1000 + 1), 1000)[:n]
    y = y + (rng.standard_t(3, n) if kind == "t3" else rng.normal(size=n))
    return np.round(y * 2) / 2 if kind == "grid" else y


def main() -> int:
    try:
        os.nice(19)
    except (AttributeError, OSError):
        pass
    os.environ["BANDKIT_KERNELS"] = "compiled"
    import fcntl

    from . import _numba

    if _numba._MODE["forced"] != "compiled":  # bandkit was imported before the variable was set
        _numba._MODE["forced"] = "compiled"
    folder = _numba._cache_home()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "bandkit-warm.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0  # another process is compiling
        marker = _numba.warm_marker()
        if marker.exists():
            return 0
        try:
            from .changepoints import detect_changepoints

            for n in SIZES:
                for kind in ("normal", "t3", "grid"):
                    detect_changepoints(_series(n, kind)).to_dict()  # the lazy parts (CIs, statistics) too
        except Exception as exc:  # noqa: BLE001 - recorded, so that no process tries again for this install
            _numba.warm_marker(suffix="failed").write_text(f"{type(exc).__name__}: {exc}\n")
            return 1
        tmp = marker.with_name(marker.name + f".{os.getpid()}.tmp")
        tmp.write_text("change-point kernels compiled into numba's cache\n")
        os.replace(tmp, marker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
