"""The agent runner: sandboxes, agents, attempts and failure classes, run records, summaries.

This package (with the CLI) is the only part of psab that starts processes and writes run
files. Modules:

``agents``        agent specs, built-in agents, infrastructure-failure rules, agents files
``sandbox``       per-attempt sandbox directories, the scrubbed environment, bwrap / relocation
``instructions``  the instructions file (English / Russian)
``tiers``         the tier seam: what a tier supplies to the one run loop; the toolbox
``loop``          the one run loop: preflight, planning, manifest, threads or Dask, resume, summaries
``execute``       one case on a worker (any tier): attempts, classification, grading → record
``store``         the run directory: manifest, durable records, artifacts
``summary``       aggregates with and without infrastructure retries
``run``           the compact tier (``start``, and ``resume`` for every tier)
``fleet``         the fleet tier: questions answered through the tools
``study``         the study tier: studies on real-size models in the field's own files
``cli``           ``psab run``

The built-in agents' program, ``agent_script.py``, is never imported: it runs inside the
sandbox under the system interpreter.
"""

from psab.runner.agents import (
    AgentSpec,
    InfraRule,
    builtin_agent,
    load_agents_file,
    parse_agent_arg,
)
from psab.runner.run import RunOptions, RunReport, resume, start

__all__ = [
    "AgentSpec",
    "InfraRule",
    "RunOptions",
    "RunReport",
    "builtin_agent",
    "load_agents_file",
    "parse_agent_arg",
    "resume",
    "start",
]
