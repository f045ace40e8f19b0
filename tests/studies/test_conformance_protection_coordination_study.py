"""The study conformance checks (tests/studies/study_conformance.py) for protection_coordination_study."""

from study_conformance import *  # noqa: F403 - the shared checks, collected for this study

STUDY = "protection_coordination_study"
