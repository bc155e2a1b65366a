"""The one rule for runs whose tags collide (auditeval.io.run_labels): hand-written labels."""

from __future__ import annotations

import io

import pyarrow as pa

from auditeval.cli.main import main
from auditeval.io.run_labels import label_notes, relabel, run_labels
from auditeval.vocab.model import Run

EMPTY = pa.table({"topic": pa.array([], pa.string())})


def _run(tag: str, source: str) -> Run:
    return Run(EMPTY, name=tag, source=source)


def test_unique_tags_are_kept():
    runs = [_run("a", "x/1.txt"), _run("b", "x/2.txt")]
    assert run_labels(runs) == ["a", "b"] and label_notes(runs, ["a", "b"]) == [None, None]


def test_shared_tag_from_files_by_file_name_then_path_then_number():
    runs = [_run("t", "d1/bm25.txt"), _run("t", "d2/bm25.txt"), _run("t", "d1/other.txt"), _run("u", "z.txt")]
    assert run_labels(runs) == ["d1/bm25.txt", "d2/bm25.txt", "other.txt", "u"]
    same = [_run("t", "r.txt"), _run("t", "r.txt")]  # one file given twice
    assert run_labels(same) == ["r.txt", "r.txt#2"]
    _, notes = relabel(runs)
    assert notes == ["run tag 't' is used by 3 runs; they are labelled by file name: d1/bm25.txt, d2/bm25.txt, other.txt"]


def test_shared_tag_in_memory_by_order_and_a_label_taken_by_a_tag():
    runs = [_run("run", "<dict>"), _run("run", "<DataFrame>"), _run("run", "<stdin>")]
    assert run_labels(runs) == ["run", "run#2", "run#3"]
    _, notes = relabel(runs)
    assert notes == ["<DataFrame>: run tag 'run' already used by an earlier run; reported as 'run#2'",
                     "<stdin>: run tag 'run' already used by an earlier run; reported as 'run#3'"]
    # a third run's tag is 'a.txt', the file name another run would be labelled by
    clash = [_run("t", "a.txt"), _run("t", "b.txt"), _run("a.txt", "<dict>")]
    assert run_labels(clash) == ["a.txt", "b.txt", "a.txt#2"]
    _, notes = relabel(clash)
    assert notes[-1] == "<dict>: run tag 'a.txt' is another run's label; reported as 'a.txt#2'"


def test_eval_compare_and_card_label_alike(tmp_path):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    paths = []
    for name, first in (("first.txt", "a"), ("second.txt", "b")):
        other = "b" if first == "a" else "a"
        p = tmp_path / name
        p.write_text(f"1 Q0 {first} 1 2 same\n1 Q0 {other} 2 1 same\n2 Q0 a 1 1 same\n")
        paths.append(str(p))
    seen = {}
    for cmd, extra in (("eval", ["--format", "json"]), ("compare", ["--format", "json", "--trials", "50"]),
                       ("card", ["--format", "json"])):
        out = io.StringIO()
        assert main([cmd, str(q), *paths, "-m", "AP", *extra], out, io.StringIO()) == 0
        seen[cmd] = out.getvalue()
    for text in seen.values():
        assert '"first.txt"' in text and '"second.txt"' in text and "same#2" not in text
