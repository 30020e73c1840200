"""t intervals and tests from an estimated variance and its degrees of freedom.

The interval ``estimate ± t_{df, 1 - alpha/2} se`` and the two-sided test of ``estimate = 0``
(``p = 2 P(T_df > |estimate| / se)``) come from the same numbers, so the interval excludes 0
exactly when ``p < alpha``: one story per row. Where the variance is 0 (every topic gives the
same difference and the runs do not vary) the conventions of the paired t-test of
:mod:`pyterrier_boot.stats.significance` apply: ``p = 1``, the interval ``[0, 0]`` for a zero
difference and the whole line otherwise; a mean with zero variance gets ``[mean, mean]``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray
    from .variance import VarianceEstimate

__all__ = ["TInference", "t_inference"]


@dataclass(frozen=True)
class TInference:
    """Estimates with their standard errors, degrees of freedom, tests and intervals (per series)."""

    estimate: FloatArray
    standard_error: FloatArray
    df: FloatArray
    statistic: FloatArray
    pvalue: FloatArray
    low: FloatArray
    high: FloatArray


def t_inference(estimate: npt.ArrayLike, variance: VarianceEstimate, *, alpha: float = 0.05,
                difference: bool = True) -> TInference:
    """The t test of ``estimate = 0`` and the ``1 - alpha`` interval it inverts.

    Args:
        estimate: the estimates (a mean, or a mean difference), per series.
        variance: their :class:`~pyterrier_boot.seeds.variance.VarianceEstimate`.
        alpha: the level of the interval (``1 - confidence_level``).
        difference: zero-variance rows follow the paired t-test (``[0, 0]`` or the whole line)
            when True; a mean's interval is ``[mean, mean]`` otherwise.

    Example:
        >>> from pyterrier_boot.seeds.variance import VarianceEstimate
        >>> res = t_inference([0.05], VarianceEstimate(np.array([0.0004]), np.array([9.0]), np.zeros(1)))
        >>> round(float(res.pvalue[0]), 4), round(float(res.low[0]), 4)
        (0.0339, 0.0048)
    """
    est = np.asarray(estimate, dtype=float)
    se = np.sqrt(np.asarray(variance.variance, dtype=float))
    df = np.asarray(variance.df, dtype=float)
    positive = se > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.where(positive, est / np.where(positive, se, 1.0), np.nan)
    pvalue = np.where(positive, 2 * stats.t.sf(np.abs(statistic), df), 1.0)
    pvalue = np.where(np.isnan(se), np.nan, pvalue)
    half = stats.t.isf(alpha / 2, df) * se
    low, high = est - half, est + half
    flat = ~positive & ~np.isnan(se)
    if difference:
        low = np.where(flat, np.where(est == 0, 0.0, -np.inf), low)
        high = np.where(flat, np.where(est == 0, 0.0, np.inf), high)
    else:
        low, high = np.where(flat, est, low), np.where(flat, est, high)
    return TInference(est, se, df, statistic, pvalue, low, high)
