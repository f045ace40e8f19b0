"""cable_ampacity_sizing — choose the smallest admissible LV cable cross-section (optimize).

A three-phase low-voltage circuit (design current, power factor, route length, ambient
temperature, number of grouped circuits, prospective fault current and clearing time) is to
be cabled with a copper multicore cable of the stated insulation, clipped direct on a wall
(IEC 60364-5-52 reference method C). The case carries the rows of the standard's tables that
apply. The agent returns the conductor cross-section — one of the tabulated sizes — and the
intermediate values of its sizing (both correction factors, the corrected capacity and the
voltage drop of the chosen size, the adiabatic minimum cross-section), each checked against
the recomputation. Constraints: corrected capacity I_z ≥ I_B; voltage drop ≤ the limit;
S ≥ I·√t/k. Objective: the cross-section (mm²); the smallest admissible size scores 1.

Sources: IEC 60364-5-52:2009 (Tables B.52.4, B.52.5, B.52.14, B.52.17 and Annex G),
IEC 60364-4-43:2008 (434.5.2 and Table 43A), IEC 60949 (adiabatic basis).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from psab.contract import Task
from psab.errors import InvalidTaskError, SolverError
from psab.evaluators import answer_schema as s
from psab.evaluators import input_checks as ic
from psab.registry import Assessment, FamilySpec, Generated, Reference, register
from psab.surrogates.cable import (
    K_ADIABATIC,
    REACTANCE_OHM_PER_M,
    RESISTIVITY_OHM_MM2_PER_M,
    adiabatic_min_size_mm2,
    corrected_capacity,
    table_value,
    voltage_drop_pct,
    voltage_drop_v,
)

FAMILY_ID = "cable_ampacity_sizing"
#: Most entries of any list in public_inputs (issue 32, item 4: lists had no bound): the public case
#: and the drawn ones hold at most 16.
MAX_INPUT_ITEMS = 500

# ---------------------------------------------------------------------------- the standard's tables
# Copied from the published standard (outside-the-code data); the public case carries them.

SIZES_MM2 = (1.5, 2.5, 4, 6, 10, 16, 25, 35, 50, 70, 95, 120, 150, 185, 240, 300)
#: IEC 60364-5-52:2009 Table B.52.4 (PVC, 70 °C) and B.52.5 (XLPE/EPR, 90 °C): copper, three
#: loaded conductors, reference method C, ambient 30 °C — current-carrying capacity in A.
CAPACITY_C_PVC_A = (17.5, 24, 32, 41, 57, 76, 96, 119, 144, 184, 223, 259, 299, 341, 403, 464)
CAPACITY_C_XLPE_A = (22, 30, 40, 52, 71, 96, 119, 147, 179, 229, 278, 322, 371, 424, 500, 576)
#: Table B.52.14: correction factors for ambient air temperatures other than 30 °C.
AMBIENT_C = (10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60)
K_TEMP_PVC = (1.22, 1.17, 1.12, 1.06, 1.00, 0.94, 0.87, 0.79, 0.71, 0.61, 0.50)
K_TEMP_XLPE = (1.15, 1.12, 1.08, 1.04, 1.00, 0.96, 0.91, 0.87, 0.82, 0.76, 0.71)
#: Table B.52.17, item 2: single layer on a wall, floor or unperforated cable tray (method C),
#: 1…9 circuits or multicore cables (no further reduction above 9).
GROUPING_WALL = (1.00, 0.85, 0.79, 0.75, 0.73, 0.72, 0.72, 0.71, 0.70)


def standard_tables() -> dict[str, Any]:
    """The table rows a case carries (the same for every case of the family)."""
    return {
        "current_carrying_capacity": {
            "source": "IEC 60364-5-52:2009 Table B.52.4 (PVC, 70 °C) and Table B.52.5 (XLPE/EPR, 90 °C): copper, three loaded conductors, reference method C, ambient 30 °C",
            "rows": [{"size_mm2": sz, "capacity_pvc_a": p, "capacity_xlpe_a": x}
                     for sz, p, x in zip(SIZES_MM2, CAPACITY_C_PVC_A, CAPACITY_C_XLPE_A, strict=True)],
        },
        "ambient_temperature_correction": {
            "source": "IEC 60364-5-52:2009 Table B.52.14: ambient air temperatures other than 30 °C",
            "rows": [{"ambient_c": t, "factor_pvc": p, "factor_xlpe": x}
                     for t, p, x in zip(AMBIENT_C, K_TEMP_PVC, K_TEMP_XLPE, strict=True)],
        },
        "grouping_reduction": {
            "source": "IEC 60364-5-52:2009 Table B.52.17, item 2: single layer on a wall, floor or unperforated cable tray (reference method C)",
            "rows": [{"circuits": n + 1, "factor": f} for n, f in enumerate(GROUPING_WALL)],
        },
        "adiabatic_k": {
            "source": "IEC 60364-4-43:2008 Table 43A: k in A·√s/mm², conductors up to 300 mm²",
            # Table 43A (conductors up to 300 mm²), from the surrogate's copy; the values are
            # whole numbers and the case writes them as such.
            "rows": [{"conductor": c, "insulation": i, "k": int(k) if float(k).is_integer() else k}
                     for (c, i), k in K_ADIABATIC.items()],
        },
    }


# ---------------------------------------------------------------------------- contract

DIAGNOSTICS = ("k_temperature", "k_grouping", "iz_a", "voltage_drop_pct", "s_min_short_circuit_mm2")


def submission_schema(inputs: dict[str, Any]) -> dict[str, Any]:
    sizes = [r["size_mm2"] for r in inputs["tables"]["current_carrying_capacity"]["rows"]]
    return s.submission(
        {
            "conductor_size_mm2": s.enum(sizes, "the phase-conductor cross-section, one of the tabulated sizes (mm²)",
                                         ru="сечение фазной жилы — одно из сечений таблицы (мм²)"),
            "k_temperature": s.number("ambient-temperature correction factor applied (Table B.52.14)",
                                      ru="поправочный коэффициент на температуру окружающей среды (таблица B.52.14)"),
            "k_grouping": s.number("grouping reduction factor applied (Table B.52.17)",
                                   ru="коэффициент снижения при групповой прокладке (таблица B.52.17)"),
            "iz_a": s.number("corrected current-carrying capacity I_z of the chosen size (A)",
                             ru="длительно допустимый ток I_z выбранного сечения с поправками (А)"),
            "voltage_drop_pct": s.number("voltage drop of the chosen size at the design current, % of U0",
                                         ru="потеря напряжения при выбранном сечении и расчётном токе, % от U0"),
            "s_min_short_circuit_mm2": s.number("adiabatic minimum cross-section I·√t/k (mm²)",
                                                ru="минимальное сечение по термической стойкости I·√t/k (мм²)"),
        },
        "cable cross-section and sizing values",
        ru="сечение кабеля и величины расчёта",
    )


PRESENTATION = {
    "en": {
        "title": "Low-voltage cable sizing by IEC 60364-5-52",
        "statement": (
            "Size the phase conductors of the three-phase circuit in public_inputs: a copper multicore cable "
            "with the stated insulation, installed by reference method C (clipped direct on a wall), carrying "
            "the design current I_B. Choose the smallest cross-section S among the tabulated sizes that meets "
            "all three requirements: (1) current-carrying capacity I_z = I_table(S) · k_temperature · "
            "k_grouping ≥ I_B, with I_table from the column of the cable's insulation in "
            "tables.current_carrying_capacity, k_temperature the row of ambient_temperature_c in "
            "tables.ambient_temperature_correction (column of the insulation) and k_grouping the row of "
            "grouped_circuits in tables.grouping_reduction; (2) voltage drop (IEC 60364-5-52 Annex G, "
            "three-phase b = 1) u = (ρ1 · L/S · cos φ + λ · L · sin φ) · I_B with ρ1 = "
            "resistivity_ohm_mm2_per_m, λ = reactance_ohm_per_m, L = length_m, cos φ = power_factor, and "
            "Δu = 100 · u / U0 ≤ voltage_drop_limit_pct, U0 = line_to_neutral_voltage_v as given (230 V, not "
            "nominal_voltage_v/√3 = 230.9 V); (3) adiabatic "
            "short-circuit withstand S ≥ I_k · √t / k with I_k = fault_current_ka, t = "
            "fault_clearing_time_s and k from tables.adiabatic_k for the conductor and insulation. Report the "
            "size and the values of your sizing: k_temperature, k_grouping, the corrected capacity I_z and "
            "the voltage drop Δu of the chosen size, and the adiabatic minimum I_k·√t/k. Conventions: "
            "the table rows are used as given (the case's ambient temperature and number of circuits are rows "
            "of the tables; no interpolation); I_k is fault_current_ka in amperes (× 1000); the voltage drop "
            "is at I_B (not at I_z); s_min_short_circuit_mm2 is the unrounded I_k·√t/k; where the case gives "
            "the load as load_active_power_kw instead of design_current_a, I_B = P/(√3·U_n·cos φ) with "
            "U_n = nominal_voltage_v and cos φ = power_factor; every requirement holds with equality allowed."
        ),
        "answer_notes": (
            "The sizing values must match the recomputation within 0.1 %. A larger admissible size is "
            "feasible but scores 1 − (S − S_min)/S_min; an inadmissible size scores 0."
        ),
    },
    "ru": {
        "title": "Выбор сечения кабеля низкого напряжения по МЭК 60364-5-52",
        "statement": (
            "Выберите сечение фазных жил трёхфазной цепи из public_inputs: многожильный кабель с медными "
            "жилами и указанной изоляцией, проложенный способом C (непосредственно на стене), по которому "
            "протекает расчётный ток I_B. Выберите наименьшее сечение S из табличного ряда, "
            "удовлетворяющее трём требованиям: (1) длительно допустимый ток I_z = I_табл(S) · "
            "k_temperature · k_grouping ≥ I_B, где I_табл берётся из столбца для изоляции кабеля в "
            "tables.current_carrying_capacity, k_temperature — поправочный коэффициент на температуру "
            "окружающей среды из строки ambient_temperature_c таблицы tables.ambient_temperature_correction "
            "(столбец изоляции), k_grouping — коэффициент снижения при групповой прокладке из строки "
            "grouped_circuits таблицы tables.grouping_reduction; (2) потеря напряжения (МЭК 60364-5-52, "
            "приложение G, трёхфазная цепь, b = 1) u = (ρ1 · L/S · cos φ + λ · L · sin φ) · I_B, где ρ1 = "
            "resistivity_ohm_mm2_per_m, λ = reactance_ohm_per_m, L = length_m, cos φ = power_factor, и "
            "Δu = 100 · u / U0 ≤ voltage_drop_limit_pct, где U0 = line_to_neutral_voltage_v — фазное "
            "напряжение, как задано (230 В, а не nominal_voltage_v/√3 = 230,9 В); (3) термическая стойкость при коротком замыкании (адиабатический режим) "
            "S ≥ I_k · √t / k, где I_k = fault_current_ka, t = fault_clearing_time_s, а k берётся из "
            "tables.adiabatic_k для материала жилы и изоляции. Укажите сечение и промежуточные величины "
            "расчёта: k_temperature, k_grouping, допустимый ток I_z и потерю напряжения Δu для выбранного "
            "сечения, а также минимальное сечение по термической стойкости I_k·√t/k. Условия: строки таблиц "
            "используются как заданы (температура окружающей среды и число цепей задачи — строки таблиц, без "
            "интерполяции); I_k — fault_current_ka в амперах (× 1000); потеря напряжения — при I_B (а не при "
            "I_z); s_min_short_circuit_mm2 — I_k·√t/k без округления; если нагрузка задана мощностью "
            "load_active_power_kw вместо design_current_a, то I_B = P/(√3·U_n·cos φ), где U_n = "
            "nominal_voltage_v, cos φ = power_factor; каждое требование допускает равенство."
        ),
        "answer_notes": (
            "Промежуточные величины должны совпасть с перерасчётом с точностью 0,1 %. Большее допустимое "
            "сечение считается допустимым решением, но получает оценку 1 − (S − S_min)/S_min; "
            "недопустимое сечение — 0."
        ),
        "hard_constraints": (
            "conductor_size_mm2 — одно из сечений таблицы",
            "I_z = I_табл · k_temperature · k_grouping ≥ design_current_a для выбранного сечения",
            "потеря напряжения Δu = 100 · (ρ1·L/S·cos φ + λ·L·sin φ)·I_B / U0 ≤ voltage_drop_limit_pct",
            "S ≥ I_k · √t / k (термическая стойкость при КЗ, адиабатический нагрев)",
            "k_temperature, k_grouping, iz_a, voltage_drop_pct и s_min_short_circuit_mm2 совпадают с пересчётом в пределах 0,1 %",
        ),
    },
}

def _table(row: dict[str, Any]) -> dict[str, Any]:
    return s.obj({"source": {"type": "string"}, "rows": s.array(s.obj(row), "the table's rows", min_items=1)}, optional=("source",))


#: The shape of public_inputs (a task that does not fit raises InvalidTaskError).
INPUTS_SCHEMA = s.obj({
    "circuit": {"type": "string"}, "installation": {"type": "string"}, "installation_method": s.ID,
    "system": {"const": "three_phase"}, "conductor_material": s.ID, "insulation": {"enum": ["PVC", "XLPE"]},
    "loaded_conductors": {"type": "integer", "minimum": 1},
    "nominal_voltage_v": s.POSITIVE, "line_to_neutral_voltage_v": s.POSITIVE,
    "design_current_a": s.POSITIVE, "load_active_power_kw": s.POSITIVE, "power_factor": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    "length_m": s.POSITIVE, "resistivity_ohm_mm2_per_m": s.POSITIVE, "reactance_ohm_per_m": s.NONNEGATIVE,
    "voltage_drop_limit_pct": s.POSITIVE, "ambient_temperature_c": s.NUMBER, "grouped_circuits": {"type": "integer", "minimum": 1},
    "fault_current_ka": s.POSITIVE, "fault_clearing_time_s": s.POSITIVE,
    "tables": s.obj({
        "current_carrying_capacity": _table({"size_mm2": s.POSITIVE, "capacity_pvc_a": s.POSITIVE, "capacity_xlpe_a": s.POSITIVE}),
        "ambient_temperature_correction": _table({"ambient_c": s.NUMBER, "factor_pvc": s.POSITIVE, "factor_xlpe": s.POSITIVE}),
        "grouping_reduction": _table({"circuits": {"type": "integer", "minimum": 1}, "factor": s.POSITIVE}),
        "adiabatic_k": _table({"conductor": s.ID, "insulation": s.ID, "k": s.POSITIVE}),
    }),
}, optional=("circuit", "installation", "design_current_a", "load_active_power_kw"))


def input_problems(inputs: dict[str, Any]) -> list[str]:
    """The load given once (as I_B or as active power), distinct tabulated sizes, and a row in each table for the case's ambient temperature,
    number of grouped circuits and conductor/insulation pair (tables are read, never
    interpolated)."""
    p = ic.Problems()
    if ("design_current_a" in inputs) == ("load_active_power_kw" in inputs):
        p.add("/design_current_a", "give exactly one of design_current_a and load_active_power_kw (the load)")
    tables = inputs["tables"]
    sizes = [r["size_mm2"] for r in tables["current_carrying_capacity"]["rows"]]
    if len(set(sizes)) != len(sizes):
        p.add("/tables/current_carrying_capacity/rows", "the tabulated sizes must be distinct")
    lookups = (("/ambient_temperature_c", "ambient_temperature_correction", "ambient_c", inputs["ambient_temperature_c"]),
               ("/grouped_circuits", "grouping_reduction", "circuits", inputs["grouped_circuits"]))
    for ptr, table, key, at in lookups:
        try:
            table_value(tables[table]["rows"], key, at, key)
        except KeyError:
            p.add(ptr, f"tables.{table} has no row with {key} = {at!r}")
    if not any(r["conductor"] == inputs["conductor_material"] and r["insulation"] == inputs["insulation"]
               for r in tables["adiabatic_k"]["rows"]):
        p.add("/conductor_material", f"tables.adiabatic_k has no row for {inputs['conductor_material']}/{inputs['insulation']}")
    return p


# ---------------------------------------------------------------------------- physics


@dataclass(frozen=True)
class SizeCheck:
    """One cross-section judged against the three requirements."""

    size_mm2: float
    iz_a: float
    voltage_drop_pct: float
    capacity_ok: bool
    voltage_drop_ok: bool
    short_circuit_ok: bool

    @property
    def admissible(self) -> bool:
        return self.capacity_ok and self.voltage_drop_ok and self.short_circuit_ok


@dataclass(frozen=True)
class SizingProblem:
    sizes: tuple[float, ...]
    capacity_a: tuple[float, ...]
    k_temperature: float
    k_grouping: float
    k_adiabatic: float
    s_min_short_circuit_mm2: float
    design_current_a: float
    length_m: float
    power_factor: float
    resistivity: float
    reactance: float
    u0_v: float
    limit_pct: float

    def check(self, size_mm2: float) -> SizeCheck:
        i = self.sizes.index(size_mm2)
        iz = corrected_capacity(self.capacity_a[i], self.k_temperature, self.k_grouping)
        u = voltage_drop_v(self.design_current_a, self.length_m, size_mm2, self.power_factor,
                           resistivity_ohm_mm2_per_m=self.resistivity, reactance_ohm_per_m=self.reactance, b=1.0)
        du = voltage_drop_pct(u, self.u0_v)
        return SizeCheck(size_mm2, iz, du, iz >= self.design_current_a, du <= self.limit_pct,
                         size_mm2 >= self.s_min_short_circuit_mm2)


def sizing_problem(inputs: dict[str, Any], u0_from_nominal: bool = False) -> SizingProblem:
    """Read the case's table rows for its insulation, ambient and grouping.

    The voltage drop is in % of the given line_to_neutral_voltage_v (the case's U0, 230 V of a
    230/400 V system by IEC 60038 Table 1); ``u0_from_nominal`` is the other reading,
    U0 = nominal_voltage_v/√3 (230.9 V), for :func:`other_readings` only."""
    tables = inputs["tables"]
    insulation = inputs["insulation"]
    column = {"PVC": "pvc", "XLPE": "xlpe"}.get(insulation)
    if column is None or inputs.get("system") != "three_phase":
        raise InvalidTaskError(f"{FAMILY_ID}: insulation must be PVC or XLPE and system three_phase")
    rows = tables["current_carrying_capacity"]["rows"]
    try:
        k_t = table_value(tables["ambient_temperature_correction"]["rows"], "ambient_c", inputs["ambient_temperature_c"], f"factor_{column}")
        k_g = table_value(tables["grouping_reduction"]["rows"], "circuits", inputs["grouped_circuits"], "factor")
    except KeyError as exc:
        raise InvalidTaskError(f"{FAMILY_ID}: the case's tables have no row for it ({exc})") from None
    k = next((float(r["k"]) for r in tables["adiabatic_k"]["rows"]
              if r["conductor"] == inputs["conductor_material"] and r["insulation"] == insulation), None)
    if k is None:
        raise InvalidTaskError(f"{FAMILY_ID}: tables.adiabatic_k has no row for {inputs['conductor_material']}/{insulation}")
    return SizingProblem(
        sizes=tuple(r["size_mm2"] for r in rows),
        capacity_a=tuple(float(r[f"capacity_{column}_a"]) for r in rows),
        k_temperature=k_t,
        k_grouping=k_g,
        k_adiabatic=k,
        s_min_short_circuit_mm2=adiabatic_min_size_mm2(float(inputs["fault_current_ka"]) * 1e3, float(inputs["fault_clearing_time_s"]), k),
        design_current_a=design_current_a(inputs),
        length_m=float(inputs["length_m"]),
        power_factor=float(inputs["power_factor"]),
        resistivity=float(inputs["resistivity_ohm_mm2_per_m"]),
        reactance=float(inputs["reactance_ohm_per_m"]),
        u0_v=(float(inputs["nominal_voltage_v"]) / 3.0 ** 0.5 if u0_from_nominal
              else float(inputs["line_to_neutral_voltage_v"])),
        limit_pct=float(inputs["voltage_drop_limit_pct"]),
    )


def design_current_a(inputs: dict[str, Any]) -> float:
    """I_B: given, or from the load's active power at the nominal (line) voltage (level 2)."""
    if "design_current_a" in inputs:
        return float(inputs["design_current_a"])
    if "load_active_power_kw" not in inputs:
        raise InvalidTaskError(f"{FAMILY_ID}: public_inputs needs design_current_a or load_active_power_kw")
    return float(inputs["load_active_power_kw"]) * 1e3 / (3.0 ** 0.5 * float(inputs["nominal_voltage_v"]) * float(inputs["power_factor"]))


def smallest_admissible(p: SizingProblem) -> SizeCheck:
    for size in sorted(p.sizes):
        c = p.check(size)
        if c.admissible:
            return c
    raise SolverError(f"{FAMILY_ID}: no tabulated cross-section meets all three requirements")


def _answer(p: SizingProblem, c: SizeCheck) -> dict[str, Any]:
    return {
        "conductor_size_mm2": c.size_mm2,
        "k_temperature": p.k_temperature,
        "k_grouping": p.k_grouping,
        "iz_a": c.iz_a,
        "voltage_drop_pct": c.voltage_drop_pct,
        "s_min_short_circuit_mm2": p.s_min_short_circuit_mm2,
    }


def other_readings(task: Task) -> list[tuple[str, dict[str, Any]]]:
    """The answer under the other reading of the voltage-drop base: U0 = nominal_voltage_v/√3
    instead of the given line_to_neutral_voltage_v (Δu 0.4 % smaller at 400/230 V)."""
    inputs = task.public_inputs
    if "nominal_voltage_v" not in inputs:
        return []
    p = sizing_problem(inputs, u0_from_nominal=True)
    try:
        return [("u0_from_nominal_voltage", _answer(p, smallest_admissible(p)))]
    except SolverError:
        return []


def solve(task: Task, backend: str) -> Reference:
    p = sizing_problem(task.public_inputs)
    c = smallest_admissible(p)
    return Reference(answer=_answer(p, c), objective=float(c.size_mm2),
                     method="smallest tabulated size meeting capacity, voltage drop and adiabatic withstand")


def evaluate(task: Task, answer: dict[str, Any], ctx: Any) -> Assessment:
    p = sizing_problem(task.public_inputs)
    size = answer["conductor_size_mm2"]
    c = p.check(size)
    checks = ctx.checks()
    checks.close("/k_temperature", p.k_temperature, answer["k_temperature"], "ambient-temperature factor (Table B.52.14)")
    checks.close("/k_grouping", p.k_grouping, answer["k_grouping"], "grouping factor (Table B.52.17)")
    checks.close("/iz_a", c.iz_a, answer["iz_a"], "corrected capacity of the chosen size")
    checks.close("/voltage_drop_pct", c.voltage_drop_pct, answer["voltage_drop_pct"], "voltage drop of the chosen size")
    checks.close("/s_min_short_circuit_mm2", p.s_min_short_circuit_mm2, answer["s_min_short_circuit_mm2"], "adiabatic minimum cross-section")
    checks.at_least("/conductor_size_mm2", c.iz_a, p.design_current_a,
                    "corrected current-carrying capacity I_z must be at least the design current I_B (A)", slack="capacity_a")
    checks.at_most("/conductor_size_mm2", c.voltage_drop_pct, p.limit_pct,
                   "voltage drop Δu must not exceed voltage_drop_limit_pct (%)", slack="voltage_drop_pct")
    checks.at_least("/conductor_size_mm2", float(size), p.s_min_short_circuit_mm2,
                    "cross-section must be at least the adiabatic minimum I·√t/k (mm²)", slack="size_mm2")
    return Assessment(
        violations=checks.violations,
        objective=float(size),
        evidence={
            "iz_a": c.iz_a, "voltage_drop_pct": c.voltage_drop_pct, "s_min_short_circuit_mm2": p.s_min_short_circuit_mm2,
            "k_temperature": p.k_temperature, "k_grouping": p.k_grouping, "k_adiabatic": p.k_adiabatic,
            "per_size": [{"size_mm2": x.size_mm2, "iz_a": x.iz_a, "voltage_drop_pct": x.voltage_drop_pct,
                          "admissible": x.admissible} for x in map(p.check, p.sizes)],
        },
    )


# ---------------------------------------------------------------------------- held-out draws


def case_inputs(**values: Any) -> dict[str, Any]:
    """A case from its circuit values, with the standard's table rows attached."""
    out = {
        "circuit": values.pop("circuit"),
        "system": "three_phase",
        "nominal_voltage_v": 400.0,
        "line_to_neutral_voltage_v": 230.0,
        "conductor_material": "copper",
        "installation_method": "C",
        "installation": "multicore cable clipped direct on a wall (reference method C), single layer with the other circuits",
        "loaded_conductors": 3,
        "resistivity_ohm_mm2_per_m": RESISTIVITY_OHM_MM2_PER_M["copper"],
        "reactance_ohm_per_m": REACTANCE_OHM_PER_M,
    }
    out.update(values)
    out["tables"] = standard_tables()
    return out


def generate(public: Task, rng: np.random.Generator, level: int = 1) -> Generated:
    """Redraw insulation, design current, power factor, route length, ambient temperature (a
    table row), grouping, voltage-drop limit, fault current and clearing time; keep draws with
    an admissible tabulated size above the smallest.

    Level 2 gives the load as an engineer receives it — its active power in kW at the stated
    power factor (I_B to be derived at the nominal voltage) — on a long route with a tight
    voltage-drop limit and a stiff source with a slow clearing time, so that the three
    requirements compete and the deciding one varies."""
    for _ in range(100):
        insulation = str(rng.choice(["PVC", "XLPE"]))
        if level >= 2:
            pf = round(float(rng.uniform(0.75, 0.95)), 2)
            p_kw = round(float(rng.uniform(15.0, 200.0)), 1)
            values: dict[str, Any] = {"load_active_power_kw": p_kw, "power_factor": pf}
            i_b = p_kw * 1e3 / (3.0 ** 0.5 * 400.0 * pf)
            length, limit = round(float(rng.uniform(60.0, 400.0)), 0), float(rng.choice([2.0, 3.0, 4.0]))
            fault = round(float(rng.uniform(4.0, 10.0 + i_b / 10.0)), 1)
            t_clear = float(rng.choice([0.2, 0.4, 0.5, 0.8, 1.0]))
        else:
            design_current = round(float(rng.uniform(16.0, 320.0)), 0)
            values = {"design_current_a": design_current, "power_factor": round(float(rng.uniform(0.75, 0.97)), 2)}
            length = round(float(rng.uniform(20.0, 300.0)), 0)
        ambient = float(rng.choice([25, 30, 35, 40, 45, 50]))
        grouped = int(rng.integers(1, 7))
        if level == 1:
            limit = float(rng.choice([3.0, 4.0, 5.0]))
            # larger circuits sit nearer stiffer sources; sub-main devices clear within 0.1–0.5 s
            fault = round(float(rng.uniform(2.0, 6.0 + design_current / 15.0)), 1)
            t_clear = float(rng.choice([0.1, 0.1, 0.2, 0.3, 0.4, 0.5]))
        inputs = case_inputs(
            circuit="three-phase 400/230 V TN-S sub-main to a distribution board",
            insulation=insulation,
            **values,
            length_m=length,
            ambient_temperature_c=ambient,
            grouped_circuits=grouped,
            voltage_drop_limit_pct=limit,
            fault_current_ka=fault,
            fault_clearing_time_s=t_clear,
        )
        p = sizing_problem(inputs)
        try:
            c = smallest_admissible(p)
        except SolverError:
            continue
        if c.size_mm2 > min(p.sizes):
            return Generated(public_inputs=inputs)
    return Generated(public_inputs=dict(public.public_inputs))


def naive_answer(task: Task) -> dict[str, Any]:
    """The simplest reading: the smallest size whose corrected capacity carries I_B — the voltage
    drop and the adiabatic withstand left unchecked — with that size's sizing values."""
    p = sizing_problem(task.public_inputs)
    size = next((sz for sz in sorted(p.sizes) if p.check(sz).capacity_ok), max(p.sizes))
    return _answer(p, p.check(size))


EXPERT = {
    "en": {"statement": (
        "Size the phase conductors of the three-phase LV circuit in public_inputs (copper multicore cable, the "
        "stated insulation, reference method C) by IEC 60364-5-52:2009: the smallest tabulated cross-section whose "
        "current-carrying capacity corrected for ambient temperature (Table B.52.14) and grouping (Table B.52.17, "
        "item 2) carries the design current, whose voltage drop by Annex G (three-phase, with the case's "
        "resistivity and reactance, in % of the line-to-neutral voltage U0 — the case's line_to_neutral_voltage_v as given, "
        "not nominal_voltage_v/√3) is within voltage_drop_limit_pct, and "
        "which withstands the fault adiabatically by IEC 60364-4-43:2008 434.5.2 (k of Table 43A for the "
        "fault_current_ka and fault_clearing_time_s). Use the table rows the case carries (no interpolation); "
        "where the case gives load_active_power_kw instead of design_current_a, the design current is that "
        "balanced load at nominal_voltage_v and power_factor. Report the size, both correction factors, the "
        "corrected capacity and voltage drop of that size, and the unrounded adiabatic minimum cross-section.")},
    "ru": {"statement": (
        "Выберите сечение фазных жил трёхфазной цепи НН из public_inputs (многожильный кабель с медными жилами, "
        "указанная изоляция, способ прокладки C) по МЭК 60364-5-52:2009: наименьшее сечение табличного ряда, "
        "длительно допустимый ток которого с поправками на температуру окружающей среды (таблица B.52.14) и "
        "групповую прокладку (таблица B.52.17, п. 2) не меньше расчётного тока, потеря напряжения по приложению G "
        "(трёхфазная цепь, удельное сопротивление и реактивное сопротивление задачи, в % от фазного напряжения U0 — line_to_neutral_voltage_v задачи, как "
        "задано, а не nominal_voltage_v/√3) не превышает voltage_drop_limit_pct, а термическая стойкость при КЗ обеспечена по МЭК 60364-4-43:2008, "
        "п. 434.5.2 (k по таблице 43A, ток fault_current_ka, время fault_clearing_time_s). Используйте строки "
        "таблиц из задачи (без интерполяции); если вместо design_current_a задана load_active_power_kw, расчётный "
        "ток — ток этой симметричной нагрузки при nominal_voltage_v и power_factor. Укажите сечение, оба "
        "поправочных коэффициента, допустимый ток и потерю напряжения для этого сечения и неокруглённое "
        "минимальное сечение по термической стойкости.")},
}

JUDGED_BY = {
    "surrogate": {
        "en": ("Judged by recomputing the three requirements from the case's table rows for the chosen size: "
               "feasible when I_z ≥ I_B, Δu ≤ the limit and S ≥ I_k·√t/k, with every sizing value within 0.1 %; "
               "score 1 for the smallest admissible size, 1 − (S − S_min)/S_min for a larger admissible one."),
        "ru": ("Проверяется пересчётом трёх требований по строкам таблиц задачи для выбранного сечения: решение "
               "допустимо, если I_z ≥ I_B, Δu не больше предела и S ≥ I_k·√t/k, а каждая величина расчёта "
               "совпадает с точностью 0,1 %; оценка 1 для наименьшего допустимого сечения, "
               "1 − (S − S_min)/S_min для большего допустимого."),
    },
}


def accept(task: Task, ref: Reference) -> str | None:
    """Reject draws where a requirement sits within 0.5 % of its limit for the chosen size or
    the next smaller one: a careful engineer's rounding must not flip the verdict."""
    p = sizing_problem(task.public_inputs)
    ordered = sorted(p.sizes)
    i = ordered.index(ref.answer["conductor_size_mm2"])
    for size in ordered[max(0, i - 1): i + 1]:
        c = p.check(size)
        for got, limit in ((c.iz_a, p.design_current_a), (c.voltage_drop_pct, p.limit_pct), (size, p.s_min_short_circuit_mm2)):
            if abs(got - limit) <= 0.005 * abs(limit):
                return f"size {size} mm² lies within 0.5 % of a limit ({got:.4g} vs {limit:.4g})"
    return None


SPEC = register(
    FamilySpec(
        id=FAMILY_ID,
        area="short_circuit_protection",
        scoring_kind="optimize",
        confidence="high",
        version="1",
        provenance=(
            {
                "title": "IEC 60364-5-52:2009 Low-voltage electrical installations – Part 5-52: Selection and erection of electrical equipment – Wiring systems",
                "locator": "clause 523 and Annex B: Tables B.52.4 and B.52.5 (method C, copper, three loaded conductors), Table B.52.14 (ambient air temperature), Table B.52.17 item 2 (grouping, single layer on a wall); Annex G (voltage drop)",
                "note": "The case carries the published table rows; I_z = I_table·k_temperature·k_grouping and Δu = 100·(ρ1·L/S·cos φ + λ·L·sin φ)·I_B/U0 are applied directly.",
                "confidence": "high",
            },
            {
                "title": "IEC 60364-4-43:2008 Low-voltage electrical installations – Part 4-43: Protection for safety – Protection against overcurrent",
                "locator": "434.5.2 (t = (k·S/I)²) and Table 43A (k = 115 Cu/PVC, 143 Cu/XLPE, 76 Al/PVC, 94 Al/XLPE)",
                "note": "The adiabatic short-circuit withstand S ≥ I·√t/k for clearing times up to 5 s; IEC 60949 gives the adiabatic basis.",
                "confidence": "high",
            },
        ),
        submission_schema=submission_schema,
        hard_constraints=(
            "conductor_size_mm2 is one of the tabulated sizes",
            "I_z = I_table · k_temperature · k_grouping ≥ design_current_a for the chosen size",
            "voltage drop Δu = 100 · (ρ1·L/S·cos φ + λ·L·sin φ)·I_B / U0 ≤ voltage_drop_limit_pct",
            "S ≥ I_k · √t / k (adiabatic short-circuit withstand)",
            "k_temperature, k_grouping, iz_a, voltage_drop_pct and s_min_short_circuit_mm2 match the recomputation within 0.1 %",
        ),
        metrics=(
            {"name": "iz_a", "direction": "maximize", "description": "corrected current-carrying capacity of the chosen size", "unit": "A"},
            {"name": "voltage_drop_pct", "direction": "minimize", "description": "voltage drop of the chosen size", "unit": "%"},
        ),
        tolerances={
            "relative": 1e-3,
            "absolute_floors": {"default": 1e-4, "/iz_a": 0.05, "/voltage_drop_pct": 1e-3, "/s_min_short_circuit_mm2": 0.01},
            "feasibility": {"capacity_a": 1e-6, "voltage_drop_pct": 1e-6, "size_mm2": 1e-9},
            "objective": {"relative": 1e-9, "absolute": 1e-9},
        },
        presentation=PRESENTATION,
        backends=("surrogate",),
        solve=solve,
        evaluate=evaluate,
        generate=generate,
        inputs_schema=ic.bounded(INPUTS_SCHEMA, MAX_INPUT_ITEMS),
        validate_inputs=input_problems,
        objective_sense="minimize",
        objective_unit="mm²",
        objective_scale_floor=1.0,
        accept=accept,
        expert=EXPERT,
        judged_by=JUDGED_BY,
        levels=(1, 2),
        naive_answer=naive_answer,
        other_readings=other_readings,
    )
)
