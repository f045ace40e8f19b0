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
   temperature correction; battery SOC from a peak-shaving dispatch, clipped to its limits;
   cooling failures of forced-cooled transformers (fans; oil pumps of OF/OD units, which then
   run on the natural-oil rating) until the supervision rule's work order repairs them; the
   condition metrics of issue 22 (paper DP and furans, OLTC and breaker contact wear, bushing
   tan delta, cable dielectric loss and sheath voltage, relay measurands) from these series.

Every value is rounded to 4 decimals *before* rules are executed on it, so the stored
telemetry is exactly what produced the documents and what truth is computed from.
"""

from __future__ import annotations

import hashlib
import math
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from psab.fleet.catalog import COOLING, DeviceType, build_catalog
from psab.fleet.maintenance import internal_resistance_mohm
from psab.fleet.process import maintenance_delay_h, stable_hash  # noqa: F401 - maintenance_delay_h re-exported
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


@dataclass
class Device:
    device_id: str
    type_id: str
    device_class: str
    config: dict[str, Any]
    feeder: str | None = None  # feeder id whose load it sees
    transformer: str | None = None


@dataclass
class Frame:
    """What a world and its shared :class:`Context` both are: the seed and size it was built
    from, the device catalog and devices, and the span of hours from ``start``; with the
    catalog indexed by type id (``type_by_id``)."""

    seed: int
    size_name: str
    size: Size
    types: tuple[DeviceType, ...]
    devices: list[Device]
    start: datetime
    hours: int

    def __post_init__(self) -> None:
        self.type_by_id = {t.type_id: t for t in self.types}


@dataclass
class World(Frame):
    telemetry: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    maintenance_resets: dict[str, list[int]] = field(default_factory=dict)
    #: maintenance actions applied to each device's series (psab.fleet.maintenance.Applied)
    maintenance_actions: dict[str, list[Any]] = field(default_factory=dict)
    #: the operator's load transfers per transformer
    operator_actions: dict[str, list[Any]] = field(default_factory=dict)
    #: (failure hour, repair hour) of transformers whose fans failed
    degraded_cooling: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: (failure hour, repair hour) of forced-oil (OF/OD) transformers whose oil pumps failed
    degraded_pumps: dict[str, tuple[int, int]] = field(default_factory=dict)

    def type_of(self, device: Device) -> DeviceType:
        return self.type_by_id[device.type_id]

    def ts(self, hour: int) -> str:
        return (self.start + timedelta(hours=int(hour))).strftime("%Y-%m-%dT%H:00:00Z")

    def device_ids(self) -> set[str]:
        if not hasattr(self, "_ids"):
            self._ids = {d.device_id for d in self.devices}
        return self._ids

    def feeds(self) -> dict[str, list[str]]:
        """Downstream devices of each device (``fed_by`` inverted), sorted."""
        if not hasattr(self, "_feeds"):
            out: dict[str, list[str]] = {}
            for x in self.devices:
                if x.config.get("fed_by"):
                    out.setdefault(x.config["fed_by"], []).append(x.device_id)
            self._feeds = {k: sorted(v) for k, v in out.items()}
        return self._feeds


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
                # the rating of a PV inverter or battery is its type's rating variant
                if r.random() < 0.5:
                    kw = float(r.choice([100.0, 500.0, 1000.0]))
                    add("pv_inverter", feeder=fid, transformer=tr.device_id, fed_by=up, sub=sub, rating=kw,
                        prefer={"rating": {100.0: "100kW", 500.0: "500kW", 1000.0: "1MW"}[kw]})
                if r.random() < 0.35:
                    kw = float(r.choice([250.0, 1000.0, 2000.0]))
                    add("battery", feeder=fid, transformer=tr.device_id, fed_by=up, sub=sub, rating=kw,
                        prefer={"rating": {250.0: "250kW", 1000.0: "1MW", 2000.0: "2MW"}[kw]})
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


#: Operator response to a transformer overload (IEC 60076-7:2018 Table 4: 120 °C hot-spot for
#: normal cyclic loading, 140 °C long-time emergency; no operator lets a unit run past them).
#: Control runs a thermal forecast (the same equations): when the hot-spot at the end of the
#: coming hour would reach OP_ACT_C, it transfers the load above OP_CAP_PU (of nameplate; of
#: the ONAN rating while the fans are failed) to the neighbouring substation by switching, from
#: that hour for as long as the unconstrained demand stays above the cap (at most
#: OP_MAX_HOLD_H hours, then re-assessed). ``act`` is the hour at whose end the decision is
#: taken, ``hot_spot_c`` the forecast that triggered it.
OP_ACT_C = 130.0
OP_CAP_PU = 1.0
OP_MAX_HOLD_H = 12
#: Share of forced-cooled units (ONAF, OFAF, ODAF) whose fans fail once (cooling then as ONAN,
#: IEC 60076-7 Table 5) until the work order raised by the fan-supervision rule is completed
#: (cooling repair).
FAN_FAILURE_SHARE = 0.3
FAN_CURRENT_A = 8.0
#: ONAN rating of a forced-cooled unit as a share of its nameplate (practice: ONAN/ONAF pairs
#: 16/25 to 25/31.5 MVA, 0.64-0.8): with its fans failed the unit is loaded at K / ONAN_SHARE
#: of its ONAN rating, and the operator's cap drops by the same share.
ONAN_SHARE = 0.75
#: Share of forced-oil units (OFAF, ODAF) whose oil pumps fail once: the oil then circulates by
#: thermosiphon only, so the unit runs on the natural-oil cooling mode (ONAF, IEC 60076-7:2018
#: Table 5) at its natural-oil rating until the work order raised by the pump-supervision rule
#: (pumps commanded on, no oil flow) is completed. With the fans failed too it is ONAN.
PUMP_FAILURE_SHARE = 0.3
PUMP_CURRENT_A = 5.0
#: Natural-oil (ONAF) rating of a forced-oil unit as a share of its nameplate (practice: triple
#: ratings ONAN/ONAF/OFAF, the ONAF step between ONAN_SHARE and 1).
NATURAL_OIL_SHARE = 0.85


@dataclass(frozen=True)
class OperatorAction:
    """One load transfer: the hour whose hot-spot triggered it, the hours it covered
    (``first``..``last`` inclusive), the hot-spot that triggered it and the energy moved."""

    act: int
    first: int
    last: int
    hot_spot_c: float
    transferred_mwh: float


def _thermal_params(variant: dict[str, str], cooling: str | None = None) -> iec.ThermalParameters:
    c = COOLING[cooling or variant["cooling"]]
    return iec.ThermalParameters(c["dor"], c["hgr"], c["r"], c["x"], c["y"], c["k11"], c["k21"], c["k22"],
                                 c["tau_o"], c["tau_w"])


def thermal_with_operator(dtype: DeviceType, demand_pu: np.ndarray, ambient: np.ndarray, rated_mva: float,
                          degraded: tuple[int, int] | None = None, pumps_degraded: tuple[int, int] | None = None
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[OperatorAction]]:
    """IEC 60076-7:2018 difference equations (eqs. (5)-(7), 3-min steps; hourly samples are the
    values at each hour's end) under the operator response above, hour by hour in chunks.

    ``degraded = (F, C)``: the cooling runs as ONAN from hour F to hour C (excluded) — a fan
    failure and its repair. ``pumps_degraded = (F, C)``: a forced-oil unit's oil pumps stopped
    from F to C, cooling as ONAF at NATURAL_OIL_SHARE of nameplate (ONAN while the fans are
    failed too). Returns the load actually carried (pu), top-oil, hot-spot, the
    hourly mean relative ageing rate (§6.2) and the operator's actions. The thermal state is
    carried across chunks, so the result is the single pass over the carried load."""
    sub = int(round(60.0 / THERMAL_DT_MIN))
    n = demand_pu.size
    k = demand_pu.copy()
    top_h, hot_h, v_h = np.empty(n), np.empty(n), np.empty(n)
    paper = dtype.variant["paper"]
    normal = _thermal_params(dtype.variant)
    p = normal
    o, h1, h2 = iec.steady_state(p, float(k[0]), float(ambient[0]))
    actions: list[OperatorAction] = []
    bounds = sorted({x for x in (*(degraded or ()), *(pumps_degraded or ())) if 0 < x < n})
    start = 0
    while start < n:
        end = min(n, start + 168, *[x for x in bounds if x > start] or [n])
        failed = bool(degraded and degraded[0] <= start < degraded[1])
        no_pumps = bool(pumps_degraded and pumps_degraded[0] <= start < pumps_degraded[1])
        share = ONAN_SHARE if failed else NATURAL_OIL_SHARE if no_pumps else 1.0
        p = _thermal_params(dtype.variant, "ONAN") if failed else _thermal_params(dtype.variant, "ONAF") \
            if no_pumps else normal
        cap = OP_CAP_PU * share
        f1, f2, f3 = (THERMAL_DT_MIN / t for t in p.time_constants_min())
        kk = np.repeat(k[start:end], sub) / share
        ta = np.repeat(ambient[start:end], sub)
        top = iec.linear_recursion(1.0 - f1, o, f1 * (iec.ultimate_top_oil_rise_k(p, kk) + ta))
        grad = iec.steady_hot_spot_gradient_k(p, kk)
        d1 = iec.linear_recursion(1.0 - f2, h1, f2 * p.k21 * grad)
        d2 = iec.linear_recursion(1.0 - f3, h2, f3 * (p.k21 - 1.0) * grad)
        hot = top + d1 - d2
        hh = np.round(hot[sub - 1::sub], 4)
        # the hours the forecast reaches the action level with load above the cap
        trig = np.flatnonzero((hh >= OP_ACT_C) & (k[start:end] > cap))
        stop = int(trig[0]) if trig.size else end - start
        keep = stop * sub
        if stop:
            top_h[start:start + stop] = top[sub - 1:keep:sub]
            hot_h[start:start + stop] = hot[sub - 1:keep:sub]
            v_h[start:start + stop] = iec.ageing_rate(hot[:keep], paper).reshape(stop, sub).mean(axis=1)
            o, h1, h2 = float(top[keep - 1]), float(d1[keep - 1]), float(d2[keep - 1])
        if trig.size:
            first = start + stop
            last = first
            while last + 1 < n and last + 1 - first < OP_MAX_HOLD_H and demand_pu[last + 1] > cap:
                last += 1
            moved = np.clip(k[first:last + 1] - cap, 0.0, None)
            k[first:last + 1] = np.minimum(k[first:last + 1], cap)
            # decided at the end of the hour before (at the start of the world for hour 0)
            actions.append(OperatorAction(max(first - 1, 0), first, last, float(hh[stop]),
                                          round(float(moved.sum()) * rated_mva * 0.95, 3)))
        start += stop
    return k, top_h, hot_h, v_h, actions


def fan_failure_hour(seed: int, idx: int, dtype: DeviceType, hours: int) -> int | None:
    """The hour a forced-cooled unit's fans fail, or None (a stable draw per device)."""
    if dtype.variant.get("cooling") not in ("ONAF", "OFAF", "ODAF"):
        return None
    r = rng(seed, 8, idx)
    if r.random() >= FAN_FAILURE_SHARE:
        return None
    return int(r.integers(hours // 10, max(hours // 10 + 1, hours * 8 // 10)))


def transformer_telemetry(seed: int, idx: int, dev: Device, dtype: DeviceType, load_pu: np.ndarray,
                          ambient: np.ndarray, rated_a: float) -> dict[str, np.ndarray]:
    """One transformer from its demand (pu) and ambient: the operator-constrained thermal
    chain, fan failure and repair (forced cooling), dissolved gases and oil quality. ``_actions`` (the
    operator's load transfers) and ``_repair`` ride along for the documents."""
    r = rng(seed, 5, idx)
    n = load_pu.size
    mva = float(dev.config["rating"])
    fail = fan_failure_hour(seed, idx, dtype, n)
    pfail = pump_failure_hour(seed, idx, dtype, n)
    # failure → (failure hour, repair hour); a pass runs with the repairs known so far and the
    # other failures never repaired. The supervision alarm (commanded on, no current / no flow)
    # raises a work order whose completion is the repair hour. The thermal chain is causal, so
    # the earliest repair found in a pass is exact (nothing before it differs from the true
    # course); fix it and pass again for the rest. With the fans alone this is the two passes
    # the world always made.
    iv: dict[str, tuple[int, int]] = {}
    if fail is not None:
        iv["fans"] = (fail, n)
    if pfail is not None:
        iv["pumps"] = (pfail, n)
    open_ = set(iv)
    while open_:
        k, top, hot, v, acts = thermal_with_operator(dtype, load_pu, ambient, mva, iv.get("fans"), iv.get("pumps"))
        found = {c: rep for c in sorted(open_) if (rep := (_fan_repair_hour if c == "fans" else _pump_repair_hour)(
            dev, dtype, top, iv[c][0])) is not None}
        if not found:
            break
        c = min(found, key=lambda x: (found[x], x))
        iv[c] = (iv[c][0], found[c])
        open_.discard(c)
    degraded, pumps_degraded = iv.get("fans"), iv.get("pumps")
    k, top, hot, v, acts = thermal_with_operator(dtype, load_pu, ambient, mva, degraded, pumps_degraded)
    age0 = float(r.uniform(0.0, 2e4))
    lol = age0 + np.cumsum(v)  # hours of life consumed (§6.3 eq. (4) with Dt = 1 h)
    # dissolved gases: a base by vintage, growth with consumed life, jumps above 140 °C
    excess = np.cumsum(np.clip(hot - 140.0, 0, None)) + 0.02 * np.cumsum(np.clip(hot - 120.0, 0, None))
    t = np.arange(n)
    h2 = float(r.uniform(20, 70)) + 0.002 * (lol - age0) + 1.5 * excess + _ar1(r, n, 0.99, 0.3)
    co = float(r.uniform(120, 320)) + 0.02 * (lol - age0)
    c2h2 = float(r.choice([0.0, 0.0, 0.3, 0.8])) + 0.05 * excess
    c2h4 = float(r.uniform(5, 45)) + 0.3 * excess + 0.001 * (lol - age0)
    moist = float(r.uniform(8, 26)) + 3.0 * np.sin(2 * np.pi * t / 8766.0) + 0.05 * (top - 50.0)
    ch4 = float(r.uniform(10, 90)) + 0.004 * (lol - age0) + 0.5 * excess
    c2h6 = float(r.uniform(5, 55)) + 0.002 * (lol - age0) + 0.2 * excess
    co2 = float(r.uniform(900, 2300)) + 0.1 * (lol - age0) + t * float(r.uniform(0.0, 0.05))
    # oil quality (IEC 60422): breakdown voltage falls with moisture, acidity and DDF rise slowly
    acid0, acid_rate = float(r.uniform(0.02, 0.12)), float(r.choice([1e-6, 2e-6, 6e-6]))
    acidity = acid0 + acid_rate * t
    ddf = float(r.uniform(0.01, 0.12)) + 0.3 * acid_rate * t + 0.0005 * np.clip(top - 60.0, 0, None)
    breakdown = 75.0 - 1.1 * np.clip(moist - 10.0, 0, None) - 40.0 * (acidity - acid0)
    out = {"load_pu": k, "current_a": k * rated_a, "ambient_c": ambient, "top_oil_c": top,
           "hot_spot_c": hot, "ageing_rate_pu": v, "loss_of_life_h": lol, "h2_ppm": np.clip(h2, 0, None),
           "co_ppm": co, "c2h2_ppm": c2h2 + 0 * v, "c2h4_ppm": c2h4, "oil_moisture_ppm": moist,
           "tap_position": np.clip(np.round((k - 0.6) * 8.0), -8, 8), "ch4_ppm": ch4, "c2h6_ppm": c2h6, "co2_ppm": co2,
           "oil_breakdown_kv": breakdown, "oil_acidity_mgkoh_g": acidity, "oil_dissipation_factor": ddf,
           "load_transferred_pu": load_pu - k, "_actions": acts, "_degraded": degraded, "_pumps_degraded": pumps_degraded,
           # losses: load loss 0.6 % of rating at rated current ∝ K², no-load loss 0.1 % (practice values)
           "load_loss_kw": 6.0 * mva * k ** 2, "no_load_loss_kw": 1.0 * mva + 0 * k,
           # conservator level follows the oil's thermal expansion (≈ 0.08 %/K of the volume)
           "oil_level_pct": np.clip(50.0 + 0.4 * (top - 40.0), 0.0, 100.0)}
    # secondary voltage: 10.5 kV no-load, 5 % regulation at rated load, 1.25 % per tap step
    out["lv_voltage_kv"] = 10.5 * (1.0 - 0.05 * k) * (1.0 + 0.0125 * out["tap_position"])
    names = {m.name for m in dtype.metrics}
    if "fans_on" in names:
        fans = (np.round(top, 4) >= 65.0).astype(float)
        out["fans_on"] = fans
        out["fan_current_a"] = fans * FAN_CURRENT_A * _healthy(n, degraded)
    if "pumps_on" in names:
        out["pumps_on"] = (np.round(top, 4) >= 55.0).astype(float)
        out["pump_flow_pu"] = out["pumps_on"] * _healthy(n, pumps_degraded)
        out["pump_current_a"] = out["pump_flow_pu"] * PUMP_CURRENT_A
    if "oltc_operations_total" in names:
        taps = out["tap_position"]
        out["oltc_operations_total"] = float(r.integers(5000, 120000)) + np.cumsum(np.abs(np.diff(taps, prepend=taps[0])))
    if "bushing_capacitance_change_pct" in names:
        out["bushing_capacitance_change_pct"] = float(r.uniform(0.0, 4.0)) + t * float(r.choice([0.0, 0.0, 2e-4, 8e-4]))
    _transformer_condition(rng(seed, 10, idx), out, names)
    return out


#: Insulation life to DP 200 at the reference hot-spot (IEC 60076-7:2018 Table 2: 150,000 h),
#: from a new-paper DP of 1000.
DP_NEW, DP_END, DP_LIFE_H = 1000.0, 200.0, 150_000.0
#: OLTC arcing-contact life in operations at rated current (practice, manufacturers' figures
#: 100,000-300,000; IEC 60214-1:2014 5.2.4 electrical endurance).
OLTC_CONTACT_LIFE_OPS = 130_000.0


def _transformer_condition(r: np.random.Generator, out: dict[str, Any], names: set[str]) -> None:
    """Issue 22's condition metrics of a transformer, from the thermal chain already in ``out``
    (their own generator, so no older draw moves):

    - paper DP from the consumed life: Emsley's kinetics 1/DP(t) - 1/DP0 = k t (constant k at
      the reference temperature, the loss-of-life hours being hours at it), k fixed by DP 200
      at the end of the IEC 60076-7 Table 2 life;
    - 2-FAL in oil from that DP by Chendong's relation log10(2-FAL ppm) = 1.51 - 0.0035 DP
      (IEC 61198 furan analysis; Kraft paper only);
    - OLTC contact wear: history plus each tap change weighted by the switched load (pu);
    - bushing tan delta, corrected to 20 degC as on-line monitors report it (IEEE
      C57.19.100 practice, so the daily temperature swing does not cross the limit every day):
      grows with the C1 capacitance change (moisture, partial breakdown of condenser layers)."""
    lol = np.asarray(out["loss_of_life_h"], dtype=float)
    out["paper_dp"] = 1.0 / (1.0 / DP_NEW + (1.0 / DP_END - 1.0 / DP_NEW) * lol / DP_LIFE_H)
    if "furan_2fal_ppm" in names:
        out["furan_2fal_ppm"] = 10.0 ** (1.51 - 0.0035 * out["paper_dp"])
    ops0, duty0 = float(r.integers(0, 130_000)), float(r.uniform(0.6, 1.0))
    if "oltc_contact_wear_pct" in names:
        taps = out["tap_position"]
        switched = np.abs(np.diff(taps, prepend=taps[0])) * np.maximum(out["load_pu"], 0.1)
        out["oltc_contact_wear_pct"] = 100.0 * (ops0 * duty0 + np.cumsum(switched)) / OLTC_CONTACT_LIFE_OPS
    tan0 = float(r.uniform(0.25, 0.5))
    if "bushing_tan_delta_pct" in names:
        out["bushing_tan_delta_pct"] = tan0 + 0.06 * np.clip(out["bushing_capacitance_change_pct"], 0, None)


def pump_failure_hour(seed: int, idx: int, dtype: DeviceType, hours: int) -> int | None:
    """The hour a forced-oil unit's oil pumps fail, or None (a stable draw per device, its own
    stream so the fan draw is unchanged)."""
    if dtype.variant.get("cooling") not in ("OFAF", "ODAF"):
        return None
    r = rng(seed, 9, idx)
    if r.random() >= PUMP_FAILURE_SHARE:
        return None
    return int(r.integers(hours // 10, max(hours // 10 + 1, hours * 8 // 10)))


def _pump_repair_hour(dev: Device, dtype: DeviceType, top: np.ndarray, fail: int) -> int | None:
    """Completion of the work order raised by the first firing of the pump-supervision rule
    (pumps commanded on at top-oil >= 55 degC, no oil flow) after the failure."""
    from psab.fleet.process import device_alarms, work_orders

    n = top.size
    pumps = (np.round(top, 4) >= 55.0).astype(float)
    series = {"pumps_on": pumps, "pump_flow_pu": np.round(pumps * _healthy(n, (fail, n)), 4)}
    rules = [r for r in dtype.rules if r.target_metric == "pump_flow_ratio_pu" and not r.applicability]
    wos = work_orders(dev.device_id, device_alarms(dev.device_id, rules, series), n)
    return wos[0].closed if wos else None


def _healthy(n: int, degraded: tuple[int, int] | None) -> np.ndarray:
    h = np.ones(n)
    if degraded:
        h[degraded[0]:degraded[1]] = 0.0
    return h


def _fan_repair_hour(dev: Device, dtype: DeviceType, top: np.ndarray, fail: int) -> int | None:
    """Completion of the work order raised by the first firing of the fan-supervision rule
    (fans commanded on, no fan current) after the failure (the maintenance process of
    :func:`psab.fleet.documents.work_orders`)."""
    from psab.fleet.process import device_alarms, work_orders

    n = top.size
    fans = (np.round(top, 4) >= 65.0).astype(float)
    series = {"fans_on": fans, "fan_current_a": np.round(fans * FAN_CURRENT_A * _healthy(n, (fail, n)), 4)}
    rules = [r for r in dtype.rules if r.target_metric == "fan_current_ratio_a" and not r.applicability]
    wos = work_orders(dev.device_id, device_alarms(dev.device_id, rules, series), n)
    return wos[0].closed if wos else None


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
    names = {m.name for m in dtype.metrics}
    # contact wear: the cumulative I2 against an electrical-endurance budget (practice: 2000 kA2)
    out["contact_wear_pct"] = out["interrupted_ka2_sum"] / 2000.0 * 100.0
    out["opening_time_ms"] = 36.0 + float(r.uniform(-1.0, 1.0)) + 3.0 * out["contact_wear_pct"] / 100.0 \
        + 0.05 * np.clip(-ambient, 0, None)
    out["heater_on"] = (ambient < 5.0).astype(float)
    out["closing_time_ms"] = 55.0 + float(r.uniform(-2.0, 2.0)) + 2.0 * out["contact_wear_pct"] / 100.0 \
        + 0.04 * np.clip(-ambient, 0, None)
    out["trip_coil_current_a"] = float(r.uniform(2.0, 3.0)) * (1.0 + 0.002 * (20.0 - ambient))
    if "sf6_density_pu" in names:
        leak = float(r.choice([0.005, 0.005, 0.01, 0.08])) / 8766.0
        out["sf6_density_pu"] = float(r.uniform(0.93, 1.0)) - leak * np.arange(n) + 0.003 * np.sin(2 * np.pi * np.arange(n) / 24)
        out["_sf6_leak"] = leak
        # pressure at the gas temperature from the density (ideal gas, 6.0 bar rated fill at 20 °C)
        out["sf6_pressure_bar"] = 6.0 * out["sf6_density_pu"] * (ambient + 273.15) / 293.15
        out["sf6_moisture_ppmv"] = float(r.uniform(40, 150)) + np.arange(n) * float(r.choice([0.0, 0.002, 0.01]))
    if "oil_breakdown_kv" in names:
        out["oil_breakdown_kv"] = float(r.uniform(45, 70)) - 0.01 * np.cumsum(ka2)
    if "contact_erosion_mm" in names:
        # vacuum interrupter contact erosion: the wear budget is the interrupter's erosion
        # allowance (practice: 3 mm, read at the contact-travel indicator)
        out["contact_erosion_mm"] = VACUUM_EROSION_MM * out["contact_wear_pct"] / 100.0
    return out, resets


VACUUM_EROSION_MM = 3.0


def simple_telemetry(seed: int, idx: int, dev: Device, dtype: DeviceType, ctx: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The other classes: every metric a function of the feeder current, voltage and weather
    (:func:`_simple_model`), plus issue 22's metrics (:func:`_condition_metrics`)."""
    out = _simple_model(seed, idx, dev, dtype, ctx)
    _condition_metrics(rng(seed, 10, idx), dev, dtype, out, ctx)
    return out


#: Cable capacitance (F/m) and tan delta by insulation and voltage: catalogue capacitances
#: (practice) and IEC 60287-1-1:2006 Table 3 loss factors (XLPE unfilled <= 18/30 kV 0.004,
#: above 0.001; impregnated paper, solid type 0.01).
CABLE_DIELECTRIC = {("XLPE", "10"): (0.35e-9, 0.004), ("XLPE", "35"): (0.20e-9, 0.001),
                    ("paper", "10"): (0.50e-9, 0.01), ("paper", "35"): (0.30e-9, 0.01)}


#: Standing sheath-voltage limit of single-point bonding (IEEE 575-2014 practice, 65 V).
SHEATH_LIMIT_V = 65.0


def _condition_metrics(r: np.random.Generator, dev: Device, dtype: DeviceType, out: dict[str, Any],
                       ctx: dict[str, Any]) -> None:
    """Issue 22's metrics of the classes of :func:`_simple_model`, from the series already
    computed (their own generator ``r``, so no older draw moves)."""
    names = {m.name for m in dtype.metrics}
    cls = dev.device_class
    n = np.asarray(out["ambient_c"]).size
    if cls == "cable":
        cap_f_m, tan_d = CABLE_DIELECTRIC[(dtype.variant["insulation"], dtype.variant["voltage"])]
        u0 = float(dtype.variant["voltage"]) * 1000.0 / math.sqrt(3) * np.asarray(ctx.get("voltage_kv", 10.0)) / 10.0
        # paper's loss factor rises with temperature (practice); XLPE's is flat in service range
        tan_t = tan_d * (1.0 + 0.02 * (out["conductor_temp_c"] - 20.0)) if dtype.variant["insulation"] == "paper" else tan_d
        # IEC 60287-1-1:2006 2.2: Wd = omega C U0^2 tan delta (W/m per phase; stored per km)
        out["dielectric_loss_w_km"] = 1000.0 * 2 * math.pi * 50.0 * cap_f_m * u0 ** 2 * tan_t + 0 * out["ambient_c"]
        design = float(r.uniform(0.6, 1.0))
        if "sheath_voltage_v" in names:
            # single-point bonded single-core cables in trefoil: the standing voltage is the
            # sheath's induced e.m.f., I * omega * 2e-7 * ln(2 s / d) per metre (IEEE 575-2014),
            # s/d = 1.75 (touching trefoil of a 35 kV cable), over the section; the section is
            # laid out so that its rated current induces ``design`` x 65 V (practice)
            emf_v_per_a_km = 2 * math.pi * 50.0 * 2e-7 * math.log(2 * 1.75) * 1000.0
            length_km = design * SHEATH_LIMIT_V / (emf_v_per_a_km * max(float(dev.config["rating"]), 1.0))
            out["sheath_voltage_v"] = np.asarray(out["current_a"]) * emf_v_per_a_km * length_km
    elif cls == "pv_inverter" and "string_current_spread_pct" in names:
        # string mismatch (soiling, shading, module tolerance): relative spread grows at low light
        irr = np.asarray(out["irradiance_wm2"])
        s0 = float(r.uniform(1.0, 4.0))
        out["string_current_spread_pct"] = np.where(irr > 50.0, s0 * (1.0 + 100.0 / np.maximum(irr, 50.0)), 0.0)
    elif cls == "battery":
        # rack DC resistance (IEC 62620:2014 6.6 measurement; IEEE 1188-2005 trending practice):
        # rises as capacity fades, falls with cell temperature (Arrhenius-like, practice)
        r0 = float(r.uniform(30.0, 45.0) if dtype.variant["chemistry"] == "LFP" else r.uniform(20.0, 35.0))
        out["_ir0"] = r0
        out["internal_resistance_mohm"] = internal_resistance_mohm(r0, out["soh_pu"], out["cell_temp_c"])
    elif cls == "relay":
        hits = np.isin(np.arange(n), ctx.get("fault_hours", np.array([], dtype=int))).astype(float)
        if "autoreclose_shots_total" in names:  # every feeder fault: trip and one reclose shot
            out["autoreclose_shots_total"] = float(r.integers(0, 200)) + np.cumsum(hits)
        if "differential_current_pu" in names:
            # spill current of a transformer differential: the OLTC moves the ratio 1.25 % a
            # step away from the CT matching at the middle tap, plus 1 % CT error, times the load
            tap = np.asarray(ctx.get("tr_tap", np.zeros(n)))
            out["differential_current_pu"] = (0.01 + 0.0125 * np.abs(tap)) * np.asarray(ctx.get("tr_load_pu", np.zeros(n)))
        if "busbar_diff_current_pu" in names:  # CT errors of the busbar zone (practice 0.5 % + 1 % of load)
            out["busbar_diff_current_pu"] = 0.005 + 0.01 * np.asarray(ctx.get("sub_load_pu", np.zeros(n)))
        if "load_impedance_ohm" in names:  # the impedance a distance relay measures under load
            out["load_impedance_ohm"] = np.asarray(ctx["voltage_kv"]) * 1000.0 / (
                math.sqrt(3) * np.maximum(np.asarray(out["current_a"]), 1.0))


def _simple_model(seed: int, idx: int, dev: Device, dtype: DeviceType, ctx: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The other classes' original models: every metric a function of the feeder current,
    voltage and weather."""
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
        ops = float(r.integers(10, 400)) + np.cumsum(r.random(n) < 0.002)
        return {"current_a": cur, "current_pu": pu, "ambient_c": amb, "contact_temp_c": amb + rise * pu ** 2 + irr * 0.01,
                "operations_total": ops, "motor_current_a": 4.0 * np.diff(ops, prepend=ops[0]) * float(r.uniform(0.9, 1.3)),
                # the rise at rated current is I²R: a degraded contact has a proportionally higher resistance
                "contact_resistance_uohm": 40.0 * rise / 35.0 + 0 * amb, "_rise": rise, "_irr": irr, "_pu": pu}
    if cls == "instrument_transformer":
        return {"current_a": cur, "voltage_kv": ctx["voltage_kv"], "ambient_c": amb,
                "insulation_temp_c": amb + float(r.uniform(25, 50)) * np.clip(pu, 0, 2) ** 2,
                "ratio_error_pct": float(r.uniform(0.05, 0.45)) + 1e-5 * t * float(r.random() < 0.3),
                "secondary_burden_va": float(r.uniform(5, 15)) * (1 + 0.004 * (amb - 20.0)),
                "secondary_voltage_v": 100.0 * ctx["voltage_kv"] / float(np.mean(ctx["voltage_kv"]) or 1.0),
                "phase_error_min": float(r.uniform(1.0, 20.0)) + 0.01 * (amb - 20.0),
                "partial_discharge_pc": float(r.uniform(1.0, 10.0)) * np.exp(0.01 * (amb - 20.0))}
    if cls == "arrester":
        storms = (wind > 10.0) & (r.random(n) < 0.3)
        base = float(r.uniform(0.1, 0.3))
        res = base * np.exp(0.02 * (amb - 20.0)) * (1 + 2e-5 * t * float(r.random() < 0.3))
        cap = float(r.uniform(0.4, 0.8)) * ctx["voltage_kv"] / float(np.mean(ctx["voltage_kv"]) or 1.0)
        return {"voltage_kv": ctx["voltage_kv"], "ambient_c": amb, "leakage_resistive_ma": res,
                "surge_count": float(r.integers(0, 15)) + np.cumsum(storms),
                # total = resistive ⊕ capacitive (in quadrature); the third harmonic follows the resistive part
                "leakage_total_ma": np.sqrt(res ** 2 + cap ** 2), "third_harmonic_ma": 0.3 * res,
                "energy_absorbed_kj": float(r.uniform(0, 500)) + np.cumsum(storms * r.uniform(2.0, 30.0, n)),
                "_base": base, "_amb": amb}
    if cls == "cable":
        limit_rise = 60.0 if "XLPE" in dtype.type_id else 40.0
        ground = 15.0 + 0.3 * (amb - 10.0)
        cond = iec.linear_recursion(math.exp(-1 / 3.0), float(ground[0]), (1 - math.exp(-1 / 3.0)) * (ground + limit_rise * pu ** 2))
        return {"current_a": cur, "ambient_c": amb, "conductor_temp_c": cond, "sheath_current_a": float(r.uniform(0.015, 0.045)) * cur,
                "partial_discharge_pc": float(r.uniform(20, 200)) * (1 + 3e-4 * t * float(r.random() < 0.2)), "loading_pu": pu,
                # I²R per metre (0.124 Ω/km at 20 °C, copper's 0.00393 /K)
                "joule_loss_w_m": cur ** 2 * 0.124e-3 * (1 + 0.00393 * (cond - 20.0)),
                "insulation_resistance_mohm": float(r.uniform(500, 5000)) * np.exp(-0.05 * (cond - 20.0)),
                "dts_hotspot_c": cond + float(r.uniform(2.0, 6.0)), "oil_pressure_bar": 2.0 + 0.01 * (cond - 20.0)}
    if cls == "line":
        cond = amb + 50.0 * pu ** 2 / (1 + 0.15 * wind) + 0.012 * irr
        sag = 6.5 + float(r.uniform(0, 1.5)) + 0.025 * (cond - 15.0)
        length_km = float(r.uniform(1.0, 8.0))
        return {"current_a": cur, "ambient_c": amb, "conductor_temp_c": cond, "wind_speed_ms": wind,
                "sag_m": sag, "loading_pu": pu, "clearance_m": 15.0 - sag,
                # three phases, 0.3 Ω/km at 20 °C (aluminium 0.004 /K) over the section's length
                "joule_loss_kw": 3.0 * cur ** 2 * 0.3 * length_km * (1 + 0.004 * (cond - 20.0)) / 1000.0}
    if cls == "pv_inverter":
        cell = amb + 0.03 * irr
        eff = float(r.uniform(0.94, 0.975)) - 2e-6 * t * float(r.random() < 0.3)
        p = rated * irr / 1000.0 * (1 - 0.004 * (cell - 25.0)) * eff
        pdc = np.clip(p, 0, rated) / np.maximum(eff, 0.5)
        vdc = np.where(irr > 0, 620.0 - 2.0 * (cell - 25.0), 0.0)
        ins = float(r.uniform(2.0, 40.0)) * np.exp(-0.03 * np.clip(amb - 15.0, 0, None)) * (1 - 0.6 * (r.random() < 0.2) * (t > n // 2))
        return {"irradiance_wm2": irr, "ambient_c": amb, "ac_power_kw": np.clip(p, 0, rated),
                "inverter_temp_c": amb + 30.0 * np.clip(p / rated, 0, 1), "efficiency_pu": eff + 0 * amb,
                "dc_voltage_v": vdc, "dc_current_a": np.where(vdc > 0, pdc * 1000.0 / np.maximum(vdc, 1.0), 0.0),
                "insulation_resistance_mohm": ins, "reactive_power_kvar": 0.1 * np.clip(p, 0, rated),
                "energy_today_kwh": _since_midnight(np.clip(p, 0, rated))}
    if cls == "battery":
        state = r.bit_generator.state
        out = battery_telemetry(r, rated, amb, t, chemistry=dtype.variant["chemistry"])
        fix = first_completion(dev, dtype, out, ("soc_pu",))
        if out.pop("misconfigured") and fix is not None:
            # the work order raised by the SOC alarm reconfigures the controller: replay the
            # same draws with the corrected window from the order's completion on
            r.bit_generator.state = state
            out = battery_telemetry(r, rated, amb, t, fix_at=fix, chemistry=dtype.variant["chemistry"])
            out.pop("misconfigured")
        return out
    if cls == "capacitor_bank":
        load = ctx.get("feeder_pu", np.full(n, 0.6))
        steps = np.clip(np.round(load * 4.0), 0, 6)
        v = 1.03 - 0.06 * load + 0.012 * steps + _ar1(r, n, 0.8, 0.004)
        failed = (t > r.integers(0, 3 * n)).astype(float)  # an element failure, for some banks within the world
        unb0 = float(r.uniform(0.2, 1.0))
        jump = float(r.uniform(0.5, 1.5))
        unb = unb0 + failed * jump
        return {"voltage_pu": v, "ambient_c": amb, "reactive_mvar": rated * steps / 6.0 * v ** 2, "steps_in_service": steps,
                "unbalance_current_a": unb, "switching_ops": float(r.integers(100, 3000)) + np.cumsum(np.abs(np.diff(steps, prepend=steps[0]))),
                "capacitance_change_pct": float(r.uniform(0.0, 2.0)) + failed * jump * 4.0,
                "thd_voltage_pct": 2.0 + 4.0 * load * float(r.uniform(0.6, 1.6)) + _ar1(r, n, 0.8, 0.2), "_unb0": unb0,
                "current_a": rated * steps / 6.0 * v ** 2 * 1000.0 / (math.sqrt(3) * float(dtype.variant["voltage"]) * v),
                "neutral_voltage_v": 20.0 * unb}
    if cls == "relay":
        fh = ctx.get("fault_hours", np.array([], dtype=int))
        hits = np.isin(t, fh).astype(float)
        st = np.ones(n)
        if r.random() < 0.3:
            s = int(r.integers(0, n))
            st[s:s + int(r.integers(1, 6))] = 0.0
        return {"current_a": cur, "ambient_c": amb, "pickups_total": float(r.integers(0, 300)) + np.cumsum(hits),
                "trips_total": float(r.integers(0, 200)) + np.cumsum(hits), "self_test_ok": st,
                "cpu_temp_c": 22.0 + 0.4 * (amb - 20.0) + float(r.uniform(20, 38)),
                "supply_voltage_v": 110.0 + 2.0 * np.sin(2 * np.pi * t / 24) - float(r.choice([0.0, 0.0, 0.0, 14.0])) * (t > n // 3),
                "comm_ok": st * (r.random(n) > 0.001),
                "operate_time_ms": (float(r.uniform(20, 40)) if "digital" in dtype.type_id else float(r.uniform(40, 80))) + 0 * amb,
                "cpu_load_pct": 20.0 + 30.0 * hits + 5.0 * np.sin(2 * np.pi * t / 24) ** 2,
                "coil_resistance_ohm": float(r.uniform(90, 110)) * (1 + 0.00393 * (amb - 20.0))}
    if cls == "rtu":
        busy = np.clip(_ar1(r, n, 0.95, 0.15), 0, None)
        return {"ambient_c": amb, "cpu_temp_c": 22.0 + 0.4 * (amb - 20.0) + float(r.uniform(25, 40)),
                "comm_latency_ms": 40.0 * np.exp(2.0 * busy), "packet_loss_pct": 0.2 + 6.0 * busy ** 2,
                "supply_voltage_v": 24.0 - float(r.choice([0.0, 0.0, 0.5, 2.2])) * (np.arange(n) > n // 2),
                # GPS-loss episodes (about one a quarter, 6 h each) let the clock drift past 1 ms
                "time_sync_offset_ms": float(r.uniform(0.05, 0.3)) * (1 + busy)
                + 2.0 * np.convolve((r.random(n) < 4.5e-4).astype(float), np.ones(6))[:n],
                "memory_use_pct": np.clip(float(r.uniform(30, 70)) + t * float(r.choice([0.0, 0.0, 0.003])) % 40.0, 0, 100),
                "points_reporting_pct": np.clip(100.0 - 2.0 * (0.2 + 6.0 * busy ** 2), 0.0, 100.0),
                "uptime_h": _since_reset(r.random(n) < 5e-4, float(r.integers(0, 5000)))}
    raise ValueError(f"no telemetry model for class {cls!r}")


def _since_midnight(p: np.ndarray) -> np.ndarray:
    """Energy since the start of each day (the world starts at 00:00 UTC): the hour's energy
    counted at the hour's end."""
    e = np.cumsum(p)
    day_start = (np.arange(p.size) // 24) * 24
    return e - np.concatenate(([0.0], e))[day_start]


def _since_reset(resets: np.ndarray, initial: float) -> np.ndarray:
    """Hours since the last restart (``resets`` marks restart hours)."""
    n = resets.size
    last = np.maximum.accumulate(np.where(resets, np.arange(n), -1))
    return np.where(last >= 0, np.arange(n) - last, initial + np.arange(n)).astype(float)


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
                      fix_at: int | None = None, chemistry: str = "LFP") -> dict[str, Any]:
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
    fade = float(r.choice([5e-5, 5e-5, 1.5e-4, 2.5e-4]))  # capacity fade per equivalent cycle
    spread = float(r.uniform(10, 40)) + 40.0 * np.abs(power) / rated_kw * float(r.choice([0.3, 0.3, 1.0, 2.0]))
    return {"power_kw": power, "soc_pu": soc, "ambient_c": amb, "cell_temp_c": amb + 6.0 + 10.0 * np.abs(power) / rated_kw,
            "equivalent_cycles": cycles, "soh_pu": 1.0 - fade * cycles, "misconfigured": misconfigured,
            "cell_voltage_spread_mv": spread, "insulation_resistance_kohm": float(r.uniform(500, 3000)) + 0 * amb,
            "energy_stored_kwh": soc * energy, "dc_voltage_v": 700.0 + 120.0 * soc,
            # open-circuit cell voltage: LFP's flat 3.2-3.4 V, NMC's 3.6-4.1 V (both listed, the type keeps its own)
            "cell_voltage_max_v": (3.2 + 0.2 * soc) if chemistry == "LFP" else (3.6 + 0.5 * soc), "_fade": fade}


# ------------------------------------------------------------------------- the chain


@dataclass
class Context(Frame):
    """Everything devices share, computed once per (seed, size) in each process: the hierarchy,
    weather, feeder loads (net of PV and batteries, after the operator's load transfers),
    faults, and the devices that shape them (PV, batteries, transformers). A shard of devices
    needs only this and its own index to compute its telemetry (:func:`device_telemetry`)."""

    wx: dict[str, dict[str, np.ndarray]]
    load: dict[str, np.ndarray]
    peak: dict[str, float]
    faults: dict[str, np.ndarray]
    tr_load: dict[str, np.ndarray]
    pre: dict[str, dict[str, Any]]
    operator_actions: dict[str, list[OperatorAction]]


_CONTEXTS: dict[tuple[int, str], Context] = {}
_CONTEXT_LOCK = threading.Lock()


def context(seed: str | int, size_name: str = "test") -> Context:
    """The shared stages 1-4 (and the devices that feed back into them), cached per process."""
    if size_name not in SIZES:
        raise ValueError(f"size must be one of {sorted(SIZES)}, not {size_name!r}")
    s = seed_int(seed)
    key = (s, size_name)
    with _CONTEXT_LOCK:  # Dask threads of one worker share one context, computed once
        ctx = _CONTEXTS.get(key)
        if ctx is None:
            ctx = _compute_context(s, size_name)
            _CONTEXTS.clear()  # one world per process at a time (a full context holds ~0.3 GB)
            _CONTEXTS[key] = ctx
        return ctx


def _compute_context(s: int, size_name: str) -> Context:
    size = SIZES[size_name]
    types = build_catalog()
    devices = build_hierarchy(s, size, types)
    by_type = {t.type_id: t for t in types}
    start = datetime.fromisoformat(size.start).replace(tzinfo=UTC)
    hours = size.days * 24
    subs = sorted({d.config["substation_id"] for d in devices})
    wx = {sub: weather(s, start, hours, i) for i, sub in enumerate(subs)}
    feeders = sorted({d.feeder for d in devices if d.feeder})
    f_index = {f: i for i, f in enumerate(feeders)}
    peak = {d.feeder: d.config["feeder_peak_mw"] for d in devices if "feeder_peak_mw" in d.config}
    sub_of = {d.feeder: d.config["substation_id"] for d in devices if d.feeder}
    load = {f: feeder_load_mw(s, f_index[f], peak[f], start, wx[sub_of[f]]["ambient_c"]) for f in feeders}
    pre: dict[str, dict[str, Any]] = {}
    # embedded generation and storage change the feeder's net load
    for i, d in enumerate(devices):
        if d.device_class in ("pv_inverter", "battery"):
            pre[d.device_id] = simple_telemetry(s, i, d, by_type[d.type_id], wx[d.config["substation_id"]])
            k = "ac_power_kw" if d.device_class == "pv_inverter" else "power_kw"
            load[d.feeder] = np.clip(load[d.feeder] - pre[d.device_id][k] / 1000.0, 0.0, None)
    faults = {f: fault_hours(s, f_index[f], wx[sub_of[f]]["wind_speed_ms"]) for f in feeders}
    tr_feeders: dict[str, list[str]] = {}
    for f in feeders:
        tr_feeders.setdefault(next(d.transformer for d in devices if d.feeder == f), []).append(f)
    tr_load: dict[str, np.ndarray] = {}
    actions: dict[str, list[OperatorAction]] = {}
    for i, d in enumerate(devices):
        if d.device_class != "transformer":
            continue
        fs = tr_feeders.get(d.device_id, [])
        demand = sum((load[f] for f in fs), np.zeros(hours))
        mva = float(d.config["rating"])
        k0 = np.round(demand / (mva * 0.95), 4)
        tel = transformer_telemetry(s, i, d, by_type[d.type_id], k0, wx[d.config["substation_id"]]["ambient_c"],
                                    mva * 1000 / (math.sqrt(3) * 10.0))
        pre[d.device_id] = tel
        actions[d.device_id] = tel["_actions"]
        # the operator's transfer takes the same share off every feeder of the unit
        share = np.where(k0 > 0, tel["load_pu"] / np.where(k0 > 0, k0, 1.0), 1.0)
        for f in fs:
            load[f] = load[f] * share
        tr_load[d.device_id] = demand * share
    return Context(s, size_name, size, types, devices, start, hours, wx, load, peak, faults, tr_load, pre, actions)


def raw_telemetry(ctx: Context, i: int) -> tuple[dict[str, Any], list[int]]:
    """Stage 5 for device ``i``: its model's series (and model parameters under ``_`` keys)
    before the maintenance feedback, and the breaker counter resets."""
    d = ctx.devices[i]
    dt = ctx.type_by_id[d.type_id]
    if d.device_id in ctx.pre:
        return dict(ctx.pre[d.device_id]), []
    w = ctx.wx[d.config["substation_id"]]
    c: dict[str, Any] = dict(w)
    hours = ctx.hours
    if d.feeder:
        c["current_a"] = ctx.load[d.feeder] * 1000 / (math.sqrt(3) * 10.0 * 0.95)
        c["feeder_pu"] = ctx.load[d.feeder] / ctx.peak[d.feeder]
        c["fault_hours"] = ctx.faults[d.feeder]
        c["voltage_kv"] = 10.0 * (1.02 - 0.04 * c["feeder_pu"])
    else:
        trl = ctx.tr_load.get(d.transformer, np.zeros(hours)) if d.transformer else np.zeros(hours)
        c["current_a"] = trl * 1000 / (math.sqrt(3) * 110.0 * 0.95)
        c["voltage_kv"] = 110.0 + 0 * trl
        c["fault_hours"] = np.array([], dtype=int)
    if d.device_class == "relay":
        # what the relay's function measures: its transformer's load and tap, or the substation's load
        if d.transformer in ctx.pre:
            c["tr_load_pu"] = ctx.pre[d.transformer]["load_pu"]
            c["tr_tap"] = ctx.pre[d.transformer]["tap_position"]
        units = [x for x in ctx.devices if x.device_class == "transformer"
                 and x.config["substation_id"] == d.config["substation_id"]] if d.type_id.startswith("RELAY-busbar") else []
        if units:
            c["sub_load_pu"] = sum((ctx.tr_load[x.device_id] for x in units), np.zeros(hours)) \
                / sum(float(x.config["rating"]) * 0.95 for x in units)
    if d.device_class == "breaker":
        rule = next((r for r in dt.rules if r.target_metric == "operations_since_maint" and r.severity == "alarm"
                     and not r.applicability), None)
        fh = ctx.faults[d.feeder] if d.feeder else np.array([], dtype=int)
        return breaker_telemetry(ctx.seed, i, d, dt, c["current_a"], w["ambient_c"], fh, rule)
    return simple_telemetry(ctx.seed, i, d, dt, c), []


def device_telemetry(ctx: Context, i: int) -> tuple[dict[str, np.ndarray], list[int], list[Any]]:
    """Device ``i``'s stored series (every metric of its type, rounded to 4 decimals), its
    breaker counter resets and the maintenance actions that changed its series
    (:mod:`psab.fleet.maintenance`)."""
    from psab.fleet.maintenance import apply_feedback

    d = ctx.devices[i]
    dt = ctx.type_by_id[d.type_id]
    raw, resets = raw_telemetry(ctx, i)
    metrics = [m.name for m in dt.metrics]
    missing = [m for m in metrics if m not in raw]
    if missing:
        raise AssertionError(f"{d.device_id}: model does not compute {missing}")
    series, applied = apply_feedback(d, dt, raw, metrics, ctx.hours)
    return series, resets, applied


def build(seed: str | int, size_name: str = "test", indices: list[int] | None = None) -> World:
    """The world in memory, deterministic in (seed, size); ``indices`` computes the telemetry
    of those devices only (a shard; the hierarchy and shared context are always whole)."""
    ctx = context(seed, size_name)
    world = World(ctx.seed, size_name, ctx.size, ctx.types, ctx.devices, ctx.start, ctx.hours)
    world.operator_actions = ctx.operator_actions
    world.degraded_cooling = {d: ctx.pre[d]["_degraded"] for d in ctx.operator_actions if ctx.pre[d]["_degraded"]}
    world.degraded_pumps = {d: ctx.pre[d]["_pumps_degraded"] for d in ctx.operator_actions
                            if ctx.pre[d]["_pumps_degraded"]}
    for i in (range(len(ctx.devices)) if indices is None else indices):
        d = ctx.devices[i]
        world.telemetry[d.device_id], resets, world.maintenance_actions[d.device_id] = device_telemetry(ctx, i)
        if d.device_class == "breaker":
            world.maintenance_resets[d.device_id] = resets
    return world
