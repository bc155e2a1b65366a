"""Output lines, byte for byte as trec_eval prints them (meas_print_single.c, meas_print_final.c).

* float values: ``"%-22s\\t%s\\t%6.4f\\n"`` (name, topic or ``all``, value); C prints NaN as
  ``nan`` or ``-nan`` by its sign bit, right-aligned in 6 columns;
* counts (``num_*``): ``"%-22s\\t%s\\t%ld\\n"`` of the value cast to long;
* ``relstring``: the string in single quotes, per topic only;
* ``runid``: ``"%-22s\\tall\\t%s\\n"`` with the run id of the last results line.

With ``--variants`` each line gets the auditeval variant string as a fourth, tab-separated
column (``-`` for runid, which is no measure).
"""

from __future__ import annotations

import math

import numpy as np


def c_float(value: float) -> str:
    """C ``printf("%6.4f", value)``."""
    v = float(value)
    if math.isnan(v):
        return ("-nan" if np.signbit(value) else "nan").rjust(6)
    if math.isinf(v):
        return ("-inf" if v < 0 else "inf").rjust(6)
    return f"{v:6.4f}"


def c_long(value: float) -> str:
    """C ``printf("%ld", (long) value)``: truncation toward zero."""
    v = float(value)
    if not math.isfinite(v):
        return "-9223372036854775808"
    return str(int(v))


def value_text(value, fmt: str) -> str:
    if fmt == "long":
        return c_long(value)
    if fmt == "str":
        s = "" if value is None else str(value)
        return s if s.startswith("'") else f"'{s}'"
    return c_float(value)


def line(name: str, topic: str, text: str, variant: str | None = None) -> str:
    s = f"{name:<22}\t{topic}\t{text}"
    if variant is not None:
        s += "\t" + variant
    return s + "\n"
