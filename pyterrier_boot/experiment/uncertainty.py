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
    res = bootstrap_ci(rows, method=method, confidence_level=confidence_level, plan=plan)
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
    low_q, high_q = np.quantile(dist, [alpha / 2, 1 - alpha / 2], axis=0)
    if method == "basic":
        return 2 * theta - high_q, 2 * theta - low_q
    return low_q, high_q
