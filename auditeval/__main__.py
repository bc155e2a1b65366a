"""``python -m auditeval`` = the ``auditeval`` command (importing this module runs nothing)."""

from .cli import entry

if __name__ == "__main__":
    entry()
