"""Small-R correction of AP intervals: silver bullets and lead balloons (Cormack & Lynam 2006, §7).

When a system's AP on a topic is 0, every image gives AP = 0 and the bootstrap interval is the
point [0, 0]; yet the population of similar collections may hold *silver bullets*: relevant
documents the system would retrieve that happen not to be among the ``R`` sampled. Symmetrically,
AP = 1 may hide *lead balloons*: relevant documents the system can never retrieve.

* Exact binomial limit. Seeing none of a kind among ``R`` relevant documents, the largest share
  ``u`` not rejected at level ``α = 1 - confidence_level`` is the smallest ``u`` with
  ``(1 - u)^R <= α``: ``u = 1 - α^(1/R)`` (R = 4, α = 0.05: u = 0.527, the paper's 0.53). The
  paper uses ``α`` (not ``α/2``) because the other limit is fixed at 0 (or 1).
* Silver bullets -> upper AP limit when AP = 0: each of the ``R`` relevant documents is a silver
  bullet with probability ``u`` (their number ``X ~ Binomial(R, u)``); a silver bullet takes a rank
  uniformly distributed over ``1..n`` (``n`` the run's depth, capped at the measure's cutoff),
  distinct bullets distinct ranks (bullets beyond ``n`` are not retrieved); every other retrieved
  document stays non-relevant. The limit is ``E(AP)``. The paper computes it "by enumeration, using
  dynamic programming"; linearity of expectation gives it exactly: with ``x <= n`` bullets at a
  uniformly random set of ranks, rank ``r`` holds one with probability ``x/n`` and then has
  ``(x-1)(r-1)/(n-1)`` other bullets above it on average, so the expected sum of precisions is
  ``f(x, n) = (x/n) [H_n + (x-1)(n - H_n)/(n-1)]`` (``H_n`` the harmonic number) and
  ``E(AP) = (1/R) Σ_x P(X = x) f(min(x, n), n)``. The tests check it against brute-force
  enumeration of every placement.
* Lead balloons -> lower AP limit when AP = 1: ``X ~ Binomial(R, u)`` relevant documents are never
  retrieved, the others keep ranks ``1..R-X`` (precision 1 each), so ``E(AP) = 1 - u = α^(1/R)``.
* When it applies (the paper: "AP = 0 and AP = 1, and AP ≈ 0 and AP ≈ 1", ≈ not defined): we
  apply the silver-bullet interval ``[0, U]`` when ``AP <= U`` and the lead-balloon interval
  ``[L, 1]`` when ``AP >= L``, that is when the estimate is consistent with the extreme case, and
  then, as the paper does, report the wider of the bootstrap interval and the corrected one (their
  hull). Topics with ``R = 0`` (AP is 0 in every image and in the population model) are left alone.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import special

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import BoolArray, FloatArray


__all__ = [
    "silver_bullet_share",
    "expected_ap",
    "silver_bullet_limit",
    "lead_balloon_limit",
    "small_r_correction",
]


def silver_bullet_share(n_relevant: npt.ArrayLike, *, confidence_level: float = 0.95) -> float | FloatArray:
    """Upper limit ``u = 1 - α^(1/R)`` of the share of relevant documents unseen in a sample of R.

    NaN where ``R = 0``.

    Example:
        >>> round(float(silver_bullet_share(4)), 3)  # Cormack & Lynam §7: [0, 0.53]
        0.527
    """
    alpha = 1 - confidence_level
    R = np.asarray(n_relevant, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = 1 - alpha ** (1 / R)
    return np.where(R > 0, share, np.nan)


def _harmonic(n):
    return special.digamma(np.asarray(n, dtype=float) + 1) + np.euler_gamma


def _precision_sum(x, n):
    """Expected sum of precisions of ``x`` relevant documents at uniformly random distinct ranks of ``n``."""
    x = np.minimum(np.asarray(x, dtype=float), n)
    n = np.asarray(n, dtype=float)
    h = _harmonic(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs = np.where(n > 1, (x - 1) * (n - h) / (n - 1), 0.0)
        out = x / n * (h + pairs)
    return np.where(n > 0, out, 0.0)


def expected_ap(n_relevant: npt.ArrayLike, depth: npt.ArrayLike, share: npt.ArrayLike) -> float | FloatArray:
    """E(AP) when each of R relevant documents is a silver bullet with probability ``share``.

    A silver bullet takes a uniformly random rank among the ``depth`` retrieved (distinct bullets
    distinct ranks); the system retrieves no other relevant document. Arguments broadcast.

    Example:
        >>> float(expected_ap(1, 2, 1.0))  # one bullet at rank 1 or 2: (1 + 1/2) / 2
        0.75
    """
    R, n, u = np.broadcast_arrays(np.asarray(n_relevant, dtype=np.int64), np.asarray(depth, dtype=np.int64),
                                  np.asarray(share, dtype=float))
    out = np.zeros(R.shape)
    valid = (R > 0) & (n > 0) & np.isfinite(u)
    if not valid.any():
        return out if out.ndim else float(out)
    keys, inverse = np.unique(np.stack([R[valid], n[valid], u[valid]]), axis=1, return_inverse=True)
    r, d, p = keys[0].astype(np.int64), keys[1].astype(np.int64), keys[2]
    # every x = 0..r of every distinct (r, d, p), flattened: E(AP) = Σ_x P(X = x) f(x, d) / r
    key_of = np.repeat(np.arange(len(r)), r + 1)
    x = np.arange(len(key_of)) - np.repeat(np.cumsum(r + 1) - (r + 1), r + 1)
    rr, pp = r[key_of], p[key_of]
    log_pmf = (special.gammaln(rr + 1) - special.gammaln(x + 1) - special.gammaln(rr - x + 1)
               + special.xlogy(x, pp) + special.xlog1py(rr - x, -pp))
    terms = np.exp(log_pmf) * _precision_sum(x, d[key_of])
    values = np.bincount(key_of, weights=terms, minlength=len(r)) / r
    out[valid] = values[inverse.reshape(-1)]
    return out if out.ndim else float(out)


def silver_bullet_limit(n_relevant: npt.ArrayLike, depth: npt.ArrayLike, *, confidence_level: float = 0.95) -> float | FloatArray:
    """Upper confidence limit of AP when AP = 0: ``E(AP)`` at the largest silver-bullet share.

    Example:
        >>> round(float(silver_bullet_limit(4, 1000)), 5)
        0.00477
    """
    share = silver_bullet_share(n_relevant, confidence_level=confidence_level)
    return expected_ap(n_relevant, depth, np.nan_to_num(share))


def lead_balloon_limit(n_relevant: npt.ArrayLike, *, confidence_level: float = 0.95) -> float | FloatArray:
    """Lower confidence limit of AP when AP = 1: ``α^(1/R)`` (1 where R = 0).

    Example:
        >>> round(float(lead_balloon_limit(4)), 3)
        0.473
    """
    share = silver_bullet_share(n_relevant, confidence_level=confidence_level)
    return np.where(np.isfinite(share), 1 - share, 1.0)


def small_r_correction(statistic: npt.ArrayLike, low: npt.ArrayLike, high: npt.ArrayLike,
                       n_relevant: npt.ArrayLike, depth: npt.ArrayLike, *, confidence_level: float = 0.95) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Widen AP intervals near 0 and 1 by the silver-bullet / lead-balloon limits (hull of both).

    Args:
        statistic: AP on the full corpus; ``low``, ``high``: the bootstrap interval; ``n_relevant``:
            R of the topic; ``depth``: the run's depth (capped at the measure's cutoff). All broadcast.

    Returns:
        ``(low, high, corrected)``: the widened interval and where a correction applied.
    """
    theta, low, high, R, n = np.broadcast_arrays(
        np.asarray(statistic, dtype=float), np.asarray(low, dtype=float), np.asarray(high, dtype=float),
        np.asarray(n_relevant, dtype=np.int64), np.asarray(depth, dtype=np.int64))
    upper = silver_bullet_limit(R, n, confidence_level=confidence_level)
    lower = lead_balloon_limit(R, confidence_level=confidence_level)
    silver = (R > 0) & (theta <= upper)
    lead = (R > 0) & (theta >= lower)
    new_low = np.where(silver, np.minimum(low, 0.0), low)
    new_high = np.where(silver, np.maximum(high, upper), high)
    new_low = np.where(lead, np.minimum(new_low, lower), new_low)
    new_high = np.where(lead, np.maximum(new_high, 1.0), new_high)
    return new_low, new_high, silver | lead
