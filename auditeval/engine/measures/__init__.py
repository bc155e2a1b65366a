"""The measure table: one explicit dict, merged from the family modules.

To add a measure: write a pure function in a family module (see :mod:`.base` for the
contract), add a :class:`~.base.MeasureDef` row to that module's ``DEFS``, and make sure
the module is listed here.
"""

from __future__ import annotations

from . import cascade, core, trec_gain, trec_set
from .base import MeasureDef

MEASURES: dict[str, MeasureDef] = {
    **core.DEFS,
    **trec_set.DEFS,
    **trec_gain.DEFS,
    **cascade.DEFS,
}

__all__ = ["MEASURES", "MeasureDef"]
