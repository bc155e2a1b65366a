"""trec_eval's rel_info formats (formats.c ``te_rel_info_format[]``) and the message a measure
prints when ``-R`` is not its format: what the standard path needs of ``-R`` without loading the
preference readers and kernels (:mod:`.prefs_dropin`)."""

from __future__ import annotations

from auditeval.trec_eval.params import Instance

REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")  # formats.c te_rel_info_format[]
_WRONG = {
    "qrels": "trec_eval.form_res_qrels: rel_info format not qrels or results format not trec_results\n",
    "prefs": "trec_eval.form_prefs_info: prefs_info format not (prefs or qrels_prefs) or results format not "
             "trec_results\n",
    "qrels_jg": "trec_eval: rel_info format not qrels_jg or results format not trec_results\n",
}


def wrong_format(inst: Instance, rel_format: str) -> str | None:
    """The message a measure's calc prints when ``-R`` is not its format (None: it runs)."""
    need = inst.spec.rel_format
    if inst.spec.name in ("runid", "num_q"):
        return None
    ok = rel_format in ("prefs", "qrels_prefs") if need == "prefs" else rel_format == need
    return None if ok else _WRONG[need]
