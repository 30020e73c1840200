"""Two-way analysis of variance of one system's runs x topics scores (no replication).

Each run ``r`` of a system (a training seed, a fold, a checkpoint) scores every topic ``q``:
``x[r, q] = mu + t_q + u_r + e_rq`` with topic effects ``t_q`` (the system's own topic x
system effects included), run (seed) effects ``u_r`` and a topic x seed residual ``e_rq``, the
three independent with variances ``sigma2_t``, ``sigma2_u``, ``sigma2_e``. The design is crossed
(every run answers every topic) and balanced, so the classical mean squares

* ``MS_T = k sum_q (xbar_q. - xbar)^2 / (n - 1)``, expectation ``sigma2_e + k sigma2_t``,
* ``MS_R = n sum_r (xbar_.r - xbar)^2 / (k - 1)``, expectation ``sigma2_e + n sigma2_u``,
* ``MS_E = sum (x - xbar_q. - xbar_.r + xbar)^2 / ((n - 1)(k - 1))``, expectation ``sigma2_e``,

are independent (normal errors) and give the ANOVA estimates of the components, which equal the
REML estimates whenever those are inside the parameter space (Searle, Casella & McCulloch 1992,
ch. 4; Owen 2007 for the crossed design).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray

__all__ = ["MeanSquares", "mean_squares"]


@dataclass(frozen=True)
class MeanSquares:
    """The mean squares of a runs x topics table, per series (the leading axes of the scores).

    Attributes:
        topics, runs, residual: ``MS_T``, ``MS_R``, ``MS_E`` (``runs`` and ``residual`` are 0 with
            one run: nothing to estimate).
        n_topics, n_runs: ``n`` and ``k``.
    """

    topics: FloatArray
    runs: FloatArray
    residual: FloatArray
    n_topics: int
    n_runs: int

    @property
    def df_topics(self) -> int:
        return self.n_topics - 1

    @property
    def df_runs(self) -> int:
        return self.n_runs - 1

    @property
    def df_residual(self) -> int:
        return (self.n_topics - 1) * (self.n_runs - 1)

    @property
    def seed_variance(self) -> FloatArray:
        """``sigma2_u``: ``(MS_R - MS_E) / n``, truncated at 0 (identical runs give exactly 0)."""
        return np.maximum(self.runs - self.residual, 0.0) / self.n_topics

    @property
    def interaction_variance(self) -> FloatArray:
        """``sigma2_e``, the topic x seed variance: ``MS_E``."""
        return self.residual

    @property
    def topic_variance(self) -> FloatArray:
        """``sigma2_t``: ``(MS_T - MS_E) / k``, truncated at 0."""
        return np.maximum(self.topics - self.residual, 0.0) / self.n_runs


def mean_squares(scores: npt.ArrayLike) -> MeanSquares:
    """The mean squares of ``scores[..., run, topic]`` (one system's runs), per leading index.

    Example:
        >>> ms = mean_squares([[0.2, 0.4, 0.6], [0.3, 0.5, 0.7]])  # 2 runs, 3 topics
        >>> round(float(ms.runs), 6), round(float(ms.residual), 6), round(float(ms.seed_variance), 6)
        (0.015, 0.0, 0.005)
    """
    x = np.asarray(scores, dtype=float)
    k, n = x.shape[-2], x.shape[-1]
    grand = x.mean(axis=(-2, -1), keepdims=True)
    topic_means = x.mean(axis=-2, keepdims=True)  # [..., 1, topic]
    run_means = x.mean(axis=-1, keepdims=True)  # [..., run, 1]
    ms_topics = k * ((topic_means - grand) ** 2).sum(axis=(-2, -1)) / max(n - 1, 1)
    if k < 2:
        zero = np.zeros_like(ms_topics)
        return MeanSquares(ms_topics, zero, zero, n, k)
    ms_runs = n * ((run_means - grand) ** 2).sum(axis=(-2, -1)) / (k - 1)
    residual = x - topic_means - run_means + grand
    ms_residual = (residual ** 2).sum(axis=(-2, -1)) / max((n - 1) * (k - 1), 1)
    return MeanSquares(ms_topics, _exact_zero(ms_runs, x, axis=-2), _exact_zero(ms_residual, x, axis=-2), n, k)


def _exact_zero(ms: FloatArray, x: FloatArray, axis: int) -> FloatArray:
    """``ms`` set to exactly 0 where every run scores every topic the same (rounding left aside)."""
    identical = (x == np.take(x, [0], axis=axis)).all(axis=(-2, -1))
    return np.where(identical, 0.0, ms)
