"""``auditeval sweep`` as a process: the same stdout bytes in process, on ``--jobs 2`` and on a
two-worker dask ``LocalCluster``, in text, TSV and JSON, without ``-q`` (the aggregates-only
parts, the text tables); the command's process never imports pandas; and pyarrow, told there
is none (``execution/no_pandas.py``), converts without it and still hands a table to pandas
when asked."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest
from paths import EXAMPLES, REPO

PY = sys.executable
SWEEP = ["sweep", str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "bm25.txt"), str(EXAMPLES / "rerank.txt"),
         "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "--vary", "ties", "--vary", "depth", "--vary", "rel",
         "--vary", "unjudged"]


def _run(*argv: str) -> tuple[bytes, bytes]:
    """stdout and stderr bytes of ``python -m auditeval ARGV`` (exit 0 asserted)."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([PY, "-m", "auditeval", *argv], capture_output=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout, p.stderr


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    c = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, host="127.0.0.1")
    yield c
    c.close()


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "tsv", "json"])
def test_same_bytes_in_process_on_a_pool_and_on_a_cluster(fmt, cluster):
    got = [_run(*SWEEP, "--format", fmt, *extra)
           for extra in ([], ["--jobs", "2"], ["--scheduler", cluster.scheduler_address])]
    outs = {hashlib.sha256(o).hexdigest() for o, _ in got}
    assert len(outs) == 1, fmt
    assert {e for _, e in got} == {got[0][1]}  # the notes too
    out = got[0][0].decode()
    assert out.count("\n") > 40  # 3 measures x variants x 2 runs: a real table, not an empty success
    if fmt == "tsv":
        assert out.startswith("run\tmeasure\ttopic\tvalue\tvariant\tengine\n")
        assert len(out.splitlines()) - 1 == 2 * len({ln.split("\t")[4] for ln in out.splitlines()[1:]})


def test_the_sweep_command_imports_no_pandas():
    code = ("import sys, io\n"
            "from auditeval.cli.main import main\n"
            f"rc = main({[*SWEEP, '--format', 'json']!r}, io.StringIO(), io.StringIO())\n"
            "print(rc, 'pandas' in sys.modules)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.stdout.split() == ["0", "False"], p.stderr


def test_pyarrow_told_there_is_no_pandas_converts_without_it_and_still_reaches_it():
    code = ("import sys\n"
            "from auditeval.execution.no_pandas import skip_pandas_probe\n"
            "skip_pandas_probe()\n"
            "import numpy as np, pyarrow as pa\n"
            "a = pa.array(['x', None]); s = pa.scalar('y')\n"
            "n = pa.chunked_array([pa.array([1, 2])]).to_numpy()\n"
            "print(a.to_pylist(), s.as_py(), n.tolist(), 'pandas' in sys.modules)\n"
            "df = pa.table({'a': [1, 2]}).to_pandas()\n"
            "print(type(df).__name__, df['a'].tolist(), pa.Table.from_pandas(df).num_rows)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    first, second = p.stdout.splitlines()
    assert first == "['x', None] y [1, 2] False"
    assert second == "DataFrame [1, 2] 2"
