"""``auditeval trec-eval``: a drop-in for trec_eval 8.0 to 10.0 computed by auditeval.

Entry point: :func:`main` (``main(argv, stdout=None, stderr=None) -> int``, argv without
the program name). Modules: :mod:`.args` flags, :mod:`.catalog` measure tables per version,
:mod:`.params` ``-m NAME.PARAMS``, :mod:`.parse` input files, :mod:`.order` NaN ordering and
duplicate checks, :mod:`.format` output lines, :mod:`.run` control flow, :mod:`.v8` trec_eval
8.0 / 8.1 (another program), :mod:`.v905` 9.0.5's crashes.
"""

from auditeval.trec_eval.run import main

__all__ = ["main"]
