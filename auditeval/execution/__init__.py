"""Where a command's work runs: one seam (:class:`Backend`) for every command that maps work
over runs, pairs or orders, in process (``--jobs 1``), on a local process pool (``--jobs N``)
or on a ``dask.distributed`` cluster (``--scheduler ADDRESS``); results in item order, so the
output is the same bytes on every backend. ``backends``: the three backends, retries and
failure reports, Ctrl-C; ``seam``: what both sides agree on (a task's and a backend's shape);
``tasks``: the picklable tasks (one run each), computed by the functions the serial path
calls. It sits beside the analyses: it imports the engine's door, the analyses and
:mod:`auditeval.api`'s evaluation; only the command line imports it.
"""

from typing import Any

__all__ = ["SCHEDULER_TIMEOUT", "Backend", "DaskCluster", "InProcess", "LocalPool", "RemoteError", "TaskFailed",
           "backend_for", "check_address", "cores", "worker_count"]


def __getattr__(name: str) -> Any:
    """The backends' names, loaded on first use (PEP 562): the command line imports
    :mod:`auditeval.execution.malloc` first thing, and the drop-in never needs a backend."""
    if name in __all__:
        from auditeval.execution import backends

        return getattr(backends, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
