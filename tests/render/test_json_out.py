"""JSON with a long list encoded apart (``render/json_out.py``): the same bytes as
``json.dumps(doc, indent=1)`` of the plain document, wherever the list stands."""

from __future__ import annotations

import io
import json

import pytest

from auditeval.render.json_out import BLOCK, Deferred, items_text, write_json


def _rows(n: int) -> list[dict]:
    return [{"a": f"run{k}", "b": "line\nbreak \"q\" é", "mean": k / 7, "nan": None, "ci": [k, -k / 3, []],
             "p": {"t": 1e-300 * k, "w": {}}, "ok": k % 2 == 0} for k in range(n)]


@pytest.mark.parametrize("where", ["dict value", "list element", "top level", "deep"])
@pytest.mark.parametrize("n", [0, 1, 5, BLOCK + 3])
def test_a_deferred_list_is_spliced_to_the_plain_documents_bytes(where, n):
    rows = _rows(n)

    def doc(x):
        if where == "dict value":
            return {"profile": "p", "pairs": {"family": "all", "rows": x, "after": [1, 2]}, "notes": []}
        if where == "list element":
            return [1, x, {"k": x}]
        if where == "deep":
            return {"measures": [{"m": "AP", "pairs": {"rows": x}}, {"m": "P@10", "pairs": {"rows": x}}]}
        return x

    blocks_seen: list[int] = []

    def encode(blocks):  # what the command hands to its backend's map
        blocks_seen.extend(len(b[0]) for b in blocks)
        return [items_text(None, b) for b in blocks]

    for enc in (None, encode):
        out = io.StringIO()
        write_json(out, doc(Deferred(rows)), enc, indent=1)
        assert out.getvalue() == json.dumps(doc(rows), indent=1) + "\n"
    assert all(k <= BLOCK for k in blocks_seen)
    if n > BLOCK:
        assert len(blocks_seen) >= 2  # encoded in blocks, spliced back in order


def test_without_indent_a_deferred_list_is_a_plain_list():
    out = io.StringIO()
    write_json(out, {"rows": Deferred([1, {"a": 2}])})
    assert out.getvalue() == json.dumps({"rows": [1, {"a": 2}]}) + "\n"


def test_other_objects_still_fail_as_json_fails():
    with pytest.raises(TypeError, match="not JSON serializable"):
        write_json(io.StringIO(), {"x": object()}, indent=1)
