"""Intervals of system means and of differences, from the topic bootstrap, the corpus bootstrap,
or both at once, on a ``[system, topic, measure]`` array of per-topic values.

* ``"topic"``: topics resampled with one shared plan (Sakai 2007; Park 2010), through
  :func:`~pyterrier_boot.bootstrap_ci`.
* ``"corpus"``: corpus images (Cormack & Lynam 2006; Zobel & Rashidi 2020), through
  :class:`~pyterrier_boot.corpus.result.CorpusBootstrapResult`.
* ``"both"``: replicate ``b`` draws topics with the topic plan's resample ``b`` and takes their
  values on corpus image ``b``, so a replicate varies both what was asked and what was searched
  (a two-stage bootstrap); its intervals are percentile, basic or normal.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._bounds import clipped, normal_within
from .._memory import NO_LIMIT
from .._quantiles import quantiles
from ..corpus.intervals import image_interval
from ..stats.intervals import bootstrap_ci

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor
    from typing import Any

    import numpy.typing as npt
    import pandas as pd

    from .._typing import FloatArray
    from ..stats.resampling import ResamplePlan, SignFlipPlan


BOOTSTRAPS = ("topic", "corpus", "both")
JOINT_METHODS = ("percentile", "basic", "normal")


@dataclass(frozen=True)
class Spread:
    """Intervals of several series (rows) and the bootstrap distribution behind them.

    Attributes:
        low, high: interval limits per series.
        distribution: ``[replicate, series]`` bootstrap values of each series' statistic.
    """

    low: np.ndarray
    high: np.ndarray
    distribution: np.ndarray


def topic_spread(rows: FloatArray, plan: ResamplePlan, *, method: str, confidence_level: float,
                 executor: Executor | None = None, labels: Sequence[str] | None = None,
                 bounds: tuple[float, float] | None = None) -> Spread:
    """Topic-bootstrap intervals of the mean of each row of ``rows`` (series x topics), on ``executor``
    when given (:func:`~pyterrier_boot.bootstrap_ci`, whose warnings name the rows by ``labels``),
    kept inside ``bounds``, the range of the values (None: none)."""
    import pandas as pd

    scores = rows if labels is None else pd.DataFrame(rows.T, columns=list(labels))  # topics x series
    # the caller (Experiment) checked the memory of the whole bootstrap against its max_memory
    res = bootstrap_ci(scores, method=method, confidence_level=confidence_level, plan=plan, max_memory=NO_LIMIT,
                       executor=executor, bounds=bounds)
    dist = res.bootstrap_distribution
    dist = np.zeros((0, rows.shape[0])) if dist is None else np.asarray(dist).T
    return Spread(np.asarray(res.confidence_interval.low, float), np.asarray(res.confidence_interval.high, float), dist)


def joint_spread(rows: FloatArray, image_rows: FloatArray, plan: ResamplePlan, *, method: str,
                 confidence_level: float, bounds: tuple | None = None) -> Spread:
    """Two-stage intervals: replicate ``b`` is the mean of ``image_rows[b]`` over resample ``b``'s topics.

    Args:
        rows: series x topics values on the collection.
        image_rows: ``[image, series, topic]`` values on corpus images (one per replicate).
        plan: topic plan with as many resamples as images.
        bounds: the range of the values (:mod:`pyterrier_boot._bounds`), or None.
    """
    n_images = image_rows.shape[0]
    weights = plan.weights(0, n_images) / rows.shape[1]  # [replicate, topic]
    dist = np.einsum("bq,bsq->bs", weights, image_rows)
    theta = rows.mean(axis=1)
    return Spread(*_limits(theta, dist, method, confidence_level, bounds), dist)  # type: ignore[call-arg]


def _limits(theta, dist, method, confidence_level, bounds=None):
    alpha = 1 - confidence_level
    if method == "normal":
        from scipy import stats

        return normal_within(theta, dist, stats.norm.ppf(1 - alpha / 2), bounds)
    low_q, high_q = quantiles(dist.T, [alpha / 2, 1 - alpha / 2]).T
    if method == "basic":
        return clipped(2 * theta - high_q, 2 * theta - low_q, bounds)
    return clipped(low_q, high_q, bounds)


def mean_spreads(values: FloatArray, bootstrap: str | None, interval: str | None,
                 confidence_level: float, plan: ResamplePlan | None, corpus: Any,
                 executor: Executor | None = None, *, names: Sequence[str] | None = None,
                 measures: Sequence[str] | None = None,
                 bounds: tuple[FloatArray, FloatArray] | None = None) -> tuple[FloatArray | None, FloatArray | None]:
    """Intervals ``[S, M, 2]`` of each system's mean over topics of ``values [S, Q, M]`` and the
    bootstrap distribution ``[B, S, M]`` behind them (``(None, None)`` without a bootstrap). Warnings
    name a system as ``"<measure>: <name>"`` given the systems' ``names`` and the ``measures``' labels.
    ``bounds``: each measure's range ``(lo [M], hi [M])`` (``-inf``/``inf`` where it has none): the
    intervals are kept inside it (:mod:`pyterrier_boot._bounds`)."""
    if bootstrap is None:
        return None, None
    if bootstrap == "corpus":
        theta, dist = corpus.system_distribution()
        jack = corpus.jackknife_distribution.mean(axis=2)
        low, high = image_interval(theta, dist, method=interval, confidence_level=confidence_level,  # type: ignore[arg-type]  # interval is set with a bootstrap
                                   jackknife=jack, bounds=bounds)
        return np.stack([low, high], axis=-1), dist
    labels = None if names is None or measures is None else [[f"{m}: {n}" for n in names] for m in measures]
    return _per_measure(values, None, bootstrap, interval, confidence_level, plan, corpus, executor, labels, bounds)


def difference_spreads(values: FloatArray, a: npt.NDArray[np.intp], b: npt.NDArray[np.intp],
                       bootstrap: str | None, interval: str | None, confidence_level: float,
                       plan: ResamplePlan | None, corpus: Any,
                       executor: Executor | None = None) -> tuple[FloatArray | None, FloatArray | None]:
    """Intervals ``[P, M, 2]`` of the mean difference ``system a[p] - system b[p]`` of each pair and
    their bootstrap distribution ``[B, P, M]``. The corpus bootstrap's differences are taken within
    each image; its ``"logit"`` interval falls back to ``"percentile"`` (differences are not in [0, 1])."""
    if bootstrap is None:
        return None, None
    a, b = np.asarray(a), np.asarray(b)
    if bootstrap == "corpus":
        theta, dist = corpus.system_distribution()
        jack = corpus.jackknife_distribution.mean(axis=2)
        dist = dist[:, a] - dist[:, b]
        low, high = image_interval(theta[a] - theta[b], dist, confidence_level=confidence_level,
                                   method="percentile" if interval == "logit" else interval,  # type: ignore[arg-type]  # interval is set with a bootstrap
                                   jackknife=jack[:, a] - jack[:, b])
        return np.stack([low, high], axis=-1), dist
    return _per_measure(values, (a, b), bootstrap, interval, confidence_level, plan, corpus, executor)


def _per_measure(values, pairs, bootstrap, interval, confidence_level, plan, corpus, executor=None, labels=None,
                 bounds=None):
    """Topic or joint spreads, per measure, of system means or (with ``pairs``) differences;
    ``labels[m]``: the rows' labels for measure ``m`` (None: their positions); ``bounds``: each
    measure's range ``(lo [M], hi [M])`` (means only)."""
    rows = values if pairs is None else values[pairs[0]] - values[pairs[1]]
    per_measure = rows.transpose(2, 0, 1)  # [measure, row, topic]
    if bootstrap == "topic":
        return _topic_per_measure(per_measure, plan, interval, confidence_level, executor, labels, bounds)
    spreads = []
    for m, rows in enumerate(per_measure):
        measure_bounds = _measure_bounds(bounds, m)
        images = corpus.bootstrap_distribution[..., m]  # [image, system, topic]
        if pairs is not None:
            images = images[:, pairs[0]] - images[:, pairs[1]]
        spreads.append(joint_spread(rows, images, plan, method=interval, confidence_level=confidence_level,
                                    bounds=measure_bounds))
    intervals = np.stack([np.stack([sp.low, sp.high], axis=-1) for sp in spreads], axis=1)
    return intervals, np.stack([sp.distribution for sp in spreads], axis=-1)


def _topic_per_measure(per_measure, plan, interval, confidence_level, executor, labels, bounds):
    """Topic spreads of ``per_measure [measure, row, topic]``: consecutive measures with the same
    range at once, so one pass over the plan serves them (the same numbers, row by row)."""
    M, R, Q = per_measure.shape
    runs: list[tuple] = []  # (range, measures)
    for m in range(M):
        measure_bounds = _measure_bounds(bounds, m)
        if runs and runs[-1][0] == measure_bounds:
            runs[-1][1].append(m)
        else:
            runs.append((measure_bounds, [m]))
    intervals, pieces = np.empty((R, M, 2)), []
    for measure_bounds, ms in runs:
        spread = topic_spread(per_measure[ms].reshape(len(ms) * R, Q), plan, method=interval,
                              confidence_level=confidence_level, executor=executor,
                              labels=None if labels is None else [x for m in ms for x in labels[m]],
                              bounds=measure_bounds)
        intervals[:, ms] = np.stack([spread.low, spread.high], axis=-1).reshape(len(ms), R, 2).transpose(1, 0, 2)
        pieces.append(spread.distribution.reshape(-1, len(ms), R).transpose(0, 2, 1))
    return intervals, np.ascontiguousarray(np.concatenate(pieces, axis=2))


def _measure_bounds(bounds, m):
    """Measure ``m``'s range as ``(lo, hi)``, or None when it has none."""
    if bounds is None:
        return None
    lo, hi = float(np.asarray(bounds[0])[m]), float(np.asarray(bounds[1])[m])
    return (lo, hi) if np.isfinite(lo) or np.isfinite(hi) else None


# ---------------------------------------------------------------- verdicts that match the intervals


def replicate_test(theta: FloatArray, dist: FloatArray, method: str, alpha: float,
                   inclusive: bool = False) -> tuple[Any, FloatArray, FloatArray]:
    """Two-sided test of ``difference = 0`` over bootstrap replicates, and the interval it inverts.

    ``theta``: ``(P,)`` differences on the collection; ``dist``: ``(B, P)`` replicate differences
    (corpus images, or topic resamples on images for ``"both"``). ``"percentile"``: p is
    ``2 (min(#{d* <= 0}, #{d* >= 0}) + 1) / (B + 1)`` and the interval's ends are the order
    statistics that test inverts; ``"basic"``: the same on ``2 theta - d*``; ``"normal"``: the Wald
    test ``2 Φ(-|theta| / sd(d*))`` with ``theta ± z sd(d*)``. The interval excludes 0 exactly when
    ``p < alpha`` (``<=`` when ``inclusive``). Returns ``pvalue, low, high``.
    """
    from scipy import stats

    from ..stats.inversion import accept_count, kth_largest, kth_smallest

    theta = np.asarray(theta, dtype=float)
    dist = np.asarray(dist, dtype=float)
    B = dist.shape[0]
    if method == "normal":
        sd = dist.std(axis=0, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.abs(theta) / sd
        z = np.where(sd == 0, np.where(theta == 0, 0.0, np.inf), z)
        pvalue = 2 * stats.norm.sf(z)
        half = stats.norm.isf(alpha / 2) * sd
        return pvalue, theta - half, theta + half
    rows = (2 * theta[None, :] - dist if method == "basic" else dist).T  # (P, B)

    def p_of(count):
        return np.minimum(1.0, 2 * (count + 1) / (B + 1))

    n_le = np.count_nonzero(rows <= 0, axis=1)
    n_ge = np.count_nonzero(rows >= 0, axis=1)
    pvalue = p_of(np.minimum(n_le, n_ge))
    K = accept_count(p_of, B, alpha, inclusive)
    return pvalue, kth_smallest(rows, K), kth_largest(rows, K)


def replicate_method(interval: str) -> str:
    """The replicate test of differences for an interval method: the corpus bootstrap's ``"bca"``
    and ``"logit"`` become ``"percentile"`` (differences are not in [0, 1], and BCa has no test)."""
    return "percentile" if interval in ("bca", "logit") else interval


def difference_replicates(values: FloatArray, a: npt.NDArray[np.intp], b: npt.NDArray[np.intp],
                          bootstrap: str | None, plan: ResamplePlan | None, corpus: Any) -> tuple[FloatArray, FloatArray | None]:
    """``(theta [P, M], dist [B, P, M])``: differences on the collection and over the replicates."""
    _, dist = difference_spreads(values, a, b, bootstrap, "percentile", 0.95, plan, corpus)
    if bootstrap == "corpus":
        theta, _ = corpus.system_distribution()
        theta = theta[a] - theta[b]
    else:
        theta = values[a].mean(axis=1) - values[b].mean(axis=1)
    return theta, dist


def matched_intervals(frame: pd.DataFrame, values: FloatArray, a: npt.NDArray[np.intp], b: npt.NDArray[np.intp],
                      *, bootstrap: str | None, interval: str | None, plan: ResamplePlan | SignFlipPlan | None,
                      corpus: Any, alpha: float, inclusive: bool) -> tuple[pd.DataFrame, FloatArray, FloatArray | None]:
    """Make a long comparison table (measure-major rows, pairs ``a[p] - b[p]``) tell one story.

    Topic bootstrap (or none): the interval beside each test is already the test's own (nothing
    changes). Corpus or both: the p-value becomes the replicate test whose interval is shown
    (:func:`replicate_test`, same replicates), so corpus variance is in both. Returns the frame
    with ``p-value`` and ``ci_low``/``ci_high`` replaced, and the ``[P, M, 2]`` intervals.
    """
    theta, dist = difference_replicates(values, a, b, bootstrap, plan, corpus)  # type: ignore[arg-type]  # a topic plan here
    P, M = theta.shape
    method = replicate_method(interval)  # type: ignore[arg-type]  # interval is set with a bootstrap
    p, low, high = replicate_test(theta.reshape(-1), dist.reshape(dist.shape[0], -1), method, alpha, inclusive)  # type: ignore[union-attr]  # a bootstrap gives a distribution
    p, low, high = (v.reshape(P, M) for v in (p, low, high))
    frame = frame.copy()
    frame["p-value"] = p.T.reshape(-1)  # frame rows: measure-major
    frame["ci_low"] = low.T.reshape(-1)
    frame["ci_high"] = high.T.reshape(-1)
    return frame, np.stack([low, high], axis=-1), dist


# ---------------------------------------------------------------- standard errors


def standard_errors(rows: FloatArray, replicates: FloatArray | None) -> tuple[FloatArray, FloatArray]:
    """``(se, df)`` of the mean over topics of each row of ``rows`` (series x topics).

    Topic variance alone (``replicates`` None): ``sd(x) / √n`` (ddof 1) with ``n - 1`` degrees of
    freedom, the variance the topic bootstrap's intervals estimate. With the corpus in the
    variance: the SD (ddof 1) of the series' ``replicates`` ``[replicate, series]`` (corpus images,
    or topic resamples on images), with infinite degrees of freedom.
    """
    n = rows.shape[1]
    if replicates is not None:
        return replicates.std(axis=0, ddof=1), np.full(rows.shape[0], np.inf)
    if n < 2:
        return np.full(rows.shape[0], np.nan), np.full(rows.shape[0], np.nan)
    return rows.std(axis=1, ddof=1) / np.sqrt(n), np.full(rows.shape[0], float(n - 1))
