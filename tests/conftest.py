from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def quiet10k() -> Path:
    return DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz"
