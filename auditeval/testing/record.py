"""What the assertions of the current test found, for the plugin to attach to its report.

Imports nothing: the plugin looks for this module in ``sys.modules`` after each test and moves
the recorded ``(name, value)`` pairs to the test's ``user_properties`` (JUnit XML properties).
"""

from __future__ import annotations

RECORDED: list[tuple[str, str]] = []


def add(name: str, value: str) -> None:
    RECORDED.append((name, value))


def take() -> list[tuple[str, str]]:
    """The pairs recorded since the last call, the list emptied."""
    out = list(RECORDED)
    RECORDED.clear()
    return out
