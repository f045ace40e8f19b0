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
                "severity": self.severity, "source": self.source}


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
                      "tap_position", "step"),
    "breaker": _m("current_a", "A", "current_pu", "pu", "ambient_c", "degC", "operations_total", "count",
                  "operations_since_maint", "count", "trips_24h", "count", "interrupted_ka2_sum", "kA2",
                  "mechanism_temp_c", "degC"),
    "disconnector": _m("current_a", "A", "current_pu", "pu", "ambient_c", "degC", "contact_temp_c", "degC", "operations_total", "count"),
    "instrument_transformer": _m("current_a", "A", "voltage_kv", "kV", "ambient_c", "degC",
                                 "insulation_temp_c", "degC", "ratio_error_pct", "%"),
    "arrester": _m("voltage_kv", "kV", "ambient_c", "degC", "leakage_resistive_ma", "mA", "surge_count", "count"),
    "cable": _m("current_a", "A", "ambient_c", "degC", "conductor_temp_c", "degC", "sheath_current_a", "A",
                "partial_discharge_pc", "pC"),
    "line": _m("current_a", "A", "ambient_c", "degC", "conductor_temp_c", "degC", "wind_speed_ms", "m/s", "sag_m", "m"),
    "pv_inverter": _m("irradiance_wm2", "W/m2", "ambient_c", "degC", "ac_power_kw", "kW", "inverter_temp_c", "degC",
                      "efficiency_pu", "pu"),
    "battery": _m("power_kw", "kW", "soc_pu", "pu", "ambient_c", "degC", "cell_temp_c", "degC",
                  "equivalent_cycles", "count", "soh_pu", "pu"),
    "capacitor_bank": _m("voltage_pu", "pu", "ambient_c", "degC", "reactive_mvar", "Mvar", "steps_in_service", "count",
                         "unbalance_current_a", "A", "switching_ops", "count"),
    "relay": _m("current_a", "A", "ambient_c", "degC", "pickups_total", "count", "trips_total", "count",
                "self_test_ok", "bool", "cpu_temp_c", "degC"),
    "rtu": _m("ambient_c", "degC", "cpu_temp_c", "degC", "comm_latency_ms", "ms", "packet_loss_pct", "%",
              "supply_voltage_v", "V"),
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
    ("transformer", "cooling", "ONAF"): (Metric("fans_on", "bool", "special"),),
    ("transformer", "cooling", "OFAF"): (Metric("fans_on", "bool", "special"), Metric("pumps_on", "bool", "special")),
    ("transformer", "cooling", "ODAF"): (Metric("fans_on", "bool", "special"), Metric("pumps_on", "bool", "special")),
    ("breaker", "medium", "SF6"): (Metric("sf6_density_pu", "pu", "special"),),
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
            # the type-wide rule, and one per criticality with a stricter margin on "high"
            rules.append(Rule("", type_id, metric, oc, (), (metric,), op, thr, n, level, source))
            for crit in CRITICALITY:
                if crit == "normal":
                    continue
                tight = thr * (0.95 if op == ">=" else 1.05) if thr != 0 else thr
                rules.append(Rule("", type_id, metric, oc, (("criticality", (crit,)),), (metric,), op, round(tight, 4),
                                  n + 1, level, source + "; stricter for high-criticality sites (practice)"))
    return tuple(Rule(f"K{i + 1}", r.type_id, r.target_metric, r.object_class, r.applicability, r.inputs, r.op,
                      r.threshold, r.consecutive_points, r.severity, r.source) for i, r in enumerate(rules))


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
