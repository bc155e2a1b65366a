"""A corpus of bad inputs and bad output paths, every command, as subprocesses.

Each case runs ``python -m auditeval ...`` and asserts: exit status 2, exactly one
``auditeval: error:`` line on standard error, that line naming the bad path, no
``Traceback``, and no output file left behind (nor a ``.part`` temporary).

The matrix is representative, not the full cartesian product (commands x 7 malformations x
3 output failures would be ~400 processes, minutes; 27 processes here, ~1 s each): every command meets at least one bad
main input; every malformation (missing file, directory, empty file, binary bytes, not UTF-8,
truncated gzip, bad line) meets at least two commands; every auxiliary input (``verify
--table``, ``card --pooled-file``, ``compare --strata``, ``--profile FILE``, ``diff``'s files)
meets the malformations that gave tracebacks; every output option of the commands owned here
(``audit -o``, ``card -o``, ``compare --plot``, ``reproduce --plot``) meets one or two of, and
each of these meets at least two options: a missing folder, a "read-only" folder (a path under a regular file: tests run as root, for whom a mode-0500
folder is writable) and a full disk (``/dev/full``). ``trec-eval`` is left out: a byte-exact
drop-in for the trec_eval binary, it answers bad input with trec_eval's own messages (and reads
``two`` as a rank the way ``atoi`` does). Left out for now, the other commands' outputs (``eval
--ir-metadata``, ``pool todo -o``, ``pool --plot``): their command modules are edited elsewhere.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n"
RUN = "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d1 1 1.0 r\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("corpus")
    (d / "q.txt").write_text(QRELS)
    (d / "r.txt").write_text(RUN)
    (d / "r2.txt").write_text(RUN.replace("2.0", "0.5"))
    (d / "empty.txt").write_text("")
    (d / "binary.bin").write_bytes(bytes(range(256)))
    (d / "latin1.txt").write_bytes("1 Q0 d\xe9 1 1.0 r\n".encode("latin-1"))
    (d / "trunc.gz").write_bytes(gzip.compress(RUN.encode())[:-12])
    (d / "badline.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 1.0 r\n")  # 5 fields
    (d / "badrank.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 two 1.0 r\n")  # read (as trec_eval), but by ties=rank
    (d / "dir").mkdir()
    (d / "afile").write_text("x")
    (d / "table.csv").write_text("r,MAP,0.5\n")
    (d / "out1.txt").write_text("map\tall\t0.5000\n")
    return d


BAD_MAIN = {"missing": "nope.txt", "directory": "dir", "empty": "empty.txt", "binary": "binary.bin",
            "not-utf8": "latin1.txt", "truncated-gzip": "trunc.gz", "bad-line": "badline.txt"}
CASES = [
    # (id, argv, the path the error line must name)
    *[(f"eval-run-{k}", ["eval", "q.txt", v], v) for k, v in BAD_MAIN.items()
      if k in ("missing", "directory", "truncated-gzip", "bad-line")],
    ("eval-qrels-binary", ["eval", "binary.bin", "r.txt"], "binary.bin"),
    ("eval-run-bad-rank-ties-rank", ["eval", "q.txt", "badrank.txt", "--set", "ties=rank"], "badrank.txt:2"),
    ("sweep-run-truncated-gzip", ["sweep", "q.txt", "trunc.gz", "-m", "AP", "--vary", "ties"], "trunc.gz"),
    ("audit-run-bad-line", ["audit", "q.txt", "badline.txt", "--against", "pytrec_eval"], "badline.txt"),
    ("audit-qrels-directory", ["audit", "dir", "r.txt", "--against", "pytrec_eval"], "dir"),
    ("verify-claim-run-not-utf8", ["verify", "q.txt", "latin1.txt", "--claim", "MAP=0.5"], "latin1.txt"),
    *[(f"verify-table-{k}", ["verify", "q.txt", "r.txt", "--table", v], v)
      for k, v in BAD_MAIN.items() if k in ("empty", "binary")],
    *[(f"diff-{k}", ["diff", v, "out1.txt"], v) for k, v in BAD_MAIN.items()
      if k in ("directory", "truncated-gzip")],
    ("card-run-empty", ["card", "q.txt", "empty.txt"], "empty.txt"),
    *[(f"card-pooled-file-{k}", ["card", "q.txt", "r.txt", "--pooled-file", v], v)
      for k, v in BAD_MAIN.items() if k in ("directory",)],
    ("reproduce-run-missing", ["reproduce", "nope.txt", "r.txt", "--qrels", "q.txt"], "nope.txt"),
    ("compare-run-binary", ["compare", "q.txt", "r.txt", "binary.bin"], "binary.bin"),
    *[(f"compare-strata-{k}", ["compare", "q.txt", "r.txt", "r2.txt", "--strata", v], v)
      for k, v in BAD_MAIN.items() if k in ("empty",)],
    ("eval-profile-file-binary", ["eval", "q.txt", "r.txt", "--profile", "binary.toml"], "binary.toml"),
    ("pool-stats-run-missing", ["pool", "stats", "nope.txt", "r.txt"], "nope.txt"),
    ("pool-coverage-qrels-binary", ["pool", "coverage", "binary.bin", "r.txt"], "binary.bin"),
]
OUTPUTS = [
    ("audit -o", ["audit", "q.txt", "r.txt", "--against", "pytrec_eval", "--timeout", "60", "-o", "{out}"]),
    ("card -o", ["card", "q.txt", "r.txt", "-o", "{out}"]),
    ("compare --plot", ["compare", "q.txt", "r.txt", "r2.txt", "-m", "AP", "--trials", "50", "--plot", "{out}"]),
    ("reproduce --plot", ["reproduce", "r.txt", "r2.txt", "--qrels", "q.txt", "--plot", "{out}"]),
]
DESTS = {"missing-folder": "nodir/out.png", "read-only-folder": "afile/out.png", "full-disk": "/dev/full"}


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "auditeval", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def _check(p: subprocess.CompletedProcess, path: str) -> None:
    assert "Traceback" not in p.stderr, p.stderr
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("auditeval: error:")]
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert len(errors) == 1, p.stderr
    assert path in errors[0], errors[0]


@pytest.mark.parametrize(("argv", "path"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_error_line(corpus, argv, path):
    if path.endswith(".toml"):  # a profile file: binary bytes, or a directory
        target = corpus / path
        if "dir" in path:
            target.mkdir(exist_ok=True)
        else:
            target.write_bytes(b"[axes]\n\xff\xfe\n")
    _check(_run(argv, corpus), path)


DEST_CASES = [("audit -o", "missing-folder"), ("audit -o", "full-disk"), ("card -o", "read-only-folder"),
              ("card -o", "full-disk"), ("compare --plot", "missing-folder"), ("compare --plot", "read-only-folder"),
              ("reproduce --plot", "full-disk")]


@pytest.mark.parametrize(("argv", "dest"), [(dict(OUTPUTS)[c], DESTS[k]) for c, k in DEST_CASES],
                         ids=[f"{c}-{k}" for c, k in DEST_CASES])
def test_bad_output_path_is_one_error_line_and_no_file(corpus, argv, dest):
    before = {p.name for p in corpus.rglob("*")}
    p = _run([a.replace("{out}", dest) for a in argv], corpus)
    _check(p, dest)
    assert {q.name for q in corpus.rglob("*")} - before == set()  # no partial file, no .part left
    if dest == "/dev/full":
        assert Path("/dev/full").is_char_device()  # written in place, never renamed over
