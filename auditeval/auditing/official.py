"""Official-measure check for qrels named by an ir_datasets id (``irds:ID``).

ir_datasets ships each dataset's ``documentation()['official_measures']`` inside the
package (no download). Each requested measure is compared, after folding its convention
parameters into axes (``AP(rel=2)`` -> ``AP`` with ``rel=2``), with the official measure of
the same name and cut-off: a different relevance threshold is a departure (TREC DL 2019's
official ``RR(rel=2)`` and ``AP(rel=2)`` but nDCG over every grade, anserini #1525), a
measure the dataset does not list is reported as not official, and an official measure
not requested is listed too.
"""

from __future__ import annotations

from auditeval.results.audit import OfficialRow
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.measure import Measure
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import fold, parse_measure


def official_measures(dataset: str) -> list[str] | None:
    """The dataset's official measures (ir_datasets documentation), None when unknown."""
    try:
        import ir_datasets
    except ImportError:
        return None
    try:
        doc = ir_datasets.load(dataset).documentation()
    except (KeyError, AttributeError):
        return None
    return list(doc.get("official_measures") or []) or None


def check(dataset: str, measures: list[Measure], conv: Convention) -> list[OfficialRow]:
    official = official_measures(dataset)
    if not official:
        return [OfficialRow(dataset, "", "", "unknown", "ir_datasets documents no official measures for this id")]
    parsed: list[tuple[str, Measure, Convention]] = []
    for text in official:
        try:
            om = parse_measure(text)
        except AuditEvalError:
            continue
        om2, oc = fold(om, conv.replace(rel=1))
        parsed.append((text, om2, oc))
    rows, used = [], set()
    for m in measures:
        m2, c2 = fold(m, conv)
        same = [(t, om, oc) for t, om, oc in parsed if om.name == m2.name and om.cutoff == m2.cutoff and om.params == m2.params]
        if not same:
            rows.append(OfficialRow(dataset, str(m), "", "not official", f"{dataset} lists {', '.join(official)}"))
            continue
        t, om, oc = same[0]
        used.add(t)
        if "rel" not in SPECS[m2.name].axes:
            rows.append(OfficialRow(dataset, str(m), t, "ok", f"{m2.name} reads every grade (no relevance threshold), as official"))
        elif oc.rel != c2.rel:
            rows.append(OfficialRow(dataset, str(m), t, "departs",
                                    f"official {t} counts grade >= {oc.rel} as relevant; requested uses rel={c2.rel}"))
        else:
            rows.append(OfficialRow(dataset, str(m), t, "ok", f"rel={c2.rel} as official"))
    for t, _, _ in parsed:
        if t not in used:
            rows.append(OfficialRow(dataset, "", t, "not requested", f"official measure {t} was not requested"))
    return rows
