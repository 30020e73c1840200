"""Equivalence tests: two one-sided t-tests (TOST; Schuirmann 1987).

A significance test asks whether two means differ; failing to reject says nothing about them
being the same. TOST turns the question round: the null hypothesis is that the population mean
difference lies *outside* the equivalence margin, ``|mu_x - mu_y| >= margin``, and it is rejected
(equivalence is declared) when both one-sided t-tests reject, ``mu_x - mu_y > -margin`` and
``mu_x - mu_y < margin``. The p-value is the larger of the two one-sided p-values.

The matching interval is the ``1 - 2 alpha`` t interval of the mean difference: equivalence at
level ``alpha`` is declared exactly when that interval lies inside ``(-margin, margin)``.

The margin is the user's statement of "too small to matter", fixed before looking at the data.
A relative margin (a share of the reference mean) is turned into an absolute one from the
observed reference mean and then treated as fixed; its own sampling error is not part of the test.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from scipy import stats

from .._results import ConfidenceInterval, TupleLike

if TYPE_CHECKING:
    import numpy.typing as npt


__all__ = ["EquivalenceTestResult", "paired_tost", "unpaired_tost"]


@dataclass(frozen=True, slots=True)
class EquivalenceTestResult(TupleLike):
    """Result of a TOST equivalence test; unpacks as ``statistic, pvalue``.

    Attributes:
        statistic: the t statistic of the one-sided test with the larger p-value (the binding one).
        pvalue: ``max(pvalue_lower, pvalue_upper)``; equivalence is declared when it is below alpha.
        pvalue_lower, pvalue_upper: p-values of ``H0: mu_x - mu_y <= -margin`` and of
            ``H0: mu_x - mu_y >= margin``.
        statistic_lower, statistic_upper: their t statistics.
        difference: ``mean(x) - mean(y)``.
        confidence_interval: the ``1 - 2 alpha`` t interval of the population mean difference.
        margin: the absolute equivalence margin used (equivalence region ``(-margin, margin)``).
        equivalent: ``pvalue < alpha``, the same as the interval lying inside the region.
        alpha: the level of each one-sided test.
        df: degrees of freedom of the t distribution.
        method: ``"paired"``, ``"pooled"`` or ``"welch"``.
        n_x, n_y: sample sizes (equal for the paired test).
    """

    statistic: float
    pvalue: float
    pvalue_lower: float
    pvalue_upper: float
    statistic_lower: float
    statistic_upper: float
    difference: float
    confidence_interval: ConfidenceInterval
    margin: float
    equivalent: bool
    alpha: float
    df: float
    method: str
    n_x: int
    n_y: int
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")

    def __repr__(self):
        ci = self.confidence_interval
        return (f"EquivalenceTestResult(method={self.method!r}, statistic={self.statistic:.6g}, "
                f"pvalue={self.pvalue:.6g}, difference={self.difference:.6g}, margin={self.margin:.6g}, "
                f"confidence_interval=({ci.low:.6g}, {ci.high:.6g}), equivalent={self.equivalent})")


def _sample(values, name):
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"'{name}' must be a 1-D array of numbers") from None
    if array.ndim != 1:
        raise ValueError(f"'{name}' must be 1-D, got shape {array.shape}")
    if array.size < 2:
        raise ValueError(f"'{name}' needs at least 2 values, got {array.size}")
    if not np.isfinite(array).all():
        raise ValueError(f"'{name}' holds NaN or infinite values")
    return array


def resolve_margin(margin: float | None, relative_margin: float | None, reference_mean: float) -> float:
    """The absolute margin from ``margin`` or ``relative_margin * |reference_mean|`` (one of them)."""
    if (margin is None) == (relative_margin is None):
        raise ValueError("give exactly one of 'margin' (absolute) and 'relative_margin' (a share of the "
                         "reference mean)")
    name, value = ("margin", margin) if margin is not None else ("relative_margin", relative_margin)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"'{name}' must be a positive number, got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"'{name}' must be a positive finite number, got {value!r}")
    absolute = float(value) if margin is not None else float(value) * abs(float(reference_mean))
    if absolute <= 0:
        raise ValueError("'relative_margin' gives a zero margin because the reference mean is 0; "
                         "give an absolute 'margin'")
    return absolute


def _check_alpha(alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0 < alpha < 0.5:
        raise ValueError(f"'alpha' must be a number in (0, 0.5), got {alpha!r}")
    return float(alpha)


def _tost(diff, se, df, margin, alpha, method, n_x, n_y):
    with np.errstate(divide="ignore", invalid="ignore"):
        t_lower = np.float64(diff + margin) / se
        t_upper = np.float64(diff - margin) / se
    if se == 0:  # all differences equal: the mean is known exactly
        p_lower = 0.0 if diff > -margin else 1.0
        p_upper = 0.0 if diff < margin else 1.0
        p = max(p_lower, p_upper)
        low = high = diff
    else:
        p_lower = float(stats.t.sf(t_lower, df))
        p_upper = float(stats.t.cdf(t_upper, df))
        p = max(p_lower, p_upper)
        crit = float(stats.t.ppf(1 - alpha, df))
        low, high = diff - crit * se, diff + crit * se
    binding_lower = p_lower >= p_upper
    return EquivalenceTestResult(
        statistic=float(t_lower if binding_lower else t_upper), pvalue=float(p),
        pvalue_lower=float(p_lower), pvalue_upper=float(p_upper),
        statistic_lower=float(t_lower), statistic_upper=float(t_upper), difference=float(diff),
        confidence_interval=ConfidenceInterval(float(low), float(high)), margin=float(margin),
        equivalent=bool(p < alpha), alpha=alpha, df=float(df), method=method, n_x=n_x, n_y=n_y)


def paired_tost(x: npt.ArrayLike, y: npt.ArrayLike, *, margin: float | None = None,
                relative_margin: float | None = None, alpha: float = 0.05) -> EquivalenceTestResult:
    """Paired TOST equivalence test of ``mean(x - y)`` against ``(-margin, margin)`` (Schuirmann 1987).

    Args:
        x, y: per-topic scores on the same topics, in the same order (e.g. reproduced and
            original run).
        margin: absolute equivalence margin (> 0), in score units.
        relative_margin: instead of ``margin``, a share of ``|mean(y)|`` (0.05 = 5% of the
            reference mean); the resulting margin is then treated as fixed.
        alpha: level of each one-sided test; the matching interval has confidence ``1 - 2 alpha``.

    Returns:
        EquivalenceTestResult. Equals statsmodels' ``ttost_paired(x, y, -margin, margin)``.

    When all differences are equal the standard error is 0: equivalence is declared (p = 0)
    exactly when that difference lies inside the margin, else p = 1.

    Example:
        >>> x = [0.31, 0.42, 0.25, 0.50, 0.38, 0.29]
        >>> y = [0.30, 0.44, 0.25, 0.48, 0.39, 0.30]
        >>> res = paired_tost(x, y, margin=0.03)
        >>> bool(res.equivalent), bool(-0.03 < res.confidence_interval.low < res.confidence_interval.high < 0.03)
        (True, True)

    References:
        Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
        approach for assessing the equivalence of average bioavailability. J. Pharmacokinetics and
        Biopharmaceutics 15(6).
    """
    x = _sample(x, "x")
    y = _sample(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"'x' and 'y' must have the same length (paired topics), got {x.size} and {y.size}")
    alpha = _check_alpha(alpha)
    margin = resolve_margin(margin, relative_margin, y.mean())
    d = x - y
    n = d.size
    se = float(d.std(ddof=1) / np.sqrt(n))
    return _tost(float(d.mean()), se, n - 1, margin, alpha, "paired", n, n)


def unpaired_tost(x: npt.ArrayLike, y: npt.ArrayLike, *, margin: float | None = None,
                  relative_margin: float | None = None, alpha: float = 0.05, equal_var: bool = True) -> EquivalenceTestResult:
    """Unpaired (two-sample) TOST of ``mean(x) - mean(y)`` against ``(-margin, margin)``.

    For samples that do not pair up, e.g. a replication on other topics. ``equal_var=True`` uses
    the pooled variance (Student), ``False`` Welch's standard error and degrees of freedom.
    Other arguments as :func:`paired_tost`; ``relative_margin`` is a share of ``|mean(y)|``.

    Returns:
        EquivalenceTestResult. Equals statsmodels' ``ttost_ind(x, y, -margin, margin,
        usevar="pooled" | "unequal")``.

    Example:
        >>> res = unpaired_tost([0.31, 0.42, 0.25, 0.50], [0.30, 0.44, 0.27, 0.48, 0.39], margin=0.2)
        >>> round(res.difference, 3), bool(res.equivalent)
        (-0.006, True)
    """
    x = _sample(x, "x")
    y = _sample(y, "y")
    alpha = _check_alpha(alpha)
    if not isinstance(equal_var, (bool, np.bool_)):
        raise TypeError(f"'equal_var' must be True or False, got {equal_var!r}")
    margin = resolve_margin(margin, relative_margin, y.mean())
    nx, ny = x.size, y.size
    vx, vy = x.var(ddof=1), y.var(ddof=1)
    if equal_var:
        df = nx + ny - 2
        pooled = ((nx - 1) * vx + (ny - 1) * vy) / df
        se = float(np.sqrt(pooled * (1 / nx + 1 / ny)))
        method = "pooled"
    else:
        a, b = vx / nx, vy / ny
        se = float(np.sqrt(a + b))
        df = (a + b) ** 2 / (a ** 2 / (nx - 1) + b ** 2 / (ny - 1)) if se > 0 else nx + ny - 2
        method = "welch"
    return _tost(float(x.mean() - y.mean()), se, df, margin, alpha, method, nx, ny)
