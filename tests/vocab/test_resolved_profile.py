"""A profile resolved once (:class:`ResolvedProfile`): its label, its axes, its routes, each
routed profile loaded once, and the same conventions as resolving by name every time."""

from __future__ import annotations

import pickle

import pytest

from auditeval.vocab import conventions as cv
from auditeval.vocab.measure import Measure
from auditeval.vocab.variant import parse_measure


def test_label_axes_and_settings_as_the_name_gives_them():
    rp = cv.resolve_profile("trec_eval-9.0.8", ["rel=2", "topics=qrels"])
    assert rp.label == "trec_eval-9.0.8 with rel=2, topics=qrels"
    assert (rp.convention.rel, rp.convention.topics, rp.convention.sim) == (2, "qrels", "float32")
    assert cv.resolve_profile(rp) is rp  # resolving again without settings changes nothing
    again = cv.resolve_profile(rp, ["depth=100"])
    assert again.label == "trec_eval-9.0.8 with rel=2, topics=qrels, depth=100"
    assert (again.convention.rel, again.convention.depth) == (2, 100)
    custom = cv.resolve_profile(rp.convention, ["ties=docno-asc"])
    assert custom.label == "custom with ties=docno-asc" and custom.convention.ties == "docno-asc"


def test_routes_then_settings_and_each_routed_profile_loaded_once(monkeypatch):
    rp = cv.resolve_profile("ir_measures-0.4", ["depth=50"])
    loads: list[str] = []
    real = cv.load_profile
    monkeypatch.setattr(cv, "load_profile", lambda name: loads.append(str(name)) or real(name))
    rr10, ap = parse_measure("RR@10"), parse_measure("AP")
    for _ in range(3):
        routed = rp.convention_for(rr10)
        assert (routed.ties, routed.sim, routed.depth) == ("docno-asc", "float64", 50)  # msmarco's axes, then --set
        own = rp.convention_for(ap)
        assert (own.ties, own.sim, own.depth) == ("docno-desc", "float32", 50)  # pytrec_eval provider's
    assert loads == ["ir_measures-0.4-msmarco"]


@pytest.mark.parametrize("profile", ["ir_measures-0.4", "trec_eval-10.0", "repro_eval-0.5", "beir-2.2"])
@pytest.mark.parametrize("name", ["RR@10", "AP", "nDCG@10", "Judged@10", "ERR@20", "P@5"])
def test_the_same_conventions_as_resolving_by_name(profile, name):
    m = parse_measure(name)
    rp = cv.resolve_profile(profile, ["rel=1"])
    assert rp.convention_for(m) == cv.resolve(profile, ["rel=1"], m)
    assert rp.convention == cv.resolve(profile, ["rel=1"])
    prof = cv.load_profile(profile)
    assert cv.resolve(profile, None, m) == prof.convention_for(m)


def test_travels_to_a_worker_process_whole():
    rp = cv.resolve_profile("ir_measures-0.4")
    rp.convention_for(Measure("RR", (), 10))
    back = pickle.loads(pickle.dumps(rp))
    assert back == rp and back.label == "ir_measures-0.4"
    assert back.convention_for(Measure("RR", (), 10)).ties == "docno-asc"
