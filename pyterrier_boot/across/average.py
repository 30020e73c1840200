"""The average over these collections (BEIR's average), with its interval.

The mean of the collections' effects ``ȳ = (1/C) Σ_c y_c`` varies only with the topics (and the
documents or seeds, if the collections' standard errors include them) sampled within each
collection: the collections themselves are fixed, so there is no between-collection variance. Its
variance is ``(1/C²) Σ_c s_c²`` (the stratified topic bootstrap's, topics resampled within each
collection) and its interval ``ȳ ± t_ν SE`` with Welch-Satterthwaite degrees of freedom
``ν = (Σ s_c²)² / Σ (s_c⁴ / ν_c)`` (normal when every ``ν_c`` is infinite, e.g. with the corpus in
the variance).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._quantiles import critical_value
from ..meta.random_effects import p_value

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["average_effects", "satterthwaite_df"]


def satterthwaite_df(se: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Welch-Satterthwaite degrees of freedom of a sum of independent terms with standard errors
    ``se`` and degrees of freedom ``df`` (first axis: the terms); infinite ``df`` adds nothing."""
    se, df = np.asarray(se, dtype=float), np.asarray(df, dtype=float)
    variance = se ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(np.isinf(df), 0.0, variance ** 2 / df).sum(axis=0)
        return np.where(share > 0, variance.sum(axis=0) ** 2 / share, np.inf)


def average_effects(estimate: npt.ArrayLike, se: npt.ArrayLike, df: npt.ArrayLike, *, confidence_level: float,
                    alternative: str = "two-sided") -> dict[str, Any]:
    """The average over the first axis (collections): ``estimate, se, df, ci_low, ci_high,
    statistic, pvalue`` (arrays over the other axes).

    Example:
        >>> out = average_effects([[0.10], [0.20]], [[0.03], [0.04]], [[49], [49]], confidence_level=0.95)
        >>> round(float(out["estimate"][0]), 3), round(float(out["se"][0]), 4), round(float(out["df"][0]), 1)
        (0.15, 0.025, 90.9)
    """
    estimate, se = np.asarray(estimate, dtype=float), np.asarray(se, dtype=float)
    C = estimate.shape[0]
    mean = estimate.mean(axis=0)
    error = np.sqrt((se ** 2).sum(axis=0)) / C
    nu = satterthwaite_df(se, df)
    half = critical_value(nu, confidence_level) * error
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.where(error > 0, mean / error, np.sign(mean) * np.inf)
    return {"estimate": mean, "se": error, "df": nu, "ci_low": mean - half, "ci_high": mean + half,
            "statistic": statistic, "pvalue": p_value(statistic, nu, alternative)}
