"""Shared fixtures: the two data tiers, the trec_eval builds, and CI's no-skip rule.

Paths and the skip rule live in :mod:`paths` (the one module that owns them); this file
turns them into fixtures. Under ``$AUDITEVAL_REQUIRE_ALL`` a session that skipped anything
fails, naming each skip.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import paths
import pytest
from paths import BIN, Collection

# the user's own cache (built trec_eval programs) never leaks into a test: the audit's default
# discovery sees an empty cache unless a test points it at the builds (``references_cache``)
os.environ["AUDITEVAL_CACHE_DIR"] = tempfile.mkdtemp(prefix="auditeval-test-cache-")
atexit.register(shutil.rmtree, os.environ["AUDITEVAL_CACHE_DIR"], ignore_errors=True)

TREC_EVAL_BUILDS = ("9.0.8", "9.0.8-double", "10.0", "9.0.7", "9.0.6", "9.0.5", "8.1", "8.0")
BUILD_CACHE = BIN / "cache"  # AUDITEVAL_CACHE_DIR layout: BUILD_CACHE / "trec_eval" / "trec_eval-V"


@pytest.fixture(scope="session")
def robust03(tmp_path_factory) -> Collection:
    """The real TREC 2003 Robust qrels and 12 runs (real-data tier; skipped where absent)."""
    return paths.robust03(tmp_path_factory.mktemp("robust03-plain"))


@pytest.fixture(scope="session")
def robust03_like(tmp_path_factory) -> Collection:
    """A seeded robust03-shaped collection made here (core tier): 50 topics, 7 runs."""
    from synthetic import write_collection

    where = tmp_path_factory.mktemp("robust03-like")
    qrels, runs = write_collection(where)
    return Collection(qrels, runs, where / "plain")


@pytest.fixture(scope="session", params=["robust03_like", "robust03"])
def collection(request) -> Collection:
    """Both tiers in turn: the synthetic collection, then the real data (skipped where absent)."""
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="session")
def trec_eval_bins() -> dict[str, Path]:
    """The eight trec_eval builds (9.0.8, 9.0.8-double, 10.0, 9.0.7, 9.0.6, 9.0.5, 8.1, 8.0),
    compiled from ``third_party/trec_eval`` by auditeval's own builder into the ignored
    ``.bin/cache/trec_eval`` (seconds, once; kept between sessions). ``{"9.0.8": path, ...}``."""
    from auditeval.adapters.trec_eval_builds import BuildError, build, compiler

    cc, make = compiler()
    if cc is None or make is None:
        paths.missing("no C compiler or make on PATH: the trec_eval builds cannot be compiled "
                         "(Debian/Ubuntu: apt-get install gcc make)")
    try:
        made = build(TREC_EVAL_BUILDS, dest=BUILD_CACHE / "trec_eval")
    except BuildError as exc:
        pytest.fail(f"the bundled trec_eval sources did not build: {exc}", pytrace=False)
    return {b.version: b.path for b in made}


@pytest.fixture(scope="session")
def trec_eval_output(trec_eval_bins):
    """``output(version, collection, run, flags=()) -> stdout`` of ``trec_eval -q FLAGS -m
    all_trec QRELS RUN`` by the build, on the uncompressed run; each made once a session."""
    import subprocess

    made: dict[tuple, str] = {}

    def output(version: str, data: Collection, run: str, flags: tuple[str, ...] | list[str] = ()) -> str:
        key = (version, str(data.qrels), run, tuple(flags))
        if key not in made:
            made[key] = subprocess.run([str(trec_eval_bins[version]), "-q", *flags, "-m", "all_trec", str(data.qrels),
                                        str(data.plain(run))], capture_output=True, text=True, check=True,
                                       timeout=300).stdout
        return made[key]

    return output


@pytest.fixture
def references_cache(trec_eval_bins, monkeypatch) -> Path:
    """Point the audit's default discovery (``$AUDITEVAL_CACHE_DIR``) at the eight builds."""
    monkeypatch.setenv("AUDITEVAL_CACHE_DIR", str(BUILD_CACHE))
    return BUILD_CACHE


# ----------------------------------------------------------------------------- slow
# the real data and the real trec_eval builds: a test asking for one of these fixtures, or
# parametrized over the robust03 tier, is ``slow`` (``pytest -m "not slow"`` is the inner loop);
# heavy tests that use neither carry the marker in their own file
SLOW_FIXTURES = frozenset({"robust03", "trec_eval_bins", "trec_eval_output", "references_cache"})


# ----------------------------------------------------------------------------- scheduling
# xdist (``--dist load``) hands tests out in collection order: the longest go
# first, so that the two workers finish together instead of one waiting on a 20 s test at the end
HEAVY_FIRST = (
    "tests/packaging/test_packaging.py",
    "tests/engine/test_empty_topics.py::test_ranx_run_object_and_values",  # ranx: numba compiles its typed dicts
    "tests/integrations/test_pyterrier.py::test_pt_experiment_on_robust03",
    "tests/engine/test_axes.py::test_engine_matches_reference_model",
    "tests/adapters/test_audit_adapters.py::test_ir_measures_ranx_provider_runs_under_pandas_3",
    "tests/trec_eval/test_trec_eval_differential.py::test_random_cases_equal_the_binaries",
    "tests/docs/test_docs_examples.py::test_console_transcript",
    "tests/auditing/test_tool_defects.py::test_ranx_bpref_defects_named_on_the_real_tool",
    "tests/integrations/test_ir_measures_provider.py::test_default_pipeline_equals_the_routed_profile_on_robust03",
    "tests/engine/test_dcg_and_counts_at_cutoff.py::test_per_topic_against_ranx",
    "tests/execution/test_malloc.py",
    "tests/testing/test_testing_plugin.py::test_robust03_claims_from_the_real_trec_eval",
    "tests/project/test_variant_paths.py::test_audit_native_sensitivity_ties",
    "tests/auditing/test_audit_schedule.py::test_ctrl_c_kills_every_child_and_exits_130",
)


def _rank(item) -> int:
    return next((i for i, p in enumerate(HEAVY_FIRST) if item.nodeid.startswith(p)), len(HEAVY_FIRST))


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        spec = getattr(item, "callspec", None)
        tiers = [v for v in spec.params.values() if isinstance(v, str)] if spec else []
        if SLOW_FIXTURES.intersection(item.fixturenames) or "robust03" in tiers:
            item.add_marker(pytest.mark.slow)
    items.sort(key=_rank)  # stable: the rest keep their order


# ----------------------------------------------------------------------------- CI: no skip
_SKIPPED: list[str] = []


def pytest_runtest_logreport(report) -> None:
    if report.skipped:
        where = report.nodeid
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _SKIPPED.append(f"{where}: {reason}")


def pytest_sessionfinish(session, exitstatus) -> None:
    if paths.require_all() and _SKIPPED and not hasattr(session.config, "workerinput"):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:
    if paths.require_all() and _SKIPPED:
        terminalreporter.section(f"{paths.REQUIRE_ENV}: {len(_SKIPPED)} skipped test(s) fail this session")
        for line in _SKIPPED[:50]:
            terminalreporter.write_line(line)
