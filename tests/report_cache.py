"""Reports shared by the report-rendering tests (test_html, test_schema, test_browser): each real file
is analysed and rendered once per pytest session (the analyses take seconds; the tests only read)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import bandkit

DATA = Path(__file__).resolve().parent.parent / "data"
FTQ_QUIET = DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz"
FTQ_10000 = DATA / "ftq" / "ftq_f10000_intf100Hz_1ms_0.dat.gz"
FTQ_7777 = DATA / "ftq" / "ftq_f7777_intf100Hz_1ms_0.dat.gz"
FTQ_2009 = DATA / "ftq-2009" / "llfree-ftq_t1" / "times.dat"


def pyperf_files() -> list[Path]:
    """Real pyperf result files shipped under data/ (the runner engineer's copies)."""
    return sorted(p for p in DATA.glob("**/*") if "pyperf" in str(p.relative_to(DATA)).lower()
                  and p.name.endswith((".json", ".json.gz")))


@lru_cache(maxsize=None)
def report(*paths: Path):
    """``bandkit.report`` of ``paths`` (cached; do not mutate)."""
    return bandkit.report(*(str(p) for p in paths))


@lru_cache(maxsize=None)
def html(*paths: Path) -> str:
    return report(*paths).to_html()


@lru_cache(maxsize=None)
def json_text(*paths: Path) -> str:
    return report(*paths).to_json()
