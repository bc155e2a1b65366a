"""Fuzz of the readers: random bytes and random line shapes only ever end in a value or an
:class:`~auditeval.vocab.errors.InputError` naming the file (and a line when one is to
blame) -- never another exception. Hypothesis, bounded to a few seconds."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditeval.io import parse_qrels, parse_run, read_qrels, read_run
from auditeval.vocab.errors import InputError

FIELD = st.one_of(st.sampled_from(["1", "Q0", "0", "-1", "d1", "2.5", "nan", "inf", "1e400", "", "é", "\x00",
                                   "0x10", "+3", "-0", "1_000"]),
                  st.text(alphabet="0123456789.-eE+abQ", min_size=1, max_size=6))
LINE = st.lists(FIELD, min_size=0, max_size=8).map(lambda f: " ".join(f))
TEXT = st.lists(LINE, max_size=12).map(lambda ls: ("\n".join(ls) + "\n").encode("utf-8"))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _ends_well(fn, data: bytes, name: str) -> None:
    try:
        fn(data, name=name)
    except InputError as exc:
        assert str(exc).startswith(name), str(exc)


@SETTINGS
@given(st.one_of(st.binary(max_size=200), TEXT))
def test_parse_qrels_and_run_end_in_a_value_or_an_input_error(data):
    _ends_well(parse_qrels, data, "fuzz.qrels")
    _ends_well(parse_run, data, "fuzz.run")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=120), TEXT), st.booleans(), st.integers(0, 30))
def test_read_files_plain_gzip_and_truncated(data, gz, cut):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / ("f.gz" if gz else "f.txt")
        raw = gzip.compress(data) if gz else data
        path.write_bytes(raw[:-cut] if gz and cut else raw)
        for reader in (read_qrels, read_run):
            try:
                reader(path)
            except InputError as exc:
                assert str(exc).startswith(str(path)), str(exc)
