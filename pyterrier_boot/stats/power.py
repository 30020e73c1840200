"""Effect size, statistical power and topic-set size for paired comparisons (Kanoulas).

Given any three of topic-set size ``n``, standardised effect ``d``, significance level ``α`` and
power ``1 - β``, the fourth follows (Kanoulas, "Experimental design for collection-based comparative
evaluation", slides "Power and effect size", "Sample size", "Power analysis"). For the paired t-test
the statistic follows a noncentral t distribution with ``n - 1`` degrees of freedom and
noncentrality ``d √n`` when the population effect is ``d = μ_z / σ_z`` (``z = x - y``); the topic-set
size is found by search over ``n``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from scipy import stats

from .._checks import ALTERNATIVES, NAN_POLICIES, check_alpha, check_choice, check_positive_int
from .._results import TupleLike
from .._scores import as_paired, as_sample

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

    from .._typing import FloatArray, IntArray


__all__ = ["effect_size", "paired_power", "topics_needed", "power_analysis", "PowerAnalysis"]


def effect_size(x: npt.ArrayLike, y: npt.ArrayLike | None = None, *, nan_policy: str = "raise") -> float:
    """Standardised effect ``d = mean(z) / sd(z)`` of paired differences ``z = x - y`` (ddof=1).

    Args:
        x: scores of the first system, or the differences themselves when ``y`` is None.
        y: scores of the second system, paired with ``x``.

    Example (Kanoulas' 10 topics: mean 0.214, sd 0.291):
        >>> a = [.25, .43, .39, .75, .43, .15, .20, .52, .49, .50]
        >>> b = [.35, .84, .15, .75, .68, .85, .80, .50, .58, .75]
        >>> round(effect_size(b, a), 3)
        0.736
    """
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    if y is None:
        z = as_sample(x, "x", nan_policy=nan_policy)
    else:
        x, y = as_paired(x, y, nan_policy=nan_policy)
        z = x - y
    sd = z.std(ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(z.mean() / sd) if sd > 0 else (np.nan if z.mean() == 0 else float(np.sign(z.mean()) * np.inf))


def _power_iv(alpha, alternative):
    check_choice(alternative, "alternative", ALTERNATIVES)
    return check_alpha(alpha)


def two_tailed_power(crit: float | FloatArray, df: float | FloatArray, nc: float | FloatArray) -> Any:
    """``P(|T| > crit)`` for ``T`` noncentral t with ``df`` degrees of freedom and noncentrality ``nc``.

    The lower tail is computed as ``nct.sf(crit, df, -nc)``: scipy's ``nct.cdf`` returns NaN far
    in the lower tail for large ``df``.
    """
    return stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc)


def _power(n, d, alpha, alternative):
    n = np.asarray(n, dtype=float)
    d = np.asarray(d, dtype=float)
    df = n - 1
    nc = d * np.sqrt(n)
    if alternative == "two-sided":
        return two_tailed_power(stats.t.ppf(1 - alpha / 2, df), df, nc)
    if alternative == "greater":
        return stats.nct.sf(stats.t.ppf(1 - alpha, df), df, nc)
    return stats.nct.sf(stats.t.ppf(1 - alpha, df), df, -nc)  # lower tail, mirrored (see above)


def paired_power(n_topics: int | IntArray, effect_size: float | FloatArray, *,
                 alpha: float = 0.05, alternative: str = "two-sided") -> float | FloatArray:
    """Power of the paired t-test with ``n_topics`` topics against standardised effect ``effect_size``.

    ``alternative="greater"`` is the power to detect ``d > 0`` one-sided (``"less"``: ``d < 0``).
    Arrays broadcast.

    Example:
        >>> round(float(paired_power(50, 0.5)), 3)
        0.934
    """
    alpha = _power_iv(alpha, alternative)
    n = np.asarray(n_topics)
    if np.any(n < 2):
        raise ValueError(f"'n_topics' must be at least 2, got {n_topics}")
    d = np.asarray(effect_size, dtype=float)
    if not np.all(np.isfinite(d)):
        raise ValueError(f"'effect_size' must be finite, got {effect_size}")
    with np.errstate(over="ignore", invalid="ignore"):
        value = _power(n, d, alpha, alternative)
    if np.any(np.isnan(value)):
        raise ValueError(
            f"'effect_size' {effect_size} is too large for scipy's noncentral t distribution to give the "
            "power; such effects are detected with power 1 at any usual alpha"
        )
    return float(value) if np.ndim(value) == 0 else value


def topics_needed(effect_size: float, *, alpha: float = 0.05, power: float = 0.8,
                  alternative: str = "two-sided", max_topics: int = 1_000_000) -> int:
    """Smallest number of topics whose paired t-test reaches ``power`` against ``effect_size``.

    Searched over integers (doubling, then bisection; power grows with ``n``).

    Raises:
        ValueError: if the effect is 0 (or has the wrong sign for a one-sided ``alternative``), or
            more than ``max_topics`` topics would be needed.

    Example:
        >>> topics_needed(0.5, alpha=0.05, power=0.8)
        34
    """
    alpha = _power_iv(alpha, alternative)
    power = check_alpha(power, "power")
    max_topics = check_positive_int(max_topics, "max_topics", minimum=2)
    d = float(effect_size)
    if not np.isfinite(d) or d == 0 or (alternative == "greater" and d < 0) or (alternative == "less" and d > 0):
        raise ValueError(f"'effect_size' must be finite, non-zero and in the direction of "
                         f"alternative={alternative!r}; got {effect_size}")
    if _power(2, d, alpha, alternative) >= power:
        return 2
    hi = 4
    while _power(hi, d, alpha, alternative) < power:
        if hi >= max_topics:
            raise ValueError(f"more than max_topics={max_topics} topics would be needed for "
                             f"effect_size={d:g} at power {power}")
        hi = min(2 * hi, max_topics)
    lo = hi // 2  # power(lo) < power <= power(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _power(mid, d, alpha, alternative) >= power:
            hi = mid
        else:
            lo = mid
    return int(hi)


@dataclass(frozen=True, slots=True)
class PowerAnalysis(TupleLike):
    """Power analysis of a paired comparison; unpacks as ``power, topics_needed``.

    Attributes:
        power: power of the paired t-test at the current ``n_topics`` to detect ``difference``.
        topics_needed: topics needed to reach ``target_power`` for ``difference``.
        difference: the minimum detectable difference analysed (default: the observed one).
        sd: standard deviation of the paired differences, estimated from the data (ddof=1).
        effect_size: ``difference / sd``.
        n_topics, alpha, target_power, alternative: as used.
    """

    power: float
    topics_needed: int
    difference: float
    sd: float
    effect_size: float
    n_topics: int
    alpha: float
    target_power: float
    alternative: str
    _tuple_fields: ClassVar[tuple[str, ...]] = ("power", "topics_needed")


def power_analysis(x: npt.ArrayLike, y: npt.ArrayLike | None = None, *,
                   difference: float | None = None, alpha: float = 0.05, power: float = 0.8,
                   alternative: str = "two-sided", nan_policy: str = "raise") -> PowerAnalysis:
    """Power of the current design and topics needed, with the variance estimated from data.

    Args:
        x, y: paired per-topic scores (or ``x`` = differences when ``y`` is None).
        difference: minimum detectable difference in score units (e.g. 0.02 MAP); default the
            observed mean difference.
        alpha, power, alternative: significance level, target power, direction.

    Returns:
        PowerAnalysis

    Example:
        >>> a = [.25, .43, .39, .75, .43, .15, .20, .52, .49, .50]
        >>> b = [.35, .84, .15, .75, .68, .85, .80, .50, .58, .75]
        >>> res = power_analysis(b, a, difference=0.1)
        >>> res.topics_needed
        69
    """
    alpha = _power_iv(alpha, alternative)
    target = check_alpha(power, "power")
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    if y is None:
        z = as_sample(x, "x", nan_policy=nan_policy)
    else:
        x, y = as_paired(x, y, nan_policy=nan_policy)
        z = x - y
    sd = float(z.std(ddof=1))
    if sd == 0:
        raise ValueError("the paired differences have zero variance: power and topic-set size are undefined")
    diff = float(z.mean()) if difference is None else float(difference)
    d = diff / sd
    current = float(_power(z.size, d, alpha, alternative))
    needed = topics_needed(d, alpha=alpha, power=target, alternative=alternative)
    return PowerAnalysis(current, needed, diff, sd, d, int(z.size), alpha, target, alternative)
