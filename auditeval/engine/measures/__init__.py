"""The kernel table: each spec row (:data:`auditeval.vocab.specs.SPECS`) bound to its kernel.

To add a measure: add its row to :mod:`auditeval.vocab.spec_table`, write a pure kernel in a
family module here (see :mod:`.base` for the contract) and list it in that module's
``KERNELS``. Every spec row must have exactly one kernel (checked at import).
"""

from __future__ import annotations

from auditeval.engine.measures import cascade, core, cwl, diversity, pairwise, trec_gain, trec_set
from auditeval.engine.measures.base import MeasureDef
from auditeval.vocab.specs import SPECS

_KERNELS = {**core.KERNELS, **trec_set.KERNELS, **trec_gain.KERNELS, **cascade.KERNELS, **cwl.KERNELS,
            **pairwise.KERNELS, **diversity.KERNELS}
if set(_KERNELS) != set(SPECS):  # pragma: no cover - a table edit without its kernel
    raise ImportError(f"spec rows and kernels differ: {sorted(set(_KERNELS) ^ set(SPECS))}")

MEASURES: dict[str, MeasureDef] = {name: MeasureDef.bind(spec, _KERNELS[name]) for name, spec in SPECS.items()}

__all__ = ["MEASURES", "MeasureDef"]
