"""The fast paths of JSON input (bandkit.loaders.jsoninput) decide exactly what the slow ones decide.

- ``check_schema(..., "pyperf")`` skips the schema validator for documents its own check accepts: on
  thousands of mutated pyperf documents (wrong types, sizes one over a bound, missing keys, deep
  values), its outcome — passed, or the InputError's message — equals the validator's alone, and the
  own check never accepts a document the validator refuses.
- ``prescan``'s shortcuts (a long-number test on the raw bytes, the surrogate test) give the same
  errors and documents as the full scans.
"""
from __future__ import annotations

import copy
import gzip
import json
import random

import pytest

from bandkit.errors import InputError
from bandkit.loaders import jsoninput
from bandkit.loaders.input_schemas import MAX_METADATA_KEYS, MAX_METADATA_STRING

from conftest import DATA

SMALL = {"version": "1.0", "metadata": {"name": "b", "unit": "second", "tags": ["a", "b"], "loops": 4},
         "benchmarks": [{"metadata": {"name": "x"},
                         "runs": [{"metadata": {"date": "2020-01-01 00:00:00", "cpu_freq": "0=1000 MHz"},
                                   "warmups": [[1, 0.2], [2, 0.1]], "values": [0.1, 0.11, 0.12]},
                                  {"warmups": [0.3], "values": [1, 2]}, {"samples": [0.5]}]}]}
OLD = {"version": 4, "benchmark": {"common_metadata": {"name": "o"}, "runs": [{"samples": [1.0, 2.0]}]}}

# replacement values: every JSON type, and sizes at and one past each bound of the pyperf schema
POOL = [None, True, False, 0, 1, -3, 1.5, float("nan"), 10 ** 30, "", "x", "v" * 20, "v" * 21,
        "s" * MAX_METADATA_STRING, "s" * (MAX_METADATA_STRING + 1), [], [1], [1, 2], [1, 2, 3], [1.0, "a"],
        [[1, 2]], [[1, 2, 3]], [[1]], [[1, True]], [[1, None]], [None], [True], ["s"], [{"a": 1}], [[]],
        ["s" * (MAX_METADATA_STRING + 1)], list(range(MAX_METADATA_KEYS)), list(range(MAX_METADATA_KEYS + 1)),
        {}, {"a": 1}, {"a": [1, "b"]}, {"a": {"b": 1}}, {"a": [[1]]}, {"runs": []}, {"runs": [{}]},
        {str(k): k for k in range(MAX_METADATA_KEYS)}, {str(k): k for k in range(MAX_METADATA_KEYS + 1)}]
KEYS = ["version", "metadata", "benchmarks", "benchmark", "common_metadata", "runs", "values", "samples",
        "warmups", "name", "x"]


def _nodes(doc, path=()):
    """(path, node) of every node of ``doc``."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _nodes(v, (*path, i))


def _mutate(doc, rng: random.Random):
    doc = copy.deepcopy(doc)
    for _ in range(rng.choice((1, 1, 2))):
        nodes = list(_nodes(doc))
        path, node = rng.choice(nodes)
        how = rng.random()
        if isinstance(node, dict) and how < 0.3:
            if node and rng.random() < 0.5:
                del node[rng.choice(list(node))]
            else:
                node[rng.choice(KEYS)] = copy.deepcopy(rng.choice(POOL))
        elif isinstance(node, list) and how < 0.3:
            node.append(copy.deepcopy(rng.choice(POOL)))
        elif path:
            parent = doc
            for k in path[:-1]:
                parent = parent[k]
            parent[path[-1]] = copy.deepcopy(rng.choice(POOL))
        else:
            doc = copy.deepcopy(rng.choice(POOL))
    return doc


def _outcome(doc, fast: bool):
    saved = dict(jsoninput._PASSES)
    if not fast:
        jsoninput._PASSES.clear()
    try:
        jsoninput.check_schema("f.json", doc, "pyperf")
        return None
    except InputError as exc:
        return str(exc)
    finally:
        jsoninput._PASSES.update(saved)


def _real():
    return json.loads(gzip.decompress((DATA / "runners" / "pyperf-tests_telco.json.gz").read_bytes()))


@pytest.mark.parametrize("base", ["small", "old", "real"])
def test_pyperf_check_decides_as_the_schema_validator(base):
    doc0 = {"small": SMALL, "old": OLD}.get(base) or _real()
    rng = random.Random(f"fast-{base}")
    accepted = refused = fallback_ok = 0
    n = 1500 if base != "real" else 300
    for _ in range(n):
        doc = _mutate(doc0, rng)
        passes = jsoninput._pyperf_passes(doc)
        slow = _outcome(doc, fast=False)
        assert _outcome(doc, fast=True) == slow
        if passes:
            assert slow is None, (doc, slow)  # never accepts what the validator refuses
            accepted += 1
        elif slow is None:
            fallback_ok += 1  # (valid, but left to the validator: only costs time)
        else:
            refused += 1
    assert accepted > n // 10 and refused > n // 10  # both sides exercised
    assert fallback_ok < accepted  # the own check accepts most valid documents


def test_pyperf_check_accepts_the_real_files():
    for name in ("pyperf-tests_telco.json.gz", "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz",
                 "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz"):
        doc = json.loads(gzip.decompress((DATA / "runners" / name).read_bytes()))
        assert jsoninput._pyperf_passes(doc), name
    assert jsoninput._pyperf_passes(SMALL) and jsoninput._pyperf_passes(OLD)


def _full_prescan_error(data: bytes):
    """prescan's verdict by the full regex scans alone (no shortcut)."""
    bare = jsoninput._STRING.sub(b'""', data) if b'"' in data else data
    m = jsoninput._LONG_NUMBER.search(bare)
    return None if m is None else len(m.group(0))


@pytest.mark.parametrize("text, long_number", [
    ('{"a": %s}' % ("1" * 100), None),
    ('{"a": %s}' % ("1" * 101), 101),
    ('{"a": "%s", "b": 1}' % ("9" * 500), None),  # digits inside a string: not a number
    ('{"a": "%s",\n "b": -%se+5}' % ("9" * 50, "2" * 150), 154),
    ('{"a": ["x", "\\"%s"], "e": 1e5}' % ("7" * 300), None),
    ('[1.%s]' % ("0" * 99), 101),
])
def test_prescan_long_numbers_as_the_full_scan(text, long_number):
    data = text.encode()
    assert _full_prescan_error(data) == long_number
    if long_number is None:
        jsoninput.prescan("f.json", data)
    else:
        with pytest.raises(InputError, match=f"number with {long_number} characters"):
            jsoninput.prescan("f.json", data)


@pytest.mark.parametrize("data", [b'"\\ud800"', b'"\\uDbff x"', b'"\xed\xa0\x80"', b'"\\u0041"', b'"plain"',
                                  b'"\\\\ud800"', b'"\xe4\xb8\xad"'])
def test_surrogate_shortcut_as_the_regex(data):
    assert jsoninput._has_surrogate(data) == (jsoninput._SURROGATE.search(data) is not None)


def test_strings_emptied_equals_the_string_regex():
    """prescan's split-and-join of the quotes (escapes masked, even number of unescaped quotes) empties the
    strings exactly as the regex does, on random texts of quotes, backslashes, NULs, brackets, digits and
    newlines (backslashes outside strings, NULs, odd counts: then the regex itself), and on the bundled
    pyperf files."""
    rng = random.Random(5)
    alphabet = ['"', '"', "\\", "\\", "a", "[", "]", "{", "}", "1", "\n", ":", ",", "\0"]
    for _ in range(40000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))).encode()
        assert jsoninput._strings_emptied(text) == jsoninput._STRING.sub(b'""', text), text
    for path in (DATA / "runners").glob("*.json*"):
        raw = path.read_bytes()
        data = gzip.decompress(raw) if path.suffix == ".gz" else raw
        assert jsoninput._strings_emptied(data) == jsoninput._STRING.sub(b'""', data)


def test_strings_emptied_masks_escaped_quotes_without_the_regex(monkeypatch):
    """speedpython's pyperf files hold escaped quotes (``\\"`` in a command line): the split-and-join takes
    them (masked), not the regex (~3x slower on 0.5 MB)."""
    raw = (DATA / "runners" / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz").read_bytes()
    data = gzip.decompress(raw)
    assert b'\\"' in data
    want = jsoninput._STRING.sub(b'""', data)

    class NoRegex:
        def sub(self, *a):
            raise AssertionError("the regex path")

    monkeypatch.setattr(jsoninput, "_STRING", NoRegex())
    assert jsoninput._strings_emptied(data) == want
    assert jsoninput._strings_emptied(b'["a\\\\", "b\\"c", 1]') == b'["", "", 1]'


def test_float_hook_only_where_a_number_can_overflow(monkeypatch):
    """prescan says whether a number may overflow (an exponent of 3 digits outside the strings); without one
    json.loads runs without the float hook, and the document is the same; with one the hook still names
    the number out of range."""
    raw = (DATA / "runners" / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz").read_bytes()
    data = gzip.decompress(raw)
    assert jsoninput.prescan("f", data) is False
    assert jsoninput.prescan("f", b'{"a": "1e400", "b": [1e-400, 1.5e99, true, false]}') is False
    for text in (b"[1e400]", b"[1E+309]", b"[2.5e0308]", b'{"a": "x", "b": 1e+99}'):
        assert jsoninput.prescan("f", text) is True
    with pytest.raises(InputError, match="out of range"):
        jsoninput.parse_json("f", b'{"v": [1.0, 1e999]}')
    want = json.loads(data, parse_float=jsoninput._parse_float)
    calls = []
    monkeypatch.setattr(jsoninput, "_parse_float", lambda s: calls.append(s) or float(s))
    assert jsoninput.parse_json("f", data) == want
    assert not calls
