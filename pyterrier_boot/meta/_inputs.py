"""Input checks shared by the meta-evaluation functions (private).

Meta-evaluation compares measures on the same systems and topics, so every function takes
per-topic scores of several measures and turns them into one array ``values[measure, system,
topic]`` with :func:`as_measure_scores`, refusing measures that cover different systems or topics.
"""
from dataclasses import dataclass

import numpy as np

from .._checks import describe, is_pandas
from .._scores import as_score_matrix, oriented

LONG_COLUMNS = ("name", "qid", "measure", "value")
MIN_SYSTEMS = 3


@dataclass(frozen=True)
class MeasureScores:
    """Scores of several measures on the same systems and topics.

    Attributes:
        measures: measure labels, in input order.
        systems: system labels (row positions for plain arrays).
        topics: topic labels, or None for plain arrays.
        values: float array ``(n_measures, n_systems, n_topics)``.
    """

    measures: tuple
    systems: tuple
    topics: tuple | None
    values: np.ndarray

    @property
    def n_topics(self):
        return self.values.shape[2]


def _first_seen(values):
    return list(dict.fromkeys(values))


def _from_long(frame, name):
    dup = frame.duplicated(subset=["name", "qid", "measure"])
    if dup.any():
        first = frame.loc[dup, ["name", "qid", "measure"]].iloc[0].tolist()
        raise ValueError(f"{name!r} has {int(dup.sum())} duplicated (name, qid, measure) rows, e.g. {first}")
    out = {}
    for measure in _first_seen(frame["measure"]):
        part = frame[frame["measure"] == measure]
        wide = part.pivot(index="name", columns="qid", values="value")
        out[measure] = wide.reindex(index=_first_seen(part["name"]), columns=_first_seen(part["qid"]))
    return out


def _check_complete(values, label, topics):
    """Raise when a measure has NaN cells (meta-evaluation needs every system on every topic)."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return  # non-numeric scores: as_score_matrix reports them
    bad = np.isnan(arr).any(axis=0) if arr.ndim == 2 else np.zeros(0, bool)
    if bad.any():
        where = np.asarray(topics, dtype=object)[bad] if topics is not None else np.flatnonzero(bad)
        raise ValueError(
            f"{label} has missing (NaN) scores for {int(bad.sum())} topic(s) {describe(list(where))}: "
            "every measure must score every system on every topic (drop those topics from all "
            "measures first)"
        )


def _same_labels(kind, labels_by_measure, name):
    """Raise unless every measure has the same set of labels (systems or topics)."""
    measures = list(labels_by_measure)
    first = measures[0]
    ref = labels_by_measure[first]
    ref_set = set(ref)
    for m in measures[1:]:
        labels = labels_by_measure[m]
        if set(labels) == ref_set:
            continue
        missing = [t for t in ref if t not in set(labels)]
        extra = [t for t in labels if t not in ref_set]
        parts = []
        if missing:
            parts.append(f"{len(missing)} of {first!r}'s {kind} missing from {m!r} {describe(missing)}")
        if extra:
            parts.append(f"{len(extra)} {kind} of {m!r} not scored by {first!r} {describe(extra)}")
        raise ValueError(
            f"{name!r}: the measures cover different {kind}: " + "; ".join(parts)
            + f"; every measure must score the same {kind} (meta-evaluation compares measures on the "
            "same data)"
        )


def as_measure_scores(scores, name="scores_by_measure", *, min_systems=MIN_SYSTEMS, min_topics=2):
    """``MeasureScores`` from a dict ``{measure: systems x topics}`` or a long frame.

    Accepted inputs:

    * a dict ``{measure: matrix}`` whose values are all DataFrames (systems as the index, topics as
      the columns; aligned by label) or all 2-D arrays (aligned by position, same shape);
    * a long DataFrame with columns ``name, qid, measure, value`` (the output of
      :func:`pyterrier_boot.evaluate` on several runs, or ``pt.Experiment(perquery=True)``).

    Raises ValueError when the measures cover different systems or topics (naming them), when a
    cell is missing (NaN), or when there are fewer than ``min_systems`` systems.
    """
    if is_pandas(scores, "DataFrame") and set(LONG_COLUMNS) <= set(scores.columns):
        scores = _from_long(scores, name)
    if not isinstance(scores, dict):
        raise TypeError(
            f"{name!r} must be a dict {{measure: systems x topics matrix}} or a long DataFrame with "
            f"columns {list(LONG_COLUMNS)}; got {type(scores).__name__}"
        )
    if not scores:
        raise ValueError(f"{name!r} is empty; expected {{measure: systems x topics matrix}}")
    scores = {m: oriented(v, f"{name}[{m!r}]") for m, v in scores.items()}
    measures = list(scores)
    frames = [is_pandas(scores[m], "DataFrame") for m in measures]
    if any(frames) and not all(frames):
        raise TypeError(f"{name!r} must hold either all DataFrames or all arrays")
    if all(frames):
        _same_labels("systems", {m: list(scores[m].index) for m in measures}, name)
        _same_labels("topics", {m: list(scores[m].columns) for m in measures}, name)
        first = scores[measures[0]]
        systems, topics = list(first.index), list(first.columns)
        mats = []
        for m in measures:
            frame = scores[m]
            if frame.index.has_duplicates or frame.columns.has_duplicates:
                # as_score_matrix names the duplicates
                as_score_matrix(frame, f"{name}[{m!r}]", allow_1d=False)
            aligned = frame.reindex(index=systems, columns=topics)
            _check_complete(aligned.to_numpy(), f"{name}[{m!r}]", topics)
            mats.append(as_score_matrix(aligned, f"{name}[{m!r}]", allow_1d=False, min_topics=min_topics).values)
    else:
        mats = []
        for m in measures:
            value = scores[m]
            if is_pandas(value, "Series") or np.ndim(value) != 2:
                raise ValueError(f"{name}[{m!r}] must be a 2-D systems x topics matrix, got "
                                 f"{np.ndim(value)} dimension(s)")
            _check_complete(value, f"{name}[{m!r}]", None)
            mats.append(as_score_matrix(value, f"{name}[{m!r}]", allow_1d=False, min_topics=min_topics).values)
        shapes = {m: mat.shape for m, mat in zip(measures, mats, strict=True)}
        first = measures[0]
        for m in measures[1:]:
            if shapes[m] != shapes[first]:
                kind = "topics" if shapes[m][0] == shapes[first][0] else "systems"
                raise ValueError(
                    f"{name!r}: the measures cover different {kind}: {first!r} is "
                    f"{shapes[first][0]} systems x {shapes[first][1]} topics but {m!r} is "
                    f"{shapes[m][0]} x {shapes[m][1]}; every measure must score the same systems "
                    "and topics"
                )
        systems, topics = list(range(shapes[first][0])), None
    values = np.stack(mats)
    S = values.shape[1]
    if S < min_systems:
        raise ValueError(
            f"{name!r} has {S} system(s); meta-evaluation needs at least {min_systems} "
            "(it compares measures over many system pairs and rankings)"
        )
    return MeasureScores(tuple(measures), tuple(systems), None if topics is None else tuple(topics), values)


def pair_indices(n_systems):
    """All pairs ``i < j`` of system positions: two int arrays."""
    return np.triu_indices(n_systems, k=1)


def pair_labels(systems, a, b):
    return [systems[i] for i in a], [systems[j] for j in b]
