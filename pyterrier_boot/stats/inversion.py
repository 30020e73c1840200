"""Confidence intervals found by inverting a test: the shifts ``delta`` the test does not reject.

A paired test of ``mean(x - y) = 0`` (or ``median = 0``) applied to the shifted differences
``d - delta`` tests ``= delta``; the set of ``delta`` it does not reject at level ``alpha`` is the
test's own ``1 - alpha`` interval, and it excludes 0 exactly when the test rejects (Lehmann &
Romano 2005, §3.5). Two ways to find it:

* counting tests (the paired bootstrap and randomisation tests): the p-value is a function of a
  count ``c`` of resamples, and each resample's contribution to the count is a ray or an interval
  of ``delta``, so the interval's ends are order statistics of per-resample bounds
  (:func:`accept_count`, :func:`kth_largest`, :func:`kth_smallest`);
* rank tests (Wilcoxon, sign): the p-value is constant between breakpoints (Walsh averages, data
  values), so the test is evaluated at the breakpoints and between them, searching outward from
  the test's estimate (:func:`invert_scan`).

Verdict and interval are computed from the same numbers, so ``reject`` and "the interval excludes
0" agree exactly; :func:`rejects` is the one place the rule is written down.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .._typing import BoolArray, FloatArray


__all__ = ["rejects", "accept_count", "kth_largest", "kth_smallest", "invert_scan", "alpha_of"]


def alpha_of(confidence_level: float) -> float:
    """``1 - confidence_level`` rounded to 12 digits, so 0.95 gives exactly the float 0.05."""
    return round(1.0 - float(confidence_level), 12)


def rejects(pvalue: FloatArray | float, alpha: float, inclusive: bool = False) -> BoolArray:
    """The verdict: ``p < alpha`` (``p <= alpha`` when ``inclusive``, statsmodels' rule for corrections)."""
    p = np.asarray(pvalue, dtype=float)
    return p <= alpha if inclusive else p < alpha


def accept_count(pvalue_of_count: Callable[..., Any], n_counts: int, alpha: float,
                 inclusive: bool = False) -> int:
    """The smallest count ``c`` in ``0..n_counts`` whose p-value is not rejected (``n_counts + 1`` if none).

    ``pvalue_of_count`` maps an int array of counts to p-values and must be non-decreasing.
    """
    counts = np.arange(n_counts + 1)
    ok = ~rejects(pvalue_of_count(counts), alpha, inclusive)
    return int(np.argmax(ok)) if ok.any() else n_counts + 1


def kth_largest(values: FloatArray, k: int) -> FloatArray:
    """The ``k``-th largest of each row (1-based); ``+inf`` for ``k = 0`` (every shift accepted)."""
    values = np.asarray(values, dtype=float)
    if k <= 0:
        return np.full(values.shape[0], np.inf)
    if k > values.shape[1]:
        return np.full(values.shape[0], -np.inf)
    pos = values.shape[1] - k
    return np.partition(values, pos, axis=1)[:, pos]


def kth_smallest(values: FloatArray, k: int) -> FloatArray:
    """The ``k``-th smallest of each row (1-based); ``-inf`` for ``k = 0``."""
    return -kth_largest(-np.asarray(values, dtype=float), k)


def invert_scan(d: FloatArray, pvalue_at: Callable[..., Any], estimate: float,
                breakpoints: FloatArray, alpha: float, alternative: str = "two-sided",
                inclusive: bool = False, p0: float | None = None) -> tuple[float, float]:
    """Interval of the shifts ``delta`` whose test ``pvalue_at(d - delta)`` is not rejected.

    ``breakpoints`` are the shifts where the p-value may change (it is constant between two of them).
    The test is evaluated at breakpoints and midpoints, searching outward from ``estimate`` by
    bisection. A bound beside a rejected breakpoint is that breakpoint (the interval is closed),
    except at 0, where the test at 0 itself decides (``p0``, the reported p-value), so the interval
    excludes 0 exactly when the test rejects, even where the p-value is not monotone in the shift
    (ties, zeros dropped, the switch between exact and approximate p-values).

    Returns:
        ``(low, high)``; an end is infinite when no shift on that side is rejected; both are NaN
        when every shift is rejected (an empty confidence set, which excludes 0), or, with the test
        rejecting at 0, every shift on the side of 0 a one-sided interval can reach.
    """
    scan = _Scan(d, pvalue_at, breakpoints, alpha, inclusive)
    last = scan.last
    if alternative == "greater":
        low, high = scan.bound(scan.edge(last, 0, -1), -1, estimate), np.inf
    elif alternative == "less":
        low, high = -np.inf, scan.bound(scan.edge(0, last, 1), 1, estimate)
    else:
        start = scan.start_near(estimate)
        if start is None:  # the test rejects every shift: the confidence set is empty
            return float("nan"), float("nan")
        low, high = scan.bound(scan.edge(start, 0, -1), -1, estimate), scan.bound(scan.edge(start, last, 1), 1, estimate)
    if p0 is not None:
        low, high = scan.agree_at_zero(low, high, bool(rejects(p0, alpha, inclusive)), alternative)
    return float(low), float(high)


class _Scan:
    """The test of ``d - delta`` at breakpoints and midpoints (cached), for :func:`invert_scan`."""

    def __init__(self, d, pvalue_at, breakpoints, alpha, inclusive):
        brk = np.unique(np.asarray(breakpoints, dtype=float))
        span = max(brk[-1] - brk[0], 1.0)
        # test points: outside, breakpoints and midpoints alternately (even positions are open segments)
        points = np.empty(2 * brk.size + 1)
        points[1::2] = brk
        points[2:-1:2] = (brk[:-1] + brk[1:]) / 2
        points[0], points[-1] = brk[0] - span, brk[-1] + span
        self.points, self.last = points, points.size - 1
        self.d, self.pvalue_at, self.alpha, self.inclusive = d, pvalue_at, alpha, inclusive
        self.cache = {}

    def accepted(self, i):
        if i not in self.cache:
            self.cache[i] = not bool(rejects(self.pvalue_at(self.d - self.points[i]), self.alpha, self.inclusive))
        return self.cache[i]

    def start_near(self, estimate):
        """The point to search from: the estimate, beside it when the estimate itself is a rejected
        breakpoint, else the accepted point nearest to it (a p-value not monotone in the shift)."""
        points, last = self.points, self.last
        e = int(np.clip(np.searchsorted(points, estimate), 0, last))
        if e > 0 and abs(points[e - 1] - estimate) <= abs(points[e] - estimate):
            e -= 1
        start = next((i for i in (e, e - 1, e + 1) if 0 <= i <= last and self.accepted(i)), None)
        if start is None:
            start = min((i for i in range(points.size) if self.accepted(i)),
                        key=lambda i: abs(points[i] - estimate), default=None)
        return start

    def edge(self, start, stop, step):
        """Last accepted index walking from ``start`` towards ``stop`` (monotone bisection), or None."""
        if not self.accepted(start):
            return None
        lo, hi = 0, abs(stop - start)  # steps: lo accepted; find the largest accepted step
        if self.accepted(start + step * hi):
            return stop
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.accepted(start + step * mid):
                lo = mid
            else:
                hi = mid
        return start + step * lo

    def bound(self, i, step, estimate):
        if i is None:
            return estimate
        if (i == 0 and step < 0) or (i == self.last and step > 0):
            return -np.inf if step < 0 else np.inf
        return self.points[i] if i % 2 == 1 else self.points[i + step]  # an open segment ends at its breakpoint

    def agree_at_zero(self, low, high, reject0, alternative):
        """``(low, high)`` made to exclude 0 exactly when the test at 0 rejects (``reject0``).

        A one-sided interval can only move its finite end: below 0 for ``"less"``, above 0 for
        ``"greater"``."""
        points = self.points
        inside = low <= 0 <= high
        if not reject0 and not inside:  # accepted at 0 but the search stopped short: reach 0
            return min(low, 0.0), max(high, 0.0)
        if reject0 and inside:  # rejected at 0: keep the side of 0 holding the nearest accepted point
            zero_left, zero_right = np.searchsorted(points, 0.0, "left"), np.searchsorted(points, 0.0, "right")
            # the accepted points nearest to 0, found walking outward (the test is made only up to them)
            below = None if alternative == "greater" else self.first_accepted(
                range(zero_left - 1, np.searchsorted(points, low, "left") - 1, -1))
            above = None if alternative == "less" else self.first_accepted(
                range(zero_right, np.searchsorted(points, high, "right")))
            if below is not None and (above is None or points[below] >= -points[above]):
                i = below  # an accepted open segment ends at its breakpoint unless that is 0 itself
                high = points[i] if i % 2 == 1 or points[i + 1] >= 0 else points[i + 1]
            elif above is not None:
                i = above
                low = points[i] if i % 2 == 1 or points[i - 1] <= 0 else points[i - 1]
            else:  # no accepted shift on the side the interval can take: an empty confidence set
                low = high = np.nan
        return low, high

    def first_accepted(self, indices):
        """The first of ``indices`` whose point the test accepts, or None."""
        return next((i for i in indices if self.accepted(i)), None)
