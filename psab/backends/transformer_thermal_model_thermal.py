"""The IEC 60076-7 thermal model of Alliander's ``transformer-thermal-model`` package as a backend.

The package (``transformer_thermal_model.model.Model``) integrates the same thermal model as
:mod:`psab.surrogates.iec60076_7`, with its own steady-state rises, hot-spot gradient, initial
states and ageing functions, but it advances each state by the exact exponential step
``1 − exp(−Dt/T)`` where the difference equations of IEC 60076-7 use ``Dt/T``. A task of psab
fixes the difference equations; this adapter maps the package onto them by handing it, for each of
the three time constants T (k11·τo, k22·τw, τo/k22), the constant T' = −Dt / ln(1 − Dt/T) whose
exponential step equals the difference-equation step (:func:`~psab.surrogates.iec60076_7.exponential_equivalent_time_constant`).
Initial states map one to one: a steady state at a load → ``InitialLoad``; a measured top-oil
temperature with zero hot-spot gradient terms → ``InitialTopOilTemp``. Ageing (both paper kinds)
and the loss of life are the package's own ``aging_rate_profile`` and ``days_aged``.

What judging under this backend checks independently is therefore the package's own steady-state
rises, hot-spot gradient split, initial states, ageing functions and loss of life — not the time
discretisation, which the mapping makes identical (the two agree to ~1e-13). The discretisation is
checked by driving the package natively (``native=True``: the case's time constants, its exact
exponential step) in the family's tests: at the cases' 2.5-3 min steps it differs from the
difference equations by up to ~0.2 K (top oil) and ~0.7 K (hot spot), and the gap falls in
proportion to the step, as Euler's first-order error must.

Imported only when an evaluation under ``transformer_thermal_model`` runs.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import numpy as np

from psab.surrogates import iec60076_7 as iec

#: Currents handed to the package: load factors are scaled by this nominal current (A).
_NOMINAL_A = 1000.0


def simulate(p: iec.ThermalParameters, load_pu: np.ndarray, ambient_c: np.ndarray, dt_min: float, *,
             initial: dict, paper: str, native: bool = False) -> iec.ThermalProfile:
    """The package's top-oil and hot-spot temperatures at the end of every step, the relative
    ageing rates and the loss of life — on the difference equations' step (see the module text).

    ``initial`` is ``{"kind": "steady_state", "load_pu": K0}`` (steady state at K0 and the first
    step's ambient) or ``{"kind": "top_oil", "top_oil_c": θo0}`` (hot-spot gradient terms zero).
    ``native=True`` drives the package as it is meant to be driven — the case's own time constants,
    the package's exact exponential step — which is what the tests compare with the difference
    equations to measure the discretisation gap (the judging path keeps ``native=False``)."""
    import pandas as pd
    from transformer_thermal_model.aging import aging_rate_profile, days_aged
    from transformer_thermal_model.cooler import CoolerType
    from transformer_thermal_model.model import Model
    from transformer_thermal_model.schemas import InputProfile, UserTransformerSpecifications
    from transformer_thermal_model.schemas.thermal_model.initial_state import (
        InitialLoad,
        InitialTopOilTemp,
    )
    from transformer_thermal_model.transformer import PaperInsulationType, PowerTransformer

    logging.getLogger("transformer_thermal_model").setLevel(logging.WARNING)
    if float(p.k21) != int(p.k21) or float(p.k22) != int(p.k22):
        raise ValueError("transformer-thermal-model takes integer k21 and k22 only")
    t1, t2, t3 = p.time_constants_min()
    if native:
        tau_o, k11, tau_w = p.tau_o_min, p.k11, p.tau_w_min
    else:
        tau_o = p.k22 * iec.exponential_equivalent_time_constant(t3, dt_min)
        k11 = iec.exponential_equivalent_time_constant(t1, dt_min) / tau_o
        tau_w = iec.exponential_equivalent_time_constant(t2, dt_min) / p.k22
    specs = UserTransformerSpecifications(
        load_loss=p.r * _NOMINAL_A, no_load_loss=_NOMINAL_A, nom_load_sec_side=_NOMINAL_A, amb_temp_surcharge=0.0,
        top_oil_temp_rise=p.delta_theta_or_k, winding_oil_gradient=p.h_gr_k, hot_spot_fac=1.0,
        time_const_oil=tau_o, time_const_windings=tau_w, oil_const_k11=k11, winding_const_k21=int(p.k21),
        winding_const_k22=int(p.k22), oil_exp_x=p.x, winding_exp_y=p.y, end_temp_reduction=0.0,
    )
    transformer = PowerTransformer(user_specs=specs, cooling_type=CoolerType.ONAF)
    load = np.asarray(load_pu, dtype=float)
    amb = np.asarray(ambient_c, dtype=float)
    if initial["kind"] == "steady_state":
        k0 = float(initial["load_pu"])
        state = InitialLoad(initial_load=k0 * _NOMINAL_A)
    else:
        k0 = float(load[0])
        state = InitialTopOilTemp(initial_top_oil_temp=float(initial["top_oil_c"]))
    start = datetime(2026, 1, 1)
    index = [start + timedelta(minutes=dt_min * i) for i in range(load.size + 1)]
    profile = InputProfile.create(datetime_index=index, load_profile=np.concatenate([[k0], load]) * _NOMINAL_A,
                                  ambient_temperature_profile=np.concatenate([[amb[0]], amb]))
    out = Model(temperature_profile=profile, transformer=transformer, initial_condition=state).run()
    hot = pd.Series(np.asarray(out.hot_spot_temp_profile, dtype=float), index=pd.DatetimeIndex(index))
    kind = PaperInsulationType.NORMAL if paper == "normal" else PaperInsulationType.THERMAL_UPGRADED
    rates = np.asarray(aging_rate_profile(hot, kind), dtype=float)
    return iec.ThermalProfile(
        top_oil_c=np.asarray(out.top_oil_temp_profile, dtype=float)[1:],
        hot_spot_c=hot.to_numpy()[1:],
        ageing_rate_pu=rates[1:],
        loss_of_life_min=float(days_aged(hot, kind)) * 1440.0,
    )
