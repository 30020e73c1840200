"""Input checks shared by the statistics core (private).

Every public function validates its own arguments in one ``_<name>_iv`` function built from these
helpers, so user errors are ``ValueError``/``TypeError`` naming the argument, never a traceback from
deep inside numpy or pandas.
"""
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from .._warnings import InputWarning

ALTERNATIVES = ("two-sided", "less", "greater")
NAN_POLICIES = ("raise", "omit")
#: Largest score magnitude accepted: sums and squares of scores (and of their differences) over
#: up to millions of topics then stay finite in float64.
LARGEST_SCORE = 1e150
#: Smallest spread accepted: scores (or differences) whose nonzero values are all below this
#: have a variance that underflows to 0 in float64.
SMALLEST_SPREAD = 1e-150


def check_choice(value, name, choices):
    """Return ``value`` if it is one of ``choices``, else raise a ValueError listing them."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name!r} must be one of {listed}; got {value!r}")
    return value


def test_name(test):
    """A test given by name may be spelt with hyphens (``"paired-bootstrap"``): the underscore form."""
    return test.replace("-", "_") if isinstance(test, str) else test


def check_confidence_level(confidence_level, name="confidence_level"):
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(f"{name!r} must be a number in (0, 1), got {type(confidence_level).__name__}")
    level = float(confidence_level)
    if not 0 < level < 1:
        raise ValueError(f"{name!r} must be in (0, 1), got {confidence_level}")
    return level


def check_alpha(alpha, name="alpha"):
    return check_confidence_level(alpha, name=name)


def check_positive_int(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name!r} must be an integer >= {minimum}, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name!r} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_batch(batch):
    if batch is None:
        return None
    return check_positive_int(batch, "batch")


def _is_pandas(obj, kind):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False
    return isinstance(obj, getattr(pd, kind))


def _as_float_array(values, name):
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name!r} must hold numeric scores, got {np.asarray(values).dtype} values") from None
    return arr


def check_magnitude(values, name):
    """Refuse scores so large that sums and variances of them overflow (never a silent inf/nan)."""
    largest = float(np.abs(values).max(initial=0.0))
    if largest > LARGEST_SCORE:
        raise ValueError(
            f"{name!r} has scores as large as {largest:.3g} in magnitude: sums and variances of such "
            f"numbers overflow float64 (the limit is {LARGEST_SCORE:.0e}); rescale the scores, e.g. divide "
            "them by a power of 10"
        )


def check_spread(values, name, what="scores"):
    """Refuse rows of ``values`` whose nonzero entries are all tiny: their variance underflows to 0."""
    scale = np.abs(np.atleast_2d(values)).max(axis=-1, initial=0.0)
    tiny = (scale > 0) & (scale < SMALLEST_SPREAD)
    if tiny.any():
        raise ValueError(
            f"{name} has {what} no larger than {float(scale[tiny][0]):.3g} in magnitude: their variance "
            f"underflows to 0 in float64 (the limit is {SMALLEST_SPREAD:.0e}); rescale them, e.g. multiply "
            "by a power of 10"
        )


def _describe(labels, limit=8):
    labels = [label.item() if isinstance(label, np.generic) else label for label in labels]
    shown = ", ".join(repr(label) if isinstance(label, str) else str(label) for label in labels[:limit])
    more = f", ... ({len(labels)} in all)" if len(labels) > limit else ""
    return f"[{shown}{more}]"


def as_sample(x, name="x", *, nan_policy="raise", min_size=2):
    """One system's per-topic scores as a float 1-D array (pandas labels dropped after checks)."""
    labels = list(x.index) if _is_pandas(x, "Series") else None
    arr = _as_float_array(x, name)
    if arr.ndim != 1:
        raise ValueError(f"{name!r} must be one-dimensional (one score per topic), got shape {arr.shape}")
    bad = np.isnan(arr)
    if bad.any():
        where = _describe(np.asarray(labels, dtype=object)[bad] if labels is not None else np.flatnonzero(bad))
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
        where = _describe(np.asarray(labels, dtype=object)[infinite] if labels is not None else np.flatnonzero(infinite))
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
    if _is_pandas(x, "Series") and _is_pandas(y, "Series"):
        for s, nm in ((x, xn), (y, yn)):
            if s.index.has_duplicates:
                raise ValueError(f"{nm!r} has duplicated topic labels: {_describe(s.index[s.index.duplicated()].unique())}")
        only_x = x.index.difference(y.index)
        only_y = y.index.difference(x.index)
        if len(only_x) or len(only_y):
            if nan_policy == "raise":
                raise ValueError(
                    f"{xn!r} and {yn!r} cover different topics: {len(only_x)} only in {xn!r} "
                    f"{_describe(only_x)}, {len(only_y)} only in {yn!r} {_describe(only_y)}; "
                    "pass nan_policy='omit' to keep the common topics"
                )
            dropped = only_x.append(only_y)
            warnings.warn(f"dropped {len(dropped)} topic(s) not scored for both {xn!r} and {yn!r}: "
                          f"{_describe(dropped)}", InputWarning, stacklevel=3)
        common = x.index.intersection(y.index, sort=False)
        labels = list(common)
        xa = _as_float_array(x.loc[common].to_numpy(), xn)
        ya = _as_float_array(y.loc[common].to_numpy(), yn)
    else:
        xa = _as_float_array(x, xn)
        ya = _as_float_array(y, yn)
        labels = list(x.index) if _is_pandas(x, "Series") else (list(y.index) if _is_pandas(y, "Series") else None)
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
        where = _describe(np.asarray(labels, dtype=object)[bad] if labels is not None else np.flatnonzero(bad))
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
    if _is_pandas(scores, "DataFrame"):
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
    elif _is_pandas(scores, "Series"):
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
    if _is_pandas(scores, "DataFrame"):
        systems, topics = list(scores.index), list(scores.columns)
        if scores.index.has_duplicates:
            raise ValueError(f"{name!r} has duplicated system labels: {_describe(scores.index[scores.index.duplicated()].unique())}")
        if scores.columns.has_duplicates:
            raise ValueError(f"{name!r} has duplicated topic labels: {_describe(scores.columns[scores.columns.duplicated()].unique())}")
        values = _as_float_array(scores.to_numpy(), name)
    elif _is_pandas(scores, "Series"):
        topics = list(scores.index)
        systems = [scores.name] if scores.name is not None else None
        values = _as_float_array(scores.to_numpy(), name)
    else:
        values = _as_float_array(scores, name)
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
                f"{name!r} has missing (NaN) scores for {int(bad.sum())} topic(s) {_describe(dropped)}: "
                "every system must be scored on the same topics; pass nan_policy='omit' to drop "
                "those topics for every system"
            )
        warnings.warn(f"dropped {int(bad.sum())} topic(s) not scored for every system in {name!r}: "
                      f"{_describe(dropped)}", InputWarning, stacklevel=3)
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


def tolerance(observed):
    """Relative tie tolerance for comparing resampled statistics with the observed one (scipy's)."""
    return np.abs(observed) * (100 * np.finfo(float).eps)
