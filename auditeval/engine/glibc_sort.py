"""glibc's ``qsort`` as trec_eval gets it, for the few places where its exact order matters.

glibc sorts with ``msort_with_tmp``: a top-down merge sort that splits ``n`` items into the
first ``n // 2`` and the rest, sorts each half, and merges taking from the left run while
``cmp(left, right) <= 0``. With a consistent comparator that is just a stable sort; it matters
where trec_eval's comparator is *inconsistent*: NaN scores (neither greater nor smaller, so the
docno tie-break decides pairwise) and the int-truncating nDCG gain comparator
(``ideal_sort=trec-int``). Only small lists go through here (one topic's NaN rows, one topic's
grade levels), so plain Python is fine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def glibc_msort(items: list[T], cmp: Callable[[T, T], int]) -> list[T]:
    """Sort ``items`` in glibc ``msort_with_tmp`` order under the three-way comparator ``cmp``."""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    left = glibc_msort(items[:n1], cmp)
    right = glibc_msort(items[n1:], cmp)
    out: list[T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out
