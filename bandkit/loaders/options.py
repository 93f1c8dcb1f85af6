"""Loader option checking shared by every loader (kept free of pandas: the FTQ loaders import it)."""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import UsageError
from .source import Source


def reject_options(source: Source, loader: str, options: Mapping[str, Any]) -> None:
    """Options a runner loader does not take are the caller's mistake: a UsageError naming the file."""
    if options:
        raise UsageError(f"{source.name}: {loader} loader: unknown options {sorted(options)}")
