"""Known reference defects are named with their upstream cause (auditing/defects.py), checked
by running the real tool; a difference they do not wholly account for stays unexplained.

The ranx input, by hand (trec_eval m_bpref.c: each retrieved relevant document adds
1 - min(nonrel above, R) / min(N, R), or 1 when no judged non-relevant one is above it; / R):
  b: d2 (rel), d3 (nonrel)   -> 1              ranx 1
  c: x (unjudged), d4 (rel)  -> 1 (N = 0)      ranx NaN: bpref.py divides by min(R, N) = 0
  y: d1 (nonrel), R = 0      -> 0              ranx 0: ZeroDivisionError in its prange loop
  yy: d7 (rel), R = 1, N = 1 -> 1              ranx 0: the loop's rest after y (one thread)
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run_cli

from auditeval.auditing.defects import Evidence, known_defect

pytestmark = pytest.mark.slow

QRELS = "b 0 d2 1\nb 0 d3 0\nc 0 d4 1\ny 0 d1 0\nyy 0 d7 1\nyy 0 d8 0\n"
RUN = "b Q0 d2 1 1.0 r\nb Q0 d3 2 0.5 r\nc Q0 x 1 1.0 r\nc Q0 d4 2 0.5 r\ny Q0 d1 1 1.0 r\nyy Q0 d7 1 1.0 r\n"


def test_ranx_bpref_defects_named_on_the_real_tool(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")  # one thread: the loop's rest after y is yy, deterministically
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text(QRELS)
    r.write_text(RUN)
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", str(q), str(r), "-m", "Bpref", "--against", "ranx", "--format", "json", "-o", str(out))
    assert code == 0, err
    (row,) = json.loads(out.read_text())["agreement"]
    assert row["native"] == 0.75 and row["value"] != row["value"]  # (1 + 1 + 0 + 1) / 4; ranx's mean is NaN
    assert row["status"] == "explained"
    detail = row["detail"]
    assert "tool defect (known) of ranx: 1 topic(s), e.g. c: ranx/metrics/bpref.py:26-27 divides by min(R, N)" in detail
    assert "1 topic(s), e.g. yy: ranx/metrics/bpref.py:29 divides by R" in detail
    assert detail.endswith("(found in ranx 0.3.21); every other topic agrees")


def _ev(tool, native, num_rel, num_nonrel, topics=("b", "c", "y", "yy")):
    return Evidence(list(topics), np.array(tool, dtype=float), np.array(native, dtype=float),
                    np.array(num_rel), np.array(num_nonrel))


def test_a_defect_must_account_for_every_differing_topic():
    nan = float("nan")
    both = _ev([1, nan, 0, 0], [1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 1, 1])
    assert known_defect("ranx", "Bpref", both).count("topic(s), e.g.") == 2
    # b differs too, and no known defect makes b 0.5: unexplained
    assert known_defect("ranx", "Bpref", _ev([0.5, nan, 0, 0], [1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 1, 1])) == ""
    # a 0 before any zero-R topic is not the prange defect (y sorts after b)
    assert known_defect("ranx", "Bpref", _ev([0, 1, 0, 1], [1, 1, 0, 1], [1, 1, 0, 1], [1, 1, 1, 1])) == ""
    # another tool, or another measure: no rule
    assert known_defect("pytrec_eval", "Bpref", both) == "" and known_defect("ranx", "AP", both) == ""
    assert known_defect("ranx", "Bpref", _ev([1, 1, 0, 1], [1, 1, 0, 1], [1, 1, 0, 1], [1, 1, 1, 1])) == ""
