"""The id mixes that join a run's string ids without hashing them (``engine/ids.py``), against
a plain-Python model of the mix and brute-force sets: any length up to ``MIX_MAX_BYTES``, the
same mix for an id whatever chunk it sits in (fixed-width chunks are read as strided views,
others by gathers), the piecewise duplicate check and the judged-row lookup."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from auditeval.engine import ids

M64 = (1 << 64) - 1


def _model_mix(doc: str) -> int:
    """id_mix of one id, with Python ints: words of bytes 0-7, 8-14 (+ length in the low
    byte), 15-22, 23-30, ..., big-endian, each zero-padded; ``h = (h ^ w) * K; h ^= h >> 32``
    for each word the id reaches (the first two always), then ``h *= K'; h ^= h >> 29``."""
    b = doc.encode()
    words = [(0, 8), (8, 7)] + [(15 + 8 * k, 8) for k in range(40)]
    mults = [int(m) for m in ids._MIX] + [int(m) for m in ids._MORE[:-1]]
    h = 0
    for k, (first, width) in enumerate(words):
        if k >= 2 and first >= len(b):
            break
        w = int.from_bytes(b[first : first + width].ljust(8, b"\0"), "big")
        if k == 1:
            w |= len(b) & 0xFF
        h = ((h ^ w) * mults[k]) & M64
        h ^= h >> 32
    h = (h * int(ids._MORE[-1])) & M64
    h ^= h >> 29
    return h - (1 << 64) if h >= 1 << 63 else h


def _random_ids(rng, n: int, lengths: tuple[int, int]) -> list[str]:
    alphabet = np.array(list("ab09-"))
    return ["".join(rng.choice(alphabet, int(rng.integers(*lengths)))) for _ in range(n)]


def test_mix_equals_the_plain_python_model_at_every_length():
    rng = np.random.default_rng(11)
    docs = _random_ids(rng, 400, (0, 70)) + ["", "D1", "D0067032", "LA052390-0089", "FR940104-0-00001",
                                              "clueweb09-en0001-76-37175", "x" * 256]
    got = ids.id_mix(pa.array(docs))
    assert got.tolist() == [_model_mix(d) for d in docs]


def test_an_ids_mix_does_not_depend_on_its_chunk():
    """Fixed-width chunks (strided reads), mixed lengths (gathers), a long id beside short ones:
    each id gets the model's mix, so a qrels and a run mix alike."""
    chunks = [
        ["D0067032", "D3312019", "D0000001"],  # every id 8 bytes
        ["D67032", "D3312019", "D1"],  # 2-8 bytes
        ["clueweb09-en0001-76-37175", "clueweb09-en0000-76-37105"],  # 25 bytes each
        ["D0067032", "clueweb09-en0001-76-37175", "", "FR940104-0-00001"],  # every kind
    ]
    col = pa.chunked_array([pa.array(c) for c in chunks])
    got = ids.id_mix(col).tolist()
    assert got == [_model_mix(d) for c in chunks for d in c]
    sliced = col.slice(1, 8)  # chunk offsets
    assert ids.id_mix(sliced).tolist() == got[1:9]


def test_prefix_sharing_long_ids_do_not_collide():
    """ClueWeb09 ids differ in a few digits at fixed places; the words' products alone would
    collide one time in 256 where two words differ in their first byte (the pair below)."""
    n = 200_000
    rng = np.random.default_rng(5)
    doc = rng.choice(8_841_823, n, replace=False)
    rec, rest = doc % 40_000, doc // 40_000
    docs = [f"clueweb09-en{f:04d}-{d:02d}-{r:05d}" for f, d, r in zip(rest // 100, rest % 100, rec, strict=True)]
    docs += ["clueweb09-en0001-76-37175", "clueweb09-en0000-76-37105"]
    mix = ids.id_mix(pa.array(docs))
    assert len(set(mix.tolist())) == len(docs)
    assert len(set(ids.mix_high32(mix).tolist())) > 0.99 * len(docs)  # the join's buckets spread them


def test_ids_longer_than_the_limit_are_not_mixed():
    assert ids.id_mix(pa.array(["a", "x" * (ids.MIX_MAX_BYTES + 1)])) is None
    assert ids.id_mix(pa.array(["a", None])) is None
    assert ids.id_mix(pa.array(["x" * ids.MIX_MAX_BYTES])) is not None


@pytest.mark.parametrize("piece", [3, 7, 1 << 20])
def test_run_mixes_piecewise_equal_a_brute_force_check(piece, monkeypatch):
    monkeypatch.setattr(ids, "PIECE_ROWS", piece)
    rng = np.random.default_rng(2)
    for trial in range(150):
        n = int(rng.integers(1, 60))
        sizes = np.diff(np.r_[0, np.sort(rng.choice(np.arange(1, n), min(n - 1, int(rng.integers(0, 6))), replace=False)), n])
        tcode = np.repeat(np.arange(len(sizes)), sizes).astype(np.int32)
        pool = _random_ids(rng, 8, (1, 30)) if trial % 2 else [f"D{i}" for i in range(40)]
        docs = [pool[int(i)] for i in rng.integers(0, len(pool), n)]
        col = pa.chunked_array([pa.array(docs[: n // 2], pa.string()), pa.array(docs[n // 2 :], pa.string())])
        mix, unique = ids.run_mixes(col, sizes, lambda tcode=tcode: tcode)
        brute = len(set(zip(tcode.tolist(), docs, strict=True))) == n
        assert unique is (True if brute else None)
        assert mix.tolist() == ids.mix_high32(ids.id_mix(pa.array(docs))).tolist()
        mix2, unique2 = ids.run_mixes(col, None, lambda tcode=tcode: tcode)  # topics not in blocks
        assert (mix2.tolist(), unique2) == (mix.tolist(), unique)


@pytest.mark.parametrize("piece", [5, 1 << 20])
def test_judged_by_mix_equals_a_dict_lookup(piece, monkeypatch):
    monkeypatch.setattr(ids, "PIECE_ROWS", piece)
    rng = np.random.default_rng(8)
    values = sorted(set(_random_ids(rng, 300, (1, 40))))
    run_docs = [values[int(i)] if rng.random() < 0.3 else f"n{i}" for i in rng.integers(0, len(values), 2000)]
    col = pa.chunked_array([pa.array(run_docs[:700]), pa.array(run_docs[700:])])
    v = pa.array(values)
    mb = ids.mix_buckets(ids.mix_high32(ids.id_mix(v)))
    assert mb.start[-1] == len(values) and 2**mb.bits >= 16 * len(values)
    rows, code = ids.judged_by_mix(col, ids.mix_high32(ids.id_mix(col)), v, mb)
    pos = {d: i for i, d in enumerate(values)}
    want = [(i, pos[d]) for i, d in enumerate(run_docs) if d in pos]
    assert list(zip(rows.tolist(), code.tolist(), strict=True)) == want
    # buckets holding several values: a table of 8 bits for 300 values
    start, order = _buckets(mb.mix, 8)
    small = ids.MixBuckets(8, start, order, mb.mix, np.minimum(np.diff(start), 255).astype(np.uint8))
    rows2, code2 = ids.judged_by_mix(col, ids.mix_high32(ids.id_mix(col)), v, small)
    assert list(zip(rows2.tolist(), code2.tolist(), strict=True)) == want


def _buckets(mix: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    bucket = mix >> (32 - bits)
    order = np.argsort(bucket, kind="stable")
    start = np.zeros((1 << bits) + 1, np.int32)
    np.cumsum(np.bincount(bucket, minlength=1 << bits), out=start[1:])
    return start, order


def test_a_collision_of_the_high_bits_falls_back_to_the_full_mix(monkeypatch):
    """Blocks whose 32-bit high mixes repeat are decided on the 64-bit mixes (here every high
    mix is made equal): distinct ids stay unique, a repeated pair is still found."""
    monkeypatch.setattr(ids, "mix_high32", lambda mix: np.zeros(len(mix), np.uint32))
    docs = pa.chunked_array([pa.array([f"D{i}" for i in range(50)] * 2)])
    sizes = np.array([50, 50])
    tcode = np.repeat(np.arange(2), sizes).astype(np.int32)
    assert ids.run_mixes(docs, sizes, lambda: tcode)[1] is True
    sizes = np.array([30, 70])  # unequal blocks: the (topic, high bits) keys, then the full ones
    tcode = np.repeat(np.arange(2), sizes).astype(np.int32)
    assert ids.run_mixes(docs, sizes, lambda: tcode)[1] is None  # D30..D49 repeat in the second block
    assert ids.run_mixes(docs.slice(0, 60), np.array([30, 30]), lambda: tcode[:60])[1] is True
