"""Every ``auditeval ... --help`` is written for users and fits 100 columns, however wide the
terminal: each command and subcommand says what it does, each option what it means."""

from __future__ import annotations

import argparse

import pytest
from cli_helpers import run_cli

from auditeval.cli.main import COMMANDS, build_parser, main


def parsers(p: argparse.ArgumentParser, path: str = "auditeval"):
    yield path, p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, f"{path} {name}")


ALL = list(parsers(build_parser(list(COMMANDS))))


def test_every_command_is_walked():
    names = {path for path, _ in ALL}
    assert {"auditeval eval", "auditeval trec-eval", "auditeval conventions show", "auditeval pool judge",
            "auditeval compare", "auditeval diff"} <= names
    assert len(names) >= 24  # 12 commands, 3 conventions and 8 pool subcommands, the root


@pytest.mark.parametrize("columns", ["300", "100", "60"])
def test_help_fits_100_columns(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    long = [(path, line) for path, p in ALL for line in p.format_help().splitlines() if len(line) > 100]
    assert long == []


def test_help_says_what_each_command_and_option_is_for():
    missing = [path for path, p in ALL if not p.description]
    missing += [f"{path} {a.option_strings or a.dest}" for path, p in ALL for a in p._actions
                if not a.help and not isinstance(a, argparse._SubParsersAction)]
    assert missing == []
    developer = [path for path, p in ALL if any(s in p.format_help() for s in (":func:", ":mod:", ":class:", "``"))]
    assert developer == []


def test_eval_help_documents_refusals_and_exit_status(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as done:
        main(["eval", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "exit status:\n  0  values were reported" in text
    assert "every\n     profile refused every run" in text
    assert "the refused\nvalues show 'refused'" in text


def test_trec_eval_help_fits(capsys):
    import io

    out = io.StringIO()
    code = main(["trec-eval", "--help"], out, io.StringIO())
    lines = out.getvalue().splitlines()
    assert code == 0 and lines[0].startswith("auditeval trec-eval [--as 9.0.8 | 9.0.8-double | 10.0]")
    assert max(map(len, lines)) <= 100


@pytest.mark.parametrize("command", [["audit", "--against", "pytrec_eval"], ["sweep"], ["compare"]])
def test_several_measures_per_argument_in_every_command(tmp_path, command):
    """``-m 'AP P@1'`` means two measures in every command, as in eval (it used to be one
    unparsable name outside eval)."""
    import json

    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n")
    runs = [str(r)] if command[0] != "compare" else [str(r), str(r)]
    code, out, err = run_cli(command[0], str(q), *runs, *command[1:], "-m", "AP P@1", "--format", "json")
    assert code == 0, err
    text = json.dumps(json.loads(out))
    assert '"AP' in text and '"P@1' in text
