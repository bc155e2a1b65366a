"""Every command and subcommand in a fresh interpreter: ``--help`` and one real invocation each.

The in-process tests import many modules before a command runs, so an import-order crash (a
cycle between two modules that only bites when one of them is imported first) never shows
there. Here each case is ``sys.executable -m auditeval ...`` in its own process, on the bundled
``examples/`` or on a tiny qrels and two runs written to ``tmp_path`` whose values are worked
out by hand below. Every case asserts the exit status, that standard error holds no
``Traceback``, and something real about standard output.

The command names come from the command line's own parser (:func:`auditeval.cli.main.build_parser`,
every subparser walked), so a new command or subcommand without an entry in :data:`INVOCATIONS`
fails :func:`test_every_command_has_an_invocation_case`.

The tiny input (:func:`tiny`), relevant = grade >= 1::

    qrels  topic 1: a 1, b 0, c 1, d 2      topic 2: x 1, y 0
    run A  topic 1: a b c e (scores 4 3 2 1)  topic 2: y x (2 1)
    run B  topic 1: d c a   (3 2 1)           topic 2: x (1)

    A: AP topic 1 = (1/1 + 2/3) / 3 = 0.5556, topic 2 = (1/2) / 1 = 0.5; MAP 0.5278
       P@10 = (2/10 + 1/10) / 2 = 0.15; RR = (1 + 1/2) / 2 = 0.75
       depth=1: AP topic 1 = (1/1) / 3, topic 2 = 0; mean 0.1667
    B: AP 1 on both topics; A - B per topic -0.4444, -0.5: mean -0.4722,
       RMSE sqrt((0.4444^2 + 0.5^2) / 2) = 0.4730, paired t = -17.0
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from paths import REPO

pytestmark = pytest.mark.slow

ROOT = REPO
EXAMPLES = ROOT / "examples"

TINY = {
    "qrels.txt": "1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 2\n2 0 x 1\n2 0 y 0\n",
    "a.txt": "1 Q0 a 1 4.0 A\n1 Q0 b 2 3.0 A\n1 Q0 c 3 2.0 A\n1 Q0 e 4 1.0 A\n2 Q0 y 1 2.0 A\n2 Q0 x 2 1.0 A\n",
    "b.txt": "1 Q0 d 1 3.0 B\n1 Q0 c 2 2.0 B\n1 Q0 a 3 1.0 B\n2 Q0 x 1 1.0 B\n",
    # two trec_eval outputs that differ in one value (diff)
    "te_a.txt": "map\tall\t0.5278\nP_10\tall\t0.1500\n",
    "te_b.txt": "map\tall\t0.5278\nP_10\tall\t0.1600\n",
    # a judge for pool judge: every pair relevant
    "tinyjudge.py": "def judge(pairs):\n    return [1 for _ in pairs]\n",
}


def discovered_commands() -> list[tuple[str, ...]]:
    """Every command path the parser knows (``("pool",)``, ``("pool", "add")``, ...), from
    the parser built with every command's options."""
    from auditeval.cli.main import COMMANDS, build_parser

    out: list[tuple[str, ...]] = []

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    out.append((*path, name))
                    walk(sub, (*path, name))

    walk(build_parser(list(COMMANDS)), ())
    return out


def leaves(paths: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The paths that run something (no subcommand below them)."""
    return [p for p in paths if not any(q[: len(p)] == p and len(q) > len(p) for q in paths)]


# ----------------------------------------------------------------------------- running
def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m auditeval ARGS`` in a fresh interpreter, this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(cwd), *filter(None, [env.get("PYTHONPATH")])])
    env["COLUMNS"] = "100"
    env.pop("AUDITEVAL_TEST_FAIL", None)
    env["AUDITEVAL_CACHE_DIR"] = str(cwd / "cache")  # `references build` writes here, nowhere else
    return subprocess.run([sys.executable, "-m", "auditeval", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def fields(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()]


def has_row(out: str, *cells: str) -> bool:
    """Whether a line of ``out`` holds ``cells`` as consecutive whitespace-separated fields
    (table borders ``│`` dropped)."""
    want = list(cells)
    for row in fields(out.replace("│", " ")):
        for i in range(len(row) - len(want) + 1):
            if row[i:i + len(want)] == want:
                return True
    return False


@dataclass(frozen=True)
class Case:
    """One invocation: ``args`` run in the tiny inputs' folder, ``{ex}`` formatted as the
    bundled examples' folder; ``setup(folder)`` runs first (in process); ``check(stdout,
    folder)`` asserts what the output must hold; ``status``: the exit status expected."""

    args: tuple[str, ...]
    check: Callable[[str, Path], None]
    status: int = 0
    setup: Callable[[Path], None] | None = None


def _store(folder: Path) -> None:
    """A judgment store holding the tiny qrels (what ``pool add`` makes, tested on its own)."""
    from auditeval.cli.main import main

    assert main(["pool", "add", "--store", str(folder / "s.db"), str(folder / "qrels.txt")]) == 0


def _example_counts() -> tuple[int, int, set[str]]:
    """Judgments in examples/qrels.txt, result lines in examples/bm25.txt, the qrels topics."""
    qrels = [line.split() for line in (EXAMPLES / "qrels.txt").read_text().splitlines() if line.strip()]
    bm25 = [line for line in (EXAMPLES / "bm25.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    return len(qrels), len(bm25), {q[0] for q in qrels}


def _profiles() -> dict[str, dict]:
    return {p.stem: tomllib.loads(p.read_text()) for p in sorted((ROOT / "conventions").glob("*.toml"))}


# ----------------------------------------------------------------------------- the checks
def check_eval(out: str, _: Path) -> None:
    assert out.startswith("profile trec_eval-9.0.8")
    for row in (("A", "AP", "0.5278"), ("A", "P@10", "0.1500"), ("A", "RR", "0.7500"),
                ("B", "AP", "1.0000"), ("B", "P@10", "0.2000"), ("B", "RR", "1.0000")):
        assert has_row(out, *row), row


def check_sweep(out: str, _: Path) -> None:
    assert "varied: depth=1,all" in out
    assert has_row(out, "(the", "profile)", "0.5278") and has_row(out, "depth=1", "0.1667")


def check_audit(out: str, _: Path) -> None:
    judgments, lines, _topics = _example_counts()
    assert out.startswith("every difference explained: 8 reference value(s) reproduced")  # 8 measures, 1 run
    assert f"{judgments} judgments" in out
    assert f"{lines} lines" in out
    assert re.search(r"^pytrec_eval +ok ", out, re.M)


def check_verify(out: str, _: Path) -> None:
    assert out.startswith("reproduced: every one of the 1 claim(s)")
    assert "MAP=0.5278: [0.52775, 0.52785) read as AP" in out


def check_reproduce(out: str, _: Path) -> None:
    assert has_row(out, "AP", "0.4730") and "-17.0000" in out


def check_diff(out: str, _: Path) -> None:
    assert out.startswith("DIFFERENT: 1 of 2 value(s) differ, in 1 measure(s) (exit 1)")
    assert has_row(out, "P@10", "all", "0.1500", "0.1600")


def check_card(out: str, _: Path) -> None:
    assert out.startswith("# Provenance card")
    assert "6 judgments, 2 topics" in out
    assert re.search(r"^\| A \| AP \| 0\.5278 \| 2 \|", out, re.M)


def check_compare(out: str, _: Path) -> None:
    assert out.startswith("== AP: 2 topics, 2 runs")
    assert has_row(out, "1", "1-1", "B", "1.0000") and has_row(out, "2", "2-2", "A", "0.5278")
    assert has_row(out, "A", "B", "-0.4722")


def check_pool_stats(out: str, _: Path) -> None:
    # depth 2: A tops 2 + 2, B 2 + 1 -> 7; distinct pairs {a,b,c,d} + {x,y} -> 6; 1 - 6/7
    assert "unpooled cost 7 pairs" in out and "pooled cost 6 pairs; reuse rate 1 - pooled / unpooled = 14.29%" in out


def check_pool_coverage(out: str, _: Path) -> None:
    # depth 4, judged / k: A (3/4 + 2/4) / 2, B (3/4 + 1/4) / 2; e is the one unjudged pair
    assert has_row(out, "A", "0.6250", "6", "1") and has_row(out, "B", "0.5000", "4", "0")
    assert "pairs left to judge for the pool at depth 4: 1" in out


def check_pool_todo(out: str, _: Path) -> None:
    assert fields(out) == [["1", "e"]]


def check_pool_add(out: str, folder: Path) -> None:
    assert has_row(out, "qrels.txt", "6", "1", "(1-1)", "6", "0", "0", "0")
    assert (folder / "s.db").is_file()


def check_pool_qrels(out: str, _: Path) -> None:
    assert out == TINY["qrels.txt"]


def check_pool_judge(out: str, folder: Path) -> None:
    assert "pool pairs 7; already stored 6; to judge 1; judged now 1" in out
    exported = run_cli(["pool", "qrels", "--store", "s.db"], folder)
    assert "1 0 e 1" in exported.stdout.splitlines()


def check_pool_bias(out: str, _: Path) -> None:
    # without B's unique pair (1, d): B's topic 1 AP = (1/2 + 2/3) / 2, so B loses
    # 1 - (0.5833 + 1) / 2 = 0.2083; A's unique pairs (b, e, y) hold no relevant document
    assert has_row(out, "A", "1", "3", "0", "0.0000", "A") and has_row(out, "B", "1", "1", "1", "0.2083", "B")


def check_pool_growth(out: str, _: Path) -> None:
    assert "5 random addition orders (seed 0)" in out
    assert has_row(out, "A", "B", "-0.4722", "0.0%", "0.00")


def check_conventions_list(out: str, _: Path) -> None:
    assert out.startswith("profiles")
    missing = [name for name in _profiles() if name not in out]
    assert missing == []


def check_conventions_show(out: str, _: Path) -> None:
    axes = _profiles()["trec_eval-10.0"]["axes"]
    assert out.startswith("trec_eval-10.0")
    for axis in ("sim", "iprec", "topics", "absent"):
        assert has_row(out, axis, str(axes[axis]) + ":") or has_row(out, axis, str(axes[axis])), axis


def check_conventions_diff(out: str, _: Path) -> None:
    a, b = (_profiles()[n]["axes"] for n in ("trec_eval-9.0.8", "trec_eval-10.0"))
    differ = sorted(k for k in a if a[k] != b[k])
    assert out.startswith(f"trec_eval-9.0.8 vs trec_eval-10.0: {len(differ)} axis(es) differ")
    assert [k for k in differ if not re.search(rf"│ {k} +│", out)] == []


def check_measures(out: str, _: Path) -> None:
    assert out.startswith("measures (ir_measures spelling")
    assert has_row(out, "AP", "map") and has_row(out, "nDCG", "ndcg")


def check_measures_ap(out: str, _: Path) -> None:
    assert out.startswith("AP: average precision")
    assert has_row(out, "trec_eval:", "map,", "map_cut.K")


def check_references_list(out: str, _: Path) -> None:
    assert out.startswith("references: ")
    assert has_row(out, "pytrec_eval", "ready")
    for v in ("10.0", "9.0.8", "9.0.8-double", "9.0.7", "9.0.6", "9.0.5", "8.1", "8.0"):
        assert has_row(out, f"trec_eval-{v}", "buildable"), v  # nothing is built in the case's cache


def check_references_build(out: str, folder: Path) -> None:
    assert out.startswith("references: 1 of 1 ready")
    assert has_row(out, "trec_eval-10.0", "ready") and "-v says 10.0-rc3;" in out  # the built program's probe
    assert (folder / "cache" / "trec_eval" / "trec_eval-10.0").is_file()


def check_trec_eval(out: str, _: Path) -> None:
    assert fields(out) == [["map", "1", "0.5556"], ["map", "2", "0.5000"], ["map", "all", "0.5278"]]


INVOCATIONS: dict[tuple[str, ...], list[Case]] = {
    ("eval",): [Case(("eval", "qrels.txt", "a.txt", "b.txt", "-m", "AP P@10 RR"), check_eval)],
    ("sweep",): [Case(("sweep", "qrels.txt", "a.txt", "-m", "AP", "--vary", "depth=1,all"), check_sweep)],
    ("audit",): [Case(("audit", "--against", "pytrec_eval", "{ex}/qrels.txt", "{ex}/bm25.txt"), check_audit)],
    ("verify",): [Case(("verify", "qrels.txt", "a.txt", "--claim", "MAP=0.5278"), check_verify)],
    ("diff",): [Case(("diff", "te_a.txt", "te_b.txt"), check_diff, status=1)],
    ("card",): [Case(("card", "qrels.txt", "a.txt", "b.txt", "-m", "AP"), check_card)],
    ("reproduce",): [Case(("reproduce", "--qrels", "qrels.txt", "a.txt", "b.txt", "-m", "AP"), check_reproduce)],
    ("compare",): [Case(("compare", "qrels.txt", "a.txt", "b.txt", "-m", "AP", "--trials", "100"), check_compare)],
    ("pool", "stats"): [Case(("pool", "stats", "--depth", "2", "a.txt", "b.txt"), check_pool_stats)],
    ("pool", "coverage"): [Case(("pool", "coverage", "--depth", "4", "qrels.txt", "a.txt", "b.txt"),
                                check_pool_coverage)],
    ("pool", "todo"): [Case(("pool", "todo", "--store", "s.db", "--depth", "4", "a.txt", "b.txt"), check_pool_todo,
                            setup=_store)],
    ("pool", "add"): [Case(("pool", "add", "--store", "s.db", "qrels.txt"), check_pool_add)],
    ("pool", "qrels"): [Case(("pool", "qrels", "--store", "s.db"), check_pool_qrels, setup=_store)],
    ("pool", "judge"): [Case(("pool", "judge", "--judge", "tinyjudge:judge", "--store", "s.db", "--depth", "4",
                              "a.txt", "b.txt"), check_pool_judge, setup=_store)],
    ("pool", "bias"): [Case(("pool", "bias", "--depth", "4", "-m", "AP", "--trials", "10", "qrels.txt", "a.txt",
                             "b.txt"), check_pool_bias)],
    ("pool", "growth"): [Case(("pool", "growth", "--depth", "4", "-m", "AP", "--orders", "5", "qrels.txt", "a.txt",
                               "b.txt"), check_pool_growth)],
    ("conventions", "list"): [Case(("conventions", "list"), check_conventions_list)],
    ("conventions", "show"): [Case(("conventions", "show", "trec_eval-10.0"), check_conventions_show)],
    ("conventions", "diff"): [Case(("conventions", "diff", "trec_eval-9.0.8", "trec_eval-10.0"),
                                   check_conventions_diff)],
    ("measures",): [Case(("measures",), check_measures), Case(("measures", "AP"), check_measures_ap)],
    ("trec-eval",): [Case(("trec-eval", "--as", "10.0", "-q", "-m", "map", "qrels.txt", "a.txt"), check_trec_eval)],
    # the cache folder is the case's own (run_cli): list sees nothing built, build compiles 10.0 there
    ("references", "list"): [Case(("references", "list"), check_references_list)],
    ("references", "build"): [Case(("references", "build", "10.0"), check_references_build)],
}


def _cases() -> list[tuple[str, Case]]:
    return [(" ".join(c.args), c) for path in sorted(INVOCATIONS) for c in INVOCATIONS[path]]


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    for name, text in TINY.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _assert_clean(done: subprocess.CompletedProcess, status: int) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == status, f"exit {done.returncode}, stderr:\n{done.stderr}"


# ----------------------------------------------------------------------------- the tests
def test_every_command_has_an_invocation_case():
    runnable = set(leaves(discovered_commands()))
    assert {("eval",), ("pool", "add"), ("conventions", "diff"), ("trec-eval",)} <= runnable  # the walk works
    assert sorted(runnable - set(INVOCATIONS)) == [], "commands without an invocation case"
    assert sorted(set(INVOCATIONS) - runnable) == [], "cases for commands the parser does not know"


@pytest.mark.parametrize("path", [" ".join(p) for p in [(), *discovered_commands()]], ids=lambda p: p or "auditeval")
def test_help_in_a_fresh_process(path: str, tmp_path: Path):
    words = path.split()
    done = run_cli([*words, "--help"], tmp_path)
    _assert_clean(done, 0)
    if words == ["trec-eval"]:  # the drop-in prints trec_eval's own usage
        assert done.stdout.startswith("auditeval trec-eval [--as ")
    else:
        assert done.stdout.startswith(" ".join(["usage: auditeval", *words]))


@pytest.mark.parametrize(("label", "case"), _cases(), ids=[label for label, _ in _cases()])
def test_command_in_a_fresh_process(label: str, case: Case, tiny: Path):
    if case.setup is not None:
        case.setup(tiny)
    args = [a.format(ex=EXAMPLES) for a in case.args]
    done = run_cli(args, tiny)
    _assert_clean(done, case.status)
    case.check(done.stdout, tiny)
