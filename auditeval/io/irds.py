"""Qrels of an ir_datasets dataset (``irds:ID``), read without a file.

:func:`auditeval.io.readers.read_qrels` and :func:`auditeval.io.memory.qrels_from` read an
``irds:`` id through here; ``ir_datasets`` is imported only then.
"""

from __future__ import annotations

from auditeval.vocab.errors import InputError
from auditeval.vocab.model import Qrels, qrels_table, subtopic_column


def qrels_from_irds(dataset_id: str) -> Qrels:
    """Qrels of an ir_datasets dataset, e.g. ``msmarco-passage/trec-dl-2019/judged``."""
    try:
        import ir_datasets
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise InputError(f"irds:{dataset_id}", None, "ir_datasets is not installed: pip install 'auditeval[irds]'") from exc
    try:
        ds = ir_datasets.load(dataset_id)
    except KeyError as exc:
        raise InputError(f"irds:{dataset_id}", None, f"unknown ir_datasets id ({exc})") from None
    if not ds.has_qrels():
        raise InputError(f"irds:{dataset_id}", None, "dataset has no qrels")
    topic, doc, grade, sub = [], [], [], []
    for q in ds.qrels_iter():
        topic.append(str(q.query_id))
        doc.append(str(q.doc_id))
        grade.append(int(q.relevance))
        sub.append(str(getattr(q, "subtopic_id", "0")))  # TREC Web diversity qrels (TrecSubQrel)
    if not grade:
        raise InputError(f"irds:{dataset_id}", None, "empty qrels (no judgments)")
    return Qrels(qrels_table(topic, doc, grade, subtopic=subtopic_column(sub)), source=f"irds:{dataset_id}")
