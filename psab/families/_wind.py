"""The wind farm case shared by the forecasting families (area 8): inputs, the stated reference
point forecast, the naive baselines, and the synthesis of a case with its hidden realization.

A case is a wind farm of one or more groups of identical turbines (real oedb power curves,
:mod:`psab.surrogates.wind_curves`), 72 hours of measured wind speed, measured power and the
day-ahead NWP wind-speed forecast of those hours, and the NWP forecast for the next 24 hours
issued at 00:00. The realized power of those 24 hours is the key (``realized_power_mw``); the
agent never sees it. Level 2: several turbine types at different hub heights, turbines out of
service, the NWP and the mast at other heights (stated power-law shear exponent), icing and
curtailment periods marked in the history, a curtailment limit in the horizon, measured power in
kW.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError
from psab.evaluators import answer_schema as s
from psab.surrogates import wind as w
from psab.surrogates.wind_curves import TURBINES

HISTORY_HOURS = 72
HORIZON_HOURS = 24
#: Past days of the reference forecast's errors given to the interval family.
ERROR_DAYS = 21
FLAGS = ("ok", "icing", "curtailed")

_SERIES = {"type": "array", "items": s.NUMBER, "minItems": 1}
GROUP_SCHEMA = {
    "type": "object",
    "required": ["id", "turbine_type", "count", "available_count", "hub_height_m", "rated_power_kw", "power_curve"],
    "properties": {
        "id": s.ID, "turbine_type": {"type": "string"}, "count": {"type": "integer", "minimum": 1},
        "available_count": {"type": "integer", "minimum": 0}, "hub_height_m": s.POSITIVE, "rated_power_kw": s.POSITIVE,
        "power_curve": {"type": "object", "required": ["wind_speed_m_s", "power_kw"],
                        "properties": {"wind_speed_m_s": _SERIES, "power_kw": _SERIES}},
    },
}
INPUTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["step_minutes", "issue_time_utc", "farm", "measurement_height_m", "nwp_height_m", "shear_exponent",
                 "history", "nwp_wind_speed_m_s", "curtailment"],
    "properties": {
        "step_minutes": {"const": 60},
        "issue_time_utc": {"type": "string"},
        "farm": {"type": "object", "required": ["name", "groups"],
                 "properties": {"name": {"type": "string"}, "groups": {"type": "array", "items": GROUP_SCHEMA, "minItems": 1}}},
        "measurement_height_m": s.POSITIVE,
        "nwp_height_m": s.POSITIVE,
        "shear_exponent": {"type": "number", "minimum": 0, "maximum": 0.6},
        "history": {"type": "object", "required": ["wind_speed_m_s", "nwp_wind_speed_m_s", "flag"],
                    "properties": {"wind_speed_m_s": _SERIES, "nwp_wind_speed_m_s": _SERIES,
                                   "power_mw": _SERIES, "power_kw": _SERIES,
                                   "flag": {"type": "array", "items": {"enum": list(FLAGS)}}}},
        "nwp_wind_speed_m_s": _SERIES,
        "curtailment": {"type": "array", "items": {
            "type": "object", "required": ["from_step", "to_step", "limit_mw"],
            "properties": {"from_step": {"type": "integer", "minimum": 0}, "to_step": {"type": "integer", "minimum": 1},
                           "limit_mw": s.NONNEGATIVE}}},
    },
}


def bad(task_or_inputs: Any, pointer: str, why: str) -> InvalidTaskError:
    return InvalidTaskError(f"public_inputs{pointer} {why}")


def check_inputs(inputs: dict[str, Any]) -> None:
    """The physical sanity checks a wind forecasting case must pass (InvalidTaskError names the field)."""
    for g, grp in enumerate(inputs["farm"]["groups"]):
        curve = grp["power_curve"]
        xs, ps = curve["wind_speed_m_s"], curve["power_kw"]
        if len(xs) != len(ps) or len(xs) < 2:
            raise bad(inputs, f"/farm/groups/{g}/power_curve", "needs as many powers as wind speeds (at least two points)")
        if any(b <= a for a, b in zip(xs, xs[1:], strict=False)):
            raise bad(inputs, f"/farm/groups/{g}/power_curve/wind_speed_m_s", "must increase strictly")
        if min(ps) < 0 or max(ps) > grp["rated_power_kw"] * 1.0001:
            raise bad(inputs, f"/farm/groups/{g}/power_curve/power_kw", "must lie within [0, rated_power_kw]")
        if grp["available_count"] > grp["count"]:
            raise bad(inputs, f"/farm/groups/{g}/available_count", "exceeds count")
    if available_capacity_mw(inputs) <= 0:
        raise bad(inputs, "/farm/groups", "has no available turbine")
    hist = inputs["history"]
    n = len(hist["wind_speed_m_s"])
    power_key = "power_mw" if "power_mw" in hist else "power_kw" if "power_kw" in hist else None
    if power_key is None:
        raise bad(inputs, "/history", "needs the measured power (power_mw or power_kw)")
    for key in ("nwp_wind_speed_m_s", power_key, "flag"):
        if len(hist[key]) != n:
            raise bad(inputs, f"/history/{key}", f"must have one value per history hour ({n})")
    if all(f == "icing" for f in hist["flag"]):
        raise bad(inputs, "/history/flag", "leaves no hour to estimate the NWP bias from")
    if any(v < 0 for v in hist["wind_speed_m_s"] + hist["nwp_wind_speed_m_s"] + inputs["nwp_wind_speed_m_s"]):
        raise bad(inputs, "/nwp_wind_speed_m_s", "wind speeds must be non-negative")
    T = len(inputs["nwp_wind_speed_m_s"])
    for c, cut in enumerate(inputs["curtailment"]):
        if not 0 <= cut["from_step"] < cut["to_step"] <= T:
            raise bad(inputs, f"/curtailment/{c}", f"must satisfy 0 ≤ from_step < to_step ≤ {T}")


def available_capacity_mw(inputs: dict[str, Any]) -> float:
    """Σ available_count × rated_power_kw, in MW: the admissible upper bound of every hour."""
    return sum(g["available_count"] * g["rated_power_kw"] for g in inputs["farm"]["groups"]) / 1000.0


def history_power_mw(inputs: dict[str, Any]) -> np.ndarray:
    hist = inputs["history"]
    return np.asarray(hist["power_mw"], float) if "power_mw" in hist else np.asarray(hist["power_kw"], float) / 1000.0


def curtailment_limits_mw(inputs: dict[str, Any]) -> np.ndarray:
    """Per horizon step, the curtailment limit in force (inf where none)."""
    lim = np.full(len(inputs["nwp_wind_speed_m_s"]), np.inf)
    for cut in inputs["curtailment"]:
        lim[cut["from_step"]:cut["to_step"]] = np.minimum(lim[cut["from_step"]:cut["to_step"]], cut["limit_mw"])
    return lim


def nwp_bias_m_s(inputs: dict[str, Any], *, skip_icing: bool = True, use_shear: bool = True) -> float:
    """The stated bias correction: the mean of (measured − NWP) wind speed at the measurement
    height over the history hours not flagged "icing", the NWP moved to that height by the power
    law (naive variants leave out the icing rule or the shear)."""
    hist = inputs["history"]
    alpha = inputs["shear_exponent"] if use_shear else 0.0
    nwp = w.shear(np.asarray(hist["nwp_wind_speed_m_s"], float), inputs["nwp_height_m"], inputs["measurement_height_m"], alpha)
    meas = np.asarray(hist["wind_speed_m_s"], float)
    keep = np.array([f != "icing" for f in hist["flag"]]) if skip_icing else np.ones(meas.size, bool)
    return float(np.mean(meas[keep] - nwp[keep]))


def point_forecast_mw(inputs: dict[str, Any], *, bias: float | None = None, naive: bool = False) -> np.ndarray:
    """The reference point forecast (MW per horizon hour): NWP at the measurement height plus the
    bias, floored at 0 m/s, moved to each group's hub height, through each group's power curve
    times its available turbines, summed, and capped by a curtailment limit where one is in
    force. ``naive``: every turbine counted, no shear, icing hours kept, no curtailment."""
    alpha = 0.0 if naive else inputs["shear_exponent"]
    if bias is None:
        bias = nwp_bias_m_s(inputs, skip_icing=not naive, use_shear=not naive)
    v_m = np.maximum(0.0, w.shear(np.asarray(inputs["nwp_wind_speed_m_s"], float), inputs["nwp_height_m"],
                                  inputs["measurement_height_m"], alpha) + bias)
    groups = inputs["farm"]["groups"]
    p = w.farm_power_mw(
        [w.shear(v_m, inputs["measurement_height_m"], g["hub_height_m"], alpha) for g in groups],
        [g["count"] if naive else g["available_count"] for g in groups],
        [(np.asarray(g["power_curve"]["wind_speed_m_s"], float), np.asarray(g["power_curve"]["power_kw"], float)) for g in groups],
    )
    if not naive:
        p = np.minimum(p, curtailment_limits_mw(inputs))
    return np.clip(p, 0.0, available_capacity_mw(inputs) if not naive else np.inf)


def baselines_mw(inputs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The trivial forecasts a draw must not let score 1: the power curve of the raw NWP (no bias
    correction), persistence of the last measured hour, climatology (the history's mean power),
    and zero."""
    T = len(inputs["nwp_wind_speed_m_s"])
    cap = available_capacity_mw(inputs)
    hist = history_power_mw(inputs)
    return {
        "raw_nwp": point_forecast_mw(inputs, bias=0.0),
        "persistence": np.full(T, min(cap, float(hist[-1]))),
        "climatology": np.full(T, min(cap, float(np.mean(hist)))),
        "zero": np.zeros(T),
    }


def clean(values: np.ndarray) -> list[float]:
    return [round(float(v), 6) + 0.0 for v in values]


# ---------------------------------------------------------------------------- synthesis

TYPES_L1 = ("E-92/2350", "E-115/3000", "SWT113/2300", "V112/3300", "N117/2400", "V80/2000", "E-126/4200", "GE100/2500")


def _group(gid: str, turbine_type: str, count: int, available: int, hub_height_m: float | None = None) -> dict[str, Any]:
    t = TURBINES[turbine_type]
    return {
        "id": gid, "turbine_type": t.turbine_type, "count": count, "available_count": available,
        "hub_height_m": float(hub_height_m if hub_height_m is not None else t.hub_height_m),
        "rated_power_kw": float(max(t.power_kw)),
        "power_curve": {"wind_speed_m_s": list(t.wind_speed_m_s), "power_kw": list(t.power_kw)},
    }


def synthesize(rng: np.random.Generator, level: int = 1) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Draw one case: (public inputs, key with the realized horizon power, the interval family's
    extra inputs — the reference forecast's errors over the past ERROR_DAYS days).

    Wind speed at the measurement height: AR(1) Gaussian through a Weibull quantile with a
    diurnal cycle (:func:`psab.surrogates.wind.wind_speed_series`), φ ∈ [0.90, 0.96], k ∈ [1.8,
    2.4], c ∈ [7, 10] m/s, diurnal amplitude ∈ [0.05, 0.2] (Brown, Katz & Murphy 1984; Manwell
    §2.3-2.4). NWP: the truth minus a systematic bias of 1.0-2.2 m/s in either direction plus an
    AR(1) error (φ ∈ [0.6, 0.85]) whose standard deviation grows from 0.6-1.0 m/s by 0.8-1.5 m/s per
    day of lead time (Lange 2005). Realized power: the power curves at the true hub-height speeds
    with ±3 % turbine-to-turbine and turbulence scatter.
    """
    days = ERROR_DAYS + 4  # 3 days before the first error day give its bias window
    N = days * 24
    hour = np.arange(N) % 24
    phi, k, c = rng.uniform(0.90, 0.96), rng.uniform(1.8, 2.4), rng.uniform(7.0, 10.0)
    amp, peak = rng.uniform(0.05, 0.2), rng.uniform(0.0, 24.0)
    v_true = w.wind_speed_series(rng.standard_normal(N), hour, phi=phi, shape_k=k, scale_c_m_s=c,
                                 diurnal_amplitude=amp, peak_hour=peak)
    bias = rng.choice((-1.0, 1.0)) * rng.uniform(1.0, 2.2)
    sd = w.nwp_error_sd_m_s(hour + 1, rng.uniform(0.6, 1.0), rng.uniform(0.8, 1.5))
    err = w.ar1(rng.standard_normal(N), rng.uniform(0.6, 0.85)) * sd
    nwp_m = np.maximum(0.0, v_true - bias + err)
    meas = np.maximum(0.0, v_true + 0.15 * rng.standard_normal(N))
    scatter = 1.0 + 0.03 * rng.standard_normal(N)

    if level == 1:
        t = str(rng.choice(TYPES_L1))
        n = int(rng.integers(6, 21))
        groups = [_group("G1", t, n, n)]
        meas_h = nwp_h = groups[0]["hub_height_m"]
        alpha = 0.2
        name = f"onshore farm, {n} × {t}"
    else:
        types = rng.choice(TYPES_L1, size=int(rng.integers(2, 4)), replace=False)
        groups = []
        for i, t in enumerate(types):
            n = int(rng.integers(4, 13))
            groups.append(_group(f"G{i + 1}", str(t), n, n - int(rng.integers(0, min(3, n - 1) + 1)),
                                 hub_height_m=float(rng.choice((80.0, 94.0, 99.0, 108.0, 122.0, 135.0)))))
        if all(g["available_count"] == g["count"] for g in groups):
            groups[0]["available_count"] -= 1
        meas_h, nwp_h = float(rng.choice((60.0, 70.0, 80.0))), float(rng.choice((10.0, 100.0, 120.0)))
        alpha = round(float(rng.uniform(0.12, 0.3)), 3)
        name = "onshore farm, " + " + ".join(f"{g['count']} × {g['turbine_type']}" for g in groups)

    curves = [(np.asarray(g["power_curve"]["wind_speed_m_s"], float), np.asarray(g["power_curve"]["power_kw"], float)) for g in groups]

    def farm_power(v_meas_height: np.ndarray, counts: list[int]) -> np.ndarray:
        return w.farm_power_mw([w.shear(v_meas_height, meas_h, g["hub_height_m"], alpha) for g in groups], counts, curves)

    full = [g["count"] for g in groups]
    avail = [g["available_count"] for g in groups]
    power_full = np.clip(farm_power(v_true, full) * scatter, 0.0, sum(n * g["rated_power_kw"] for n, g in zip(full, groups, strict=True)) / 1000)
    cap_avail = sum(n * g["rated_power_kw"] for n, g in zip(avail, groups, strict=True)) / 1000
    power_avail = np.clip(farm_power(v_true, avail) * scatter, 0.0, cap_avail)
    nwp_out = np.round(w.shear(nwp_m, meas_h, nwp_h, alpha), 2)

    h0, h1 = N - 24 - HISTORY_HOURS, N - 24
    flags = ["ok"] * HISTORY_HOURS
    hist_meas = meas[h0:h1].copy()
    hist_power = power_full[h0:h1].copy()
    curtailment: list[dict[str, Any]] = []
    if level >= 2:
        # history as an engineer receives it: an iced-anemometer episode (speed read low, turbines
        # stopped) and a curtailment order (power capped); the horizon has out-of-service turbines
        # (available_count) and a curtailment order of the grid operator
        a = int(rng.integers(0, HISTORY_HOURS - 10))
        for i in range(a, a + int(rng.integers(4, 9))):
            flags[i] = "icing"
            hist_meas[i] *= rng.uniform(0.3, 0.6)
            hist_power[i] = 0.0
        free = [i for i in range(HISTORY_HOURS - 6) if all(f == "ok" for f in flags[i:i + 6])]
        b = int(rng.choice(free))
        limit = round(float(rng.uniform(0.3, 0.6)) * float(np.max(power_full)), 1)
        for i in range(b, b + int(rng.integers(3, 7))):
            flags[i] = "curtailed"
            hist_power[i] = min(hist_power[i], limit)
        start = int(rng.integers(6, 18))
        curtailment = [{"from_step": start, "to_step": start + int(rng.integers(3, 6)),
                        "limit_mw": round(float(rng.uniform(0.3, 0.6)) * cap_avail, 1)}]

    inputs: dict[str, Any] = {
        "step_minutes": 60,
        "issue_time_utc": "2026-03-14T00:00Z",
        "farm": {"name": name, "groups": groups},
        "measurement_height_m": meas_h,
        "nwp_height_m": nwp_h,
        "shear_exponent": alpha,
        "history": {
            "wind_speed_m_s": np.round(hist_meas, 2).tolist(),
            "nwp_wind_speed_m_s": nwp_out[h0:h1].tolist(),
            **({"power_mw": np.round(hist_power, 3).tolist()} if level == 1 else {"power_kw": np.round(hist_power * 1000, 0).tolist()}),
            "flag": flags,
        },
        "nwp_wind_speed_m_s": nwp_out[h1:].tolist(),
        "curtailment": curtailment,
    }
    realized = np.minimum(power_avail[h1:], curtailment_limits_mw(inputs))
    key = {"realized_power_mw": clean(np.round(realized, 3))}

    # the reference method's errors on the past days (full availability, no curtailment), per unit
    # of the farm's capacity, the NWP bias estimated over the 72 hours before each day
    errors = []
    cap_full = sum(n * g["rated_power_kw"] for n, g in zip(full, groups, strict=True)) / 1000
    past = {"history": {}, "farm": {"groups": [dict(g, available_count=g["count"]) for g in groups]},
            "measurement_height_m": meas_h, "nwp_height_m": nwp_h, "shear_exponent": alpha, "curtailment": []}
    for d in range(3, 3 + ERROR_DAYS):
        a0, a1 = (d - 3) * 24, d * 24
        past["history"] = {"wind_speed_m_s": meas[a0:a1], "nwp_wind_speed_m_s": nwp_out[a0:a1], "flag": ["ok"] * 72}
        past["nwp_wind_speed_m_s"] = nwp_out[a1:a1 + 24]
        f = point_forecast_mw(past)
        errors.append(np.round((power_full[a1:a1 + 24] - f) / cap_full, 4).tolist())
    return inputs, key, {"errors_pu": errors}


def realized(task: Task) -> np.ndarray:
    key = task.key or {}
    if "realized_power_mw" not in key:
        raise InvalidTaskError(f"task {task.id} has no key with realized_power_mw; load it with its key.json")
    y = np.asarray(key["realized_power_mw"], float)
    horizon = len(task.public_inputs["nwp_wind_speed_m_s"])
    if y.shape != (horizon,):
        # One NWP value too many or too few: the answer schema follows the inputs, so the
        # reference itself could not be scored against the key (issue 32, item 3).
        raise InvalidTaskError(f"task {task.id}: public_inputs/nwp_wind_speed_m_s has {horizon} values; the task's key "
                               f"holds {y.size} realized hours (one per horizon hour)")
    return y
