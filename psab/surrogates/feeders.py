"""Real radial feeder shapes, carried as data (never loaded from pandapower at draw time).

Each entry is a distribution network shipped by pandapower 3.5.6 (``pandapower.networks``),
transcribed once into plain numbers so a task generator can use it in microseconds (building a
pandapower net costs about a second). Provenance and confidence are stated per feeder.

Conventions of the data:

- buses: ``(bus id, name, nominal kV)``; the root bus is the external grid, held at
  ``root_vm_pu``;
- branches: ``(id, from bus, to bus, r ohm, x ohm, c nF, rating kA, length km, type)``.
  Line impedances are ``r_ohm_per_km · length``, at the line's own voltage. Transformers
  (ids ``T…``) are given by their series impedance *referred to the low-voltage side*,
  ``z = vk% · U_LV² / S_r`` and ``r = vkr% · U_LV² / S_r`` (IEC 60909-0 eq. (12) form; the
  magnetising branch is neglected), rating = ``S_r / (√3 U_LV)``. So all impedances are in
  ohm on the feeder's ``base_kv`` and per unit on ``(base_kv, base_mva)`` is ``z · base_mva /
  base_kv²``;
- loads: ``(bus, p MW, q Mvar, name)`` at the source's nominal operating point;
- switches: ``(id, branch id, bus at which it sits, normally closed)`` — a switch opens its
  branch; CIGRE's S1, S2, S3 are its normally-open tie switches, so in the normal state the
  feeders are radial.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

FEEDERS: dict[str, dict] = {
    "cigre_mv": {
        "source": 'CIGRE TF C6.04.02, *Benchmark Systems for Network Integration of Renewable and Distributed Energy Resources*, Technical Brochure 575 (2014), MV distribution network, European configuration; data as shipped by pandapower 3.5.6 ``pandapower.networks.create_cigre_network_mv(with_der=False)``',
        "confidence": "high",
        "base_kv": 20.0,
        "root_bus": 0,
        "root_vm_pu": 1.03,
        # (bus id, name, nominal kV)
        "buses": ((0, "Bus 0", 110.0), (1, "Bus 1", 20.0), (2, "Bus 2", 20.0), (3, "Bus 3", 20.0), (4, "Bus 4", 20.0), (5, "Bus 5", 20.0), (6, "Bus 6", 20.0), (7, "Bus 7", 20.0), (8, "Bus 8", 20.0), (9, "Bus 9", 20.0), (10, "Bus 10", 20.0), (11, "Bus 11", 20.0), (12, "Bus 12", 20.0), (13, "Bus 13", 20.0), (14, "Bus 14", 20.0),),
        # (branch id, from bus, to bus, r ohm, x ohm, c nF, rating kA, length km, type)
        "branches": (
            ("T0", 0, 1, 0.0256, 1.920001, 0.0, 0.7217, 0.0, "trafo Trafo 0-1 25 MVA 110/20 kV vk 12% vkr 0.16%"),
            ("T1", 0, 12, 0.0256, 1.920001, 0.0, 0.7217, 0.0, "trafo Trafo 0-12 25 MVA 110/20 kV vk 12% vkr 0.16%"),
            ("L0", 1, 2, 1.41282, 2.01912, 426.3132, 0.145, 2.82, "CABLE_CIGRE_MV"),
            ("L1", 2, 3, 2.21442, 3.16472, 668.1931, 0.145, 4.42, "CABLE_CIGRE_MV"),
            ("L2", 3, 4, 0.30561, 0.43676, 92.2167, 0.145, 0.61, "CABLE_CIGRE_MV"),
            ("L3", 4, 5, 0.28056, 0.40096, 84.6579, 0.145, 0.56, "CABLE_CIGRE_MV"),
            ("L4", 5, 6, 0.77154, 1.10264, 232.8093, 0.145, 1.54, "CABLE_CIGRE_MV"),
            ("L5", 7, 8, 0.83667, 1.19572, 252.4621, 0.145, 1.67, "CABLE_CIGRE_MV"),
            ("L6", 8, 9, 0.16032, 0.22912, 48.376, 0.145, 0.32, "CABLE_CIGRE_MV"),
            ("L7", 9, 10, 0.38577, 0.55132, 116.4047, 0.145, 0.77, "CABLE_CIGRE_MV"),
            ("L8", 10, 11, 0.16533, 0.23628, 49.8877, 0.145, 0.33, "CABLE_CIGRE_MV"),
            ("L9", 3, 8, 0.6513, 0.9308, 196.5274, 0.145, 1.3, "CABLE_CIGRE_MV"),
            ("L10", 12, 13, 2.4939, 1.78974, 49.3733, 0.195, 4.89, "OHL_CIGRE_MV"),
            ("L11", 13, 14, 1.5249, 1.09434, 30.1894, 0.195, 2.99, "OHL_CIGRE_MV"),
            ("L12", 6, 7, 0.12024, 0.17184, 36.282, 0.145, 0.24, "CABLE_CIGRE_MV"),
            ("L13", 11, 4, 0.24549, 0.35084, 74.0757, 0.145, 0.49, "CABLE_CIGRE_MV"),
            ("L14", 14, 8, 1.02, 0.732, 20.1936, 0.195, 2.0, "OHL_CIGRE_MV"),
        ),
        # (bus, p MW, q Mvar, name)
        "loads": (
            (1, 14.994, 3.044662, "Load R1"),
            (3, 0.27645, 0.069285, "Load R3"),
            (4, 0.43165, 0.108182, "Load R4"),
            (5, 0.7275, 0.182329, "Load R5"),
            (6, 0.54805, 0.137354, "Load R6"),
            (8, 0.58685, 0.147078, "Load R8"),
            (10, 0.4753, 0.119121, "Load R10"),
            (11, 0.3298, 0.082656, "Load R11"),
            (12, 14.994, 3.044662, "Load R12"),
            (14, 0.20855, 0.052268, "Load R14"),
            (1, 4.845, 1.592474, "Load CI1"),
            (3, 0.22525, 0.139597, "Load CI3"),
            (7, 0.0765, 0.04741, "Load CI7"),
            (9, 0.57375, 0.355578, "Load CI9"),
            (10, 0.068, 0.042143, "Load CI10"),
            (12, 5.016, 1.648679, "Load CI12"),
            (13, 0.034, 0.021071, "Load CI13"),
            (14, 0.3315, 0.205445, "Load CI14"),
        ),
        # (switch id, branch id, bus at which it sits, normally closed)
        "switches": (
            ("SW0", "L12", 6, True),
            ("S2", "L12", 7, False),
            ("S3", "L13", 4, False),
            ("SW3", "L13", 11, True),
            ("S1", "L14", 8, False),
            ("SW5", "L14", 14, True),
        ),
    },
    "kerber_landnetz_kabel_1": {
        "source": 'G. Kerber, *Aufnahmefähigkeit von Niederspannungsverteilnetzen für die Einspeisung aus Photovoltaikkleinanlagen*, Dissertation TU München (2011), rural cable network 1; data as shipped by pandapower 3.5.6 ``pandapower.networks.create_kerber_landnetz_kabel_1()``',
        "confidence": "high",
        "base_kv": 0.4,
        "root_bus": 0,
        "root_vm_pu": 1.0,
        # (bus id, name, nominal kV)
        "buses": ((0, "Trafostation_OS", 10.0), (1, "main_busbar", 0.4), (2, "MUF_1_1", 0.4), (3, "loadbus_1_1", 0.4), (4, "KV_1_2", 0.4), (5, "loadbus_1_2", 0.4), (6, "MUF_1_3", 0.4), (7, "loadbus_1_3", 0.4), (8, "KV_1_4", 0.4), (9, "loadbus_1_4", 0.4), (10, "MUF_1_5", 0.4), (11, "loadbus_1_5", 0.4), (12, "KV_1_6", 0.4), (13, "loadbus_1_6", 0.4), (14, "MUF_2_1", 0.4), (15, "loadbus_2_1", 0.4), (16, "KV_2_2", 0.4), (17, "loadbus_2_2", 0.4),),
        # (branch id, from bus, to bus, r ohm, x ohm, c nF, rating kA, length km, type)
        "branches": (
            ("T0", 0, 1, 0.0192, 0.061052, 0.0, 0.1443, 0.0, "trafo trafo 1 0.1 MVA 10/0.4 kV vk 4% vkr 1.2%"),
            ("L0", 1, 2, 0.016949, 0.006595, 68.06, 0.275, 0.082, "NAYY 4x150"),
            ("L1", 2, 3, 0.011551, 0.001527, 12.06, 0.141, 0.018, "NAYY 4x50"),
            ("L2", 2, 4, 0.016949, 0.006595, 68.06, 0.275, 0.082, "NAYY 4x150"),
            ("L3", 4, 5, 0.021186, 0.002739, 6.93, 0.142, 0.033, "NAYY 4x50 SE"),
            ("L4", 4, 6, 0.016949, 0.006595, 68.06, 0.275, 0.082, "NAYY 4x150"),
            ("L5", 6, 7, 0.011551, 0.001527, 12.06, 0.141, 0.018, "NAYY 4x50"),
            ("L6", 6, 8, 0.016949, 0.006595, 68.06, 0.275, 0.082, "NAYY 4x150"),
            ("L7", 8, 9, 0.021176, 0.002799, 22.11, 0.141, 0.033, "NAYY 4x50"),
            ("L8", 8, 10, 0.016949, 0.006595, 68.06, 0.275, 0.082, "NAYY 4x150"),
            ("L9", 10, 11, 0.011551, 0.001527, 12.06, 0.141, 0.018, "NAYY 4x50"),
            ("L10", 10, 12, 0.016949, 0.006595, 68.06, 0.275, 0.082, "NAYY 4x150"),
            ("L11", 12, 13, 0.021176, 0.002799, 22.11, 0.141, 0.033, "NAYY 4x50"),
            ("L12", 1, 14, 0.036172, 0.014074, 145.25, 0.275, 0.175, "NAYY 4x150"),
            ("L13", 14, 15, 0.011551, 0.001527, 12.06, 0.141, 0.018, "NAYY 4x50"),
            ("L14", 14, 16, 0.036172, 0.014074, 145.25, 0.275, 0.175, "NAYY 4x150"),
            ("L15", 16, 17, 0.021186, 0.002739, 6.93, 0.142, 0.033, "NAYY 4x50 SE"),
        ),
        # (bus, p MW, q Mvar, name)
        "loads": (
            (3, 0.008, 0.0, "None"),
            (5, 0.008, 0.0, "None"),
            (7, 0.008, 0.0, "None"),
            (9, 0.008, 0.0, "None"),
            (11, 0.008, 0.0, "None"),
            (13, 0.008, 0.0, "None"),
            (15, 0.008, 0.0, "None"),
            (17, 0.008, 0.0, "None"),
        ),
        # (switch id, branch id, bus at which it sits, normally closed)
        "switches": (),
    },
    "kerber_landnetz_freileitung_1": {
        "source": 'G. Kerber (2011), as above, rural overhead-line network 1; pandapower 3.5.6 ``create_kerber_landnetz_freileitung_1()``',
        "confidence": "high",
        "base_kv": 0.4,
        "root_bus": 0,
        "root_vm_pu": 1.0,
        # (bus id, name, nominal kV)
        "buses": ((0, "Trafostation_OS", 10.0), (1, "main_busbar", 0.4), (2, "bus_1_1", 0.4), (3, "bus_1_2", 0.4), (4, "bus_1_3", 0.4), (5, "bus_1_4", 0.4), (6, "bus_1_5", 0.4), (7, "bus_1_6", 0.4), (8, "bus_1_7", 0.4), (9, "bus_1_8", 0.4), (10, "bus_1_9", 0.4), (11, "bus_1_10", 0.4), (12, "bus_1_11", 0.4), (13, "bus_1_12", 0.4), (14, "bus_1_13", 0.4),),
        # (branch id, from bus, to bus, r ohm, x ohm, c nF, rating kA, length km, type)
        "branches": (
            ("T0", 0, 1, 0.012, 0.038158, 0.0, 0.2309, 0.0, "trafo trafo 1 0.16 MVA 10/0.4 kV vk 4% vkr 1.2%"),
            ("L0", 1, 2, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L1", 2, 3, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L2", 3, 4, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L3", 4, 5, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L4", 5, 6, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L5", 6, 7, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L6", 7, 8, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L7", 8, 9, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L8", 9, 10, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L9", 10, 11, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L10", 11, 12, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L11", 12, 13, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
            ("L12", 13, 14, 0.009303, 0.001449, 0.0, 0.27, 0.021, "NFA2X 4x70"),
        ),
        # (bus, p MW, q Mvar, name)
        "loads": (
            (2, 0.008, 0.0, "None"),
            (3, 0.008, 0.0, "None"),
            (4, 0.008, 0.0, "None"),
            (5, 0.008, 0.0, "None"),
            (6, 0.008, 0.0, "None"),
            (7, 0.008, 0.0, "None"),
            (8, 0.008, 0.0, "None"),
            (9, 0.008, 0.0, "None"),
            (10, 0.008, 0.0, "None"),
            (11, 0.008, 0.0, "None"),
            (12, 0.008, 0.0, "None"),
            (13, 0.008, 0.0, "None"),
            (14, 0.008, 0.0, "None"),
        ),
        # (switch id, branch id, bus at which it sits, normally closed)
        "switches": (),
    },
    "kerber_dorfnetz": {
        "source": 'G. Kerber (2011), as above, village network (Dorfnetz); pandapower 3.5.6 ``create_kerber_dorfnetz()``',
        "confidence": "high",
        "base_kv": 0.4,
        "root_bus": 0,
        "root_vm_pu": 1.0,
        # (bus id, name, nominal kV)
        "buses": ((0, "Trafostation_OS", 10.0), (1, "main_busbar", 0.4), (2, "MUF_1_1", 0.4), (3, "loadbus_1_1", 0.4), (4, "KV_1_2", 0.4), (5, "loadbus_1_2", 0.4), (6, "MUF_1_3", 0.4), (7, "loadbus_1_3", 0.4), (8, "KV_1_4", 0.4), (9, "loadbus_1_4", 0.4), (10, "MUF_1_5", 0.4), (11, "loadbus_1_5", 0.4), (12, "KV_1_6", 0.4), (13, "loadbus_1_6", 0.4), (14, "MUF_1_7", 0.4), (15, "loadbus_1_7", 0.4), (16, "KV_1_8", 0.4), (17, "loadbus_1_8", 0.4), (18, "MUF_1_9", 0.4), (19, "loadbus_1_9", 0.4), (20, "MUF_2_1", 0.4), (21, "loadbus_2_1", 0.4), (22, "KV_2_2", 0.4), (23, "loadbus_2_2", 0.4), (24, "MUF_2_3", 0.4), (25, "loadbus_2_3", 0.4), (26, "KV_2_4", 0.4), (27, "loadbus_2_4", 0.4), (28, "MUF_2_5", 0.4), (29, "loadbus_2_5", 0.4), (30, "KV_2_6", 0.4), (31, "loadbus_2_6", 0.4), (32, "MUF_2_7", 0.4), (33, "loadbus_2_7", 0.4), (34, "KV_2_8", 0.4), (35, "loadbus_2_8", 0.4), (36, "MUF_2_9", 0.4), (37, "loadbus_2_9", 0.4), (38, "MUF_3_1", 0.4), (39, "loadbus_3_1", 0.4), (40, "KV_3_2", 0.4), (41, "loadbus_3_2", 0.4), (42, "MUF_3_3", 0.4), (43, "loadbus_3_3", 0.4), (44, "KV_3_4", 0.4), (45, "loadbus_3_4", 0.4), (46, "MUF_3_5", 0.4), (47, "loadbus_3_5", 0.4), (48, "KV_3_6", 0.4), (49, "loadbus_3_6", 0.4), (50, "MUF_3_7", 0.4), (51, "loadbus_3_7", 0.4), (52, "KV_3_8", 0.4), (53, "loadbus_3_8", 0.4), (54, "MUF_3_9", 0.4), (55, "loadbus_3_9", 0.4), (56, "KV_3_10", 0.4), (57, "loadbus_3_10", 0.4), (58, "MUF_3_11", 0.4), (59, "loadbus_3_11", 0.4), (60, "KV_3_12", 0.4), (61, "loadbus_3_12", 0.4), (62, "MUF_3_13", 0.4), (63, "loadbus_3_13", 0.4), (64, "KV_3_14", 0.4), (65, "loadbus_3_14", 0.4), (66, "MUF_3_15", 0.4), (67, "loadbus_3_15", 0.4), (68, "KV_3_16", 0.4), (69, "loadbus_3_16", 0.4), (70, "MUF_4_1", 0.4), (71, "loadbus_4_1", 0.4), (72, "KV_4_2", 0.4), (73, "loadbus_4_2", 0.4), (74, "MUF_4_3", 0.4), (75, "loadbus_4_3", 0.4), (76, "KV_4_4", 0.4), (77, "loadbus_4_4", 0.4), (78, "MUF_4_5", 0.4), (79, "loadbus_4_5", 0.4), (80, "KV_4_6", 0.4), (81, "loadbus_4_6", 0.4), (82, "MUF_4_7", 0.4), (83, "loadbus_4_7", 0.4), (84, "KV_4_8", 0.4), (85, "loadbus_4_8", 0.4), (86, "MUF_4_9", 0.4), (87, "loadbus_4_9", 0.4), (88, "KV_4_10", 0.4), (89, "loadbus_4_10", 0.4), (90, "MUF_4_11", 0.4), (91, "loadbus_4_11", 0.4), (92, "KV_4_12", 0.4), (93, "loadbus_4_12", 0.4), (94, "MUF_5_1", 0.4), (95, "loadbus_5_1", 0.4), (96, "KV_5_2", 0.4), (97, "loadbus_5_2", 0.4), (98, "MUF_5_3", 0.4), (99, "loadbus_5_3", 0.4), (100, "KV_5_4", 0.4), (101, "loadbus_5_4", 0.4), (102, "MUF_5_5", 0.4), (103, "loadbus_5_5", 0.4), (104, "KV_5_6", 0.4), (105, "loadbus_5_6", 0.4), (106, "MUF_5_7", 0.4), (107, "loadbus_5_7", 0.4), (108, "MUF_6_1", 0.4), (109, "loadbus_6_1", 0.4), (110, "KV_6_2", 0.4), (111, "loadbus_6_2", 0.4), (112, "MUF_6_3", 0.4), (113, "loadbus_6_3", 0.4), (114, "KV_6_4", 0.4), (115, "loadbus_6_4", 0.4),),
        # (branch id, from bus, to bus, r ohm, x ohm, c nF, rating kA, length km, type)
        "branches": (
            ("T0", 0, 1, 0.0053, 0.015097, 0.0, 0.5774, 0.0, "trafo trafo 1 0.4 MVA 10/0.4 kV vk 4% vkr 1.32%"),
            ("L0", 1, 2, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L1", 2, 3, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L2", 2, 4, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L3", 4, 5, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L4", 4, 6, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L5", 6, 7, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L6", 6, 8, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L7", 8, 9, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L8", 8, 10, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L9", 10, 11, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L10", 10, 12, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L11", 12, 13, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L12", 12, 14, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L13", 14, 15, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L14", 14, 16, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L15", 16, 17, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L16", 16, 18, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L17", 18, 19, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L18", 1, 20, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L19", 20, 21, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L20", 20, 22, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L21", 22, 23, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L22", 22, 24, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L23", 24, 25, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L24", 24, 26, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L25", 26, 27, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L26", 26, 28, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L27", 28, 29, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L28", 28, 30, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L29", 30, 31, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L30", 30, 32, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L31", 32, 33, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L32", 32, 34, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L33", 34, 35, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L34", 34, 36, 0.008268, 0.003217, 33.2, 0.275, 0.04, "NAYY 4x150"),
            ("L35", 36, 37, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L36", 1, 38, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L37", 38, 39, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L38", 38, 40, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L39", 40, 41, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L40", 40, 42, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L41", 42, 43, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L42", 42, 44, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L43", 44, 45, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L44", 44, 46, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L45", 46, 47, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L46", 46, 48, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L47", 48, 49, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L48", 48, 50, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L49", 50, 51, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L50", 50, 52, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L51", 52, 53, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L52", 52, 54, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L53", 54, 55, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L54", 54, 56, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L55", 56, 57, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L56", 56, 58, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L57", 58, 59, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L58", 58, 60, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L59", 60, 61, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L60", 60, 62, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L61", 62, 63, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L62", 62, 64, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L63", 64, 65, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L64", 64, 66, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L65", 66, 67, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L66", 66, 68, 0.005994, 0.002332, 24.07, 0.275, 0.029, "NAYY 4x150"),
            ("L67", 68, 69, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L68", 1, 70, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L69", 70, 71, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L70", 70, 72, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L71", 72, 73, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L72", 72, 74, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L73", 74, 75, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L74", 74, 76, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L75", 76, 77, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L76", 76, 78, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L77", 78, 79, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L78", 78, 80, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L79", 80, 81, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L80", 80, 82, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L81", 82, 83, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L82", 82, 84, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L83", 84, 85, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L84", 84, 86, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L85", 86, 87, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L86", 86, 88, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L87", 88, 89, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L88", 88, 90, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L89", 90, 91, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L90", 90, 92, 0.006614, 0.002574, 26.56, 0.275, 0.032, "NAYY 4x150"),
            ("L91", 92, 93, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L92", 1, 94, 0.008888, 0.003458, 35.69, 0.275, 0.043, "NAYY 4x150"),
            ("L93", 94, 95, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L94", 94, 96, 0.008888, 0.003458, 35.69, 0.275, 0.043, "NAYY 4x150"),
            ("L95", 96, 97, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L96", 96, 98, 0.008888, 0.003458, 35.69, 0.275, 0.043, "NAYY 4x150"),
            ("L97", 98, 99, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L98", 98, 100, 0.008888, 0.003458, 35.69, 0.275, 0.043, "NAYY 4x150"),
            ("L99", 100, 101, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L100", 100, 102, 0.008888, 0.003458, 35.69, 0.275, 0.043, "NAYY 4x150"),
            ("L101", 102, 103, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L102", 102, 104, 0.008888, 0.003458, 35.69, 0.275, 0.043, "NAYY 4x150"),
            ("L103", 104, 105, 0.019902, 0.002573, 6.51, 0.142, 0.031, "NAYY 4x50 SE"),
            ("L104", 104, 106, 0.008888, 0.003458, 35.69, 0.275, 0.043, "NAYY 4x150"),
            ("L105", 106, 107, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L106", 1, 108, 0.013229, 0.005147, 53.12, 0.275, 0.064, "NAYY 4x150"),
            ("L107", 108, 109, 0.009626, 0.001272, 10.05, 0.141, 0.015, "NAYY 4x50"),
            ("L108", 108, 110, 0.013229, 0.005147, 53.12, 0.275, 0.064, "NAYY 4x150"),
            ("L109", 110, 111, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
            ("L110", 110, 112, 0.013229, 0.005147, 53.12, 0.275, 0.064, "NAYY 4x150"),
            ("L111", 112, 113, 0.00963, 0.001245, 3.15, 0.142, 0.015, "NAYY 4x50 SE"),
            ("L112", 112, 114, 0.013229, 0.005147, 53.12, 0.275, 0.064, "NAYY 4x150"),
            ("L113", 114, 115, 0.019893, 0.00263, 20.77, 0.141, 0.031, "NAYY 4x50"),
        ),
        # (bus, p MW, q Mvar, name)
        "loads": (
            (3, 0.006, 0.0, "None"),
            (5, 0.006, 0.0, "None"),
            (7, 0.006, 0.0, "None"),
            (9, 0.006, 0.0, "None"),
            (11, 0.006, 0.0, "None"),
            (13, 0.006, 0.0, "None"),
            (15, 0.006, 0.0, "None"),
            (17, 0.006, 0.0, "None"),
            (19, 0.006, 0.0, "None"),
            (21, 0.006, 0.0, "None"),
            (23, 0.006, 0.0, "None"),
            (25, 0.006, 0.0, "None"),
            (27, 0.006, 0.0, "None"),
            (29, 0.006, 0.0, "None"),
            (31, 0.006, 0.0, "None"),
            (33, 0.006, 0.0, "None"),
            (35, 0.006, 0.0, "None"),
            (37, 0.006, 0.0, "None"),
            (39, 0.006, 0.0, "None"),
            (41, 0.006, 0.0, "None"),
            (43, 0.006, 0.0, "None"),
            (45, 0.006, 0.0, "None"),
            (47, 0.006, 0.0, "None"),
            (49, 0.006, 0.0, "None"),
            (51, 0.006, 0.0, "None"),
            (53, 0.006, 0.0, "None"),
            (55, 0.006, 0.0, "None"),
            (57, 0.006, 0.0, "None"),
            (59, 0.006, 0.0, "None"),
            (61, 0.006, 0.0, "None"),
            (63, 0.006, 0.0, "None"),
            (65, 0.006, 0.0, "None"),
            (67, 0.006, 0.0, "None"),
            (69, 0.006, 0.0, "None"),
            (71, 0.006, 0.0, "None"),
            (73, 0.006, 0.0, "None"),
            (75, 0.006, 0.0, "None"),
            (77, 0.006, 0.0, "None"),
            (79, 0.006, 0.0, "None"),
            (81, 0.006, 0.0, "None"),
            (83, 0.006, 0.0, "None"),
            (85, 0.006, 0.0, "None"),
            (87, 0.006, 0.0, "None"),
            (89, 0.006, 0.0, "None"),
            (91, 0.006, 0.0, "None"),
            (93, 0.006, 0.0, "None"),
            (95, 0.006, 0.0, "None"),
            (97, 0.006, 0.0, "None"),
            (99, 0.006, 0.0, "None"),
            (101, 0.006, 0.0, "None"),
            (103, 0.006, 0.0, "None"),
            (105, 0.006, 0.0, "None"),
            (107, 0.006, 0.0, "None"),
            (109, 0.006, 0.0, "None"),
            (111, 0.006, 0.0, "None"),
            (113, 0.006, 0.0, "None"),
            (115, 0.006, 0.0, "None"),
        ),
        # (switch id, branch id, bus at which it sits, normally closed)
        "switches": (),
    },}


@dataclass(frozen=True)
class Branch:
    id: str
    from_bus: int
    to_bus: int
    r_ohm: float
    x_ohm: float
    c_nf: float
    rating_ka: float
    length_km: float
    kind: str

    @property
    def is_transformer(self) -> bool:
        return self.id.startswith("T")


@dataclass(frozen=True)
class Switch:
    id: str
    branch: str
    bus: int
    normally_closed: bool


@dataclass(frozen=True)
class Feeder:
    """One feeder of :data:`FEEDERS`, typed. Impedances in ohm at ``base_kv``."""

    name: str
    source: str
    confidence: str
    base_kv: float
    root_bus: int
    root_vm_pu: float
    bus_ids: tuple[int, ...]
    bus_kv: tuple[float, ...]
    branches: tuple[Branch, ...]
    load_bus: tuple[int, ...]
    load_p_mw: tuple[float, ...]
    load_q_mvar: tuple[float, ...]
    load_names: tuple[str, ...]
    switches: tuple[Switch, ...]

    def branch(self, branch_id: str) -> Branch:
        return next(b for b in self.branches if b.id == branch_id)

    def normally_open_branches(self) -> set[str]:
        """Branches with at least one normally-open switch (open in the normal state)."""
        return {s.branch for s in self.switches if not s.normally_closed}

    def z_pu(self, base_mva: float) -> tuple[np.ndarray, np.ndarray]:
        """Series ``r, x`` of every branch, per unit on ``(base_kv, base_mva)``."""
        zb = self.base_kv**2 / base_mva
        r = np.array([b.r_ohm for b in self.branches]) / zb
        x = np.array([b.x_ohm for b in self.branches]) / zb
        return r, x

    def bus_demand_mw(self) -> tuple[np.ndarray, np.ndarray]:
        """Total ``(p MW, q Mvar)`` demand per bus (index = position in ``bus_ids``)."""
        pos = {b: i for i, b in enumerate(self.bus_ids)}
        p = np.zeros(len(self.bus_ids))
        q = np.zeros(len(self.bus_ids))
        for b, pm, qm in zip(self.load_bus, self.load_p_mw, self.load_q_mvar):
            p[pos[b]] += pm
            q[pos[b]] += qm
        return p, q

    def rating_mva(self, branch: Branch) -> float:
        """Thermal rating ``√3 U I`` at ``base_kv``."""
        return math.sqrt(3.0) * self.base_kv * branch.rating_ka


def feeder(name: str) -> Feeder:
    """The typed feeder ``name`` from :data:`FEEDERS`."""
    d = FEEDERS[name]
    loads = d["loads"]
    return Feeder(
        name=name,
        source=d["source"],
        confidence=d["confidence"],
        base_kv=float(d["base_kv"]),
        root_bus=int(d["root_bus"]),
        root_vm_pu=float(d["root_vm_pu"]),
        bus_ids=tuple(int(b[0]) for b in d["buses"]),
        bus_kv=tuple(float(b[2]) for b in d["buses"]),
        branches=tuple(Branch(*b) for b in d["branches"]),
        load_bus=tuple(int(ld[0]) for ld in loads),
        load_p_mw=tuple(float(ld[1]) for ld in loads),
        load_q_mvar=tuple(float(ld[2]) for ld in loads),
        load_names=tuple(str(ld[3]) for ld in loads),
        switches=tuple(Switch(*s) for s in d["switches"]),
    )
