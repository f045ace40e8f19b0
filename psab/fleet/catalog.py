"""Device types: metrics with units, configuration fields and type-level rules.

The catalogue is the first link of the dependency chain and does not depend on the seed: the
same 100 types (12 classes × their variants) exist in every world; sizes differ only in how
many instances are drawn. A rule follows the schema of the PowerBench paper's Table 6: an id
within its type (K1, K2, ...), its target metric and object class (common metric / special
metric), its applicability (empty = every instance of the type, else an AND of
"config field ∈ value set" clauses), its inputs, and its point condition (whether a single
sample fires it, or how many consecutive samples must satisfy it).

Thresholds come from standards where one exists and are marked ``source``:
IEC 60076-7:2018 Table 4 (hot-spot 120 °C / top-oil 105 °C for normal cyclic loading, 140 °C /
115 °C long-time emergency), IEEE C57.104-2008 Table 1 condition-1 gas limits (H2 100, C2H2 1
(2019: 1–2), C2H4 50, CO 350 ppm), IEC 60422 oil moisture guidance; others (SF6 density alarm
at 90 % of fill, operation-count service intervals, cable 90 °C XLPE / 65 °C paper conductor
limits of IEC 60502 / IEC 60287 practice, battery and inverter temperature limits) are
"practice" and say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Thermal characteristics by cooling mode (IEC 60076-7:2018 Table 5, medium/large power
#: transformers): x, y, k11, k21, k22, τo, τw (min), Δθor and H·gr (K) and R.
COOLING: dict[str, dict[str, float]] = {
    "ONAN": dict(x=0.8, y=1.3, k11=0.5, k21=2.0, k22=2.0, tau_o=210.0, tau_w=10.0, dor=52.0, hgr=26.0, r=6.0),
    "ONAF": dict(x=0.8, y=1.3, k11=0.5, k21=2.0, k22=2.0, tau_o=150.0, tau_w=7.0, dor=52.0, hgr=26.0, r=6.0),
    "OFAF": dict(x=1.0, y=1.3, k11=1.0, k21=1.3, k22=1.0, tau_o=90.0, tau_w=7.0, dor=56.0, hgr=22.0 * 1.3, r=6.0),
    "ODAF": dict(x=1.0, y=2.0, k11=1.0, k21=1.0, k22=1.0, tau_o=90.0, tau_w=7.0, dor=49.0, hgr=29.0 * 1.3, r=6.0),
}


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str
    object_class: str = "common"  # common metric of its class, or special to the variant


@dataclass(frozen=True)
class Rule:
    """One type-level rule (PowerBench Table 6)."""

    rule_id: str
    type_id: str
    target_metric: str
    object_class: str
    applicability: tuple[tuple[str, tuple[str, ...]], ...]
    inputs: tuple[str, ...]
    op: str  # ">=" or "<="
    threshold: float
    consecutive_points: int
    severity: str
    source: str
    #: A derived input (Table 6 "atomic and/or derived metric names"): "" for the atomic
    #: ``target_metric`` itself, else one of :data:`psab.fleet.rules.DERIVED_KINDS` applied to
    #: ``inputs`` with ``window_h`` hours, ``scale`` and ``level`` (see
    #: :func:`psab.fleet.rules.derived_series`); ``target_metric`` then names the derived series.
    derive: str = ""
    window_h: int = 0
    scale: float = 1.0
    level: float = 0.0

    @property
    def key(self) -> str:
        return f"{self.type_id}.{self.rule_id}"

    def applies(self, config: dict[str, Any]) -> bool:
        return all(str(config.get(f)) in vals for f, vals in self.applicability)

    def as_json(self) -> dict[str, Any]:
        return {"rule_id": self.rule_id, "type_id": self.type_id, "target_metric": self.target_metric,
                "object_class": self.object_class,
                "applicability": [{"field": f, "values": list(v)} for f, v in self.applicability],
                "inputs": list(self.inputs), "op": self.op, "threshold": self.threshold,
                "consecutive_points": self.consecutive_points, "single_point_fires": self.consecutive_points == 1,
                "severity": self.severity, "source": self.source,
                "derived": ({"kind": self.derive, "inputs": list(self.inputs), "window_h": self.window_h,
                             "scale": self.scale, "level": self.level} if self.derive else None)}

    @classmethod
    def from_json(cls, r: dict[str, Any]) -> Rule:
        """The inverse of :meth:`as_json` (type sheets are read back by the question generator)."""
        d = r.get("derived") or {}
        return cls(r["rule_id"], r["type_id"], r["target_metric"], r["object_class"],
                   tuple((c["field"], tuple(c["values"])) for c in r["applicability"]), tuple(r["inputs"]),
                   r["op"], float(r["threshold"]), int(r["consecutive_points"]), r["severity"], r["source"],
                   str(d.get("kind", "")), int(d.get("window_h", 0)), float(d.get("scale", 1.0)), float(d.get("level", 0.0)))


@dataclass(frozen=True)
class DeviceType:
    type_id: str
    device_class: str
    variant: dict[str, str]
    metrics: tuple[Metric, ...]
    config_fields: tuple[str, ...]
    rules: tuple[Rule, ...] = field(default=())

    def as_json(self) -> dict[str, Any]:
        return {"type_id": self.type_id, "device_class": self.device_class, "variant": dict(self.variant),
                "metrics": [{"name": m.name, "unit": m.unit, "object_class": m.object_class} for m in self.metrics],
                "config_fields": list(self.config_fields), "rules": [r.as_json() for r in self.rules]}


def _m(*pairs: str) -> tuple[Metric, ...]:
    return tuple(Metric(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2))


#: Metrics of each class (every type of the class carries them).
CLASS_METRICS: dict[str, tuple[Metric, ...]] = {
    "transformer": _m("load_pu", "pu", "current_a", "A", "ambient_c", "degC", "top_oil_c", "degC",
                      "hot_spot_c", "degC", "ageing_rate_pu", "pu", "loss_of_life_h", "h", "h2_ppm", "ppm",
                      "co_ppm", "ppm", "c2h2_ppm", "ppm", "c2h4_ppm", "ppm", "oil_moisture_ppm", "ppm",
                      "tap_position", "step", "ch4_ppm", "ppm", "c2h6_ppm", "ppm", "co2_ppm", "ppm",
                      "oil_breakdown_kv", "kV", "oil_acidity_mgkoh_g", "mgKOH/g", "oil_dissipation_factor", "1",
                      "load_transferred_pu", "pu", "load_loss_kw", "kW", "no_load_loss_kw", "kW", "oil_level_pct", "%",
                      "lv_voltage_kv", "kV", "paper_dp", "1"),
    "breaker": _m("current_a", "A", "current_pu", "pu", "ambient_c", "degC", "operations_total", "count",
                  "operations_since_maint", "count", "trips_24h", "count", "interrupted_ka2_sum", "kA2",
                  "mechanism_temp_c", "degC", "opening_time_ms", "ms", "contact_wear_pct", "%", "heater_on", "bool",
                  "closing_time_ms", "ms", "trip_coil_current_a", "A"),
    "disconnector": _m("current_a", "A", "current_pu", "pu", "ambient_c", "degC", "contact_temp_c", "degC", "operations_total", "count",
                       "contact_resistance_uohm", "uOhm"),
    "instrument_transformer": _m("current_a", "A", "voltage_kv", "kV", "ambient_c", "degC",
                                 "insulation_temp_c", "degC", "ratio_error_pct", "%", "phase_error_min", "min",
                                 "partial_discharge_pc", "pC"),
    "arrester": _m("voltage_kv", "kV", "ambient_c", "degC", "leakage_resistive_ma", "mA", "surge_count", "count",
                   "leakage_total_ma", "mA", "third_harmonic_ma", "mA", "energy_absorbed_kj", "kJ"),
    "cable": _m("current_a", "A", "ambient_c", "degC", "conductor_temp_c", "degC", "sheath_current_a", "A",
                "partial_discharge_pc", "pC", "loading_pu", "pu", "joule_loss_w_m", "W/m", "insulation_resistance_mohm", "MOhm",
                "dielectric_loss_w_km", "W/km"),
    "line": _m("current_a", "A", "ambient_c", "degC", "conductor_temp_c", "degC", "wind_speed_ms", "m/s", "sag_m", "m",
               "loading_pu", "pu", "joule_loss_kw", "kW", "clearance_m", "m"),
    "pv_inverter": _m("irradiance_wm2", "W/m2", "ambient_c", "degC", "ac_power_kw", "kW", "inverter_temp_c", "degC",
                      "efficiency_pu", "pu", "dc_voltage_v", "V", "dc_current_a", "A", "insulation_resistance_mohm", "MOhm",
                      "reactive_power_kvar", "kvar", "energy_today_kwh", "kWh"),
    "battery": _m("power_kw", "kW", "soc_pu", "pu", "ambient_c", "degC", "cell_temp_c", "degC",
                  "equivalent_cycles", "count", "soh_pu", "pu", "cell_voltage_spread_mv", "mV",
                  "insulation_resistance_kohm", "kOhm", "energy_stored_kwh", "kWh", "dc_voltage_v", "V"),
    "capacitor_bank": _m("voltage_pu", "pu", "ambient_c", "degC", "reactive_mvar", "Mvar", "steps_in_service", "count",
                         "unbalance_current_a", "A", "switching_ops", "count", "capacitance_change_pct", "%",
                         "thd_voltage_pct", "%", "current_a", "A"),
    "relay": _m("current_a", "A", "ambient_c", "degC", "pickups_total", "count", "trips_total", "count",
                "self_test_ok", "bool", "cpu_temp_c", "degC", "supply_voltage_v", "V", "comm_ok", "bool",
                "operate_time_ms", "ms"),
    "rtu": _m("ambient_c", "degC", "cpu_temp_c", "degC", "comm_latency_ms", "ms", "packet_loss_pct", "%",
              "supply_voltage_v", "V", "time_sync_offset_ms", "ms", "memory_use_pct", "%", "points_reporting_pct", "%",
              "uptime_h", "h"),
}

#: Variant axes of each class; the product gives the types (12 classes → 100 types).
VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "transformer": {"cooling": ("ONAN", "ONAF", "OFAF", "ODAF"), "voltage": ("110/10", "35/10", "10/0.4"),
                    "paper": ("normal", "thermally_upgraded")},
    "breaker": {"medium": ("SF6", "vacuum", "oil"), "voltage": ("110", "35", "10")},
    "disconnector": {"drive": ("motor", "manual", "earthing"), "voltage": ("110", "35", "10")},
    "instrument_transformer": {"kind": ("CT", "VT"), "voltage": ("110", "35", "10")},
    "arrester": {"material": ("ZnO", "SiC"), "voltage": ("110", "35", "10")},
    "cable": {"insulation": ("XLPE", "paper"), "voltage": ("35", "10"), "conductor": ("Cu", "Al")},
    "line": {"conductor": ("ACSR", "AAAC"), "voltage": ("110", "35", "10")},
    "pv_inverter": {"topology": ("central", "string"), "rating": ("100kW", "500kW", "1MW")},
    "battery": {"chemistry": ("LFP", "NMC"), "rating": ("250kW", "1MW", "2MW")},
    "capacitor_bank": {"voltage": ("35", "10"), "connection": ("star", "delta"), "steps": ("3", "6")},
    "relay": {"function": ("feeder", "differential", "distance", "busbar"), "technology": ("electromechanical", "digital")},
    "rtu": {"vendor": ("A", "B", "C", "D")},
}

#: Special metrics of some variants (PowerBench's "special metric" object class).
SPECIAL: dict[tuple[str, str, str], tuple[Metric, ...]] = {
    ("transformer", "cooling", "ONAF"): (Metric("fans_on", "bool", "special"), Metric("fan_current_a", "A", "special")),
    ("transformer", "cooling", "OFAF"): (Metric("fans_on", "bool", "special"), Metric("pumps_on", "bool", "special"),
                                         Metric("fan_current_a", "A", "special"), Metric("pump_flow_pu", "pu", "special"),
                                         Metric("pump_current_a", "A", "special")),
    ("transformer", "cooling", "ODAF"): (Metric("fans_on", "bool", "special"), Metric("pumps_on", "bool", "special"),
                                         Metric("fan_current_a", "A", "special"), Metric("pump_flow_pu", "pu", "special"),
                                         Metric("pump_current_a", "A", "special")),
    ("transformer", "voltage", "110/10"): (Metric("oltc_operations_total", "count", "special"),
                                           Metric("bushing_capacitance_change_pct", "%", "special"),
                                           Metric("oltc_contact_wear_pct", "%", "special"),
                                           Metric("bushing_tan_delta_pct", "%", "special")),
    ("transformer", "voltage", "35/10"): (Metric("oltc_operations_total", "count", "special"),
                                          Metric("oltc_contact_wear_pct", "%", "special")),
    # furanic compounds (IEC 61198) date Kraft paper; thermally upgraded paper releases far less
    # 2-FAL, so the furan estimate of its DP is not used (practice, CIGRE TB 494)
    ("transformer", "paper", "normal"): (Metric("furan_2fal_ppm", "ppm", "special"),),
    ("breaker", "medium", "vacuum"): (Metric("contact_erosion_mm", "mm", "special"),),
    # single-core 35 kV cables are sheath-bonded; the standing sheath voltage is monitored
    ("cable", "voltage", "35"): (Metric("sheath_voltage_v", "V", "special"),),
    ("pv_inverter", "topology", "string"): (Metric("string_current_spread_pct", "%", "special"),),
    ("relay", "function", "feeder"): (Metric("autoreclose_shots_total", "count", "special"),),
    ("relay", "function", "differential"): (Metric("differential_current_pu", "pu", "special"),),
    ("relay", "function", "distance"): (Metric("load_impedance_ohm", "Ohm", "special"),),
    ("relay", "function", "busbar"): (Metric("busbar_diff_current_pu", "pu", "special"),),
    ("breaker", "medium", "SF6"): (Metric("sf6_density_pu", "pu", "special"), Metric("sf6_pressure_bar", "bar", "special"),
                                   Metric("sf6_moisture_ppmv", "ppmv", "special")),
    ("breaker", "medium", "oil"): (Metric("oil_breakdown_kv", "kV", "special"),),
    ("disconnector", "drive", "motor"): (Metric("motor_current_a", "A", "special"),),
    ("instrument_transformer", "kind", "CT"): (Metric("secondary_burden_va", "VA", "special"),),
    ("instrument_transformer", "kind", "VT"): (Metric("secondary_voltage_v", "V", "special"),),
    ("cable", "insulation", "XLPE"): (Metric("dts_hotspot_c", "degC", "special"),),
    ("cable", "insulation", "paper"): (Metric("oil_pressure_bar", "bar", "special"),),
    ("relay", "technology", "digital"): (Metric("cpu_load_pct", "%", "special"),),
    ("relay", "technology", "electromechanical"): (Metric("coil_resistance_ohm", "Ohm", "special"),),
    ("battery", "chemistry", "LFP"): (Metric("cell_voltage_max_v", "V", "special"), Metric("internal_resistance_mohm", "mOhm", "special")),
    ("battery", "chemistry", "NMC"): (Metric("cell_voltage_max_v", "V", "special"), Metric("internal_resistance_mohm", "mOhm", "special")),
    ("capacitor_bank", "connection", "star"): (Metric("neutral_voltage_v", "V", "special"),),
}

CONFIG_FIELDS = ("rating", "vintage", "manufacturer", "criticality", "site", "substation_id", "feeder_id", "fed_by")

# Rule templates per class: (metric, op, alarm threshold, warning threshold, consecutive points
# of the alarm rule, source). Thresholds may be callables of the variant.
_T = tuple[str, str, Any, Any, int, str]
RULE_TEMPLATES: dict[str, tuple[_T, ...]] = {
    "transformer": (
        ("hot_spot_c", ">=", 120.0, 110.0, 2, "IEC 60076-7:2018 Table 4 (normal cyclic loading hot-spot 120 degC)"),
        ("hot_spot_c", ">=", 140.0, 130.0, 1, "IEC 60076-7:2018 Table 4 (long-time emergency hot-spot 140 degC)"),
        ("top_oil_c", ">=", 105.0, 95.0, 2, "IEC 60076-7:2018 Table 4 (normal cyclic top-oil 105 degC)"),
        ("load_pu", ">=", 1.5, 1.2, 3, "IEC 60076-7:2018 Table 4 (normal cyclic current 1.5 pu)"),
        ("h2_ppm", ">=", 100.0, 80.0, 1, "IEEE C57.104-2008 Table 1 condition 1 (H2 100 ppm)"),
        ("co_ppm", ">=", 350.0, 300.0, 1, "IEEE C57.104-2008 Table 1 condition 1 (CO 350 ppm)"),
        ("c2h2_ppm", ">=", 1.0, 0.5, 1, "IEEE C57.104-2008 Table 1 condition 1 (C2H2 1 ppm)"),
        ("c2h4_ppm", ">=", 50.0, 40.0, 1, "IEEE C57.104-2008 Table 1 condition 1 (C2H4 50 ppm)"),
        ("oil_moisture_ppm", ">=", 30.0, 20.0, 6, "IEC 60422:2013 Table 5 (water in oil, practice)"),
        ("ageing_rate_pu", ">=", 4.0, 2.0, 3, "IEC 60076-7:2018 6.2 (V = 4 at 110 degC, practice)"),
    ),
    "breaker": (
        ("operations_since_maint", ">=", 2000.0, 1500.0, 1, "practice: operation-count service interval"),
        ("trips_24h", ">=", 4.0, 3.0, 1, "practice: repeated fault trips"),
        ("interrupted_ka2_sum", ">=", 400.0, 300.0, 1, "practice: cumulative interrupted current (I2) wear"),
        ("mechanism_temp_c", "<=", -25.0, -15.0, 3, "practice: mechanism heater failure"),
        ("current_pu", ">=", 1.2, 1.05, 3, "practice: current above rated"),
    ),
    "disconnector": (
        ("contact_temp_c", ">=", 90.0, 75.0, 2, "IEC 62271-1:2017 Table 14 (silver-coated contacts 105 degC, practice margin)"),
        ("current_pu", ">=", 1.1, 1.0, 3, "practice: current above rated"),
    ),
    "instrument_transformer": (
        ("insulation_temp_c", ">=", 90.0, 80.0, 2, "IEC 61869-1:2007 Table 5 (class A insulation, practice)"),
        ("ratio_error_pct", ">=", 0.5, 0.3, 6, "IEC 61869-2 accuracy class 0.5"),
    ),
    "arrester": (
        ("leakage_resistive_ma", ">=", 0.5, 0.35, 3, "IEC 60099-5:2018 leakage-current monitoring (practice)"),
        ("surge_count", ">=", 20.0, 10.0, 1, "practice: surge-counter inspection interval"),
    ),
    "cable": (
        ("conductor_temp_c", ">=", None, None, 2, "IEC 60502-2 (XLPE 90 degC) / paper 65 degC (practice)"),
        ("partial_discharge_pc", ">=", 500.0, 250.0, 3, "practice: on-line partial-discharge levels"),
        ("sheath_current_a", ">=", 50.0, 35.0, 3, "practice: sheath circulating current"),
    ),
    "line": (
        ("conductor_temp_c", ">=", 80.0, 70.0, 2, "EN 50182 / IEEE 738 design temperature (practice)"),
        ("sag_m", ">=", 9.0, 8.5, 2, "practice: clearance-limited sag"),
    ),
    "pv_inverter": (
        ("inverter_temp_c", ">=", 70.0, 60.0, 2, "practice: inverter derating temperature"),
        ("efficiency_pu", "<=", 0.93, 0.95, 6, "practice: efficiency drop"),
    ),
    "battery": (
        ("cell_temp_c", ">=", 45.0, 40.0, 2, "practice: Li-ion cell temperature limit"),
        ("soc_pu", "<=", 0.1, 0.15, 3, "practice: deep discharge"),
        ("soc_pu", ">=", 0.95, 0.9, 6, "practice: prolonged high state of charge"),
    ),
    "capacitor_bank": (
        ("unbalance_current_a", ">=", 2.0, 1.5, 2, "IEEE C37.99 unbalance protection (practice)"),
        ("voltage_pu", ">=", 1.1, 1.05, 3, "IEC 60871-1:2014 (1.10 Un)"),
    ),
    "relay": (
        ("cpu_temp_c", ">=", 70.0, 60.0, 3, "practice: relay processor temperature"),
        ("self_test_ok", "<=", 0.0, 0.0, 1, "practice: relay self-supervision alarm"),
    ),
    "rtu": (
        ("comm_latency_ms", ">=", 500.0, 300.0, 3, "IEC 61850-5 performance class (practice)"),
        ("packet_loss_pct", ">=", 5.0, 2.0, 3, "practice: telemetry link quality"),
        ("supply_voltage_v", "<=", 21.6, 22.8, 2, "practice: 24 V supply at 90 %"),
    ),
}

#: Rules on the metrics added with the derived rules: an alarm and, where a warning level is
#: given (not None), a type-wide warning; same tuple form as :data:`RULE_TEMPLATES`. The
#: transformer's oil and gas limits carry no warning here (IEEE C57.104 condition 2 and the
#: IEC 60422 "fair" band are the alarm's own margin), which also keeps the rule count near
#: PowerBench Table 2's 2,044.
EXTRA_TEMPLATES: dict[str, tuple[_T, ...]] = {
    "transformer": (
        ("ch4_ppm", ">=", 120.0, None, 1, "IEEE C57.104-2008 Table 1 condition 1 (CH4 120 ppm)"),
        ("c2h6_ppm", ">=", 65.0, None, 1, "IEEE C57.104-2008 Table 1 condition 1 (C2H6 65 ppm)"),
        ("co2_ppm", ">=", 2500.0, None, 1, "IEEE C57.104-2008 Table 1 condition 1 (CO2 2500 ppm)"),
        ("oil_breakdown_kv", "<=", 40.0, None, 1, "IEC 60422:2013 Table 5 (breakdown voltage, category B: poor < 40 kV)"),
        ("oil_acidity_mgkoh_g", ">=", 0.15, None, 1, "IEC 60422:2013 Table 5 (acidity, category B: poor > 0.15 mgKOH/g)"),
        ("oil_dissipation_factor", ">=", 0.2, None, 1, "IEC 60422:2013 Table 5 (DDF at 90 degC, category B: poor > 0.2)"),
        ("load_transferred_pu", ">=", 0.2, None, 1, "practice: operator load transfer on transformer overload (IEC 60076-7:2018 Table 4 limits)"),
    ),
    "breaker": (
        ("opening_time_ms", ">=", 40.0, 37.0, 1, "practice: opening time 10 % above the nominal 36 ms (IEC 62271-100 timing tests)"),
        ("contact_wear_pct", ">=", 80.0, 60.0, 1, "practice: contact wear from the cumulative I2 (electrical endurance, IEC 62271-100 class E2)"),
    ),
    "arrester": (("third_harmonic_ma", ">=", 0.15, 0.1, 3, "IEC 60099-5:2018 Annex (third-harmonic leakage method, practice)"),),
    "cable": (("loading_pu", ">=", 1.0, 0.9, 3, "IEC 60287-1-1 continuous current rating (loading above 1.0 pu)"),),
    "line": (("loading_pu", ">=", 1.0, 0.9, 3, "IEEE 738 / EN 50182 static rating (loading above 1.0 pu)"),),
    "pv_inverter": (("insulation_resistance_mohm", "<=", 1.0, 2.0, 1, "IEC 62446-1:2016 (insulation resistance >= 1 MOhm)"),),
    "battery": (
        ("cell_voltage_spread_mv", ">=", 100.0, 60.0, 3, "practice: BMS cell-voltage imbalance"),
        ("soh_pu", "<=", 0.8, 0.85, 1, "IEEE 1188-2005 / IEC 62485-2 practice: replace at 80 % of rated capacity"),
    ),
    "capacitor_bank": (
        ("capacitance_change_pct", ">=", 5.0, 3.0, 1, "IEC 60871-1:2014 (capacitance change after element failures, practice)"),
        ("thd_voltage_pct", ">=", 8.0, 6.0, 3, "EN 50160:2010 / IEC 61000-2-2 (voltage THD 8 %)"),
    ),
    "relay": (("supply_voltage_v", "<=", 99.0, 104.5, 2, "IEC 60255-1:2009 (auxiliary supply 110 V DC at 90 %)"),),
    "rtu": (
        ("time_sync_offset_ms", ">=", 1.0, 0.5, 3, "IEC 61850-5:2013 time-synchronisation class T1 (1 ms)"),
        ("memory_use_pct", ">=", 90.0, 80.0, 6, "practice: RTU memory exhaustion"),
    ),
}
_SPECIAL_EXTRA: dict[str, tuple[_T, ...]] = {
    "sf6_moisture_ppmv": (("sf6_moisture_ppmv", ">=", 200.0, 150.0, 2, "IEC 60480:2019 (SF6 moisture for re-use, practice)"),),
    # (no rule on the SF6 pressure itself: it follows the gas temperature; the alarms are on the
    # temperature-compensated density, IEC 62271-1:2017 3.6.5)
    "oil_breakdown_kv": (("oil_breakdown_kv", "<=", 30.0, 40.0, 1, "IEC 60422:2013 Table 5 (switchgear oil, practice)"),),
    "bushing_capacitance_change_pct": (("bushing_capacitance_change_pct", ">=", 10.0, 5.0, 1, "IEC 60137 / IEEE C57.19.100 (C1 change 10 %)"),),
    "oltc_operations_total": (("oltc_operations_total", ">=", 100000.0, 80000.0, 1, "IEC 60214-1:2014 (tap-changer service interval, practice)"),),
}

#: Derived-metric rules (Table 6: "atomic and/or derived metric names"): (name, kind, inputs,
#: window_h, scale, level, op, alarm threshold, consecutive points, source). One alarm rule each;
#: the kinds are those of :func:`psab.fleet.rules.derived_series`.
_D = tuple[str, str, tuple[str, ...], int, Any, float, str, Any, int, str]
DERIVED_TEMPLATES: dict[str, tuple[_D, ...]] = {
    "transformer": (
        ("top_oil_rise_k", "diff", ("top_oil_c", "ambient_c"), 0, 1.0, 0.0, ">=", 60.0, 6,
         "IEC 60076-2:2011 Table 1 (top-oil temperature rise 60 K)"),
        ("hot_spot_gradient_k", "diff", ("hot_spot_c", "top_oil_c"), 0, 1.0, 0.0, ">=", None, 3,
         "IEC 60076-7:2018 Table 5 (hot-spot-to-top-oil gradient 1.5 H.gr of the cooling mode, practice margin)"),
        ("top_oil_change_1h_k", "delta", ("top_oil_c",), 1, 1.0, 0.0, ">=", 15.0, 1, "practice: rapid top-oil rise"),
        ("ageing_rate_mean_24h_pu", "mean", ("ageing_rate_pu",), 24, 1.0, 0.0, ">=", 2.0, 1,
         "IEC 60076-7:2018 6.3 (daily mean relative ageing 1 = normal life; alarm at twice normal)"),
        ("h2_change_24h_ppm", "delta", ("h2_ppm",), 24, 1.0, 0.0, ">=", 10.0, 1,
         "IEEE C57.104-2019 6.2 (gas increase between samples, practice value)"),
        ("c2h2_c2h4_ratio", "ratio", ("c2h2_ppm", "c2h4_ppm"), 0, 1.0, 1.0, ">=", 1.0, 1,
         "IEC 60599:2015 Table 1 (C2H2/C2H4 > 1: discharges D1)"),
        ("co2_co_ratio", "ratio", ("co2_ppm", "co_ppm"), 0, 1.0, 1.0, "<=", 3.0, 6,
         "IEC 60599:2015 Annex A.2 (CO2/CO < 3: paper involved in a fault)"),
        ("hours_hot_spot_above_110c_24h", "hours_above", ("hot_spot_c",), 24, 1.0, 110.0, ">=", 8.0, 1,
         "IEC 60076-7:2018 6.2 (ageing doubles every 6 K above 98 degC; practice duration)"),
    ),
    "breaker": (("operations_24h", "delta", ("operations_total",), 24, 1.0, 0.0, ">=", 10.0, 1,
                 "practice: operation rate (hunting auto-reclose or control fault)"),),
    "disconnector": (("contact_rise_k", "diff", ("contact_temp_c", "ambient_c"), 0, 1.0, 0.0, ">=", 65.0, 2,
                      "IEC 62271-1:2017 Table 14 (silver-coated contacts in air: 65 K rise)"),),
    "instrument_transformer": (("insulation_rise_k", "diff", ("insulation_temp_c", "ambient_c"), 0, 1.0, 0.0, ">=", 60.0, 2,
                                "IEC 61869-1:2007 Table 5 (class A: 60 K rise, practice)"),),
    "arrester": (
        ("leakage_resistive_change_720h_ma", "delta", ("leakage_resistive_ma",), 720, 1.0, 0.0, ">=", 0.1, 1,
         "IEC 60099-5:2018 (trend of resistive leakage current, practice)"),
        ("resistive_share", "ratio", ("leakage_resistive_ma", "leakage_total_ma"), 0, 1.0, 0.01, ">=", 0.5, 3,
         "IEC 60099-5:2018 (resistive share of the leakage current, practice)"),
    ),
    "cable": (("loading_mean_24h_pu", "mean", ("loading_pu",), 24, 1.0, 0.0, ">=", 0.9, 1,
               "IEC 60853-2 cyclic rating (daily mean loading, practice)"),),
    "line": (("conductor_change_1h_k", "delta", ("conductor_temp_c",), 1, 1.0, 0.0, ">=", 35.0, 1,
              "IEEE 738-2012 (transient conductor heating, practice)"),),
    "pv_inverter": (
        ("performance_ratio", "ratio", ("ac_power_kw", "irradiance_wm2"), 0, None, 200.0, "<=", 0.75, 3,
         "IEC 61724-1:2021 (performance ratio, irradiance >= 200 W/m2)"),
        ("inverter_rise_k", "diff", ("inverter_temp_c", "ambient_c"), 0, 1.0, 0.0, ">=", 35.0, 2,
         "practice: inverter heat-sink temperature rise"),
    ),
    "battery": (
        ("cell_temp_change_1h_k", "delta", ("cell_temp_c",), 1, 1.0, 0.0, ">=", 15.0, 1,
         "IEC 62485-5:2020 (thermal event precursor, practice)"),
        ("cell_rise_k", "diff", ("cell_temp_c", "ambient_c"), 0, 1.0, 0.0, ">=", 15.0, 2, "IEC 62485-5:2020 (practice)"),
    ),
    "capacitor_bank": (("unbalance_change_24h_a", "delta", ("unbalance_current_a",), 24, 1.0, 0.0, ">=", 0.5, 1,
                        "IEEE C37.99-2012 (unbalance trend, practice)"),),
    "relay": (("trips_24h", "delta", ("trips_total",), 24, 1.0, 0.0, ">=", 3.0, 1, "practice: repeated trips"),),
    "rtu": (("packet_loss_mean_24h_pct", "mean", ("packet_loss_pct",), 24, 1.0, 0.0, ">=", 3.0, 1,
             "IEC 61850-5:2013 (communication availability, practice)"),),
}
_SPECIAL_DERIVED: dict[str, tuple[_D, ...]] = {
    "fan_current_a": (("fan_current_ratio_a", "ratio", ("fan_current_a", "fans_on"), 0, 1.0, 0.5, "<=", 1.0, 2,
                       "practice: cooling-fan supervision (fans commanded on, no fan current)"),),
    "sf6_density_pu": (("sf6_density_change_720h_pu", "delta", ("sf6_density_pu",), 720, 1.0, 0.0, "<=", -0.005, 1,
                        "IEC 62271-1:2017 5.17 (relative leakage rate <= 0.5 %/year; practice trend)"),),
}

#: Rules on the metrics added with issue 22's special metrics, keyed by metric (same tuple forms
#: as :data:`_SPECIAL_EXTRA` and :data:`_SPECIAL_DERIVED`). They are appended after every older
#: rule of a type so that the older rules keep their ids (K1, K2, ...) and with them their
#: alarms' and work orders' ids and delays.
_LATE_EXTRA: dict[str, tuple[_T, ...]] = {
    "oltc_contact_wear_pct": (("oltc_contact_wear_pct", ">=", 80.0, 60.0, 1,
                               "IEC 60214-1:2014 (tap-changer arcing contacts; practice: replace at 80 % of the "
                               "manufacturer's contact-wear allowance)"),),
    "bushing_tan_delta_pct": (("bushing_tan_delta_pct", ">=", 1.0, 0.7, 2,
                               "IEC 60137:2017 (OIP bushing tan delta 0.7 % at acceptance); practice: investigate "
                               "at 1 % in service (IEEE C57.19.100)"),),
    "sheath_voltage_v": (("sheath_voltage_v", ">=", 65.0, None, 3,
                          "IEEE 575-2014 (standing sheath voltage of single-point bonded cables, practice 65 V)"),),
    "differential_current_pu": (("differential_current_pu", ">=", 0.1, None, 3,
                                 "practice: differential-current supervision at half the typical 0.2 pu pickup "
                                 "(IEC 60255-187-1 operating characteristic)"),),
}
_LATE_DERIVED: dict[str, tuple[_D, ...]] = {
    "pump_flow_pu": (("pump_flow_ratio_pu", "ratio", ("pump_flow_pu", "pumps_on"), 0, 1.0, 0.5, "<=", 0.5, 2,
                      "practice: oil-pump supervision (pumps commanded on, no oil flow; the unit falls back to "
                      "its natural-oil rating, IEC 60076-7:2018 Table 5 cooling modes)"),),
}


def _pv_scale(variant: dict[str, str]) -> float:
    """Performance ratio = P_ac / (P_rated · G / 1000 W/m²) (IEC 61724-1:2021 §10)."""
    kw = {"100kW": 100.0, "500kW": 500.0, "1MW": 1000.0}[variant["rating"]]
    return 1000.0 / kw


#: Criticality scaling of thresholds: a "high" criticality device alarms earlier.
CRITICALITY = ("high", "normal")


def _threshold(device_class: str, variant: dict[str, str], metric: str, level: str, value: Any) -> float:
    if device_class == "cable" and metric == "conductor_temp_c":
        limit = 90.0 if variant["insulation"] == "XLPE" else 65.0
        return limit if level == "alarm" else limit - 10.0
    return float(value)


def _rules_for(type_id: str, device_class: str, variant: dict[str, str], metrics: tuple[Metric, ...]) -> tuple[Rule, ...]:
    rules: list[Rule] = []
    names = {m.name: m for m in metrics}
    templates = list(RULE_TEMPLATES[device_class])
    if "sf6_density_pu" in names:
        templates.append(("sf6_density_pu", "<=", 0.90, 0.95, 2, "practice: SF6 density alarm at 90 % of rated fill"))
    for metric, op, alarm, warning, n_alarm, source in templates:
        oc = names[metric].object_class
        for level, value, n in (("alarm", alarm, n_alarm), ("warning", warning, 1)):
            thr = _threshold(device_class, variant, metric, level, value)
            rules.append(Rule("", type_id, metric, oc, (), (metric,), op, thr, n, level, source))
            if level == "alarm":
                # a stricter alarm for high-criticality sites (practice)
                tight = thr * (0.95 if op == ">=" else 1.05) if thr != 0 else thr
                rules.append(Rule("", type_id, metric, oc, (("criticality", ("high",)),), (metric,), op, round(tight, 4),
                                  n + 1, level, source + "; stricter for high-criticality sites (practice)"))
    extra = list(EXTRA_TEMPLATES.get(device_class, ()))
    for m in metrics:
        extra += list(_SPECIAL_EXTRA.get(m.name, ()))
    for metric, op, alarm, warning, n_alarm, source in extra:
        oc = names[metric].object_class
        for level, value, n in (("alarm", alarm, n_alarm), ("warning", warning, 1)):
            if value is not None:
                rules.append(Rule("", type_id, metric, oc, (), (metric,), op, float(value), n, level, source))
    derived = list(DERIVED_TEMPLATES.get(device_class, ()))
    for m in metrics:
        derived += list(_SPECIAL_DERIVED.get(m.name, ()))
    late: list[Rule] = []
    derived_late: list[_D] = []
    for m in metrics:
        for metric, op, alarm, warning, n_alarm, source in _LATE_EXTRA.get(m.name, ()):
            for level, value, n in (("alarm", alarm, n_alarm), ("warning", warning, 1)):
                if value is not None:
                    late.append(Rule("", type_id, metric, names[metric].object_class, (), (metric,), op, float(value),
                                     n, level, source))
        derived_late += list(_LATE_DERIVED.get(m.name, ()))

    def derived_rules(templates: list[_D]) -> list[Rule]:
        out = []
        for name, kind, inputs, window, scale, level_, op, thr, n, source in templates:
            sc = _pv_scale(variant) if scale is None else float(scale)
            if thr is None:  # the hot-spot gradient limit follows the cooling mode's H·gr
                thr = round(1.5 * COOLING[variant["cooling"]]["hgr"], 4)
            oc = "special" if any(names[i].object_class == "special" for i in inputs) else "common"
            out.append(Rule("", type_id, name, oc, (), tuple(inputs), op, float(thr), n, "alarm", source,
                            kind, int(window), sc, float(level_)))
        return out

    rules += derived_rules(derived) + late + derived_rules(derived_late)
    return tuple(Rule(f"K{i + 1}", r.type_id, r.target_metric, r.object_class, r.applicability, r.inputs, r.op,
                      r.threshold, r.consecutive_points, r.severity, r.source, r.derive, r.window_h, r.scale, r.level)
                 for i, r in enumerate(rules))


def _product(axes: dict[str, tuple[str, ...]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = [{}]
    for k, vals in axes.items():
        out = [dict(d, **{k: v}) for d in out for v in vals]
    return out


def build_catalog() -> tuple[DeviceType, ...]:
    """All device types, in a fixed order (the order is part of the world's bytes)."""
    types: list[DeviceType] = []
    for cls, axes in VARIANTS.items():
        for variant in _product(axes):
            tid = "-".join([cls.upper().replace("_", "")[:6]] + [v.replace("/", "_").replace(".", "p") for v in variant.values()])
            metrics = list(CLASS_METRICS[cls])
            seen = {m.name for m in metrics}
            for axis, val in variant.items():
                for m in SPECIAL.get((cls, axis, val), ()):
                    if m.name not in seen:
                        metrics.append(m)
                        seen.add(m.name)
            mt = tuple(metrics)
            types.append(DeviceType(tid, cls, variant, mt, CONFIG_FIELDS, _rules_for(tid, cls, variant, mt)))
    return tuple(types)
