"""Significance tests for a pair of systems over the same topics.

Paired tests (``x[i]`` and ``y[i]`` are the two systems' scores on topic ``i``):

* :func:`paired_bootstrap_test`: Sakai's studentised shift method (Sakai 2007, §5.1, Fig. 2-3);
* :func:`randomization_test`: per-topic sign flips of ``x - y`` (Fisher's randomisation test),
  exact when ``2**n <= n_resamples``;
* :func:`t_test`, :func:`wilcoxon_test`, :func:`sign_test`: the classical tests, computed by scipy
  (``ttest_rel``, ``wilcoxon``, ``binomtest``).

And :func:`unpaired_bootstrap_test` (Sakai 2007, §5.2, Fig. 6-7) for any aggregate, including
the geometric mean, and for topic sets that differ.

Every test takes ``x, y`` first, so it can be handed to ``pt.Experiment(test=...)`` unchanged
(PyTerrier calls ``test(system_scores, baseline_scores)`` and reads ``result[1]``). Each returns the
statistic, the p-value, the effect (mean difference ``x - y`` with a confidence interval) and a
standardised effect size ``mean(x - y) / sd(x - y)`` (Kanoulas). p-values from random resampling
are ``(count + 1) / (B + 1)``, never 0; exact enumerations give ``count / 2^n``.

Degenerate data: when every paired difference is 0 (or, for the t-based tests, when all
differences are equal, so their standard deviation is 0) the test statistic is undefined; the
tests then return ``pvalue = 1.0`` and emit a :class:`~pyterrier_boot.DegenerateWarning` instead
of failing.
"""
from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import stats

from .._batches import check_executor
from .._checks import ALTERNATIVES, NAN_POLICIES, check_choice, check_confidence_level, tolerance
from .._memory import (
    CHUNK_CELLS,
    DEFAULT_MAX_MEMORY,
    check_n_resamples,
    chunk_rows,
    require_resamples_memory,
    warn_interval_resolution,
    warn_pvalue_resolution,
)
from .._quantiles import one_sided, sorted_quantiles, tail_probabilities
from .._random import as_generator
from .._results import ConfidenceInterval, TupleLike
from .._scores import as_paired, as_sample
from .._warnings import DegenerateWarning, report
from .aggregates import get_aggregate
from .inversion import accept_count, alpha_of, invert_scan, kth_largest, kth_smallest
from .pvalues import sign_pvalues, wilcoxon_pvalues
from .resampling import (
    SignFlipPlan,
    as_resample_plan,
    as_sign_flip_plan,
    map_resamples,
    planned_resamples,
    studentized_pivot,
    weighted_sums,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from concurrent.futures import Executor

    import numpy.typing as npt

    from .._typing import FloatArray, RngLike
    from .aggregates import Aggregate
    from .resampling import ResamplePlan, SignFlipPlan


__all__ = [
    "PairedTestResult",
    "UnpairedTestResult",
    "paired_bootstrap_test",
    "unpaired_bootstrap_test",
    "randomization_test",
    "t_test",
    "wilcoxon_test",
    "sign_test",
]


@dataclass(frozen=True, slots=True)
class PairedTestResult(TupleLike):
    """Result of a paired test; unpacks as ``statistic, pvalue`` (``result[1]`` is the p-value).

    Attributes:
        statistic: the test statistic (t for the t-test and the paired bootstrap; the mean
            difference for the randomisation test; scipy's W for Wilcoxon; the share of wins
            among non-tied topics for the sign test).
        pvalue: the p-value for ``alternative``.
        difference: ``mean(x - y)``.
        confidence_interval: the interval the test inverts (:mod:`~pyterrier_boot.stats.inversion`):
            the t interval of the mean difference (t-test); the symmetric bootstrap-t interval from
            the same resamples (paired bootstrap); the shifts not rejected by the same sign flips
            (randomisation); the Hodges-Lehmann interval (Wilcoxon); the order-statistic interval of
            the median difference (sign test). It excludes 0 exactly when
            ``pvalue < 1 - confidence_level``; it is unbounded where the test cannot reject at that
            level (too few topics), and one-sided for one-sided alternatives.
        effect_size: ``mean(x - y) / sd(x - y)`` (standardised effect, Kanoulas; ddof=1).
        n_topics, wins, ties, losses: topics used; topics where ``x > y``, ``x == y``, ``x < y``.
        method, alternative, confidence_level: the options used.
        null_distribution: the statistic under the null on each resample (resampling tests).
        plan: the resample or sign-flip plan used (resampling tests); pass it as ``plan=`` to replay.
        estimate: the estimate of the test's model, the centre of its interval: the mean difference
            (t, paired bootstrap, randomisation), the Hodges-Lehmann estimate (Wilcoxon), the
            median difference (sign).
    """

    statistic: float
    pvalue: float
    difference: float
    confidence_interval: ConfidenceInterval
    effect_size: float
    n_topics: int
    wins: int
    ties: int
    losses: int
    method: str
    alternative: str
    confidence_level: float
    null_distribution: Any = None
    plan: Any = None
    estimate: float = float("nan")
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")

    def __repr__(self):
        ci = self.confidence_interval
        return (f"PairedTestResult(method={self.method!r}, statistic={self.statistic:.6g}, "
                f"pvalue={self.pvalue:.6g}, difference={self.difference:.6g}, "
                f"confidence_interval=({ci.low:.6g}, {ci.high:.6g}), effect_size={self.effect_size:.6g}, "
                f"n_topics={self.n_topics}, wins/ties/losses={self.wins}/{self.ties}/{self.losses})")


@dataclass(frozen=True, slots=True)
class UnpairedTestResult(TupleLike):
    """Result of :func:`unpaired_bootstrap_test`; unpacks as ``statistic, pvalue``.

    Attributes:
        statistic: ``M(x) - M(y)`` for the aggregate ``M`` (Sakai's d-hat).
        pvalue: the achieved significance level, ``(count + 1) / (B + 1)``.
        difference: same as ``statistic``.
        confidence_interval: percentile bootstrap interval of ``M(x) - M(y)``, resampling ``x``
            and ``y`` separately.
        effect_size: Cohen's d, ``(mean(x) - mean(y)) / pooled sd``.
        n_x, n_y: sample sizes.
        statistic_name, method, alternative, confidence_level: the options used.
        null_distribution: ``M(x*) - M(y*)`` on each resample of the pooled scores.
    """

    statistic: float
    pvalue: float
    difference: float
    confidence_interval: ConfidenceInterval
    effect_size: float
    n_x: int
    n_y: int
    statistic_name: str
    method: str
    alternative: str
    confidence_level: float
    null_distribution: Any = None
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")


# --------------------------------------------------------------------------------------------
# shared helpers


def _common_iv(alternative, confidence_level, nan_policy):
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    return check_confidence_level(confidence_level)


_DEGENERATE = {
    "zero": "all paired differences are 0 for {n} pair(s): {cases}; the test statistic is undefined; "
            "returning pvalue=1.0",
    "constant": "all paired differences are equal (zero variance) for {n} pair(s): {cases}; the t statistic "
                "is undefined or infinite; returning pvalue=1.0 and an unbounded interval (randomization_test "
                "and sign_test are defined for such data)",
}


def warn_degenerate(kind: str, mask: npt.ArrayLike, labels: Sequence[str] = ("x vs y",)) -> None:
    """Report the pairs in ``mask`` (``kind``: 'zero' or 'constant') as one DegenerateWarning per kind."""
    report(DegenerateWarning, _DEGENERATE[kind], (labels[i] for i in np.flatnonzero(mask).tolist()))


def warn_unbounded(test: str, mask: npt.ArrayLike, labels: Sequence[str] = ("x vs y",),
                   alpha: float = 0.05, n_topics: int | None = None) -> None:
    """Report the pairs in ``mask`` whose two-sided interval has an infinite end (one DegenerateWarning)."""
    topics = "" if n_topics is None else f" with {n_topics} topics"
    report(DegenerateWarning,
           f"the {test} test cannot reject some shifts at level alpha={alpha:.3g}{topics} (its smallest "
           "possible p-value is not below alpha, or too few resamples) for {n} pair(s): {cases}; the interval "
           "it inverts is unbounded on that side; use more topics, more resamples, or the t-test",
           (labels[i] for i in np.flatnonzero(mask).tolist()))


def _describe_diffs(D):
    """mean, sd (ddof=1), effect size, wins/ties/losses, degenerate masks of each row of D."""
    n = D.shape[1]
    mean = D.mean(axis=1)
    sd = D.std(axis=1, ddof=1)
    constant = np.ptp(D, axis=1) == 0
    zero = constant & (D[:, 0] == 0)
    sd = np.where(constant, 0.0, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = mean / sd
    return {
        "n": n,
        "mean": mean,
        "sd": sd,
        "effect_size": effect,
        "wins": (D > 0).sum(axis=1),
        "ties": (D == 0).sum(axis=1),
        "losses": (D < 0).sum(axis=1),
        "constant": constant,
        "zero": zero,
    }


def count_extreme(null: FloatArray, observed: npt.ArrayLike, alternative: str) -> npt.NDArray[np.int64]:
    """How many resampled statistics (``null``: pairs x resamples) are at least as extreme as ``observed``."""
    observed = np.asarray(observed, dtype=float)[:, None]
    with np.errstate(invalid="ignore"):
        tol = tolerance(observed)
        if alternative == "two-sided":
            return np.count_nonzero(np.abs(null) >= np.abs(observed) - tol, axis=1)
        if alternative == "greater":
            return np.count_nonzero(null >= observed - tol, axis=1)
        return np.count_nonzero(null <= observed + tol, axis=1)


# pairs evaluated at once by the vectorised cores: n_resamples * chunk floats per array
_CELLS = CHUNK_CELLS


def _chunks(n_series, n_resamples):
    size = max(1, chunk_rows(n_series, n_resamples, _CELLS))
    for start in range(0, n_series, size):
        yield slice(start, min(start + size, n_series))


# --------------------------------------------------------------------------------------------
# vectorised cores: D is (pairs, topics) of differences x - y; return dicts of per-pair arrays


def paired_bootstrap_core(D: FloatArray, plan: ResamplePlan, *, alternative: str = "two-sided",
                          confidence_level: float = 0.95, keep_null: bool = False, alpha: float | None = None,
                          inclusive: bool = False, executor: Executor | None = None,
                          intervals: bool = True) -> dict[Any, Any]:
    """Sakai's studentised paired bootstrap test for every row of ``D`` with one shared plan (its
    resamples computed in blocks on ``executor`` when given: :func:`~.resampling.map_resamples`).
    ``intervals=False`` leaves ``low``/``high`` NaN (p-values only, as every core).

    The interval is the one the test inverts: with ``h_b = |t*_b| * se``, the test counts
    ``h_b >= |mean|`` and the interval is ``mean ± h_(K)``, ``h_(K)`` the K-th largest ``h_b`` and
    ``K`` the smallest count the test does not reject at ``alpha`` (a symmetric bootstrap-t
    interval; one-sided alternatives use ``±t*_b * se``).
    """
    alpha = alpha_of(confidence_level) if alpha is None else alpha
    info = _describe_diffs(D)
    n = info["n"]
    mean = info["mean"]
    se = info["sd"] / np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = mean / se
    B = plan.n_resamples
    P = D.shape[0]
    pvalue = np.empty(P)
    half = np.full(P, np.nan)
    null_all = np.empty((P, B)) if keep_null else None
    K = accept_count(lambda c: (c + 1) / (B + 1), B, alpha, inclusive)
    sign = -1.0 if alternative == "less" else 1.0
    for sl in _chunks(P, B):
        null = map_resamples(studentized_pivot, D[sl] - mean[sl, None], plan, executor)
        with np.errstate(invalid="ignore", over="ignore"):
            reach = (np.abs(null) if alternative == "two-sided" else sign * null) * se[sl, None]
        reach = np.nan_to_num(reach, nan=0.0, posinf=np.inf, neginf=-np.inf)
        observed = np.abs(mean[sl]) if alternative == "two-sided" else sign * mean[sl]
        count = np.count_nonzero(reach >= observed[:, None], axis=1)
        pvalue[sl] = (count + 1) / (B + 1)
        if intervals:
            half[sl] = kth_largest(reach, K)
        if keep_null:
            null_all[sl] = null  # type: ignore[index]  # allocated when keep_null
    low, high = mean - half, mean + half
    if alternative == "greater":
        high = np.full(P, np.inf)
    elif alternative == "less":
        low = np.full(P, -np.inf)
    degenerate = info["constant"]
    pvalue[degenerate] = 1.0
    low, high = _degenerate_bounds(low, high, info, degenerate, alternative, intervals)
    t_obs = np.where(info["zero"], np.nan, t_obs)
    return dict(info, statistic=t_obs, pvalue=pvalue, low=low, high=high, estimate=mean.copy(),
                null=null_all, degenerate=degenerate)


def _degenerate_bounds(low, high, info, degenerate, alternative, intervals=True):
    """Rows where the test is undefined (``pvalue = 1``): all differences 0 give the interval
    ``[0, 0]`` (a ray from 0 when one-sided); all equal but not 0 (zero variance, t-based tests) give
    the whole line, since no shift is rejected."""
    if not intervals:
        return np.full(low.shape, np.nan), np.full(high.shape, np.nan)
    low, high = low.copy(), high.copy()
    zero = degenerate & info["zero"]
    constant = degenerate & ~info["zero"]
    low[zero] = -np.inf if alternative == "less" else 0.0
    high[zero] = np.inf if alternative == "greater" else 0.0
    low[constant], high[constant] = -np.inf, np.inf
    return low, high


def randomization_core(D: FloatArray, plan: SignFlipPlan, *, alternative: str = "two-sided",
                       confidence_level: float = 0.95, keep_null: bool = False, alpha: float | None = None,
                       inclusive: bool = False, executor: Executor | None = None,
                       intervals: bool = True) -> dict[Any, Any]:
    """Sign-flip randomisation test of the mean difference for every row of ``D``, and its interval
    (``intervals=False``: p-values only).

    A flip ``s`` with flipped topics ``T`` counts as extreme for the shifted differences ``d - delta``
    exactly when ``delta`` lies between the mean of ``d`` over ``T`` and over the kept topics
    (two-sided; ``delta >= mean_T`` for ``"greater"``). The count at ``delta = 0`` is the test's,
    and the set of ``delta`` whose count is not rejected is an interval whose ends are order
    statistics of those means: the interval the test inverts, from the same flips.
    """
    alpha = alpha_of(confidence_level) if alpha is None else alpha
    info = _describe_diffs(D)
    n = info["n"]
    mean = info["mean"]
    B = plan.n_resamples
    P = D.shape[0]
    exact = plan.exact
    flipped = np.count_nonzero(plan.signs < 0, axis=1).astype(float)  # |T| per flip
    kept = n - flipped
    pvalue = np.empty(P)
    low = np.empty(P)
    high = np.empty(P)
    null_all = np.empty((P, B)) if keep_null else None

    def p_of(count):
        return np.minimum(count / B if exact else (count + 1) / (B + 1), 1.0)

    K = accept_count(p_of, B, alpha, inclusive)
    for sl in _chunks(P, B):
        signed = map_resamples(_signed_sums, D[sl], plan, executor)  # sum_i s_i d_i
        total = D[sl].sum(axis=1)[:, None]
        tol = 100 * np.finfo(float).eps * np.abs(D[sl]).max(axis=1)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_t = (total - signed) / 2 / flipped  # mean over the flipped topics
            mean_k = (total + signed) / 2 / kept  # mean over the kept topics
        count, low[sl], high[sl] = _flip_counts(mean_t, mean_k, mean[sl, None], flipped, kept, tol, alternative,
                                                K if intervals else None)
        pvalue[sl] = p_of(count)
        if keep_null:
            null_all[sl] = signed / n  # type: ignore[index]  # allocated when keep_null
    pvalue[info["zero"]] = 1.0
    low, high = _degenerate_bounds(low, high, info, info["zero"], alternative, intervals)
    return dict(info, statistic=mean.copy(), pvalue=pvalue, low=low, high=high, estimate=mean.copy(),
                null=null_all, degenerate=info["zero"])


def _flip_counts(mean_t, mean_k, m, flipped, kept, tol, alternative, K):
    """Per row, the flips extreme at ``delta = 0`` and (``K`` given) the ends of the interval of the
    shifts not rejected: order statistics of the flipped and kept means (:func:`randomization_core`)."""
    ends = (np.nan, np.nan)
    if alternative == "two-sided":
        lo = np.where(flipped == 0, -np.inf, np.where(kept == 0, -np.inf, np.minimum(np.minimum(mean_t, mean_k), m)))
        hi = np.where(flipped == 0, np.inf, np.where(kept == 0, np.inf, np.maximum(np.maximum(mean_t, mean_k), m)))
        lo, hi = lo - tol, hi + tol
        if K is not None:
            ends = (kth_smallest(lo, K), kth_largest(hi, K))
        return np.count_nonzero((lo <= 0) & (hi >= 0), axis=1), *ends
    if alternative == "greater":
        v = np.where(flipped == 0, -np.inf, mean_t) - tol
        if K is not None:
            ends = (kth_smallest(v, K), np.inf)
        return np.count_nonzero(v <= 0, axis=1), *ends
    v = np.where(flipped == 0, np.inf, mean_t) + tol
    if K is not None:
        ends = (-np.inf, kth_largest(v, K))
    return np.count_nonzero(v >= 0, axis=1), *ends


def _signed_sums(D, plan):
    return weighted_sums(plan, D)


def t_core(D: FloatArray, *, alternative: str = "two-sided", confidence_level: float = 0.95,
           alpha: float | None = None, inclusive: bool = False, intervals: bool = True) -> dict[Any, Any]:
    """scipy's ``ttest_rel`` on every row of ``D`` (as a one-sample t-test of the differences),
    with its t interval of the mean difference at level ``1 - alpha`` (``intervals=False``: NaN)."""
    alpha = alpha_of(confidence_level) if alpha is None else alpha
    info = _describe_diffs(D)
    res = _ttest_differences(D, axis=1, alternative=alternative)
    statistic = np.asarray(res.statistic, dtype=float).copy()
    pvalue = np.asarray(res.pvalue, dtype=float).copy()
    low = high = np.full(D.shape[0], np.nan)
    if intervals:
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ci = res.confidence_interval(1 - alpha)
        low = np.asarray(ci.low, dtype=float).copy()
        high = np.asarray(ci.high, dtype=float).copy()
    degenerate = info["constant"]
    pvalue[degenerate] = 1.0
    low, high = _degenerate_bounds(low, high, info, degenerate, alternative, intervals)
    return dict(info, statistic=statistic, pvalue=pvalue, low=low, high=high, estimate=info["mean"].copy(),
                null=None, degenerate=degenerate)


def _ttest_differences(d: FloatArray, *, axis: int, alternative: str = "two-sided") -> Any:
    """The one paired t-test of the package: scipy's ``ttest_rel`` of the differences ``d`` against 0
    over ``axis`` (its divide-by-zero warnings silenced: zero variance is handled by the callers)."""
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return stats.ttest_rel(d, np.zeros_like(d), axis=axis, alternative=alternative)


def paired_t(differences: npt.ArrayLike, axis: int = -1) -> tuple[Any, Any, Any, Any]:
    """The paired t-test over topics (``axis``) of ``differences``, vectorised over the other axes.

    Returns:
        ``(mean, standard_error, t, pvalue)``, the two-sided t-test of :func:`t_core`
        (``scipy.stats.ttest_rel``); ``t`` and ``pvalue`` are NaN where all differences are equal.
    """
    d = np.asarray(differences, dtype=float)
    mean = d.mean(axis=axis)
    sd = d.std(axis=axis, ddof=1)
    res = _ttest_differences(d, axis=axis)
    return (mean, sd / np.sqrt(d.shape[axis]), np.where(sd > 0, res.statistic, np.nan),
            np.where(sd > 0, res.pvalue, np.nan))


def walsh_averages(d: FloatArray) -> FloatArray:
    """``(d_i + d_j) / 2`` for ``i <= j``: the Hodges-Lehmann estimate is their median."""
    i, j = np.triu_indices(d.size)
    return (d[i] + d[j]) / 2


def wilcoxon_core(D: FloatArray, *, alternative: str = "two-sided", confidence_level: float = 0.95,
                  zero_method: str = "wilcox", correction: bool = False, method: str = "auto",
                  alpha: float | None = None, inclusive: bool = False, intervals: bool = True) -> dict[Any, Any]:
    """scipy's ``wilcoxon`` on every row of ``D`` (each row as scipy tests it alone:
    :func:`~.pvalues.wilcoxon_pvalues`), with the Hodges-Lehmann interval it inverts.

    The estimate is the Hodges-Lehmann median of the Walsh averages; the interval is the set of
    shifts ``delta`` for which ``wilcoxon(d - delta)`` (same options, so the same exact or
    normal-approximation p-values) does not reject (:func:`~.inversion.invert_scan`).
    ``intervals=False`` gives the p-values only (estimate and interval NaN).
    """
    alpha = alpha_of(confidence_level) if alpha is None else alpha
    info = _describe_diffs(D)
    P = D.shape[0]
    options: dict[str, Any] = dict(alternative=alternative, zero_method=zero_method, correction=correction,
                                   method=method)
    statistic, pvalue = wilcoxon_pvalues(D, **options)
    low = np.full(P, np.nan)
    high = np.full(P, np.nan)
    estimate = np.full(P, np.nan)

    def p_at(d):
        return float(wilcoxon_pvalues(d[None, :], **options)[1][0])

    for i in range(P if intervals else 0):
        walsh = walsh_averages(D[i])
        estimate[i] = float(np.median(walsh))
        if info["zero"][i]:
            low[i] = high[i] = 0.0
            continue
        low[i], high[i] = invert_scan(D[i], p_at, estimate[i], walsh, alpha, alternative, inclusive, p0=pvalue[i])
    if intervals:
        low, high = one_sided(low, high, alternative)
    return dict(info, statistic=statistic, pvalue=pvalue, low=low, high=high, estimate=estimate, null=None,
                degenerate=info["zero"])


@functools.lru_cache(maxsize=65536)
def _binom_p(k, m, alternative):
    return float(sign_pvalues(k, m - k, alternative))


def sign_core(D: FloatArray, *, alternative: str = "two-sided", confidence_level: float = 0.95,
              alpha: float | None = None, inclusive: bool = False, intervals: bool = True) -> dict[Any, Any]:
    """Sign test (scipy's ``binomtest`` on wins among non-tied topics, :func:`~.pvalues.sign_pvalues`)
    on every row of ``D``, with the order-statistic interval of the median difference it inverts (the
    shifts ``delta`` for which the sign test of ``d - delta`` does not reject; its ends are data values).
    ``intervals=False`` gives the p-values only."""
    alpha = alpha_of(confidence_level) if alpha is None else alpha
    info = _describe_diffs(D)
    P = D.shape[0]
    wins, losses = info["wins"], info["losses"]
    tested = wins + losses > 0
    statistic = np.where(tested, wins / np.maximum(wins + losses, 1), np.nan)
    pvalue = sign_pvalues(wins, losses, alternative)
    low = np.full(P, np.nan)
    high = np.full(P, np.nan)
    estimate = np.median(D, axis=1)

    def p_at(d):
        return _binom_p(int(np.count_nonzero(d > 0)), int(np.count_nonzero(d)), alternative)

    for i in range(P if intervals else 0):
        if not tested[i]:
            low[i] = high[i] = 0.0
            continue
        low[i], high[i] = invert_scan(D[i], p_at, estimate[i], D[i], alpha, alternative, inclusive, p0=pvalue[i])
    if intervals:
        low, high = one_sided(low, high, alternative)
    return dict(info, statistic=statistic, pvalue=pvalue, low=low, high=high, estimate=estimate, null=None,
                degenerate=info["zero"])


def _result(core, method, alternative, confidence_level, plan=None):
    return PairedTestResult(
        statistic=float(core["statistic"][0]),
        pvalue=float(core["pvalue"][0]),
        difference=float(core["mean"][0]),
        confidence_interval=ConfidenceInterval(float(core["low"][0]), float(core["high"][0])),
        effect_size=float(core["effect_size"][0]),
        n_topics=int(core["n"]),
        wins=int(core["wins"][0]),
        ties=int(core["ties"][0]),
        losses=int(core["losses"][0]),
        method=method,
        alternative=alternative,
        confidence_level=confidence_level,
        null_distribution=None if core["null"] is None else core["null"][0],
        plan=plan,
        estimate=float(core["estimate"][0]),
    )


# --------------------------------------------------------------------------------------------
# public tests


def paired_bootstrap_test(x: npt.ArrayLike, y: npt.ArrayLike, *, alternative: str = "two-sided",
                          n_resamples: int = 10_000, confidence_level: float = 0.95,
                          rng: RngLike = None, plan: ResamplePlan | None = None, nan_policy: str = "raise",
                          max_memory: int | str | None = DEFAULT_MAX_MEMORY,
                          executor: Executor | None = None) -> PairedTestResult:
    """Sakai's paired bootstrap test (studentised shift method) of ``mean(x - y) = 0``.

    With ``z = x - y``, the statistic is ``t(z) = mean(z) / (sd(z)/√n)``. The null is imposed by
    shifting, ``w = z - mean(z)``; each topic resample ``b`` gives ``t(w*b)`` and the two-sided
    achieved significance level is the share of ``|t(w*b)| >= |t(z)|`` (Sakai 2007, Fig. 2-3),
    reported as ``(count + 1) / (B + 1)``. ``t(w*b)`` is also the bootstrap-t pivot, so the same
    resamples give the studentised confidence interval of the mean difference.

    Args:
        x, y: per-topic scores of the two systems, paired by position (arrays) or by index
            (two pandas Series).
        alternative: ``"two-sided"``, ``"greater"`` (``x`` better) or ``"less"``.
        n_resamples: bootstrap resamples ``B`` (Sakai used 1000).
        confidence_level: level of the interval of the mean difference.
        rng: seed or Generator (SPEC 7); pass ``functools.partial(paired_bootstrap_test, rng=1)``
            to ``pt.Experiment`` for reproducible p-values.
        plan: a :class:`ResamplePlan` to replay (overrides ``n_resamples`` and ``rng``).
        nan_policy: ``"raise"`` or ``"omit"`` (drop topics with a NaN or missing score, warning).
        max_memory: bytes the test may hold (default 1 GiB: the plan, ``10·B·n``, and a few
            ``B``-long arrays); more is a ValueError stating the estimate. Too few resamples for
            the interval's tails (``B < 40`` at 95%) or for a p-value below 0.05 (``B < 20``: it is
            at least ``1/(B+1)``) give a :class:`~pyterrier_boot.BootWarning`.
        executor: a ``concurrent.futures.Executor`` to compute blocks of resamples on; the same
            result (``pt_docs/scale.md``).

    Returns:
        PairedTestResult; ``null_distribution`` holds the ``t(w*b)``.

    A resample drawing topics with zero spread gets ``t(w*b) = ±inf`` (counted as extreme) or 0
    when its mean is 0 too.

    Example:
        >>> a = [.25, .43, .39, .75, .43, .15, .20, .52, .49, .50]
        >>> b = [.35, .84, .15, .75, .68, .85, .80, .50, .58, .75]
        >>> statistic, pvalue = paired_bootstrap_test(b, a, rng=1)
        >>> round(statistic, 2)
        2.33

    References:
        Sakai, T. (2007). Evaluating information retrieval metrics based on bootstrap hypothesis
        tests. IPSJ Digital Courier 3, §5.1.
    """
    confidence_level = _common_iv(alternative, confidence_level, nan_policy)
    n_resamples = check_n_resamples(n_resamples)
    x, y = as_paired(x, y, nan_policy=nan_policy)
    B = planned_resamples(plan, n_resamples)
    max_memory = require_resamples_memory(B, max_memory, what=f"a paired bootstrap test of {x.size:,} topics",
                                          plan_topics=0 if plan is not None else x.size, floats=6)
    used = as_resample_plan(plan, x.size, n_resamples, rng, max_memory)
    if not warn_interval_resolution(B, confidence_level, alternative, "bootstrap-t"):
        warn_pvalue_resolution(B)
    core = paired_bootstrap_core((x - y)[None, :], used, alternative=alternative, confidence_level=confidence_level,
                                 keep_null=True, executor=check_executor(executor))
    warn_degenerate("constant" if not core["zero"][0] else "zero", core["degenerate"])
    return _result(core, "paired_bootstrap", alternative, confidence_level, used)


def randomization_test(x: npt.ArrayLike, y: npt.ArrayLike, *, alternative: str = "two-sided",
                       n_resamples: int = 10_000, confidence_level: float = 0.95,
                       rng: RngLike = None, plan: SignFlipPlan | None = None, nan_policy: str = "raise",
                       max_memory: int | str | None = DEFAULT_MAX_MEMORY,
                       executor: Executor | None = None) -> PairedTestResult:
    """Paired randomisation (permutation) test of the mean difference by per-topic sign flips.

    Under the null the two systems' labels are exchangeable on each topic, so each difference
    ``x_i - y_i`` keeps or flips its sign with probability 1/2. The statistic is ``mean(x - y)``.
    When ``2**n <= n_resamples`` all ``2**n`` flips are enumerated and ``p = count / 2**n``
    (exact, equal to ``scipy.stats.permutation_test(..., permutation_type="samples")``);
    otherwise ``B`` random flips give ``p = (count + 1) / (B + 1)``. Two-sided counts
    ``|mean*| >= |mean|``.

    Args:
        x, y: paired per-topic scores.
        alternative, confidence_level, rng, nan_policy: as :func:`paired_bootstrap_test`.
        n_resamples: random sign flips ``B``; also the threshold for exact enumeration.
        plan: a :class:`SignFlipPlan` to replay.
        max_memory, executor: as :func:`paired_bootstrap_test`.

    Returns:
        PairedTestResult (its interval is the t interval of the mean difference).

    Example:
        >>> x = [0.42, 0.31, 0.55, 0.61, 0.27, 0.49, 0.38, 0.52]
        >>> y = [0.40, 0.25, 0.50, 0.52, 0.30, 0.41, 0.33, 0.45]
        >>> res = randomization_test(x, y)  # 2**8 = 256 <= 10,000: exact
        >>> res.pvalue
        0.0234375

    References:
        Smucker, Allan & Carterette (2007). A comparison of statistical significance tests for
        information retrieval evaluation. CIKM. See pt_docs/methods.md, "Tests for a pair of systems".
    """
    confidence_level = _common_iv(alternative, confidence_level, nan_policy)
    n_resamples = check_n_resamples(n_resamples)
    x, y = as_paired(x, y, nan_policy=nan_policy)
    B = planned_resamples(plan, n_resamples)
    exact = plan.exact if isinstance(plan, SignFlipPlan) else (x.size < 63 and 2 ** x.size <= B)
    size = None
    if plan is None and exact:
        B = 2 ** x.size
        size = f"n_resamples={n_resamples:,} (at least 2^{x.size}: all {B:,} sign flips enumerated)"
    max_memory = require_resamples_memory(B, max_memory, what=f"a randomisation test of {x.size:,} topics",
                                          plan_topics=0 if plan is not None else x.size, floats=3, size=size)
    used = as_sign_flip_plan(plan, x.size, n_resamples, rng, max_memory)
    if not used.exact:
        warn_pvalue_resolution(B)
    core = randomization_core((x - y)[None, :], used, alternative=alternative, confidence_level=confidence_level,
                              keep_null=True, executor=check_executor(executor))
    warn_degenerate("zero", core["degenerate"])
    method = "randomization_exact" if used.exact else "randomization"
    return _result(core, method, alternative, confidence_level, used)


def t_test(x: npt.ArrayLike, y: npt.ArrayLike, *, alternative: str = "two-sided",
           confidence_level: float = 0.95, nan_policy: str = "raise") -> PairedTestResult:
    """Paired t-test (``scipy.stats.ttest_rel``), with the effect and its t interval.

    Example (Kanoulas' slides: 10 topics, mean difference 0.214, sd 0.291, t = 2.33):
        >>> a = [.25, .43, .39, .75, .43, .15, .20, .52, .49, .50]
        >>> b = [.35, .84, .15, .75, .68, .85, .80, .50, .58, .75]
        >>> res = t_test(b, a, alternative="greater")
        >>> round(res.statistic, 2), round(res.pvalue, 2)
        (2.33, 0.02)
    """
    confidence_level = _common_iv(alternative, confidence_level, nan_policy)
    x, y = as_paired(x, y, nan_policy=nan_policy)
    core = t_core((x - y)[None, :], alternative=alternative, confidence_level=confidence_level)
    warn_degenerate("constant" if not core["zero"][0] else "zero", core["degenerate"])
    return _result(core, "t", alternative, confidence_level)


def wilcoxon_test(x: npt.ArrayLike, y: npt.ArrayLike, *, alternative: str = "two-sided",
                  confidence_level: float = 0.95, zero_method: str = "wilcox",
                  correction: bool = False, method: str = "auto", nan_policy: str = "raise") -> PairedTestResult:
    """Wilcoxon signed-rank test (``scipy.stats.wilcoxon`` with the same options).

    ``statistic`` is scipy's (the smaller rank sum for two-sided, ``W+`` otherwise). The interval
    reported with the effect is the t interval of the mean difference.

    Example:
        >>> res = wilcoxon_test([0.5, 0.6, 0.7, 0.8, 0.9], [0.4, 0.4, 0.5, 0.5, 0.5])
        >>> res.pvalue
        0.0625
    """
    confidence_level = _common_iv(alternative, confidence_level, nan_policy)
    check_choice(zero_method, "zero_method", ("wilcox", "pratt", "zsplit"))
    check_choice(method, "method", ("auto", "exact", "asymptotic"))
    x, y = as_paired(x, y, nan_policy=nan_policy)
    core = wilcoxon_core((x - y)[None, :], alternative=alternative, confidence_level=confidence_level,
                         zero_method=zero_method, correction=bool(correction), method=method)
    warn_degenerate("zero", core["degenerate"])
    return _result(core, "wilcoxon", alternative, confidence_level)


def sign_test(x: npt.ArrayLike, y: npt.ArrayLike, *, alternative: str = "two-sided",
              confidence_level: float = 0.95, nan_policy: str = "raise") -> PairedTestResult:
    """Sign test: ``scipy.stats.binomtest(wins, wins + losses, 0.5)``, ties dropped.

    ``statistic`` is the share of wins among non-tied topics (scipy's ``binomtest`` statistic).

    Example:
        >>> sign_test([0.5, 0.6, 0.7, 0.8, 0.9], [0.4, 0.4, 0.5, 0.5, 0.5]).pvalue
        0.0625
    """
    confidence_level = _common_iv(alternative, confidence_level, nan_policy)
    x, y = as_paired(x, y, nan_policy=nan_policy)
    core = sign_core((x - y)[None, :], alternative=alternative, confidence_level=confidence_level)
    warn_degenerate("zero", core["degenerate"])
    return _result(core, "sign", alternative, confidence_level)


def _cohens_d(x, y):
    nx, ny = x.size, y.size
    pooled = ((nx - 1) * x.var(ddof=1) + (ny - 1) * y.var(ddof=1)) / (nx + ny - 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float((x.mean() - y.mean()) / np.sqrt(pooled))


def unpaired_bootstrap_test(x: npt.ArrayLike, y: npt.ArrayLike, *,
                            statistic: str | Callable[..., Any] | Aggregate = "mean",
                            alternative: str = "two-sided", n_resamples: int = 10_000,
                            confidence_level: float = 0.95, rng: RngLike = None,
                            nan_policy: str = "raise",
                            max_memory: int | str | None = DEFAULT_MAX_MEMORY) -> UnpairedTestResult:
    """Sakai's unpaired bootstrap test of ``M(x) = M(y)`` for any aggregate ``M``.

    ``x`` and ``y`` need not share topics or length. The null is imposed by pooling: each resample
    draws ``n + m`` values from ``x ∪ y``, the first ``n`` form ``x*``; the two-sided ASL is the
    share of ``|M(x*) - M(y*)| >= |d̂|`` as ``(count + 1)/(B + 1)`` (Sakai 2007, §5.2, Fig. 6-7).
    The interval of ``d̂`` is the percentile interval of ``x`` and ``y`` resampled separately.
    Less powerful than the paired tests: for aggregates such as ``"gmean"``.

    Args:
        x, y: per-topic scores of the two systems.
        statistic: ``"mean"``, ``"gmean"``, ``"logit_mean"``, ``"median"`` or a callable
            ``f(sample, axis=-1)``.
        alternative, n_resamples, confidence_level, rng, nan_policy: as the paired tests (NaNs
            are dropped from each sample separately with ``"omit"``).
        max_memory: as :func:`paired_bootstrap_test` (here about ``24·B·(n + m)`` bytes).
    Example (returns an :class:`UnpairedTestResult`):
        >>> x = [0.42, 0.31, 0.55, 0.61, 0.27, 0.49, 0.38, 0.52]
        >>> y = [0.10, 0.05, 0.30, 0.22, 0.01, 0.18, 0.09, 0.25]
        >>> res = unpaired_bootstrap_test(x, y, statistic="gmean", rng=1)
        >>> res.pvalue < 0.05
        True
    """
    confidence_level = _common_iv(alternative, confidence_level, nan_policy)
    n_resamples = check_n_resamples(n_resamples)
    agg = get_aggregate(statistic)
    x = as_sample(x, "x", nan_policy=nan_policy)
    y = as_sample(y, "y", nan_policy=nan_policy)
    require_resamples_memory(n_resamples, max_memory, what=f"an unpaired bootstrap test of {x.size:,} + {y.size:,} "
                             "topics", floats=3 * (x.size + y.size) + 4)
    if not warn_interval_resolution(n_resamples, confidence_level, alternative):
        warn_pvalue_resolution(n_resamples)
    agg.check_domain(x, "x")
    agg.check_domain(y, "y")
    gen = as_generator(rng)
    nx, ny = x.size, y.size
    observed = float(agg(x) - agg(y))
    pooled = np.concatenate([x, y])
    idx = gen.integers(0, nx + ny, (n_resamples, nx + ny))
    null = agg(pooled[idx[:, :nx]], axis=-1) - agg(pooled[idx[:, nx:]], axis=-1)
    count = int(count_extreme(null[None, :], [observed], alternative)[0])
    pvalue = (count + 1) / (n_resamples + 1)
    ix = gen.integers(0, nx, (n_resamples, nx))
    iy = gen.integers(0, ny, (n_resamples, ny))
    boot = np.sort(agg(x[ix], axis=-1) - agg(y[iy], axis=-1))
    lo_p, hi_p = tail_probabilities(confidence_level, alternative)
    low, high = sorted_quantiles(boot[None, :], [lo_p, hi_p])[0]
    low, high = one_sided(np.array([low]), np.array([high]), alternative)
    return UnpairedTestResult(
        statistic=observed, pvalue=pvalue, difference=observed,
        confidence_interval=ConfidenceInterval(float(low[0]), float(high[0])),
        effect_size=_cohens_d(x, y), n_x=nx, n_y=ny, statistic_name=agg.name,
        method="unpaired_bootstrap", alternative=alternative, confidence_level=confidence_level,
        null_distribution=null,
    )
