"""Shared by the documentation tests: the fenced blocks of README.md and docs/, how a console
transcript is run and compared, and the one way to find headless chromium.

A ```` ```console ```` block is a transcript: lines starting ``$ `` are commands (a line ending
in ``\\`` continues on the next), every other line is what the commands print, stdout and stderr
together, as a terminal shows them. A line that is exactly ``...`` stands for any number of
lines the page leaves out. Each command runs in ``bash`` from the repository root, with
``auditeval`` the checkout's (``python -m auditeval``), 100 columns and UTF-8; it must exit 0
unless the transcript itself shows the status (``echo "exit $?"``). Before comparing, only what
must vary is normalised: the checkout's path and durations (``0.4 s``, ``12 ms``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```\s*$", re.S | re.M)
DURATION = re.compile(r"\b\d+(?:\.\d+)?(?= ?(?:s|ms)\b)")
ELLIPSIS = "..."
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    lang: str
    body: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(lang: str) -> list[Block]:
    """Every fenced block of ``lang`` in README.md and docs/ (indented ones too, e.g. in lists)."""
    out = []
    for path in doc_files():
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group("lang") == lang:
                indent = len(m.group("indent"))
                body = "".join(x[indent:] if x[:indent].isspace() else x
                               for x in m.group("body").splitlines(keepends=True))
                out.append(Block(path, text.count("\n", 0, m.start()) + 1, lang, body))
    return out


def transcript(body: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) pairs of a console block."""
    steps: list[tuple[str, list[str]]] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if not steps:
                raise ValueError(f"output before the first command: {line!r}")
            steps[-1][1].append(line)
            i += 1
            continue
        command = line[2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1].rstrip() + " " + lines[i].strip()
        steps.append((command, []))
        i += 1
    return steps


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUDITEVAL_", "DASK_", "COLUMNS", "LINES"))}
    env.update(COLUMNS="100", PYTHONIOENCODING="utf-8", LC_ALL="C.UTF-8", PY=sys.executable,
               PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return env


def run_command(command: str) -> tuple[int, str]:
    """Exit status and merged output of one transcript command."""
    script = 'auditeval() { "$PY" -m auditeval "$@"; }\npytest() { "$PY" -m pytest -p no:cacheprovider "$@"; }\n' + command
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=environment(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)
    return done.returncode, done.stdout


def normalise(line: str) -> str:
    return DURATION.sub("<T>", line.replace(str(ROOT), ".")).rstrip()


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` equals ``expected`` line by line, an ``...`` line matching any run of lines."""
    exp = [normalise(x) for x in expected]
    act = [normalise(x) for x in actual]
    while exp and not exp[-1]:
        exp.pop()
    while act and not act[-1]:
        act.pop()

    def at(i: int, j: int) -> bool:
        if i == len(exp):
            return j == len(act)
        if exp[i] == ELLIPSIS:
            return any(at(i + 1, k) for k in range(j, len(act) + 1))
        return j < len(act) and exp[i] == act[j] and at(i + 1, j + 1)

    return at(0, 0)


def chromium_or_skip() -> str:
    """The headless chromium binary, or :func:`paths.missing` saying why there is none."""
    from paths import need_program

    return need_program("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome",
                        install="Debian: apt-get install chromium; the built pages are not opened")
