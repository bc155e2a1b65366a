"""``python -m auditeval`` = the ``auditeval`` command (importing this module runs nothing)."""

from auditeval.cli.main import entry

if __name__ == "__main__":
    entry()
