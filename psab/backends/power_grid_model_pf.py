"""power-grid-model's batch Newton-Raphson power flow over a year of 15-minute steps.

The same MV network as :mod:`psab.surrogates.hosting_year` (the MV busbar as a source held at
its set-point, lines as power-grid-model ``line`` π-models with r1, x1, c1, constant-power
``sym_load``/``sym_gen`` per bus) handed to power-grid-model (Alliander / LF Energy, C++; one
model, one batch of 35,136 scenarios). A Q(U) characteristic has no component there, so it is
the outer fixed point ``Q ← Q + α (Q(U(Q)) − Q)`` over batches of the steps not yet converged
(α per step, halved whenever the update stops shrinking), to 1e-9 pu in Q. Loadings are derived from the engine's bus voltages by the
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
    from power_grid_model import (
        ComponentType,
        DatasetType,
        LoadGenType,
        PowerGridModel,
        initialize_array,
    )

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

    def run(cols: np.ndarray, q_extra: np.ndarray | None) -> np.ndarray:
        upd = initialize_array(DatasetType.update, ComponentType.sym_load, (cols.size, n))
        upd["id"] = load["id"][None, :]
        upd["status"] = 1
        q = q_mvar[:, cols] if q_extra is None else q_mvar[:, cols] + q_extra
        # sym_load is consumption-positive: the net injection enters with a minus sign
        upd["p_specified"] = -p_mw[:, cols].T * 1e6
        upd["q_specified"] = -q.T * 1e6
        out = model.calculate_power_flow(update_data={ComponentType.sym_load: upd}, error_tolerance=1e-10,
                                         max_iterations=50, threading=threading,
                                         output_component_types={ComponentType.node: ["u_pu", "u_angle"]})
        nd = out[ComponentType.node]
        return (nd["u_pu"] * np.exp(1j * nd["u_angle"])).T

    every = np.arange(steps)
    v = run(every, None)
    if qu is not None:
        # Outer fixed point per step; a step drops out once its Q(U) set-points are converged
        # (the steps are independent power flows, so this changes no result, only the work).
        q_qu = qu.q(np.abs(v[qu.bus]))
        todo = np.flatnonzero(np.any(np.abs(q_qu) > 0, axis=0))
        # per-step relaxation by the secant rule: with residual r = Q(U(q)) − q and the update
        # q ← q + α r, a linear loop gives r' = (1 − α(1 + g)) r, so the measured ratio c = r'/r
        # yields the relaxation α / (1 − c) that would have cancelled it (clipped to [0.05, 1])
        alpha = np.ones(steps)
        last = np.zeros((qu.bus.size, steps))
        for _ in range(MAX_OUTER):
            if todo.size == 0:
                break
            extra = np.zeros((n, todo.size))
            np.add.at(extra, qu.bus, q_qu[:, todo])
            v[:, todo] = run(todo, extra)
            target = qu.q(np.abs(v[qu.bus]))[:, todo] if qu.active is None else \
                dpf.QU(qu.bus, qu.q_max_pu, qu.u_points_pu, qu.k_points, qu.active[:, todo]).q(np.abs(v[qu.bus][:, todo]))
            step = target - q_qu[:, todo]
            size = np.max(np.abs(step), axis=0)
            prev = last[:, todo]
            denom = np.sum(prev * prev, axis=0)
            c = np.where(denom > 0, np.sum(step * prev, axis=0) / np.where(denom > 0, denom, 1.0), 0.0)
            alpha[todo] = np.where(denom > 0, np.clip(alpha[todo] / np.maximum(1.0 - c, 1e-3), 0.05, 1.0), alpha[todo])
            last[:, todo] = step
            q_qu[:, todo] += alpha[todo] * step
            todo = todo[size > 1e-9]
        else:
            raise dpf.PowerFlowDiverged("the Q(U) outer iteration did not converge")
        extra = np.zeros((n, steps))
        np.add.at(extra, qu.bus, q_qu)
        q_mvar = q_mvar + extra
    # angles relative to the source (power-grid-model reports them as computed)
    v = v * np.exp(-1j * np.angle(v[net.slack]))[None, :]
    return hy.flow_of(net, v, p_mw + 1j * q_mvar, None, None)
