"""``auditeval trec-eval`` against three trec_eval builds on the edge cases of
``../shared/reference/cases`` (one convention per folder): standard output, standard
error and exit status must be equal. Where a build crashed (exit 139) the drop-in must
fail cleanly instead (non-zero exit, a message, no traceback).

File names: ``[QRELS+RUN.]trec_eval-VERSION.FLAGS.{out,err,exit}``; FLAGS with dots
(``q.c.all_trec`` = ``-q -c -m all_trec``, ``q.M5.all_trec`` = ``-q -M5 -m all_trec``).
``main`` runs in-process, in the case folder, with the file names as trec_eval saw them.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from auditeval.trec_eval import main

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CASES_DIR = SHARED / "reference" / "cases"
_NAME = re.compile(r"^(?:(?P<q>[^+]+)\+(?P<r>.+)\.)?trec_eval-(?P<v>9\.0\.8-double|9\.0\.8|10\.0)\.(?P<f>.+)\.exit$")


def _flags(dotted: str) -> list[str]:
    out = []
    for part in dotted.split("."):
        if part == "all_trec":
            out += ["-m", "all_trec"]
        else:
            out.append("-" + part)
    return out


def _collect() -> list[tuple[str, str, str, str, str, str]]:
    found = []
    if not CASES_DIR.is_dir():
        return found
    for folder in sorted(p for p in CASES_DIR.iterdir() if p.is_dir()):
        for f in sorted(folder.glob("*.exit")):
            m = _NAME.match(f.name)
            if not m:
                continue
            stem = f.name[: -len(".exit")]
            found.append((folder.name, stem, m["q"] or "qrels", m["r"] or "run", m["v"], m["f"]))
    return found


CASES = _collect()


@pytest.mark.parametrize(("folder", "stem", "qrels", "run", "version", "flags"), CASES, ids=[f"{c[0]}/{c[1]}" for c in CASES])
def test_case(monkeypatch, folder, stem, qrels, run, version, flags) -> None:
    where = CASES_DIR / folder
    monkeypatch.chdir(where)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--as", version, *_flags(flags), qrels, run], stdout=out, stderr=err)
    exp_code = int((where / f"{stem}.exit").read_text().strip())
    if exp_code == 139:  # the build crashed: a clean error instead
        assert code != 0 and err.getvalue().strip(), "expected a clean error where trec_eval segfaults"
        assert "Traceback" not in err.getvalue()
        return
    assert out.getvalue() == (where / f"{stem}.out").read_text()
    assert err.getvalue() == (where / f"{stem}.err").read_text()
    assert code == exp_code


def test_cases_found() -> None:
    assert len(CASES) > 200


def test_stdin_results(monkeypatch) -> None:
    where = CASES_DIR / "01_tie_breaking"
    monkeypatch.chdir(where)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((where / "run").read_bytes())))
    out = io.StringIO()
    code = main(["--as", "10.0", "-q", "-m", "all_trec", "qrels", "-"], stdout=out, stderr=io.StringIO())
    assert code == 0
    assert out.getvalue() == (where / "trec_eval-10.0.q.all_trec.out").read_text()
