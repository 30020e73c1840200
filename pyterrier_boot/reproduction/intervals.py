"""Topic-bootstrap intervals for the reproducibility measures, on per-topic numpy arrays.

Every function takes a :class:`~pyterrier_boot.ResamplePlan` over the topics, so that all figures
of one comparison are computed on the same resamples (paired), and returns percentile intervals
(the quantiles of the bootstrap distribution, as ``bootstrap_ci(method="percentile")``) as
``(estimate, low, high)``. Topics are treated as a sample from a population of topics; the
intervals include that variance only.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..stats.intervals import bootstrap_ci
from .measures import delta_relative_improvement, effect_ratio

if TYPE_CHECKING:
    import numpy.typing as npt

    from ..stats.resampling import ResamplePlan


__all__ = ["mean_interval", "rmse_interval", "effect_intervals", "percentile_interval"]


def percentile_interval(distribution: npt.ArrayLike, confidence_level: float = 0.95) -> tuple[float, float]:
    """Two-sided percentile interval of a 1-D bootstrap distribution (numpy's linear quantiles)."""
    tail = (1 - confidence_level) / 2
    with np.errstate(invalid="ignore"):
        low, high = np.quantile(np.asarray(distribution, dtype=float), [tail, 1 - tail])
    return float(low), float(high)


def _root_mean_square(sample, axis=-1):
    return np.sqrt(np.mean(sample ** 2, axis=axis))


def _bootstrap(values, statistic, plan, confidence_level):
    if np.ptp(values) == 0:  # nothing varies: a point interval (and no warning about it)
        value = float(values[0]) if statistic == "mean" else float(statistic(values))
        return value, value, value
    res = bootstrap_ci(values, statistic=statistic, method="percentile", confidence_level=confidence_level,
                       plan=plan)
    return float(res.statistic), float(res.confidence_interval.low), float(res.confidence_interval.high)


def mean_interval(values: npt.ArrayLike, plan: ResamplePlan, confidence_level: float = 0.95) -> tuple[float, float, float]:
    """Mean of per-topic values (KTU, RBO) with its interval. NaN topics (undefined values) are
    left out of the estimate and of every resample's mean; all NaN gives NaN."""
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    if finite.all():
        return _bootstrap(values, "mean", plan, confidence_level)
    if not finite.any():
        return float("nan"), float("nan"), float("nan")
    weights = plan.weights()
    with np.errstate(invalid="ignore", divide="ignore"):
        distribution = (weights @ np.where(finite, values, 0.0)) / (weights @ finite)
    return (float(values[finite].mean()), *percentile_interval(distribution, confidence_level))


def rmse_interval(original: npt.ArrayLike, reproduced: npt.ArrayLike, plan: ResamplePlan,
                  confidence_level: float = 0.95) -> tuple[float, float, float]:
    """RMSE of per-topic scores with its interval."""
    d = np.asarray(reproduced, dtype=float) - np.asarray(original, dtype=float)
    return _bootstrap(d, _root_mean_square, plan, confidence_level)


def effect_intervals(original_advanced: npt.ArrayLike, original_baseline: npt.ArrayLike,
                     reproduced_advanced: npt.ArrayLike, reproduced_baseline: npt.ArrayLike,
                     plan: ResamplePlan, confidence_level: float = 0.95) -> dict[str, tuple[float, float, float]]:
    """Effect Ratio and Delta Relative Improvement with their intervals, from the same resamples.

    Each resample's four mean scores come from the plan's topic counts (a matrix product); ER and
    DeltaRI of a resample are computed from them. Resamples where a denominator is 0 give inf or
    NaN, which the quantiles keep (an interval reaching infinity says the ratio is not estimable).

    Example:
        >>> import numpy as np
        >>> from pyterrier_boot import resample_plan
        >>> rng = np.random.default_rng(0)
        >>> base = rng.beta(2, 5, 40); adv = base + 0.05 + rng.normal(0, 0.03, 40)
        >>> out = effect_intervals(adv, base, adv - 0.01, base, resample_plan(40, rng=1))
        >>> est, low, high = out["ER"]
        >>> bool(low < est < high), round(est, 2)
        (True, 0.8)
    """
    arrays = [np.asarray(a, dtype=float) for a in (original_advanced, original_baseline, reproduced_advanced,
                                                    reproduced_baseline)]
    n = arrays[0].size
    weights = plan.weights()
    means = [(weights @ a / n)[:, None] for a in arrays]  # (B, 1): each resample's mean score
    out = {}
    for name, measure in (("ER", effect_ratio), ("DeltaRI", delta_relative_improvement)):
        estimate = float(measure(*arrays))  # type: ignore[arg-type]  # four arrays
        out[name] = (estimate, *percentile_interval(measure(*means), confidence_level))
    return out
