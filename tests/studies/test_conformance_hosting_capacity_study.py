"""The study conformance checks (tests/studies/study_conformance.py) for hosting_capacity_study."""

from study_conformance import *  # noqa: F403 - the shared checks, collected for this study

STUDY = "hosting_capacity_study"
