"""Loaders: files -> :class:`bandkit.Trace`. See :func:`load`."""
from __future__ import annotations

from .registry import load, load_all, load_many, load_one, detect_format, FORMATS

__all__ = ["load", "load_one", "load_all", "load_many", "detect_format", "FORMATS"]
