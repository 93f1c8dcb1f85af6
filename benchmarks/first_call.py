"""First ``detect_changepoints`` call of a process, imports included (issue 17: "first call in a fresh virtual
environment ≤ 2 s"). Run it with the interpreter of a fresh environment (``python -m venv V; V/bin/pip install
.``; the numba cache of that install is empty until the kernels are compiled):

    V/bin/python benchmarks/first_call.py 6000      # no numba: kernels run as Python / numpy
    V/bin/python benchmarks/first_call.py 100000    # cold cache: numpy, and a background compile starts
                                                    # (bandkit._warm); once it is done: loads the cache

Prints wall and CPU time (of this process: the background compile is another process), the changes found,
whether numba was imported, whether a background compile was started and the load average.
"""
import os
import sys
import time

n = int(sys.argv[1]) if len(sys.argv) > 1 else 6000
t0 = time.perf_counter()
c0 = time.process_time()
import numpy as np  # noqa: E402

from bandkit.changepoints import detect_changepoints  # noqa: E402

rng = np.random.default_rng(0)
y = np.repeat(rng.normal(0, 2, n // 1000 + 1), 1000)[:n] + rng.normal(size=n)
r = detect_changepoints(y)
print(f"n={n} first call incl. imports: wall {time.perf_counter() - t0:.2f} s cpu {time.process_time() - c0:.2f} s; "
      f"{len(r.changepoints)} changes; numba imported {'numba' in sys.modules}; "
      f"background compile started {getattr(sys.modules.get('bandkit._numba'), '_WARM', {}).get('spawned', False)}; "
      f"load {os.getloadavg()[0]:.1f}")
