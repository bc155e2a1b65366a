"""Readers for evaluation tools' output files, with format detection.

Formats (``--format-a/--format-b`` names):

* ``trec_eval``: ``measure <tab> topic <tab> value`` lines (summary, or ``-q`` per topic
  with ``all`` for the aggregate); trec_eval measure names.
* ``ir_measures``: the ir_measures CLI's TSV: ``measure <tab> value`` (summary) or
  ``query_id <tab> measure <tab> value`` (``-q``, summary under query id ``all``).
* ``ir_measures-jsonl``: ``--output_format jsonl``: ``{"query_id"?, "measure", "value"}``.
* ``ranx-report``: ``Report.save`` JSON (``model_names``, ``metrics``, per model ``scores``).
* ``ranx-scores``: a ranx run's per-query scores dumped as JSON, metric -> topic -> value
  (``json.dump(run.scores)`` after ``evaluate``). A ``Run.save`` JSON holds documents, not
  numbers: it is recognised and refused with that reason.
* ``pytrec_eval``: ``json.dump(evaluator.evaluate(run))``: topic -> trec_eval name -> value
  (per-topic ``gm_map``/``gm_bpref``, which pytrec_eval keeps as ``log(max(x, 1e-05))``, are
  read back as ``exp(value)``, with a note).
* ``auditeval``: ``auditeval eval --format json`` (``profiles``, ``values`` records with run,
  measure, variant, engine, topic, value; runs under several profiles kept apart), or a
  bare list of such records.
* ``csv``: ``topic,measure,value`` lines (optional header; ``run,topic,measure,value`` too).

Measure names go to one canonical key, the ir_measures spelling auditeval uses
(:func:`auditeval.vocab.variant.parse_measure`, whose alias table maps every trec_eval name:
``map`` = ``AP``, ``ndcg_cut_10`` = ``nDCG@10``, ``P_10`` = ``P@10``, ``recip_rank`` = ``RR``).
ranx's own metric names (``ndcg@10``, ``map@100``, ``mrr``, ``precision@10``, ``-l2``) are
read by inverting the ranx adapter's naming (:meth:`auditeval.adapters.ranx.Ranx.tool_measure`);
``ndcg_burges`` is nDCG with exponential gain, so it is read as nDCG with a declared
``gain=exp2`` (a note says so), and ``-l2`` declares ``rel=2``.

Each value keeps its printed precision: ``decimals`` digits after the point for text
formats, ``None`` (full double precision) for JSON, whose writers print ``repr``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from auditeval.adapters.trec_names import GEOMETRIC
from auditeval.vocab.conventions import resolve
from auditeval.vocab.errors import AuditEvalError, InputError
from auditeval.vocab.measure import Measure
from auditeval.vocab.variant import parse_measure

FORMATS = ("trec_eval", "ir_measures", "ir_measures-jsonl", "ranx-report", "ranx-scores", "pytrec_eval",
           "auditeval", "csv")

_RANX = re.compile(r"^(?P<name>[a-z_-]+?)(?:@(?P<k>\d+))?(?:-l(?P<rel>\d+))?$")
_NUM = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:nan|inf)$", re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    """One number (or string, e.g. ``runid``) read from a tool's output."""

    run: str | None
    measure: str  # canonical key (str of the parsed measure), or the raw name if unknown
    raw: str  # the name as the tool wrote it
    topic: str  # topic id, "all" for the aggregate
    value: float | str
    decimals: int | None  # digits printed after the point; None: full double precision
    line: int | None
    declared: tuple[tuple[str, str], ...] = ()  # axis values the tool's name implies (ranx ndcg_burges)


@dataclass
class ToolOutput:
    path: str
    format: str
    entries: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def runs(self) -> list[str | None]:
        return list(dict.fromkeys(e.run for e in self.entries))



@cache
def canonical(name: str, tool: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """Canonical measure key of a tool's measure name and the axis values it implies;
    None when no table knows the name."""
    if tool.startswith("ranx"):
        hit = _ranx_name(name)
        if hit is not None:
            return hit
    if name == "runid":
        return "runid", ()
    try:
        return str(parse_measure(name)), ()
    except AuditEvalError:
        return None


@cache
def _ranx_name(name: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """Invert the ranx adapter's naming (``Ranx.tool_measure``, the one table of ranx names):
    the auditeval measure and the axis values (``gain``, ``rel``) a ranx metric name implies."""
    from auditeval.adapters.ranx import Ranx
    from auditeval.vocab.specs import SPECS

    m = _RANX.match(name)
    if not m:
        return None
    k = int(m.group("k")) if m.group("k") else None
    rel = int(m.group("rel")) if m.group("rel") else 1
    base = resolve("ranx-0.3").replace(rel=rel)
    for mname in SPECS:
        for gain in ("linear", "exp2"):
            if Ranx().tool_measure(Measure(mname, (), k), base.replace(gain=gain)) == name:
                declared = {"gain": gain} if mname == "nDCG" and gain != "linear" else {}
                declared |= {"rel": str(rel)} if rel != 1 else {}
                return str(Measure(mname, (), k)), tuple(sorted(declared.items()))
    return None


def _number(text: str) -> tuple[float | str, int | None]:
    t = text.strip()
    if not _NUM.match(t):
        return t, None
    mant = t.lower().split("e")[0]
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    if "e" in t.lower():
        decimals -= int(t.lower().split("e")[1])
    return float(t), max(decimals, 0)


class _Reader:
    def __init__(self, path: str, fmt: str):
        self.out = ToolOutput(path, fmt)
        self.unknown: dict[str, int] = {}
        self.seen: dict[tuple, int | None] = {}

    def add(self, run, name: str, topic: str, value: Any, line: int | None, decimals: int | None = None) -> None:
        known = canonical(name, self.out.format)
        if known is None:
            self.unknown[name] = self.unknown.get(name, 0) + 1
            key, declared = name, ()
        else:
            key, declared = known
        if isinstance(value, str):
            value, decimals = _number(value)
        elif isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(self.out.path, line, f"value of {name!r} for topic {topic!r} is not a number: {value!r}")
        else:
            value = float(value)
        ident = (run, key, str(topic), declared)
        if ident in self.seen:  # two values for one number: which one is meant is unknowable
            first = self.seen[ident]
            raise InputError(self.out.path, line, f"second value for {name!r} topic {topic!r}"
                             + (f" (first at line {first})" if first is not None else "")
                             + "; one run per file, or a run column (csv) / runid line (trec_eval)")
        self.seen[ident] = line
        self.out.entries.append(Entry(run, key, name, str(topic), value, decimals, line, declared))

    def done(self) -> ToolOutput:
        groups: dict[tuple, set] = {}
        for e in self.out.entries:
            groups.setdefault((e.run, e.measure), set()).add(e.declared)
        split = {k for k, v in groups.items() if len(v) > 1}  # ranx ndcg@10 and ndcg_burges@10 in one file
        if split:
            self.out.entries = [
                Entry(e.run, e.measure + "(" + ",".join(f"{a}={v}" for a, v in e.declared) + ")", e.raw, e.topic,
                      e.value, e.decimals, e.line, e.declared) if (e.run, e.measure) in split and e.declared else e
                for e in self.out.entries
            ]
            self.out.notes.append(f"{self.out.path}: " + "; ".join(sorted({m for _, m in split}))
                                  + " printed under several conventions; kept apart by the axes their names declare")
        for name, n in self.unknown.items():
            self.out.notes.append(f"{self.out.path}: measure name {name!r} is not in auditeval's tables; "
                                  f"{n} value(s) compared by that name only")
        for raw, key, declared in sorted({(e.raw, e.measure, e.declared) for e in self.out.entries if e.declared}):
            self.out.notes.append(f"{self.out.path}: {raw!r} read as {key} under "
                                  + ", ".join(f"{a}={v}" for a, v in declared))
        if not self.out.entries:
            raise InputError(self.out.path, None, f"no values found (read as {self.out.format})")
        return self.out


def from_result_set(res: Any, name: str) -> ToolOutput:
    """A :class:`~auditeval.results.values.ResultSet` as a tool's output (full precision, its
    measure labels read as the ``auditeval`` JSON reader reads them), for :mod:`.diff`."""
    r = _Reader(name, "auditeval")
    for v in res.values:
        r.add(v.run, v.measure, v.topic, v.value, None)
    return r.done()


def _split_lines(text: str) -> list[tuple[int, list[str]]]:
    return [(i, ln.split()) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]


def _is_measure(name: str, tool: str) -> bool:
    return canonical(name, tool) is not None


def detect(path: str, text: str) -> str:
    """The format of a tool's output from its content."""
    head = text.lstrip()
    if not head:
        raise InputError(path, None, "empty file")
    if head[0] in "[{":
        first = head.splitlines()[0].strip()
        if first.startswith("{") and first.endswith("}") and len(head.splitlines()) >= 1:
            try:
                obj = json.loads(first)
                if isinstance(obj, dict) and "measure" in obj and "value" in obj:
                    return "ir_measures-jsonl"
            except json.JSONDecodeError:
                pass
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(path, exc.lineno, f"not valid JSON ({exc.msg})") from None
        if isinstance(data, dict) and isinstance(data.get("values"), list) and "profiles" in data:
            data = data["values"]  # auditeval eval --format json: {"profiles", "values", "notes"}
        if isinstance(data, list):
            if data and all(isinstance(r, dict) and {"measure", "topic", "value"} <= set(r) for r in data):
                return "auditeval"
            raise InputError(path, 1, "a JSON list that is not auditeval records (run, measure, topic, value)")
        if isinstance(data, dict) and isinstance(data.get("values"), list) and "profiles" in data:
            return "auditeval"
        if isinstance(data, dict) and "model_names" in data and "metrics" in data:
            return "ranx-report"
        if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
            outer = list(data)
            inner = list(dict.fromkeys(k for v in data.values() for k in v))
            if all(_is_measure(k, "ranx") for k in outer) and not all(_is_measure(k, "trec_eval") for k in inner):
                return "ranx-scores"
            if inner and all(_is_measure(k, "trec_eval") for k in inner):
                return "pytrec_eval"
            raise InputError(path, 1, "JSON topic -> document -> score: a run (ranx Run.save or a run dict), "
                             "not evaluation output; give it as --run")
        raise InputError(path, 1, "JSON that no reader knows (auditeval, ranx report or scores, pytrec_eval)")
    lines = _split_lines(text)
    first = text.splitlines()[0]
    if "," in first and len(first.split(",")) in (3, 4):
        return "csv"
    widths = {len(f) for _, f in lines}
    if widths <= {2}:
        return "ir_measures"
    if widths <= {2, 3}:
        three = [f for _, f in lines if len(f) == 3][:50]
        first_is = sum(_is_measure(f[0], "trec_eval") for f in three)
        second_is = sum(_is_measure(f[1], "ir_measures") for f in three)
        return "trec_eval" if first_is >= second_is else "ir_measures"
    bad = next(i for i, f in lines if len(f) not in (2, 3))
    raise InputError(path, bad, "expected 'measure topic value' (trec_eval) or 'topic measure value' (ir_measures)")


def read_output(path: str | Path, fmt: str | None = None) -> ToolOutput:
    """Read one tool's output file (``fmt`` forces a format; default: detected)."""
    name = str(path)
    from auditeval.io.files import read_text

    text = read_text(path, allow_empty=False)  # the checked opener: one InputError per bad file
    if fmt is not None and fmt not in FORMATS:
        raise InputError(name, None, f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    fmt = fmt or detect(name, text)
    r = _Reader(name, fmt)
    if fmt in ("trec_eval", "ir_measures"):
        for i, f in _split_lines(text):
            if fmt == "trec_eval" and len(f) == 3:
                r.add(None, f[0], f[1], f[2], i)
            elif fmt == "ir_measures" and len(f) in (2, 3):
                r.add(None, f[-2], f[0] if len(f) == 3 else "all", f[-1], i)
            else:
                raise InputError(name, i, f"expected {'3' if fmt == 'trec_eval' else '2 or 3'} fields, found {len(f)}")
        out = r.done()
        runids = [e for e in out.entries if e.measure == "runid"]
        if runids:  # trec_eval names the run in a runid line
            out.entries = [Entry(str(runids[0].value), e.measure, e.raw, e.topic, e.value, e.decimals, e.line)
                           for e in out.entries]
        return out
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        for i, row in enumerate(rows, 1):
            if not row or not "".join(row).strip():
                continue
            if i == 1 and [c.strip().lower() for c in row][-2:] == ["measure", "value"]:
                continue
            if len(row) not in (3, 4):
                raise InputError(name, i, f"expected topic,measure,value (or run,topic,measure,value), found {len(row)} fields")
            run = row[0].strip() if len(row) == 4 else None
            topic, meas, value = (c.strip() for c in row[-3:])
            r.add(run, meas, topic, value, i)
        return r.done()
    if fmt == "ir_measures-jsonl":
        for i, ln in enumerate(text.splitlines(), 1):
            if not ln.strip():
                continue
            try:
                obj = json.loads(ln)
            except json.JSONDecodeError as exc:
                raise InputError(name, i, f"not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict) or "measure" not in obj or "value" not in obj:
                raise InputError(name, i, "expected an object with 'measure' and 'value'")
            r.add(None, str(obj["measure"]), str(obj.get("query_id", "all")), obj["value"], i)
        return r.done()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(name, exc.lineno, f"not valid JSON ({exc.msg})") from None
    if fmt == "auditeval":
        recs = data if isinstance(data, list) else data.get("values", []) if isinstance(data, dict) else []
        several = len({rec.get("profile") for rec in recs}) > 1  # eval --profile A --profile B
        for rec in recs:
            run = rec.get("run") if not several else f"{rec.get('run')} [{rec.get('profile')}]"
            r.add(run, str(rec["measure"]), str(rec["topic"]), rec["value"], None)
    elif fmt == "ranx-report":
        for model in data.get("model_names", []):
            for metric, value in data[model]["scores"].items():
                r.add(model, metric, "all", value, None)
    elif fmt == "ranx-scores":
        for metric, per_q in data.items():
            for topic, value in per_q.items():
                r.add(None, metric, topic, value, None)
    elif fmt == "pytrec_eval":
        logged = 0
        for topic, per_m in data.items():
            for metric, value in per_m.items():
                if metric in GEOMETRIC and isinstance(value, int | float):
                    value, logged = math.exp(value), logged + 1
                r.add(None, metric, topic, value, None)
        if logged:
            r.out.notes.append(f"{name}: pytrec_eval keeps per-topic {'/'.join(sorted(GEOMETRIC))} as "
                               f"log(max(x, 1e-05)); {logged} value(s) read back as exp(value)")
    return r.done()
