"""trec_eval's topic order and its duplicate messages, worded from the engine's findings.

* Topics: trec_eval sorts qids with ``strcmp`` (byte order), :func:`sort_topics`.
* Duplicates. form_res_rels.c checks, per evaluated topic, first the results within the
  ``-M`` depth (the smallest duplicated docno is named, message without a newline:
  ``trec_eval.form_res_qrels: duplicate docs X``), then the qrels
  (``trec_eval.form_res_rels: duplicate docs X\\n``). Which doc repeats where is the
  engine's (:meth:`~auditeval.engine.staged_run.StagedRun.duplicates` on the ranking the
  convention gives, NaN scores in trec_eval's qsort order included); :func:`duplicate_errors`
  only words the messages, so the run can stop at the right topic.
"""

from __future__ import annotations

from auditeval.engine import StagedRun
from auditeval.vocab.conventions import Convention


def _key(s: str) -> bytes:
    return s.encode("utf-8")


def duplicate_errors(staged: StagedRun, conv: Convention) -> dict[str, str]:
    """topic -> the stderr text trec_eval prints when it evaluates that topic."""
    errors = {t: f"trec_eval.form_res_qrels: duplicate docs {d}" for t, d in staged.duplicates(conv).items()}
    for t, d in staged.qrels_duplicates().items():
        errors.setdefault(t, f"trec_eval.form_res_rels: duplicate docs {d}\n")
    return errors


def sort_topics(topics) -> list[str]:
    return sorted(topics, key=_key)
