"""A module imported on its first attribute access: ``pd = lazy_module("pandas")`` keeps pandas off the
import of a module that needs it only on some paths (``bandkit compare`` reads no metadata columns, so its
post-mortem calls never touch pandas)."""
from __future__ import annotations

import importlib
from typing import Any


class _LazyModule:
    __slots__ = ("_name", "_cache")

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_cache", {})

    def __getattr__(self, attr: str) -> Any:
        cache = self._cache
        try:
            return cache[attr]
        except KeyError:
            value = cache[attr] = getattr(importlib.import_module(self._name), attr)
            return value

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy_module(name: str) -> Any:
    """A stand-in for ``import name`` that imports it when an attribute is first read."""
    return _LazyModule(name)


#: ``from .._lazy import pandas as pd``: pandas, imported when first used.
pandas = lazy_module("pandas")
