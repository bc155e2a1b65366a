"""The subset variant text (auditeval.results.subset): hand-written expected strings."""

from __future__ import annotations

import hashlib

import pytest

from auditeval.results.subset import TopicSubset, subset_variant
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.variant import parse_variant

BASE = "AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|ties=docno-desc|topics=both|unjudged=nonrel"


def test_full_set_is_the_plain_variant():
    s = TopicSubset(("101", "102"), ("101", "102"))
    assert not s.is_subset and s.marker() == "" and s.variant(BASE) == BASE and s.note("x") == ""


def test_named_dropped_topics():
    s = TopicSubset(("101", "103"), ("101", "102", "103", "104"), reason="not in every run")
    assert s.dropped == ("102", "104")
    assert s.variant(BASE) == BASE + "|subset=paired(2/4:-102,-104)"
    assert s.note("bm25 AP") == ("bm25 AP: over 2 of the 4 topics eval uses (paired); left out "
                                 "(not in every run): 102, 104; not the full-set number")
    assert s.as_dict()["dropped"] == ["102", "104"] and s.as_dict()["of"] == 4


def test_many_or_odd_dropped_topics_are_hashed():
    full = tuple(f"{k:03d}" for k in range(10))
    digest = hashlib.sha256("\x1f".join(full[5:]).encode()).hexdigest()[:8]
    assert subset_variant(BASE, full[:5], full, "pool") == f"{BASE}|subset=pool(5/10:#{digest})"
    odd = hashlib.sha256(b"a|b").hexdigest()[:8]
    assert TopicSubset(("x",), ("x", "a|b")).marker() == f"subset=paired(1/2:#{odd})"


def test_subset_variant_is_never_a_plain_variant():
    with pytest.raises(AuditEvalError):
        parse_variant(subset_variant(BASE, ["101"], ["101", "102"]))


def test_kept_must_lie_in_full():
    with pytest.raises(ValueError, match="outside the full set: 9"):
        TopicSubset(("1", "9"), ("1", "2"))
