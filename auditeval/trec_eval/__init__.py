"""``auditeval trec-eval``: a drop-in for trec_eval 9.0.8 / 10.0 computed by auditeval.

Entry point: :func:`main` (``main(argv, stdout=None, stderr=None) -> int``, argv without
the program name). Modules: :mod:`.args` flags, :mod:`.catalog` measure tables per version,
:mod:`.params` ``-m NAME.PARAMS``, :mod:`.parse` input files, :mod:`.order` NaN ordering and
duplicate checks, :mod:`.format` output lines, :mod:`.run` control flow.
"""

from auditeval.trec_eval.run import main

__all__ = ["main"]
