"""The checked opener (auditeval/io/files.py): every read and write failure is one
``path[:line]: reason`` error, and a write that fails leaves no partial file."""

from __future__ import annotations

import gzip
import os

import pytest

from auditeval.io.files import atomic_write, read_text, write_text
from auditeval.vocab.errors import InputError, OutputError


def test_reads_text_and_gzip(tmp_path):
    (tmp_path / "a.txt").write_text("q 0 d 1\n")
    (tmp_path / "a.gz").write_bytes(gzip.compress(b"q 0 d 1\n"))
    assert read_text(tmp_path / "a.txt") == read_text(tmp_path / "a.gz") == "q 0 d 1\n"


@pytest.mark.parametrize("make, reason", [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "is a directory, not a file"),
    (lambda p: p.write_bytes(gzip.compress(b"x" * 1000)[:-9]), "corrupt gzip data"),
    (lambda p: p.write_bytes(b"ok\n\xff\xfe\n"), "2: undecodable bytes (not UTF-8)"),
    (lambda p: p.write_text("  \n"), "the file is empty"),
])
def test_read_failures_name_the_path(tmp_path, make, reason):
    p = tmp_path / "in.txt"
    make(p)
    with pytest.raises(InputError) as exc:
        read_text(p, allow_empty=False)
    assert str(exc.value).startswith(f"{p}:") and reason in str(exc.value)


def test_unreadable_file(tmp_path):
    p = tmp_path / "secret.txt"
    p.write_text("x")
    p.chmod(0)
    if os.access(p, os.R_OK):  # root reads anything: make the read fail another way
        p.chmod(0o644)
        p.unlink()
        p.mkdir()
    with pytest.raises(InputError, match=str(p)):
        read_text(p)


def test_write_is_atomic_and_leaves_nothing_on_error(tmp_path):
    dest = tmp_path / "out.txt"
    dest.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_write(dest) as fh:
        fh.write("half")
        raise RuntimeError("stop")
    assert dest.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no .part file left
    write_text(dest, "new\n")
    assert dest.read_text() == "new\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_missing_folder_and_directory_destination(tmp_path):
    with pytest.raises(OutputError) as exc:
        write_text(tmp_path / "nope" / "out.txt", "x")
    assert str(exc.value) == f"{tmp_path / 'nope' / 'out.txt'}: the folder {str(tmp_path / 'nope')!r} does not exist"
    with pytest.raises(OutputError, match="is a directory, not a file"):
        write_text(tmp_path, "x")


def test_full_disk_is_an_output_error(tmp_path, monkeypatch):
    """The temporary file is /dev/full, where the kernel answers every write with ENOSPC."""
    import tempfile

    part = tmp_path / ".out.txt.part"
    part.write_text("")
    monkeypatch.setattr(tempfile, "mkstemp", lambda **kw: (os.open("/dev/full", os.O_WRONLY), str(part)))
    dest = tmp_path / "out.txt"
    with pytest.raises(OutputError) as exc:
        write_text(dest, "x" * 100_000)
    assert str(exc.value) == f"{dest}: no space left on the device (nothing was written)"
    assert list(tmp_path.iterdir()) == []  # the temporary file is gone, no destination
