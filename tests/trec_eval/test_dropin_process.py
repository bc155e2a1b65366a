"""The drop-in's process settings (``execution/malloc.py: tune_process_memory``): mimalloc's
options for ``auditeval trec-eval`` only, set before pyarrow loads, the environment's own
values kept; each case in a fresh interpreter (the settings are process state)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from paths import REPO

PROBE = (
    "import json, os, sys\n"
    "first = sys.argv.pop(1)\n"
    "if first == 'pyarrow-first': import pyarrow\n"
    "sys.argv = ['auditeval', *sys.argv[1:]]\n"
    "from auditeval.execution.malloc import tune_process_memory; tune_process_memory()\n"
    "print(json.dumps({k: os.environ.get(k) for k in ('MIMALLOC_PURGE_DELAY', 'MIMALLOC_ARENA_EAGER_COMMIT')}))\n"
)


def _options(command: str, first: str = "-", **env: str) -> dict:
    e = {k: v for k, v in os.environ.items() if not k.startswith("MIMALLOC_")}
    e.update(env, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", PROBE, first, command], capture_output=True, text=True, env=e,
                         check=True).stdout
    return json.loads(out)


def test_mimalloc_options_for_the_dropin_only():
    assert _options("trec-eval") == {"MIMALLOC_PURGE_DELAY": "10", "MIMALLOC_ARENA_EAGER_COMMIT": "0"}
    assert _options("eval") == {"MIMALLOC_PURGE_DELAY": None, "MIMALLOC_ARENA_EAGER_COMMIT": None}
    assert _options("trec-eval", MIMALLOC_PURGE_DELAY="250") == {
        "MIMALLOC_PURGE_DELAY": "250", "MIMALLOC_ARENA_EAGER_COMMIT": "0"}  # the environment's value kept
    # mimalloc read its options when pyarrow loaded: nothing is set after
    assert _options("trec-eval", "pyarrow-first") == {"MIMALLOC_PURGE_DELAY": None, "MIMALLOC_ARENA_EAGER_COMMIT": None}
