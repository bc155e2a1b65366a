"""Random trec_eval cases for the differential test (``test_trec_eval_differential.py``).

:func:`make_case` draws one case from a seeded ``random.Random``: a qrels file, a run file
and a trec_eval command line, built to reach the corners where evaluators disagree:

* ties (scores drawn from a handful of values), scores that differ as doubles but collapse
  as C floats (``0.30000001`` vs ``0.3``), NaN-free but negative and large scores;
* qrels topics absent from the run, run topics absent from the qrels, topics whose ids sort
  differently as strings and numbers (``2`` / ``10``), topics without relevant documents;
* graded judgments 0-4 and negative ones (-1, -2), unjudged retrieved documents;
* now and then a duplicated run line or qrels line, a ``nan`` score;
* shallow runs (0-3 documents for a topic) next to deeper ones;
* flags ``-c -J -M N -l N -q -n`` in random combinations (``-M 0``, ``-M abc``, ``-l0``, ``-l`` below 0), ``-m all_trec``, ``official``,
  ``set`` and parameterised measures (``P.3``, ``ndcg_cut.5,7``, ``ndcg.1=3,2=9``,
  ``map_cut.4``, ``success.2``, ``recall.5``, ``utility.1,-2,0,0``, ``set_F.0.5``,
  ``rbp.p=0.8`` on 10.0, ``Rprec_mult.0.5``, ``iprec_at_recall.0.25``, ``relstring.4``, gain
  maps ``G.1=2,2=5``, ``ndcg_rel.1=5,2=8``, ``Rndcg.0=1,2=3``), ``-N`` for utility.

The build is drawn among the eight (8.0, 8.1, 9.0.5, 9.0.6, 9.0.7, 9.0.8, 9.0.8-double, 10.0):
8.x gets its own flags (:func:`_flags_8`: before the files, values joined, ``-o``, ``-a``,
``-T``, no ``-m``);
9.0.5 mostly the default measures, since any ``-m`` makes it crash at random (where the binary
got through, its output is compared with the 9.0.6 drop-in's, the one source difference being
the crash).

:func:`run_case` writes the files to a folder, runs one real binary and the drop-in
(in-process, :func:`auditeval.trec_eval.main`) on the same paths and returns both
(stdout, stderr, exit status).
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from auditeval.trec_eval import main

VERSIONS = ("9.0.8", "9.0.8-double", "10.0", "9.0.7", "9.0.6", "9.0.5", "8.1", "8.0")

_COLLAPSING = (0.3, 0.30000001, 0.30000002, 0.7, 0.70000001, 1.0, 1.00000001, 12.5, 12.500001)
_TIES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, -1.0)
_MEASURES = (
    "map", "P.3", "P.5,10", "ndcg_cut.5,7", "ndcg", "ndcg.1=3,2=9", "ndcg.0=1,1=2,2=4", "map_cut.4",
    "success.2", "recall.5", "recip_rank", "Rprec", "bpref", "infAP", "num_rel", "num_ret",
    "num_rel_ret", "gm_map", "utility.1,-2,0,0", "set_F.0.5", "set_P", "set_recall", "relstring.4",
    "Rprec_mult.0.5", "iprec_at_recall.0.25", "11pt_avg", "binG", "G", "ndcg_rel", "Rndcg",
    "relative_P.3", "set_map", "set_relative_P", "num_nonrel_judged_ret", "yaap", "gm_bpref",
    "G.1=2,2=5", "ndcg_rel.1=5,2=8", "Rndcg.0=1,2=3", "ndcg_cut.1,3", "utility.1,-1,0,1",
    # read differently by some builds: utility's coefficient count (calc_utility stops), a
    # cut-off past the long range (atol saturates), gain levels that are not integers (10.0
    # skips them, 9.x reads atol)
    "utility.1", "utility.1,2,3,4,5", "P.99999999999999999999", "ndcg.a=1", "ndcg.1=2,a=3", "G.x=3",
)
# bytes that are not UTF-8 (0xe9), UTF-8 (c3 a9) and a byte above 0x7f that sorts after ASCII,
# one character per byte (the files are written as Latin-1: each character its byte)
_ODD_BYTES = ("\xe9", "\xc3\xa9", "\xff", "\x80z")
# every flag of the 9.x / 10.0 usage text (trec_eval.c help_message) that does not need a file
_LONG_FLAGS = {"-q": "--query_eval_wanted", "-c": "--complete_rel_info_wanted", "-J": "--Judged_docs_only",
               "-n": "--nosummary"}
_MEASURES_10 = ("rbp.p=0.8", "rbp_resid", "unj.3", "rbp")


@dataclass
class Case:
    seed: int
    version: str
    qrels: str
    run: str
    flags: list[str]
    stdin_run: bool = False  # the run given as '-' (10.0 reads standard input, 9.x a file named '-')

    def describe(self) -> str:
        return f"seed={self.seed} --as {self.version} {' '.join(self.flags)}{' (run as -)' if self.stdin_run else ''}"


def _topic_ids(rng: random.Random, n: int) -> list[str]:
    pool = ["1", "2", "3", "10", "11", "20", "100", "7", "q5", "Q5", "a", "b-1", "401", "0"]
    rng.shuffle(pool)
    return pool[:n]


def _score(rng: random.Random, style: str) -> str:
    if style == "ties":
        return repr(rng.choice(_TIES))
    if style == "collapse":
        return repr(rng.choice(_COLLAPSING))
    if style == "wide":
        return f"{rng.uniform(-50, 50):.6g}"
    return f"{rng.random():.4f}"


def make_case(seed: int, version: str | None = None) -> Case:
    """One random case (deterministic in ``seed``)."""
    rng = random.Random(seed)
    version = version or rng.choice(VERSIONS)
    n_topics = rng.randint(1, 8)
    topics = _topic_ids(rng, n_topics + 3)
    q_topics = topics[:n_topics]
    # run topics: most qrels topics, sometimes some missing, sometimes extra ones
    r_topics = [t for t in q_topics if rng.random() > (0.25 if rng.random() < 0.5 else 0.0)]
    r_topics += [t for t in topics[n_topics:] if rng.random() < 0.2]
    if not r_topics:
        r_topics = [q_topics[0]]
    n_docs = rng.randint(4, 30)
    grades = rng.choice(((0, 1), (0, 1, 2), (0, 1, 2, 3, 4), (-1, 0, 1, 2), (-2, -1, 0, 1, 3)))
    qlines = []
    for t in q_topics:
        docs = rng.sample(range(n_docs), rng.randint(1, n_docs))
        no_rel = rng.random() < 0.1
        for d in docs:
            g = rng.choice(grades)
            if no_rel and g > 0:
                g = 0
            qlines.append(f"{t} 0 d{d} {g}")
    if rng.random() < 0.03:
        qlines.append(rng.choice(qlines))
    rng.shuffle(qlines) if rng.random() < 0.3 else qlines.sort()
    style = rng.choice(("ties", "collapse", "wide", "plain"))
    rlines = []
    for t in r_topics:
        depth = rng.choice((0, 1, 2, 3, rng.randint(1, n_docs + 5)))
        depth = max(depth, 1)
        docs = rng.sample(range(n_docs + 8), min(depth, n_docs + 8))
        for rank, d in enumerate(docs, 1):
            rlines.append(f"{t} Q0 d{d} {rank} {_score(rng, style)} tag{rng.randint(1, 2)}")
    if rng.random() < 0.03:
        rlines.append(rng.choice(rlines))
    if rng.random() < 0.03:
        k = rng.randrange(len(rlines))
        f = rlines[k].split()
        f[4] = "nan"
        rlines[k] = " ".join(f)
    if rng.random() < 0.3:
        rng.shuffle(rlines)
    if rng.random() < 0.08:
        qlines, rlines = _odd_ids(rng, qlines, rlines)
    qtext, rtext = "\n".join(qlines) + "\n", "\n".join(rlines) + "\n"
    if version.startswith("8."):
        return Case(seed, version, qtext, rtext, _flags_8(rng))
    flags: list[str] = []
    if rng.random() < 0.5:
        flags.append("-q")
    if rng.random() < 0.4:
        flags.append("-c")
    if rng.random() < 0.25:
        flags.append("-J")
    if rng.random() < 0.3:
        flags += ["-M", rng.choice((str(rng.randint(1, 12)), str(rng.randint(1, 12)), "0", "abc"))]
    if rng.random() < 0.3:  # below 0: unjudged documents count as relevant (the rel axis below 0)
        flags.append(f"-l{rng.randint(-3, 3)}")
    if rng.random() < 0.05:
        flags.append("-n")
    if rng.random() < 0.05:
        flags += ["-N", str(rng.randint(1, 100))]
    flags += _other_flags(rng)
    r = rng.random()
    if version == "9.0.5" and rng.random() < 0.8:
        r = 0.45  # -m makes 9.0.5 crash at random (trec_eval/v905.py): mostly the default measures
    if r < 0.3:
        flags += ["-m", "all_trec"]
    elif r < 0.4:
        flags += ["-m", rng.choice(("official", "set"))]
    elif r < 0.5:
        pass  # default: official
    else:
        pool = _MEASURES + (_MEASURES_10 if version == "10.0" else ())
        for m in rng.sample(pool, rng.randint(1, 5)):
            flags += ["-m", m]
    if rng.random() < 0.1:
        flags = [_LONG_FLAGS.get(f, f) for f in flags]
    return Case(seed, version, qtext, rtext, flags, stdin_run=rng.random() < 0.03)


def _odd_ids(rng: random.Random, qlines: list[str], rlines: list[str]) -> tuple[list[str], list[str]]:
    """Ids and tags with bytes above 0x7f: a topic, some documents (in both files, so they
    match) and the run tag."""
    odd = rng.choice(_ODD_BYTES)
    topic = rng.choice([ln.split()[0] for ln in rlines])
    docs = {f"d{k}" for k in rng.sample(range(30), 6)}

    def fix(line: str, tag_field: int | None) -> str:
        f = line.split()
        if f[0] == topic:
            f[0] += odd
        if f[2] in docs:
            f[2] = f"{f[2][:1]}{odd}{f[2][1:]}"
        if tag_field is not None and rng.random() < 0.5:
            f[tag_field] = "t" + odd
        return " ".join(f)

    return [fix(ln, None) for ln in qlines], [fix(ln, 5) for ln in rlines]


def _other_flags(rng: random.Random) -> list[str]:
    """The rest of the usage text: -o (obsolete, no effect), -T trec_results (or a format no
    build has), -R qrels, -D 0, -v, -h (the build's help, with the marked measures'), and
    long spellings."""
    out: list[str] = []
    if rng.random() < 0.04:
        out.append("-o")
    if rng.random() < 0.04:
        out += ["-T", rng.choice(("trec_results", "trec_results", "bogus"))]
    if rng.random() < 0.03:
        out += ["-R", "qrels"]
    if rng.random() < 0.03:
        out += ["-D", "0"]
    if rng.random() < 0.02:
        out.append(rng.choice(("-v", "--version")))
    if rng.random() < 0.03:
        out.append(rng.choice(("-h", "--help")))
    if rng.random() < 0.03:
        out += [rng.choice(("--level_for_rel=2", "--Max_retrieved_per_topic=3", "--Number_docs_in_coll=50"))]
    return out


def _flags_8(rng: random.Random) -> list[str]:
    """trec_eval 8.x flags (trec_eval.c:100-150: before the files, one per argument, the value
    joined: ``-l2``, ``-M10``): -q -c -J -o -lN -MN, -a (every measure), -T (ranking by
    increasing score, the time measures), now and then -NN, -U[abcd]X, -qx-style extra
    characters (only the second is read) and a bad flag (usage, exit 1)."""
    flags: list[str] = []
    if rng.random() < 0.5:
        flags.append(rng.choice(("-q", "-q", "-qx")))
    if rng.random() < 0.4:
        flags.append("-c")
    if rng.random() < 0.25:
        flags.append("-J")
    if rng.random() < 0.15:
        flags.append("-o")
    if rng.random() < 0.3:
        flags.append(f"-M{rng.choice((str(rng.randint(1, 12)), str(rng.randint(1, 12)), '0', '-3', 'abc'))}")
    if rng.random() < 0.3:
        flags.append(f"-l{rng.randint(-3, 3)}")  # below 0: 8.x's own counts (trec_eval/v8.py)
    if rng.random() < 0.05:
        flags.append(f"-N{rng.randint(1, 100)}")
    if rng.random() < 0.05:
        flags.append(rng.choice(("-Ua2", "-Ub-0.5", "-Ux1")))
    if rng.random() < 0.02:
        flags.append(rng.choice(("-x", "-m", "-")))
    if rng.random() < 0.35:
        flags.append(rng.choice(("-a", "-a", "-ax")))
    if rng.random() < 0.15:
        flags.append("-T")
    if rng.random() < 0.05:
        flags.append(rng.choice(("-Uc3", "-Ud-1.5", "-Ua0.25")))
    if rng.random() < 0.03:
        flags.append(rng.choice(("-h", "-v")))
    rng.shuffle(flags)
    return flags


def run_case(case: Case, bins: dict[str, Path], folder: Path) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    """((stdout, stderr, exit) of the binary, (stdout, stderr, exit) of the drop-in)."""
    qrels = folder / f"qrels.{case.seed}"
    run = folder / f"run.{case.seed}"
    qrels.write_bytes(case.qrels.encode("latin-1"))  # one character per byte
    run.write_bytes(case.run.encode("latin-1"))
    stdin = case.run.encode("latin-1") if case.stdin_run else b""
    argv = [*case.flags, str(qrels), "-" if case.stdin_run else str(run)]
    p = subprocess.run([str(bins[case.version]), *argv], capture_output=True, timeout=60, input=stdin)
    # compared as bytes: the drop-in's text streams hold them as the command line's convention does
    real = (os.fsdecode(p.stdout), os.fsdecode(p.stderr), p.returncode)
    mine = _drop_in(case.version, argv, stdin)
    if case.version == "9.0.5" and RANDOM_CRASH in mine[1] and real[2] >= 0:
        # 9.0.5's -m crashes at random (ASLR, trec_eval/v905.py); where this run of the binary
        # got through, it did what 9.0.6 does (its one source difference is the crash)
        mine = _drop_in("9.0.6", argv, stdin)
    return real, mine


RANDOM_CRASH = "may crash here at random"


def _drop_in(version: str, argv: list[str], stdin: bytes = b"") -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        code = main(["--as", version, *argv], out, err)
    finally:
        sys.stdin = saved
    return out.getvalue(), err.getvalue(), code


def _rbp_undefined(case: Case) -> bool:
    """trec_eval 10.0's ``rbp`` reads uninitialised ``min``/``max`` (m_rbp.c: ``double sum,
    min, max;``) and rescales the gains with them when they leave [0, 1]: what it prints
    depends on stack garbage (seen with 0/1 grades too, e.g. seed 6125), not on the inputs."""
    return case.version == "10.0"


def _comparable(text: str, case: Case) -> str:
    if not _rbp_undefined(case):
        return text
    keep = [ln for ln in text.splitlines(True) if not (ln.startswith("rbp") and not ln.startswith("rbp_resid"))]
    return "".join(keep)


def difference(case: Case, real: tuple[str, str, int], mine: tuple[str, str, int]) -> str | None:
    """Why the drop-in's result differs from the binary's, or None when it does not.

    stdout, stderr and exit status must be equal (the ``rbp`` lines left out where trec_eval
    10.0 reads uninitialised memory, :func:`_rbp_undefined`). Where the binary crashes (killed by
    a signal), the drop-in must stop cleanly instead: non-zero status and a message naming
    the crash, no traceback."""
    if real[2] < 0:
        if mine[2] > 0 and ("crashes here" in mine[1] or RANDOM_CRASH in mine[1]) and "Traceback" not in mine[1]:
            return None
        return f"binary crashed (signal {-real[2]}); drop-in exit {mine[2]}: {mine[1][-200:]!r}"
    if real[2] != mine[2]:
        return f"exit status {real[2]} != {mine[2]}; binary stderr {real[1][-200:]!r}, drop-in {mine[1][-200:]!r}"
    a, b = _comparable(real[0], case), _comparable(mine[0], case)
    if a != b:
        import difflib

        diff = list(difflib.unified_diff(a.splitlines(), b.splitlines(), "binary", "drop-in", n=0, lineterm=""))
        return "stdout differs:\n" + "\n".join(diff[:30])
    if real[1] != mine[1]:
        return f"stderr differs: binary {real[1][-300:]!r}, drop-in {mine[1][-300:]!r}"
    return None
