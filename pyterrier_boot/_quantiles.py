"""Quantiles of bootstrap distributions with one probability per row, and which probabilities an
interval takes (two-sided or one-sided tails, BCa), shared by the topic and the corpus bootstrap (private).

Same definition as ``numpy.quantile(..., method="linear")`` (and so ``scipy.stats.quantile``, which
``scipy.stats.bootstrap`` uses), but ``q`` may differ per row (BCa), NaN probabilities give NaN
instead of an error, and equal infinite neighbours give that infinity instead of NaN.
"""
import numpy as np
from scipy import special


def sorted_quantiles(sorted_rows, q):
    """Quantiles of each row of ``sorted_rows`` (R, B), sorted ascending.

    Args:
        sorted_rows: float array (R, B).
        q: probabilities, shape (k,) (same for every row) or (R, k).

    Returns:
        float array (R, k).
    """
    a = np.asarray(sorted_rows, dtype=float)
    R, B = a.shape
    q = np.asarray(q, dtype=float)
    if q.ndim == 1:
        q = np.broadcast_to(q, (R, q.size))
    bad = ~np.isfinite(q)
    qc = np.clip(np.where(bad, 0.0, q), 0.0, 1.0)
    h = (B - 1) * qc
    lo = np.floor(h).astype(np.intp)
    hi = np.minimum(lo + 1, B - 1)
    t = h - lo
    rows = np.arange(R)[:, None]
    below = a[rows, lo]
    above = a[rows, hi]
    with np.errstate(invalid="ignore"):
        diff = above - below
        value = np.where(t >= 0.5, above - diff * (1 - t), below + diff * t)
    value = np.where(below == above, below, value)
    value = np.where(t == 0, below, value)
    return np.where(bad, np.nan, value)


def quantiles(rows, q):
    """Quantiles of each row of an unsorted ``rows`` (R, B) for probabilities ``q`` (k,).

    Uses ``np.partition`` on the needed order statistics only; equal to
    ``sorted_quantiles(np.sort(rows, axis=1), q)``.
    """
    a = np.asarray(rows, dtype=float)
    R, B = a.shape
    q = np.clip(np.asarray(q, dtype=float), 0.0, 1.0)
    h = (B - 1) * q
    lo = np.floor(h).astype(np.intp)
    hi = np.minimum(lo + 1, B - 1)
    kth = np.unique(np.concatenate([lo, hi]))
    part = np.partition(a, kth, axis=1)
    t = (h - lo)[None, :]
    below = part[:, lo]
    above = part[:, hi]
    with np.errstate(invalid="ignore"):
        diff = above - below
        value = np.where(t >= 0.5, above - diff * (1 - t), below + diff * t)
    value = np.where(below == above, below, value)
    return np.where(t == 0, below, value)


# ---------------------------------------------------------------- which quantiles an interval takes


def tail_probabilities(confidence_level, alternative):
    """Lower and upper probabilities of the interval (one side is unused when one-sided)."""
    alpha = 1 - confidence_level
    if alternative == "two-sided":
        return alpha / 2, 1 - alpha / 2
    return alpha, 1 - alpha


def one_sided(low, high, alternative):
    """``(low, high)`` as float arrays, the unused end made infinite for a one-sided ``alternative``."""
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    if alternative == "less":
        low = np.full_like(low, -np.inf)
    elif alternative == "greater":
        high = np.full_like(high, np.inf)
    return low, high


def acceleration(jack):
    """BCa acceleration from jackknife values (rows, n) (Efron & Tibshirani eq. 14.15); 0 without spread.

    The ratio does not depend on the scale of ``d``, so each row is divided by its largest
    deviation first: cubes of large or small scores neither overflow nor underflow.
    """
    d = jack.mean(axis=1, keepdims=True) - jack
    scale = np.abs(d).max(axis=1, keepdims=True)
    d = d / np.where(scale > 0, scale, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        accel = (d ** 3).sum(axis=1) / (6 * ((d ** 2).sum(axis=1)) ** 1.5)
    return np.where(np.isfinite(accel), accel, 0.0)


def bca_probabilities(dist, theta, jack, confidence_level, alternative):
    """BCa probabilities (rows, 2) of the bootstrap distributions ``dist`` (rows, B) around ``theta``
    with jackknife values ``jack`` (Efron & Tibshirani ch. 14)."""
    B = dist.shape[1]
    below = np.count_nonzero(dist < theta[:, None], axis=1) + np.count_nonzero(dist <= theta[:, None], axis=1)
    z0 = special.ndtri(below / (2 * B))
    accel = acceleration(jack)
    lo_p, hi_p = tail_probabilities(confidence_level, alternative)
    probs = []
    for p in (lo_p, hi_p):
        zp = special.ndtri(p)
        with np.errstate(invalid="ignore"):
            num = z0 + zp
            probs.append(special.ndtr(z0 + num / (1 - accel * num)))
    return np.stack(probs, axis=1)


def critical_value(df, confidence_level):
    """The two-sided ``confidence_level`` quantile of a t distribution with ``df`` degrees of
    freedom (any shape; the normal one where ``df`` is infinite, NaN where it is NaN)."""
    upper = 1 - (1 - confidence_level) / 2
    df = np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(df), special.ndtri(upper), special.stdtrit(np.where(np.isinf(df), 1.0, df), upper))
