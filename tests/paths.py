"""Every path the tests read, and the rule for what is missing: the one module that owns them.

Two tiers, one switch:

* **core**: needs only the repository and PyPI. The bundled examples (``EXAMPLES``), the edge
  cases with their inputs (``CASES``: the outputs come from running the trec_eval builds at test
  time), a seeded robust03-shaped collection (``robust03_like``, :mod:`synthetic`) and the
  trec_eval builds compiled from ``third_party/trec_eval`` (``trec_eval_bins``).
* **real data**: the TREC 2003 Robust qrels and 12 runs (NIST's, not redistributable), read from
  the folder named by ``$AUDITEVAL_TEST_DATA`` (default: ``../shared/data`` beside the checkout,
  when that exists), which must hold ``robust03/qrels.robust03.txt`` and
  ``robust03/runs/input.NAME.gz``. Absent, each such test is skipped with :data:`ROBUST03_REASON`.

Under ``$AUDITEVAL_REQUIRE_ALL=1`` (CI) whatever would be skipped fails instead: a missing data
folder, compiler, Python package or program (chromium, pdflatex, ...). :func:`missing` is the one
place that decides, :func:`need_module` and :func:`need_program` the ways tests ask.
"""

from __future__ import annotations

import gzip
import importlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
EXAMPLES = REPO / "examples"
CASES = TESTS / "cases"
CONVENTIONS = REPO / "conventions"
BIN = REPO / ".bin"  # ignored by git: the builds the tests compile, and other scratch

DATA_ENV = "AUDITEVAL_TEST_DATA"
REQUIRE_ENV = "AUDITEVAL_REQUIRE_ALL"

# the 12 runs of the TREC 2003 Robust data, named here so parametrized tests collect the same
# items whether or not the data is present (absent: each is skipped with the reason below)
ROBUST03_RUNS = ("InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "THUIRr0301", "UAmsT03RDesc",
                 "UIUC03Rd1", "aplrob03a", "humR03dc", "pircRBa1", "uic0301")
ROBUST03_REASON = (f"TREC 2003 Robust data not found: set {DATA_ENV} to a folder holding "
                   "robust03/qrels.robust03.txt and robust03/runs/input.NAME.gz (NIST's data, not in the repository)")


# per tier: its runs, the three also checked with -J, -M100 and -l2, and the runs that rank every
# qrels topic (trec_eval 10.0 refuses the others without -c)
TIERS = ("robust03_like", "robust03")
SYNTHETIC_RUNS = ("synTies", "synFloat32", "synDistinct", "synShallow", "synTen", "synNegative", "synMissing")
TIER_RUNS = {"robust03_like": SYNTHETIC_RUNS, "robust03": ROBUST03_RUNS}
TIER_FLAGGED = {"robust03_like": ("synTies", "synMissing", "synShallow"), "robust03": ("MU03rob01", "uic0301", "humR03dc")}
TIER_COMPLETE = {"robust03_like": tuple(r for r in SYNTHETIC_RUNS if r != "synMissing"), "robust03": ROBUST03_RUNS}


def require_all() -> bool:
    """CI's switch: every skip is a failure."""
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def missing(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail with it under ``$AUDITEVAL_REQUIRE_ALL``."""
    if require_all():
        pytest.fail(f"{reason} ({REQUIRE_ENV} is set: nothing may be skipped)", pytrace=False)
    pytest.skip(reason)


def need_module(name: str, install: str | None = None) -> ModuleType:
    """``import name``, or :func:`missing` naming the package to install."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"{name} is not installed ({install or 'pip install ' + name}): {exc}")


def need_program(*names: str, install: str) -> str:
    """The first of ``names`` found on PATH, or :func:`missing` naming what installs it."""
    for n in names:
        found = shutil.which(n)
        if found:
            return found
    missing(f"{' or '.join(names)} not found on PATH ({install})")


def data_dir() -> Path | None:
    """The real-data folder: ``$AUDITEVAL_TEST_DATA``, else ``../shared/data`` when present."""
    named = os.environ.get(DATA_ENV)
    if named:
        return Path(named)
    default = REPO.parent / "shared" / "data"
    return default if default.is_dir() else None


@dataclass
class Collection:
    """Qrels and runs on disk: ``runs`` maps a run's name to its gzipped file."""

    qrels: Path
    runs: dict[str, Path]
    scratch: Path | None = None  # where plain copies go
    _plain: dict[str, Path] = field(default_factory=dict)

    @property
    def dir(self) -> Path:
        """The folder holding the qrels and ``runs/``."""
        return self.qrels.parent

    @property
    def names(self) -> list[str]:
        return sorted(self.runs)

    def run(self, name: str) -> Path:
        return self.runs[name]

    def plain(self, name: str) -> Path:
        """The run uncompressed (trec_eval 9.0.x cannot read gzip), made once."""
        if name not in self._plain:
            assert self.scratch is not None
            self.scratch.mkdir(parents=True, exist_ok=True)
            out = self.scratch / f"input.{name}"
            out.write_bytes(gzip.decompress(self.runs[name].read_bytes()))
            self._plain[name] = out
        return self._plain[name]


def robust03(scratch: Path) -> Collection:
    """The real TREC 2003 Robust data, or :func:`missing`."""
    root = data_dir()
    base = root / "robust03" if root else None
    if base is None or not (base / "qrels.robust03.txt").is_file():
        missing(ROBUST03_REASON + (f"; looked in {base}" if base else ""))
    runs = {n: base / "runs" / f"input.{n}.gz" for n in ROBUST03_RUNS}
    absent = [str(p) for p in runs.values() if not p.is_file()]
    if absent:
        missing(f"{ROBUST03_REASON}; missing: {', '.join(absent)}")
    return Collection(base / "qrels.robust03.txt", runs, scratch)
