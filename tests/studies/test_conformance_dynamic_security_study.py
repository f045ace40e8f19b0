"""The study conformance checks (tests/studies/study_conformance.py) for dynamic_security_study."""

from study_conformance import *  # noqa: F403 - the shared checks, collected for this study

STUDY = "dynamic_security_study"
