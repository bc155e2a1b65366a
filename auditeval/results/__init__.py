"""Result objects: plain data with ``to_frame()``, read by every renderer.

:mod:`.values` (``Value``, ``ResultSet``, ``Refusal``: what ``evaluate`` returns),
:mod:`.audit` (``AuditReport``), :mod:`.ir_metadata` (the ir_metadata evaluation block of a
result set), :mod:`.subset` (``TopicSubset``, ``subset_variant``: the variant text of a number
averaged over fewer topics than ``eval`` uses). Imports only :mod:`auditeval.vocab` and :mod:`auditeval.io`.
"""

from auditeval.results.values import Refusal, ResultSet, Value

__all__ = ["Refusal", "ResultSet", "Value"]
