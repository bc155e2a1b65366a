"""Where a command's work runs: one seam (:class:`Backend`) for every command that maps work
over runs, pairs or orders, in process (``--jobs 1``), on a local process pool (``--jobs N``)
or on a ``dask.distributed`` cluster (``--scheduler ADDRESS``); results in item order, so the
output is the same bytes on every backend. ``backends``: the three backends, retries and
failure reports, Ctrl-C; ``tasks``: the picklable tasks (one run each), computed by the
functions the serial path calls. It sits beside the analyses: it imports the engine's door,
the analyses and :mod:`auditeval.api`'s evaluation; only the command line imports it.
"""

from auditeval.execution.backends import (
    Backend,
    DaskCluster,
    InProcess,
    LocalPool,
    RemoteError,
    TaskFailed,
    backend_for,
    cores,
)

__all__ = ["Backend", "DaskCluster", "InProcess", "LocalPool", "RemoteError", "TaskFailed", "backend_for", "cores"]
