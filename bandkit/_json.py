"""JSON helpers: plain, deterministic, strict JSON (no NaN/inf, no numpy scalars)."""
from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np


def jsonable(obj: Any) -> Any:
    """Convert ``obj`` recursively into plain JSON types; NaN/inf become None; key order is kept."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, dict) or hasattr(obj, "items"):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if hasattr(obj, "to_dict"):
        return jsonable(obj.to_dict())
    if dataclasses.is_dataclass(obj):
        return jsonable({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    return str(obj)


def dumps(obj: Any) -> str:
    """Deterministic strict JSON text (indent 2, key order as built, trailing newline)."""
    return json.dumps(jsonable(obj), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
