"""The words every layer shares, importing nothing else of auditeval.

:mod:`.errors` (the exceptions), :mod:`.model` (``Qrels``/``Run`` as Arrow tables and their
builders), :mod:`.conventions` (``AXES``, ``Convention``, the profiles), :mod:`.measure`
(the measure grammar, ``Measure``), :mod:`.names` (every spelling of a measure: ir_measures,
ranx, trec_eval, hints for wrong ones), :mod:`.specs` + :mod:`.spec_table` (the measure spec
table), :mod:`.variant` (``Variant``, ``fold``: a measure and a convention -> the variant string).
"""
