"""Scores as arrays: one system, a pair, or a systems x topics matrix, read from any accepted input
(private; shared by every subpackage).

Plain arrays are read by position (a 2-D array is systems x topics); pandas objects by their labels,
with NaN topics refused or dropped (``nan_policy``) and named in the message. A wide DataFrame has
one row per topic and one column per system, the layout of ``pivot(index="qid", columns="name")``
and of published score matrices; only axis labels saying the other way round make its rows systems
(:func:`oriented`). This module is the one reader of scores: every function taking them calls it.
"""
import warnings
from dataclasses import dataclass

import numpy as np

from ._checks import as_float_array, check_magnitude, check_spread, describe, is_pandas
from ._warnings import InputWarning


def as_sample(x, name="x", *, nan_policy="raise", min_size=2):
    """One system's per-topic scores as a float 1-D array (pandas labels dropped after checks)."""
    labels = list(x.index) if is_pandas(x, "Series") else None
    arr = as_float_array(x, name)
    if arr.ndim != 1:
        raise ValueError(f"{name!r} must be one-dimensional (one score per topic), got shape {arr.shape}")
    bad = np.isnan(arr)
    if bad.any():
        where = describe(np.asarray(labels, dtype=object)[bad] if labels is not None else np.flatnonzero(bad))
        if nan_policy == "raise":
            raise ValueError(
                f"{name!r} has NaN scores for {int(bad.sum())} topic(s) {where}; "
                "pass nan_policy='omit' to drop them"
            )
        warnings.warn(f"dropped {int(bad.sum())} topic(s) with NaN scores from {name!r}: {where}",
                      InputWarning, stacklevel=3)
        arr = arr[~bad]
    infinite = np.isinf(arr)
    if infinite.any():
        where = describe(np.asarray(labels, dtype=object)[infinite] if labels is not None else np.flatnonzero(infinite))
        raise ValueError(f"{name!r} has infinite scores for {int(infinite.sum())} topic(s) {where}")
    check_magnitude(arr, name)
    check_spread(arr, repr(name))
    if arr.size < min_size:
        raise ValueError(f"{name!r} needs at least {min_size} topics, got {arr.size}")
    return arr


def as_paired(x, y, *, nan_policy="raise", names=("x", "y")):
    """Two systems' scores paired by topic: two float 1-D arrays of equal length.

    Plain arrays pair by position (as ``pt.Experiment`` passes them). Two pandas Series pair by
    index; different topic sets are an error unless ``nan_policy='omit'``, which keeps the common
    topics and warns naming the dropped ones. NaN scores follow the same policy.
    """
    xn, yn = names
    if is_pandas(x, "Series") and is_pandas(y, "Series"):
        for s, nm in ((x, xn), (y, yn)):
            if s.index.has_duplicates:
                raise ValueError(f"{nm!r} has duplicated topic labels: {describe(s.index[s.index.duplicated()].unique())}")
        only_x = x.index.difference(y.index)
        only_y = y.index.difference(x.index)
        if len(only_x) or len(only_y):
            if nan_policy == "raise":
                raise ValueError(
                    f"{xn!r} and {yn!r} cover different topics: {len(only_x)} only in {xn!r} "
                    f"{describe(only_x)}, {len(only_y)} only in {yn!r} {describe(only_y)}; "
                    "pass nan_policy='omit' to keep the common topics"
                )
            dropped = only_x.append(only_y)
            warnings.warn(f"dropped {len(dropped)} topic(s) not scored for both {xn!r} and {yn!r}: "
                          f"{describe(dropped)}", InputWarning, stacklevel=3)
        common = x.index.intersection(y.index, sort=False)
        labels = list(common)
        xa = as_float_array(x.loc[common].to_numpy(), xn)
        ya = as_float_array(y.loc[common].to_numpy(), yn)
    else:
        xa = as_float_array(x, xn)
        ya = as_float_array(y, yn)
        labels = list(x.index) if is_pandas(x, "Series") else (list(y.index) if is_pandas(y, "Series") else None)
    for arr, nm in ((xa, xn), (ya, yn)):
        if arr.ndim != 1:
            raise ValueError(f"{nm!r} must be one-dimensional (one score per topic), got shape {arr.shape}")
    if xa.shape != ya.shape:
        raise ValueError(
            f"{xn!r} and {yn!r} must have the same length (scores paired by topic position), "
            f"got {xa.size} and {ya.size}"
        )
    bad = np.isnan(xa) | np.isnan(ya)
    if bad.any():
        where = describe(np.asarray(labels, dtype=object)[bad] if labels is not None else np.flatnonzero(bad))
        if nan_policy == "raise":
            raise ValueError(
                f"NaN scores for {int(bad.sum())} topic(s) {where} in {xn!r} or {yn!r}; "
                "pass nan_policy='omit' to drop those topics from both"
            )
        warnings.warn(f"dropped {int(bad.sum())} topic(s) with NaN scores from both {xn!r} and {yn!r}: {where}",
                      InputWarning, stacklevel=3)
        xa, ya = xa[~bad], ya[~bad]
    if np.isinf(xa).any() or np.isinf(ya).any():
        raise ValueError(f"{xn!r} and {yn!r} must have finite scores")
    check_magnitude(xa, xn)
    check_magnitude(ya, yn)
    check_spread(xa - ya, f"{xn!r} - {yn!r}", "differences")
    if xa.size < 2:
        raise ValueError(f"a paired test needs at least 2 topics, got {xa.size}")
    return xa, ya


@dataclass(frozen=True)
class ScoreMatrix:
    """A systems x topics matrix with its labels (``systems``/``topics`` are None for plain arrays)."""

    values: np.ndarray
    systems: list | None
    topics: list | None

    @property
    def system_labels(self):
        return self.systems if self.systems is not None else list(range(self.values.shape[0]))


LONG_COLUMNS = ("name", "qid", "measure", "value")
MIN_SYSTEMS = 3
TOPIC_LABELS = ("qid", "query_id", "topic", "topic_id")
SYSTEM_LABELS = ("name", "system", "run")
HOW_TO_PASS = ("pass a DataFrame with one row per topic and one column per system (e.g. "
               "perquery.pivot(index='qid', columns='name', values='value')), or the long frame of "
               "pt.Experiment(perquery=True) (qid, name, measure, value)")


def oriented(scores, name="scores", *, strict=False):
    """``scores`` as systems x topics (a DataFrame's axes named ``name`` and ``qid``), read by its labels.

    * a long frame with ``qid``, ``name``, ``value`` columns (one measure) is pivoted;
    * a wide DataFrame has one row per topic and one column per system: the layout of
      ``perquery.pivot(index="qid", columns="name", values="value")`` and of published score matrices
      (a ``qid`` column, as after ``reset_index()``, is its index). Only labels that say the other
      way round make a row a system: columns named ``qid``/``topic`` or an index named
      ``name``/``system``/``run`` (``pivot(index="name", columns="qid")``; a ``name`` column is its
      index). A frame is never transposed on its shape;
    * a Series is one system's scores, its index the topics;
    * a bare 2-D array is systems x topics (its documented layout); with ``strict`` it is refused
      when it has more rows than columns, the shape of a topics x systems matrix (a comparison of a
      few systems over many topics), with an error that says how to pass it.
    """
    if is_pandas(scores, "DataFrame"):
        return _oriented_frame(scores, name)
    if is_pandas(scores, "Series"):
        return scores
    shape = np.shape(scores)
    if strict and len(shape) == 2 and shape[0] > shape[1] >= 1:
        raise ValueError(
            f"{name!r} is a {shape[0]} x {shape[1]} array: an array is read as systems x topics, but this one "
            "has more rows than columns, as a topics x systems matrix has, so its orientation is ambiguous; "
            f"{HOW_TO_PASS}, or the array transposed (scores.T) if it is topics x systems")
    return scores


def _oriented_frame(scores, name):
    """A DataFrame of scores as systems x topics (:func:`oriented`)."""
    columns = set(map(str, scores.columns))
    if {"qid", "name", "value"} <= columns:
        if "measure" in columns and scores["measure"].nunique() > 1:
            raise ValueError(f"{name!r} is a long frame with {scores['measure'].nunique()} measures; pass one "
                             "measure's rows (frame[frame.measure == 'map']) or use a function that takes "
                             "several measures")
        dup = scores.duplicated(subset=["name", "qid"])
        if dup.any():
            raise ValueError(f"{name!r} has {int(dup.sum())} duplicated (name, qid) rows")
        wide = scores.pivot(index="name", columns="qid", values="value")
        wide = wide.reindex(index=list(dict.fromkeys(scores["name"])), columns=list(dict.fromkeys(scores["qid"])))
    elif "qid" in columns:
        wide = scores.set_index("qid").T
    elif "name" in columns:
        wide = scores.set_index("name")
    elif scores.columns.name in TOPIC_LABELS or scores.index.name in SYSTEM_LABELS:
        wide = scores
    else:
        wide = scores.T  # one row per topic, one column per system
    return wide.rename_axis(index="name", columns="qid")


def as_score_matrix(scores, name="scores", *, nan_policy="raise", min_topics=2, allow_1d=True, strict=False):
    """Scores as a (systems, topics) float matrix.

    Accepts a 1-D array/Series (one system), a 2-D array (systems as rows), or a DataFrame with one
    row per topic and one column per system (unless its labels say otherwise: :func:`oriented`). NaN cells (a topic a system was not scored on) are an
    error unless ``nan_policy='omit'`` drops those topics for every system, warning with their names.
    """
    systems = topics = None
    scores = oriented(scores, name, strict=strict)
    if is_pandas(scores, "DataFrame"):
        systems, topics = list(scores.index), list(scores.columns)
        if scores.index.has_duplicates:
            raise ValueError(f"{name!r} has duplicated system labels: {describe(scores.index[scores.index.duplicated()].unique())}")
        if scores.columns.has_duplicates:
            raise ValueError(f"{name!r} has duplicated topic labels: {describe(scores.columns[scores.columns.duplicated()].unique())}")
        values = as_float_array(scores.to_numpy(), name)
    elif is_pandas(scores, "Series"):
        topics = list(scores.index)
        systems = [scores.name] if scores.name is not None else None
        values = as_float_array(scores.to_numpy(), name)
    else:
        values = as_float_array(scores, name)
    if values.ndim == 1 and allow_1d:
        values = values[None, :]
    if values.ndim != 2:
        expected = "a 1-D array (one system) or a 2-D" if allow_1d else "a 2-D"
        raise ValueError(f"{name!r} must be {expected} array of systems x topics, got shape {values.shape}")
    if values.shape[0] < 1:
        raise ValueError(f"{name!r} has no systems")
    bad = np.isnan(values).any(axis=0)
    if bad.any():
        dropped = np.asarray(topics, dtype=object)[bad] if topics is not None else np.flatnonzero(bad)
        if nan_policy == "raise":
            raise ValueError(
                f"{name!r} has missing (NaN) scores for {int(bad.sum())} topic(s) {describe(dropped)}: "
                "every system must be scored on the same topics; pass nan_policy='omit' to drop "
                "those topics for every system"
            )
        warnings.warn(f"dropped {int(bad.sum())} topic(s) not scored for every system in {name!r}: "
                      f"{describe(dropped)}", InputWarning, stacklevel=3)
        values = values[:, ~bad]
        if topics is not None:
            topics = [t for t, b in zip(topics, bad, strict=True) if not b]
    infinite = np.isinf(values)
    if infinite.any():
        s, t = (int(i) for i in np.argwhere(infinite)[0])
        system = systems[s] if systems is not None else s
        topic = topics[t] if topics is not None else t
        raise ValueError(f"{name!r} has infinite scores ({int(infinite.sum())} in all), e.g. system {system!r} on "
                         f"topic {topic!r}")
    check_magnitude(values, name)
    check_spread(values.reshape(1, -1), repr(name))
    if values.shape[1] < min_topics:
        raise ValueError(f"{name!r} needs at least {min_topics} topics, got {values.shape[1]}")
    return ScoreMatrix(np.ascontiguousarray(values), systems, topics)


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


def _from_long(frame, name, union=False):
    """``{measure: systems x topics frame}``; with ``union``, every measure over all systems and topics
    of the frame (NaN where a measure lacks one), in order of appearance."""
    dup = frame.duplicated(subset=["name", "qid", "measure"])
    if dup.any():
        first = frame.loc[dup, ["name", "qid", "measure"]].iloc[0].tolist()
        raise ValueError(f"{name!r} has {int(dup.sum())} duplicated (name, qid, measure) rows, e.g. {first}")
    out = {}
    for measure in _first_seen(frame["measure"]):
        part = frame[frame["measure"] == measure]
        wide = part.pivot(index="name", columns="qid", values="value")
        rows, columns = (frame, frame) if union else (part, part)
        out[measure] = wide.reindex(index=_first_seen(rows["name"]), columns=_first_seen(columns["qid"]))
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


def as_measure_scores(scores, name="scores_by_measure", *, min_systems=MIN_SYSTEMS, min_topics=2,
                      nan_policy=None, single=False, strict=False):
    """``MeasureScores`` from a dict ``{measure: systems x topics}`` or a long frame.

    Accepted inputs:

    * a dict ``{measure: matrix}`` whose values are all DataFrames (one row per topic and one
      column per system, as :func:`oriented` reads them; aligned by label) or all 2-D arrays
      (systems x topics, aligned by position, same shape);
    * a long DataFrame with columns ``name, qid, measure, value`` (the output of
      :func:`pyterrier_boot.evaluate` on several runs, or ``pt.Experiment(perquery=True)``);
    * with ``single``, one matrix (a DataFrame or a systems x topics array), as the measure ``"score"``.

    Every measure must cover the same systems. With ``nan_policy=None`` (meta-evaluation) every
    measure must also cover the same topics, with no missing (NaN) cell; with ``"raise"`` or
    ``"omit"`` the measures are aligned on all topics and a topic missing for any system or measure
    is an error or is dropped for all (:func:`as_score_matrix`). ``strict``: bare arrays must be
    oriented systems x topics unambiguously (:func:`oriented`). Fewer than ``min_systems`` systems
    is an error.
    """
    if is_pandas(scores, "DataFrame") and set(LONG_COLUMNS) <= set(scores.columns):
        scores = _from_long(scores, name, union=nan_policy is not None)
    elif single and not isinstance(scores, dict):
        if np.ndim(scores) != 2:
            raise ValueError(f"{name!r} must be a systems x topics matrix (2-D array or DataFrame), "
                             f"a dict {{measure: matrix}}, or a long DataFrame with columns {list(LONG_COLUMNS)}; "
                             f"got {np.ndim(scores)} dimension(s)")
        matrix = as_score_matrix(scores, name, nan_policy=nan_policy or "raise", allow_1d=False, strict=True)
        return _measure_scores(["score"], matrix.system_labels, matrix.topics, matrix.values[None], name,
                               min_systems)
    if not isinstance(scores, dict):
        raise TypeError(
            f"{name!r} must be a dict {{measure: systems x topics matrix}} or a long DataFrame with "
            f"columns {list(LONG_COLUMNS)}; got {type(scores).__name__}"
        )
    if not scores:
        raise ValueError(f"{name!r} is empty; expected {{measure: systems x topics matrix}}")
    scores = {m: oriented(v, f"{name}[{m!r}]", strict=strict) for m, v in scores.items()}
    frames = [is_pandas(v, "DataFrame") for v in scores.values()]
    if any(frames) and not all(frames):
        raise TypeError(f"{name!r} must hold either all DataFrames or all arrays")
    if all(frames):
        systems, topics, mats = _aligned_frames(scores, name, nan_policy)
    else:
        mats = _same_shape_arrays(scores, name, nan_policy)
        systems, topics = list(range(mats[0].shape[0])), None
    if nan_policy is None:
        values = np.stack([as_score_matrix(mat, f"{name}[{m!r}]", allow_1d=False, min_topics=min_topics).values
                           for m, mat in zip(scores, mats, strict=True)])
    else:  # one matrix of (measure, system) rows, so a topic missing anywhere is dropped everywhere
        M, S = len(mats), mats[0].shape[0]
        stacked = np.vstack([np.asarray(mat, dtype=float) for mat in mats])
        if topics is not None:
            import pandas as pd

            rows = [f"{m}: {s}" for m in scores for s in systems]
            stacked = pd.DataFrame(stacked, columns=pd.Index(topics, name="qid"), index=pd.Index(rows, name="name"))
        matrix = as_score_matrix(stacked, name, nan_policy=nan_policy, allow_1d=False, min_topics=min_topics)
        values, topics = matrix.values.reshape(M, S, -1), matrix.topics
    return _measure_scores(list(scores), systems, topics, values, name, min_systems)


def _aligned_frames(scores, name, nan_policy):
    """Systems, topics and each measure's frame aligned to them: the same labels for every measure
    (``nan_policy=None``), or the same systems and all topics of any measure."""
    measures = list(scores)
    _same_labels("systems", {m: list(scores[m].index) for m in measures}, name)
    if nan_policy is None:
        _same_labels("topics", {m: list(scores[m].columns) for m in measures}, name)
    first = scores[measures[0]]
    systems = list(first.index)
    topics = _first_seen(t for frame in scores.values() for t in frame.columns)
    mats = []
    for m in measures:
        frame = scores[m]
        if frame.index.has_duplicates or frame.columns.has_duplicates:
            as_score_matrix(frame, f"{name}[{m!r}]", allow_1d=False)  # names the duplicates
        aligned = frame.reindex(index=systems, columns=topics)
        if nan_policy is None:
            _check_complete(aligned.to_numpy(), f"{name}[{m!r}]", topics)
        mats.append(aligned)
    return systems, topics, mats


def _same_shape_arrays(scores, name, nan_policy):
    """Each measure's 2-D array, all of one shape (systems, topics)."""
    mats = []
    for m, value in scores.items():
        if is_pandas(value, "Series") or np.ndim(value) != 2:
            raise ValueError(f"{name}[{m!r}] must be a 2-D systems x topics matrix, got "
                             f"{np.ndim(value)} dimension(s)")
        if nan_policy is None:
            _check_complete(value, f"{name}[{m!r}]", None)
        mats.append(as_float_array(value, f"{name}[{m!r}]"))
    first, shape = next(iter(scores)), mats[0].shape
    for m, mat in zip(scores, mats, strict=True):
        if mat.shape != shape:
            kind = "topics" if mat.shape[0] == shape[0] else "systems"
            raise ValueError(
                f"{name!r}: the measures cover different {kind}: {first!r} is {shape[0]} systems x "
                f"{shape[1]} topics but {m!r} is {mat.shape[0]} x {mat.shape[1]}; every measure must score "
                f"the same systems and topics ({name!r} matrices must all have the same shape)"
            )
    return mats


def _measure_scores(measures, systems, topics, values, name, min_systems):
    S = values.shape[1]
    if S < min_systems:
        raise ValueError(
            f"{name!r} has {S} system(s); meta-evaluation needs at least {min_systems} "
            "(it compares measures over many system pairs and rankings)"
        )
    return MeasureScores(tuple(measures), tuple(systems), None if topics is None else tuple(topics), values)
