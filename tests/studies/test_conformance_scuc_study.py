"""The study conformance checks (tests/studies/study_conformance.py) for scuc_study."""

from study_conformance import *  # noqa: F403 - the shared checks, collected for this study

STUDY = "scuc_study"
