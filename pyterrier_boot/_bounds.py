"""Interval ends kept inside the range of a measure's values (private; shared by every subpackage).

A mean of scores that lie in ``[lo, hi]`` (``[0, 1]`` for AP, nDCG, P@k, RR, ...) lies in that range,
and so does the population value it estimates: an interval end outside it is an artefact of the
method (the normal interval ``θ ± z·SE`` near 0, a studentised end from resamples whose topics all
score 0). Measured on real and simulated scores piled up at 0 and at 1
(``benchmarks/bounded_interval_coverage.py``; ``pt_docs/statistics.md``, "Intervals near the ends
of the range"):

* clipping an interval into the range never changes whether it covers a value inside the range, so
  its coverage is the method's, and it is shorter; for the studentised interval no alternative
  (the bootstrap-t of the logit of the mean, a percentile interval where it leaves the range)
  covered better, so it is clipped;
* the normal interval undercovers badly where it leaves the range; computed there on the logit scale
  of the range, ``lo + (hi - lo) expit(logit(u) ± z sd(logit(u*)))`` with ``u = (θ - lo) / (hi - lo)``
  clipped to ``[eps, 1 - eps]`` and ``u*`` the replicates (Cormack & Lynam's logit interval), it
  covers far better (coverage table on the page above); inside the range it is left as it is;
* an infinite end (an unbounded studentised interval) becomes the end of the range, and a NaN end
  (a quantile between two infinite pivots, with 2 or 3 topics) is first the infinite end it is.

Ranges are given per entry as two arrays broadcast to the statistic's shape, ``-inf``/``inf`` for an
unbounded measure.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import special

if TYPE_CHECKING:
    from ._typing import FloatArray

#: the range of a measure whose values lie in [0, 1] by definition.
UNIT = (0.0, 1.0)
#: no range: the ends are left as they are (NaN ends become infinite).
UNBOUNDED = (-np.inf, np.inf)
#: ε of the normal interval's logit scale (the logit interval's and L-MAP's ε).
EPS = 1e-5


def unbounded_ends(low: FloatArray, high: FloatArray) -> tuple[FloatArray, FloatArray]:
    """NaN ends as the infinite ends they stand for (a quantile between two infinite pivots)."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return np.where(np.isnan(low), -np.inf, low), np.where(np.isnan(high), np.inf, high)


def clipped(low: FloatArray, high: FloatArray, bounds: tuple | None) -> tuple[FloatArray, FloatArray]:
    """``[low, high]`` intersected with ``bounds`` (``(lo, hi)``, arrays broadcast to the ends; None:
    no range), NaN ends first made infinite."""
    low, high = unbounded_ends(low, high)
    if bounds is None:
        return low, high
    lo, hi = bounds
    return np.clip(low, lo, hi), np.clip(high, lo, hi)


def difference_bounds(bounds: tuple | None) -> tuple | None:
    """The range of a difference of two values in ``bounds``: ``[lo - hi, hi - lo]``."""
    if bounds is None:
        return None
    lo, hi = (np.asarray(b, dtype=float) for b in bounds)
    return lo - hi, hi - lo


def normal_within(theta: FloatArray, replicates: FloatArray, z: float, bounds: tuple | None,
                  eps: float = EPS) -> tuple[FloatArray, FloatArray]:
    """The normal interval ``θ ± z·sd(θ*)``, on the logit scale of ``bounds`` where it would leave them.

    Args:
        theta: the statistic, shape ``s``; replicates: its bootstrap values, shape ``(B, *s)``.
        z: the normal quantile (1.96 for 95%). bounds: ``(lo, hi)`` broadcast to ``s``, or None.
    """
    theta = np.asarray(theta, dtype=float)
    reps = np.asarray(replicates, dtype=float)
    spread = np.ptp(reps, axis=0) > 0  # (a constant row's computed sd may be 1e-15, not 0)
    sd = np.where(spread, reps.std(axis=0, ddof=1), 0.0)
    low, high = theta - z * sd, theta + z * sd
    if bounds is None:
        return low, high
    lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), theta.shape) for b in bounds)
    outside = np.isfinite(lo) & np.isfinite(hi) & spread & ((low < lo) | (high > hi))
    if outside.any():
        width = np.where(outside, hi - lo, 1.0)
        base = np.where(outside, lo, 0.0)

        def logit(x):
            return special.logit(np.clip((x - base) / width, eps, 1 - eps))

        centre = logit(theta)
        sd_logit = np.where(outside, logit(reps).std(axis=0, ddof=1), 0.0)
        low = np.where(outside, np.minimum(base + width * special.expit(centre - z * sd_logit), theta), low)
        high = np.where(outside, np.maximum(base + width * special.expit(centre + z * sd_logit), theta), high)
    return clipped(low, high, (lo, hi))
