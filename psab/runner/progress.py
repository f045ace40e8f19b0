"""Progress display: a bar on an interactive terminal, plain lines otherwise.

:class:`Progress` follows a run (``psab run``); :class:`Steps` follows any other long command
(held-out draws, manifests, the sensitivity sweep) with the same bar and the same rule for
choosing it. Both write to stderr, so stdout keeps only the command's result.

Held-out cases are reported by count only (no task ids, no per-case scores), so a log of a
held-out run can be shared like its summary.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from psab.runner.execute import AGENT_FAILURE, INFRA_FAILURE
from psab.runner.summary import outcome

#: Values of the commands' ``--progress`` option.
MODES = ("auto", "bar", "lines", "none")


def _mode(stream: TextIO, mode: str) -> str:
    """``auto`` is a bar on an interactive terminal and plain lines otherwise (logs, pipes, CI)."""
    if mode == "auto":
        return "bar" if getattr(stream, "isatty", lambda: False)() else "lines"
    return mode


def _bar(done: int, total: int, width: int = 28) -> str:
    filled = int(width * done / max(total, 1))
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


class Steps:
    """Progress of a long command counted in steps of one kind (``what``: "draws", "families").

    ``advance(n, label)`` after each finished piece of work: on a terminal it redraws one bar
    line; otherwise it writes ``[done/total] label`` per call, so a log shows what ran.
    """

    def __init__(self, total: int, what: str, stream: TextIO | None = None, mode: str = "auto") -> None:
        self.total = total
        self.what = what
        self.done = 0
        self.stream = stream or sys.stderr
        self.mode = _mode(self.stream, mode)
        self.started = time.monotonic()
        self._drawn = False

    def advance(self, n: int = 1, label: str = "") -> None:
        self.done += n
        if self.mode == "none":
            return
        if self.mode == "bar":
            elapsed = time.monotonic() - self.started
            self.stream.write(f"\r{_bar(self.done, self.total)} {self.what}  {label}  {elapsed:.0f}s\x1b[K")
            self._drawn = True
        else:
            self.stream.write(f"[{self.done}/{self.total}] {label}".rstrip() + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


class Progress:
    def __init__(self, total: int, done: int = 0, stream: TextIO | None = None, mode: str = "auto") -> None:
        self.total = total
        self.done = done
        self.stream = stream or sys.stderr
        self.mode = _mode(self.stream, mode)
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
            elapsed = time.monotonic() - self.started
            self.stream.write(
                f"\r{_bar(self.done, self.total)}  mean {mean:.3f}  "
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
