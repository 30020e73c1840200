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
from dataclasses import dataclass

import numpy as np

from .._memory import NO_LIMIT
from ..corpus.intervals import image_interval
from ..stats._quantiles import quantiles
from ..stats.intervals import bootstrap_ci

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


def topic_spread(rows, plan, *, method, confidence_level):
    """Topic-bootstrap intervals of the mean of each row of ``rows`` (series x topics)."""
    # the caller (Experiment) checked the memory of the whole bootstrap against its max_memory
    res = bootstrap_ci(rows, method=method, confidence_level=confidence_level, plan=plan, max_memory=NO_LIMIT)
    dist = res.bootstrap_distribution
    dist = np.zeros((0, rows.shape[0])) if dist is None else np.asarray(dist).T
    return Spread(np.asarray(res.confidence_interval.low, float), np.asarray(res.confidence_interval.high, float), dist)


def joint_spread(rows, image_rows, plan, *, method, confidence_level):
    """Two-stage intervals: replicate ``b`` is the mean of ``image_rows[b]`` over resample ``b``'s topics.

    Args:
        rows: series x topics values on the collection.
        image_rows: ``[image, series, topic]`` values on corpus images (one per replicate).
        plan: topic plan with as many resamples as images.
    """
    n_images = image_rows.shape[0]
    weights = plan.weights(0, n_images) / rows.shape[1]  # [replicate, topic]
    dist = np.einsum("bq,bsq->bs", weights, image_rows)
    theta = rows.mean(axis=1)
    return Spread(*_limits(theta, dist, method, confidence_level), dist)


def _limits(theta, dist, method, confidence_level):
    alpha = 1 - confidence_level
    if method == "normal":
        from scipy import stats

        half = stats.norm.ppf(1 - alpha / 2) * dist.std(axis=0, ddof=1)
        return theta - half, theta + half
    low_q, high_q = quantiles(dist.T, [alpha / 2, 1 - alpha / 2]).T
    if method == "basic":
        return 2 * theta - high_q, 2 * theta - low_q
    return low_q, high_q


def mean_spreads(values, bootstrap, interval, confidence_level, plan, corpus):
    """Intervals ``[S, M, 2]`` of each system's mean over topics of ``values [S, Q, M]`` and the
    bootstrap distribution ``[B, S, M]`` behind them (``(None, None)`` without a bootstrap)."""
    if bootstrap is None:
        return None, None
    if bootstrap == "corpus":
        theta, dist = corpus.system_distribution()
        jack = corpus.jackknife_distribution.mean(axis=2)
        low, high = image_interval(theta, dist, method=interval, confidence_level=confidence_level,
                                   jackknife=jack)
        return np.stack([low, high], axis=-1), dist
    return _per_measure(values, None, bootstrap, interval, confidence_level, plan, corpus)


def difference_spreads(values, a, b, bootstrap, interval, confidence_level, plan, corpus):
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
                                   method="percentile" if interval == "logit" else interval,
                                   jackknife=jack[:, a] - jack[:, b])
        return np.stack([low, high], axis=-1), dist
    return _per_measure(values, (a, b), bootstrap, interval, confidence_level, plan, corpus)


def _per_measure(values, pairs, bootstrap, interval, confidence_level, plan, corpus):
    """Topic or joint spreads, one measure at a time, of system means or (with ``pairs``) differences."""
    spreads = []
    for m in range(values.shape[2]):
        rows = values[:, :, m] if pairs is None else values[pairs[0], :, m] - values[pairs[1], :, m]
        if bootstrap == "topic":
            spreads.append(topic_spread(rows, plan, method=interval, confidence_level=confidence_level))
            continue
        images = corpus.bootstrap_distribution[..., m]  # [image, system, topic]
        if pairs is not None:
            images = images[:, pairs[0]] - images[:, pairs[1]]
        spreads.append(joint_spread(rows, images, plan, method=interval, confidence_level=confidence_level))
    intervals = np.stack([np.stack([sp.low, sp.high], axis=-1) for sp in spreads], axis=1)
    return intervals, np.stack([sp.distribution for sp in spreads], axis=-1)
