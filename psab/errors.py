"""psab's exceptions: raised only for the caller's mistakes, never for an agent's answer.

The tree::

    PsabError
    ├── UnknownFamilyError        no family with that id is registered
    ├── InvalidTaskError          a task (or case directory) does not satisfy the task schema
    │   └── InfeasibleTaskError       its reference model provably has no feasible point (also a SolverError)
    ├── InvalidArgumentError      a caller passed a value psab cannot use (path, seed, option)
    ├── BackendError
    │   ├── UnknownBackendError       the backend name is not one psab knows
    │   ├── BackendNotSupportedError  the family does not declare that backend
    │   └── BackendUnavailableError   the backend's package is not installed
    ├── SolverError               a reference optimisation did not reach proven optimality
    ├── GenerationError           a held-out draw exhausted its redraw budget
    └── RunnerError               the agent runner was misconfigured (bad agent spec, run dir)

An answer written by an agent — malformed JSON, wrong types, NaN, missing fields — never
raises: it becomes an infeasible :class:`psab.contract.EvaluationResult` with violations.
"""

from __future__ import annotations


class PsabError(Exception):
    """Base class of every exception psab raises on purpose."""


class UnknownFamilyError(PsabError, KeyError):
    """No family with the requested id is registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class InvalidTaskError(PsabError, ValueError):
    """A task does not satisfy the task schema or its family's expectations."""


class InvalidArgumentError(PsabError, ValueError):
    """A caller-supplied argument (path, seed, option) cannot be used."""


class BackendError(PsabError):
    """A problem with the requested physics backend."""


class UnknownBackendError(BackendError, ValueError):
    """The backend name is not one psab knows."""


class BackendNotSupportedError(BackendError, ValueError):
    """The family does not declare the requested backend."""


class BackendUnavailableError(BackendError, ImportError):
    """The backend's third-party package is not installed."""


class SolverError(PsabError, RuntimeError):
    """A reference optimisation ended without a proven optimum."""


class InfeasibleTaskError(InvalidTaskError, SolverError):
    """A task whose reference model provably has no feasible point (HiGHS proves the model
    infeasible, or a constraint's data alone break it): the task asks for the impossible, the
    caller's error. Also a :class:`SolverError`, so code that treats every failed solve alike
    (a family's heuristic, the held-out acceptance loop) still catches it."""


class GenerationError(PsabError, RuntimeError):
    """A held-out draw could not be accepted within its redraw budget."""


class RunnerError(PsabError, RuntimeError):
    """The agent runner was given something it cannot run."""
