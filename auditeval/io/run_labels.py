"""The one rule for labelling runs whose tags collide, used by every command and by the API.

A run's label is the name its values are reported under. Rule (:func:`run_labels`):

1. A run tag carried by one run only is that run's label.
2. Runs that share a tag and were read from a file are labelled by the file's name (its last
   path component, ``bm25.txt``); when two of them share the file name too, by the path as
   given (``a/bm25.txt``, ``b/bm25.txt``).
3. Runs that share a tag and come from no file (a dict, a DataFrame, standard input: the
   source is ``<dict>``, ``<DataFrame>``, ``<stdin>``) keep the tag for the first of them and
   take ``tag#2``, ``tag#3``, ... for the next, in the order given.
4. A label that is still taken (by another run's tag, or by an earlier label) gets ``#2``,
   ``#3``, ... appended until it is unique.

Every relabelling is a note (:func:`label_notes`): never a silent rename.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from auditeval.vocab.model import Run


def from_file(source: str) -> bool:
    """True when ``source`` (a run's ``source``) names a file, not ``<dict>``/``<stdin>``/``irds:``."""
    return bool(source) and not source.startswith(("<", "irds:"))


def run_labels(runs: Sequence[Run]) -> list[str]:
    """One unique label per run, in order, by the rule in the module docstring."""
    tags = Counter(r.name for r in runs)
    clash = {t for t, n in tags.items() if n > 1}
    base_names = Counter(os.path.basename(r.source) for r in runs if r.name in clash and from_file(r.source))
    wanted: list[str] = []
    in_memory: Counter[str] = Counter()
    for r in runs:
        if r.name not in clash:
            wanted.append(r.name)
        elif from_file(r.source):
            name = os.path.basename(r.source)
            wanted.append(name if base_names[name] == 1 else r.source)
        else:
            in_memory[r.name] += 1
            k = in_memory[r.name]
            wanted.append(r.name if k == 1 else f"{r.name}#{k}")
    out: list[str] = []
    taken = Counter(wanted)
    used: set[str] = set()
    for label in wanted:
        if taken[label] > 1 or label in used:
            k = 2 if label in used else 1
            unique = label if k == 1 else f"{label}#{k}"
            while unique in used or (unique != label and unique in taken):
                k += 1
                unique = f"{label}#{k}"
            label = unique
        used.add(label)
        out.append(label)
    return out


def label_notes(runs: Sequence[Run], labels: Sequence[str]) -> list[str | None]:
    """Per run, the note saying how it was labelled, or None when it kept its tag alone.

    Runs read from files that share a tag: one note naming every label, on the last of them;
    a run from no file renamed ``tag#k``, or a run renamed by rule 4: a note of its own."""
    tags = Counter(r.name for r in runs)
    out: list[str | None] = [None] * len(runs)
    for t in sorted((t for t, n in tags.items() if n > 1), key=lambda s: s.encode("utf-8")):
        group = [k for k, r in enumerate(runs) if r.name == t]
        files = [k for k in group if from_file(runs[k].source)]
        if files:
            which = "they are" if len(files) == len(group) else "those read from a file are"
            out[files[-1]] = (f"run tag {t!r} is used by {len(group)} runs; {which} labelled by file name: "
                              + ", ".join(labels[k] for k in files))
        for k in group:
            if not from_file(runs[k].source) and labels[k] != t:
                out[k] = f"{runs[k].source}: run tag {t!r} already used by an earlier run; reported as {labels[k]!r}"
    for k, (r, lab) in enumerate(zip(runs, labels, strict=True)):  # rule 4 on a tag no other run shares
        if tags[r.name] == 1 and lab != r.name:
            out[k] = f"{r.source}: run tag {r.name!r} is another run's label; reported as {lab!r}"
    return out


def labelled(runs: Sequence[Run]) -> list[tuple[Run, str | None]]:
    """Each run under its :func:`run_labels` label (``Run.name`` replaced), with its note."""
    labels = run_labels(runs)
    notes = label_notes(runs, labels)
    return [(r if r.name == lab else replace(r, name=lab), n) for r, lab, n in zip(runs, labels, notes, strict=True)]


def relabel(runs: Sequence[Run]) -> tuple[list[Run], list[str]]:
    """The runs under their :func:`run_labels` labels and the notes (in run order)."""
    pairs = labelled(runs)
    return [r for r, _ in pairs], [n for _, n in pairs if n]
