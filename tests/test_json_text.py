"""bandkit._json.dumps writes what ``json.dumps(jsonable(x), indent=2, ...)`` writes, byte for byte."""
from __future__ import annotations

import collections
import json
import math

import numpy as np
import pytest

from bandkit._json import dumps, jsonable

CASES = [{}, [], {"a": []}, {"a": {}}, [1, 2.5, None, True, False, "x\u00e9\"\n\t\\ \u2028"],
         {1: 2, None: 3, 2.5: 5, False: 1}, collections.OrderedDict(a=[1, {"b": 2}]),
         {"n": np.float64(1.5), "i": np.int64(3), "nan": float("nan"), "inf": -math.inf, "b": np.bool_(True)},
         ((1, 2), ()), {"deep": [[{"x": [[]], "y": {"z": [{}]}}]]}, 1e300, -0.0, 10 ** 30, 5e-324, "",
         np.arange(3), {"arr": np.array([0.1, np.nan])}]


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_dumps_equals_the_json_module(case):
    assert dumps(case) == json.dumps(jsonable(case), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    plain = jsonable(case)
    assert dumps(plain, plain=True) == dumps(case)


def test_dumps_refuses_non_finite_floats_when_told_the_data_is_plain():
    with pytest.raises(ValueError):
        dumps({"x": float("nan")}, plain=True)


def test_report_json_equals_the_json_module(tmp_path):
    """A whole report (runner file: nested findings, suspects, metadata) through both encoders."""
    from pathlib import Path

    import bandkit

    p = Path(__file__).resolve().parent.parent / "data" / "runners" / "pyperf-tests_telco.json.gz"
    rep = bandkit.analyze(bandkit.load_all(p) if hasattr(bandkit, "load_all") else bandkit.load(p))
    d = rep.to_dict()
    assert rep.to_json() == json.dumps(d, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
