"""One module per family, each ending with ``SPEC = register(FamilySpec(...))``.

:data:`FAMILY_MODULES` is the explicit list the registry loads, in catalogue order
(``docs/families.md``); a test checks it against the files in this directory.
"""

FAMILY_MODULES: tuple[str, ...] = (
    # 1. Network analysis and operating constraints
    "ybus_construction",
    "pf_voltage_repair",
    "contingency_screening",
    "corrective_transmission_switching",
    "dynamic_thermal_rating",
    # 2. Short circuit and protection
    "three_phase_short_circuit",
    "earth_fault_calculation",
    "breaker_relay_short_circuit",
    "distance_protection_settings",
    "overcurrent_protection",
    "cable_ampacity_sizing",
    # 5. Microgrids and dispatch
    "microgrid_economic_dispatch",
    "rolling_microgrid_dispatch",
    "islanded_microgrid_pq_dispatch",
    "dispatch_uncertainty",
    "hydro_thermal_storage_uc",
    "n1_generation_commitment",
    # 6. Reliability and restoration
    "flisr_restoration",
    "fault_section_localization",
    "fci_placement",
    "fci_saidi_caidi",
    "operator_breaker_load_actions",
    # 7. Power quality, standards, assets, and cybersecurity
    "en50160_voltage_compliance",
    "power_quality_event_classification",
    "harmonic_ieee519_compliance",
    "transformer_thermal_loading",
)


# ``psab.families()`` is the public API, and ``psab.families`` is also this package: once a
# family module is imported, Python binds the package to that attribute of ``psab``. Making
# the package callable keeps ``psab.families()`` meaning the same thing either way.
def _install_call() -> None:
    import sys
    import types

    class _FamiliesPackage(types.ModuleType):
        def __call__(self):  # type: ignore[no-untyped-def]
            from psab.registry import families

            return families()

    sys.modules[__name__].__class__ = _FamiliesPackage


_install_call()
