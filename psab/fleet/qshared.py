"""Definitions the fleet's question generators share (a leaf module, so the level-2 and causal
generators do not import :mod:`psab.fleet.questions`, which dispatches to them): the comparative
statistics, the answer schemas, the longest breach asked about, evidence items, windows."""

from __future__ import annotations

from typing import Any

import numpy as np

#: Comparative statistics by class: (metric, statistic, unit, en words, ru words).
COMPARATIVE: dict[str, tuple[str, str, str, str, str]] = {
    "transformer": ("loss_of_life_h", "increase", "h", "life consumed (increase of loss_of_life_h)",
                    "израсходованный ресурс (прирост loss_of_life_h)"),
    "breaker": ("operations_total", "increase", "count", "operations performed (increase of operations_total)",
                "число операций (прирост operations_total)"),
    "battery": ("equivalent_cycles", "increase", "count", "equivalent full cycles (increase of equivalent_cycles)",
                "эквивалентные полные циклы (прирост equivalent_cycles)"),
    "line": ("conductor_temp_c", "max", "degC", "maximum conductor temperature", "максимальная температура провода"),
    "cable": ("conductor_temp_c", "max", "degC", "maximum conductor temperature", "максимальная температура жилы"),
    "relay": ("cpu_temp_c", "max", "degC", "maximum processor temperature", "максимальная температура процессора"),
    "arrester": ("leakage_resistive_ma", "mean", "mA", "mean resistive leakage current", "средний активный ток утечки"),
}

#: Longest breach a temporal question asks about (two weeks): its required series then fits in a
#: single read_timeseries window or two (500 rows per call, PowerBench Table 7).
MAX_TEMPORAL_BREACH_H = 14 * 24

SCHEMAS: dict[str, dict[str, Any]] = {
    "causal": {"type": "object", "required": ["device_id", "document_id", "action", "time"],
               "properties": {"device_id": {"type": "string"}, "document_id": {"type": "string"},
                              "action": {"type": "string"},
                              "time": {"type": "string", "description": "ISO 8601 UTC hour"}}},
    "temporal": {"type": "object", "required": ["first_fire_time", "breach_duration_h", "fire_count"],
                 "properties": {"first_fire_time": {"type": "string", "description": "ISO 8601 UTC hour, e.g. 2024-07-03T14:00:00Z"},
                                "breach_duration_h": {"type": "integer"}, "fire_count": {"type": "integer"}}},
    "contextual": {"type": "object", "required": ["work_order_id", "cause", "closed_at"],
                   "properties": {"work_order_id": {"type": "string"}, "cause": {"type": "string"},
                                  "closed_at": {"type": "string"}}},
    "comparative": {"type": "object", "required": ["ranking", "top_device", "top_value"],
                    "properties": {"ranking": {"type": "array", "items": {"type": "string"}},
                                   "top_device": {"type": "string"}, "top_value": {"type": "number"}}},
}


def _series_ev(device_id: str, start: str, end: str, metrics: list[str]) -> dict[str, Any]:
    return {"kind": "series", "device_id": device_id, "start": start, "end": end, "metrics": metrics}


def _doc_ev(path: str) -> dict[str, Any]:
    return {"kind": "document", "path": path}


def _window(rng: np.random.Generator, hours: int, around: int, span_days: tuple[int, int]) -> tuple[int, int]:
    days = int(rng.integers(span_days[0], span_days[1] + 1))
    a = max(0, (around // 24 - int(rng.integers(0, max(1, days // 2)))) * 24)
    b = min(hours, a + days * 24)
    return a, b
