"""Pure closed-form physics, one module per topic. Imports only ``math`` and ``numpy``.

Functions here take plain numbers and arrays and return numbers, arrays or small frozen
dataclasses: no file I/O, no globals, no randomness. They are what the golden cases and
property tests exercise directly, and what the evaluators, reference solvers and
generators share.
"""
