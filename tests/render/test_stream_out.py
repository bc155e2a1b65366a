"""Streamed output (``render/stream.py``, ``render/sweep_out.py``): the same bytes as a document
written whole.

The sweep's JSON view streams its values a block at a time between the text before and after
the list (:func:`json_frame`); the reference is ``json.dumps(doc, indent=1)`` of the whole
document, its values made record by record (``render.sweep_out.value_records``: one Python tuple per value,
the former writer's source), on a sweep with refused variants, an integer, a text and a
mean-defined measure, NaN values, run tags needing JSON escapes and control characters, in
blocks of one value, seven and the default. The byte path (a UTF-8 stdout's buffer) gives
the bytes of the text path (writing the same text through the stream, escaping and all).
"""

from __future__ import annotations

import io
import json

import pytest

import auditeval as ae
from auditeval.render import sweep_out
from auditeval.render.stream import Sink, json_frame
from auditeval.render.sweep_out import render_json, render_tsv
from auditeval.render.sweep_out import value_records as _records
from auditeval.render.terminal import control_safe
from auditeval.results.values import Refusal
from auditeval.vocab.conventions import AXES
from auditeval.vocab.model import Run, run_table

QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d9": 1}, "q\u00e9": {"d1": 1}}


def _sweep():
    odd = Run(run_table(["q1", "q1", "q1", "q1", "q2"], ["d4", "d1", "d1", "d2", "d3"], [3.0, 2.0, 1.5, 2.0, 1.0]),
              name='tag "quoted" \\ \u00e9\x1b[2J')
    plain = {"q1": {"d4": 3.0, "d1": 2.0, "d2": 2.0, "d3": 1.0}, "q\u00e9": {"d1": 1.0}}
    res = ae.sweep(QRELS, [odd, plain], ["AP", "NumRel", "Accuracy@1", "relstring@3", "IPrec@0.5", "P@2"],
                   vary={"dups": "all", "ties": "all", "topics": "all", "rel": "all", "depth": [1, "all"]})
    assert any(b.errors for b in res.blocks.values())
    return res


@pytest.fixture(scope="module")
def res():
    return _sweep()


def _doc(res, per_topic):
    return {
        "profile": res.profile,
        "varied": {a: [AXES[a].format(v) for v in vs] for a, vs in res.varied.items()},
        "notes": res.notes,
        "values": [
            {"run": run, "measure": label, "variant": variant, "engine": res.engine, "topic": topic, "value": value}
            for run, label, variant, pairs in _records(res, per_topic) for topic, value in pairs
        ],
    }


@pytest.mark.parametrize("block", [None, 1, 7])
@pytest.mark.parametrize("per_topic", [False, True])
def test_sweep_json_streamed_is_the_whole_document(res, per_topic, block, monkeypatch):
    if block is not None:
        monkeypatch.setattr(sweep_out, "LINES_PER_BLOCK", block)
    doc = _doc(res, per_topic)
    out = io.StringIO()
    render_json(res, out, per_topic)
    assert out.getvalue() == json.dumps(doc, indent=1) + "\n"
    assert len(doc["values"]) > 100
    values = [v["value"] for v in doc["values"]]
    assert any(isinstance(v, float) and v != v for v in values)  # a NaN among them (JSON's NaN)
    assert any(isinstance(v, int) for v in values)
    assert any(isinstance(v, str) for v in values) == per_topic  # a text measure has per-topic values only


def test_sweep_json_of_no_value_closes_the_empty_list():
    res = ae.sweep(QRELS, [{"q1": {"d4": 3.0}}], ["relstring@3"], vary={"ties": "all"})
    out = io.StringIO()
    render_json(res, out, False)
    assert out.getvalue() == json.dumps(_doc(res, False), indent=1) + "\n"
    assert json.loads(out.getvalue())["values"] == []


@pytest.mark.parametrize("doc", [
    {"a": 1, "values": [], "z": [1, 2]},
    {"values": [{"x": [1, {"y": "\u00e9\n"}]}, 2.5, "s"], "notes": ["n"]},
    {"a": {"b": 1}, "values": [[]]},
])
def test_json_frame_splits_the_document_around_its_list(doc):
    frame = json_frame({**doc, "values": None}, "values")
    items = doc["values"]
    if items:
        body = ",".join(frame.pad + json.dumps(it, indent=1).replace("\n", frame.pad) for it in items) + frame.close
    else:
        body = "]"
    assert frame.head + body + frame.tail == json.dumps(doc, indent=1) + "\n"


@pytest.mark.parametrize("fmt", ["tsv", "json"])
@pytest.mark.parametrize("per_topic", [False, True])
def test_the_byte_path_writes_what_the_stream_writes(res, fmt, per_topic, monkeypatch):
    """A UTF-8 text stream (stdout) gets the blocks in its buffer: the same bytes as the text
    path through a :class:`ControlSafeStream` over a ``StringIO`` (the control characters of
    the tag shown escaped, once)."""
    monkeypatch.setattr(sweep_out, "LINES_PER_BLOCK", 5)
    render = render_tsv if fmt == "tsv" else render_json
    text = io.StringIO()
    render(res, control_safe(text), per_topic)
    raw = io.BytesIO()
    wrapper = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    wrapper.write("before\n")  # pending text is flushed ahead of the blocks
    stream = control_safe(wrapper)
    assert Sink(stream)._buffer is not None
    render(res, stream, per_topic)
    stream.flush()
    assert raw.getvalue() == ("before\n" + text.getvalue()).encode("utf-8")
    assert "\x1b" not in text.getvalue()
    assert ("\\x1b[2J" if fmt == "tsv" else "\\u001b[2J") in text.getvalue()


@pytest.mark.parametrize("block", [None, 1, 3])
@pytest.mark.parametrize("per_topic", [False, True])
def test_eval_json_streamed_is_the_whole_document(block, per_topic, monkeypatch):
    """``eval``'s JSON view writes its values a block at a time: the bytes of
    ``json.dumps(document(...), indent=1)`` of the whole document, for two profiles (one
    and one with a refused run), ids needing escapes."""
    from auditeval.render import eval_json

    if block is not None:
        monkeypatch.setattr(eval_json, "ITEMS_PER_WRITE", block)
    runs = [{"q1": {"d1": 2.0, "d\u00e9\"": 1.0}}, {"q1": {"d2": 1.0}, "q\u00e9": {"d1": 3.0}}]
    results = [ae.evaluate(QRELS, runs, ["AP", "P@2", "NumRel"], profile=p)
               for p in ("trec_eval-9.0.8", "ir_measures-0.4")]
    refused = ae.evaluate(QRELS, runs[:1], ["AP"])
    refused.refusals.append(Refusal(run="r\u00e9fused", profile=refused.profile, reason="a reason\nover two lines"))
    for res in (results, results[0], [refused], [ae.evaluate(QRELS, runs, ["relstring@2"])]):
        out = io.StringIO()
        eval_json.render_json(res, out, per_topic)
        assert out.getvalue() == json.dumps(eval_json.document(res, per_topic), indent=1) + "\n"


def test_eval_per_topic_text_lines_in_blocks_are_the_lines_at_once(monkeypatch):
    """``eval -q``'s per-topic text lines written a block at a time (of one line, of three):
    the text of writing them all at once, run labels too long for their column included."""
    from auditeval.render import eval_text

    runs = [Run(run_table(["q1", "q1"], ["d1", "d2"], [2.0, 1.0]),
                name="a-run-label-far-too-long-for-the-run-column-of-the-per-topic-lines"),
            Run(run_table(["q1", "q\u00e9"], ["d2", "d1"], [1.0, 3.0]), name="r2")]
    results = [ae.evaluate(QRELS, runs, ["AP", "P@2"], profile=p) for p in ("trec_eval-9.0.8", "ir_measures-0.4")]
    texts = []
    for block in (1 << 30, 1, 3):
        monkeypatch.setattr(eval_text, "LINES_PER_WRITE", block)
        out = io.StringIO()
        eval_text.write_topic_lines(out, results, eval_text.topic_line_widths(results), 60)
        texts.append(out.getvalue())
    assert texts[0] == texts[1] == texts[2] and texts[0].count("\n") > 8
    assert runs[0].name in texts[0].splitlines()  # the long label on a line of its own
