"""JSON Schemas (draft-07) of the runner result files bandkit reads: what each loader touches, with
its type, the keys it needs, and bounds on sizes. Unknown keys are allowed everywhere (the
runners add fields over time); only the fields a loader reads are typed.

Checked by :func:`bandkit.loaders.jsoninput.check_schema` before a loader walks the document, so
a type-confused field is an error naming its path, never an exception inside the loader.
"""
from __future__ import annotations

from typing import Any

#: Bounds on sizes (a result file holding more is refused as implausible).
MAX_BENCHMARKS = 100_000
MAX_RUNS = 1_000_000
MAX_VALUES = 10_000_000
MAX_KEYS = 100_000
MAX_NAME = 65_536
MAX_STRING = 10_000_000

NUM = {"type": "number"}
NUM_OR_NULL = {"type": ["number", "null"]}
NAME = {"type": "string", "maxLength": MAX_NAME}
STR = {"type": "string", "maxLength": MAX_STRING}
SCALAR = {"type": ["string", "number", "boolean", "null"], "maxLength": MAX_STRING}


def _numbers(max_items: int = MAX_VALUES, null: bool = False) -> dict[str, Any]:
    return {"type": "array", "maxItems": max_items, "items": NUM_OR_NULL if null else NUM}


def _object(values: dict[str, Any] | None = None, max_keys: int = MAX_KEYS) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "maxProperties": max_keys}
    if values is not None:
        out["additionalProperties"] = values
    return out


#: Metadata values: scalars or flat lists of scalars (pyperf writes lists at suite level); real
#: ones have tens of keys and strings of at most a few kB.
MAX_METADATA_KEYS = 4096
MAX_METADATA_STRING = 65536
MD_SCALAR = {"type": ["string", "number", "boolean", "null"], "maxLength": MAX_METADATA_STRING}
METADATA = _object({"anyOf": [MD_SCALAR, {"type": "array", "maxItems": MAX_METADATA_KEYS, "items": MD_SCALAR}]},
                   max_keys=MAX_METADATA_KEYS)

_PYPERF_RUN = {
    "type": "object",
    "properties": {
        "values": _numbers(),
        "samples": _numbers(),
        # format 1.0 / 4-6: [loops, value]; format 3: plain values
        "warmups": {"type": "array", "maxItems": MAX_VALUES,
                    "items": {"anyOf": [NUM, {"type": "array", "minItems": 2, "maxItems": 2, "items": NUM}]}},
        "metadata": METADATA,
    },
}
_PYPERF_BENCH = {
    "type": "object",
    "required": ["runs"],
    "properties": {"metadata": METADATA, "common_metadata": METADATA,
                   "runs": {"type": "array", "maxItems": MAX_RUNS, "items": _PYPERF_RUN}},
}
PYPERF = {
    "type": "object",
    "required": ["version"],
    "properties": {
        "version": {"type": ["string", "integer"], "maxLength": 20},
        "metadata": METADATA,
        "benchmarks": {"type": "array", "maxItems": MAX_BENCHMARKS, "items": _PYPERF_BENCH},
        "benchmark": _PYPERF_BENCH,
    },
}

HYPERFINE = {
    "type": "object",
    "required": ["results"],
    "properties": {"results": {"type": "array", "maxItems": MAX_BENCHMARKS, "items": {
        "type": "object",
        "required": ["command"],
        "properties": {
            "command": NAME,
            **{k: NUM_OR_NULL for k in ("mean", "stddev", "median", "min", "max", "user", "system")},
            "times": _numbers(),
            "exit_codes": {"type": "array", "maxItems": MAX_VALUES, "items": {"type": ["integer", "null"]}},
            "memory_usage_byte": _numbers(null=True),
            "parameters": _object(MD_SCALAR, max_keys=MAX_METADATA_KEYS),
        },
    }}},
}

GBENCH = {
    "type": "object",
    "required": ["benchmarks"],
    "properties": {
        "context": _object({"anyOf": [MD_SCALAR, {"type": "array", "maxItems": MAX_METADATA_KEYS},
                                      {"type": "object", "maxProperties": MAX_METADATA_KEYS}]},
                           max_keys=MAX_METADATA_KEYS),
        "benchmarks": {"type": "array", "maxItems": MAX_VALUES, "items": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": NAME, "run_name": NAME, "run_type": {"type": "string", "maxLength": 64},
                "aggregate_name": {"type": "string", "maxLength": 256},
                "time_unit": {"type": "string", "maxLength": 16},
                "real_time": NUM_OR_NULL, "cpu_time": NUM_OR_NULL,
                "iterations": NUM_OR_NULL, "repetitions": NUM_OR_NULL, "repetition_index": NUM_OR_NULL,
                "error_occurred": {"type": ["boolean", "integer"]}, "error_message": STR,
                "big_o": {"type": "string", "maxLength": 256},
                "real_coefficient": NUM_OR_NULL, "cpu_coefficient": NUM_OR_NULL, "rms": NUM_OR_NULL,
            },
        }},
    },
}

PYTEST_BENCHMARK = {
    "type": "object",
    "required": ["benchmarks"],
    "properties": {
        "machine_info": _object(max_keys=MAX_METADATA_KEYS), "commit_info": _object(max_keys=MAX_METADATA_KEYS),
        "datetime": STR,
        "benchmarks": {"type": "array", "maxItems": MAX_BENCHMARKS, "items": {
            "type": "object",
            "required": ["stats"],
            "anyOf": [{"required": ["name"]}, {"required": ["fullname"]}],
            "properties": {
                "name": NAME, "fullname": NAME, "group": {"type": ["string", "null"], "maxLength": MAX_NAME},
                "param": {"anyOf": [SCALAR, {"type": ["array", "object"]}]},
                "stats": {
                    "type": "object",
                    "properties": {
                        **{k: NUM_OR_NULL for k in ("min", "max", "mean", "stddev", "median", "iqr", "q1", "q3",
                                                    "ld15iqr", "hd15iqr", "ops", "total", "rounds",
                                                    "iterations")},
                        "data": _numbers(),
                    },
                },
            },
        }},
    },
}

_ASV_STATS = {"type": "object", "properties": {
    "ci_99": {"type": ["array", "null"], "maxItems": 2, "items": NUM_OR_NULL},
    **{k: NUM_OR_NULL for k in ("q_25", "q_75", "min", "max", "mean", "std", "repeat", "number", "n")},
}}
ASV = {
    "type": "object",
    "properties": {
        "version": {"type": "integer"},
        "result_columns": {"type": "array", "maxItems": 1000, "items": {"type": "string", "maxLength": 256}},
        "params": _object(),
        "results": _object({"anyOf": [
            {"type": ["number", "null"]},
            {"type": "array", "maxItems": MAX_VALUES},  # v2 row (typed per column by the loader)
            {"type": "object", "properties": {
                "result": {"anyOf": [NUM_OR_NULL, {"type": "array", "maxItems": MAX_VALUES, "items": NUM_OR_NULL}]},
                "params": {"type": "array", "maxItems": 64, "items": {"type": "array", "maxItems": MAX_VALUES}},
                "samples": {"type": ["array", "null"], "maxItems": MAX_VALUES,
                            "items": {"anyOf": [{"type": "null"}, _numbers(null=True)]}},
                "stats": {"type": ["array", "null"], "maxItems": MAX_VALUES,
                          "items": {"anyOf": [{"type": "null"}, _ASV_STATS]}},
            }},
        ]}),
    },
}

CRITERION = {
    "anyOf": [
        {"type": "object", "required": ["iters", "times"],
         "properties": {"sampling_mode": {"type": "string", "maxLength": 64}, "iters": _numbers(MAX_RUNS),
                        "times": _numbers(MAX_RUNS)}},
        # criterion.rs before 0.3.4: [[iters...], [times...]]
        {"type": "array", "minItems": 2, "maxItems": 2, "items": _numbers(MAX_RUNS)},
        # benchmark.json (names the benchmark, holds no measurements)
        {"type": "object", "required": ["full_id"], "properties": {"full_id": NAME, "title": NAME}},
    ]
}

CRITERION_BENCHMARK = {"type": "object", "properties": {"full_id": NAME, "title": NAME}}

SCHEMAS: dict[str, dict[str, Any]] = {
    "pyperf": PYPERF,
    "hyperfine": HYPERFINE,
    "gbench": GBENCH,
    "pytest-benchmark": PYTEST_BENCHMARK,
    "asv": ASV,
    "criterion": CRITERION,
    "criterion-benchmark": CRITERION_BENCHMARK,
}
