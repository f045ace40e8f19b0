"""ybus_construction: the words every draw carries (issue 33)."""

from __future__ import annotations

import psab


def test_provenance_of_a_57_bus_draw_does_not_call_it_a_6_bus_case() -> None:
    """Issue 33: a level-3 draw (MATPOWER case57, 57 buses) carried the note "applied directly to a
    6-bus case"; the note now names the network each level draws."""
    task = psab.generate("ybus_construction", 20261130, 0, level=3)
    assert len(task.public_inputs["buses"]) == 57
    notes = " ".join(p["note"] for p in task.provenance)
    assert "to a 6-bus case" not in notes
    assert "57-bus" in notes and "14-bus" in notes
