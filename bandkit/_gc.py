"""The cyclic garbage collector paused around passes that make many objects and no reference cycles."""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused() -> Iterator[None]:
    """No collection inside the block (restored after; nothing done when the collector is off already).

    For passes that build tens of thousands of plain objects without cycles (the results of an asv
    file of 63,000 summary-only benchmarks): each full collection during them walks every object
    made so far, 60 % of such a pass's time."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
