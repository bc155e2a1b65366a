"""The trec_eval builds auditeval carries: NIST's sources of eight releases, compiled here.

The sources live in ``third_party/trec_eval/VERSION/`` of the repository (the wheel and the
sdist carry them as ``auditeval/_third_party/trec_eval``), unchanged from NIST's tags; what
auditeval changed is stated in ``third_party/trec_eval/NOTICE``. :func:`build` compiles one
release with the system's C compiler and ``make`` (the release's own Makefile) in a temporary
copy of its folder, and installs the program as ``trec_eval-VERSION`` in :func:`cache_dir`
(``$AUDITEVAL_CACHE_DIR/trec_eval``, else the user's cache folder from platformdirs, e.g.
``~/.cache/auditeval/trec_eval``). A ``trec_eval-VERSION.sources`` file beside it holds the
SHA-256 of the sources it was built from, so a changed source tree is rebuilt and an unchanged
one is not (building twice, or from two processes at once, is safe: each build is renamed
into place).

========  ==================  ===========================================================
version   upstream tag        what sets it apart (conventions/trec_eval-VERSION.toml)
========  ==================  ===========================================================
10.0      v10.0               double scores, ``lround`` interpolation, strict topics
9.0.8     v9.0.8              float32 scores (the engine inside pytrec_eval)
9.0.8-d.  trec_eval-9.0.8     the 2023 re-release with double scores
9.0.7     v9.0.7
9.0.6     v9.0.6              says ``9.0.4`` to ``-v``
9.0.5     v9.0.5              crashes on every evaluation (its probe says so)
8.1, 8.0  v8.1, v8.0          the releases TREC used in the 2000s, their own measure names
========  ==================  ===========================================================
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from auditeval.vocab.errors import AuditEvalError

__all__ = ["VERSIONS", "BuildError", "Build", "build", "built", "cache_dir", "compiler", "sources_dir"]

# newest first: the order `references list` shows and `build` builds
VERSIONS = ("10.0", "9.0.8", "9.0.8-double", "9.0.7", "9.0.6", "9.0.5", "8.1", "8.0")
CACHE_ENV = "AUDITEVAL_CACHE_DIR"
INSTALL_HINT = ("install a C compiler and make (Debian/Ubuntu: apt-get install gcc make; Fedora: dnf install "
                "gcc make; macOS: xcode-select --install)")


class BuildError(AuditEvalError):
    """A trec_eval build could not be made: no compiler, no sources, or ``make`` failed."""


@dataclass(frozen=True)
class Build:
    """One release: where its program is (or would be) and whether it is built from these sources."""

    version: str
    path: Path
    built: bool
    sources: Path | None


def sources_dir() -> Path | None:
    """The folder holding ``VERSION/`` source folders: the installed package's copy, else the
    repository's ``third_party/trec_eval`` (a checkout); None when neither exists."""
    package = Path(__file__).resolve().parents[1]
    for d in (package / "_third_party" / "trec_eval", package.parent / "third_party" / "trec_eval"):
        if d.is_dir():
            return d
    return None


def cache_dir() -> Path:
    """Where built programs go: ``$AUDITEVAL_CACHE_DIR/trec_eval`` or the user's cache folder."""
    root = os.environ.get(CACHE_ENV)
    if root:
        return Path(root) / "trec_eval"
    import platformdirs

    return platformdirs.user_cache_path("auditeval") / "trec_eval"


def compiler() -> tuple[str | None, str | None]:
    """``(cc, make)``: the C compiler and make found on PATH, None where missing: ``$CC``, else
    gcc (the compiler NIST's Makefiles name, and the one the reference outputs came from), else
    cc or clang."""
    cc = next((c for c in (os.environ.get("CC"), "gcc", "cc", "clang") if c and shutil.which(c)), None)
    return cc, shutil.which("make")


def _digest(folder: Path) -> str:
    """SHA-256 over the relative names and bytes of every file of a source folder."""
    h = hashlib.sha256()
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(f.relative_to(folder).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def built(dest: Path | None = None) -> dict[str, Build]:
    """Every bundled release, built or not, keyed by version (newest first)."""
    dest = dest or cache_dir()
    src = sources_dir()
    out = {}
    for v in VERSIONS:
        prog = dest / f"trec_eval-{v}"
        folder = src / v if src and (src / v).is_dir() else None
        stamp = prog.with_name(prog.name + ".sources")
        ok = prog.is_file() and os.access(prog, os.X_OK) and (
            folder is None or (stamp.is_file() and stamp.read_text().strip() == _digest(folder)))
        out[v] = Build(v, prog, ok, folder)
    return out


def build(versions: tuple[str, ...] | list[str] = (), dest: Path | None = None, force: bool = False) -> list[Build]:
    """Compile the named releases (all when empty) into ``dest`` (:func:`cache_dir`); the ones
    already built from the same sources are kept. Raises :class:`BuildError` naming what to
    install when no compiler or make is found, or with make's last lines when a build fails."""
    dest = dest or cache_dir()
    unknown = [v for v in versions if v not in VERSIONS]
    if unknown:
        raise BuildError(f"no bundled trec_eval {', '.join(unknown)} (bundled: {', '.join(VERSIONS)})")
    src = sources_dir()
    if src is None:
        raise BuildError("the bundled trec_eval sources are missing from this installation "
                         "(third_party/trec_eval in the repository, auditeval/_third_party in the wheel)")
    wanted = list(versions or VERSIONS)
    if all(b.built for v, b in built(dest).items() if v in wanted) and not force:
        return [built(dest)[v] for v in wanted]
    cc, make = compiler()
    if cc is None or make is None:
        missing = " and ".join(n for n, x in (("a C compiler (cc, gcc or clang)", cc), ("make", make)) if x is None)
        raise BuildError(f"cannot build trec_eval: {missing} not found on PATH; {INSTALL_HINT}")
    dest.mkdir(parents=True, exist_ok=True)
    with _locked(dest / ".lock"):  # a second process waits, then finds the builds made
        have = built(dest)
        todo = [v for v in wanted if force or not have[v].built]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=max(1, min(len(todo), os.cpu_count() or 1))) as pool:
            for f in [pool.submit(_build_one, src / v, dest / f"trec_eval-{v}", cc, make) for v in todo]:
                f.result()
    have = built(dest)
    return [have[v] for v in wanted]


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (``fcntl.flock``; where there is no fcntl, none)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: builds renamed into place are still whole
        yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _build_one(folder: Path, prog: Path, cc: str, make: str) -> None:
    """``make`` in a temporary copy of ``folder``; the program renamed into place, then its stamp."""
    digest = _digest(folder)
    with tempfile.TemporaryDirectory(prefix="trec_eval-build-", dir=prog.parent) as work:
        tree = Path(work) / "src"
        shutil.copytree(folder, tree)
        res = subprocess.run([make, "-s", f"CC={cc}"], cwd=tree, capture_output=True, text=True, timeout=600)
        made = tree / "trec_eval"
        if res.returncode != 0 or not made.is_file():
            tail = "\n".join((res.stderr or res.stdout).strip().splitlines()[-5:])
            raise BuildError(f"make failed for trec_eval {prog.name.removeprefix('trec_eval-')} "
                             f"(exit {res.returncode}):\n{tail}")
        tmp_prog = Path(work) / prog.name
        shutil.copy2(made, tmp_prog)
        os.replace(tmp_prog, prog)
        stamp = Path(work) / "stamp"
        stamp.write_text(digest + "\n")
        os.replace(stamp, prog.with_name(prog.name + ".sources"))
