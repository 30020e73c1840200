"""Error rates and power from simulated decisions, with their Monte Carlo standard errors.

Pairs: the Type I error at ``alpha`` is the share of null simulations with ``p < alpha``; power at an
effect the share of that effect's simulations rejected with the observed difference in the true
direction; Type III the share rejected in the wrong direction (two-sided tests only). Each is a
binomial proportion over independent simulations, with standard error ``√(r(1 - r)/N)``.

Families: the family-wise error rate (FWER) is the share of null families with at least one
rejection; the false discovery rate (FDR) the mean false discovery proportion over families; power
and Type III the mean share of the truly different pairs rejected in the right or wrong direction.
Standard errors are the SD of the per-family values over ``√N``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .._typing import FloatArray

__all__ = ["proportion", "mean_and_se", "pair_rates"]


def proportion(hits: np.ndarray, valid: np.ndarray) -> tuple[float, float]:
    """``(rate, standard error)`` of the binomial proportion of ``hits`` among ``valid`` rows."""
    n = int(valid.sum())
    if n == 0:
        return np.nan, np.nan
    rate = float((hits & valid).sum() / n)
    return rate, float(np.sqrt(rate * (1 - rate) / n))


def mean_and_se(values: FloatArray) -> tuple[float, float]:
    """``(mean, standard error)`` of the non-NaN ``values``."""
    values = values[~np.isnan(values)]
    if values.size == 0:
        return np.nan, np.nan
    se = float(values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else np.nan
    return float(values.mean()), se


def pair_rates(null: FloatArray, effect: FloatArray, means: FloatArray, alpha: float,
               alternative: str) -> dict[str, tuple[float, float]]:
    """Rates of one test at one topic count and alternative.

    Args:
        null: null p-values ``(N,)``.
        effect: p-values ``(effects, N)`` under each effect.
        means: mean differences ``e - b`` ``(effects, N)`` (their sign is the observed direction).
        alpha, alternative: the level and the alternative the p-values are of.

    Returns:
        ``{"type_i": (rate, se), "power@<k>": ..., "type_iii@<k>": ..., "type_iii": ...}`` with ``k``
        the effect's index; ``type_iii`` pools the effects (NaN for one-sided alternatives).
    """
    out = {"type_i": proportion(null < alpha, ~np.isnan(null))}
    direction = -1.0 if alternative == "less" else 1.0
    wrong_all, valid_all = [], []
    for k in range(effect.shape[0]):
        valid = ~np.isnan(effect[k])
        reject = effect[k] < alpha
        right = np.sign(means[k]) * direction > 0
        out[f"power@{k}"] = proportion(reject & right, valid)
        wrong_all.append(reject & ~right & (means[k] != 0))
        valid_all.append(valid)
    if alternative == "two-sided" and wrong_all:
        out["type_iii"] = proportion(np.concatenate(wrong_all), np.concatenate(valid_all))
    else:
        out["type_iii"] = (np.nan, np.nan)
    return out
