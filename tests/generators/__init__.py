"""Tests of the held-out kernel (psab.generators)."""
