"""Progress bars (rich) on long work, only when the output is a terminal.

``with Steps(out, total) as steps: steps.advance("reading run.txt")`` shows a transient bar
on ``out`` when it is a terminal and does nothing otherwise (pipes and files get only the
output). Text written through :meth:`Steps.write` appears above a live bar.

The audit's display (:func:`audit_progress`, :class:`ReferenceBoard`): one line per native
step (a bar) and one per reference: ``waiting``, ``running`` with its elapsed time, ``done``
with its wall and CPU seconds, or ``failed`` / ``timeout``; on stderr, only on a terminal.
"""

from __future__ import annotations

import threading
from typing import Any, TextIO


def _is_terminal(out: TextIO) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):
        return False


class Steps:
    """A counted sequence of steps with a bar while it runs (terminal only)."""

    def __init__(self, out: TextIO, total: int, label: str = "auditeval"):
        self.out = out
        self.total = total
        self.label = label
        self._progress = None
        self._task = None

    def __enter__(self) -> Steps:
        if _is_terminal(self.out) and self.total > 1:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            from auditeval.render.terminal import console as safe_console

            console = safe_console(file=self.out)
            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=console, transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=self.total)
        return self

    def advance(self, description: str | None = None) -> None:
        """Mark one step done; ``description`` names the next one."""
        if self._progress is not None:
            self._progress.update(self._task, advance=1, description=description or self.label)

    def describe(self, description: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=description)

    def write(self, text: str) -> None:
        """Write ``text`` to the output (above the bar while one is shown)."""
        if self._progress is not None:
            self._progress.console.print(text, end="", markup=False, highlight=False, soft_wrap=True)
        else:
            self.out.write(text)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def audit_progress(out: TextIO, show: bool | None = None) -> AuditDisplay | None:
    """The audit's display on ``out`` (its steps and one line per reference), or None when
    ``show`` is false (default: when ``out`` is a terminal). Pass it as ``audit(progress=...)``:
    the audit (an analysis) never imports a renderer, it feeds the display it is given."""
    if not (_is_terminal(out) if show is None else show):
        return None
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.text import Text

    from auditeval.render.terminal import console

    class State(ProgressColumn):
        def render(self, task: Any) -> Text:
            return Text(str(task.fields.get("state", "")))

    return AuditDisplay(Progress(TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(), State(),
                                 console=console(file=out), transient=True))


class AuditDisplay:
    """A rich ``Progress`` (``add_task``, ``advance``, ... pass through) that also makes the
    reference board: ``references(expected)`` returns the runner's event callback."""

    def __init__(self, progress: Any):
        self.progress = progress

    def __enter__(self) -> AuditDisplay:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self.progress.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.progress, name)

    def references(self, expected: list[tuple[str, float]]):
        """``event(name, "start" | "end", outcome)`` drawing one line per reference."""
        return ReferenceBoard(self.progress, expected).event


class ReferenceBoard:
    """One line per reference on an :func:`audit_progress` display, fed by the runner's events
    (``event(name, "start" | "end", outcome)``, called from its worker threads)."""

    def __init__(self, progress: Any, expected: list[tuple[str, float]]):
        self.progress = progress
        self.lock = threading.Lock()
        self.task = {name: progress.add_task(f"reference {name}", total=1, start=False,
                                             state=f"waiting (expected ~{sec:.0f} s CPU)")
                     for name, sec in expected}

    def event(self, name: str, what: str, outcome: Any = None) -> None:
        task = self.task.get(name)
        if task is None:
            return
        with self.lock:
            if what == "start":
                self.progress.start_task(task)
                self.progress.update(task, state="running")
                return
            self.progress.stop_task(task)
            if outcome is None:
                self.progress.update(task, state="stopped")
            elif outcome.status == "ok":
                self.progress.update(task, completed=1,
                                     state=f"done: {outcome.seconds:.1f} s, CPU {outcome.cpu_seconds:.1f} s")
            else:
                self.progress.update(task, state=f"{outcome.status} after {outcome.seconds:.1f} s")
