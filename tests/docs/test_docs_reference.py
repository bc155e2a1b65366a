"""The site's reference pages are generated from the code's own tables (``docs/gen_reference.py``)
and committed: they fail here when out of date. Also: every command has its page in the site's
navigation, the site names every command, profile and measure, and every Sphinx cross-reference
(``:func:`...```) in the package's docstrings names something that exists."""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import inspect
import re
import sys

import pytest
from docs_blocks import ROOT

pytestmark = pytest.mark.slow

spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "docs" / "gen_reference.py")
gen = importlib.util.module_from_spec(spec)
sys.modules["gen_reference"] = gen
spec.loader.exec_module(gen)


@pytest.fixture(scope="module")
def pages() -> dict:
    return gen.pages()


def test_generated_pages_are_current(pages) -> None:
    stale = [str(p.relative_to(ROOT)) for p, text in pages.items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    assert not stale, f"out of date (run `python docs/gen_reference.py`): {', '.join(stale)}"


def test_every_command_has_a_page_in_the_navigation(pages) -> None:
    from auditeval.cli.main import COMMANDS

    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for name in [*COMMANDS, "trec-eval"]:
        assert ROOT / "docs" / "commands" / f"{name}.md" in pages
        assert f"commands/{name}.md" in nav, f"mkdocs.yml: nav lacks commands/{name}.md"


def test_the_site_names_every_command_profile_and_measure(pages) -> None:
    from auditeval.cli.main import COMMANDS
    from auditeval.vocab.conventions import profile_names
    from auditeval.vocab.specs import SPECS

    text = {p.relative_to(ROOT / "docs").as_posix(): t for p, t in pages.items()}
    assert len(profile_names()) == len(list((ROOT / "conventions").glob("*.toml"))) >= 20
    for name in profile_names():
        assert f"## {name} {{#{name}}}" in text["reference/profiles.md"]
    assert len(SPECS) >= 50
    for name in SPECS:  # what `auditeval measures` lists
        assert f"## {name} {{#{name}}}" in text["reference/measures.md"]
    for name in COMMANDS:
        assert f"[`auditeval {name}`]({name}.md)" in text["commands/index.md"]
        assert f"## Usage: `auditeval {name}`" in text[f"commands/{name}.md"]


def test_a_spelling_from_the_adapters() -> None:
    # hand-checked: pytrec_eval spells AP 'map' and AP@10 'map_cut.10'; ranx 'map', 'map@10'
    spelled = gen.spellings(__import__("auditeval.vocab.specs", fromlist=["SPECS"]).SPECS["AP"])
    assert spelled["pytrec_eval"] == ["map", "map_cut.10"] and spelled["ranx"] == ["map", "map@10"]


def test_command_page_keeps_its_prose() -> None:
    old = f"# t\n\nprose\n\n{gen.BEGIN}\nold\n{gen.END}\n\nmore prose\n"
    new = gen.command_page("x", "help", "NEW", old)
    assert new == f"# t\n\nprose\n\n{gen.BEGIN}\n\nNEW\n{gen.END}\nmore prose\n"
    assert gen.command_page("x", "does a thing", "NEW", None).startswith("# `auditeval x`\n\ndoes a thing.\n\n")


# ----------------------------------------------------------------------------- cross-references
ROLE = re.compile(r":(mod|func|class|data|meth|attr|exc|obj):`~?([^`<]+?)(?:\s*<([^>]+)>)?`")
ELSEWHERE = {"numpy", "np", "pyarrow", "pa", "pandas", "pd", "argparse", "ir_measures", "ranx", "pytrec_eval",
             "concurrent", "distributed", "typing", "os", "sys", "json", "dataclasses", "subprocess", "sqlite3",
             "pathlib", "collections", "scipy", "signal", "tomllib", "getopt", "functools", "threading", "rich",
             "httpx", "pyterrier", "repro_eval", "math", "multiprocessing", "contextvars", "io", "gzip"}


def _resolves(target: str, module) -> bool:
    target = target.strip().rstrip("()")
    name = module.__name__
    package = name if hasattr(module, "__path__") else name.rpartition(".")[0]
    if target.startswith("."):
        dots = len(target) - len(target.lstrip("."))
        base = package.split(".")[: len(package.split(".")) - (dots - 1)]
        target = ".".join(base) + "." + target.lstrip(".")
    if target.split(".")[0] in ELSEWHERE:
        return True
    if target.startswith("auditeval"):
        parts = target.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            return _has_path(obj, parts[i:])
        return False
    head, *rest = target.split(".")
    if hasattr(module, head) and _has_path(getattr(module, head), rest):
        return True
    if hasattr(builtins, head):
        return True
    # a bare method or attribute name (:meth:`replace`): a member of a class of the module
    return not rest and any(_has_path(c, [head]) for c in vars(module).values() if inspect.isclass(c))


def _source(obj) -> str:
    try:
        return inspect.getsource(obj) if inspect.isclass(obj) else ""
    except (OSError, TypeError):
        return ""


def _has_path(obj, attrs: list[str]) -> bool:
    for a in attrs:
        fields = getattr(obj, "__dataclass_fields__", {})
        notes = getattr(obj, "__annotations__", {}) if inspect.isclass(obj) else {}
        if hasattr(obj, a):
            obj = getattr(obj, a)
        elif a in fields or a in notes or f"self.{a} " in _source(obj):
            return True  # a field, an annotation or an attribute its methods set
        else:
            return False
    return True


def _is_module(target: str, package: str) -> bool:
    """A ``:mod:`` target names a module (not a function of that name in a package's door)."""
    target = target.strip().lstrip("~")
    try:
        importlib.import_module(target, package=package if target.startswith(".") else None)
    except ImportError:
        return target.split(".")[0] in ELSEWHERE
    return True


def test_docstring_cross_references_resolve() -> None:
    broken = []
    for path in sorted((ROOT / "auditeval").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        module = importlib.import_module(name)
        text = path.read_text(encoding="utf-8")
        for m in ROLE.finditer(text):
            target = m.group(3) or m.group(2)
            package = name if hasattr(module, "__path__") else name.rpartition(".")[0]
            if not _resolves(target, module) or (m.group(1) == "mod" and not _is_module(target, package)):
                broken.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
    assert not broken, "docstring references to nothing:\n" + "\n".join(broken)


def test_the_differences_guide_has_every_profile() -> None:
    # "why do my numbers differ from X?": a section for each tool with a profile
    from auditeval.vocab.conventions import profile_names

    guide = (ROOT / "docs" / "differences.md").read_text(encoding="utf-8")
    missing = [n for n in profile_names() if f"`{n}`" not in guide]
    assert not missing, f"docs/differences.md does not name: {', '.join(missing)}"
