"""THE checked opener: every file a command reads or writes, main or auxiliary, goes through here.

Reading (:func:`read_text`, :func:`read_bytes` in :mod:`.lines`): a missing path, a directory, an
unreadable file, a truncated or corrupt gzip stream, bytes that are not UTF-8 and (where the
caller says so) an empty file are one :class:`~auditeval.vocab.errors.InputError`
``path[:line]: reason``.

Writing (:func:`atomic_write`, :func:`write_text`, :func:`write_bytes`): the text goes to a
temporary file in the destination's own folder, flushed, then renamed over the destination
(``os.replace``: atomic on POSIX within one file system), so a reader never sees half a file and
a failed write leaves the old file (or none). A destination that exists and is not a regular
file (``/dev/full``, ``/dev/null``, a FIFO) is written in place, never renamed over. A folder that does not exist, is not a folder or is
read-only, and a full disk, are one :class:`~auditeval.vocab.errors.OutputError` ``path: reason``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from auditeval.io.lines import read_bytes
from auditeval.vocab.errors import InputError, OutputError

__all__ = ["atomic_write", "check_output", "output_reason", "read_text", "save_figure", "write_bytes", "write_text"]


def read_text(path: str | Path, allow_empty: bool = True) -> str:
    """The text of ``path`` (gzip allowed, ``-`` = stdin), checked: UTF-8 (the first bad byte's
    line is named), not empty unless ``allow_empty``."""
    data, name = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(name, line, f"undecodable bytes (not UTF-8): {data[exc.start:exc.end]!r}") from None
    if not allow_empty and not text.strip():
        raise InputError(name, None, "the file is empty")
    return text


def output_reason(exc: OSError) -> str:
    """The words for an OSError met while writing."""
    code = exc.errno
    if code == errno.ENOSPC:
        return "no space left on the device (nothing was written)"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied (the folder is not writable)"
    if code == errno.EROFS:
        return "read-only file system"
    if code == errno.ENOENT:
        return "the folder does not exist"
    if code == errno.ENOTDIR:
        return "a part of the path is not a folder"
    if code == errno.EISDIR:
        return "is a directory, not a file"
    return exc.strerror or str(exc)


def _check_destination(path: Path) -> None:
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise OutputError(str(path), f"the folder {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise OutputError(str(path), f"{str(parent)!r} is not a folder")
    if path.is_dir():
        raise OutputError(str(path), "is a directory, not a file")


def check_output(path: str | Path) -> None:
    """Fail early (before any work) when ``path`` cannot be written: its folder is missing or
    not a folder, ``path`` is a directory, or the folder refuses a new file."""
    dest = Path(path)
    _check_destination(dest)
    if _is_special(dest):
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent if str(dest.parent) else ".")
    except OSError as exc:
        raise OutputError(str(path), output_reason(exc)) from None
    os.close(fd)
    _remove(tmp)


def save_figure(fig, path: str | Path, **kwargs) -> None:
    """A matplotlib figure into ``path``, atomically: drawn into memory (``fig.savefig`` on a
    BytesIO, the format from the suffix), then :func:`write_bytes`."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format=Path(path).suffix.lstrip(".").lower() or "png", **kwargs)
    write_bytes(path, buf.getvalue())


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w") -> Iterator[IO]:
    """A file object for ``path``; on a clean exit its content replaces ``path`` at once, on an
    error nothing changes. ``mode``: ``"w"`` (UTF-8 text) or ``"wb"``."""
    if mode not in ("w", "wb"):
        raise ValueError(mode)
    dest = Path(path)
    _check_destination(dest)
    if _is_special(dest):  # /dev/full, /dev/null, a FIFO: written in place, never renamed over
        try:
            with open(dest, mode, **({"encoding": "utf-8", "newline": ""} if mode == "w" else {})) as fh:
                yield fh
                fh.flush()
        except OSError as exc:
            raise OutputError(str(path), output_reason(exc)) from None
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent if str(dest.parent) else ".")
    except OSError as exc:
        raise OutputError(str(path), output_reason(exc)) from None
    try:
        with os.fdopen(fd, mode, **({"encoding": "utf-8", "newline": ""} if mode == "w" else {})) as fh:
            yield fh
            fh.flush()
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, dest)
    except OSError as exc:
        _remove(tmp)
        raise OutputError(str(path), output_reason(exc)) from None
    except BaseException:
        _remove(tmp)
        raise


def _is_special(path: Path) -> bool:
    """An existing destination that is not a regular file (a device, a FIFO): replacing it
    by a rename would destroy it."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def write_text(path: str | Path, text: str) -> None:
    """``text`` as UTF-8 into ``path``, atomically (:func:`atomic_write`)."""
    with atomic_write(path, "w") as fh:
        fh.write(text)


def write_bytes(path: str | Path, data: bytes) -> None:
    """``data`` into ``path``, atomically (:func:`atomic_write`)."""
    with atomic_write(path, "wb") as fh:
        fh.write(data)
