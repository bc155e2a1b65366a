"""Ids carrying terminal control sequences never reach the terminal raw: every
command shows them escaped (``\\x1b``), and rich markup in an id is text, not a style."""

from __future__ import annotations

import pytest
from cli_helpers import run_cli

TITLE = "\x1b]0;pwned\x07"  # sets the terminal's title
CLEAR = "\x1b[2J"  # clears the screen


@pytest.fixture
def hostile(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text(f"1 0 d{TITLE}1 1\n1 0 [red]x 0\n2 0 y 1\n", encoding="utf-8")
    runs = []
    for i, order in enumerate([("d" + TITLE + "1", "[red]x", "y"), ("[red]x", "d" + TITLE + "1", "y")]):
        r = tmp_path / f"r{i}.txt"
        r.write_text("".join(f"{t} Q0 {d} {k} {9 - k} tag{i}{CLEAR}[bold]\n"
                             for t in ("1", "2") for k, d in enumerate(order, 1)), encoding="utf-8")
        runs.append(str(r))
    return str(q), runs


COMMANDS = [
    ("eval", "{q}", "{r0}", "{r1}", "-q", "-m", "P@1"),
    ("eval", "{q}", "{r0}", "--format", "tsv", "-m", "P@1"),
    ("sweep", "{q}", "{r0}", "-m", "P@1"),
    ("pool", "stats", "{r0}", "{r1}", "--depth", "2"),
    ("card", "{q}", "{r0}", "-m", "P@1"),
    ("eval", "{q}", "{r0}", "-m", "nDCG@k"),  # an error message quoting the input
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_no_control_sequence_reaches_the_terminal(hostile, argv):
    q, (r0, r1) = hostile
    code, out, err = run_cli(*[a.format(q=q, r0=r0, r1=r1) for a in argv])
    for text in (out, err):
        assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b" in out + err or code == 2


def test_escaped_ids_and_literal_markup_in_eval(hostile):
    q, (r0, _) = hostile
    code, out, _ = run_cli("eval", q, r0, "-m", "P@1", "--width", "120")
    assert code == 0
    assert "tag0\\x1b[2J[bold]" in out  # the tag as text, escaped, its [bold] not a style
