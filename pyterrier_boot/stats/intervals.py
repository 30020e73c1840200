"""Confidence intervals for a system's population score over topics.

Topics are a sample from a population of topics; the interval covers the population value of the
summary statistic (the population MAP for ``statistic="mean"`` on AP scores). Methods:

* bootstrap (Efron & Tibshirani 1993; topic bootstrap as in Sakai 2007 §5 and Park 2010):
  ``percentile``, ``basic``, ``bca`` (bias-corrected and accelerated, acceleration from the
  jackknife over topics), ``studentized`` (bootstrap-t), ``normal`` (estimate ± z·bootstrap SE);
* classical (Park 2010, §4): ``t`` (``mean ± t_{α/2,n-1} s/√n``, his eq. 3) and ``z`` with a known
  population standard deviation ``sigma`` (his eq. 1).

All systems of a score matrix share one :class:`~pyterrier_boot.stats.resampling.ResamplePlan`.

Choices where the sources are vague:

* ``studentized`` and ``t`` work on the scale where the statistic is a mean (log for ``gmean``,
  logit for ``logit_mean``) and map the limits back; the studentised pivot uses each resample's own
  ``sd/√n``. They refuse the median and callables.
* ``normal`` is ``estimate ± z_{1-α/2}·SE_boot`` without bias correction.
* ``bca`` follows scipy (Efron & Tibshirani eq. 14.10, 14.15); with zero jackknife spread the
  acceleration is 0. Percentile, basic and BCa equal ``scipy.stats.bootstrap`` given the same
  resamples (``resample_plan`` draws them as scipy does).
* A system whose scores are all equal gets the degenerate interval ``[θ, θ]`` and a
  :class:`DegenerateWarning`.
* ``bounds`` (the range of the scores, e.g. ``(0, 1)`` for AP, nDCG or P@10): the interval is kept
  inside it. Measured on scores piled up at 0 and 1 (``pt_docs/statistics.md``, "Intervals near the
  ends of the range"), the normal interval is computed on the logit scale of the range where it
  would leave it (it undercovers badly there), every other one is clipped (which never changes
  whether it covers a value in the range), and an unbounded end becomes the end of the range.
  Without ``bounds`` an end is never NaN: a quantile between two infinite pivots is infinite.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import stats

from .._batches import check_executor
from .._bounds import clipped, normal_within, unbounded_ends
from .._checks import ALTERNATIVES, NAN_POLICIES, check_batch, check_choice, check_confidence_level
from .._memory import (
    DEFAULT_MAX_MEMORY,
    check_n_resamples,
    chunk_rows,
    require_resamples_memory,
    warn_interval_resolution,
)
from .._quantiles import (
    bca_probabilities,
    one_sided,
    quantiles,
    sorted_quantiles,
    tail_probabilities,
)
from .._results import ConfidenceInterval, TupleLike, interval_table_html
from .._rowwise import map_rows
from .._scores import as_score_matrix
from .._warnings import DegenerateWarning, one_warning_per_kind, report
from .aggregates import get_aggregate
from .resampling import as_resample_plan, planned_resamples, studentized_pivot, weighted_sums

if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Executor

    import numpy.typing as npt
    import pandas as pd

    from .._typing import RngLike, ScoresLike
    from .aggregates import Aggregate
    from .resampling import ResamplePlan


METHODS = ("percentile", "basic", "bca", "studentized", "normal", "t", "z")

__all__ = ["bootstrap_ci", "default_method", "IntervalResult", "METHODS"]


@dataclass(frozen=True, slots=True)
class IntervalResult(TupleLike):
    """A confidence interval for each system's population score.

    Unpacks as ``statistic, confidence_interval``. For one system (1-D input) the fields are
    scalars; for a systems x topics matrix they are arrays with one entry per system, in row order.

    Attributes:
        statistic: the statistic on the observed topics (e.g. MAP).
        confidence_interval: ``ConfidenceInterval(low, high)``.
        standard_error: the standard deviation of the bootstrap distribution (ddof=1, as scipy);
            for ``t``/``z`` the standard error of the mean on the scale the mean is taken (the
            transformed scale for ``gmean``/``logit_mean``).
        bootstrap_distribution: the statistic on each resample, shape ``(B,)`` or
            ``(systems, B)``; None for ``t``/``z``.
        method, confidence_level, alternative, statistic_name: the options used.
        n_topics: number of topics.
        systems: system labels (row labels of a DataFrame, or row positions), or None for 1-D input.
        plan: the :class:`ResamplePlan` used (None for ``t``/``z``); pass it as ``plan=`` to replay.
    """

    statistic: Any
    confidence_interval: ConfidenceInterval
    standard_error: Any
    bootstrap_distribution: Any
    method: str
    confidence_level: float
    alternative: str
    statistic_name: str
    n_topics: int
    systems: tuple | None = None
    plan: Any = None
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "confidence_interval")

    def to_frame(self) -> pd.DataFrame:
        """One row per system: ``statistic, ci_low, ci_high, standard_error, n_topics``."""
        import pandas as pd

        index = list(self.systems) if self.systems is not None else [0]
        frame = pd.DataFrame({
            self.statistic_name: np.atleast_1d(self.statistic),
            "ci_low": np.atleast_1d(self.confidence_interval.low),
            "ci_high": np.atleast_1d(self.confidence_interval.high),
            "standard_error": np.atleast_1d(self.standard_error),
        }, index=pd.Index(index, name="name"))
        frame["n_topics"] = self.n_topics
        return frame

    def _repr_html_(self):
        frame = self.to_frame()
        names = list(frame.index)
        column = {self.statistic_name: (frame[self.statistic_name], frame["ci_low"], frame["ci_high"])}
        return interval_table_html(
            names, column, bold_best=len(names) > 1,
            caption=f"Cells: {self.statistic_name} over {self.n_topics} topics [{100 * self.confidence_level:g}% "
                    f"{self.method} interval; variance: topics].")

    def __repr__(self):
        ci = self.confidence_interval
        return (f"IntervalResult(statistic={self.statistic!r}, confidence_interval="
                f"ConfidenceInterval(low={ci.low!r}, high={ci.high!r}), method={self.method!r}, "
                f"confidence_level={self.confidence_level}, n_topics={self.n_topics})")


def _check_bounds(bounds):
    """``bounds``: None, or ``(lo, hi)`` with ``lo < hi`` (either may be infinite)."""
    if bounds is None:
        return None
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise TypeError(f"'bounds' must be None or a pair of numbers (lo, hi), e.g. (0, 1); got {bounds!r}") from None
    if not lo < hi:
        raise ValueError(f"'bounds' must be (lo, hi) with lo < hi, got {bounds!r}")
    return lo, hi


def _bootstrap_ci_iv(scores, statistic, method, confidence_level, alternative, n_resamples,
                     sigma, batch, nan_policy):
    check_choice(method, "method", METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    confidence_level = check_confidence_level(confidence_level)
    n_resamples = check_n_resamples(n_resamples, minimum=2)
    batch = check_batch(batch)
    agg = get_aggregate(statistic)
    is_1d = np.ndim(scores) == 1
    matrix = as_score_matrix(scores, "scores", nan_policy=nan_policy)
    agg.check_domain(matrix.values)
    if method in ("t", "studentized") and not agg.linear:
        raise ValueError(
            f"method={method!r} needs a statistic that is a mean on some scale "
            f"('mean', 'gmean', 'logit_mean'), got statistic={agg.name!r}; "
            "use 'percentile', 'basic', 'bca' or 'normal'"
        )
    if method == "z":
        if agg.name != "mean":
            raise ValueError(f"method='z' is the interval for the arithmetic mean; got statistic={agg.name!r}")
        if sigma is None:
            raise ValueError("method='z' needs the population standard deviation 'sigma' (Park 2010, eq. 1)")
        sigma = np.asarray(sigma, dtype=float)
        if sigma.ndim > 1 or (sigma.ndim == 1 and sigma.size != matrix.values.shape[0]):
            raise ValueError(f"'sigma' must be a number or one per system ({matrix.values.shape[0]}), got shape {sigma.shape}")
        if np.any(~np.isfinite(sigma)) or np.any(sigma < 0):
            raise ValueError("'sigma' must be finite and >= 0")
    elif sigma is not None:
        raise ValueError(f"'sigma' is only used by method='z', not method={method!r}")
    return agg, matrix, is_1d, confidence_level, n_resamples, sigma, batch


def t_interval(mean: npt.ArrayLike, sd: npt.ArrayLike, n: int, *, confidence_level: float = 0.95,
               alternative: str = "two-sided") -> tuple[Any, Any]:
    """``mean ± t_{n-1} sd/√n`` (Park 2010, eq. 3); arrays broadcast. Private helper for the tests' effects."""
    lo_p, hi_p = tail_probabilities(confidence_level, alternative)
    se = np.asarray(sd, dtype=float) / np.sqrt(n)
    crit = stats.t.ppf(hi_p, n - 1)
    return one_sided(mean - crit * se, mean + crit * se, alternative)


def _resample_distribution(agg, values, plan, batch):
    """Statistic on every resample: (systems, B)."""
    S, n = values.shape
    if agg.linear:
        transformed = agg.forward(values)
        centre = transformed.mean(axis=1)
        sums = weighted_sums(plan, transformed - centre[:, None])  # (S, B)
        return agg.inverse(centre[:, None] + sums / n)
    B = plan.n_resamples
    rows = batch or max(1, (1 << 22) // max(1, S * n))
    out = np.empty((S, B))
    for start in range(0, B, rows):
        stop = min(start + rows, B)
        out[:, start:stop] = agg(plan.take(values, start, stop), axis=-1)
    return out


def _jackknife(agg, values):
    """Leave-one-topic-out statistics: (systems, n)."""
    S, n = values.shape
    if agg.linear:
        transformed = agg.forward(values)
        loo = (transformed.sum(axis=1, keepdims=True) - transformed) / (n - 1)
        return agg.inverse(loo)
    out = np.empty((S, n))
    keep = ~np.eye(n, dtype=bool)
    for s in range(S):
        out[s] = agg(np.broadcast_to(values[s], (n, n))[keep].reshape(n, n - 1), axis=-1)
    return out


def default_method(statistic: str | Callable[..., Any] | Aggregate = "mean") -> str:
    """The default interval method: ``"studentized"`` for a mean on some scale, ``"bca"`` otherwise.

    Measured on real TREC-5..8 ad hoc AP (every system's 50 topics the population, n topics drawn
    from them), the studentised bootstrap covers 95% within ±0.5 points from 10 topics up, where
    BCa covers 88% at 10 topics and 93% at 25 (coverage table in the statistics docs)."""
    return "studentized" if get_aggregate(statistic).linear else "bca"


@one_warning_per_kind()
def bootstrap_ci(scores: ScoresLike, *, statistic: str | Callable[..., Any] | Aggregate = "mean",
                 method: str | None = None, confidence_level: float = 0.95, alternative: str = "two-sided",
                 n_resamples: int = 10_000, sigma: float | None = None, rng: RngLike = None,
                 plan: ResamplePlan | npt.ArrayLike | None = None, batch: int | None = None, nan_policy: str = "raise",
                 max_memory: int | str | None = DEFAULT_MAX_MEMORY, executor: Executor | None = None,
                 bounds: tuple[float, float] | None = None) -> IntervalResult:
    """Confidence interval of a system's population score from its per-topic scores.

    Args:
        scores: one system's per-topic scores (1-D), a systems x topics array or a topics x systems DataFrame.
        statistic: ``"mean"``, ``"gmean"``, ``"logit_mean"`` (L-MAP), ``"median"`` or ``f(x, axis=-1)``.
        method: ``"percentile"``, ``"basic"``, ``"bca"``, ``"studentized"``, ``"normal"``, ``"t"``
            or ``"z"``. None (default): :func:`default_method` (``"studentized"`` for means,
            ``"bca"`` for the median and callables).
        confidence_level: e.g. 0.95. alternative: ``"two-sided"``, ``"less"``, ``"greater"`` (as scipy).
        n_resamples, rng, plan: ``B`` resamples drawn from ``rng`` (SPEC 7), or a :class:`ResamplePlan`
            (or its index array) to replay; unused by ``t``/``z``. sigma: the known SD of ``"z"``.
        batch: resamples at once for the median and callables (memory only). nan_policy: ``"raise"``
            (default) or ``"omit"`` (drop topics with a NaN, warning).
        max_memory: bytes the resampling may hold (default 1 GiB; the plan is ``10·B·n``).
        executor: a ``concurrent.futures.Executor`` to compute chunks of systems on (``pt_docs/scale.md``).
        bounds: the scores' range, e.g. ``(0, 1)`` for AP (default None): ends kept inside (module docstring).

    Example (an :class:`IntervalResult`; choices where the sources are vague: module docstring):
        >>> import numpy as np
        >>> ap = np.array([0.31, 0.12, 0.55, 0.08, 0.47, 0.26, 0.39, 0.18, 0.62, 0.05])
        >>> res = bootstrap_ci(ap, method="percentile", n_resamples=2000, rng=1)
        >>> bool(res.confidence_interval.low < ap.mean() < res.confidence_interval.high)
        True

    References:
        Park, L. A. F. (2010). Confidence intervals for information retrieval evaluation. ADCS.
        Sakai, T. (2007). Evaluating IR metrics based on bootstrap hypothesis tests. IPSJ Digital Courier 3.
    """
    if method is None:
        method = default_method(statistic)
    agg, matrix, is_1d, confidence_level, n_resamples, sigma, batch = _bootstrap_ci_iv(
        scores, statistic, method, confidence_level, alternative, n_resamples, sigma, batch, nan_policy)
    bounds = _check_bounds(bounds)
    values = matrix.values
    n = values.shape[1]
    theta = np.asarray(agg(values, axis=-1), dtype=float)
    dist = used_plan = None
    tails = tail_probabilities(confidence_level, alternative)
    if method in ("t", "z"):
        low, high, standard_error = _parametric_interval(agg, values, method, sigma, tails)
    else:
        low, high, standard_error, dist, used_plan = _resampled_interval(
            agg, values, theta, method, tails, confidence_level, alternative, n_resamples, rng, plan, batch,
            max_memory, check_executor(executor), bounds)
    low, high = _ends(values, theta, low, high, matrix.system_labels, alternative, method, confidence_level,
                      n_resamples if used_plan is None else used_plan.n_resamples, bounds)
    options = (method, confidence_level, alternative, agg.name, n)
    if is_1d:
        ci = ConfidenceInterval(float(low[0]), float(high[0]))
        return IntervalResult(float(theta[0]), ci, float(np.asarray(standard_error)[0]),
                              None if dist is None else dist[0], *options, None, used_plan)
    return IntervalResult(theta, ConfidenceInterval(np.asarray(low), np.asarray(high)),
                          np.asarray(standard_error, dtype=float), dist, *options, tuple(matrix.system_labels),
                          used_plan)


def _resampled_interval(agg, values, theta, method, tails, confidence_level, alternative, n_resamples, rng, plan,
                        batch, max_memory, executor=None, bounds=None):
    """The bootstrap interval: memory check, plan, resample distribution, then the method's limits.
    Returns ``low, high, standard_error, distribution, plan``."""
    S, n = values.shape
    B = planned_resamples(plan, n_resamples)
    max_memory = require_resamples_memory(
        B, max_memory, what=f"bootstrap intervals of {S:,} system(s) x {n:,} topics",
        plan_topics=n if plan is None else 0, floats=4 * S)
    if method != "normal":
        warn_interval_resolution(B, confidence_level, alternative, method)
    used_plan = as_resample_plan(plan, n, n_resamples, rng, max_memory)
    options = dict(agg=agg, plan=used_plan, method=method, tails=tails, confidence_level=confidence_level,
                   alternative=alternative, batch=batch, bounds=bounds)
    low, high, standard_error, dist = map_rows(functools.partial(_interval_rows, **options), values, theta,
                                               rows=chunk_rows(S, used_plan.n_resamples), executor=executor)
    return low, high, standard_error, dist, used_plan


def _interval_rows(values, theta, *, agg, plan, method, tails, confidence_level, alternative, batch, bounds=None):
    """``low, high, standard_error, distribution`` of the systems ``values`` (one chunk of rows)."""
    dist = _resample_distribution(agg, values, plan, batch)
    standard_error = dist.std(axis=1, ddof=1)
    if method == "normal" and bounds is not None:  # on the logit scale of the range where it would leave it
        low, high = normal_within(theta, dist.T, stats.norm.ppf(tails[1]), bounds)
    else:
        low, high = _bootstrap_interval(agg, values, theta, dist, standard_error, plan, method, tails,
                                        confidence_level, alternative)
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float), standard_error, dist


def _parametric_interval(agg, values, method, sigma, tails):
    """The t interval (sd from the topics) or the z interval (known ``sigma``) on the mean's scale."""
    S, n = values.shape
    transformed = agg.forward(values)
    m = transformed.mean(axis=1)
    if method == "t":
        se = transformed.std(axis=1, ddof=1) / np.sqrt(n)
        crit = stats.t.ppf(tails[1], n - 1)
    else:
        se = np.broadcast_to(sigma, (S,)) / np.sqrt(n)
        crit = stats.norm.ppf(tails[1])
    return agg.inverse(m - crit * se), agg.inverse(m + crit * se), se


def _bootstrap_interval(agg, values, theta, dist, standard_error, plan, method, tails, confidence_level,
                        alternative):
    """The interval of ``method`` from the bootstrap distribution ``dist`` (systems, B)."""
    lo_p, hi_p = tails
    srt = np.sort(dist, axis=1)
    if method == "percentile":
        return sorted_quantiles(srt, [lo_p, hi_p]).T
    if method == "basic":
        q_lo, q_hi = sorted_quantiles(srt, [lo_p, hi_p]).T
        return 2 * theta - q_hi, 2 * theta - q_lo
    if method == "bca":
        probs = bca_probabilities(dist, theta, _jackknife(agg, values), confidence_level, alternative)
        return sorted_quantiles(srt, probs).T
    if method == "normal":
        z = stats.norm.ppf(hi_p)
        return theta - z * standard_error, theta + z * standard_error
    # studentized: the bootstrap-t pivot on the mean's scale
    n = values.shape[1]
    transformed = agg.forward(values)
    m = transformed.mean(axis=1)
    pivot = studentized_pivot(transformed - m[:, None], plan)
    q_lo, q_hi = quantiles(pivot, [lo_p, hi_p]).T
    se = transformed.std(axis=1, ddof=1) / np.sqrt(n)
    return agg.inverse(m - q_hi * se), agg.inverse(m - q_lo * se)


def _ends(values, theta, low, high, labels, alternative, method, confidence_level, n_resamples, bounds):
    """The interval's ends as reported: one-sided, NaN ends infinite, degenerate intervals a point
    (with their warnings), kept inside ``bounds``."""
    low, high = unbounded_ends(*one_sided(low, high, alternative))
    low, high = _degenerate_ends(values, theta, low, high, labels, alternative)
    _warn_unbounded(values, low, high, alternative, method, confidence_level, n_resamples, labels, bounds)
    return clipped(low, high, bounds)


def _degenerate_ends(values, theta, low, high, labels, alternative):
    """Systems whose topic scores are all equal: the interval is the single point of their score."""
    constant = np.ptp(values, axis=1) == 0
    if not constant.any():
        return low, high
    report(DegenerateWarning, "a system's scores are the same on every topic for {n} interval(s), so each is the "
           "single point of that score: {cases}",
           (f"{labels[i]} [{theta[i]:g}, {theta[i]:g}]" for i in np.flatnonzero(constant)))
    keep_low = alternative == "less"
    keep_high = alternative == "greater"
    return np.where(constant & ~keep_low, theta, low), np.where(constant & ~keep_high, theta, high)


def _warn_unbounded(values, low, high, alternative, method, confidence_level, n_resamples, labels, bounds=None):
    constant = np.ptp(values, axis=1) == 0
    unbounded = ~constant & ((np.isinf(low) & (alternative != "less")) | (np.isinf(high) & (alternative != "greater")))
    shown = "" if bounds is None else f" (shown as the end of the range [{bounds[0]:g}, {bounds[1]:g}])"
    report(DegenerateWarning, f"the {method} interval of {{n}} system(s) is unbounded{shown}: {{cases}}; more than "
           f"{(1 - confidence_level) / 2:.3g} of the {n_resamples} "
           "resamples draw topics with identical scores (e.g. all 0), whose studentised t is infinite; use more "
           "topics or method='bca'/'t'", (labels[i] for i in np.flatnonzero(unbounded)))
