"""Progress bars (rich) on long work, only when the output is a terminal.

``with Steps(out, total) as steps: steps.advance("reading run.txt")`` shows a transient bar
on ``out`` when it is a terminal and does nothing otherwise (pipes and files get only the
output). Text written through :meth:`Steps.write` appears above a live bar.
"""

from __future__ import annotations

from typing import TextIO


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
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            console = Console(file=self.out)
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
