"""Scores as arrays: one system, a pair, or a systems x topics matrix, read from any accepted input
(private; shared by every subpackage).

Plain arrays are read by position; pandas objects by their labels, with NaN topics refused or dropped
(``nan_policy``) and named in the message.
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


TOPIC_LABELS = ("qid", "query_id", "topic", "topic_id")
SYSTEM_LABELS = ("name", "system", "run")
HOW_TO_PASS = ("pass a DataFrame whose labels say which axis is which: systems x topics with the topics "
               "as columns named 'qid' (e.g. perquery.pivot(index='name', columns='qid', values='value')), a "
               "topics x systems pivot with a 'qid' index or column, or the long frame of "
               "pt.Experiment(perquery=True) (qid, name, measure, value)")


def oriented(scores, name="scores", *, strict=False):
    """``scores`` as systems x topics, reading the orientation from its labels.

    * a long frame with ``qid``, ``name``, ``value`` columns (one measure) is pivoted;
    * a frame with a ``qid`` column (a topics x systems pivot after ``reset_index()``) is indexed by it
      and transposed; a frame whose index is named ``qid`` (or whose columns are named ``name``) is
      transposed; one whose columns are named ``qid`` (or index ``name``) is kept;
    * a bare 2-D array (or an unlabelled frame) is read as systems x topics; with ``strict`` it is
      refused when it has more rows than columns, the shape of a topics x systems matrix (a
      comparison of a few systems over many topics), with an error that says how to pass it.
    """
    if is_pandas(scores, "DataFrame"):
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
            return wide.reindex(index=list(dict.fromkeys(scores["name"])), columns=list(dict.fromkeys(scores["qid"])))
        if "qid" in columns:
            return scores.set_index("qid").T
        if scores.index.name in TOPIC_LABELS or scores.columns.name in SYSTEM_LABELS:
            return scores.T
        if scores.columns.name in TOPIC_LABELS or scores.index.name in SYSTEM_LABELS:
            return scores
        labelled = not (isinstance(scores.index, __import__("pandas").RangeIndex)
                        and isinstance(scores.columns, __import__("pandas").RangeIndex))
        if labelled:
            return scores
        shape = scores.shape
    elif is_pandas(scores, "Series"):
        return scores
    else:
        shape = np.shape(scores)
    if strict and len(shape) == 2 and shape[0] > shape[1] >= 1:
        raise ValueError(
            f"{name!r} is an unlabelled {shape[0]} x {shape[1]} matrix: it is read as systems x topics, but "
            "it has more rows than columns, as a topics x systems matrix has, so its orientation is "
            f"ambiguous; {HOW_TO_PASS}, or a systems x topics array transposed if it is topics x systems "
            "(scores.T)")
    return scores


def as_score_matrix(scores, name="scores", *, nan_policy="raise", min_topics=2, allow_1d=True, strict=False):
    """Scores as a (systems, topics) float matrix.

    Accepts a 1-D array/Series (one system), a 2-D array (systems as rows), or a DataFrame with
    systems as rows and topics as columns. NaN cells (a topic a system was not scored on) are an
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
