"""Pyomo/HiGHS formulations: ``build_<problem>()`` composed from ``add_<constraints>()``
functions, and one :func:`psab.solvers.core.solve` that touches the solver.

Nothing here is imported by ``import psab``; Pyomo loads on the first reference solve.
"""
