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
