"""Topic-set size: how many topics a test collection needs to detect a given difference.

Kanoulas ("Experimental design for collection-based comparative evaluation", slides "Sample size",
"Power analysis"): with α, power ``1 - β`` and a minimum difference ``δ`` worth detecting, the
number of topics follows from the variance of per-topic score differences ``σ_d²``. Two designs:

* ``comparisons="pair"``: one paired t-test between two systems; effect ``d = δ / σ_d`` on the
  noncentral t (:func:`pyterrier_boot.stats.power.topics_needed`).
* ``comparisons="all_pairs"``: every pair among ``S`` systems, with the family-wise error held at
  α. We size for the *per-pair power*: the probability that one given pair whose true difference
  is ``δ`` is declared significant. Two adjustments:

  - ``"tukey"`` (default): Tukey's HSD with topics as blocks (the range statistic,
    :func:`pyterrier_boot.tukey_hsd`): a pair is significant when
    ``|mean_a - mean_b| / sqrt(MSE / n) > q_{1-α}(S, (S-1)(n-1))``. Under the normal additive
    model ``(mean_a - mean_b) / sqrt(2 MSE / n)`` is noncentral t with ``(S-1)(n-1)`` degrees of
    freedom and noncentrality ``δ √n / σ_d``, so the power is
    ``P(|T| > q / √2)`` exactly.
  - ``"bonferroni"``: a paired t-test per pair at level ``α / m``, ``m = S(S-1)/2`` (conservative).

The variance is either given (``variance=``, e.g. from
:meth:`~pyterrier_boot.meta.design.variance_decomposition.VarianceDecompositionResult.difference_variance`)
or estimated from a systems x topics matrix as ``σ_d² = 2 · MSE``, the residual mean square of the
two-way ANOVA ``score ~ system + topic`` pooled over all systems (for two systems exactly the
variance of their per-topic differences). A topic bootstrap of that estimate gives a percentile
interval for the topics needed (topics needed grows with the variance, so its interval is the
topics needed at the ends of the variance's interval).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import stats

from ..._checks import (
    ALTERNATIVES,
    check_alpha,
    check_choice,
    check_confidence_level,
    check_positive_int,
)
from ..._memory import (
    DEFAULT_MAX_MEMORY,
    check_n_resamples,
    require_resamples_memory,
    warn_interval_resolution,
)
from ..._quantiles import sorted_quantiles
from ..._results import ConfidenceInterval, TupleLike
from ..._scores import as_score_matrix
from ...stats.power import paired_power, topics_needed, two_tailed_power
from ...stats.resampling import as_resample_plan, planned_resamples, weighted_sums

if TYPE_CHECKING:
    import pandas as pd

    from ..._typing import FloatArray, RngLike, ScoresLike
    from ...stats.resampling import ResamplePlan


COMPARISONS = ("pair", "all_pairs")
ADJUSTMENTS = ("tukey", "bonferroni")

__all__ = ["topic_set_size", "TopicSetSizeResult", "difference_variance", "all_pairs_power"]


@dataclass(frozen=True, slots=True)
class TopicSetSizeResult(TupleLike):
    """Topics needed; unpacks as ``topics_needed, confidence_interval``.

    Attributes:
        topics_needed: the smallest topic-set size reaching ``power`` (from the observed variance).
        confidence_interval: ``ConfidenceInterval`` of ``topics_needed`` from the topic bootstrap
            of the variance, or None when the variance was given.
        achieved_power: the power at ``topics_needed``.
        difference: the minimum difference ``δ`` to detect (score units).
        variance: ``σ_d²``, variance of per-topic differences between two systems.
        effect_size: ``δ / σ_d``.
        variance_interval: percentile interval of ``σ_d²`` over topic resamples (or None).
        bootstrap_distribution: ``σ_d²`` on each topic resample (or None).
        comparisons, adjustment, n_systems, alpha, power, alternative, n_topics: as used
            (``n_topics``: topics in the scores, None for a given variance).
    """

    topics_needed: int
    confidence_interval: Any
    achieved_power: float
    difference: float
    variance: float
    effect_size: float
    comparisons: str
    adjustment: str | None
    n_systems: int | None
    alpha: float
    power: float
    alternative: str
    n_topics: int | None = None
    variance_interval: Any = None
    bootstrap_distribution: Any = None
    _tuple_fields: ClassVar[tuple[str, ...]] = ("topics_needed", "confidence_interval")

    def to_frame(self) -> pd.DataFrame:
        """One-row table of the design."""
        import pandas as pd

        ci = self.confidence_interval
        return pd.DataFrame([{
            "comparisons": self.comparisons, "adjustment": self.adjustment, "n_systems": self.n_systems,
            "difference": self.difference, "variance": self.variance, "effect_size": self.effect_size,
            "alpha": self.alpha, "power": self.power, "topics_needed": self.topics_needed,
            "ci_low": None if ci is None else ci.low, "ci_high": None if ci is None else ci.high,
        }])


def _mse_two_way(X):
    """Residual mean square of ``score ~ system + topic`` (no replication)."""
    S, n = X.shape
    resid = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    return float((resid ** 2).sum() / ((S - 1) * (n - 1)))


def difference_variance(scores: ScoresLike) -> float:
    """``σ_d² = 2 · MSE`` of a systems x topics matrix (the paired-difference variance, pooled).

    Example:
        >>> import numpy as np
        >>> x = np.array([[0.2, 0.4, 0.1, 0.5], [0.3, 0.4, 0.3, 0.6]])
        >>> bool(np.isclose(difference_variance(x), np.var(x[0] - x[1], ddof=1)))
        True
    """
    X = as_score_matrix(scores, "scores", allow_1d=False).values
    if X.shape[0] < 2:
        raise ValueError(f"'scores' needs at least 2 systems to estimate the variance of differences, got {X.shape[0]}")
    return 2 * _mse_two_way(X)


def _bootstrap_variance(X, plan):
    """``2 · MSE`` on each topic resample: ``(B,)``."""
    S, n = X.shape
    centred = X - X.mean(axis=0, keepdims=True)               # x[s,q] - mean_q
    within = weighted_sums(plan, (centred ** 2).sum(axis=0))[0]  # Σ_q w_q Σ_s c_sq²
    sys_means = weighted_sums(plan, centred) / n                 # (S, B): c̄_s on the resample
    sse = within - n * ((sys_means - sys_means.mean(axis=0)) ** 2).sum(axis=0)
    return 2 * np.maximum(sse, 0.0) / ((S - 1) * (n - 1))


def _tukey_power(n, effect, n_systems, alpha):
    n = np.asarray(n, dtype=float)
    df = (n_systems - 1) * (n - 1)
    crit = stats.studentized_range.ppf(1 - alpha, n_systems, df) / np.sqrt(2)
    nc = effect * np.sqrt(n)
    return two_tailed_power(crit, df, nc)


def all_pairs_power(n_topics: int, effect_size: float, n_systems: int, *, adjustment: str = "tukey",
                    alpha: float = 0.05) -> float | FloatArray:
    """Per-pair power of an all-pairs comparison of ``n_systems`` systems on ``n_topics`` topics.

    ``effect_size`` is ``δ / σ_d``. See the module docstring for the two adjustments.

    Example:
        >>> round(float(all_pairs_power(50, 0.5, 2)), 3) == round(float(paired_power(50, 0.5)), 3)
        True
    """
    check_choice(adjustment, "adjustment", ADJUSTMENTS)
    alpha = check_alpha(alpha)
    n_systems = check_positive_int(n_systems, "n_systems", minimum=2)
    if np.any(np.asarray(n_topics) < 2):
        raise ValueError(f"'n_topics' must be at least 2, got {n_topics}")
    if adjustment == "bonferroni":
        m = n_systems * (n_systems - 1) // 2
        return paired_power(n_topics, effect_size, alpha=alpha / m)
    value = _tukey_power(n_topics, effect_size, n_systems, alpha)
    return float(value) if np.ndim(value) == 0 else value


def _smallest_n(power_of, target, max_topics, effect):
    if power_of(2) >= target:
        return 2
    hi = 4
    while power_of(hi) < target:
        if hi >= max_topics:
            raise ValueError(f"more than max_topics={max_topics} topics would be needed for "
                             f"effect_size={effect:g} at power {target}")
        hi = min(2 * hi, max_topics)
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if power_of(mid) >= target:
            hi = mid
        else:
            lo = mid
    return int(hi)


def _needed(variance, difference, comparisons, adjustment, n_systems, alpha, power, alternative, max_topics):
    d = difference / np.sqrt(variance)
    if comparisons == "pair":
        n = topics_needed(d, alpha=alpha, power=power, alternative=alternative, max_topics=max_topics)
        return n, float(paired_power(n, d, alpha=alpha, alternative=alternative))
    if adjustment == "bonferroni":
        m = n_systems * (n_systems - 1) // 2
        n = topics_needed(d, alpha=alpha / m, power=power, max_topics=max_topics)
        return n, float(paired_power(n, d, alpha=alpha / m))
    # The critical value with infinite degrees of freedom is smaller than the exact one, so sizing
    # with it gives a lower bound; the exact search then starts there (studentized_range.ppf is
    # slow for finite df, fast for df = inf).
    crit_inf = stats.studentized_range.ppf(1 - alpha, n_systems, np.inf) / np.sqrt(2)

    def optimistic(k):
        return two_tailed_power(crit_inf, (n_systems - 1) * (k - 1), d * np.sqrt(k))

    n = _smallest_n(optimistic, power, max_topics, d)
    step = 1
    lo = n - 1  # power(lo) < target is known for the bound, hence for the exact power
    while _tukey_power(n, d, n_systems, alpha) < power:
        if n >= max_topics:
            raise ValueError(f"more than max_topics={max_topics} topics would be needed for "
                             f"effect_size={d:g} at power {power}")
        lo, n = n, min(n + step, max_topics)
        step *= 2
    while n - lo > 1:
        mid = (lo + n) // 2
        if _tukey_power(mid, d, n_systems, alpha) >= power:
            n = mid
        else:
            lo = mid
    return n, float(_tukey_power(n, d, n_systems, alpha))


def _topic_set_size_iv(scores, variance, difference, comparisons, adjustment, n_systems, alpha, power,
                       alternative, n_resamples, confidence_level, max_topics):
    check_choice(comparisons, "comparisons", COMPARISONS)
    check_choice(adjustment, "adjustment", ADJUSTMENTS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    if comparisons == "all_pairs" and alternative != "two-sided":
        raise ValueError("comparisons='all_pairs' is two-sided only; got alternative="
                         f"{alternative!r}")
    alpha = check_alpha(alpha)
    power = check_alpha(power, "power")
    n_resamples = check_n_resamples(n_resamples)
    confidence_level = check_confidence_level(confidence_level)
    max_topics = check_positive_int(max_topics, "max_topics", minimum=2)
    try:
        difference = float(difference)
    except (TypeError, ValueError):
        raise TypeError(f"'difference' must be a number (score units), got {type(difference).__name__}") from None
    if not np.isfinite(difference) or difference == 0:
        raise ValueError(f"'difference' must be finite and non-zero, got {difference}")
    if (alternative == "greater" and difference < 0) or (alternative == "less" and difference > 0):
        raise ValueError(f"'difference'={difference} is in the wrong direction for alternative={alternative!r}")
    if alternative == "two-sided":
        difference = abs(difference)
    if (scores is None) == (variance is None):
        raise ValueError("give either 'scores' (a systems x topics matrix) or 'variance' (of per-topic "
                         "differences), not both or neither")
    if variance is not None:
        try:
            variance = float(variance)
        except (TypeError, ValueError):
            raise TypeError(f"'variance' must be a number, got {type(variance).__name__}") from None
        if not np.isfinite(variance) or variance <= 0:
            raise ValueError(f"'variance' must be positive and finite, got {variance}")
    if n_systems is not None:
        n_systems = check_positive_int(n_systems, "n_systems", minimum=2)
    return difference, alpha, power, n_resamples, confidence_level, max_topics, variance, n_systems


def topic_set_size(scores: ScoresLike | None = None, *, difference: float,
                   variance: str | None = None, comparisons: str = "pair",
                   adjustment: str = "tukey", n_systems: int | None = None, alpha: float = 0.05,
                   power: float = 0.8, alternative: str = "two-sided", n_resamples: int = 1000,
                   confidence_level: float = 0.95, rng: RngLike = None, plan: ResamplePlan | None = None,
                   max_topics: int = 100_000, max_memory: int | str | None = DEFAULT_MAX_MEMORY) -> TopicSetSizeResult:
    """Topics needed to detect a difference ``δ`` with level ``alpha`` and the given ``power``.

    Args:
        scores: a systems x topics array or a DataFrame with one row per topic and one column per
            system (at least 2 systems) whose
            variance stands for the new collection's; or None with ``variance``.
        difference: ``δ``, the smallest difference worth detecting, in score units (e.g. 0.05 AP).
        variance: ``σ_d²``, the variance of per-topic differences between two systems, when known
            (from a pilot, the literature or the mixed model); exclusive with ``scores``.
        comparisons: ``"pair"`` (one paired t-test) or ``"all_pairs"`` (all pairs of
            ``n_systems`` systems with family-wise error ``alpha``).
        adjustment: for ``"all_pairs"``: ``"tukey"`` (range statistic, default) or ``"bonferroni"``.
        n_systems: systems compared for ``"all_pairs"`` (default: the rows of ``scores``).
        alpha, power, alternative: level, target power, direction (``"pair"`` only).
        n_resamples, confidence_level, rng, plan: the topic bootstrap of the variance (with ``scores``).
        max_topics: give up beyond this size. max_memory: as :func:`~pyterrier_boot.bootstrap_ci`.

    Returns:
        TopicSetSizeResult (``topics_needed``, its ``confidence_interval``, ``to_frame()``).

    Example:
        >>> res = topic_set_size(difference=0.05, variance=0.02)                 # one pair
        >>> res.topics_needed
        65
        >>> topic_set_size(difference=0.05, variance=0.02, comparisons="all_pairs",
        ...                n_systems=10).topics_needed                            # Tukey HSD
        129

    References:
        Kanoulas, E. Experimental design for collection-based comparative evaluation (slides:
        "Sample size", "Power analysis"); Tukey (1949); Sakai, T. (2016). Topic set size design.
        Information Retrieval Journal 19.
    """
    (difference, alpha, power, n_resamples, confidence_level, max_topics, variance,
     n_systems) = _topic_set_size_iv(scores, variance, difference, comparisons, adjustment, n_systems,
                                     alpha, power, alternative, n_resamples, confidence_level, max_topics)
    boot = var_ci = n_topics = None
    if scores is not None:
        X, variance = _variance_of(scores)
        n_topics = X.shape[1]
        n_systems = X.shape[0] if n_systems is None else n_systems
        boot, var_ci = _variance_interval(X, plan, n_resamples, rng, confidence_level, max_memory)
    if comparisons == "all_pairs" and n_systems is None:
        raise ValueError("comparisons='all_pairs' with a given 'variance' needs 'n_systems'")
    args = (difference, comparisons, adjustment, n_systems, alpha, power, alternative, max_topics)
    n, achieved = _needed(variance, *args)
    ci = None if var_ci is None else ConfidenceInterval(*[_needed(v, *args)[0] if v > 0 else 2 for v in var_ci])
    return TopicSetSizeResult(
        topics_needed=n, confidence_interval=ci, achieved_power=achieved, difference=difference,
        variance=float(variance), effect_size=difference / float(np.sqrt(variance)), comparisons=comparisons,
        adjustment=adjustment if comparisons == "all_pairs" else None,
        n_systems=n_systems, alpha=alpha, power=power, alternative=alternative, n_topics=n_topics,
        variance_interval=var_ci, bootstrap_distribution=boot,
    )


def _variance_of(scores):
    """The score matrix and ``2 · MSE`` of its two-way (system + topic) fit: the variance of differences."""
    X = as_score_matrix(scores, "scores", allow_1d=False).values
    if X.shape[0] < 2:
        raise ValueError(f"'scores' needs at least 2 systems to estimate the variance of "
                         f"differences, got {X.shape[0]}")
    variance = 2 * _mse_two_way(X)
    if variance <= 0:
        raise ValueError("the per-topic differences have zero variance (the scores fit "
                         "'system + topic' exactly): topic-set size is undefined")
    return X, variance


def _variance_interval(X, plan, n_resamples, rng, confidence_level, max_memory):
    """The bootstrap distribution of the variance over topic resamples, and its percentile interval."""
    n_topics = X.shape[1]
    B = planned_resamples(plan, n_resamples)
    max_memory = require_resamples_memory(
        B, max_memory, what=f"the bootstrap of the variance of {X.shape[0]:,} systems x {n_topics:,} topics",
        plan_topics=n_topics if plan is None else 0, floats=3 * X.shape[0] + 4)
    warn_interval_resolution(B, confidence_level)
    used = as_resample_plan(plan, n_topics, n_resamples, rng, max_memory)
    boot = _bootstrap_variance(X, used)
    tail = (1 - confidence_level) / 2
    low, high = sorted_quantiles(np.sort(boot)[None, :], [tail, 1 - tail])[0]
    return boot, ConfidenceInterval(float(low), float(high))
