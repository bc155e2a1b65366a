"""What every benchmark here prints above its results: one provenance line, then markdown tables.

The provenance line says under what a figure was measured, as data: the date and time (UTC,
start-end), the git commit of the checkout (short hash, ``+dirty`` when ``git status`` lists a
tracked change or an untracked file it does not ignore), the machine (the CPU model from
``/proc/cpuinfo``, the logical cores, the memory from ``/proc/meminfo``), the load average
(1 minute) at the start and at the end, the Python, numpy and pyarrow versions (from the
installed packages' metadata, nothing is imported) and the exact command line
(``sys.orig_argv``). The tables are pipe tables, to paste into ``benchmarks/README.md`` as
printed.

Usage, in a script::

    from provenance import Provenance, table

    prov = Provenance()            # at the start: the time, the load, the command
    ...                            # measure
    prov.report(table(["tool", "wall"], rows))   # the line, then each table

The module imports only the standard library, so that a script that measures its children's
peak memory (``bench.py``) stays small: Linux carries a parent's RSS into a child's high-water
mark across fork and exec.
"""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("numpy", "pyarrow")


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


def commit(root: Path = ROOT) -> str:
    """Short hash of HEAD, ``+dirty`` when the tree differs from it; ``unknown`` outside git."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True,
                                text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if status.strip() else "")


def _proc_field(path: str, key: str) -> str | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine() -> str:
    """``CPU model, N cores, M GiB``: the model from /proc/cpuinfo, logical cores, MemTotal."""
    cpu = _proc_field("/proc/cpuinfo", "model name") or platform.processor() or platform.machine()
    mem = _proc_field("/proc/meminfo", "MemTotal")
    gib = f", {int(mem.split()[0]) / 2**20:.1f} GiB" if mem else ""
    return f"{cpu}, {os.cpu_count()} cores{gib}"


def versions(packages: Sequence[str] = PACKAGES) -> str:
    """``Python X, numpy Y, pyarrow Z``, from the installed distributions' metadata."""
    out = [f"Python {platform.python_version()}"]
    for name in packages:
        try:
            out.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            out.append(f"{name} absent")
    return ", ".join(out)


class Provenance:
    """The conditions of one benchmark run: taken at construction (start time, load, command),
    finished by :meth:`line` (end time, load). ``packages`` adds versions beyond numpy, pyarrow."""

    def __init__(self, packages: Sequence[str] = ()):
        self.started = datetime.now(UTC)
        self.load_start = _load()
        self.command = shlex.join(getattr(sys, "orig_argv", [sys.executable, *sys.argv]))
        self.packages = (*PACKAGES, *packages)

    def line(self) -> str:
        """The provenance line, as of now (the end of the run)."""
        end = datetime.now(UTC)
        span = f"{self.started:%Y-%m-%d %H:%M}"
        if f"{end:%Y-%m-%d %H:%M}" != span:
            span += f"-{end:%H:%M}" if end.date() == self.started.date() else f"-{end:%Y-%m-%d %H:%M}"
        return (f"{span} UTC, commit {commit()}, {machine()}, load average {self.load_start} at the start, "
                f"{_load()} at the end, {versions(self.packages)}: `{self.command}`")

    def report(self, *sections: str) -> str:
        """Print the provenance line, then each section (a table, a titled table), blank-separated;
        return what was printed."""
        text = "\n\n".join([self.line(), *sections]) + "\n"
        print(text, end="", flush=True)
        return text


def table(header: Sequence[str], rows: Iterable[Sequence[object]], align: str | None = None) -> str:
    """A markdown pipe table. ``align`` has a letter per column, ``l``, ``r`` or ``c``
    (default: the first column left, the others right); cells are ``str()`` of the values,
    a ``|`` in one escaped."""
    align = align or "l" + "r" * (len(header) - 1)
    if len(align) != len(header):
        raise ValueError(f"align {align!r} has {len(align)} letters for {len(header)} columns")
    rule = {"l": "---", "r": "---:", "c": ":---:"}

    def cells(values: Sequence[object]) -> str:
        return "| " + " | ".join(str(v).replace("|", "\\|") for v in values) + " |"

    lines = [cells(header), "|" + "|".join(rule[a] for a in align) + "|"]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"row {row!r} has {len(row)} cells for {len(header)} columns")
        lines.append(cells(row))
    return "\n".join(lines)
