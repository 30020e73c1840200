"""Swap method: how often two topic samples disagree on which system is better (Sakai 2007, §7.2).

Voorhees & Buckley's swap method in Sakai's bootstrap version (his Fig. 19): draw two independent
sets of ``B`` bootstrap topic samples ``Q*b`` and ``Q'*b``; for every pair of systems and every
trial ``b``, ``D = M(X, Q*b) - M(Y, Q*b)`` and ``D' = M(X, Q'*b) - M(Y, Q'*b)``; the trial is
counted in the bin of ``|D|`` (21 bins of width 0.01, the last ``>= 0.20``) and is a *swap* when
``D · D' <= 0``. The swap rate of a bin is swaps / trials. The difference required for a swap rate
of at most 5% and the share of comparisons that reach it (his Table 4) summarise a measure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..._checks import check_alpha, check_positive_int
from ..._deprecation import keyword_only
from ..._memory import DEFAULT_MAX_MEMORY, check_n_resamples, require_resamples_memory
from ..._random import as_generator
from ..._results import TupleLike
from ...stats.resampling import as_resample_plan, planned_resamples, weighted_sums
from .._inputs import as_measure_scores, pair_indices

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy.typing as npt
    import pandas as pd
    from matplotlib.axes import Axes

    from ..._typing import FloatArray, RngLike, ScoresLike
    from ...stats.resampling import ResamplePlan


__all__ = ["swap_method", "SwapResult"]

_CELLS = 1 << 22


@dataclass(frozen=True, slots=True)
class SwapResult(TupleLike):
    """Swap rates per difference bin; unpacks as ``swap_rate, required_difference``.

    Attributes:
        swap_rate: ``(M, n_bins)`` swaps / comparisons per bin (NaN for an empty bin).
        required_difference: ``(M,)`` the lower edge of the first bin from which every non-empty
            bin has a swap rate ``<= threshold`` (Sakai's Table 4 column ii); NaN if even the
            last bin exceeds it.
        comparisons, swaps: ``(M, n_bins)`` counts (Fig. 19's ``counter`` and ``swap_counter``).
        bin_edges: ``(n_bins + 1,)`` bin edges; the last bin is open (``[edges[-2], inf)``).
        share_satisfying: ``(M,)`` share of the ``B x pairs`` comparisons with ``|D|`` at least
            the required difference (Table 4's last column).
        max_score: ``(M,)`` the largest system score over all trials (Table 4 column iii).
        measures, threshold, n_resamples, n_pairs, n_topics: as used.
        plans: the two :class:`ResamplePlan` objects (``Q*b`` and ``Q'*b``).
    """

    swap_rate: np.ndarray
    required_difference: np.ndarray
    comparisons: np.ndarray
    swaps: np.ndarray
    bin_edges: np.ndarray
    share_satisfying: np.ndarray
    max_score: np.ndarray
    measures: tuple
    threshold: float
    n_resamples: int
    n_pairs: int
    n_topics: int
    plans: Any = None
    _tuple_fields: ClassVar[tuple[str, ...]] = ("swap_rate", "required_difference")

    def to_frame(self) -> pd.DataFrame:
        """Long table: ``measure, bin_low, bin_high, comparisons, swaps, swap_rate`` per bin."""
        import pandas as pd

        M, K = self.swap_rate.shape
        return pd.DataFrame({
            "measure": np.repeat(np.array(self.measures, dtype=object), K),
            "bin_low": np.tile(self.bin_edges[:-1], M),
            "bin_high": np.tile(np.append(self.bin_edges[1:-1], np.inf), M),
            "comparisons": self.comparisons.ravel(),
            "swaps": self.swaps.ravel(),
            "swap_rate": self.swap_rate.ravel(),
        })

    def summary(self) -> pd.DataFrame:
        """Sakai's Table 4: ``measure, required_difference, max_score, relative_difference,
        share_satisfying`` (relative = required / max score)."""
        import pandas as pd

        with np.errstate(divide="ignore", invalid="ignore"):
            relative = self.required_difference / self.max_score
        return pd.DataFrame({
            "measure": list(self.measures),
            "required_difference": self.required_difference,
            "max_score": self.max_score,
            "relative_difference": relative,
            "share_satisfying": self.share_satisfying,
        })

    @keyword_only("ax")
    def plot(self, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Swap rate per bin, one line per measure (:func:`~pyterrier_boot.meta.plots.plot_swap_rates`)."""
        from ..plots import plot_swap_rates

        return plot_swap_rates(self, ax=ax, **kwargs)

    def _repr_html_(self):
        return self.summary()._repr_html_()


def _swap_iv(n_resamples, bin_width, n_bins, threshold):
    n_resamples = check_n_resamples(n_resamples)
    n_bins = check_positive_int(n_bins, "n_bins", minimum=2)
    threshold = check_alpha(threshold, "threshold")
    try:
        width = float(bin_width)
    except (TypeError, ValueError):
        raise TypeError(f"'bin_width' must be a positive number, got {type(bin_width).__name__}") from None
    if not np.isfinite(width) or width <= 0:
        raise ValueError(f"'bin_width' must be a positive number, got {bin_width}")
    return n_resamples, width, n_bins, threshold


def snap_ties(difference: FloatArray, scale: float | FloatArray) -> FloatArray:
    """Set differences within ``1e-9 * scale`` of 0 to exactly 0.

    Means over resampled topics are sums computed in different orders, so two systems with the
    same true mean (frequent with discrete measures such as P@10 or RR) differ by rounding noise;
    this makes such ties exact, whatever the summation order.
    """
    tol = 1e-9 * scale
    return np.where(np.abs(difference) <= tol, 0.0, difference)


def bin_of(abs_difference: npt.ArrayLike, bin_width: float, n_bins: int) -> npt.NDArray[np.intp]:
    """Bin index of ``|D|``: ``floor(|D| / width)`` capped at ``n_bins - 1`` (the open last bin).

    The quotient is rounded to 9 decimals first, so a difference that is a multiple of the width
    up to floating-point error (0.03 computed as 0.0299999...) lands in the bin it names.
    """
    q = np.floor(np.round(np.asarray(abs_difference) / bin_width, 9))
    return np.minimum(q, n_bins - 1).astype(np.intp)


def required_bin(rate: FloatArray, threshold: float) -> int:
    """First bin from which every non-empty bin has ``rate <= threshold`` (-1 if none)."""
    ok = np.isnan(rate) | (rate <= threshold)
    bad = np.flatnonzero(~ok)
    if len(bad) == 0:
        return 0
    first = bad[-1] + 1
    return first if first < len(rate) and np.any(~np.isnan(rate[first:])) else -1


def _required_differences(rate, comparisons, edges, threshold, n_comparisons):
    """Per measure, the smallest bin edge from which every swap rate stays within ``threshold``
    (NaN if none), and the share of the ``n_comparisons`` at or above it."""
    M = len(rate)
    required = np.full(M, np.nan)
    share = np.full(M, np.nan)
    for m in range(M):
        i = required_bin(rate[m], threshold)
        if i >= 0:
            required[m] = edges[i]
            share[m] = comparisons[m, i:].sum() / n_comparisons
        else:
            share[m] = 0.0
    return required, share


def swap_method(scores_by_measure: Mapping[str, ScoresLike] | ScoresLike, *,
                n_resamples: int = 1000, bin_width: float = 0.01, n_bins: int = 21,
                threshold: float = 0.05, rng: RngLike = None, plan: ResamplePlan | None = None,
                second_plan: ResamplePlan | None = None,
                max_memory: int | str | None = DEFAULT_MAX_MEMORY) -> SwapResult:
    """Sakai's bootstrap swap method (Fig. 19) for every measure, on shared topic samples.

    Args:
        scores_by_measure: per-topic scores of at least 3 systems (as :func:`discriminative_power`).
        n_resamples: trials ``B`` (pairs of topic samples).
        bin_width, n_bins: the difference bins: ``[0, w), [w, 2w), ...`` and a last open bin
            ``>= (n_bins - 1) w`` (Sakai: 21 bins of 0.01, the last ``>= 0.20``).
        threshold: the swap rate a "safe" difference must not exceed (Sakai: 5%).
        rng: seed or Generator: ``Q*b`` is drawn from it, ``Q'*b`` from a child stream (``rng.spawn``).
        plan, second_plan: independent :class:`~pyterrier_boot.ResamplePlan` objects to use as
            ``Q*b`` and ``Q'*b`` (e.g. ``plan=discriminative_power(...).plan``).
        max_memory: bytes the resampling may hold (default 1 GiB); more is a ValueError.

    Returns:
        SwapResult (``summary()`` is Sakai's Table 4, ``to_frame()`` the swap rate per bin).

    ``D · D' <= 0`` counts as a swap, exactly as Fig. 19 does (a tie in either sample is a swap).
    Differences are means over the sampled topics (measures averaged over topics); differences
    within ``1e-9`` times the largest score of 0 are exact ties (see :func:`snap_ties`).

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> topic = rng.beta(2, 5, 40)
        >>> ap = np.clip(topic + np.linspace(0, 0.15, 8)[:, None] + rng.normal(0, 0.08, (8, 40)), 0, 1)
        >>> res = swap_method({"AP": ap}, rng=1)
        >>> res.to_frame().loc[:2, ["bin_low", "comparisons", "swaps"]]
           bin_low  comparisons  swaps
        0     0.00         1930    842
        1     0.01         1896    580
        2     0.02         2114    346

    References:
        Sakai, T. (2007), §7.2 and Fig. 19; Voorhees, E. M. & Buckley, C. (2002). The effect of
        topic set size on retrieval experiment error. SIGIR.
    """
    n_resamples, width, n_bins, threshold = _swap_iv(n_resamples, bin_width, n_bins, threshold)
    data = as_measure_scores(scores_by_measure)
    values = data.values
    M, S, n = values.shape
    first, second = _two_plans(plan, second_plan, n_resamples, rng, S, n, max_memory)
    B = first.n_resamples
    a, b = pair_indices(S)
    P = len(a)
    comparisons = np.zeros((M, n_bins), np.int64)
    swaps = np.zeros((M, n_bins), np.int64)
    max_score = np.empty(M)
    for m in range(M):
        max_score[m] = _count_swaps(values[m], first, second, a, b, width, n_bins, comparisons[m], swaps[m])
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(comparisons > 0, swaps / comparisons, np.nan)
    edges = np.arange(n_bins + 1) * width
    required, share = _required_differences(rate, comparisons, edges, threshold, B * P)
    return SwapResult(rate, required, comparisons, swaps, edges, share, max_score, data.measures,
                      threshold, B, P, n, (first, second))


def _two_plans(plan, second_plan, n_resamples, rng, S, n, max_memory):
    """Sakai's two independent topic samples ``Q*b`` and ``Q'*b`` of each resample."""
    gen = as_generator(rng)
    B = planned_resamples(plan, n_resamples)
    drawn = (plan is None) + (second_plan is None)
    max_memory = require_resamples_memory(B, max_memory, what=f"the swap method on {S:,} systems x {n:,} topics",
                                          plan_topics=drawn * n, floats=4 * S + 6 * min(S * (S - 1) // 2, max(1, _CELLS // B)))
    first = as_resample_plan(plan, n, n_resamples, gen, max_memory)
    # Q'*b from a child stream: independent of Q*b even when 'plan' was drawn with the same seed
    second = as_resample_plan(second_plan, n, first.n_resamples, gen.spawn(1)[0], max_memory)
    if second.n_resamples != first.n_resamples:
        raise ValueError(f"'plan' and 'second_plan' must have the same number of resamples, got "
                         f"{first.n_resamples} and {second.n_resamples}")
    if second is first or np.array_equal(first.indices, second.indices):
        raise ValueError("'plan' and 'second_plan' must be independent topic samples, got the same plan twice")
    return first, second


def _count_swaps(X, first, second, a, b, width, n_bins, comparisons, swaps):
    """Add one measure's comparisons and swaps per bin (in place); return its largest resampled mean."""
    n = X.shape[1]
    P = len(a)
    size = max(1, _CELLS // first.n_resamples)
    scale = max(float(np.abs(X).max()), np.finfo(float).tiny)
    means1 = weighted_sums(first, X) / n  # (S, B)
    means2 = weighted_sums(second, X) / n
    for start in range(0, P, size):
        sl = slice(start, min(start + size, P))
        d1 = snap_ties(means1[a[sl]] - means1[b[sl]], scale)
        d2 = snap_ties(means2[a[sl]] - means2[b[sl]], scale)
        bins = bin_of(np.abs(d1), width, n_bins)
        comparisons += np.bincount(bins.ravel(), minlength=n_bins)
        swaps += np.bincount(bins[d1 * d2 <= 0], minlength=n_bins)
    return means1.max()
