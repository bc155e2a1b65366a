"""Plot of a reproduction (matplotlib, Agg backend).

Top row: per-topic KTU and RBO, topics sorted by value (how many topics reproduce the order
and where it breaks). One panel per measure below: each topic's original score (x) against
its reproduced score (y) with the diagonal, so topics off the line stand out; the panel
title carries the RMSE and nRMSE. Replicability (qrels B): no document order and no topic
pairs; one panel per measure with each run's per-topic scores sorted (the original on qrels A,
the replication on qrels B), the title carrying the unpaired t-test's p-value and the axis
label ``qrels=A+B``. Every panel names its variant string under the axis. ``.png`` or ``.svg``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from auditeval.verify.reproduce import Reproduction
from auditeval.vocab.errors import AuditEvalError

FORMATS = (".png", ".svg")


def _wrap(variant: str, width: int = 64) -> str:
    """A variant string as an axis label: lines of ``width`` characters broken after ``|``."""
    from auditeval.render.textgrid import wrap_variant

    return "\n".join(wrap_variant(variant, width, indent=0))


def plot_reproduction(res: Reproduction, path: str | Path) -> None:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise AuditEvalError(f"{path}: --plot writes .png or .svg, not {path.suffix or 'no suffix'!r}")
    try:
        import matplotlib
    except ImportError:
        raise AuditEvalError("--plot needs matplotlib: pip install matplotlib") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if res.mode == "replicability":
        _plot_replication(res, path, plt)
        return
    labels = list(res.scores)
    cols = max(2, min(3, len(labels)))
    rows = 1 + -(-len(labels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.6 * rows), squeeze=False)
    for ax, stat in zip(axes[0], ("KTU", "RBO"), strict=False):
        vals = np.sort([v.value for v in res.values if v.statistic == stat and v.topic != "all"])[::-1]
        ax.plot(np.arange(1, len(vals) + 1), vals, ".", ms=4)
        overall = res.get(stat).value
        ax.axhline(overall, color="grey", lw=0.8, ls="--")
        ax.set_title(f"{stat} per topic (mean {overall:.4f})", fontsize=9)
        ax.set_xlabel("topics, sorted\n" + _wrap(res.get(stat).variant), fontsize=6)
        ax.set_ylim(min(-0.05, float(vals.min()) - 0.05) if len(vals) else 0, 1.05)
    for ax in axes[0][2:]:
        ax.axis("off")
    flat = [ax for row in axes[1:] for ax in row]
    for ax, label in zip(flat, labels, strict=False):
        _topics, x, y = res.scores[label]
        lim = (min(0.0, float(np.min(x)), float(np.min(y))), max(1.0, float(np.max(x)), float(np.max(y))))
        ax.plot(lim, lim, color="grey", lw=0.8)
        ax.plot(x, y, ".", ms=4, alpha=0.7)
        ax.set_title(f"{label}: RMSE {res.get('RMSE', label).value:.4f}, "
                     f"nRMSE {res.get('nRMSE', label).value:.4f}", fontsize=9)
        ax.set_xlabel("original\n" + _wrap(res.get("RMSE", label).variant), fontsize=6)
        ax.set_ylabel("reproduced", fontsize=8)
        ax.set_xlim(*lim)
        ax.set_ylim(*lim)
    for ax in flat[len(labels):]:
        ax.axis("off")
    fig.tight_layout()
    from auditeval.io.files import save_figure

    save_figure(fig, path)  # atomic; OutputError on a bad folder
    plt.close(fig)


def _plot_replication(res: Reproduction, path: Path, plt) -> None:
    labels = list(res.unpaired)
    cols = max(1, min(3, len(labels)))
    rows = max(1, -(-len(labels) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.6 * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, label in zip(flat, labels, strict=False):
        (_ta, x), (_tb, y) = res.unpaired[label]
        for vals, name in ((x, f"original, qrels A ({len(x)} topics)"), (y, f"replicated, qrels B ({len(y)} topics)")):
            ax.plot(np.linspace(0, 1, len(vals)), np.sort(vals)[::-1], ".-", ms=3, lw=0.6, label=name)
        p = res.get("p_value", label)
        ax.set_title(f"{label}: unpaired t-test p {p.value:.4g}", fontsize=9)
        ax.set_xlabel(f"topics, sorted (fraction); qrels={p.qrels}\n" + _wrap(p.variant), fontsize=6)
        ax.set_ylabel("score", fontsize=8)
        ax.legend(fontsize=6)
    for ax in flat[len(labels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
