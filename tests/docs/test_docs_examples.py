"""Every example of README.md and docs/ is run: each console transcript's commands, their output
compared with what the page shows (``tests/docs_blocks.py`` says how), and each Python block,
which must run to the end. A page that drifts from what the program prints fails here."""

from __future__ import annotations

import difflib
import subprocess
import sys

import pytest
from docs_blocks import ROOT, blocks, environment, matches, run_command, transcript

pytestmark = pytest.mark.slow

CONSOLE = blocks("console")
PYTHON = blocks("python")


def test_the_pages_hold_examples() -> None:
    # the extraction itself: README's tour is four transcripts and a Python block at least
    readme = [b for b in CONSOLE if b.path.name == "README.md"]
    assert len(readme) >= 4 and len(CONSOLE) >= 10 and len(PYTHON) >= 4


@pytest.mark.parametrize("block", CONSOLE, ids=[b.where for b in CONSOLE])
def test_console_transcript(block) -> None:
    for command, expected in transcript(block.body):
        status, output = run_command(command)
        if "$?" not in command:
            assert status == 0, f"{block.where}: `{command}` exited {status}:\n{output}"
        if not matches(expected, output.splitlines()):
            diff = "\n".join(difflib.unified_diff(expected, output.splitlines(), "page", "program", lineterm=""))
            pytest.fail(f"{block.where}: the output of `{command}` is not what the page shows:\n{diff}")


@pytest.mark.parametrize("block", PYTHON, ids=[b.where for b in PYTHON])
def test_python_block(block) -> None:
    done = subprocess.run([sys.executable, "-c", block.body], cwd=ROOT, env=environment(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"{block.where}: the block failed:\n{done.stdout}\n{done.stderr}"


def test_matching_rules() -> None:
    # hand-made cases for the comparison itself: '...' spans lines, durations and the checkout's path vary
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])
    assert matches(["took 0.4 s, 12 ms"], ["took 13.25 s, 3 ms"])
    assert not matches(["value 0.5742"], ["value 0.5743"])
    assert matches([f"{ROOT}/examples/qrels.txt"], ["./examples/qrels.txt"])
    assert transcript("$ auditeval a \\\n    b\nout\n$ auditeval c\n") == [("auditeval a b", ["out"]), ("auditeval c", [])]
