"""The world: instances in a substation/feeder hierarchy and their hourly telemetry, computed.

Dependency chain (each stage reads only the stages before it and its own seeded generator):

1. hierarchy — substations, their transformers, the feeders each transformer feeds, and the
   devices on each feeder (``fed_by`` names the upstream device);
2. weather — one regional hourly series (ambient, irradiance, wind) plus a per-substation
   offset: annual and daily harmonics with AR(1) weather noise;
3. feeder load — a daily shape by weekday, a heating/cooling sensitivity to the ambient, AR(1)
   noise; PV on a feeder subtracts its output, a battery adds its charging;
4. protection events — faults per feeder, Poisson with a rate raised by wind (storms);
5. per-device telemetry, from 1–4: transformer load = Σ feeder load / rating, top-oil and
   hot-spot by IEC 60076-7:2018 difference equations (:mod:`psab.surrogates.iec60076_7`),
   ageing rate §6.2 and cumulative loss of life §6.3; dissolved gases grow with the
   accumulated ageing and with hot-spot excursions; breaker operations from protection events
   (trip + reclose) and from the maintenance process (the counter is reset when a work order
   raised by its operation-count rule is completed); PV output from irradiance with a cell
   temperature correction; battery SOC from a peak-shaving dispatch, clipped to its limits.

Every value is rounded to 4 decimals *before* rules are executed on it, so the stored
telemetry is exactly what produced the documents and what truth is computed from.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from psab.fleet.catalog import COOLING, DeviceType, build_catalog
from psab.surrogates import iec60076_7 as iec


@dataclass(frozen=True)
class Size:
    substations: int
    feeders_per_transformer: int
    days: int
    start: str  # ISO date, UTC
    inspection_days: int


SIZES: dict[str, Size] = {
    # tiny: a handful of devices over ten days (unit tests of the chain)
    "tiny": Size(1, 1, 10, "2024-07-01", 5),
    # test: tens of devices, three summer weeks (the suite's world)
    "test": Size(1, 3, 21, "2024-07-01", 7),
    # full: ~760 devices, two years (PowerBench Table 2 scale)
    "full": Size(12, 3, 730, "2023-01-01", 91),
}

#: Step of the thermal difference equations (min): at most half the smallest time constant of
#: every cooling mode in :data:`COOLING` (ODAF: τo/k22 = 90, k22·τw = 7 → 3.5 min).
THERMAL_DT_MIN = 3.0


def seed_int(seed: str | int) -> int:
    """A stable 63-bit integer from any seed text (sha256, so passphrases work)."""
    return int.from_bytes(hashlib.sha256(str(seed).encode()).digest()[:8], "big") >> 1


def rng(seed: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng([seed, *keys])


def stable_hash(*parts: Any) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


@dataclass
class Device:
    device_id: str
    type_id: str
    device_class: str
    config: dict[str, Any]
    feeder: str | None = None  # feeder id whose load it sees
    transformer: str | None = None


@dataclass
class World:
    seed: int
    size_name: str
    size: Size
    types: tuple[DeviceType, ...]
    devices: list[Device]
    start: datetime
    hours: int
    telemetry: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    maintenance_resets: dict[str, list[int]] = field(default_factory=dict)

    def type_of(self, device: Device) -> DeviceType:
        return self._types[device.type_id]

    def __post_init__(self) -> None:
        self._types = {t.type_id: t for t in self.types}

    def ts(self, hour: int) -> str:
        return (self.start + timedelta(hours=int(hour))).strftime("%Y-%m-%dT%H:00:00Z")


# ------------------------------------------------------------------------- 1. hierarchy

_PREFIX = {"transformer": "TRA", "breaker": "BRK", "disconnector": "DIS", "instrument_transformer": "ITR",
           "arrester": "ARR", "cable": "CAB", "line": "LIN", "pv_inverter": "PVI", "battery": "BAT",
           "capacitor_bank": "CAP", "relay": "REL", "rtu": "RTU"}
_MANUFACTURERS = ("Alstrom", "Siemenz", "Hyosong", "Toshima", "Elektrozavod", "Schneidler")


def _types_by_class(types: tuple[DeviceType, ...]) -> dict[str, list[DeviceType]]:
    out: dict[str, list[DeviceType]] = {}
    for t in types:
        out.setdefault(t.device_class, []).append(t)
    return out


def build_hierarchy(seed: int, size: Size, types: tuple[DeviceType, ...]) -> list[Device]:
    r = rng(seed, 1)
    by = _types_by_class(types)
    devices: list[Device] = []
    counter: dict[str, int] = {}

    def add(cls: str, *, feeder: str | None, transformer: str | None, fed_by: str | None, sub: str,
            rating: float, prefer: dict[str, str] | None = None) -> Device:
        cands = by[cls]
        if prefer:
            pref = [t for t in cands if all(t.variant.get(k) == v for k, v in prefer.items())]
            cands = pref or cands
        t = cands[int(r.integers(len(cands)))]
        counter[cls] = counter.get(cls, 0) + 1
        did = f"{_PREFIX[cls]}-{counter[cls]:04d}"
        cfg = {"rating": round(float(rating), 3), "vintage": int(r.integers(1975, 2023)),
               "manufacturer": _MANUFACTURERS[int(r.integers(len(_MANUFACTURERS)))],
               "criticality": "high" if r.random() < 0.3 else "normal", "site": "urban" if r.random() < 0.5 else "rural",
               "substation_id": sub, "feeder_id": feeder, "fed_by": fed_by}
        d = Device(did, t.type_id, cls, cfg, feeder, transformer)
        devices.append(d)
        return d

    for s in range(size.substations):
        sub = f"SUB-{s + 1:02d}"
        rtu = add("rtu", feeder=None, transformer=None, fed_by=None, sub=sub, rating=24.0)
        add("relay", feeder=None, transformer=None, fed_by=rtu.device_id, sub=sub, rating=1.0, prefer={"function": "busbar"})
        for k in range(2):
            mva = float(r.choice([16.0, 25.0, 40.0]))
            hv_brk = add("breaker", feeder=None, transformer=None, fed_by=None, sub=sub, rating=mva * 1000 / (math.sqrt(3) * 110))
            tr = add("transformer", feeder=None, transformer=None, fed_by=hv_brk.device_id, sub=sub, rating=mva,
                     prefer={"voltage": "110/10"})
            tr.transformer = tr.device_id
            hv_brk.transformer = tr.device_id
            add("relay", feeder=None, transformer=tr.device_id, fed_by=tr.device_id, sub=sub, rating=1.0,
                prefer={"function": "differential"})
            add("instrument_transformer", feeder=None, transformer=tr.device_id, fed_by=tr.device_id, sub=sub,
                rating=1.2 * mva * 1000 / (math.sqrt(3) * 110))
            for f in range(size.feeders_per_transformer):
                fid = f"{sub}-F{k + 1}{f + 1}"
                # a feeder's share of its transformer: together they load it to 0.85–1.4 pu at peak
                peak_mw = mva * float(r.uniform(0.85, 1.4)) / size.feeders_per_transformer * 0.95
                rated_a = peak_mw * 1000 / (math.sqrt(3) * 10 * 0.95) * float(r.uniform(0.95, 1.4))
                brk = add("breaker", feeder=fid, transformer=tr.device_id, fed_by=tr.device_id, sub=sub, rating=rated_a,
                          prefer={"voltage": "10"})
                brk.config["feeder_peak_mw"] = round(peak_mw, 3)
                add("relay", feeder=fid, transformer=tr.device_id, fed_by=brk.device_id, sub=sub, rating=1.0,
                    prefer={"function": "feeder"})
                add("disconnector", feeder=fid, transformer=tr.device_id, fed_by=brk.device_id, sub=sub, rating=rated_a)
                up = brk.device_id
                for _ in range(int(r.integers(2, 5))):
                    cls = "cable" if r.random() < 0.5 else "line"
                    up = add(cls, feeder=fid, transformer=tr.device_id, fed_by=up, sub=sub, rating=rated_a).device_id
                add("arrester", feeder=fid, transformer=tr.device_id, fed_by=up, sub=sub, rating=10.0)
                if r.random() < 0.5:
                    add("instrument_transformer", feeder=fid, transformer=tr.device_id, fed_by=brk.device_id, sub=sub,
                        rating=1.2 * rated_a)
                if r.random() < 0.5:
                    add("pv_inverter", feeder=fid, transformer=tr.device_id, fed_by=up, sub=sub,
                        rating=float(r.choice([100.0, 500.0, 1000.0])))
                if r.random() < 0.35:
                    add("battery", feeder=fid, transformer=tr.device_id, fed_by=up, sub=sub,
                        rating=float(r.choice([250.0, 1000.0, 2000.0])))
                if r.random() < 0.4:
                    add("capacitor_bank", feeder=fid, transformer=tr.device_id, fed_by=brk.device_id, sub=sub,
                        rating=float(r.choice([1.2, 2.4])))
    return devices


# ------------------------------------------------------------------------- 2. weather


def _ar1(r: np.random.Generator, n: int, phi: float, sigma: float) -> np.ndarray:
    e = r.normal(0.0, sigma, n)
    return iec.linear_recursion(phi, 0.0, e) if phi < 1 else np.cumsum(e)


def weather(seed: int, start: datetime, hours: int, sub_index: int) -> dict[str, np.ndarray]:
    """Ambient (°C), global horizontal irradiance (W/m²) and wind (m/s) for one substation."""
    r = rng(seed, 2, sub_index)
    t = np.arange(hours)
    doy = (start.timetuple().tm_yday - 1 + t / 24.0) % 365.25
    hod = (start.hour + t) % 24
    offset = float(r.normal(0.0, 1.0))
    ambient = 10.0 + offset - 13.0 * np.cos(2 * np.pi * (doy - 15) / 365.25) \
        - 5.0 * np.cos(2 * np.pi * (hod - 3) / 24.0) + _ar1(r, hours, 0.97, 0.8)
    # solar elevation at latitude 50° (declination by Cooper's formula)
    lat = math.radians(50.0)
    decl = np.radians(23.45) * np.sin(2 * np.pi * (284 + doy) / 365.0)
    hour_angle = np.radians(15.0 * (hod + 0.5 - 12.0))
    sin_el = np.sin(lat) * np.sin(decl) + np.cos(lat) * np.cos(decl) * np.cos(hour_angle)
    clear = 1000.0 * np.clip(sin_el, 0.0, None) ** 1.2
    cloud = np.clip(0.75 + _ar1(r, hours, 0.95, 0.08), 0.1, 1.0)
    wind = np.clip(4.0 + _ar1(r, hours, 0.9, 1.2) + 8.0 * (r.random(hours) < 0.002).astype(float), 0.0, None)
    wind = iec.linear_recursion(0.6, 4.0, 0.4 * wind)
    return {"ambient_c": ambient, "irradiance_wm2": clear * cloud, "wind_speed_ms": wind}


# ------------------------------------------------------------------------- 3. load


def feeder_load_mw(seed: int, feeder_index: int, peak_mw: float, start: datetime, ambient: np.ndarray) -> np.ndarray:
    r = rng(seed, 3, feeder_index)
    n = ambient.size
    t = np.arange(n)
    hod = (start.hour + t) % 24
    dow = ((start.weekday() * 24 + t) // 24) % 7
    evening = float(r.uniform(18.0, 20.5))
    shape = 0.45 + 0.25 * np.exp(-((hod - 11.0) / 3.5) ** 2) + 0.5 * np.exp(-((hod - evening) / 2.2) ** 2)
    shape = shape * np.where(dow >= 5, 0.85, 1.0)
    temp = 1.0 + 0.012 * np.clip(16.0 - ambient, 0, None) + 0.02 * np.clip(ambient - 22.0, 0, None)
    noise = 1.0 + _ar1(r, n, 0.9, 0.02)
    return np.clip(peak_mw * shape * temp * noise, 0.05 * peak_mw, None)


# ------------------------------------------------------------------------- 4. protection events


def fault_hours(seed: int, feeder_index: int, wind: np.ndarray) -> np.ndarray:
    """Hours with a feeder fault: Poisson with base 1/1000 h⁻¹, ×20 above 12 m/s wind."""
    r = rng(seed, 4, feeder_index)
    lam = 1e-3 * np.where(wind > 12.0, 20.0, 1.0)
    return np.flatnonzero(r.random(wind.size) < lam)


# ------------------------------------------------------------------------- 5. devices


def _thermal_params(variant: dict[str, str]) -> iec.ThermalParameters:
    c = COOLING[variant["cooling"]]
    return iec.ThermalParameters(c["dor"], c["hgr"], c["r"], c["x"], c["y"], c["k11"], c["k21"], c["k22"],
                                 c["tau_o"], c["tau_w"])


def transformer_telemetry(seed: int, idx: int, dev: Device, dtype: DeviceType, load_pu: np.ndarray,
                          ambient: np.ndarray, rated_a: float) -> dict[str, np.ndarray]:
    r = rng(seed, 5, idx)
    p = _thermal_params(dtype.variant)
    sub = int(round(60.0 / THERMAL_DT_MIN))
    k = np.repeat(load_pu, sub)
    ta = np.repeat(ambient, sub)
    o, h1, h2 = iec.steady_state(p, float(load_pu[0]), float(ambient[0]))
    prof = iec.thermal_response(p, k, ta, THERMAL_DT_MIN, initial_top_oil_c=o, initial_dh1_k=h1, initial_dh2_k=h2,
                                paper=dtype.variant["paper"])
    top = prof.top_oil_c[sub - 1::sub]
    hot = prof.hot_spot_c[sub - 1::sub]
    v = prof.ageing_rate_pu.reshape(-1, sub).mean(axis=1)  # mean relative ageing over each hour
    age0 = float(r.uniform(0.0, 2e4))
    lol = age0 + np.cumsum(v)  # hours of life consumed (§6.3 eq. (4) with Dt = 1 h)
    # dissolved gases: a base by vintage, growth with consumed life, jumps above 140 °C
    excess = np.cumsum(np.clip(hot - 140.0, 0, None))
    h2 = float(r.uniform(20, 70)) + 0.002 * (lol - age0) + 1.5 * excess + _ar1(r, v.size, 0.99, 0.3)
    co = float(r.uniform(120, 320)) + 0.02 * (lol - age0)
    c2h2 = float(r.choice([0.0, 0.0, 0.3, 0.8])) + 0.05 * excess
    c2h4 = float(r.uniform(5, 45)) + 0.3 * excess + 0.001 * (lol - age0)
    moist = float(r.uniform(8, 26)) + 3.0 * np.sin(2 * np.pi * np.arange(v.size) / 8766.0) + 0.05 * (top - 50.0)
    out = {"load_pu": load_pu, "current_a": load_pu * rated_a, "ambient_c": ambient, "top_oil_c": top,
           "hot_spot_c": hot, "ageing_rate_pu": v, "loss_of_life_h": lol, "h2_ppm": np.clip(h2, 0, None),
           "co_ppm": co, "c2h2_ppm": c2h2 + 0 * v, "c2h4_ppm": c2h4, "oil_moisture_ppm": moist,
           "tap_position": np.clip(np.round((load_pu - 0.6) * 8.0), -8, 8)}
    names = {m.name for m in dtype.metrics}
    if "fans_on" in names:
        out["fans_on"] = (top >= 65.0).astype(float)
    if "pumps_on" in names:
        out["pumps_on"] = (top >= 55.0).astype(float)
    return out


def maintenance_delay_h(device_id: str, rule_key: str, fire_hour: int) -> tuple[int, int]:
    """Hours from a firing to its work order being opened, and from opening to completion (the
    maintenance process; a deterministic hash so that every stage agrees)."""
    h = stable_hash(device_id, rule_key, fire_hour)
    return 1 + h % 12, 24 + (h >> 8) % 144


def breaker_telemetry(seed: int, idx: int, dev: Device, dtype: DeviceType, current_a: np.ndarray, ambient: np.ndarray,
                      faults: np.ndarray, maint_rule: Any) -> tuple[dict[str, np.ndarray], list[int]]:
    r = rng(seed, 6, idx)
    n = current_a.size
    rated = float(dev.config["rating"])
    per_hour = np.zeros(n)
    per_hour[faults] += 2.0  # trip and reclose
    per_hour += (r.random(n) < 0.12).astype(float)  # switching operations
    ka2 = np.zeros(n)
    ka2[faults] = r.uniform(2.0, 12.0, faults.size) ** 2
    total = float(r.integers(200, 6000)) + np.cumsum(per_hour)
    since = float(r.integers(0, 2000)) + np.cumsum(per_hour)
    resets: list[int] = []
    # the maintenance process: the operation-count alarm raises a work order; completing it
    # resets the counter (so the counter depends on the documents' timeline)
    from psab.fleet.rules import events
    pos = 0
    while maint_rule is not None and pos < n:
        ev = events(np.round(since[pos:], 4), maint_rule.op, maint_rule.threshold, maint_rule.consecutive_points)
        if not ev:
            break
        fire = pos + ev[0].fire
        o, c = maintenance_delay_h(dev.device_id, maint_rule.key, fire)
        done = fire + o + c
        if done >= n:
            break
        since[done:] -= since[done]
        resets.append(done)
        pos = done + 1
    trips24 = np.convolve((np.isin(np.arange(n), faults)).astype(float), np.ones(24))[:n]
    out = {"current_a": current_a, "current_pu": current_a / rated, "ambient_c": ambient, "operations_total": total,
           "operations_since_maint": since, "trips_24h": trips24,
           "interrupted_ka2_sum": float(r.uniform(0, 250)) + np.cumsum(ka2),
           "mechanism_temp_c": ambient + 8.0 * (r.random() > 0.05)}
    if "sf6_density_pu" in {m.name for m in dtype.metrics}:
        leak = float(r.choice([0.005, 0.005, 0.01, 0.08])) / 8766.0
        out["sf6_density_pu"] = float(r.uniform(0.93, 1.0)) - leak * np.arange(n) + 0.003 * np.sin(2 * np.pi * np.arange(n) / 24)
    return out, resets


def simple_telemetry(seed: int, idx: int, dev: Device, dtype: DeviceType, ctx: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The other classes: every metric a function of the feeder current, voltage and weather."""
    r = rng(seed, 7, idx)
    cls = dev.device_class
    amb, irr, wind = ctx["ambient_c"], ctx["irradiance_wm2"], ctx["wind_speed_ms"]
    n = amb.size
    t = np.arange(n)
    cur = ctx.get("current_a", np.zeros(n))
    rated = float(dev.config["rating"])
    pu = cur / rated if rated > 0 else cur * 0
    if cls == "disconnector":
        rise = float(r.choice([35.0, 35.0, 45.0, 70.0]))  # some contacts degraded
        return {"current_a": cur, "current_pu": pu, "ambient_c": amb, "contact_temp_c": amb + rise * pu ** 2 + irr * 0.01,
                "operations_total": float(r.integers(10, 400)) + np.cumsum(r.random(n) < 0.002)}
    if cls == "instrument_transformer":
        return {"current_a": cur, "voltage_kv": ctx["voltage_kv"], "ambient_c": amb,
                "insulation_temp_c": amb + float(r.uniform(25, 50)) * np.clip(pu, 0, 2) ** 2,
                "ratio_error_pct": float(r.uniform(0.05, 0.45)) + 1e-5 * t * float(r.random() < 0.3)}
    if cls == "arrester":
        storms = (wind > 10.0) & (r.random(n) < 0.3)
        return {"voltage_kv": ctx["voltage_kv"], "ambient_c": amb,
                "leakage_resistive_ma": float(r.uniform(0.1, 0.3)) * np.exp(0.02 * (amb - 20.0)) * (1 + 2e-5 * t * float(r.random() < 0.3)),
                "surge_count": float(r.integers(0, 15)) + np.cumsum(storms)}
    if cls == "cable":
        limit_rise = 60.0 if "XLPE" in dtype.type_id else 40.0
        ground = 15.0 + 0.3 * (amb - 10.0)
        cond = iec.linear_recursion(math.exp(-1 / 3.0), float(ground[0]), (1 - math.exp(-1 / 3.0)) * (ground + limit_rise * pu ** 2))
        return {"current_a": cur, "ambient_c": amb, "conductor_temp_c": cond, "sheath_current_a": float(r.uniform(0.015, 0.045)) * cur,
                "partial_discharge_pc": float(r.uniform(20, 200)) * (1 + 3e-4 * t * float(r.random() < 0.2))}
    if cls == "line":
        cond = amb + 50.0 * pu ** 2 / (1 + 0.15 * wind) + 0.012 * irr
        return {"current_a": cur, "ambient_c": amb, "conductor_temp_c": cond, "wind_speed_ms": wind,
                "sag_m": 6.5 + float(r.uniform(0, 1.5)) + 0.025 * (cond - 15.0)}
    if cls == "pv_inverter":
        cell = amb + 0.03 * irr
        eff = float(r.uniform(0.94, 0.975)) - 2e-6 * t * float(r.random() < 0.3)
        p = rated * irr / 1000.0 * (1 - 0.004 * (cell - 25.0)) * eff
        return {"irradiance_wm2": irr, "ambient_c": amb, "ac_power_kw": np.clip(p, 0, rated),
                "inverter_temp_c": amb + 30.0 * np.clip(p / rated, 0, 1), "efficiency_pu": eff + 0 * amb}
    if cls == "battery":
        state = r.bit_generator.state
        out = battery_telemetry(r, rated, amb, t)
        fix = first_completion(dev, dtype, out, ("soc_pu",))
        if out.pop("misconfigured") and fix is not None:
            # the work order raised by the SOC alarm reconfigures the controller: replay the
            # same draws with the corrected window from the order's completion on
            r.bit_generator.state = state
            out = battery_telemetry(r, rated, amb, t, fix_at=fix)
            out.pop("misconfigured")
        return out
    if cls == "capacitor_bank":
        load = ctx.get("feeder_pu", np.full(n, 0.6))
        steps = np.clip(np.round(load * 4.0), 0, 6)
        v = 1.03 - 0.06 * load + 0.012 * steps + _ar1(r, n, 0.8, 0.004)
        unb = float(r.uniform(0.2, 1.0)) + (t > r.integers(0, 3 * n)) * float(r.uniform(0.5, 1.5))
        return {"voltage_pu": v, "ambient_c": amb, "reactive_mvar": rated * steps / 6.0 * v ** 2, "steps_in_service": steps,
                "unbalance_current_a": unb, "switching_ops": float(r.integers(100, 3000)) + np.cumsum(np.abs(np.diff(steps, prepend=steps[0])))}
    if cls == "relay":
        fh = ctx.get("fault_hours", np.array([], dtype=int))
        hits = np.isin(t, fh).astype(float)
        st = np.ones(n)
        if r.random() < 0.3:
            s = int(r.integers(0, n))
            st[s:s + int(r.integers(1, 6))] = 0.0
        return {"current_a": cur, "ambient_c": amb, "pickups_total": float(r.integers(0, 300)) + np.cumsum(hits),
                "trips_total": float(r.integers(0, 200)) + np.cumsum(hits), "self_test_ok": st,
                "cpu_temp_c": 22.0 + 0.4 * (amb - 20.0) + float(r.uniform(20, 38))}
    if cls == "rtu":
        busy = np.clip(_ar1(r, n, 0.95, 0.15), 0, None)
        return {"ambient_c": amb, "cpu_temp_c": 22.0 + 0.4 * (amb - 20.0) + float(r.uniform(25, 40)),
                "comm_latency_ms": 40.0 * np.exp(2.0 * busy), "packet_loss_pct": 0.2 + 6.0 * busy ** 2,
                "supply_voltage_v": 24.0 - float(r.choice([0.0, 0.0, 0.5, 2.2])) * (np.arange(n) > n // 2)}
    raise ValueError(f"no telemetry model for class {cls!r}")


def first_completion(dev: Device, dtype: DeviceType, series: dict[str, np.ndarray], metrics: tuple[str, ...]) -> int | None:
    """The hour the first work order raised by a type-wide alarm rule on ``metrics`` completes
    (the maintenance process of :mod:`psab.fleet.documents`), or None."""
    from psab.fleet.rules import events

    best = None
    for rule in dtype.rules:
        if rule.severity != "alarm" or rule.applicability or rule.target_metric not in metrics:
            continue
        ev = events(np.round(series[rule.target_metric], 4), rule.op, rule.threshold, rule.consecutive_points)
        if ev:
            o, c = maintenance_delay_h(dev.device_id, rule.key, ev[0].fire)
            best = ev[0].fire + o + c if best is None else min(best, ev[0].fire + o + c)
    return best


def battery_telemetry(r: np.random.Generator, rated_kw: float, amb: np.ndarray, t: np.ndarray,
                      fix_at: int | None = None) -> dict[str, Any]:
    """Peak shaving: charge 10–15 h, discharge 18–21 h, SOC integrated and clipped to the
    controller's window (most units 0.15–0.9; some misconfigured at 0.05–1.0, which the
    deep-discharge and high-SOC rules then catch)."""
    energy = rated_kw * 2.0  # 2-hour battery
    hod = t % 24
    plan = np.where((hod >= 10) & (hod < 15), -0.8, np.where((hod >= 18) & (hod < 22), 1.0, 0.0)) * rated_kw
    plan = plan * (1 + 0.15 * r.standard_normal(t.size))
    soc = np.empty(t.size)
    power = np.empty(t.size)
    s = float(r.uniform(0.3, 0.7))
    misconfigured = r.random() < 0.25
    lo, hi = (0.05, 1.0) if misconfigured else (0.15, 0.9)
    eff = 0.95
    for i, p in enumerate(plan.tolist()):  # the limits make this a clipped (non-linear) recursion
        if fix_at is not None and i == fix_at:
            lo, hi = 0.15, 0.9
        if p >= 0:
            p = min(p, max(0.0, (s - lo) * energy * eff))
            s -= p / eff / energy
        else:
            p = max(p, -max(0.0, (hi - s) * energy / eff))
            s -= p * eff / energy
        soc[i] = s
        power[i] = p
    cycles = float(r.uniform(50, 900)) + np.cumsum(np.abs(power)) / (2 * energy)
    return {"power_kw": power, "soc_pu": soc, "ambient_c": amb, "cell_temp_c": amb + 6.0 + 10.0 * np.abs(power) / rated_kw,
            "equivalent_cycles": cycles, "soh_pu": 1.0 - 5e-5 * cycles, "misconfigured": misconfigured}


# ------------------------------------------------------------------------- the chain


def build(seed: str | int, size_name: str = "test") -> World:
    """The whole world in memory, deterministic in (seed, size)."""
    if size_name not in SIZES:
        raise ValueError(f"size must be one of {sorted(SIZES)}, not {size_name!r}")
    size = SIZES[size_name]
    s = seed_int(seed)
    types = build_catalog()
    devices = build_hierarchy(s, size, types)
    start = datetime.fromisoformat(size.start).replace(tzinfo=UTC)
    hours = size.days * 24
    world = World(s, size_name, size, types, devices, start, hours)
    subs = sorted({d.config["substation_id"] for d in devices})
    wx = {sub: weather(s, start, hours, i) for i, sub in enumerate(subs)}
    feeders = sorted({d.feeder for d in devices if d.feeder})
    f_index = {f: i for i, f in enumerate(feeders)}
    peak = {d.feeder: d.config["feeder_peak_mw"] for d in devices if "feeder_peak_mw" in d.config}
    sub_of = {d.feeder: d.config["substation_id"] for d in devices if d.feeder}
    load = {f: feeder_load_mw(s, f_index[f], peak[f], start, wx[sub_of[f]]["ambient_c"]) for f in feeders}
    # embedded generation and storage change the feeder's net load
    tele: dict[str, dict[str, np.ndarray]] = {}
    for i, d in enumerate(devices):
        if d.device_class in ("pv_inverter", "battery"):
            tele[d.device_id] = simple_telemetry(s, i, d, world.type_of(d), wx[d.config["substation_id"]])
            key = "ac_power_kw" if d.device_class == "pv_inverter" else "power_kw"
            load[d.feeder] = np.clip(load[d.feeder] - tele[d.device_id][key] / 1000.0, 0.0, None)
    faults = {f: fault_hours(s, f_index[f], wx[sub_of[f]]["wind_speed_ms"]) for f in feeders}
    feeder_current = {f: load[f] * 1000 / (math.sqrt(3) * 10.0 * 0.95) for f in feeders}
    tr_load: dict[str, np.ndarray] = {}
    for d in devices:
        if d.feeder and d.transformer:
            tr_load.setdefault(d.transformer, np.zeros(hours))
    for f in feeders:
        tr = next(d.transformer for d in devices if d.feeder == f)
        tr_load[tr] = tr_load[tr] + load[f]
    for i, d in enumerate(devices):
        dt = world.type_of(d)
        w = wx[d.config["substation_id"]]
        if d.device_id in tele:
            continue
        if d.device_class == "transformer":
            mva = float(d.config["rating"])
            k = tr_load[d.device_id] / (mva * 0.95)
            tele[d.device_id] = transformer_telemetry(s, i, d, dt, np.round(k, 4), w["ambient_c"],
                                                      mva * 1000 / (math.sqrt(3) * 10.0))
            continue
        ctx = dict(w)
        if d.feeder:
            ctx["current_a"] = feeder_current[d.feeder]
            ctx["feeder_pu"] = load[d.feeder] / peak[d.feeder]
            ctx["fault_hours"] = faults[d.feeder]
            ctx["voltage_kv"] = 10.0 * (1.02 - 0.04 * ctx["feeder_pu"])
        else:
            tr = d.transformer
            trl = tr_load.get(tr, np.zeros(hours)) if tr else np.zeros(hours)
            ctx["current_a"] = trl * 1000 / (math.sqrt(3) * 110.0 * 0.95)
            ctx["voltage_kv"] = 110.0 + 0 * trl
            ctx["fault_hours"] = np.array([], dtype=int)
        if d.device_class == "breaker":
            rule = next((r for r in dt.rules if r.target_metric == "operations_since_maint" and r.severity == "alarm"
                         and not r.applicability), None)
            fh = faults[d.feeder] if d.feeder else np.array([], dtype=int)
            tele[d.device_id], world.maintenance_resets[d.device_id] = breaker_telemetry(
                s, i, d, dt, ctx["current_a"], w["ambient_c"], fh, rule)
            continue
        tele[d.device_id] = simple_telemetry(s, i, d, dt, ctx)
    for d in devices:
        cols = tele[d.device_id]
        metrics = [m.name for m in world.type_of(d).metrics]
        missing = [m for m in metrics if m not in cols]
        if missing:
            raise AssertionError(f"{d.device_id}: model does not compute {missing}")
        world.telemetry[d.device_id] = {m: np.round(np.asarray(cols[m], dtype=float) + np.zeros(hours), 4) for m in metrics}
    return world
