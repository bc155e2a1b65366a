"""Random streams for every resampling method: reproducible bit for bit from one seed.

Seed derivation (the same on every platform, thread count and call order):

    generator(seed, *labels) = Generator(PCG64(SeedSequence(seed, spawn_key=words(labels))))

``words(labels)`` is the BLAKE2b-128 digest of the labels' UTF-8 text joined by U+001F,
read as four little-endian uint32 words. A method names its stream by what it resamples,
e.g. ``("bootstrap", variant)`` for the topic resamples of one measure or
``("randomization", variant)`` for its sign flips, so adding a measure or a run never
shifts another measure's draws, and the same seed always gives the same resamples.

Trials are drawn in blocks of :data:`CHUNK` (a fixed constant, never derived from memory,
CPU count or threads): the draws of one block come from the generator in order, so the
result is independent of how the work is scheduled. Reductions over topics are numpy's
pairwise sums along a contiguous last axis (never BLAS ``dot``/``matmul``, whose summation
order can depend on the thread count). NumPy documents PCG64's stream and
``Generator.integers``/``random`` as stable across platforms but not across every numpy
release (NEP 19); the numpy version is part of the reported settings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np

CHUNK = 2048
"""Trials per block: bounds memory to about CHUNK x topics x systems x 8 bytes."""


def words(labels: tuple[object, ...]) -> tuple[int, ...]:
    """Four uint32 words from the labels' text (BLAKE2b-128; stable across processes)."""
    text = "\x1f".join(str(x) for x in labels).encode("utf-8")
    digest = hashlib.blake2b(text, digest_size=16).digest()
    return tuple(int(w) for w in np.frombuffer(digest, dtype="<u4"))


def generator(seed: int, *labels: object) -> np.random.Generator:
    """The stream named ``labels`` under ``seed`` (see the module docstring)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed), spawn_key=words(labels))))


def blocks(trials: int) -> Iterator[tuple[int, int]]:
    """``(start, size)`` of each block of trials, in order."""
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    for start in range(0, trials, CHUNK):
        yield start, min(CHUNK, trials - start)


def settings() -> dict[str, object]:
    """What makes a stream: reported beside every resampled statistic."""
    return {"rng": "PCG64(SeedSequence(seed, spawn_key=blake2b(labels)))", "numpy": np.__version__}
