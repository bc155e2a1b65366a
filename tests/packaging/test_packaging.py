"""What a published package carries, checked as a user meets it: ``python -m build`` makes an
sdist and a wheel; the wheel installs in a fresh venv, where ``auditeval references build``
compiles the bundled trec_eval sources into the cache folder and ``auditeval audit`` then runs
those builds without ``--trec-eval``; the sdist holds the sources, profiles and notices and
installs too.

The fresh venv gets auditeval from the wheel alone; its dependencies are this interpreter's
(a ``.pth`` line) and its installer this interpreter's pip (``pip --python``; the venv is made
without one), which keeps the test to seconds; the wheel must hold every file of each bundled
trec_eval source folder byte for byte (the ``trec_eval_bins`` fixture compiles all eight from
those folders), and three of them (10.0, 9.0.8, 8.0: each build family) are compiled from the
installed copy. With ``$AUDITEVAL_PACKAGING_ISOLATED=1`` (``.ci/run``, before the README's test
command) the venv has its own pip, installs the wheel's dependencies from the package index, as
a user's ``pip install`` does (minutes), and ``references build`` compiles all eight.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest
from paths import EXAMPLES, REPO, need_module, need_program

pytestmark = pytest.mark.slow

SOURCES = ("10.0", "9.0.8", "9.0.8-double", "9.0.7", "9.0.6", "9.0.5", "8.1", "8.0")
BUILT = ("10.0", "9.0.8", "8.0")  # compiled from the installed wheel outside the isolated mode


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    need_module("build", "pip install build")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], check=True,
                   capture_output=True, timeout=600)
    return {"wheel": next(out.glob("*.whl")), "sdist": next(out.glob("*.tar.gz"))}


def test_wheel_and_sdist_carry_the_sources_profiles_and_notices(dists):
    wheel = zipfile.ZipFile(dists["wheel"])
    names = set(wheel.namelist())
    for v in SOURCES:
        assert f"auditeval/_third_party/trec_eval/{v}/Makefile" in names
        folder = REPO / "third_party" / "trec_eval" / v
        tracked = subprocess.run(["git", "ls-files", "."], cwd=folder, capture_output=True, text=True, check=True)
        files = tracked.stdout.split()
        assert len(files) > 10, (v, files)  # a source folder, not an empty listing
        for f in files:  # each release's whole source folder, byte for byte
            assert wheel.read(f"auditeval/_third_party/trec_eval/{v}/{f}") == (folder / f).read_bytes(), (v, f)
    assert "auditeval/_third_party/trec_eval/NOTICE" in names
    assert "auditeval/_conventions/trec_eval-10.0.toml" in names
    assert any(n.endswith("dist-info/licenses/LICENSE") for n in names)
    with tarfile.open(dists["sdist"]) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    for f in ("LICENSE", "CITATION.cff", "CHANGELOG.md", "third_party/trec_eval/NOTICE",
              "third_party/trec_eval/LICENSE.md", "third_party/trec_eval/8.0/trec_eval.c",
              "conventions/trec_eval-9.0.8.toml", "examples/qrels.txt"):
        assert f in members, f


def _run(venv: Path, *argv: str, env: dict[str, str], cwd: Path = REPO) -> subprocess.CompletedProcess:
    """``ARGV`` with its program from the venv's ``bin`` (an absolute program as given)."""
    program = argv[0] if os.path.isabs(argv[0]) else str(venv / "bin" / argv[0])
    return subprocess.run([program, *argv[1:]], capture_output=True, text=True, env=env, cwd=cwd, timeout=900)


def test_wheel_in_a_fresh_venv_builds_trec_eval_and_the_audit_runs_it(dists, tmp_path):
    need_program("cc", "gcc", "clang", install="a C compiler: Debian: apt-get install gcc make")
    venv = tmp_path / "venv"
    isolated = os.environ.get("AUDITEVAL_PACKAGING_ISOLATED", "") not in ("", "0")
    subprocess.run([sys.executable, "-m", "venv", *(() if isolated else ("--without-pip",)), str(venv)], check=True,
                   timeout=300)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["AUDITEVAL_CACHE_DIR"] = str(tmp_path / "cache")
    pip = ["pip"] if isolated else [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    if not isolated:  # the dependencies from this interpreter, auditeval from the wheel only
        site = next((venv / "lib").glob("python*/site-packages"))
        (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # --ignore-installed: the borrowed site-packages may hold an auditeval of its own (a non-editable install)
    install = _run(venv, *pip, "install", "-q", *(() if isolated else ("--no-deps", "--ignore-installed")),
                   str(dists["wheel"]), env=env)
    assert install.returncode == 0, install.stderr[-3000:]
    listed = _run(venv, "auditeval", "references", "list", env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "trec_eval-10.0" in listed.stdout and "buildable" in listed.stdout
    compiled = SOURCES if isolated else BUILT
    built = _run(venv, "auditeval", "references", "build", *(() if isolated else BUILT), env=env, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    for v in compiled:
        assert (tmp_path / "cache" / "trec_eval" / f"trec_eval-{v}").is_file(), v
    audit = _run(venv, "auditeval", "audit", str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "bm25.txt"),
                 "--against", "trec_eval", "--format", "json", env=env, cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]
    assert "Traceback" not in audit.stderr
    for v in ("10.0", "9.0.8", "9.0.8-double", "8.1", "8.0") if isolated else BUILT:
        assert f'"trec_eval-{v}"' in audit.stdout, v
    measures = _run(venv, "auditeval", "measures", "AP", env=env, cwd=tmp_path)  # a fresh process
    assert measures.returncode == 0 and "formula" in measures.stdout, measures.stderr
    where = _run(venv, "python", "-c", "import auditeval; print(auditeval.__file__)", env=env, cwd=tmp_path)
    assert where.stdout.startswith(str(venv)), where.stdout  # the wheel's copy ran, not the checkout
    claims = tmp_path / "claims"  # the pytest plugin, registered by the wheel's entry point
    claims.mkdir()
    for name in ("claims.toml", "qrels.txt", "bm25.txt", "rerank.txt"):
        (claims / name).write_bytes((EXAMPLES / name).read_bytes())
    if not isolated:
        plugin = _run(venv, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "claims.toml", env=env, cwd=claims)
        assert plugin.returncode == 0 and "5 passed" in plugin.stdout, plugin.stdout[-2000:]
    # the sdist installs too (its files are the wheel's, built from it)
    target = tmp_path / "from-sdist"
    sdist = _run(venv, *pip, "install", "-q", "--no-deps", "--target", str(target), str(dists["sdist"]), env=env)
    assert sdist.returncode == 0, sdist.stderr[-3000:]
    assert (target / "auditeval" / "_third_party" / "trec_eval" / "10.0" / "trec_eval.c").is_file()
    env["PYTHONPATH"] = str(target)
    again = _run(venv, "python", "-m", "auditeval", "references", "list", env=env, cwd=tmp_path)
    assert again.returncode == 0 and "trec_eval-8.0" in again.stdout, again.stderr
