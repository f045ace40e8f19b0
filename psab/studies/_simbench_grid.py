"""SimBench grids for the hosting-capacity study: the CSV folder an agent gets, and the arrays psab derives from it.

The ``simbench`` package (Meinecke et al., "SimBench — a benchmark dataset of electric power
systems to compare innovative solutions based on power flow analysis", Energies 13(12) 3290,
2020; data version 1.0.x as shipped with simbench 1.6) carries the complete dataset. For one grid
code psab extracts that grid's tables with simbench's own functions
(``get_relevant_subnets`` → ``get_extracted_csv_data`` → ``filter_unapplied_profiles``) and
writes them with simbench's CSV writer (``write2csv``, ``;``-separated, 12 significant digits):
that folder *is* the agent's model (``Node.csv``, ``Line.csv``, ``Transformer.csv``, ``Load.csv``,
``RES.csv``, ``LoadProfile.csv``, ``RESProfile.csv``, the type tables, ...), checked by sha256.
psab itself reads the very same folder back (``simbench.csv2pp``) and derives its arrays from it,
so the agent and the evaluator start from identical numbers.

Everything derived is cached under ``~/.cache/psab/studies/`` (``PSAB_CACHE_DIR`` overrides):
the CSV folder per grid code, and an ``.npz`` of bus-aggregated yearly injections per folder
digest. Nothing here is committed to the repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

#: SimBench's year: 2016, a leap year, 366 days × 96 quarter hours.
N_STEPS = 35136
STEP_H = 0.25
S_BASE_MVA = 1.0
F_HZ = 50.0
_LOCK = threading.RLock()


def cache_root() -> Path:
    root = os.environ.get("PSAB_CACHE_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "psab"
    return base / "studies"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def csv_folder(code: str) -> Path:
    """The grid's SimBench CSV folder (written once into the cache by simbench's own writer)."""
    folder = cache_root() / "simbench" / code
    if (folder / ".complete").is_file():
        return folder
    with _LOCK:
        if (folder / ".complete").is_file():
            return folder
        from simbench import complete_data_path, get_simbench_code_and_parameters, write2csv
        from simbench.networks.extract_simbench_grids_from_csv import (
            filter_loadcases,
            filter_unapplied_profiles,
            get_extracted_csv_data,
            get_relevant_subnets,
        )

        _, par = get_simbench_code_and_parameters(code)
        src = complete_data_path(par[5])
        data = get_extracted_csv_data(get_relevant_subnets(par, src), src)
        filter_unapplied_profiles(data)
        filter_loadcases(data)
        tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        write2csv(str(tmp), data, float_format="%.12g")
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
        (folder / ".complete").write_text("ok\n")
    return folder


def model_files(code: str) -> list[dict[str, str]]:
    """``[{"path": "model/<file>.csv", "sha256": ...}]`` of the grid's CSV folder, sorted."""
    folder = csv_folder(code)
    return [{"path": f"model/{p.name}", "sha256": _sha256(p)} for p in sorted(folder.glob("*.csv"))]


def files_digest(files: list[dict[str, str]]) -> str:
    return hashlib.sha256(json.dumps(sorted((f["path"], f["sha256"]) for f in files)).encode()).hexdigest()


@dataclass(frozen=True)
class Grid:
    """One SimBench grid as bus-branch arrays plus its year of bus-aggregated injections.

    Buses joined by a closed bus-bus switch are one bus (the name of the first kept); a line
    with an open switch at either end is out of service (SimBench's normally-open points);
    transformers at neutral tap. Injections (MW, Mvar, positive = consumption for loads,
    generation for ``sgen_p_mw``) per bus and 15-minute step from SimBench's own profiles
    (``simbench.get_absolute_values``)."""

    code: str
    bus_names: tuple[str, ...]
    vn_kv: np.ndarray
    vm_min_pu: np.ndarray
    vm_max_pu: np.ndarray
    slack: int
    vm_slack_pu: float
    line_names: tuple[str, ...]
    line_from: np.ndarray
    line_to: np.ndarray
    line_type: tuple[str, ...]
    line_length_km: np.ndarray
    line_r_ohm_per_km: np.ndarray
    line_x_ohm_per_km: np.ndarray
    line_c_nf_per_km: np.ndarray
    line_max_i_ka: np.ndarray
    line_max_loading_pct: np.ndarray
    trafo_names: tuple[str, ...]
    trafo_hv: np.ndarray
    trafo_lv: np.ndarray
    trafo_type: tuple[str, ...]
    trafo_sn_mva: np.ndarray
    trafo_vk_pct: np.ndarray
    trafo_vkr_pct: np.ndarray
    trafo_pfe_kw: np.ndarray
    trafo_i0_pct: np.ndarray
    trafo_max_loading_pct: np.ndarray
    load_p_mw: np.ndarray      # (n_bus, T)
    load_q_mvar: np.ndarray    # (n_bus, T)
    sgen_p_mw: np.ndarray      # (n_bus, T)
    res_profiles: dict[str, np.ndarray]
    line_types: dict[str, dict[str, float]]
    trafo_types: dict[str, dict[str, float]]
    counts: dict[str, int]

    @property
    def bus_pos(self) -> dict[str, int]:
        return {b: i for i, b in enumerate(self.bus_names)}


def _derive(code: str, folder: Path) -> dict[str, Any]:
    import simbench as sb

    net = sb.csv2pp(str(folder))
    counts = {"buses": int(len(net.bus)), "lines": int(len(net.line)), "transformers": int(len(net.trafo)),
              "loads": int(len(net.load)), "sgens": int(len(net.sgen)), "switches": int(len(net.switch))}
    # fuse buses over closed bus-bus switches (union-find on pandapower bus indices)
    parent = {int(b): int(b) for b in net.bus.index}

    def find(b: int) -> int:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for _, sw in net.switch[(net.switch.et == "b") & net.switch.closed].iterrows():
        a, b = find(int(sw.bus)), find(int(sw.element))
        parent[max(a, b)] = min(a, b)
    roots = sorted({find(int(b)) for b in net.bus.index})
    pos = {r: i for i, r in enumerate(roots)}
    idx = {int(b): pos[find(int(b))] for b in net.bus.index}
    names = tuple(str(net.bus.at[r, "name"]) for r in roots)
    vn = np.array([float(net.bus.at[r, "vn_kv"]) for r in roots])
    vmin = np.array([float(net.bus.at[r, "min_vm_pu"]) for r in roots])
    vmax = np.array([float(net.bus.at[r, "max_vm_pu"]) for r in roots])
    open_lines = {int(sw.element) for _, sw in net.switch[(net.switch.et == "l") & ~net.switch.closed].iterrows()}
    lines = net.line[net.line.in_service & ~net.line.index.isin(list(open_lines))]
    if (lines.parallel != 1).any() or (lines.df != 1).any():
        raise ValueError(f"{code}: parallel or derated lines are not modelled")
    trafos = net.trafo[net.trafo.in_service]
    if (trafos.tap_pos.fillna(0) != trafos.tap_neutral.fillna(0)).any() or (trafos.parallel != 1).any():
        raise ValueError(f"{code}: transformers off neutral tap are not modelled")
    eg = net.ext_grid.iloc[0]
    av = sb.get_absolute_values(net, profiles_instead_of_study_cases=True)
    n = len(roots)

    def per_bus(df, buses):
        out = np.zeros((n, df.shape[0]))
        arr = df.to_numpy(dtype=float).T
        for k, b in enumerate(buses):
            out[idx[int(b)]] += arr[k]
        return out

    ld = net.load[net.load.in_service]
    sg = net.sgen[net.sgen.in_service]
    load_p = per_bus(av[("load", "p_mw")][ld.index], ld.bus)
    load_q = per_bus(av[("load", "q_mvar")][ld.index], ld.bus)
    sgen_p = per_bus(av[("sgen", "p_mw")][sg.index], sg.bus)
    res = {c: net.profiles["renewables"][c].to_numpy(dtype=float) for c in net.profiles["renewables"].columns if c != "time"}
    # the type tables as the CSV folder states them (LineType.csv: r, x in ohm/km, b in µS/km,
    # iMax in A; TransformerType.csv: sR in MVA), not pandapower's own standard types
    import pandas as pd

    lt = pd.read_csv(folder / "LineType.csv", sep=";")
    line_types = {str(r.id): {"r_ohm_per_km": float(r.r), "x_ohm_per_km": float(r.x),
                              "c_nf_per_km": float(r.b) / (2 * np.pi * F_HZ) * 1e3, "max_i_ka": float(r.iMax) / 1e3,
                              "b_us_per_km": float(r.b), "kind": str(r.type)} for r in lt.itertuples()}
    tt = pd.read_csv(folder / "TransformerType.csv", sep=";")
    trafo_types = {str(r.id): {"sn_mva": float(r.sR), "vn_hv_kv": float(r.vmHV), "vn_lv_kv": float(r.vmLV),
                               "vk_percent": float(r.vmImp), "pcu_kw": float(r.pCu)} for r in tt.itertuples()}
    return {
        "code": code, "bus_names": names, "vn_kv": vn, "vm_min_pu": vmin, "vm_max_pu": vmax,
        "slack": idx[int(eg.bus)], "vm_slack_pu": float(eg.vm_pu),
        "line_names": tuple(str(x) for x in lines.name), "line_from": np.array([idx[int(b)] for b in lines.from_bus]),
        "line_to": np.array([idx[int(b)] for b in lines.to_bus]), "line_type": tuple(str(x) for x in lines.std_type),
        "line_length_km": lines.length_km.to_numpy(float), "line_r_ohm_per_km": lines.r_ohm_per_km.to_numpy(float),
        "line_x_ohm_per_km": lines.x_ohm_per_km.to_numpy(float), "line_c_nf_per_km": lines.c_nf_per_km.to_numpy(float),
        "line_max_i_ka": lines.max_i_ka.to_numpy(float), "line_max_loading_pct": lines.max_loading_percent.to_numpy(float),
        "trafo_names": tuple(str(x) for x in trafos.name), "trafo_hv": np.array([idx[int(b)] for b in trafos.hv_bus]),
        "trafo_lv": np.array([idx[int(b)] for b in trafos.lv_bus]), "trafo_type": tuple(str(x) for x in trafos.std_type),
        "trafo_sn_mva": trafos.sn_mva.to_numpy(float), "trafo_vk_pct": trafos.vk_percent.to_numpy(float),
        "trafo_vkr_pct": trafos.vkr_percent.to_numpy(float), "trafo_pfe_kw": trafos.pfe_kw.to_numpy(float),
        "trafo_i0_pct": trafos.i0_percent.to_numpy(float), "trafo_max_loading_pct": trafos.max_loading_percent.to_numpy(float),
        "load_p_mw": load_p, "load_q_mvar": load_q, "sgen_p_mw": sgen_p, "res_profiles": res,
        "line_types": line_types, "trafo_types": trafo_types, "counts": counts,
    }


_ARRAYS = ("vn_kv", "vm_min_pu", "vm_max_pu", "line_from", "line_to", "line_length_km", "line_r_ohm_per_km",
           "line_x_ohm_per_km", "line_c_nf_per_km", "line_max_i_ka", "line_max_loading_pct", "trafo_hv", "trafo_lv",
           "trafo_sn_mva", "trafo_vk_pct", "trafo_vkr_pct", "trafo_pfe_kw", "trafo_i0_pct", "trafo_max_loading_pct",
           "load_p_mw", "load_q_mvar", "sgen_p_mw")


@cache
def grid(code: str) -> Grid:
    """The grid's arrays (derived from its CSV folder once, then read from the cache)."""
    folder = csv_folder(code)
    digest = files_digest(model_files(code))[:16]
    path = cache_root() / "hosting" / f"{code}-{digest}-v2.npz"
    meta_path = path.with_suffix(".json")
    if path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        with np.load(path) as z:
            arrays = {k: z[k] for k in _ARRAYS}
            res = {k[4:]: z[k] for k in z.files if k.startswith("res_")}
        d = {**meta, **arrays, "res_profiles": res}
    else:
        with _LOCK:
            d = _derive(code, folder)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.stem + f".tmp{os.getpid()}.npz")
            np.savez(tmp, **{k: d[k] for k in _ARRAYS}, **{f"res_{k}": v for k, v in d["res_profiles"].items()})
            tmp.replace(path)
            meta = {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()
                    if k not in _ARRAYS and k != "res_profiles"}
            meta_path.write_text(json.dumps(meta))
    for k in ("bus_names", "line_names", "line_type", "trafo_names", "trafo_type"):
        d[k] = tuple(d[k])
    d["slack"] = int(d["slack"])
    return Grid(**d)
