"""Quantiles of bootstrap distributions with one probability per row (private).

Same definition as ``numpy.quantile(..., method="linear")`` (and so ``scipy.stats.quantile``, which
``scipy.stats.bootstrap`` uses), but ``q`` may differ per row (BCa), NaN probabilities give NaN
instead of an error, and equal infinite neighbours give that infinity instead of NaN.
"""
import numpy as np


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
