"""``-h`` / ``--help`` under ``--as VERSION``: the build's own help text (trec_eval.c
``trec_eval_help``), from ``help.json``, the parts each binary prints (taken from them by
``tests/trec_eval_help.py``, checked against them by the quirks test).

The text: the help message and a line of dashes; the explanation of the ``-T`` results
format and of the ``-R`` rel_info format when the build knows the name (each with its
dashes); ``Individual measure documentation for requested measures``; then, in table order,
each measure marked by ``-m`` (nicknames mark their measures; ``official`` is marked only
after the help, so a bare ``-h`` lists none: ``-- No measures indicated.``).
"""

from __future__ import annotations

import json
from pathlib import Path

from auditeval.trec_eval.catalog import table

NONE_MARKED = "-- No measures indicated.\n   Request measure documentation using <-m measure> on command line\n"
MEASURES_HEAD = "Individual measure documentation for requested measures\n"


def _data() -> dict:
    return json.loads((Path(__file__).with_name("help.json")).read_text())


DEFAULT_UTILITY_8 = "1.0_-1.0_0.0_0.0"


def help_8(version: str, utility: str = DEFAULT_UTILITY_8) -> str:
    """What ``trec_eval -h`` of 8.0 / 8.1 prints (trec_eval.c:118-121): one text but for the
    utility coefficients (``-U`` flags before ``-h``; trec_eval_help.c ``get_param_str_utility``,
    ``%3.1f`` each)."""
    data = _data()
    text = data["texts"][data["v8"][version]]
    return text.replace(f"utility_{DEFAULT_UTILITY_8}\tUtility (a,b,c,d) Coefficients {DEFAULT_UTILITY_8} ",
                        f"utility_{utility}\tUtility (a,b,c,d) Coefficients {utility} ")


def build_help(version: str, marked: set[str], results_format: str, rel_format: str) -> str:
    """What ``trec_eval -h`` of ``version`` (9.0.6 ... 10.0) prints on standard output."""
    data = _data()
    texts, parts = data["texts"], data["versions"][version]
    out = [texts[parts["head"]]]
    if results_format in parts["results"]:
        out.append(texts[parts["results"][results_format]])
    if rel_format in parts["rel"]:
        out.append(texts[parts["rel"][rel_format]])
    out.append(MEASURES_HEAD)
    names = [s.name for s in table(version) if s.name in marked]
    out += [texts[parts["measures"][n]] for n in names] or [NONE_MARKED]
    return "".join(out)
