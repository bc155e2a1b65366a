"""pyarrow told, once per process, that pandas is not there, without importing it.

pyarrow probes for pandas on its first ``pa.scalar``, ``pa.array(list)`` or
``ChunkedArray.to_numpy`` (its pandas shim, ``pyarrow.lib._pandas_api``, checks every input
for a DataFrame or Series) and the probe imports pandas: 0.25-0.45 CPU s in the sweep's
process and again in each pool worker, where no DataFrame is ever made. :func:`skip_pandas_probe`
answers the probes (the shim's, and the C++ sequence converter's, which looks up pandas'
missing-value objects once) under a finder that refuses ``import pandas`` (as the trec_eval drop-in's
process does for good, ``cli/main.py``), then removes the finder: pyarrow then takes the
inputs of this process for what they are (the command line's are files and Arrow tables, never
pandas objects), and a later explicit use (``Table.to_pandas``, ``SweepResult.to_frame``)
still imports pandas, as the shim tries again whenever pandas is asked for by name.

Called by the sweep command before it reads its inputs and by every local pool worker
(:func:`~auditeval.execution.backends._worker_start`); never in a dask worker, which may
serve other clients. Nothing happens where pandas is already imported or the shim is not
where this pyarrow keeps it.
"""

from __future__ import annotations

import sys


class NoPandas:
    """A ``sys.meta_path`` finder under which ``import pandas`` raises ImportError (the sweep's
    probe holds it for a moment; the trec_eval drop-in's process for good, ``cli/main.py``)."""

    def find_spec(self, name: str, path=None, target=None) -> None:
        if name == "pandas":
            raise ModuleNotFoundError("pandas is not imported here", name=name)
        return None


def skip_pandas_probe() -> None:
    """Answer pyarrow's pandas probe with "none" without importing pandas (module docstring)."""
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    shim = getattr(pa.lib, "_pandas_api", None)
    if shim is None:
        return
    finder = NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        shim.have_pandas  # noqa: B018 - the shim's probe: it remembers the ImportError
        pa.array([None, "x"])  # the C++ converter's own probe (pandas' NA and NaT), made once per process
    finally:
        sys.meta_path.remove(finder)
