"""The first change-point calls after an install do not wait for numba: they run the numpy kernels while a
background process (bandkit._warm) compiles the compiled ones into the cache; later calls load them
(bandkit._numba: warm_in_background, cache_warm)."""
import json
import os
import subprocess
import sys

import pytest

from bandkit import _numba

CALL = r"""
import json, sys
import numpy as np
from bandkit import _numba
from bandkit.changepoints import detect_changepoints
compiles = []
rng = np.random.default_rng(3)
n = 100_000
y = np.repeat(rng.normal(0, 2, n // 1000 + 1), 1000)[:n] + rng.normal(size=n)
if _numba.cache_warm():  # count compiles from here on: none may happen
    from numba.core import event
    class L(event.Listener):
        def on_start(self, ev): compiles.append(ev.data["dispatcher"].py_func.__name__)
        def on_end(self, ev): pass
    event.register("numba:compile", L())
r = detect_changepoints(y)
proc = _numba._WARM["proc"]
numba_used, compiled = "numba" in sys.modules, _numba.compiled_in_use()
reaped = None
if proc is not None:  # stay alive until the background compile ends: it must not stay behind as a zombie
    import os, time
    t0 = time.monotonic()
    zombie_since = None
    while time.monotonic() - t0 < 900:
        try:
            with open(f"/proc/{proc.pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            reaped = True
            break
        if state == "Z":
            zombie_since = zombie_since or time.monotonic()
            if time.monotonic() - zombie_since > 10:
                reaped = False
                break
        time.sleep(0.2)
print(json.dumps({"result": r.to_dict(), "numba": numba_used, "compiled": compiled, "reaped": reaped,
                  "warm_started": proc is not None, "compiles": compiles}, default=str))
"""


def _call(env):
    out = subprocess.run([sys.executable, "-c", CALL], capture_output=True, text=True, env=env, check=True,
                         timeout=600).stdout
    return json.loads(out)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and fcntl")
def test_first_call_runs_numpy_and_warms_the_cache_in_the_background(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "BANDKIT_KERNELS"}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "cache"), BANDKIT_WARM="1")
    first = _call(env)  # waits for the background compile to end
    assert not first["numba"] and not first["compiled"]  # no compile in the caller
    assert first["warm_started"]
    assert first["reaped"] is True  # the caller reaped it at once (no zombie), without another kernel call
    names = os.listdir(tmp_path / "cache")
    assert any(n.endswith(".warm") for n in names), names
    assert not any(n.endswith(".failed") for n in names), names
    second = _call(env)
    assert second["numba"] and second["compiled"]
    assert second["compiles"] == []  # loaded from the cache, nothing compiled
    assert not second["warm_started"]
    assert second["result"] == first["result"]  # numpy and compiled kernels agree


def test_no_background_compile_for_a_read_only_install_or_when_turned_off(tmp_path, monkeypatch):
    monkeypatch.setitem(_numba._WARM, "fallback", str(tmp_path))
    assert _numba.warm_dir({"NUMBA_CACHE_DIR": str(tmp_path)}) is None  # configure_cache's per-user fallback
    monkeypatch.setitem(_numba._WARM, "fallback", None)
    assert _numba.warm_dir({"NUMBA_CACHE_DIR": str(tmp_path)}) == tmp_path
    assert _numba.warm_dir({"NUMBA_CACHE_DIR": str(tmp_path), "BANDKIT_WARM": "0"}) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fcntl")
def test_one_background_compile_at_a_time(tmp_path, monkeypatch):
    import fcntl

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("BANDKIT_WARM", "1")
    monkeypatch.setitem(_numba._WARM, "fallback", None)
    monkeypatch.setitem(_numba._WARM, "proc", None)
    monkeypatch.setitem(_numba._WARM, "spawned", False)
    with open(tmp_path / "bandkit-warm.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another process is compiling
        assert _numba.warm_in_background() is True
        assert _numba._WARM["proc"] is None and not _numba._WARM["spawned"]  # nothing started
    # a failed background compile is not retried for the same install
    _numba.warm_marker(suffix="failed").write_text("x")
    assert _numba.warm_in_background() is False
    assert _numba._WARM["proc"] is None
