"""The layers of the tree, read from the import statements of every module (``ast``: module
level and inside functions, ``TYPE_CHECKING`` blocks included).

    vocab -> io -> results -> engine -> analyses (auditing, verify, stats, pooling,
    adapters, trec_eval) -> render -> cli

* outside ``auditeval/engine/`` the engine is reached through its door only
  (``from auditeval.engine import ...``), never a submodule (``auditeval.engine.xxx``); the door's
  group ``DROPIN_ONLY`` (what only the trec_eval drop-in uses) is imported by ``trec_eval`` alone;
* ``vocab`` imports nothing of auditeval but ``vocab`` (and ``auditeval._version``);
  ``io`` only vocab / io; ``results`` only vocab / io / results; ``engine`` only
  vocab / io / results / engine;
* ``adapters`` and ``render`` never import the engine (adapters may read the trec_eval
  drop-in's catalog and params, which themselves reach no engine module);
* nobody imports ``auditeval.cli`` but ``auditeval.__main__`` and cli itself;
* ``cli`` draws nothing itself: no module of it imports rich or calls a ``.print`` method
  (a command hands its result to a renderer of ``render``);
* ``execution`` (the seam where tasks run) sits beside the analyses: it imports vocab, io,
  results, the engine's door, the analyses and ``api`` (the tasks run what the serial path
  runs), never render, adapters or cli; only cli imports it (analyses take a backend object);
* the package-level import graph (one node per top-level package or module of auditeval)
  has no cycle;
* the module-level import graph (one node per file, every import counted: a function-level
  import that closes a cycle is a cycle too, it only waits for the first call) has no cycle.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from paths import REPO

ROOT = REPO / "auditeval"
ALWAYS = {"auditeval._version"}
# Known exceptions, each named with its reason; test_known_exceptions_are_exactly_these keeps
# this list honest (it fails when one disappears, so the list only shrinks).
KNOWN: dict[tuple[str, str], str] = {}  # (module, import) -> why a layer rule is broken there


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _exists(name: str) -> bool:
    rel = Path(*name.split("."))
    return (ROOT.parent / rel).with_suffix(".py").exists() or (ROOT.parent / rel / "__init__.py").exists()


@cache
def bound_in_package(name: str) -> frozenset[str]:
    """Names a package's ``__init__`` binds at module level (``from auditeval.engine import
    prepare`` is the door's function, not the submodule of that name)."""
    path = ROOT.parent / Path(*name.split(".")) / "__init__.py"
    if not path.exists():
        return frozenset()
    out: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom | ast.Import):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(out)


@cache
def modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


@cache
def imports_of(name: str) -> frozenset[str]:
    """Every auditeval module ``name`` imports (``from pkg import sub`` names ``pkg.sub`` when
    ``sub`` is a module, else ``pkg``)."""
    path = modules()[name]
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "auditeval")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "auditeval":
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                out.add(sub if _exists(sub) and a.name not in bound_in_package(mod) else mod)
    return frozenset(out)


def package(name: str) -> str:
    """The top-level node of a module: ``auditeval.engine.sweep`` -> ``engine``."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def _in(name: str, pkg: str) -> bool:
    return name == f"auditeval.{pkg}" or name.startswith(f"auditeval.{pkg}.")


def _violations(pkgs: tuple[str, ...], allowed: tuple[str, ...]) -> list[str]:
    bad = []
    for mod in modules():
        if package(mod) not in pkgs:
            continue
        for imp in imports_of(mod):
            if imp in ALWAYS or any(_in(imp, a) for a in allowed) or (mod, imp) in KNOWN:
                continue
            bad.append(f"{mod} imports {imp}")
    return sorted(bad)


def test_the_parser_sees_both_module_and_function_level_imports():
    # hand-picked: auditeval.trec_eval.run imports the engine at module level and the spec
    # table inside a function; auditeval.__main__ imports the cli
    assert "auditeval.engine" in imports_of("auditeval.trec_eval.run")
    assert "auditeval.vocab.specs" in imports_of("auditeval.trec_eval.run")
    assert any(_in(i, "cli") for i in imports_of("auditeval.__main__"))
    assert len(modules()) > 100


def test_engine_submodules_only_inside_the_engine():
    bad = [f"{m} imports {i}" for m in modules() if package(m) != "engine"
           for i in imports_of(m) if i.startswith("auditeval.engine.")]
    assert bad == []


def _door_names(name: str) -> set[str]:
    """The names module ``name`` takes from the engine's door (``from auditeval.engine import ...``)."""
    path = modules()[name]
    return {a.name for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.ImportFrom) and node.module == "auditeval.engine" for a in node.names}


def test_the_drop_in_names_serve_the_drop_in_alone():
    """The door's ``DROPIN_ONLY`` group (trec_eval 8.x's C float measures, glibc's qsort, the
    preference measures one topic at a time) is imported by ``auditeval.trec_eval`` only, and
    every name of the door resolves."""
    import auditeval.engine as door

    dropin = set(door.DROPIN_ONLY)
    users = sorted({package(m) for m in modules() if package(m) != "engine" and _door_names(m) & dropin})
    assert users == ["trec_eval"]
    assert dropin <= set(door.__all__) and len(door.__all__) == len(set(door.__all__))
    assert all(getattr(door, n) is not None for n in door.__all__)


def test_the_drop_in_rule_finds_a_drop_in_name_elsewhere(tmp_path, monkeypatch):
    """The rule reads the names imported, not the module: a hand-made module of another package
    that takes ``trec8_topic`` from the door is found."""
    f = tmp_path / "m.py"
    f.write_text("from auditeval.engine import StagedRun, trec8_topic\n")
    monkeypatch.setitem(modules(), "auditeval.stats.m", f)
    import auditeval.engine as door

    assert _door_names("auditeval.stats.m") & set(door.DROPIN_ONLY) == {"trec8_topic"}


def test_vocab_io_results_engine_layers():
    assert _violations(("vocab",), ("vocab",)) == []
    assert _violations(("io",), ("vocab", "io")) == []
    assert _violations(("results",), ("vocab", "io", "results")) == []
    assert _violations(("engine",), ("vocab", "io", "results", "engine")) == []


def test_the_engine_reads_no_files():
    """Stricter than the layer rule: the engine imports no reader (``auditeval.io``)."""
    assert [f"{m} imports {i}" for m in modules() if package(m) == "engine" for i in imports_of(m)
            if _in(i, "io")] == []


def _reaches(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        if m in seen or m not in modules():
            continue
        seen.add(m)
        todo.extend(imports_of(m))
    return seen


def test_adapters_and_render_never_reach_the_engine():
    for pkg in ("adapters", "render"):
        bad = [f"{m} imports {i}" for m in modules() if package(m) == pkg for i in imports_of(m) if _in(i, "engine")]
        assert bad == [], pkg
    allowed_trec = {"auditeval.trec_eval", "auditeval.trec_eval.catalog", "auditeval.trec_eval.params"}
    bad = [f"{m} imports {i}" for m in modules() if package(m) == "adapters" for i in imports_of(m)
           if _in(i, "trec_eval") and i not in allowed_trec]
    assert bad == []
    for mod in ("auditeval.trec_eval.catalog", "auditeval.trec_eval.params"):
        assert not [m for m in _reaches(mod) if _in(m, "engine")], mod


def test_execution_sits_beside_the_analyses():
    allowed = ("vocab", "io", "results", "engine", "auditing", "stats", "pooling", "verify", "api", "execution")
    assert _violations(("execution",), allowed) == []
    users = sorted({package(m) for m in modules() for i in imports_of(m) if _in(i, "execution")} - {"execution"})
    assert users == ["cli"]


def test_only_main_imports_the_cli():
    bad = [f"{m} imports {i}" for m in modules() if package(m) != "cli" and m != "auditeval.__main__"
           for i in imports_of(m) if _in(i, "cli")]
    assert bad == []


def drawing(source: str) -> list[str]:
    """What in ``source`` draws output itself: every import of rich (``import rich.x``, ``from
    rich.x import ...``, module or function level) and every call of a ``.print`` method (a rich
    console's), each as ``LINE: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] == "rich"]
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "rich":
            found.append(f"{node.lineno}: from {node.module} import")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "print":
            found.append(f"{node.lineno}: .print()")
    return sorted(found, key=lambda x: int(x.split(":")[0]))


def test_the_drawing_rule_finds_rich_in_hand_made_code():
    src = ("import os\nimport richer\nfrom .rich import x\nfrom rich.table import Table\n"
           "def f(c):\n    import rich.console\n    c.print(Table())\n    print('x')\n    c.print_usage()\n")
    assert drawing(src) == ["4: from rich.table import", "6: import rich.console", "7: .print()"]


def test_cli_modules_draw_nothing():
    """A command module parses its options, calls the analysis and hands the result to a
    renderer (``auditeval/render/``): none imports rich, so none builds a ``Table`` or prints
    through a console itself."""
    bad = [f"{modules()[m].relative_to(ROOT.parent)}:{x}" for m in modules() if package(m) == "cli"
           for x in drawing(modules()[m].read_text())]
    assert bad == []


def package_graph() -> dict[str, set[str]]:
    """Top-level node -> the top-level nodes it imports (the root package ``""`` left out:
    it only re-exports the public face)."""
    graph: dict[str, set[str]] = {}
    for mod in modules():
        src = package(mod)
        if not src:
            continue
        graph.setdefault(src, set()).update(
            package(i) for i in imports_of(mod)
            if package(i) and package(i) != src and i not in ALWAYS and (mod, i) not in KNOWN)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        state[n] = 2
        stack.pop()
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_cycle_finder_finds_a_hand_made_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_between_packages():
    assert _cycle(package_graph()) is None


def test_known_exceptions_are_exactly_these():
    found = {(m, i) for m in modules() for i in imports_of(m)}
    assert set(KNOWN) <= found  # a fixed exception must leave the list


def module_graph() -> dict[str, set[str]]:
    """Module -> the auditeval modules it imports (module and function level, ``TYPE_CHECKING``
    blocks included), self-imports and the known exceptions left out."""
    return {mod: {i for i in imports_of(mod) if i in modules() and i != mod and (mod, i) not in KNOWN}
            for mod in modules()}


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one node (Tarjan's
    algorithm, iterative), each sorted; sorted by their first node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def _shortest_cycle(graph: dict[str, set[str]], comp: list[str]) -> list[str]:
    """A shortest cycle through the first node of ``comp`` (breadth first inside it)."""
    start, inside = comp[0], set(comp)
    parent: dict[str, str] = {}
    todo = [start]
    while todo:
        nxt = []
        for n in todo:
            for m in sorted(graph.get(n, set()) & inside):
                if m == start:
                    path = [n]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return [*reversed(path), start]
                if m not in parent:
                    parent[m] = n
                    nxt.append(m)
        todo = nxt
    raise AssertionError(f"{comp} is not a cycle")  # pragma: no cover


def module_cycles(graph: dict[str, set[str]]) -> list[str]:
    """One line per group of modules that import each other: a shortest cycle through its
    first module (``a -> b -> a``), then every module of the group when it holds more."""
    out = []
    for comp in _components(graph):
        cycle = _shortest_cycle(graph, comp)
        line = " -> ".join(cycle)
        if len(comp) > len(cycle) - 1:
            line += f" (in a group of {len(comp)}: {', '.join(comp)})"
        out.append(line)
    return out


def test_module_cycle_finder_on_hand_made_graphs():
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert _components(graph) == [["a", "b", "c"], ["d", "e"]]
    assert module_cycles(graph) == ["a -> b -> a (in a group of 3: a, b, c)", "d -> e -> d"]
    assert module_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a -> b -> c -> a"]
    assert module_cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_module_graph_holds_function_level_and_type_checking_imports():
    # hand-picked: auditeval.trec_eval.run imports the spec table inside a function;
    # auditeval.engine.absent imports MeasureDef under TYPE_CHECKING only
    graph = module_graph()
    assert "auditeval.vocab.specs" in graph["auditeval.trec_eval.run"]
    assert "auditeval.engine.measures.base" in graph["auditeval.engine.absent"]


def test_no_import_cycle_between_modules():
    cycles = module_cycles(module_graph())
    assert not cycles, "import cycles between modules:\n" + "\n".join(cycles)


def test_testing_is_a_face_on_top():
    """``auditeval.testing`` (the pytest plugin, the assertions) computes nothing: it reaches the
    engine only through ``verify`` and ``api`` (``render`` lays out its report), and nothing inside
    auditeval imports it."""
    assert _violations(("testing",), ("vocab", "io", "results", "verify", "api", "render", "testing")) == []
    assert sorted({package(m) for m in modules() for i in imports_of(m) if _in(i, "testing")} - {"testing"}) == []


# C float arithmetic outside the engine: a cast to float32 (``np.float32(x)``, ``.astype(np.float32)``,
# ``dtype=np.float32`` / ``"float32"`` / ``"f4"``) or a struct "f" conversion: how a trec_eval value is
# rounded, so how a measure is computed. Only the engine rounds values (its door offers as_sim for
# scores, as_c_float for stored values).
_F32_NAMES = {"float32", "single"}
_F32_TEXT = {"float32", "f4", "<f4", "f"}


def _is_f32(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in _F32_NAMES
    if isinstance(node, ast.Name):
        return node.id in _F32_NAMES
    return isinstance(node, ast.Constant) and node.value in _F32_TEXT


def c_float_arithmetic(tree: ast.AST) -> list[str]:
    """Where a module rounds values to C float: line and what it does."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if _is_f32(f) and not isinstance(f, ast.Constant) and node.args:  # pa.float32(): a type
            found.append(f"{node.lineno}: float32(...)")
        elif isinstance(f, ast.Attribute) and f.attr == "astype" and node.args and _is_f32(node.args[0]):
            found.append(f"{node.lineno}: .astype(float32)")
        elif any(k.arg == "dtype" and _is_f32(k.value) for k in node.keywords):
            found.append(f"{node.lineno}: dtype=float32")
        elif (isinstance(f, ast.Attribute) and f.attr in ("Struct", "pack", "unpack", "pack_into", "unpack_from")
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and "f" in node.args[0].value):
            found.append(f"{node.lineno}: struct {node.args[0].value!r}")
    return sorted(found, key=lambda w: int(w.split(":")[0]))


def test_the_rule_finds_c_float_arithmetic_in_hand_made_code():
    # the helpers the trec_eval 8.x port once defined beside the engine's, and the casts it used
    code = ("import struct\nimport numpy as np\n_F32 = struct.Struct('f')\n"
            "def f32(x):\n    return _F32.unpack(_F32.pack(x))[0]\n"
            "def fdiv(a, b):\n    return float(np.float32(a) / np.float32(b))\n"
            "acc = np.cumsum(x, dtype=np.float32)\ny = x.astype('float32')\n"
            "ok = {1: np.float32}\nlabel = 'float32'\nz = x.astype(np.float64)\nt = pa.float32()\n")
    assert c_float_arithmetic(ast.parse(code)) == [
        "3: struct 'f'", "7: float32(...)", "7: float32(...)", "8: dtype=float32", "9: .astype(float32)"]


def test_no_c_float_arithmetic_outside_the_engine():
    """Values are computed in the engine only: no module outside ``auditeval/engine/`` rounds to
    C float (the trec_eval 8.x drop-in reads, flags and prints; its measures are
    ``auditeval.engine.trec8``'s)."""
    bad = [f"{m}:{where}" for m, path in modules().items() if package(m) != "engine"
           for where in c_float_arithmetic(ast.parse(path.read_text(), str(path)))]
    assert bad == []


# Function size: no function of auditeval over 100 lines (its ``def`` line to its last) or with
# more than 10 parameters (``self``/``cls`` not counted, ``*args``/``**kwargs`` counted), unless a
# ``# long: REASON`` comment on its ``def`` line says why.
MAX_LINES = 80
MAX_PARAMS = 10


def long_functions(source: str) -> list[str]:
    """The functions of ``source`` over the limits and without a ``# long:`` reason: name, lines,
    parameters."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        a = node.args
        names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
        names = [n for n in names if n not in ("self", "cls")]
        n_params = len(names) + (a.vararg is not None) + (a.kwarg is not None)
        n_lines = node.end_lineno - node.lineno + 1
        if n_lines <= MAX_LINES and n_params <= MAX_PARAMS:
            continue
        if "# long:" in lines[node.lineno - 1]:
            continue
        found.append(f"{node.lineno}:{node.name} ({n_lines} lines, {n_params} parameters)")
    return found


def test_the_size_rule_finds_long_functions_in_hand_made_code():
    many = "def many(" + ", ".join(f"a{i}" for i in range(11)) + "):\n    pass\n"
    ok = "def ok(self, " + ", ".join(f"a{i}" for i in range(10)) + "):\n    pass\n"
    star = "def star(a, b, c, d, e, f, g, h, i, *args, **kwargs):\n    pass\n"
    body = "".join("    x = 1\n" for _ in range(80))
    tall = "def tall():\n" + body
    fine = "def fine():\n" + body[:-len("    x = 1\n")]
    excused = "def excused():  # long: one table of rows, read top to bottom\n" + body
    assert long_functions(many + ok + star + tall + fine + excused) == [
        "1:many (2 lines, 11 parameters)", "5:star (2 lines, 11 parameters)",
        "7:tall (81 lines, 0 parameters)"]


def test_no_long_functions():
    """Every function of auditeval fits in 80 lines and 10 parameters, or says why beside its
    ``def`` (options that travel together are one frozen keyword-only dataclass)."""
    bad = [f"{m}:{where}" for m, path in modules().items() for where in long_functions(path.read_text())]
    assert bad == []
