"""The help texts of the trec_eval 9.x and 10.0 builds, taken from the binaries themselves.

``trec_eval -h`` (trec_eval.c ``trec_eval_help``) prints the help message, the explanation of
the ``-T`` results format and of the ``-R`` rel_info format (each when the build knows it, each
followed by a line of dashes), then the explanation of every measure marked by ``-m``, in
table order. :func:`extract` runs a binary once per format and once per measure and keeps
each part; :func:`write` stores the parts of every build, each distinct text once, as
``auditeval/trec_eval/help.json`` (what ``auditeval trec-eval --as V -h`` prints from).
8.0 and 8.1 print one text but for the utility coefficients (``v8``).
``test_trec_eval_quirks.py`` checks the stored file against the binaries.

Regenerate::

    python tests/trec_eval_help.py .bin/trec_eval
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HELP_VERSIONS = ("9.0.8", "9.0.8-double", "10.0", "9.0.7", "9.0.6")  # 9.0.5 crashes in -h's measure list
HELP_8 = ("8.1", "8.0")  # trec_eval.c:118-121: one text, whatever the other flags
DASHES = "\n-----------------------\n"
MEASURES_HEAD = "Individual measure documentation for requested measures\n"
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
DATA = Path(__file__).resolve().parents[1] / "auditeval" / "trec_eval" / "help.json"


def _help(binary: Path, *flags: str) -> str:
    p = subprocess.run([str(binary), "-h", *flags], capture_output=True, timeout=30, check=True)
    return p.stdout.decode("latin-1")


def extract(binary: Path, version: str) -> dict:
    """The parts of one build's ``-h``: head, results/rel formats and each measure's text."""
    from auditeval.trec_eval.catalog import table

    plain = _help(binary, "-T", "none", "-R", "none")
    head = plain[: plain.index(DASHES) + len(DASHES)]
    results = _help(binary, "-R", "none")[len(head):]
    parts = {"head": head, "results": {"trec_results": results[: results.index(DASHES) + len(DASHES)]}, "rel": {}}
    for fmt in REL_FORMATS:
        text = _help(binary, "-T", "none", "-R", fmt)[len(head):]
        if not text.startswith(MEASURES_HEAD):
            parts["rel"][fmt] = text[: text.index(DASHES) + len(DASHES)]
    parts["measures"] = {}
    for spec in table(version):
        text = _help(binary, "-T", "none", "-R", "none", "-m", spec.name)[len(head):]
        assert text.startswith(MEASURES_HEAD), (version, spec.name)
        parts["measures"][spec.name] = text[len(MEASURES_HEAD):]
    return parts


def write(folder: Path) -> None:
    texts: list[str] = []
    index: dict[str, int] = {}

    def ref(text: str) -> int:
        if text not in index:
            index[text] = len(texts)
            texts.append(text)
        return index[text]

    versions = {}
    for v in HELP_VERSIONS:
        parts = extract(folder / f"trec_eval-{v}", v)
        versions[v] = {
            "head": ref(parts["head"]),
            "results": {k: ref(t) for k, t in parts["results"].items()},
            "rel": {k: ref(t) for k, t in parts["rel"].items()},
            "measures": {k: ref(t) for k, t in parts["measures"].items()},
        }
    v8 = {v: ref(_help(folder / f"trec_eval-{v}")) for v in HELP_8}
    DATA.write_text(json.dumps({"versions": versions, "v8": v8, "texts": texts}, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]))
