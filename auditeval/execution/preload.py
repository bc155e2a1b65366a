"""What a local pool's fork server imports once, before it forks the workers.

:class:`~auditeval.execution.backends.LocalPool` starts its workers from a ``forkserver``
(where the platform has one, :func:`~auditeval.execution.backends.pool_context`) that imports
this module first: every worker is then a fork of a process that has already imported the task
functions (:mod:`auditeval.execution.tasks`: the engine, numpy, pyarrow, 0.3-0.4 CPU s a
process), instead of a fresh interpreter importing them once per worker (``spawn``). Importing it sets, in the importing process only, one
thread of numeric work (:data:`~auditeval.execution.backends.ONE_THREAD`, before numpy loads
its BLAS) and answers pyarrow's pandas probes without pandas
(:mod:`auditeval.execution.no_pandas`); the fork server runs no task and starts no thread, so
forking it is safe.
"""

from __future__ import annotations

import os

from auditeval.execution.backends import ONE_THREAD

for _var in ONE_THREAD:
    os.environ.setdefault(_var, "1")

from auditeval.execution.no_pandas import skip_pandas_probe  # noqa: E402

skip_pandas_probe()

import auditeval.execution.tasks  # noqa: E402, F401
