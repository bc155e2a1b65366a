"""The documentation site builds with ``mkdocs build --strict`` (no broken link, anchor or API
reference), and three of its pages (home, a command, the measures reference) render in headless
chromium with no console message. Skipped, with the reason, where mkdocs or chromium is absent."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from docs_blocks import CHROMIUM_FLAGS, ROOT, chromium_or_skip
from paths import need_module

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    need_module("mkdocs", "pip install '.[docs]'")
    need_module("mkdocstrings", "pip install '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env={"NO_MKDOCS_2_WARNING": "1", **_env()})
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_the_site_builds_strict(site) -> None:
    for page in ("index.html", "commands/eval/index.html", "reference/measures/index.html", "api/index.html"):
        assert (site / page).is_file(), page
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert "auditeval.api.evaluate" in api or "evaluate" in api
    assert ":func:" not in api and ":mod:" not in api  # the hook turned every Sphinx role into code


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("page, heading", [("", "auditeval"), ("commands/eval/", "auditeval eval"),
                                           ("reference/measures/", "Measures")])
def test_page_renders_in_chromium(served, page, heading, tmp_path) -> None:
    chromium = chromium_or_skip()
    done = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                           "--enable-logging=stderr", "--v=0", "--dump-dom", f"{served}/{page}"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert not console, "console messages:\n" + "\n".join(console)
    dom = done.stdout
    assert "<h1" in dom and heading in dom and 'class="md-content"' in dom
    assert "md-search__input" in dom  # the theme's page furniture is there
