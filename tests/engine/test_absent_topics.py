"""The ``absent`` axis (a qrels topic missing from the run under topics=qrels) against the real
trec_eval binaries: 10.0 ``-c`` (absent=bogus) and 9.0.8 ``-c`` (absent=zero).

TREC 2003 Robust runs with topics removed are evaluated by ``trec_eval-V -c -q -m all_trec
-m yaap`` and by ``auditeval.evaluate`` under profile ``trec_eval-V`` with ``topics=qrels``;
every per-topic value and every summary value must agree to the printed precision.
"""

from __future__ import annotations

import gzip
import math
import subprocess
from pathlib import Path

import pytest
from paths import EXAMPLES, TIERS

import auditeval
from auditeval.trec_eval.catalog import nicknames, table
from auditeval.trec_eval.params import instances

# per tier: two runs, each evaluated without every 5th / 7th of its topics (and the first)
DROPPED = {"robust03_like": (("synDistinct", 5), ("synTies", 7)), "robust03": (("pircRBa1", 5), ("THUIRr0301", 7))}


def _instances(version: str):
    marked = set(nicknames(version)["all_trec"]) | {"yaap"}
    return [i for s in table(version) if s.name in marked for i in instances(s, None) if i.measure is not None]


def _parse(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        name, topic, value = line.split("\t")
        out[(name.strip(), topic)] = value.strip()
    return out


def _close(mine, printed: str, fmt: str) -> bool:
    if fmt == "str":
        return f"'{mine}'" == printed
    if fmt == "long":
        return int(mine) == int(printed)
    if printed.endswith("nan"):
        return isinstance(mine, float) and math.isnan(mine)
    return abs(float(mine) - float(printed)) <= 0.5e-4 + 1e-9  # %6.4f rounds to within half a unit


@pytest.fixture(scope="module", params=TIERS)
def runs(request, tmp_path_factory) -> tuple[Path, list[tuple[Path, set[str]]]]:
    """The qrels, and two runs each without some of its topics (every 5th / 7th, and the first)."""
    data = request.getfixturevalue(request.param)
    out = []
    for name, step in DROPPED[request.param]:
        lines = gzip.open(data.run(name), "rt").read().splitlines(True)
        topics = sorted({ln.split()[0] for ln in lines})
        drop = set(topics[::step])
        path = tmp_path_factory.mktemp("absent") / f"{name}.txt"
        path.write_text("".join(ln for ln in lines if ln.split()[0] not in drop))
        out.append((path, drop))
    return data.qrels, out


@pytest.mark.parametrize("version", ["10.0", "9.0.8"])
def test_missing_topics_match_trec_eval_c(trec_eval_bins, runs, version) -> None:
    insts = _instances(version)
    QRELS, runs = runs
    n_topics = len({ln.split()[0] for ln in QRELS.read_text().splitlines()})
    for path, dropped in runs:
        p = subprocess.run([str(trec_eval_bins[version]), "-c", "-q", "-m", "all_trec", "-m", "yaap", str(QRELS),
                            str(path)], capture_output=True, text=True, check=True)
        real = _parse(p.stdout)
        res = auditeval.evaluate(QRELS, path, [i.measure for i in insts], profile=f"trec_eval-{version}",
                                 settings=["topics=qrels"])
        label = {id(i): str(i.measure) for i in insts}
        mine = {(v.measure, v.topic): v.value for v in res.values}
        qrels_topics = {t for (_n, t) in real if t != "all"} | dropped
        printed_topics = {t for (_n, t) in real if t != "all"}
        # 10.0 prints the missing topics (bogus ranking); 9.0.8 -c never does
        assert (printed_topics >= dropped) == (version == "10.0")
        assert printed_topics & dropped if version == "10.0" else not printed_topics & dropped
        checked = bad = 0
        diffs = []
        for i in insts:
            for (name, topic), text in real.items():
                if name != i.name:
                    continue
                if name == "rbp":  # 10.0 m_rbp.c reads uninitialised min/max (trec_eval_diff._rbp_undefined)
                    continue
                if topic == "all" and name == "num_rel":
                    continue  # -c num_rel summary: qrels lines with grade > 0 (quirks.complete_num_rel)
                v = mine[(label[id(i)], topic)]
                checked += 1
                if not _close(v, text, i.spec.fmt):
                    bad += 1
                    diffs.append(f"{name} {topic}: trec_eval {text}, auditeval {v!r}")
        assert not diffs, f"{path.name} {version}: {bad} of {checked} differ:\n" + "\n".join(diffs[:20])
        assert checked > 2500
        assert len(qrels_topics) == n_topics  # every qrels topic printed or dropped
        # the variant of a measure the axis can change names it; others do not
        assert res.get("yaap").variant.setting("absent") == ("bogus" if version == "10.0" else "zero")
        assert "absent" not in dict(res.get("AP").variant.axes)


def test_rerank_yaap_by_hand(trec_eval_bins) -> None:
    """examples/rerank.txt lacks qrels topic 105 (R = 9): absent=zero scores it 0 (9.0.8 -c
    prints yaap 0.7669), absent=bogus log(1 / (1 + 9)) = -2.3026 (10.0 -c: 0.3063, and a line
    for 105); the two values carry different variant strings."""
    q, r = EXAMPLES / "qrels.txt", EXAMPLES / "rerank.txt"
    for version, mean in (("9.0.8", "0.7669"), ("10.0", "0.3063")):
        out = subprocess.run([str(trec_eval_bins[version]), "-c", "-q", "-m", "yaap", str(q), str(r)],
                             capture_output=True, text=True, check=True).stdout
        real = _parse(out)
        assert real[("yaap", "all")] == mean
        assert (("yaap", "105") in real) == (version == "10.0")
    zero = auditeval.evaluate(q, r, ["yaap"], profile="trec_eval-9.0.8", settings=["topics=qrels"])
    bogus = auditeval.evaluate(q, r, ["yaap"], profile="trec_eval-10.0", settings=["topics=qrels"])
    assert f"{zero.get('yaap').value:.4f}" == "0.7669"
    assert zero.get("yaap", topic="105").value == 0.0
    assert f"{bogus.get('yaap').value:.4f}" == "0.3063"
    assert bogus.get("yaap", topic="105").value == pytest.approx(math.log(1 / 10))
    assert "absent=zero" in str(zero.get("yaap").variant) and "absent=bogus" in str(bogus.get("yaap").variant)
    # the same profile with absent=zero gives 9.0.8's number, under 9.0.8's absent value
    ten_zero = auditeval.evaluate(q, r, ["yaap"], profile="trec_eval-10.0", settings=["topics=qrels", "absent=zero"])
    assert f"{ten_zero.get('yaap').value:.4f}" == "0.7669"
    # without topics=qrels the axis is not read: no absent in the string
    both = auditeval.evaluate(q, r, ["yaap"], profile="trec_eval-9.0.8")
    assert "absent" not in str(both.get("yaap").variant)
