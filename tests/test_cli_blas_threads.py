"""The CLI's own processes use one OpenBLAS thread unless the user says otherwise; importing bandkit as a
library changes nothing (bandkit_entry.main, ``python -m bandkit``: benchmarks/RESULTS_speed.md §9)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = "import atexit, os; atexit.register(lambda: print('BLAS=' + str(os.environ.get('OPENBLAS_NUM_THREADS'))))"


def _run(code: str, env_extra: dict | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env.update(env_extra or {})
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    return out.stdout.strip().splitlines()[-1]


def test_library_import_leaves_blas_threads_alone():
    assert _run(PROBE + "; import bandkit, numpy") == "BLAS=None"


@pytest.mark.parametrize("user, expected", [(None, "1"), ("3", "3")])
def test_cli_entry_sets_one_blas_thread_unless_the_user_did(user, expected):
    code = PROBE + "; import sys; sys.argv = ['bandkit', '--version']; import bandkit_entry; bandkit_entry.main()"
    assert _run(code, {"OPENBLAS_NUM_THREADS": user} if user else None) == f"BLAS={expected}"


@pytest.mark.parametrize("user, expected", [(None, "1"), ("3", "3")])
def test_python_m_bandkit_sets_one_blas_thread_unless_the_user_did(user, expected):
    # argv[0] is "-m" while ``python -m bandkit`` imports the package (as here, set by hand)
    code = PROBE + "; import sys; sys.argv[0] = '-m'; import bandkit, numpy"
    assert _run(code, {"OPENBLAS_NUM_THREADS": user} if user else None) == f"BLAS={expected}"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    real = subprocess.run([sys.executable, "-m", "bandkit", "--version"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert real.returncode == 0 and real.stdout.startswith("bandkit ")
