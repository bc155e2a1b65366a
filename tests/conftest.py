"""Shared fixtures: the shared data folder and small helpers to evaluate in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(scope="session")
def shared() -> Path:
    """Path to /work/shared (data, reference outputs, docs)."""
    assert SHARED.is_dir(), f"shared folder not found at {SHARED}"
    return SHARED


TREC_EVAL_DIR = Path(__file__).resolve().parents[1] / ".bin" / "trec_eval"
TREC_EVAL_BUILDS = ("9.0.8", "9.0.8-double", "10.0", "9.0.7", "9.0.6", "9.0.5", "8.1", "8.0")


@pytest.fixture(scope="session")
def trec_eval_bins(shared: Path) -> dict[str, Path]:
    """The eight real trec_eval binaries (9.0.8, 9.0.8-double, 10.0, 9.0.7, 9.0.6, 9.0.5, 8.1, 8.0), built from NIST's sources by
    ``../shared/tools/build-trec-eval`` into the ignored ``.bin/trec_eval`` (``.ci/run`` builds
    them first; here they are built on demand, idempotently). ``{"9.0.8": path, ...}``."""
    import subprocess

    bins = {v: TREC_EVAL_DIR / f"trec_eval-{v}" for v in TREC_EVAL_BUILDS}
    if not all(p.is_file() for p in bins.values()):
        subprocess.run(["bash", str(shared / "tools" / "build-trec-eval"), str(TREC_EVAL_DIR)], check=True,
                       capture_output=True)
    for v, p in bins.items():
        assert p.is_file(), f"trec_eval {v} not built at {p}"
    return bins
