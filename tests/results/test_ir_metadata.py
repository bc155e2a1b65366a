"""The ir_metadata evaluation block: written by ``eval --ir-metadata``, skipped by the run
readers with a note, and read back identically by auditeval and by repro_eval."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from paths import REPO

import auditeval as ae
from auditeval.cli.main import main
from auditeval.results.ir_metadata import (
    END,
    START,
    evaluation_block,
    evaluation_section,
    qrels_sha256,
    read_block,
)

ROOT = REPO
EX = ROOT / "examples"


@pytest.fixture()
def annotated(tmp_path: Path) -> tuple[Path, Path, dict]:
    """(block file, run file annotated with it, the section the block was made from)."""
    qrels = ae.read_qrels(EX / "qrels.txt")
    res = ae.evaluate(qrels, EX / "bm25.txt", ["AP", "nDCG@10"])
    block = tmp_path / "block.txt"
    block.write_text(evaluation_block(res, qrels))
    run = tmp_path / "bm25.annotated.txt"
    run.write_text(block.read_text() + (EX / "bm25.txt").read_text())
    return block, run, evaluation_section(res, qrels)


def test_eval_writes_the_block(tmp_path):
    block = tmp_path / "block.txt"
    out, err = io.StringIO(), io.StringIO()
    code = main(["eval", str(EX / "qrels.txt"), str(EX / "bm25.txt"), "-m", "AP nDCG@10", "--ir-metadata", str(block)], out, err)
    assert code == 0
    doc = read_block(block)
    ev = doc["research goal"]["evaluation"]
    assert ev["reported measures"] == ["AP", "nDCG@10"]
    assert any("tied scores" in n for n in ev["evaluator"]["notes"])  # the command's notes too
    assert ev["evaluator"]["qrels"]["sha256"] == qrels_sha256(ae.read_qrels(EX / "qrels.txt"))


def test_block_shape(annotated):
    block, _, _ = annotated
    lines = block.read_text().splitlines()
    assert lines[0] == START and lines[-1] == END
    assert all(line.startswith("# ") or line == "#" for line in lines[1:-1])
    doc = read_block(block)
    ev = doc["research goal"]["evaluation"]
    assert ev["reported measures"] == ["AP", "nDCG@10"]
    assert ev["evaluator"]["name"] == "auditeval" and ev["evaluator"]["version"] == ae.__version__
    prof = ev["evaluator"]["profiles"][0]
    assert prof["name"] == "trec_eval-9.0.8" and prof["axes"]["ties"] == "docno-desc" and prof["axes"]["rel"] == 1
    assert ae.parse_variant(prof["variants"]["AP"]) == ae.parse_variant(
        "AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|ties=docno-desc|topics=both|unjudged=nonrel"
    )
    # the README's bm25 AP under trec_eval-9.0.8
    assert prof["results"]["bm25"]["AP"] == pytest.approx(0.5742047173929248, abs=1e-15)
    assert ev["evaluator"]["qrels"]["judgments"] == 125


def test_round_trip_through_auditeval(annotated):
    _, run, section = annotated
    assert read_block(run) == {"research goal": {"evaluation": section}}
    r = ae.read_run(run)  # the block's lines are skipped, with a note
    assert any("skipped" in n and "comment line(s)" in n for n in r.notes)
    plain = ae.read_run(EX / "bm25.txt")
    assert r.table.select(["topic", "doc", "score"]).equals(plain.table.select(["topic", "doc", "score"]))


def test_round_trip_through_repro_eval(annotated):
    import repro_eval.metadata as metadata  # in the test extra

    _, run, section = annotated
    assert metadata.MetadataHandler.read_metadata(str(run)) == {"research goal": {"evaluation": section}}
    stripped = metadata.MetadataHandler.strip_metadata(str(run))  # pytrec_eval's parse of the rest
    assert stripped == ae.read_run(EX / "bm25.txt").to_dict()


def test_qrels_hash_ignores_file_form(tmp_path):
    import gzip

    q = ae.read_qrels(EX / "qrels.txt")
    gz = tmp_path / "q.gz"
    gz.write_bytes(gzip.compress((EX / "qrels.txt").read_bytes()))
    shuffled = q.table.to_pandas().sample(frac=1.0, random_state=1).rename(columns={"topic": "qid", "doc": "docno", "grade": "label"})
    digest = qrels_sha256(q)
    assert qrels_sha256(ae.read_qrels(gz)) == digest == qrels_sha256(ae.qrels_from(shuffled))
    # the definition, by hand on a tiny qrels: lines sorted by (topic, doc)
    import hashlib

    tiny = ae.qrels_from({"2": {"b": 0}, "1": {"z": 1, "a": 2}})
    assert qrels_sha256(tiny) == hashlib.sha256(b"1 a 2\n1 z 1\n2 b 0\n").hexdigest()


def test_block_for_several_profiles_names_each():
    res = [ae.evaluate(EX / "qrels.txt", EX / "bm25.txt", ["AP"], profile=p) for p in ("trec_eval-9.0.8", "textbook")]
    doc = read_block(evaluation_block(res))
    profs = doc["research goal"]["evaluation"]["evaluator"]["profiles"]
    assert [p["name"] for p in profs] == ["trec_eval-9.0.8", "textbook"]
    # README: bm25 AP 0.5742 under trec_eval-9.0.8, 0.6188 under textbook
    assert [round(p["results"]["bm25"]["AP"], 4) for p in profs] == [0.5742, 0.6188]


def test_one_file_hasher_matches_sha256sum(tmp_path):
    import subprocess

    from auditeval.io import hashing

    big = tmp_path / "big.bin"  # 2.5 chunks, so the streaming loop runs three times
    big.write_bytes(bytes(range(256)) * (hashing.CHUNK * 5 // 512) + b"tail")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    for p in (big, empty, EX / "qrels.txt"):
        ref = subprocess.run(["sha256sum", str(p)], capture_output=True, text=True, check=True).stdout.split()[0]
        assert hashing.sha256_file(p) == ref == hashing.source_sha256(str(p))
    assert hashing.source_sha256("irds:msmarco-passage/dev") == "" == hashing.source_sha256(str(tmp_path / "none"))
    assert hashing.sha256_file(empty) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_card_audit_and_ir_metadata_hash_with_the_one_function():
    import auditeval.auditing.core as audit_core
    import auditeval.results.ir_metadata as irm
    import auditeval.verify.card as card
    from auditeval.io import hashing

    assert card.sha256_file is hashing.sha256_file
    assert audit_core.file_sha256 is hashing.source_sha256
    assert irm.qrels_sha256 is hashing.qrels_sha256
