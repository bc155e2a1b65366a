"""Random ``-R prefs`` / ``qrels_prefs`` / ``qrels_jg`` and ``-Z`` cases for the differential
test (``test_trec_eval_prefs.py``).

:func:`make_case` draws one case from a seeded ``random.Random``:

* prefs: 1-3 judgment groups per topic, each either one sub-group (equivalence classes by
  level, levels with ties, 0, halves, and ``0.3``/``0.30000001`` that collapse as C floats in
  9.0.8) or several sub-groups drawn from one hidden order (a partial order, closed by
  transitivity); now and then a doc given 0 and non-0 levels in one group, or two levels in
  one sub-group (trec_eval stops, exit 4), or an inconsistent pair of sub-groups (it aborts);
* qrels_prefs / qrels_jg: qrels lines whose iter field is the judgment group, grades -1..3;
  a duplicated (qid, jg, docno) now and then;
* runs: tied and collapsing scores, now and then ``nan``, unjudged documents, topics missing from either side, a
  duplicated document now and then; ``#`` lines (10.0 skips one, 9.0.8 calls it malformed),
  malformed lines;
* flags ``-q -c -n -M N -l N -J``, ``-m all_prefs``, ``prefs``, ``qrels_jg``, single measures
  (``P_avgjg.1,3``, ``Rprec_mult_avgjg.0.5,1.5``...), measures of another format (exit 4), and
  ``-Z`` files with and without lines for each (topic, measure), zero stddevs, and a last
  topic ``zzzz`` (a look-up past the last line would crash trec_eval, see
  :mod:`auditeval.trec_eval.zscores`).

:func:`run_case` runs one real binary and the drop-in in process on the same files.
"""

from __future__ import annotations

import io
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

from auditeval.trec_eval import main

VERSIONS = ("9.0.8", "10.0")
_TOPICS = ["1", "2", "3", "10", "a", "q5", "Q5", "20"]
_DOCS = [f"d{i}" for i in range(1, 13)] + ["D3", "x-1", "e10"]
_LEVELS = ("0", "1", "2", "3", "0.5", "2.5", "1.0", "0.3", "0.30000001", "6")
_SCORES = ("1", "2", "3", "0.5", "0.3", "0.30000001", "-1", "10", "2.5")
_PREFS_MEASURES = ("prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                   "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                   "prefs_pair_imp", "prefs_avgjg_imp", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                   "prefs_num_prefs_ful_ret")
_JG_MEASURES = ("map_avgjg", "P_avgjg", "P_avgjg.1,3", "P_avgjg.2", "Rprec_mult_avgjg", "Rprec_mult_avgjg.0.5,1.5")
_STANDARD = ("map", "P.5", "P.2,5", "num_ret", "num_rel", "num_rel_ret", "gm_map", "recip_rank", "ndcg_cut.3",
             "Rprec", "bpref", "relstring.3", "num_q", "official", "iprec_at_recall.0.5", "set_F")
_Z_NAMES = ("prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_num_prefs_poss", "num_q", "map_avgjg", "P_avgjg_1",
            "P_avgjg_5", "Rprec_mult_avgjg_0.50", "map", "num_ret", "P_5", "prefs_avgjg_Rnonrel", "gm_map", "recip_rank",
            "num_rel", "ndcg_cut_3", "P_2", "Rprec", "bpref", "set_F", "iprec_at_recall_0.50", "num_rel_ret")


@dataclass
class Case:
    seed: int
    version: str
    rel: str
    run: str
    z: str | None
    flags: list[str]

    def describe(self) -> str:
        return f"seed={self.seed} --as {self.version} {' '.join(self.flags)}"


def _prefs_topic(rng: random.Random, q: str) -> list[str]:
    lines = []
    for g in range(rng.randint(1, 3)):
        jg = f"u{g + 1}"
        docs = rng.sample(_DOCS, rng.randint(2, 7))
        if rng.random() < 0.55:  # one sub-group: equivalence classes
            for d in docs:
                lines.append(f"{q} {jg} s1 {d} {rng.choice(_LEVELS)}")
            if rng.random() < 0.05:  # a doc at two levels in one sub-group (exit 4)
                lines.append(f"{q} {jg} s1 {docs[0]} 7")
        else:  # several sub-groups from one hidden order
            hidden = {d: rng.choice((0, 1, 2, 3, 4, 5)) for d in docs}
            for s in range(rng.randint(2, 3)):
                for d in rng.sample(docs, min(len(docs), rng.randint(2, 4))):
                    lines.append(f"{q} {jg} s{s + 1} {d} {hidden[d]}")
            r = rng.random()
            if r < 0.04:  # 0 and non-0 for one doc (exit 4)
                d = docs[0]
                lines.append(f"{q} {jg} s9 {d} {0 if hidden[d] else 3}")
                lines.append(f"{q} {jg} s9 {docs[1]} {hidden[docs[1]]}")
            elif r < 0.07:  # a preference against the hidden order (abort)
                a, b = docs[0], docs[1]
                if hidden[a] != hidden[b] and hidden[a] and hidden[b]:
                    hi, lo = (a, b) if hidden[a] > hidden[b] else (b, a)
                    lines.append(f"{q} {jg} s8 {lo} 9")
                    lines.append(f"{q} {jg} s8 {hi} 8")
    return lines


def _qrels_topic(rng: random.Random, q: str, jg_format: bool) -> list[str]:
    lines = []
    groups = ["0"] if rng.random() < 0.5 else ["0", "1", "u2"][: rng.randint(1, 3)]
    for jg in groups:
        for d in rng.sample(_DOCS, rng.randint(1, 7)):
            rel = rng.choice(("0", "1", "2", "3", "-1") if jg_format else ("0", "1", "2", "3", "1.5", "0"))
            lines.append(f"{q} {jg} {d} {rel}")
    if jg_format and rng.random() < 0.04:
        lines.append(lines[0].rsplit(" ", 1)[0] + " 2")  # a (qid, jg, docno) twice
    return lines


def _zfile(rng: random.Random, topics: list[str]) -> str:
    lines = []
    for q in topics:
        if rng.random() < 0.2:
            continue  # a topic the z-file lacks
        for name in rng.sample(_Z_NAMES, rng.randint(1, 6)):
            mean = rng.choice(("0", "0.5", "0.25", "1", "3", "-0.1"))
            sd = rng.choice(("0.1", "0.2", "2", "0", "1e-3", "0.5"))
            lines.append(f"{q} {name} {mean} {sd}")
    lines.append("zzzz zzzz 0 1")  # a last topic and measure no look-up passes
    rng.shuffle(lines)
    if rng.random() < 0.05:
        lines.insert(rng.randint(0, len(lines)), "1 map 0.5")  # malformed (exit 255)
    return "\n".join(lines) + "\n"


def make_case(seed: int, version: str | None = None) -> Case:
    """One random case (deterministic in ``seed``)."""
    rng = random.Random(seed)
    version = version or rng.choice(VERSIONS)
    fmt = rng.choices(("prefs", "qrels_prefs", "qrels_jg", "qrels", "qrels_z"), (40, 20, 25, 5, 12))[0]
    topics = rng.sample(_TOPICS, rng.randint(1, 4))
    rel_lines: list[str] = []
    for q in topics:
        if fmt == "prefs":
            rel_lines += _prefs_topic(rng, q)
        elif fmt == "qrels_z":  # plain qrels, for -Z on trec_eval's own measures
            rel_lines += [f"{q} 0 {d} {rng.choice((0, 1, 2, -1))}" for d in rng.sample(_DOCS, rng.randint(1, 7))]
        else:
            rel_lines += _qrels_topic(rng, q, fmt == "qrels_jg")
    if fmt != "prefs":
        rng.shuffle(rel_lines)
    if rng.random() < 0.08 and len(rel_lines) > 1:
        rel_lines.insert(rng.randint(1, len(rel_lines) - 1), "# a comment")
    if rng.random() < 0.04:
        rel_lines.insert(rng.randint(0, len(rel_lines)), "1 u1 d1")  # malformed
    run_lines = []
    run_topics = [q for q in topics if rng.random() < 0.85] + ([rng.choice(_TOPICS)] if rng.random() < 0.3 else [])
    for q in dict.fromkeys(run_topics):
        docs = rng.sample(_DOCS, rng.randint(0 if rng.random() < 0.1 else 1, 9))
        for i, d in enumerate(docs):
            score = "nan" if rng.random() < 0.03 else rng.choice(_SCORES)  # NaN: glibc's merge-sort order
            run_lines.append(f"{q} Q0 {d} {i + 1} {score} tag{seed % 3}")
        if docs and rng.random() < 0.04:
            run_lines.append(f"{q} Q0 {docs[0]} 99 0.1 tag{seed % 3}")
    if not run_lines:
        run_lines.append(f"{topics[0]} Q0 d1 1 1 tag")
    flags: list[str] = [] if fmt in ("qrels", "qrels_z") else ["-R", fmt]
    if rng.random() < 0.6:
        flags.append("-q")
    if rng.random() < 0.3:
        flags.append("-c")
    if rng.random() < 0.05:
        flags.append("-n")
    if rng.random() < 0.15:
        flags += ["-M", str(rng.randint(0, 5))]
    if fmt == "qrels_jg":
        if rng.random() < 0.2:
            flags += ["-l", str(rng.choice((0, 2, 3)))]
        if rng.random() < 0.2:
            flags.append("-J")
    r = rng.random()
    if fmt in ("prefs", "qrels_prefs"):
        if r < 0.35:
            flags += ["-m", "all_prefs"]
        elif r < 0.55:
            flags += ["-m", "prefs"]
        elif r < 0.9:
            for m in rng.sample(_PREFS_MEASURES, rng.randint(1, 3)):
                flags += ["-m", m]
        elif r < 0.95:
            flags += ["-m", "prefs_simp", "-m", rng.choice(("map_avgjg", "map", "num_q"))]
    elif fmt == "qrels_jg":
        if r < 0.35:
            flags += ["-m", "qrels_jg"]
        elif r < 0.9:
            for m in rng.sample(_JG_MEASURES, rng.randint(1, 2)):
                flags += ["-m", m]
        elif r < 0.95:
            flags += ["-m", rng.choice(("prefs_simp", "P.5", "runid"))]
    elif fmt == "qrels_z":
        for m in rng.sample(_STANDARD, rng.randint(1, 4)):
            flags += ["-m", m]
    else:
        flags += ["-m", rng.choice(("prefs_simp", "qrels_jg", "all_prefs", "P_avgjg")), "-m", "map"]
    z = _zfile(rng, topics) if fmt == "qrels_z" or rng.random() < 0.3 else None
    return Case(seed, version, "\n".join(rel_lines) + "\n", "\n".join(run_lines) + "\n", z, flags)


def run_case(case: Case, bins: dict[str, Path], folder: Path) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    """((stdout, stderr, exit) of the binary, (stdout, stderr, exit) of the drop-in)."""
    rel = folder / f"rel.{case.seed}"
    run = folder / f"run.{case.seed}"
    rel.write_text(case.rel)
    run.write_text(case.run)
    flags = list(case.flags)
    if case.z is not None:
        zf = folder / f"z.{case.seed}"
        zf.write_text(case.z)
        flags += ["-Z", str(zf)]
    argv = [*flags, str(rel), str(run)]
    p = subprocess.run([str(bins[case.version]), *argv], capture_output=True, timeout=60)
    real = (p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.returncode)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--as", case.version, *argv], out, err)
    return real, (out.getvalue(), err.getvalue(), code)


def difference(real: tuple[str, str, int], mine: tuple[str, str, int]) -> str | None:
    """Why the drop-in differs from the binary (None: stdout, stderr and exit status equal).
    Where the binary dies of a signal (abort, segmentation fault), the drop-in must stop with
    a message saying so, exit 2, no traceback."""
    if real[2] < 0:
        if mine[2] == 2 and ("crashes here" in mine[1] or "aborts here" in mine[1]) and "Traceback" not in mine[1]:
            return None
        return f"binary died (signal {-real[2]}); drop-in exit {mine[2]}: {mine[1][-300:]!r}"
    for what, a, b in (("exit status", real[2], mine[2]), ("stderr", real[1], mine[1]), ("stdout", real[0], mine[0])):
        if a != b:
            return f"{what} differs:\nbinary  {a!r}\ndrop-in {b!r}"[:3000]
    return None
