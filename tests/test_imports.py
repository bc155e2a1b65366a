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

import auditeval


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
