"""``auditeval pool SUBCOMMAND``: pools, coverage, the judgment store, the judge hook, bias, growth.

Every subcommand builds one JSON-able document (``--format json`` prints it) and a text view
of it (:mod:`auditeval.render.pool`, at most 100 columns). Pool figures carry the pool variant
(``pool|depth=K|...|ties=...``); measure values carry their variant strings.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

from auditeval.cli.common import (
    add_execution,
    add_measures,
    add_settings,
    int_at_least,
    one_measure,
    seconds_value,
    write_notes,
)
from auditeval.render.json_out import write_json
from auditeval.vocab.conventions import DEFAULT_PROFILE
from auditeval.vocab.errors import InputError


def _common(p: argparse.ArgumentParser, runs: bool = True, depth: bool = True, profile: bool = True) -> None:
    if runs:
        p.add_argument("runs", nargs="+", metavar="RUN", help="run files (plain or .gz)")
    if depth:
        p.add_argument("--depth", type=_positive, default=100, metavar="K", help="pool depth per topic (default 100)")
    if profile:
        p.add_argument("--profile", default=DEFAULT_PROFILE, help=f"convention profile (default {DEFAULT_PROFILE}); its tie rule ranks the pools")
        add_settings(p)
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")


_positive = int_at_least(1, "needs a positive integer, got {text}", "needs a positive integer, got '{text}'")


def pool_parser(p: argparse.ArgumentParser) -> None:  # long: eight subcommands' options, declarations only
    sub = p.add_subparsers(dest="action", required=True, metavar="SUBCOMMAND")
    s = sub.add_parser("stats", help="depth-k pool sizes, judging cost, reuse rate, marginal cost per system")
    _common(s)
    s.add_argument("--orders", type=_positive, default=500, help="random addition orders for marginal cost (default 500)")
    s.add_argument("--seed", type=int, default=0, help="seed of the random addition orders (default 0)")
    s.add_argument("--per-topic", action="store_true", help="list pool size per topic in the text view")
    s.add_argument("--plot", metavar="FILE", help="pool-size curve and marginal costs (.png or .svg; needs matplotlib)")
    c = sub.add_parser("coverage", help="judged@k per run, unjudged pairs in each top k, pairs left to judge")
    c.add_argument("qrels", help="qrels file: the judged pairs")
    _common(c)
    c.add_argument("--todo", metavar="FILE", help="write the pairs left to judge (topic<TAB>doc lines)")
    t = sub.add_parser("todo", help="pairs a set of runs still needs judged at depth k (not in the store)")
    t.add_argument("--store", required=True, metavar="FILE", help="the judgment store (SQLite file)")
    _common(t)
    t.add_argument("--qrels", help="also count these qrels as judged")
    t.add_argument("-o", "--output", metavar="FILE", help="write there instead of stdout")
    a = sub.add_parser("add", help="import labels (TREC qrels or JSONL) into the store, one transaction per batch")
    a.add_argument("--store", required=True, metavar="FILE", help="the judgment store (SQLite file; created if absent)")
    a.add_argument("inputs", nargs="+", metavar="FILE", help="label files: TREC qrels or JSONL")
    a.add_argument("--source", default="human", help="who labelled (default human); JSONL lines may name their own")
    a.add_argument("--input-format", choices=("auto", "trec", "jsonl"), default="auto",
                   help="format of the label files (default auto: detected)")
    a.add_argument("--batch-size", type=_positive, default=10_000, help="lines per transaction (default 10000)")
    a.add_argument("--revise", action="store_true", help="replace stored labels that differ (history kept)")
    a.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    q = sub.add_parser("qrels", help="export the store as TREC qrels")
    q.add_argument("--store", required=True, metavar="FILE", help="the judgment store (SQLite file)")
    q.add_argument("--source", action="append", dest="sources", metavar="SOURCE", help="only labels from this source; repeatable")
    q.add_argument("-o", "--output", metavar="FILE", help="write there instead of stdout")
    q.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    j = sub.add_parser(
        "judge", help="label the todo pairs with a judge MODULE:CALLABLE, straight into the store",
        description="CALLABLE(pairs) gets a list of (topic, doc) tuples and returns their integer labels, or "
        "{'labels': [...], 'input_tokens': n, 'output_tokens': m}. With --judge-arg the callable is a factory "
        "called once with those keyword strings. Each answered batch is stored at once; rerunning resumes. "
        "Simulated judge: --judge auditeval.pooling.judge:simulated --judge-arg qrels=FILE "
        "[--judge-arg error=0.1 --judge-arg seed=0]. "
        "An OpenAI-compatible chat completions server (vLLM, llama.cpp, Ollama, hosted): --judge openai "
        "--judge-arg model=NAME --judge-arg base_url=http://HOST:PORT/v1 --topics FILE --docs FILE "
        "[--judge-arg key_env=NAME (default OPENAI_API_KEY; the key is read from there, never stored or printed)] "
        "[--judge-arg price_in=USD_PER_1M --judge-arg price_out=USD_PER_1M] [--judge-arg seed=0 (back-off jitter)] "
        "[--judge-arg temperature=0] [--judge-arg max_tokens=N]; one request per pair, the default prompt is "
        "UMBRELA's 0-3 prompt (--prompt FILE replaces it), the grade must be '##final score: N' with N in 0-3.")
    j.add_argument("--judge", required=True, metavar="MODULE:CALLABLE",
                   help="the judge: a callable, imported; or 'openai' (a chat completions server)")
    j.add_argument("--judge-arg", action="append", default=[], metavar="KEY=VALUE", help="build the judge as CALLABLE(KEY=VALUE, ...)")
    j.add_argument("--store", required=True, metavar="FILE", help="the judgment store (SQLite file; created if absent)")
    _common(j)
    j.add_argument("--source", help="label source stored (default: the judge's 'source' attribute or MODULE:CALLABLE)")
    j.add_argument("--batch-size", type=_positive, default=None,
                   help="pairs per judge call (default 20; --judge openai sends one pair per request)")
    j.add_argument("--topics", metavar="FILE", help="--judge openai: the query texts, qid<TAB>text lines (TREC topics TSV)")
    j.add_argument("--docs", metavar="FILE",
                   help="--judge openai: the passage texts, docid<TAB>text lines or JSONL with id/docid and text/contents")
    j.add_argument("--prompt", metavar="FILE",
                   help="--judge openai: the prompt template, with {query} and {passage} (default: UMBRELA's)")
    j.add_argument("--retry-failed", action="store_true",
                   help="--judge openai: send again the pairs recorded as failed (no grade) by this model and prompt")
    j.add_argument("--workers", type=_positive, default=4, help="concurrent judge calls (default 4)")
    j.add_argument("--retries", type=int, default=4, help="retries per batch (default 4)")
    j.add_argument("--backoff", type=float, default=1.0, help="first retry delay in seconds, doubled each time (default 1)")
    j.add_argument("--timeout", type=seconds_value, default=600.0, metavar="SECONDS",
                   help="give up on a judge call after this long (a failed attempt, retried; default 600)")
    b = sub.add_parser("bias", help="leave-one-group-out pool bias: penalties, ranking swaps, unique relevant")
    b.add_argument("qrels", help="qrels file of the full pool")
    _common(b)
    b.add_argument("--groups", metavar="FILE", help="run,group lines (default: one group per run)")
    add_measures(b, ["AP"])
    b.add_argument("--trials", type=_positive, default=1000, help="bootstrap resamples (default 1000)")
    b.add_argument("--seed", type=int, default=0, help="seed of the bootstrap resamples (default 0)")
    b.add_argument("--alpha", type=float, default=0.05, help="swap probability at or above which a swap is noise (default 0.05)")
    add_execution(b, "run and measure")
    g = sub.add_parser("growth", help="pool-growth stability over random system-addition orders")
    g.add_argument("qrels", help="qrels file of the full pool")
    _common(g)
    g.add_argument("-m", "--measure", default="AP", type=one_measure, help="the one measure whose run order is followed (default AP)")
    g.add_argument("--orders", type=_positive, default=500, help="random orders (default 500)")
    g.add_argument("--seed", type=int, default=0, help="seed of the random orders (default 0)")
    g.add_argument("--top", type=_positive, default=20, help="pairs shown in the text view (default 20)")
    g.add_argument("--plot", metavar="FILE", help="reversals by step and by final gap (.png or .svg; needs matplotlib)")
    add_execution(g, "block of 64 orders")


def load_runs(paths: Sequence[str]) -> tuple[list, list[str]]:
    """Read runs; colliding tags are labelled by the one rule (:mod:`auditeval.io.run_labels`), noted."""
    from auditeval.io import run_from
    from auditeval.io.run_labels import relabel

    read = [run_from(p) for p in paths]
    runs, label_notes = relabel(read)
    return runs, [n for r in read for n in r.notes] + label_notes


def cmd_pool(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.render import pool as report

    doc, code = _ACTIONS[args.action](args, err)
    if "notes" in doc:  # a run's reading note also reaches the pools built from it: once
        doc["notes"] = list(dict.fromkeys(doc["notes"]))
    if args.format == "json":
        write_json(out, doc, indent=1)
    else:
        if args.action == "stats":
            report.stats(doc, out, per_topic=args.per_topic)
        else:
            getattr(report, args.action)(doc, out)
        write_notes(err, doc.get("notes", []))
    return code


def _conv(args):
    from auditeval.vocab.conventions import resolve

    return resolve(args.profile, args.settings)


def _stats(args, err) -> tuple[dict, int]:
    from auditeval.pooling.pools import build_pools
    from auditeval.render.pool import stats_doc

    runs, notes = load_runs(args.runs)
    pools = build_pools(runs, args.depth, _conv(args))
    doc = stats_doc(pools, args.orders, args.seed, args.profile, notes + pools.notes)
    if args.plot:
        from auditeval.render.pool_plots import plot_stats

        plot_stats(doc, args.plot)
        doc["plot"] = args.plot
    return doc, 0


def _coverage(args, err) -> tuple[dict, int]:
    from auditeval.io import qrels_from
    from auditeval.pooling.coverage import pool_coverage
    from auditeval.render.pool import coverage_doc, write_pairs

    qrels = qrels_from(args.qrels)
    runs, notes = load_runs(args.runs)
    cov = pool_coverage(qrels, runs, args.depth, _conv(args))
    if args.todo:
        write_pairs(args.todo, *cov.todo)
    return coverage_doc(cov, _conv(args).ties, args.profile, list(qrels.notes) + notes), 0


def _todo_pairs(args, store) -> tuple[list[str], list[str], dict, list[str]]:
    from auditeval.io import qrels_from
    from auditeval.pooling.coverage import judged_keys, todo_pairs
    from auditeval.pooling.pools import build_pools

    conv = _conv(args)
    runs, notes = load_runs(args.runs)
    qrels = qrels_from(args.qrels) if getattr(args, "qrels", None) else None
    stored = store.pairs()
    pools = build_pools(runs, args.depth, conv, qrels)  # stored docs outside the pool cannot matter
    topics, docs = todo_pairs(pools, judged_keys(pools, qrels, conv, [stored]))
    info = {"pool": pools.variant, "depth": args.depth, "ties": conv.ties, "profile": args.profile,
            "pool_pairs": pools.pooled, "stored": len(stored[0]), "todo": len(topics)}
    return topics, docs, info, notes + pools.notes


def _todo(args, err) -> tuple[dict, int]:
    from auditeval.pooling.store import JudgmentStore
    from auditeval.render.pool import write_pairs

    with JudgmentStore(args.store) as store:
        topics, docs, info, notes = _todo_pairs(args, store)
    doc = {"command": "pool todo", **info, "notes": notes}
    if args.output:
        write_pairs(args.output, topics, docs)
        doc["output"] = args.output
    else:
        doc["pairs"] = [{"topic": t, "doc": d} for t, d in zip(topics, docs, strict=True)]
    return doc, 0


def _add(args, err) -> tuple[dict, int]:
    from auditeval.pooling.store import JudgmentStore, read_labels

    parsed = [(path, *read_labels(path, args.source, args.input_format)) for path in args.inputs]  # all validated first
    files, notes = [], []
    with JudgmentStore(args.store, create=True) as store:
        for path, labels, file_notes in parsed:
            notes.extend(file_notes)
            results = store.add_batches(labels, f"pool add {path}", args.batch_size, args.revise)
            files.append({"input": str(path), "lines": len(labels), "batches": [r.batch for r in results],
                          **{k: sum(getattr(r, k) for r in results) for k in ("added", "same", "kept", "revised")}})
            kept = files[-1]["kept"]
            if kept:
                notes.append(f"{path}: {kept} pair(s) already labelled differently kept their stored label "
                             "(labels are frozen; --revise replaces them, keeping history)")
    return {"command": "pool add", "store": args.store, "files": files, "notes": notes}, 0


def _qrels(args, err) -> tuple[dict, int]:
    from auditeval.pooling.store import JudgmentStore
    from auditeval.render.pool import write_qrels_rows

    with JudgmentStore(args.store) as store:
        rows = store.labels(args.sources)
        sources = store.sources()
    rows.sort(key=lambda r: (r[0].encode("utf-8"), r[1].encode("utf-8")))
    doc: dict[str, Any] = {"command": "pool qrels", "store": args.store, "sources": args.sources or [s for s, _ in sources],
                           "labels": len(rows), "notes": []}
    if args.sources:
        unknown = sorted(set(args.sources) - {s for s, _ in sources})
        if unknown:
            doc["notes"].append(f"{args.store}: no labels from source(s) {', '.join(unknown)}")
    if args.output:
        write_qrels_rows(args.output, rows)
        doc["output"] = args.output
    else:
        doc["qrels"] = [{"topic": t, "doc": d, "label": lab, "source": s} for t, d, lab, s in rows]
    return doc, 0


def _judge(args, err) -> tuple[dict, int]:
    from auditeval.pooling.judge import JudgeError, JudgeOptions, load_judge, run_judge
    from auditeval.pooling.store import JudgmentStore

    kwargs = {}
    for kv in args.judge_arg:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise JudgeError(f"--judge-arg needs KEY=VALUE, got {kv!r}")
        kwargs[k] = v
    if args.judge == "openai":
        return _judge_openai(args, kwargs, err)
    for opt in ("topics", "docs", "prompt"):
        if getattr(args, opt):
            raise JudgeError(f"--{opt} is for --judge openai; a MODULE:CALLABLE judge gets (topic, doc) pairs only")
    if args.retry_failed:
        raise JudgeError("--retry-failed is for --judge openai")
    if args.batch_size is None:
        args.batch_size = 20
    judge = load_judge(args.judge, kwargs)
    source = args.source or str(getattr(judge, "source", args.judge))
    with JudgmentStore(args.store, create=True) as store:
        topics, docs, info, notes = _todo_pairs(args, store)
        tty = err if hasattr(err, "isatty") and err.isatty() else None
        options = JudgeOptions(batch_size=args.batch_size, workers=args.workers, retries=args.retries,
                               backoff=args.backoff, progress=tty, timeout=args.timeout)
        cost = run_judge(store, topics, docs, judge, source, f"pool judge {args.judge}", options)
    doc = {"command": "pool judge", "judge": args.judge, "source": source, **info, "cost": cost.as_dict(), "notes": notes}
    done = f"{cost.pairs_judged} of {cost.pairs_todo} pair(s) judged and stored"
    resume = "rerun the same command to resume (stored pairs are never judged again)"
    if cost.interrupted:
        doc["notes"].append(f"interrupted (Ctrl-C): nothing more sent or retried, {cost.abandoned} call(s) in flight "
                            f"abandoned; {done}; {resume}")
        return doc, 130
    if cost.failed_batches:
        doc["notes"].append(f"stopped: {cost.failed_batches} batch(es) failed after {args.retries} retries each "
                            f"({cost.errors[0]}); {done}; {resume}")
        return doc, 1
    return doc, 0


def _judge_openai(args, kwargs: dict[str, str], err) -> tuple[dict, int]:
    """``--judge openai``: :mod:`auditeval.pooling.llm_judge`, one request per pair."""
    import os

    from auditeval.io.files import read_text
    from auditeval.pooling import llm_judge as lj
    from auditeval.pooling.judge import JudgeError, JudgeOptions
    from auditeval.pooling.store import SCHEMA_VERSION, JudgmentStore

    config = lj.OpenAIConfig.from_args(kwargs)
    if not args.topics or not args.docs:
        raise JudgeError("--judge openai needs the texts: --topics FILE (qid<TAB>text) and --docs FILE "
                         "(docid<TAB>text or JSONL)")
    notes: list[str] = []
    key = os.environ.get(config.key_env) or None
    if key is None:
        if config.key_env_given:
            raise JudgeError(f"--judge openai: the environment variable {config.key_env} (key_env) is unset or empty")
        notes.append(f"${config.key_env} is unset: requests are sent without an Authorization header")
    if args.prompt:
        template = lj.check_prompt(read_text(args.prompt, allow_empty=False), args.prompt)
        prompt_name = args.prompt
    else:
        template, prompt_name = lj.UMBRELA_PROMPT, lj.UMBRELA_SOURCE
    sha = lj.prompt_sha256(template)
    texts = (lj.read_topics(args.topics), lj.read_docs(args.docs))
    if args.batch_size not in (None, 1):
        notes.append(f"--batch-size {args.batch_size} ignored: --judge openai sends one pair per request")
    source = args.source or f"{config.model}@prompt:{sha[:12]}"
    with JudgmentStore(args.store, create=True) as store:
        if store.migrated_from is not None:
            notes.append(f"{args.store}: judgment store migrated from schema {store.migrated_from} to "
                         f"{SCHEMA_VERSION} (batches.model, batches.prompt_sha256, table llm_judgments added)")
        topics, docs, info, todo_notes = _todo_pairs(args, store)
        notes += todo_notes
        missing = [(t, d) for t, d in zip(topics, docs, strict=True) if t not in texts[0] or d not in texts[1]]
        if missing:
            t_miss = sorted({t for t, _ in missing if t not in texts[0]})
            d_miss = sorted({d for _, d in missing if d not in texts[1]})
            notes.append(f"{len(missing)} pair(s) not sent: no text for topic(s) {_few(t_miss)} in {args.topics}"
                         f" / document(s) {_few(d_miss)} in {args.docs}")
        tty = err if hasattr(err, "isatty") and err.isatty() else None
        options = JudgeOptions(workers=args.workers, retries=args.retries,
                               backoff=args.backoff if args.backoff >= 0 else 0.0, timeout=args.timeout,
                               retry_failed=args.retry_failed, progress=tty)
        cost = lj.run_llm_judge(store, topics, docs, config, lj.Prompt(template, prompt_name), texts, source,
                                f"pool judge openai {config.model}", options, key=key)
        usage = lj.usage_by_source(store, config, sha)
    doc = {"command": "pool judge", "judge": "openai", "source": source, **info, "cost": cost.as_dict(),
           "llm": {"model": config.model, "base_url": config.base_url, "key_env": config.key_env,
                   "prompt": prompt_name, "prompt_sha256": sha, "price_in": config.price_in,
                   "price_out": config.price_out, "prompt_tokens": cost.input_tokens,
                   "completion_tokens": cost.output_tokens, "cost_usd": cost.cost_usd, "by_source": usage},
           "notes": notes}
    done = f"{cost.pairs_judged} of {cost.pairs_todo} pair(s) judged and stored"
    resume = "rerun the same command to resume (stored pairs are never sent again)"
    if cost.skipped_failed:
        notes.append(f"{cost.skipped_failed} pair(s) recorded as failed by this model and prompt before: not sent "
                     "again (--retry-failed sends them)")
    if cost.failed_pairs:
        f0 = cost.failures[0]
        notes.append(f"{cost.failed_pairs} pair(s) recorded as failed: no grade in 0-3 after {args.retries} "
                     f"retries (first: topic {f0['topic']!r} doc {f0['doc']!r}: {f0['reason']}; reply "
                     f"{f0['reply']!r}); they hold no label")
    if cost.conflicting_pairs:
        first = next((f for f in cost.failures if lj.DISAGREE in (f["reason"] or "")), None)
        notes.append(f"{cost.conflicting_pairs} of the failed pair(s): the reply's choices gave different grades, "
                     "so no grade was taken (not the first choice)"
                     + (f"; first: topic {first['topic']!r} doc {first['doc']!r}: {first['reason']}" if first else ""))
    if cost.interrupted:
        notes.append(f"interrupted (Ctrl-C): nothing more sent or retried, {cost.abandoned} request(s) in flight "
                     f"abandoned; {done}; {resume}")
        return doc, 130
    if cost.unsent_pairs:
        notes.append(f"stopped: {cost.unsent_pairs} pair(s) got no answer ({cost.errors[0]}); {cost.left} pair(s) "
                     f"not sent; {done}; {resume}")
        return doc, 1
    return doc, 1 if cost.failed_pairs else 0


def _few(items: Sequence[str], n: int = 5) -> str:
    if not items:
        return "none"
    return ", ".join(repr(x) for x in items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")


def _measures(names: Sequence[str] | None, default: str) -> list:
    """Parsed measures; each must have a numeric aggregate (scores are compared across runs)."""
    from auditeval.vocab.errors import EvaluationError
    from auditeval.vocab.specs import SPECS
    from auditeval.vocab.variant import parse_measure

    out = [parse_measure(m) for m in (names or [default])]
    for m in out:
        if SPECS[m.name].agg == "none" or SPECS[m.name].fmt == "str":
            raise EvaluationError(f"{m} has no aggregate score to compare runs by; choose a numeric measure")
    return out


def _bias(args, err) -> tuple[dict, int]:
    from auditeval.cli.common import backend
    from auditeval.io import qrels_from
    from auditeval.pooling.bias import pool_bias, read_groups
    from auditeval.render.pool import bias_doc

    qrels = qrels_from(args.qrels)
    runs, notes = load_runs(args.runs)
    groups = None
    if args.groups:
        groups, gnotes = read_groups(args.groups, [r.name for r in runs])
        notes += gnotes
    if not 0.0 < args.alpha < 1.0:
        raise InputError("--alpha", None, f"must lie in (0, 1), got {args.alpha}")
    with backend(args, None, err) as be:
        rep = pool_bias(qrels, runs, args.depth, _conv(args), _measures(args.measures, "AP"), groups, args.trials,
                        args.seed, args.alpha, backend=be)
    return bias_doc(rep, args.depth, _conv(args).ties, args.profile, list(qrels.notes) + notes + rep.notes), 0


def _growth(args, err) -> tuple[dict, int]:
    from auditeval.cli.common import backend
    from auditeval.io import qrels_from
    from auditeval.pooling.growth import pool_growth
    from auditeval.render.pool import growth_doc

    qrels = qrels_from(args.qrels)
    runs, notes = load_runs(args.runs)
    with backend(args, -(-args.orders // 64), err) as be:
        rep = pool_growth(qrels, runs, args.depth, _conv(args), _measures([args.measure], "AP")[0], args.orders,
                          args.seed, backend=be)
    doc = growth_doc(rep, args.depth, _conv(args).ties, args.profile, list(qrels.notes) + notes + rep.notes)
    doc["top"] = args.top
    if args.plot:
        from auditeval.render.pool_plots import plot_growth

        plot_growth(doc, args.plot)
        doc["plot"] = args.plot
    return doc, 0


_ACTIONS = {"stats": _stats, "coverage": _coverage, "todo": _todo, "add": _add, "qrels": _qrels,
            "judge": _judge, "bias": _bias, "growth": _growth}

