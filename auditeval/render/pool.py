"""Documents (JSON-able dicts) and their text views for ``auditeval pool`` (within the terminal's width).

Each ``*_doc`` function turns a result into the document ``--format json`` prints; the
function named after the subcommand renders that document as text. Ids are printed as
they are (plain text); variant strings are folded at ``|`` to fit the width.
"""

from __future__ import annotations

from typing import Any, TextIO

import numpy as np
from rich.console import Console
from rich.table import Table

from auditeval.io.files import write_text
from auditeval.pooling.bias import BiasReport
from auditeval.pooling.coverage import Coverage
from auditeval.pooling.growth import GrowthReport
from auditeval.pooling.pools import Pools, random_orders
from auditeval.render.eval_text import detect_width
from auditeval.render.terminal import console
from auditeval.render.textgrid import wrap_variant

WIDTH = 100  # when the caller gives no width


def _console(out: TextIO) -> Console:
    """A console as wide as the terminal (else ``$COLUMNS``, else 100: :func:`detect_width`)."""
    return console(file=out, width=detect_width(out), highlight=False, soft_wrap=False, emoji=False, markup=False)


def fold(label: str, text: str, width: int = WIDTH) -> str:
    """``label text`` with the variant string ``text`` broken after ``|`` only, so no line
    exceeds ``width`` (:func:`~auditeval.render.textgrid.wrap_variant`)."""
    return "\n".join(wrap_variant(text, width, indent=4, first=label))


def _table(*cols: str) -> Table:
    t = Table(box=None, pad_edge=False, header_style="bold")
    for i, c in enumerate(cols):
        t.add_column(c, justify="left" if i == 0 else "right", overflow="fold", no_wrap=i == 0)  # an id never breaks
    return t


def _pool_head(doc: dict, width: int) -> str:
    return fold("pool: ", doc["pool"], width) + f"\nprofile {doc['profile']}, depth {doc['depth']}, ties {doc['ties']}"


# ---------------------------------------------------------------------------------- stats
def stats_doc(pools: Pools, n_orders: int, seed: int, profile: str, notes: list[str]) -> dict[str, Any]:
    pooled, unpooled = pools.per_topic()
    given = np.arange(pools.n_runs)[None, :]
    g_added, g_by = pools.marginal(given)
    orders = random_orders(pools.n_runs, n_orders, seed)
    added, by = pools.marginal(orders)
    curve = np.cumsum(added, axis=1)
    unique = pools.unique()
    systems = [
        {"run": r, "contributed": int(len(pools.contrib[i])), "unique": int(unique[i]), "given_order": int(g_by[0, i]),
         "mean": float(by[:, i].mean()), "sd": float(by[:, i].std()), "min": int(by[:, i].min()), "max": int(by[:, i].max())}
        for i, r in enumerate(pools.runs)
    ]
    steps = [
        {"systems": s + 1, "given_order": int(np.cumsum(g_added[0])[s]), "mean": float(curve[:, s].mean()),
         "sd": float(curve[:, s].std()), "min": int(curve[:, s].min()), "max": int(curve[:, s].max())}
        for s in range(pools.n_runs)
    ]
    return {
        "command": "pool stats", "pool": pools.variant, "depth": pools.depth, "ties": pools.convention.ties,
        "sim": pools.convention.sim, "profile": profile, "runs": pools.runs, "topics": len(pools.space.topics),
        "unpooled": pools.unpooled, "pooled": pools.pooled, "reuse": pools.reuse,
        "per_topic": [{"topic": t, "pooled": int(a), "unpooled": int(b)}
                      for t, a, b in zip(pools.space.topics, pooled, unpooled, strict=True)],
        "marginal": {"orders": n_orders, "seed": seed, "given_order": pools.runs, "systems": systems, "curve": steps},
        "notes": notes,
    }


def stats(doc: dict, out: TextIO, per_topic: bool = False) -> None:
    c = _console(out)
    c.print(_pool_head(doc, c.width))
    c.print(f"{len(doc['runs'])} runs, {doc['topics']} topics")
    c.print(f"unpooled cost {doc['unpooled']:,} pairs (sum over runs and topics of min(k, retrieved))")
    c.print(f"pooled cost {doc['pooled']:,} pairs; reuse rate 1 - pooled / unpooled = {doc['reuse']:.2%}")
    sizes = np.array([t["pooled"] for t in doc["per_topic"]])
    if len(sizes):
        c.print(f"pool size per topic: min {sizes.min()}, median {np.median(sizes):g}, max {sizes.max()}")
    m = doc["marginal"]
    c.print(f"\nmarginal cost: new pairs each system adds, in the given order and over {m['orders']} random orders "
            f"(seed {m['seed']})")
    t = _table("run", "top-k pairs", "unique", "given order", "mean", "sd", "min", "max")
    for s in m["systems"]:
        t.add_row(s["run"], f"{s['contributed']:,}", f"{s['unique']:,}", f"{s['given_order']:,}", f"{s['mean']:,.1f}",
                  f"{s['sd']:,.1f}", f"{s['min']:,}", f"{s['max']:,}")
    c.print(t)
    c.print("\npool size as systems are added")
    t = _table("systems", "given order", "mean", "sd", "min", "max")
    for s in m["curve"]:
        t.add_row(str(s["systems"]), f"{s['given_order']:,}", f"{s['mean']:,.1f}", f"{s['sd']:,.1f}", f"{s['min']:,}", f"{s['max']:,}")
    c.print(t)
    if per_topic:
        c.print("\nper topic")
        t = _table("topic", "pooled", "unpooled")
        for r in doc["per_topic"]:
            t.add_row(r["topic"], str(r["pooled"]), str(r["unpooled"]))
        c.print(t)


# ---------------------------------------------------------------------------------- coverage
def coverage_doc(cov: Coverage, ties: str, profile: str, notes: list[str]) -> dict[str, Any]:
    runs = [{"run": r, "judged_at_k": {"measure": cov.judged_measure, "variant": cov.judged_variant, "value": v},
             "pairs": int(n), "unjudged": int(u)} for r, v, n, u in zip(cov.runs, cov.judged_at_k, cov.contributed, cov.unjudged, strict=True)]
    return {"command": "pool coverage", "pool": cov.pool_variant, "depth": cov.depth, "ties": ties, "profile": profile,
            "runs": runs, "todo_count": len(cov.todo[0]),
            "todo": [{"topic": t, "doc": d} for t, d in zip(*cov.todo, strict=True)], "notes": notes + cov.notes}


def coverage(doc: dict, out: TextIO) -> None:
    c = _console(out)
    c.print(_pool_head(doc, c.width))
    first = doc["runs"][0]["judged_at_k"] if doc["runs"] else None
    if first:
        c.print(fold(f"{first['measure']} variant: ", first["variant"], c.width))
    t = _table("run", first["measure"] if first else "judged", "top-k pairs", "unjudged")
    for r in doc["runs"]:
        v = r["judged_at_k"]["value"]
        t.add_row(r["run"], "-" if v is None else f"{v:.4f}", f"{r['pairs']:,}", f"{r['unjudged']:,}")
    c.print(t)
    c.print(f"pairs left to judge for the pool at depth {doc['depth']}: {doc['todo_count']:,}")


# ---------------------------------------------------------------------------------- store
def todo(doc: dict, out: TextIO) -> None:
    if "pairs" in doc:
        for p in doc["pairs"]:
            out.write(f"{p['topic']}\t{p['doc']}\n")
        return
    out.write(f"{doc['todo']:,} pair(s) to judge written to {doc['output']} ({doc['pool']})\n")


def add(doc: dict, out: TextIO) -> None:
    c = _console(out)
    c.print(f"store {doc['store']}")
    t = _table("input", "lines", "batches", "added", "same", "kept", "revised")
    for f in doc["files"]:
        b = f["batches"]
        t.add_row(f["input"], f"{f['lines']:,}", f"{len(b)} ({b[0]}-{b[-1]})" if b else "0", f"{f['added']:,}",
                  f"{f['same']:,}", f"{f['kept']:,}", f"{f['revised']:,}")
    c.print(t)


def qrels(doc: dict, out: TextIO) -> None:
    if "qrels" in doc:
        for r in doc["qrels"]:
            out.write(f"{r['topic']} 0 {r['doc']} {r['label']}\n")
        return
    out.write(f"{doc['labels']:,} label(s) written to {doc['output']}\n")


def judge(doc: dict, out: TextIO) -> None:
    c = _console(out)
    c.print(_pool_head(doc, c.width))
    k = doc["cost"]
    c.print(f"judge {doc['judge']} (source {doc['source']})")
    c.print(f"pool pairs {doc['pool_pairs']:,}; already stored {doc['stored']:,}; to judge {k['pairs_todo']:,}; "
            f"judged now {k['pairs_judged']:,} in {k['batches']} batch(es)")
    if k["already_stored"]:
        c.print(f"{k['already_stored']:,} pair(s) labelled by another writer meanwhile: not sent")
    tokens = "not reported" if k["input_tokens"] is None and k["output_tokens"] is None else \
        f"{k['input_tokens'] or 0:,} in, {k['output_tokens'] or 0:,} out"
    c.print(f"cost: {k['calls']} call(s) ({k['retries']} retries), tokens {tokens}, {k['seconds']:.1f} s")
    if "llm" in doc:  # --judge openai: what the requests met, the cost, the tokens per source in the store
        m = doc["llm"]
        usd = "no prices given" if m["cost_usd"] is None else f"USD {m['cost_usd']:.6f}"
        c.print(f"model {m['model']}, prompt sha256 {m['prompt_sha256'][:16]}; {usd}; 429s {k['rate_limited']}, "
                f"5xx {k['server_errors']}, timeouts {k['timed_out']}, malformed {k['malformed']}, failed {k['failed_pairs']}")
        for u in m["by_source"]:
            c.print(f"  store {u['model']}@{u['prompt_sha256'][:12]}: {u['labelled']} labelled, {u['failed']} failed, "
                    f"tokens {u['prompt_tokens'] or 0:,} in, {u['completion_tokens'] or 0:,} out")


def write_pairs(path: str, topics: list[str], docs: list[str]) -> None:
    write_text(path, "".join(f"{t}\t{d}\n" for t, d in zip(topics, docs, strict=True)))


def write_qrels_rows(path: str, rows: list[tuple]) -> None:
    write_text(path, "".join(f"{t} 0 {d} {lab}\n" for t, d, lab, _ in rows))


# ---------------------------------------------------------------------------------- bias
def bias_doc(rep: BiasReport, depth: int, ties: str, profile: str, notes: list[str]) -> dict[str, Any]:
    measures = []
    for mi, m in enumerate(rep.measures):
        groups = []
        for g, name in enumerate(rep.groups):
            ri, pen = rep.largest_penalty(mi, g)
            swaps = [{"a": rep.runs[a], "b": rep.runs[b], "full_gap": float(rep.full[mi, a] - rep.full[mi, b]),
                      "reduced_gap": float(rep.reduced[mi, g, a] - rep.reduced[mi, g, b]),
                      "variant_reduced": rep.reduced_variant(mi, g),
                      "swap_probability": float(rep.swap_prob[mi, a, b]),
                      "within_noise": bool(rep.swap_prob[mi, a, b] >= rep.alpha)} for a, b in rep.swaps(mi, g)]
            groups.append({"group": name, "runs": [rep.runs[i] for i in rep.members(g)],
                           "unique_pairs": int(rep.unique_pairs[g]), "unique_judged": int(rep.unique_judged[g]),
                           "unique_relevant": int(rep.unique_relevant[g]),
                           "variant_reduced": rep.reduced_variant(mi, g), "qrels": rep.qrels_change(g).as_dict(),
                           "reduced": [{"run": r, "value": float(v), "variant": rep.reduced_variant(mi, g)}
                                       for r, v in zip(rep.runs, rep.reduced[mi, g], strict=True)],
                           "largest_penalty": {"run": rep.runs[ri], "full": float(rep.full[mi, ri]),
                                               "reduced": float(rep.reduced[mi, g, ri]), "penalty": pen,
                                               "variant_reduced": rep.reduced_variant(mi, g)},
                           "swaps": swaps})
        measures.append({"measure": str(m), "variant": rep.variants[mi],
                         "full": [{"run": r, "value": float(v)} for r, v in zip(rep.runs, rep.full[mi], strict=True)],
                         "groups": groups})
    return {"command": "pool bias", "pool": rep.pool_variant, "depth": depth, "ties": ties, "profile": profile,
            "rel": rep.rel, "alpha": rep.alpha, "trials": rep.trials, "seed": rep.seed,
            "bootstrap_topics": rep.bootstrap_topics, "judgments": rep.judgments, "measures": measures, "notes": notes}


def bias(doc: dict, out: TextIO) -> None:
    c = _console(out)
    c.print(_pool_head(doc, c.width))
    c.print(f"leave-one-group-out: each group's unique pool pairs removed (unjudged); swaps within noise: "
            f"bootstrap swap probability >= {doc['alpha']} ({doc['trials']} resamples, seed {doc['seed']})")
    c.print("penalties: full-qrels score minus the score against the qrels without the group "
            "(variant + |qrels=without(GROUP:-J/N): J of the N judgments removed)")
    for m in doc["measures"]:
        c.print("\n" + fold(f"{m['measure']} variant: ", m["variant"], c.width))
        t = _table("group", "runs", "unique", f"unique rel (rel>={doc['rel']})", "largest penalty", "of run", "swaps", "in noise")
        for g in m["groups"]:
            lp = g["largest_penalty"]
            noise = sum(s["within_noise"] for s in g["swaps"])
            t.add_row(g["group"], str(len(g["runs"])), f"{g['unique_pairs']:,}", f"{g['unique_relevant']:,}",
                      f"{lp['penalty']:.4f}", lp["run"], str(len(g["swaps"])), str(noise))
        c.print(t)
        for g in m["groups"]:
            for s in g["swaps"]:
                c.print(f"  without {g['group']}: {s['a']} vs {s['b']}: gap {s['full_gap']:+.4f} -> {s['reduced_gap']:+.4f}, "
                        f"swap probability {s['swap_probability']:.3f}{' (noise)' if s['within_noise'] else ''}")


# ---------------------------------------------------------------------------------- growth
def growth_doc(rep: GrowthReport, depth: int, ties: str, profile: str, notes: list[str]) -> dict[str, Any]:
    a, b, share, steps = rep.pairs()
    order = np.lexsort((np.abs(rep.final[a] - rep.final[b]), -share))
    fv = rep.final_variant()
    pairs = [{"a": rep.runs[a[i]], "b": rep.runs[b[i]], "final_gap": float(rep.final[a[i]] - rep.final[b[i]]),
              "variant": fv, "reversed_share": float(share[i]), "mean_reversed_steps": float(steps[i])} for i in order]
    on_qrels = [] if rep.qrels_final is None else [
        {"run": r, "value": float(v)} for r, v in zip(rep.runs, rep.qrels_final, strict=True)]
    return {"command": "pool growth", "pool": rep.pool_variant, "depth": depth, "ties": ties, "profile": profile,
            "measure": str(rep.measure), "variant": rep.variant, "orders": len(rep.orders), "seed": rep.seed,
            "method": rep.method, "variant_final": fv, "qrels": rep.qrels_change().as_dict(),
            "final": [{"run": r, "value": float(v), "variant": fv} for r, v in zip(rep.runs, rep.final, strict=True)],
            "qrels_final": on_qrels,
            "reversed_share_by_step": [float(x) for x in rep.reversed_share_by_step()],
            "pairs": pairs, "notes": notes}


def growth(doc: dict, out: TextIO) -> None:
    c = _console(out)
    c.print(_pool_head(doc, c.width))
    c.print(fold(f"{doc['measure']} variant: ", doc["variant"], c.width))
    c.print(f"{doc['orders']} random addition orders (seed {doc['seed']}); evaluation: {doc['method']}; final = all systems")
    c.print(fold("final gaps against the pool's qrels: ", doc["variant_final"], c.width))
    ever = sum(p["reversed_share"] > 0 for p in doc["pairs"])
    c.print(f"{ever} of {len(doc['pairs'])} pair(s) reverse order at some step in at least one order")
    t = _table("run a", "run b", "final gap", "orders reversing", "mean steps reversed")
    for p in doc["pairs"][: doc.get("top", 20)]:
        t.add_row(p["a"], p["b"], f"{p['final_gap']:+.4f}", f"{p['reversed_share']:.1%}", f"{p['mean_reversed_steps']:.2f}")
    c.print(t)
    c.print("\nshare of present pairs reversed, by step (mean over orders)")
    t = _table("systems", "reversed pairs")
    for i, x in enumerate(doc["reversed_share_by_step"]):
        t.add_row(str(i + 1), f"{x:.2%}")
    c.print(t)
