"""Plots for ``pool stats --plot`` and ``pool growth --plot`` (matplotlib, Agg backend).

* stats: pool size as systems are added (the given order; mean, +-1 sd band and min-max
  range over the random orders) beside the unpooled cost line, and each system's marginal
  cost (mean over orders with its min-max range, the given-order value as a dot);
* growth: share of present pairs reversed at each step, and each pair's share of orders
  that reverse it at some step against its final gap.

The pool variant (and for growth the measure's variant) is printed under the figure. The
file type follows the suffix (``.png`` or ``.svg``).
"""

from __future__ import annotations

from pathlib import Path

from auditeval.io.files import save_figure
from auditeval.vocab.errors import AuditEvalError

FORMATS = (".png", ".svg")


def _pyplot(path: Path):
    if path.suffix.lower() not in FORMATS:
        raise AuditEvalError(f"{path}: --plot writes .png or .svg, not {path.suffix or 'no suffix'!r}")
    try:
        import matplotlib
    except ImportError:
        raise AuditEvalError("--plot needs matplotlib (pip install matplotlib)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_stats(doc: dict, path: str | Path) -> None:
    path = Path(path)
    plt = _pyplot(path)
    m = doc["marginal"]
    curve, systems = m["curve"], m["systems"]
    x = [c["systems"] for c in curve]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1, 1.2]})
    ax.fill_between(x, [c["min"] for c in curve], [c["max"] for c in curve], color="tab:blue", alpha=0.12,
                    label="min-max over orders")
    ax.fill_between(x, [c["mean"] - c["sd"] for c in curve], [c["mean"] + c["sd"] for c in curve], color="tab:blue",
                    alpha=0.25, label="mean +- sd")
    ax.plot(x, [c["mean"] for c in curve], color="tab:blue", lw=1.5, label=f"mean of {m['orders']} random orders")
    ax.plot(x, [c["given_order"] for c in curve], "o-", color="black", ms=3, lw=1, label="given order")
    unpooled = [sum(s["contributed"] for s in systems[:k]) for k in x]
    ax.plot(x, unpooled, "--", color="gray", lw=1, label="unpooled, given order")
    ax.set_xlabel("systems in the pool")
    ax.set_ylabel("pairs to judge")
    ax.set_title(f"pool size (reuse {doc['reuse']:.1%} with all {len(systems)})", fontsize=10, loc="left")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, frameon=False)
    order = sorted(range(len(systems)), key=lambda i: -systems[i]["mean"])
    for k, i in enumerate(order):
        s = systems[i]
        bx.plot([s["min"], s["max"]], [k, k], color="tab:orange", lw=3, alpha=0.5, solid_capstyle="round")
        bx.plot([s["mean"]], [k], "|", color="tab:red", ms=10, mew=2)
        bx.plot([s["given_order"]], [k], "o", color="black", ms=3)
    bx.set_yticks(range(len(order)), [systems[i]["run"] for i in order], fontsize=7)
    bx.invert_yaxis()
    bx.set_xlabel("new pairs the system adds (range over orders; bar: mean; dot: given order)", fontsize=8)
    bx.set_title("marginal cost", fontsize=10, loc="left")
    bx.grid(axis="x", alpha=0.3)
    fig.text(0.01, 0.005, doc["pool"], fontsize=6, family="monospace")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    save_figure(fig, path)  # atomic; OutputError on a bad folder
    plt.close(fig)


def plot_growth(doc: dict, path: str | Path) -> None:
    path = Path(path)
    plt = _pyplot(path)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    share = doc["reversed_share_by_step"]
    ax.plot(range(1, len(share) + 1), share, "o-", color="tab:blue", ms=3)
    ax.set_xlabel("systems in the pool")
    ax.set_ylabel("share of present pairs reversed")
    ax.set_title(f"{doc['measure']}: order vs final, mean over {doc['orders']} orders", fontsize=10, loc="left")
    ax.grid(alpha=0.3)
    gaps = [abs(p["final_gap"]) for p in doc["pairs"]]
    rev = [p["reversed_share"] for p in doc["pairs"]]
    bx.scatter(gaps, rev, s=12, color="tab:red", alpha=0.7)
    bx.set_xlabel(f"|final {doc['measure']} gap|")
    bx.set_ylabel("share of orders reversing the pair")
    bx.set_title("pairs", fontsize=10, loc="left")
    bx.grid(alpha=0.3)
    fig.text(0.01, 0.005, f"{doc['pool']}\n{doc['variant']}", fontsize=6, family="monospace")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_figure(fig, path)  # atomic; OutputError on a bad folder
    plt.close(fig)
