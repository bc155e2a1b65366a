"""Every module of the package is importable by its dotted name, and the name reaches it.

``import auditeval.auditing.core as core`` binds ``core`` by attribute access along the path
(``auditeval`` -> ``.audit`` -> ``.core``), so a package attribute that is not the submodule
(a function bound to the same name) breaks it even when ``importlib`` finds the module.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys

import pytest
from paths import REPO

import auditeval

ROOT = REPO


def all_modules() -> list[str]:
    def fail(name: str) -> None:
        raise ImportError(f"walking {name} failed")

    names = ["auditeval"] + [m.name for m in pkgutil.walk_packages(auditeval.__path__, "auditeval.", onerror=fail)]
    return names


def test_every_submodule_imports_and_its_dotted_name_reaches_it():
    names = all_modules()
    assert {"auditeval.auditing.core", "auditeval.stats.bootstrap", "auditeval.pooling.store", "auditeval.verify.diff",
            "auditeval.render.eval_json", "auditeval.adapters.trec_eval", "auditeval.integrations.pyterrier_frames",
            "auditeval.trec_eval.run", "auditeval.io.readers", "auditeval.engine.measures.core",
            "auditeval.__main__"} <= set(names)
    wrong = []
    for name in names:
        module = importlib.import_module(name)
        assert module is sys.modules[name]
        obj = auditeval
        for part in name.split(".")[1:]:  # what `import a.b.c as z` reads
            obj = getattr(obj, part, None)
        scope: dict = {}
        try:
            exec(f"import {name} as z", scope)
        except ImportError as exc:
            wrong.append(f"import {name} as z: {exc}")
            continue
        if obj is not module or scope["z"] is not module:
            wrong.append(f"{name}: the dotted path reaches {obj!r}")
    assert wrong == []


def test_audit_is_a_plain_function_beside_its_package():
    from auditeval import audit
    from auditeval.auditing import core

    assert audit is core.audit and inspect.isfunction(audit)
    assert list(inspect.signature(audit).parameters)[:4] == ["qrels", "runs", "measures", "against"]
    assert auditeval.AuditReport is sys.modules["auditeval.results.audit"].AuditReport


def test_fresh_interpreter_imports_the_audit_core_first():
    code = ("import auditeval.auditing.core as core; from auditeval import audit; "
            "print(core.__name__, type(audit).__name__, audit is core.audit)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["auditeval.auditing.core", "function", "True"]


HEAVY = ("pandas", "ir_measures", "rich", "matplotlib", "scipy", "yaml", "pytrec_eval", "ranx",
         "auditeval.auditing", "auditeval.adapters", "auditeval.render", "auditeval.stats",
         "auditeval.verify", "auditeval.pooling", "auditeval.integrations.ir_measures_provider",
         "pyarrow.compute")  # its ~500 wrappers: 80 ms; auditeval.vocab.arrow_compute calls Arrow directly


def _modules_after(argv: list[str], tmp_path) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run the console entry point on ``argv`` in a fresh interpreter; the modules it loaded."""
    dump = tmp_path / "modules.txt"
    code = ("import atexit, sys\n"
            f"atexit.register(lambda: open({str(dump)!r}, 'w').write('\\n'.join(sorted(sys.modules))))\n"
            f"sys.argv = ['auditeval', *{argv!r}]\n"
            "from auditeval.cli.main import entry\nentry()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    return done, set(dump.read_text().split())


@pytest.mark.parametrize("flags", [[], ["-q", "-m", "all_trec"], ["-c", "-J", "-M", "3", "-l", "2", "-q"]])
def test_the_drop_in_loads_only_what_it_uses(tmp_path, flags):
    done, loaded = _modules_after(["trec-eval", *flags, "examples/qrels.txt", "examples/bm25.txt"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "num_q" in done.stdout  # it did evaluate
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    assert heavy == []
    # numpy.ma (30 ms: np.unique and pa.array(ndarray) touch it) stays unloaded: vocab/arrays.py
    assert sorted(m for m in loaded if m == "numpy.ma" or m.startswith("numpy.ma.")) == []


EVAL_HEAVY = ("ir_measures", "rich", "matplotlib", "scipy", "yaml", "pytrec_eval", "ranx", "auditeval.adapters",
              "auditeval.auditing.core", "auditeval.render.eval_text", "auditeval.stats", "auditeval.verify",
              "auditeval.pooling", "auditeval.integrations.ir_measures_provider")


@pytest.mark.parametrize("fmt", ["tsv", "json"])
def test_eval_tsv_and_json_load_no_audit_adapter_rich_or_scipy(tmp_path, fmt):
    done, loaded = _modules_after(["eval", "examples/qrels.txt", "examples/bm25.txt", "--format", fmt], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "AP|" in done.stdout and "tied scores" in done.stderr  # it evaluated, with the tie note
    heavy = sorted(m for m in loaded if m.split(".")[0] in EVAL_HEAVY or m.startswith(EVAL_HEAVY))
    assert heavy == []


def test_import_auditeval_loads_no_engine_or_reference_tool():
    code = "import sys, auditeval; print(' '.join(sorted(m for m in sys.modules if m.startswith(('auditeval', 'pandas', 'ir_measures', 'pyarrow')))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["auditeval", "auditeval._version", "auditeval.integrations",
                                   "auditeval.integrations.registration", "auditeval.vocab",
                                   "auditeval.vocab.lazy"]  # the lazy-export helper: stdlib only


def test_ir_measures_finds_the_provider_when_imported_after_auditeval():
    code = ("import auditeval, sys; assert 'ir_measures' not in sys.modules; import ir_measures; "
            "print(type(ir_measures.providers.registry['auditeval']).__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "AuditevalProvider"


def test_the_drop_in_works_in_a_process_without_pandas(trec_eval_bins, tmp_path):
    """The console entry refuses pandas in the drop-in's process (start-up): 60 differential cases
    (duplicates, -c, -q, all_trec, ...) run there, with pandas blocked, equal the binaries."""
    bins = {v: str(p) for v, p in trec_eval_bins.items()}
    code = f"""
import sys
sys.path.insert(0, {str(ROOT / "tests")!r})
from auditeval.cli.main import _without_pandas
_without_pandas()
from pathlib import Path
from trec_eval_diff import difference, make_case, run_case
bad = []
for seed in range(60):
    case = make_case(seed)
    real, mine = run_case(case, {{k: Path(v) for k, v in {bins!r}.items()}}, Path({str(tmp_path)!r}))
    why = difference(case, real, mine)
    if why is not None:
        bad.append(case.describe() + ': ' + why)
print(len(bad), 'pandas' in sys.modules)
print(chr(10).join(bad[:3]))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == "0 False", done.stdout
