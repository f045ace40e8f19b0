"""Progress display: a bar on an interactive terminal, plain lines otherwise.

Held-out cases are reported by count only (no task ids, no per-case scores), so a log of a
held-out run can be shared like its summary.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from psab.runner.execute import AGENT_FAILURE, INFRA_FAILURE
from psab.runner.summary import outcome


class Progress:
    def __init__(self, total: int, done: int = 0, stream: TextIO | None = None, mode: str = "auto") -> None:
        self.total = total
        self.done = done
        self.stream = stream or sys.stderr
        if mode == "auto":
            mode = "bar" if getattr(self.stream, "isatty", lambda: False)() else "lines"
        self.mode = mode
        self.scores: list[float] = []
        self.agent_failures = 0
        self.infra_failures = 0
        self.started = time.monotonic()
        self._drawn = False

    def update(self, record: dict[str, Any]) -> None:
        self.done += 1
        cls, _, _, score = outcome(record, "retries")  # the record's final attempt is its result
        self.scores.append(score)
        self.agent_failures += cls == AGENT_FAILURE
        self.infra_failures += cls == INFRA_FAILURE
        if self.mode == "none":
            return
        mean = sum(self.scores) / len(self.scores)
        if self.mode == "bar":
            width = 28
            filled = int(width * self.done / max(self.total, 1))
            elapsed = time.monotonic() - self.started
            self.stream.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}  mean {mean:.3f}  "
                f"agent failures {self.agent_failures}  infra failures {self.infra_failures}  {elapsed:.0f}s\x1b[K"
            )
            self._drawn = True
        else:
            if record["split"] == "heldout":
                what = f"{record['agent']} heldout case: {cls}"
            else:
                what = f"{record['agent']} {record['task_id']}: {cls}, score {score:.3f}"
            retries = f" ({record['n_attempts']} attempts)" if record.get("n_attempts", 1) > 1 else ""
            self.stream.write(f"[{self.done}/{self.total}] {what}{retries}; running mean {mean:.3f}\n")
        self.stream.flush()

    def note(self, text: str) -> None:
        if self.mode == "none":
            return
        if self._drawn:
            self.stream.write("\n")
            self._drawn = False
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
