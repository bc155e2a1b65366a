"""The drop-in's process settings (``execution/malloc.py: tune_process_memory``): Arrow's
jemalloc pool for ``auditeval trec-eval`` only, unless the environment chooses a pool; each
case in a fresh interpreter (a pool is process state)."""

from __future__ import annotations

import os
import subprocess
import sys

from paths import REPO, missing

PROBE = (
    "import sys; sys.argv = ['auditeval', *sys.argv[1:]]\n"
    "from auditeval.execution.malloc import tune_process_memory; tune_process_memory()\n"
    "import pyarrow as pa; print(pa.default_memory_pool().backend_name)\n"
)


def _pool(command: str, **env: str) -> str:
    e = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    e.update(env, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-c", PROBE, command], capture_output=True, text=True, env=e,
                          check=True).stdout.strip()


def test_the_dropin_reads_through_jemalloc_and_nothing_else_changes():
    import pyarrow as pa

    try:
        pa.jemalloc_memory_pool()
    except NotImplementedError:
        missing("this pyarrow has no jemalloc (the drop-in keeps the default pool)")
    default = _pool("eval")
    assert _pool("trec-eval") == "jemalloc"
    assert _pool("trec-eval", ARROW_DEFAULT_MEMORY_POOL="system") == "system"  # the environment chooses
    assert default == pa.default_memory_pool().backend_name  # other commands: pyarrow's default
