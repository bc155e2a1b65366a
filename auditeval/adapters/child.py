"""Child-process entry point for the Python reference tools: ``python -m auditeval.adapters.child SPEC OUT``.

Reads the JSON spec written by :mod:`auditeval.adapters.runner`, calls the adapter's
``compute`` (which imports the tool here, never in the parent) and writes the values as JSON.
A crash exits non-zero with the traceback on stderr; the parent reports its tail.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    from . import ADAPTERS

    spec = json.loads(open(argv[0], encoding="utf-8").read())
    adapter = ADAPTERS[spec["adapter"]]
    values = adapter.compute(spec)
    with open(argv[1], "w", encoding="utf-8") as fh:
        json.dump(values, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
