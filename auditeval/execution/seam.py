"""What a command's tasks and the backends that run them agree on, below both: the shape of a
task (:data:`Task`), of a progress callback (:data:`Progress`) and of a backend as the task
side calls it (:class:`Seam`: ``share`` once, ``map`` over items, results in item order).

:mod:`auditeval.execution.backends` implements it (every :class:`~auditeval.execution.backends.Backend`
is a :class:`Seam`); :mod:`auditeval.execution.tasks` is written against it, so the tasks do
not import the backends, whose pool workers import the tasks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

Task = Callable[[Any, Any], Any]
"""A task function: ``fn(shared, item) -> result``; module-level (picklable by reference)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called in the parent after each finished task."""


class Seam(Protocol):
    """A backend as the tasks use it (:class:`auditeval.execution.backends.Backend`)."""

    def share(self, value: Any) -> Any:
        """A handle every task of a map receives as ``shared``."""
        ...

    def map(self, fn: Task, shared: Any, items: Sequence[Any], labels: Sequence[str] | None = None,
            progress: Progress | None = None) -> Iterator[Any]:
        """``fn(shared, item)`` for each item, yielded in item order."""
        ...
