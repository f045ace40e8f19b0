# An agent's script: written from study.json's statement only; toolbox libraries only (no psab).
import itertools, json, sys, time
import numpy as np
import simbench as sb
from power_grid_model import ComponentType, DatasetType, LoadGenType, PowerGridModel, initialize_array

T0 = time.time()
study = json.load(open("/tmp/agent/study.json"))
pi = study["public_inputs"]
net = sb.csv2pp("/tmp/agent/model")
av = sb.get_absolute_values(net, profiles_instead_of_study_cases=True)
sc = pi["scenario"]
# --- MV network: buses at the LV rated voltage of the HV/MV transformers; fuse closed bus-bus switches
mv_kv = float(net.trafo.vn_lv_kv.iloc[0])
parent = {b: b for b in net.bus.index}
def find(b):
    while parent[b] != b:
        b = parent[b]
    return b
for _, s in net.switch[(net.switch.et == "b") & net.switch.closed].iterrows():
    a, b = find(s.bus), find(s.element); parent[max(a, b)] = min(a, b)
mvb = [b for b in net.bus.index if net.bus.vn_kv[b] == mv_kv and find(b) == b]
idx = {b: i for i, b in enumerate(mvb)}
node_of = lambda b: idx[find(b)]
names = [net.bus.name[b] for b in mvb]
pos = {n: i for i, n in enumerate(names)}
n = len(mvb)
slack = node_of(int(net.trafo.lv_bus.iloc[0]))
open_l = set(net.switch[(net.switch.et == "l") & ~net.switch.closed].element)
lines = net.line[net.line.in_service & ~net.line.index.isin(open_l)]
L = len(lines)
lf = np.array([node_of(b) for b in lines.from_bus]); lt = np.array([node_of(b) for b in lines.to_bus])
r = (lines.r_ohm_per_km * lines.length_km).to_numpy(); x = (lines.x_ohm_per_km * lines.length_km).to_numpy()
c = (lines.c_nf_per_km * lines.length_km).to_numpy() * 1e-9; imax = lines.max_i_ka.to_numpy()
lname = list(lines.name); lpos = {k: i for i, k in enumerate(lname)}
vmin = np.array([net.bus.min_vm_pu[b] for b in mvb]); vmax = np.array([net.bus.max_vm_pu[b] for b in mvb])
Tn = av[("load", "p_mw")].shape[0]
P = np.zeros((n, Tn)); Q = np.zeros((n, Tn))
for k, b in zip(net.load.index, net.load.bus):
    P[node_of(b)] -= sc["load_scale"] * av[("load", "p_mw")][k].to_numpy(); Q[node_of(b)] -= sc["load_scale"] * av[("load", "q_mvar")][k].to_numpy()
for k, b in zip(net.sgen.index, net.sgen.bus):
    P[node_of(b)] += sc["sgen_scale"] * av[("sgen", "p_mw")][k].to_numpy()
res = net.profiles["renewables"]
sn_total = float(net.trafo.sn_mva.sum())
print("model built", round(time.time() - T0, 1), "s", n, "MV nodes", L, "lines", flush=True)

def pgm_run(cols, p, q, r_, x_, c_, imax_):
    node = initialize_array(DatasetType.input, ComponentType.node, n); node["id"] = np.arange(n); node["u_rated"] = mv_kv * 1e3
    ln = initialize_array(DatasetType.input, ComponentType.line, L)
    ln["id"] = n + np.arange(L); ln["from_node"] = lf; ln["to_node"] = lt; ln["from_status"] = 1; ln["to_status"] = 1
    ln["r1"] = r_; ln["x1"] = x_; ln["c1"] = c_; ln["tan1"] = 0; ln["i_n"] = imax_ * 1e3
    src = initialize_array(DatasetType.input, ComponentType.source, 1); src["id"] = n + L; src["node"] = slack; src["status"] = 1
    src["u_ref"] = sc["busbar_vm_pu"]; src["sk"] = 1e20
    ld = initialize_array(DatasetType.input, ComponentType.sym_load, n); ld["id"] = n + L + 1 + np.arange(n); ld["node"] = np.arange(n)
    ld["status"] = 1; ld["type"] = LoadGenType.const_power; ld["p_specified"] = 0; ld["q_specified"] = 0
    m = PowerGridModel({ComponentType.node: node, ComponentType.line: ln, ComponentType.source: src, ComponentType.sym_load: ld})
    up = initialize_array(DatasetType.update, ComponentType.sym_load, (len(cols), n)); up["id"] = ld["id"][None, :]; up["status"] = 1
    up["p_specified"] = -p.T * 1e6; up["q_specified"] = -q.T * 1e6
    out = m.calculate_power_flow(update_data={ComponentType.sym_load: up}, error_tolerance=1e-10, max_iterations=50, threading=1)
    u = out[ComponentType.node]["u_pu"].T
    il = np.maximum(out[ComponentType.line]["i_from"], out[ComponentType.line]["i_to"]).T / (imax_[:, None] * 1e3) * 100
    # transformer: current from the busbar into lines minus busbar's own injections
    s_lines = np.zeros(len(cols), complex)
    for k in range(L):
        if lf[k] == slack:
            s_lines += out[ComponentType.line]["p_from"][:, k] + 1j * out[ComponentType.line]["q_from"][:, k]
        if lt[k] == slack:
            s_lines += out[ComponentType.line]["p_to"][:, k] + 1j * out[ComponentType.line]["q_to"][:, k]
    s_tr = s_lines / 1e6 - (p[slack] + 1j * q[slack])
    i_tr = np.abs(s_tr) / u[slack]          # MVA/pu on 1 MVA base = pu current; rated = sn_total
    return u, il, i_tr

base_cache = {}
def base(cols):
    key = (cols[0], cols[-1], len(cols))
    if key not in base_cache:
        base_cache[key] = pgm_run(cols, P[:, cols], Q[:, cols], r, x, c, imax)
    return base_cache[key]

def crit(cols, u, il, itr, sn):
    ub, ilb, itrb = base(cols)
    band = np.maximum(u - vmax[:, None], vmin[:, None] - u)
    band[(ub > vmax[:, None]) | (ub < vmin[:, None])] = -9; band[slack] = -9   # pre-existing: not assessed
    rise = u - ub - pi["criteria"]["voltage_rise_max_pu"]; rise[slack] = -9
    line = il - 100.0; line[ilb > 100.0] = -9
    tr = itr / sn * 100 - 100.0; tr[itrb / sn_total * 100 > 100.0] = -9
    return {"voltage_band": band, "voltage_rise": rise, "line_thermal": line, "trafo_thermal": tr[None, :]}
TOL = {"voltage_band": 1e-6, "voltage_rise": 1e-6, "line_thermal": 1e-4, "trafo_thermal": 1e-4}
def ok(cr): return all(np.max(v) <= TOL[k] for k, v in cr.items())

# --- hosting capacity: bisection on daylight steps (night = base case)
hc = pi["hosting_capacity"]; prof = res[hc["pv_profile"]].to_numpy(); day = np.flatnonzero(prof > 0)
res_mwp = hc["resolution_mwp"]; kmax = int(round(hc["max_mwp"] / res_mwp))
top = day[np.argsort(-prof[day])[:200]]
out_hc = []
for nid in hc["node_ids"]:
    i = pos[nid]
    def cr_at(k, cols):
        p = P[:, cols].copy(); p[i] += k * res_mwp * prof[cols]
        return crit(cols, *pgm_run(cols, p, Q[:, cols], r, x, c, imax), sn_total)
    cols = np.sort(top)
    while True:
        lo_, hi_ = 0, kmax + 1
        if ok(cr_at(kmax, cols)): lo_ = kmax
        else:
            hi_ = kmax
            while hi_ - lo_ > 1:
                m = (lo_ + hi_) // 2
                if ok(cr_at(m, cols)): lo_ = m
                else: hi_ = m
        full = cr_at(lo_, day) if lo_ else None
        if full is None or ok(full): break
        bad = np.unique(np.concatenate([np.flatnonzero(np.max(v, axis=0) > TOL[k]) for k, v in full.items()]))
        cols = np.unique(np.concatenate([cols, day[bad]]))
    row = {"node_id": nid, "hc_mwp": round(lo_ * res_mwp, 6), "binding_criterion": "none", "binding_step": -1, "binding_element_id": ""}
    if lo_ < kmax:
        cr = cr_at(lo_ + 1, day)
        for k in ("voltage_band", "voltage_rise", "line_thermal", "trafo_thermal"):
            v = cr[k]
            if np.max(v) > TOL[k]:
                per = np.max(v, axis=0); j = int(np.argmax(per)); e = int(np.argmax(v[:, j]))
                el = names[e] if k.startswith("voltage") else lname[e] if k == "line_thermal" else "HV/MV transformers"
                row.update(binding_criterion=k, binding_step=int(day[j]), binding_element_id=el); break
    out_hc.append(row); print(row, round(time.time() - T0, 1), flush=True)

# --- decision: enumerate in cost order, screen on do-nothing's worst steps, verify on the year
cat = pi["catalogue"]; ro = pi["rollout"]; rprof = res[ro["pv_profile"]].to_numpy()
rbus = np.array([pos[p_["node_id"]] for p_ in ro["plants"]]); rmwp = np.array([p_["p_mwp"] for p_ in ro["plants"]])
lt_tab = {o["line_id"]: o for o in cat["line_options"]}
def cost(tr, lines_, qu, cap):
    cst = (0 if tr == "keep" else next(t["cost_keur"] for t in cat["transformer_options"] if t["id"] == tr))
    cst += sum(lt_tab[l]["cost_keur"] for l in lines_) + (cat["q_u"]["cost_keur_per_plant"] * len(rbus) if qu else 0)
    mwh = np.maximum(rprof - cap / 100, 0).sum() * rmwp.sum() * 0.25
    return cst + mwh * cat["curtailment"]["price_eur_per_mwh"] * cat["curtailment"]["capitalisation_years"] / 1000
def judge(tr, lines_, qu, cap, cols):
    r_, x_, c_, im_ = r.copy(), x.copy(), c.copy(), imax.copy()
    for l in lines_:
        k = lpos[l]; o = lt_tab[l]; length = lines.length_km.iloc[k]
        r_[k] = o["new_r_ohm_per_km"] * length; x_[k] = o["new_x_ohm_per_km"] * length
        c_[k] = o["new_b_us_per_km"] * 1e-6 / (2 * np.pi * 50) * length; im_[k] = o["new_max_i_ka"]
    sn = sn_total if tr == "keep" else next(t["sn_total_mva_after"] for t in cat["transformer_options"] if t["id"] == tr)
    pr = np.minimum(rprof[cols], cap / 100)
    p = P[:, cols].copy(); np.add.at(p, rbus, rmwp[:, None] * pr[None, :])
    qx = np.zeros((len(rbus), len(cols)))
    for it in range(200):
        q = Q[:, cols].copy(); np.add.at(q, rbus, qx)
        u, il, itr = pgm_run(cols, p, q, r_, x_, c_, im_)
        if not qu: break
        k_ = np.interp(u[rbus], cat["q_u"]["u_pu"], cat["q_u"]["q_per_p_inst"]) * (pr[None, :] > 0)
        tgt = rmwp[:, None] * k_  # q_per_p_inst is Mvar per installed MWp (study v2)
        if np.max(np.abs(tgt - qx)) < 1e-9: break
        qx = qx + 0.5 * (tgt - qx)
    return crit(cols, u, il, itr, sn)
allc = np.arange(Tn)
cr0 = judge("keep", (), False, 100, allc)
screen = np.unique(np.concatenate([np.argsort(-np.max(v, axis=0))[:30] for v in cr0.values()]))
opts = sorted(lt_tab)
cands = [(t, ls, qu, cap) for t in ["keep"] + [o["id"] for o in cat["transformer_options"]]
         for k in range(len(opts) + 1) for ls in itertools.combinations(opts, k)
         for qu in (False, True) for cap in cat["curtailment"]["cap_levels_pct"]]
cands.sort(key=lambda d: cost(*d))
i = 0; nj = 0
while i < len(cands):
    d = cands[i]; nj += 1
    if ok(judge(*d, screen)):
        full = judge(*d, allc)
        if ok(full): break
        bad = np.unique(np.concatenate([np.flatnonzero(np.max(v, axis=0) > TOL[k]) for k, v in full.items()]))
        screen = np.unique(np.concatenate([screen, bad[:100]])); continue
    i += 1
t, ls, qu, cap = cands[i]
ans = {"hosting_capacity": out_hc, "decision": {"transformer_type": t, "replace_lines": list(ls), "q_u": qu, "curtailment_cap_pct": cap}}
print("decision", ans["decision"], "cost", cost(*cands[i]), "judged", nj, "time", round(time.time() - T0, 1), flush=True)
json.dump(ans, open("/tmp/agent/answer.json", "w"), indent=1)
