"""The one SHA-256 file hasher, and the content hash of a qrels.

Two different things, both hex SHA-256:

* :func:`sha256_file`: the bytes of a file as stored (a ``.gz`` file: its compressed bytes),
  read in :data:`CHUNK`-byte blocks so a file of any size hashes in constant memory; equal to
  ``sha256sum FILE``. :func:`source_sha256` is the same for an input *source* that may be no
  file (an in-memory input, an ``irds:`` id): ``""`` then. The card, the audit's inputs and
  any other provenance record use these.
* :func:`qrels_sha256`: the judgments, not the file: SHA-256 of the lines ``topic doc grade\\n``
  sorted by (topic, doc) in byte order (:data:`QRELS_HASH_OF`), so a plain file, its .gz and a
  DataFrame of the same judgments agree (the ir_metadata block's qrels hash).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa

from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.model import Qrels

CHUNK = 1 << 20
"""Bytes read per block by :func:`sha256_file` (1 MiB)."""

QRELS_HASH_OF = "sha256 of 'topic doc grade' lines sorted by (topic, doc) in byte order"
"""What :func:`qrels_sha256` hashes, in the words records carry beside the hash."""


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of the bytes of the file at ``path`` (``sha256sum``), streamed in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def source_sha256(source: str) -> str:
    """:func:`sha256_file` of ``source`` when it names a file; ``""`` for an ``irds:`` id or
    anything else that is no file (in-memory input)."""
    p = Path(source)
    if source.startswith("irds:") or not p.is_file():
        return ""
    return sha256_file(p)


def qrels_sha256(qrels: Qrels) -> str:
    """Hex SHA-256 of the judgments of ``qrels`` (see :data:`QRELS_HASH_OF`), independent of
    the file's format; Arrow sorts strings by their bytes, as trec_eval's ``strcmp``."""
    t = qrels.table.select(["topic", "doc", "grade"]).sort_by([("topic", "ascending"), ("doc", "ascending")])
    lines = pc.binary_join_element_wise(t.column("topic"), t.column("doc"), pc.cast(t.column("grade"), pa.string()), " ")
    h = hashlib.sha256()
    for chunk in lines.chunks:
        if len(chunk):
            h.update(("\n".join(chunk.to_pylist()) + "\n").encode("utf-8"))
    return h.hexdigest()
