"""JSON input at the boundary: bounded parsing and one schema check per runner format.

:func:`parse_json` reads a JSON document with limits that keep malformed or hostile files from
reaching the loaders as exceptions: nesting depth (:data:`MAX_DEPTH`), length of one number
(:data:`MAX_NUMBER_CHARS`), numbers that overflow a float (``1e400``). Bare ``NaN`` / ``Infinity``
(and C-style ``nan`` / ``inf``, as some Google Benchmark builds write) are accepted; the loaders
check that the values they use are finite.

:func:`check_schema` validates the parsed document against the format's JSON Schema
(:mod:`bandkit.loaders.input_schemas`: types, required keys, bounded sizes), compiled once per
process with fastjsonschema (about 70x faster than ``jsonschema`` on a 0.5 MB pyperf file:
1.4 ms vs 100 ms, and 13 ms vs 88 ms to import). Every failure is one :class:`InputError`
``FILE: where: what`` (``where`` is a path into the document such as ``benchmarks[3].runs[0].values``).
"""
from __future__ import annotations

import json
import math
import re
from itertools import chain
from typing import Any

import numpy as np

from ..errors import InputError
from .input_schemas import MAX_BENCHMARKS, MAX_METADATA_KEYS, MAX_METADATA_STRING, MAX_RUNS, MAX_VALUES, PYPERF

#: Deepest nesting of arrays/objects accepted (the runner formats need at most 6).
MAX_DEPTH = 64
#: Longest number token accepted, in characters (a float needs at most ~25).
MAX_NUMBER_CHARS = 100

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_LONG_NUMBER = re.compile(rb"[-+0-9.eE]{%d,}" % (MAX_NUMBER_CHARS + 1))
_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NUMBER_MARKS = bytes(49 if b in b"-+0123456789.eE" else 48 for b in range(256))  # (translate: "1" / "0")
_NUMBER_RUN = b"1" * (MAX_NUMBER_CHARS + 1)
#: ``translate`` table: "e" / "E" to "e", "+" and digits to "0", anything else to " " (an exponent of 3 digits: "e000").
_EXPONENT_MARKS = bytes(101 if b in b"eE" else 48 if b in b"+0123456789" else 32 for b in range(256))
_BARE_NONFINITE = re.compile(rb'(?<=[\[,:\s])(-?)(inf(?:inity)?|nan)(?=[\s,\]}])', re.IGNORECASE)


class _Overflow(ValueError):
    def __init__(self, token: str):
        super().__init__(token)
        self.token = token


def _parse_float(s: str) -> float:
    f = float(s)
    if math.isinf(f):
        raise _Overflow(s)
    return f


def _line_of(data: bytes, pos: int) -> int:
    return data.count(b"\n", 0, max(pos, 0)) + 1


def prescan(name: str, data: bytes) -> bool:
    """Refuse documents nested deeper than :data:`MAX_DEPTH` or with a number longer than
    :data:`MAX_NUMBER_CHARS` (C-speed scans, before the parser sees them). Returns whether a number may
    overflow a float: only one with an exponent of 3 digits or more ("e" then 3 digits or "+" outside the
    strings) can, as a number of at most :data:`MAX_NUMBER_CHARS` characters without one is below 1e199."""
    bare = _strings_emptied(data)
    # (a run of number characters in ``bare`` is one in ``data`` too: strings only shorten to "", which
    # no run crosses; so without such a run in ``data``, marked by one C translate + find, there is none)
    m = _LONG_NUMBER.search(bare) if _NUMBER_RUN in data.translate(_NUMBER_MARKS) else None
    if m:
        # locate it in the original bytes for the line number (strings were shortened above)
        m2 = re.search(re.escape(m.group(0)[:40]), data)
        line = _line_of(data, m2.start()) if m2 else None
        raise InputError(name, f"number with {len(m.group(0))} characters (limit {MAX_NUMBER_CHARS})", line=line)
    br = bare.translate(None, _BRACKETS)
    if len(br) > MAX_DEPTH:
        a = np.frombuffer(br, dtype=np.uint8)
        depth = np.cumsum(np.where((a == ord("[")) | (a == ord("{")), 1, -1), dtype=np.int64)
        if depth.max(initial=0) > MAX_DEPTH:
            k = int(np.argmax(depth > MAX_DEPTH))
            # the k-th bracket of the stripped text: find it in the original for the line number
            raise InputError(name, f"JSON nested deeper than {MAX_DEPTH} levels",
                             line=_line_of(data, _nth_bracket(data, k)))
    return b"e000" in bare.translate(_EXPONENT_MARKS)


def _strings_emptied(data: bytes) -> bytes:
    """``_STRING.sub(b'""', data)``: every string's content removed. With an even number of unescaped
    quotes, every one of them opens or closes a string, so the text between the odd and even quotes is the
    strings' (a C split and join, ~2x faster than the regex on a 0.5 MB pyperf file); otherwise the regex.
    Escapes (``\\"`` in pyperf's command lines) are first masked: each backslash, left to right, with the
    byte after it - the regex's pairs, as a run of backslashes inside a string starts on an escape - by two
    NUL bytes, which the data must not hold; the text outside the strings so found must then hold no NUL
    (a backslash outside a string pairs differently in the regex), and is the original's."""
    if b'"' not in data:
        return data
    i = data.find(b"\\")
    escaped = i >= 0
    if not escaped:
        parts = data.split(b'"')
    else:
        if b"\0" in data:
            return _STRING.sub(b'""', data)
        masked = bytearray(data)
        n = len(data)
        k = 0
        while i >= 0:
            k += 1
            if k > _MASK_MAX:  # (many escapes: the regex, at C speed)
                return _STRING.sub(b'""', data)
            masked[i] = 0
            if i + 1 < n:
                masked[i + 1] = 0
            i = data.find(b"\\", i + 2)
        parts = bytes(masked).split(b'"')
    if len(parts) % 2 == 0:  # (an odd number of quotes: an unterminated string, left to the regex)
        return _STRING.sub(b'""', data)
    out = b'""'.join(parts[::2])
    if escaped and b"\0" in out:
        return _STRING.sub(b'""', data)
    return out


#: Most escapes :func:`_strings_emptied` masks one by one (a Python loop) before it takes the regex.
_MASK_MAX = 2000


def _nth_bracket(data: bytes, k: int) -> int:
    """Byte offset of the k-th (0-based) bracket outside strings."""
    pos = 0
    seen = 0
    for m in re.finditer(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', data):
        if m.group(0)[:1] != b'"':
            if seen == k:
                return m.start()
            seen += 1
        pos = m.end()
    return pos


def parse_json(name: str, data: bytes) -> Any:
    """Parse ``data`` (a whole JSON document) within the limits above; InputError naming the
    file and line otherwise. Lone surrogates (``"\\ud800"``, valid JSON but not text) become U+FFFD."""
    overflow = prescan(name, data)
    try:
        doc = _loads(name, data, overflow)
        return _fix_surrogates(doc) if _has_surrogate(data) else doc
    except json.JSONDecodeError as exc:
        first = exc
    except UnicodeDecodeError:
        raise InputError(name, "not valid UTF-8 text (binary data?)") from None
    fixed = _BARE_NONFINITE.sub(_fix_token, data)
    if fixed != data:
        try:
            doc = _loads(name, fixed, overflow)  # (Infinity, NaN: no exponent)
            return _fix_surrogates(doc) if _has_surrogate(data) else doc
        except (json.JSONDecodeError, UnicodeDecodeError):
            pass
    raise InputError(name, f"invalid JSON: {first.msg} (column {first.colno})", line=first.lineno)


def _loads(name: str, data: bytes, overflow: bool = True) -> Any:
    """json.loads of ``data``; ``overflow`` False (:func:`prescan`: no number can overflow): without the
    float hook (the parser's own float(), as the hook calls it; ~1 ms of 5 on a 0.5 MB pyperf file)."""
    try:
        return json.loads(data, parse_float=_parse_float) if overflow else json.loads(data)
    except _Overflow as exc:
        pos = data.find(exc.token.encode())
        raise InputError(name, f"number {exc.token[:30]} is out of range", line=_line_of(data, pos)) from None
    except RecursionError:  # pragma: no cover - prescan refuses deep documents first
        raise InputError(name, f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
            raise
        # int() of a too-long digit string and the like
        raise InputError(name, f"invalid JSON number ({exc})") from None


# escaped (``"\\ud800"``) or raw: json.loads(bytes) decodes with "surrogatepass", so UTF-8-encoded
# surrogate bytes (ED A0-BF xx, invalid UTF-8) come through as lone surrogates too
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}|\xed[\xa0-\xbf]")


def _has_surrogate(data: bytes) -> bool:
    """``_SURROGATE.search(data)``, without the regex scan when neither of its fixed starts occurs."""
    return (b"\\u" in data or b"\xed" in data) and _SURROGATE.search(data) is not None


def _clean(s: str) -> str:
    return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace") if any(
        "\ud800" <= c <= "\udfff" for c in s) else s


def _fix_surrogates(doc: Any) -> Any:
    """Strings (keys too) with lone surrogates made printable: pairs joined, lone ones U+FFFD."""
    if isinstance(doc, str):
        return _clean(doc)
    if isinstance(doc, list):
        return [_fix_surrogates(x) for x in doc]
    if isinstance(doc, dict):
        return {_clean(k): _fix_surrogates(v) for k, v in doc.items()}
    return doc


def _fix_token(m: "re.Match[bytes]") -> bytes:
    word = m.group(2).lower()
    return m.group(1) + (b"NaN" if word == b"nan" else b"Infinity")


_VALIDATORS: dict[str, Any] = {}


def check_schema(name: str, doc: Any, fmt: str) -> None:
    """Validate ``doc`` against the input schema of ``fmt``; the first violation is one InputError
    ``FILE: where: what``. A format with a sufficient check of its own (:data:`_PASSES`: pyperf) skips
    the schema validator when that check passes; anything it does not accept goes to the validator,
    which passes it or names the violation as always."""
    passes = _PASSES.get(fmt)
    if passes is not None and passes(doc):
        return
    validator = _VALIDATORS.get(fmt)
    if validator is None:
        import fastjsonschema

        from .input_schemas import SCHEMAS

        validator = _VALIDATORS[fmt] = fastjsonschema.compile(SCHEMAS[fmt])
    from fastjsonschema import JsonSchemaValueException

    try:
        validator(doc)
    except JsonSchemaValueException as exc:
        where = _where(exc)
        if exc.rule == "required" and isinstance(exc.value, dict):
            missing = next((k for k in (exc.definition or {}).get("required", []) if k not in exc.value), None)
            if missing is not None:
                raise InputError(name, "missing field", field=f"{where}.{missing}" if where else missing) from None
        raise InputError(name, _what(exc), field=where) from None


# A sufficient check of the pyperf input schema (input_schemas.PYPERF) at C speed where it can be: ``True``
# only for a document the schema accepts (exact JSON types, every size bound), else ``False`` (not
# "invalid": the schema validator then decides, and names the violation). It replaces the validator for
# the files that pass (all real ones): 26 ms of validation and the validator's compile (~25 ms a process,
# fastjsonschema imported) for a 60-benchmark file; tests/test_jsoninput_fast.py checks on mutated
# documents that it never accepts what the validator refuses.
_MD_SCALAR_TYPES = frozenset((str, int, float, bool, type(None)))
_MD_VALUE_TYPES = _MD_SCALAR_TYPES | {list}
_NUMBER_TYPES = frozenset((int, float))
_WARMUP_TYPES = _NUMBER_TYPES | {list}
_MAX_VERSION = PYPERF["properties"]["version"]["maxLength"]


_is_str = str.__instancecheck__
_is_list = list.__instancecheck__
_LIST = frozenset((list,))
_DICT = frozenset((dict,))


def _lists_pass(lists: list, max_items: int, item_types: frozenset) -> bool:
    """Every one of ``lists`` is a list of at most ``max_items`` items of ``item_types``."""
    return (set(map(type, lists)) <= _LIST and max(map(len, lists), default=0) <= max_items
            and set(map(type, chain.from_iterable(lists))) <= item_types)


def _metadata_pass(mds: list) -> bool:
    """Every one of ``mds`` passes the schema's METADATA: an object of at most MAX_METADATA_KEYS keys,
    each a scalar (strings up to MAX_METADATA_STRING characters) or a list of such scalars."""
    if not (set(map(type, mds)) <= _DICT and max(map(len, mds), default=0) <= MAX_METADATA_KEYS):
        return False
    values = list(chain.from_iterable(map(dict.values, mds)))
    types = set(map(type, values))
    if not types <= _MD_VALUE_TYPES:
        return False
    if str in types and max(map(len, filter(_is_str, values)), default=0) > MAX_METADATA_STRING:
        return False
    if list in types:
        lists = list(filter(_is_list, values))
        if not _lists_pass(lists, MAX_METADATA_KEYS, _MD_SCALAR_TYPES) or max(
                map(len, filter(_is_str, chain.from_iterable(lists))), default=0) > MAX_METADATA_STRING:
            return False
    return True


def _pyperf_bench_passes(bench: Any) -> bool:
    if type(bench) is not dict or type(bench.get("runs")) is not list or len(bench["runs"]) > MAX_RUNS:
        return False
    runs = bench["runs"]
    if not set(map(type, runs)) <= _DICT:
        return False
    mds = [bench[k] for k in ("metadata", "common_metadata") if k in bench]
    values, warmups = [], []
    for run in runs:
        if "values" in run:
            values.append(run["values"])
        if "samples" in run:
            values.append(run["samples"])
        if "warmups" in run:
            warmups.append(run["warmups"])
        if "metadata" in run:
            mds.append(run["metadata"])
    if not (_lists_pass(values, MAX_VALUES, _NUMBER_TYPES) and _lists_pass(warmups, MAX_VALUES, _WARMUP_TYPES)):
        return False
    pairs = list(filter(_is_list, chain.from_iterable(warmups)))  # ([loops, value] warm-ups)
    if pairs and not (set(map(len, pairs)) == {2} and _lists_pass(pairs, 2, _NUMBER_TYPES)):
        return False
    return _metadata_pass(mds)


def _pyperf_passes(doc: Any) -> bool:
    """Whether the pyperf schema surely accepts ``doc`` (see above)."""
    try:
        if type(doc) is not dict or "version" not in doc:
            return False
        v = doc["version"]
        if not (type(v) is int or (type(v) is str and len(v) <= _MAX_VERSION)):
            return False
        if "metadata" in doc and not _metadata_pass([doc["metadata"]]):
            return False
        if "benchmarks" in doc:
            benches = doc["benchmarks"]
            if type(benches) is not list or len(benches) > MAX_BENCHMARKS:
                return False
            if not all(_pyperf_bench_passes(b) for b in benches):
                return False
        return "benchmark" not in doc or _pyperf_bench_passes(doc["benchmark"])
    except Exception:  # pragma: no cover - a check of exact types raises nothing; the validator decides
        return False


_PASSES = {"pyperf": _pyperf_passes}


def _where(exc: Any) -> str | None:
    where = str(exc.name or "data")
    if where == "data":
        return None  # the whole document
    return where[len("data."):] if where.startswith("data.") else where[len("data"):]


_RULE_TEXT = {"type": "wrong type", "required": "missing field", "maxItems": "too many items",
              "minItems": "too few items", "maxLength": "too long", "maxProperties": "too many keys",
              "minLength": "empty", "enum": "unexpected value", "minimum": "too small", "maximum": "too large",
              "exclusiveMinimum": "too small", "anyOf": "wrong type", "oneOf": "wrong type"}


def _what(exc: Any) -> str:
    """fastjsonschema's message without the ``data.x[3]`` prefix, plus what was found."""
    msg = str(exc.message)
    name = str(exc.name or "data")
    if msg.startswith(name + " "):
        msg = msg[len(name) + 1:]
    rule = getattr(exc, "rule", None)
    value = getattr(exc, "value", None)
    if rule in ("anyOf", "oneOf"):
        size = f" of {len(value)} items" if isinstance(value, (list, dict)) else \
            f" of {len(value)} characters" if isinstance(value, str) else ""
        msg = f"wrong type or size: got {_type_name(value)}{size}"
    elif rule == "type":
        msg += f", got {_type_name(value)}"
    elif rule in ("maxItems", "minItems", "maxProperties") and hasattr(value, "__len__"):
        msg += f" (has {len(value)})"
    elif rule in ("maxLength", "minLength") and isinstance(value, str):
        msg += f" (has {len(value)} characters)"
    return msg


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__
