"""trec_eval binaries: given (``--trec-eval PATH``, repeatable), else the bundled builds made by
``auditeval references build`` (:mod:`auditeval.adapters.trec_eval_builds`) and ``trec_eval``
on PATH.

The build is decided from behaviour, because ``-v`` misreports (tag v9.0.8 prints
``9.0.7``, tag v10.0 prints ``10.0-rc3``): a two-topic probe shows whether scores are
stored as C float (topic ``f``: scores 0.30000001 and 0.3 collapse, and the docno
tie-break puts the relevant ``d2`` first, RR 1 instead of 0.5) and which iprec cut-off is
used (topic ``i``: R = 3, relevant at ranks 2, 5, 8 of 10: 11pt_avg 0.4295 with
``(long)(r*R + 0.9)``, 0.4409 with ``lround(r*R)``; conventions.md).

======================  ========  ========  ========================
build                   sim       iprec     profile
======================  ========  ========  ========================
tag v9.0.8 (2020)       float32   trunc09   trec_eval-9.0.8
tag trec_eval-9.0.8     float64   trunc09   trec_eval-9.0.8-double
tag v10.0               float64   lround    trec_eval-10.0
tag v9.0.6              float32   trunc09   trec_eval-9.0.6 (-v says 9.0.4)
tag v9.0.5              (crashes on every evaluation; -v says 9.0.4)
tag v8.1, v8.0          float32   ceil      trec_eval-8.1, trec_eval-8.0
======================  ========  ========  ========================

Tag v9.0.7 behaves as tag v9.0.8 and both say ``9.0.7``: such a binary is the build 9.0.8 (the
two programs differ in how get_qrels.c opens the file, conventions/trec_eval-9.0.7.toml).
``9.0.4`` is said by 9.0.5 and 9.0.6: 9.0.5's probe crashes (SIGSEGV, trec_eval.c:338 walks past
the measure table), 9.0.6's prints 9.0.8's values. 8.x is another program (no ``-m``): ``-v``
says 8.0 or 8.1 and ``-q`` prints ``ircl_prn.0.00``; an unreadable results file tells the two
apart (8.1: "Cannot read results file", 8.0: "Cannot read qrels file", get_top.c:49).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from auditeval.adapters.base import ANY, Adapter, native, run_rewrite_axes
from auditeval.adapters.trec_names import trec_name
from auditeval.trec_eval.catalog import TABLE
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure

BUILDS = {("float32", "trunc09"): "9.0.8", ("float64", "trunc09"): "9.0.8-double", ("float64", "lround"): "10.0"}
PROBE_QRELS = "f 0 d1 0\nf 0 d2 1\ni 0 r2 1\ni 0 r5 1\ni 0 r8 1\n"
PROBE_RUN = "".join(
    ["f Q0 d1 1 0.30000001 p\n", "f Q0 d2 2 0.3 p\n"]
    + [f"i Q0 {'r' if k in (2, 5, 8) else 'n'}{k} {k} {20 - k} p\n" for k in range(1, 11)]
)


OLD_BUILDS = ("8.0", "8.1")
INSTALL = "auditeval references build (compiles the bundled sources; needs a C compiler), or --trec-eval PATH"
CRASHING = {"9.0.5": "trec_eval 9.0.5 crashes on every evaluation (trec_eval.c:125-133 reads the int measure "
                     "count as a long; conventions/trec_eval-9.0.5.toml)"}


@cache
def probe(path: str) -> tuple[str | None, str]:
    """``(build, what -v says)`` of the binary at ``path``; build None when not recognised."""
    with tempfile.TemporaryDirectory() as d:
        q, r = Path(d, "q"), Path(d, "r")
        q.write_text(PROBE_QRELS)
        r.write_text(PROBE_RUN)
        ver = subprocess.run([path, "-v"], capture_output=True, text=True, timeout=30)
        said = (ver.stdout + ver.stderr).strip().splitlines()
        said_text = said[0] if said else f"exit {ver.returncode}"
        if said_text in ("trec_eval version 8.0", "trec_eval version 8.1"):
            return _probe_8(path, q, r, Path(d, "absent")), said_text
        res = subprocess.run([path, "-q", "-m", "recip_rank", "-m", "11pt_avg", str(q), str(r)],
                             capture_output=True, text=True, timeout=30)
    if said_text == "trec_eval version 9.0.4" and res.returncode < 0:
        return "9.0.5", said_text
    vals = {}
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            vals[(parts[0], parts[1])] = parts[2]
    rr, pt = vals.get(("recip_rank", "f")), vals.get(("11pt_avg", "i"))
    sim = {"1.0000": "float32", "0.5000": "float64"}.get(rr or "")
    iprec = {"0.4295": "trunc09", "0.4409": "lround"}.get(pt or "")
    build = BUILDS.get((sim, iprec))
    if build == "9.0.8" and said_text == "trec_eval version 9.0.4":
        build = "9.0.6"
    return build, said_text


def _probe_8(path: str, q: Path, r: Path, absent: Path) -> str | None:
    """8.0 or 8.1 from behaviour: the 8.x layout (``ircl_prn.0.00``, no ``-m``), then the
    message for an unreadable results file (get_top.c:49)."""
    res = subprocess.run([path, "-q", str(q), str(r)], capture_output=True, text=True, timeout=30)
    if res.returncode != 0 or "ircl_prn.0.00" not in res.stdout:
        return None
    bad = subprocess.run([path, str(q), str(absent)], capture_output=True, text=True, timeout=30)
    return "8.1" if "Cannot read results file" in bad.stderr else "8.0"


class TrecEvalBinary(Adapter):
    exposes_per_topic = False
    # C: 0.22 s of CPU (user 0.20 + system 0.02) on a 100,000-line robust03 run with the default
    # measures (trec_eval 9.0.8); start-up a few milliseconds per invocation
    cost, startup = 0.2, 0.01
    printed_digits = 4
    # measures trec_eval prints in its summary only, even under -q (num_q, gm_map, gm_bpref)
    summary_only = frozenset(s.canonical for s in TABLE if not s.per_topic and s.name != "runid")

    def __init__(self, path: str, build: str | None = None, said: str = ""):
        self.path = path
        self.build = build
        self.said = said
        self.name = f"trec_eval-{build}" if build else f"trec_eval ({path})"
        self.profile = f"trec_eval-{build}" if build else "trec_eval-9.0.8"
        self.install = INSTALL
        topics = {"strict": "", "qrels": "-c"} if build == "10.0" else {"both": "", "qrels": "-c"}
        self.axes = {
            **run_rewrite_axes(self.profile, skip=("depth", "unjudged")),
            "topics": native(topics),
            "rel": native({1: "", ANY: "-l{}"}),
            "depth": native({"all": "", ANY: "-M{}"}),
            "unjudged": native({"nonrel": "", "drop": "-J"}),
        }

    def available(self) -> str | None:
        if not os.access(self.path, os.X_OK):
            return f"not installed: {self.path} is not an executable file ({self.install})"
        if self.build in CRASHING:
            return f"unsupported: {CRASHING[self.build]}"
        if self.build is None:
            return f"unsupported: {self.path} behaves like no known trec_eval build (-v says {self.said!r})"
        return None

    def engine(self) -> str:
        return f"trec_eval {self.build} ({self.path}; -v says {self.said.replace('trec_eval version ', '')})"

    def tool_measure(self, m: Measure, conv: Convention) -> str | None:
        t = trec_name(m, self.build or "9.0.8")
        return None if t is None else f"{t[0]} {t[1]}"

    def commands(self, qrels: str, run: str, options: tuple[str, ...], names: list[str],
                 rel_format: str = "qrels") -> list[str]:
        """The command line; ``rel_format`` other than qrels (preference judgments) adds ``-R``."""
        if self.build in OLD_BUILDS:  # 8.x prints its measures without -m; flags before the files
            return [self.path, "-q", *options, qrels, run]
        cmd = [self.path, "-q", *options, *(("-R", rel_format) if rel_format != "qrels" else ())]
        for n in dict.fromkeys(names):
            cmd += ["-m", n]
        return cmd + [qrels, run]


def parse_output(text: str) -> dict[str, dict[str, str]]:
    """trec_eval ``-q`` output -> ``{printed name: {topic or 'all': value text}}``."""
    out: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3:
            out.setdefault(parts[0], {})[parts[1]] = parts[2]
    return out


def discover(paths: list[str] | None) -> list[TrecEvalBinary]:
    """The binaries to use: the given paths; else every bundled build made by ``auditeval
    references build`` (newest first), then ``trec_eval`` on PATH unless it is one of those
    builds again. A build is named by its probe; a cached ``trec_eval-9.0.7``, which probes as
    9.0.8 (the module docstring), keeps its own name and profile."""
    from auditeval.adapters.trec_eval_builds import built

    given = bool(paths)
    found: list[tuple[str, str | None]] = [(str(p), None) for p in paths or []]
    if not given:
        found = [(str(b.path), v) for v, b in built().items() if b.built]
        on_path = shutil.which("trec_eval")
        if on_path:
            found.append((on_path, None))
    out: list[TrecEvalBinary] = []
    for p, version in found:
        if not os.access(p, os.X_OK):
            out.append(TrecEvalBinary(p, None, "not executable"))
            continue
        try:
            build, said = probe(p)
        except (OSError, subprocess.SubprocessError) as exc:
            build, said = None, f"probe failed: {exc}"
        if version == "9.0.7" and build == "9.0.8":
            build = version
        if not given and build is not None and any(b.build == build for b in out):
            continue  # trec_eval on PATH is a build already taken from the cache
        out.append(TrecEvalBinary(p, build, said))
    return out
