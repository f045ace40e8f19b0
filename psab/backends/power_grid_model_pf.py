"""power-grid-model's batch Newton-Raphson power flow over a year of 15-minute steps.

The same MV network as :mod:`psab.surrogates.hosting_year` (the MV busbar as a source held at
its set-point, lines as power-grid-model ``line`` π-models with r1, x1, c1, constant-power
``sym_load``/``sym_gen`` per bus) handed to power-grid-model (Alliander / LF Energy, C++; one
model, one batch of 35,136 scenarios). A Q(U) characteristic has no component there, so it is
the outer fixed point ``Q ← Q + α (Q(U(Q)) − Q)`` over whole-year batches, converged to the same
tolerance as psab's own iteration. Loadings are derived from the engine's bus voltages by the
study's one rule (:func:`psab.surrogates.hosting_year.flow_of`), so both engines are judged by
the same definitions.
"""

from __future__ import annotations

import numpy as np

from psab.surrogates import distribution_pf as dpf
from psab.surrogates import hosting_year as hy

#: Source short-circuit power (VA): large enough that the busbar is an ideal voltage source
#: (power-grid-model's default 10 GVA would drop 0.2 % at 20 MW).
_SK_VA = 1e20
MAX_OUTER = 200


def power_flow(net: hy.MVNetwork, p_mw: np.ndarray, q_mvar: np.ndarray, qu: dpf.QU | None = None,
               threading: int = 1) -> hy.Flow:
    from power_grid_model import ComponentType, DatasetType, LoadGenType, PowerGridModel, initialize_array

    n, steps = p_mw.shape
    u_v = net.vn_kv * 1e3
    node = initialize_array(DatasetType.input, ComponentType.node, n)
    node["id"] = np.arange(n)
    node["u_rated"] = u_v
    nl = net.line_from.size
    line = initialize_array(DatasetType.input, ComponentType.line, nl)
    line["id"] = n + np.arange(nl)
    line["from_node"] = net.line_from
    line["to_node"] = net.line_to
    line["from_status"] = 1
    line["to_status"] = 1
    line["r1"] = net.line_r_ohm
    line["x1"] = net.line_x_ohm
    line["c1"] = net.line_b_us * 1e-6 / (2 * np.pi * hy.F_HZ)
    line["tan1"] = 0.0
    line["i_n"] = net.line_max_i_ka * 1e3
    src = initialize_array(DatasetType.input, ComponentType.source, 1)
    src["id"] = n + nl
    src["node"] = net.slack
    src["status"] = 1
    src["u_ref"] = net.vm_slack_pu
    src["u_ref_angle"] = 0.0
    src["sk"] = _SK_VA
    load = initialize_array(DatasetType.input, ComponentType.sym_load, n)
    load["id"] = n + nl + 1 + np.arange(n)
    load["node"] = np.arange(n)
    load["status"] = 1
    load["type"] = LoadGenType.const_power
    load["p_specified"] = 0.0
    load["q_specified"] = 0.0
    model = PowerGridModel({ComponentType.node: node, ComponentType.line: line, ComponentType.source: src,
                            ComponentType.sym_load: load})

    def run(q_extra: np.ndarray | None) -> np.ndarray:
        upd = initialize_array(DatasetType.update, ComponentType.sym_load, (steps, n))
        upd["id"] = load["id"][None, :]
        upd["status"] = 1
        q = q_mvar if q_extra is None else q_mvar + q_extra
        # sym_load is consumption-positive: the net injection enters with a minus sign
        upd["p_specified"] = -p_mw.T * 1e6
        upd["q_specified"] = -q.T * 1e6
        out = model.calculate_power_flow(update_data={ComponentType.sym_load: upd}, error_tolerance=1e-10,
                                         max_iterations=50, threading=threading,
                                         output_component_types={ComponentType.node: ["u_pu", "u_angle"]})
        nd = out[ComponentType.node]
        return (nd["u_pu"] * np.exp(1j * nd["u_angle"])).T

    q_qu = None
    if qu is None:
        v = run(None)
    else:
        extra = np.zeros((n, steps))
        v = run(None)
        q_qu = qu.q(np.abs(v[qu.bus]))
        for _ in range(MAX_OUTER):
            extra[:] = 0.0
            np.add.at(extra, qu.bus, q_qu)
            v = run(extra)
            target = qu.q(np.abs(v[qu.bus]))
            if float(np.max(np.abs(target - q_qu), initial=0.0)) <= 1e-8:
                q_qu = target
                break
            q_qu = q_qu + 0.5 * (target - q_qu)
        else:
            raise dpf.PowerFlowDiverged("the Q(U) outer iteration did not converge")
        extra[:] = 0.0
        np.add.at(extra, qu.bus, q_qu)
        v = run(extra)
        q_mvar = q_mvar + extra
    # angles relative to the source (power-grid-model reports them as computed)
    v = v * np.exp(-1j * np.angle(v[net.slack]))[None, :]
    return hy.flow_of(net, v, p_mw + 1j * q_mvar, None, None)
