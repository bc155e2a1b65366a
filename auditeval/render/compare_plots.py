"""Plots of a comparison (matplotlib, Agg backend): rank intervals and per-topic differences.

One row per measure: on the left every run's bootstrap rank interval (line) and observed
rank (dot), best rank at the top; on the right each run's per-topic differences to the
reference run (the baseline, else the top-ranked run), sorted in decreasing order, so the
share of topics above and below zero is read at a glance. The file type follows the suffix
(``.png`` or ``.svg``).
"""

from __future__ import annotations

from pathlib import Path

from auditeval.vocab.errors import AuditEvalError

FORMATS = (".png", ".svg")


def plot(measures: list[dict], path: str | Path) -> None:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise AuditEvalError(f"{path}: --plot writes .png or .svg, not {path.suffix or 'no suffix'!r}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n_runs = len(measures[0]["runs"])
    row_h = max(2.6, 0.28 * n_runs + 1.2)
    fig, axes = plt.subplots(len(measures), 2, figsize=(11, row_h * len(measures)), squeeze=False,
                             gridspec_kw={"width_ratios": [1, 1.3]})
    cmap = plt.get_cmap("tab20")
    for (ax_r, ax_d), m in zip(axes, measures, strict=True):
        systems = sorted(m["systems"], key=lambda s: (s["rank"], s["run"]))
        y = range(len(systems))
        for k, s in zip(y, systems, strict=True):
            lo, hi = s["rank_interval"]
            ax_r.plot([lo, hi], [k, k], color="tab:blue", lw=3, alpha=0.6, solid_capstyle="round")
            ax_r.plot([s["rank"]], [k], "o", color="black", ms=4)
        ax_r.set_yticks(list(y), [s["run"] for s in systems], fontsize=8)
        ax_r.invert_yaxis()
        ax_r.set_xlim(0.5, n_runs + 0.5)
        ax_r.set_xticks(range(1, n_runs + 1))
        ax_r.grid(axis="x", alpha=0.3)
        b = m["bootstrap"]
        ax_r.set_xlabel(f"rank ({100 * b['level']:g}% interval, {b['trials']} resamples, seed {b['seed']})",
                        fontsize=8)
        ax_r.set_title(f"{m['measure']}: rank intervals ({m['topics']} topics)", fontsize=10, loc="left")
        td = m["topic_diffs"]
        for k, (run, diffs) in enumerate(td["sorted"].items()):
            ax_d.plot(range(1, len(diffs) + 1), diffs, lw=1.2, color=cmap(k % 20), label=run)
        ax_d.axhline(0, color="black", lw=0.8)
        ax_d.set_xlabel("topics, sorted by difference", fontsize=8)
        ax_d.set_ylabel(f"{m['measure']} minus {td['reference']}", fontsize=8)
        ax_d.set_title(f"per-topic differences to {td['reference']}", fontsize=10, loc="left")
        ax_d.grid(alpha=0.3)
        if td["sorted"]:
            ax_d.legend(fontsize=6, ncol=2, loc="upper right", frameon=False)
    variants = "\n".join(f"{m['measure']}: {m['variant']}" for m in measures)
    fig.text(0.01, 0.002, variants, fontsize=6, va="bottom", family="monospace")
    fig.tight_layout(rect=(0, 0.012 * len(measures) + 0.01, 1, 1))
    from auditeval.io.files import save_figure

    save_figure(fig, path, dpi=110)  # atomic; OutputError on a bad folder
    plt.close(fig)
