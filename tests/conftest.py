import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

# no background compile of the change-point kernels (bandkit._warm) from the suite's processes: it would outlive
# the test that started it; tests/test_warm.py starts one on purpose and waits for it
os.environ["BANDKIT_WARM"] = "0"

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def quiet10k() -> Path:
    return DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz"
