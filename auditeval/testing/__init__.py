"""Numbers as tests, in the manner of :mod:`numpy.testing`.

* :func:`assert_reproduces` ``(qrels, run, claim, profile=None, settings=())``: a printed
  number (``"MAP=0.3066"``) holds on the run under the stated profile, or under some variant;
  a failure is the verify search's answer (the nearest variants, the axes between the stated
  convention and them, the topics that move the value most).
* :func:`assert_same_values` ``(a, b, profile=None, ...)``: two tools' outputs or two
  ``ResultSet`` objects hold the same values (``diff``), a failure explained by axis.
* :mod:`.plugin`: the pytest plugin (entry point ``pytest11``: ``auditeval``): claims files
  collected as tests, ``--auditeval-update``, and ``assert res_a == res_b`` explained.

Names load on first use (PEP 562): importing the plugin loads none of the engine.
"""

from __future__ import annotations

from auditeval.vocab.lazy import lazy_exports

_WHERE = {"assert_reproduces": "auditeval.testing.asserts", "assert_same_values": "auditeval.testing.asserts",
          "ClaimNotReproduced": "auditeval.testing.asserts", "ValuesDiffer": "auditeval.testing.asserts"}

__all__ = sorted(_WHERE)


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
