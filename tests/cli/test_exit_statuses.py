"""Headlines that never reassure falsely: an audit, verify or diff whose references failed,
timed out or refused says so in its FIRST line and exits non-zero (3: nothing was checked).

Real cases, each command run in process as a child would run it (:func:`cli_helpers.run_cli_in`:
its folder, ``COLUMNS``; the status ``main`` returns is the one ``entry`` exits with, and
``tests/cli/test_commands_fresh.py`` runs every command in a fresh process): a run with a duplicate document
under pytrec_eval (pytrec_eval fails with an AssertionError; the native engine refuses under
``dups=error``, so no value is compared), ``--timeout 0`` (the only reference times out), a
diff of two files with no measure in common; and the LaTeX of audit, compare and card on
hostile ids compiled by pdflatex (texlive-latex-base alone) with no overfull box.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_helpers import run_cli_in
from paths import REPO, need_program

pytestmark = pytest.mark.slow

ROOT = REPO
HOSTILE = "a_$*[|`{}~^%#&\\x<y>averyveryverylongidentifierwithnobreakatall"


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_cli_in(list(argv), cwd, {"COLUMNS": "120"})


def files(tmp: Path) -> None:
    (tmp / "q.txt").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n2 0 d1 1\n2 0 d4 1\n")
    (tmp / "dup.txt").write_text("1 Q0 d1 1 3.0 r\n1 Q0 d1 2 2.0 r\n1 Q0 d3 3 1.0 r\n2 Q0 d4 1 1.0 r\n")
    (tmp / "ok.txt").write_text("1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d3 3 1.0 r\n2 Q0 d4 1 1.0 r\n")


def test_audit_of_duplicates_is_refused_as_eval_refuses_it(tmp_path):
    """The run pytrec_eval failed on (a duplicate document) used to end "every difference
    explained (exit 0)"; the engine's one rule refuses it in the audit as in eval."""
    files(tmp_path)
    p = run("audit", "q.txt", "dup.txt", "--against", "pytrec_eval", cwd=tmp_path)
    e = run("eval", "q.txt", "dup.txt", cwd=tmp_path)
    assert (p.returncode, e.returncode) == (2, 2) and p.stdout == ""
    assert p.stderr.splitlines() == e.stderr.splitlines()
    assert p.stderr.startswith("auditeval: error: dup.txt:") and "duplicate result for topic" in p.stderr
    assert "every difference explained" not in p.stdout + p.stderr


def test_nothing_checked_heads_every_format(tmp_path):
    files(tmp_path)
    md = run("audit", "q.txt", "ok.txt", "--against", "pytrec_eval", "--timeout", "0", "--format", "markdown", cwd=tmp_path)
    assert md.returncode == 3 and md.stdout.splitlines()[0].startswith("**NOTHING CHECKED")
    tex = run("audit", "q.txt", "ok.txt", "--against", "pytrec_eval", "--timeout", "0", "--format", "latex", cwd=tmp_path)
    assert tex.returncode == 3 and tex.stdout.splitlines()[0].startswith("% NOTHING CHECKED")


def test_audit_timeout_zero_is_nothing_checked_and_a_clean_audit_is_0(tmp_path):
    """In one process (the commands run in process here): ``--timeout 0`` is that audit's alone,
    the clean audit after it is not timed out."""
    files(tmp_path)
    for _ in range(2):
        good = run("audit", "q.txt", "ok.txt", "--against", "pytrec_eval", cwd=tmp_path)
        assert good.returncode == 0
        # 8 default audit measures x 1 run, each reproduced by pytrec_eval
        assert good.stdout.splitlines()[0].startswith("every difference explained: 8 reference value(s) reproduced")
        p = run("audit", "q.txt", "ok.txt", "--against", "pytrec_eval", "--timeout", "0", cwd=tmp_path)
        assert p.returncode == 3
        assert p.stdout.splitlines()[0] == "NOTHING CHECKED: no reference value was compared: pytrec_eval timed out (exit 3)"


def test_diff_of_files_with_nothing_in_common_is_3(tmp_path):
    (tmp_path / "a.txt").write_text("map\tall\t0.5000\n")
    (tmp_path / "b.txt").write_text("ndcg\tall\t0.5000\n")
    (tmp_path / "c.txt").write_text("map\tall\t0.5000\n")
    p = run("diff", "a.txt", "b.txt", cwd=tmp_path)
    assert p.returncode == 3
    assert p.stdout.splitlines()[0].startswith("NOTHING COMPARED: the two files print no value in common")
    same = run("diff", "a.txt", "c.txt", cwd=tmp_path)
    assert same.returncode == 0 and same.stdout.startswith("equal: all 1 value(s)")


def test_verify_headline_first(tmp_path):
    files(tmp_path)
    # ok.txt: topic 1 AP = (1/1 + 2/3)/2 = 0.8333, topic 2 AP = 1/2 = 0.5 (R=2, d4 at rank 1); MAP 0.6667
    p = run("verify", "q.txt", "ok.txt", "--claim", "MAP=0.6667", "--claim", "MAP=0.1234", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout.splitlines()[0] == "NOT REPRODUCED: 1 of 2 claim(s) reproduced by no variant evaluated (exit 1)"
    ok = run("verify", "q.txt", "ok.txt", "--claim", "MAP=0.6667", cwd=tmp_path)
    assert ok.returncode == 0 and ok.stdout.startswith("reproduced: every one of the 1 claim(s)")


def test_verify_verdict_statuses():
    from auditeval.cli.verify import verdict

    assert verdict([False, False], [True, True])[0] == 3  # every candidate of every claim failed
    assert verdict([True, False], [False, True])[0] == 4
    assert verdict([True, False], [False, False])[0] == 1
    assert verdict([True], [False])[0] == 0


def _compile(tmp: Path, body: str, name: str) -> str:
    need_program("pdflatex", install="Debian: apt-get install texlive-latex-base")
    src = tmp / f"{name}.tex"
    doc = body if body.lstrip().startswith("\\documentclass") else (
        "\\documentclass{article}\\usepackage{array}\\usepackage{longtable}\\begin{document}\n" + body
        + "\\end{document}\n")
    src.write_text(doc)
    p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", src.name], cwd=tmp,
                       capture_output=True, text=True, timeout=120)
    log = (tmp / f"{name}.log").read_text(errors="replace")
    assert p.returncode == 0, log[-2000:]
    assert "Overfull \\hbox" not in log, [x for x in log.splitlines() if "Overfull" in x]
    return log


def test_latex_of_audit_compare_and_card_compiles_without_overfull_boxes(tmp_path):
    files(tmp_path)
    lines = "".join(f"{t} Q0 {d} {k} {s} {HOSTILE}\n" for k, (t, d, s) in
                    enumerate([("1", "d1", 3.0), ("1", "d2", 2.0), ("1", "d3", 1.0), ("2", "d4", 1.0)], 1))
    (tmp_path / "h.txt").write_text(lines)
    (tmp_path / "h2.txt").write_text(lines.replace(HOSTILE, HOSTILE + "2").replace("d2 2 2.0", "d2 2 0.5"))
    audit = run("audit", "q.txt", "h.txt", "ok.txt", "--against", "pytrec_eval", "--format", "latex", cwd=tmp_path)
    assert audit.returncode == 0, audit.stderr
    _compile(tmp_path, audit.stdout, "audit")
    comp = run("compare", "q.txt", "h.txt", "h2.txt", "-m", "AP", "--format", "latex", "--trials", "200",
               cwd=tmp_path)
    assert comp.returncode == 0, comp.stderr
    assert "\\midrule" not in comp.stdout and "\\toprule" not in comp.stdout
    _compile(tmp_path, comp.stdout, "compare")
    card = run("card", "q.txt", "h.txt", "--format", "latex", cwd=tmp_path)
    assert card.returncode == 0, card.stderr
    _compile(tmp_path, card.stdout, "card")


def test_markdown_escapes_every_special_character():
    from auditeval.render.tex import md_escape

    assert md_escape("a$b*c_d[e|f`g") == "a\\$b\\*c\\_d\\[e\\|f\\`g"
    assert md_escape("<s>&") == "&lt;s&gt;&amp;"
    assert md_escape("x.y-z!(1)#+~{}") == "x\\.y\\-z\\!\\(1\\)\\#\\+\\~\\{\\}"
