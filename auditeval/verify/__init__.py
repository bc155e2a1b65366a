"""Checking numbers against other numbers: reproduction measures, tool-output diffs,
claim verification and provenance cards.

* :mod:`.reproduce`: how closely a re-run reproduces an original run (KTU, RBO, RMSE,
  effect ratio, delta relative improvement, paired t-test; Breuer et al., SIGIR 2020).
* :mod:`.tool_output`: readers for other tools' output files (trec_eval, ir_measures,
  ranx, pytrec_eval, auditeval JSON, CSV) with format detection and measure-name mapping.
* :mod:`.diff`: align two tool outputs, report every difference beyond printing precision.
* :mod:`.search`: the one variant search (which conventions reproduce a number).
* :mod:`.claims`: ``verify``: which settings reproduce a published number.
* :mod:`.card`: reviewer-ready provenance cards (Markdown, LaTeX, HTML, JSON).
* :mod:`.claims_file`, :mod:`.claim_check`, :mod:`.claims_lock`, :mod:`.claims_card`: claims
  files (a table as TOML), one claim held to its run with its failure explained, the lock
  (values and variant strings written back), a claims file as cards.
* :mod:`.same_values`: two tools' outputs or result sets aligned, differences explained by axis.
* :mod:`auditeval.cli.verify`, :mod:`auditeval.cli.reproduce`, :mod:`auditeval.cli.diff`,
  :mod:`auditeval.cli.card`: the ``verify``, ``reproduce``, ``diff`` and ``card`` commands.
"""
