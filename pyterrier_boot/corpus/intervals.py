"""Confidence intervals and p-values from a corpus-bootstrap image distribution.

Each quantity (a per-topic score, a system mean, a paired difference) has its value on the full
corpus ``θ`` (``statistic``) and its value on each image ``θ_b`` (``distribution``, images on the
first axis). Methods (Cormack & Lynam 2006, §5; Efron & Tibshirani 1993):

* ``percentile``: the ``α/2`` and ``1-α/2`` quantiles of the image values (numpy's ``linear``
  quantile, as ``scipy.stats.bootstrap``).
* ``normal``: ``θ ± z_{1-α/2} σ``, ``σ`` the standard deviation of the image values (ddof=1);
  with ``bounds`` (a measure's range), on the logit scale of the range where it would leave it,
  every other method being clipped into it (:mod:`pyterrier_boot._bounds`; measured near 0 and 1 in
  ``pt_docs/statistics.md``, "Intervals near the ends of the range").
* ``logit``: Cormack & Lynam's logit-normal interval: scores are clipped to ``[ε, 1-ε]`` (AP = 0
  and 1 have no logit; the paper replaces them by ε and 1-ε without giving ε; we use
  ``ε = 1e-5``, the value of :mod:`pyterrier_boot.stats.aggregates`), ``σ_logit`` is the standard
  deviation of ``logit(θ_b)`` and the interval is ``expit(logit(θ) ± z σ_logit)``, widened to
  contain ``θ`` itself (which only matters when ``θ`` is 0 or 1). Needs values in ``[0, 1]``.
* ``bca``: bias-corrected and accelerated percentile interval. The bias correction
  ``z0 = Φ⁻¹(share of images below θ, ties counted half)`` comes from the image values. The
  acceleration comes from a *delete-a-group jackknife over documents*: the documents seen are
  split into ``G`` groups by a hash of their docno, the quantity is recomputed on the ``G``
  collections that each lack one group (``jackknife``, shape ``(G, ...)``), and
  ``a = Σ (θ̄ - θ_(g))³ / (6 (Σ (θ̄ - θ_(g))²)^(3/2))`` (Efron & Tibshirani eq. 14.15; the group
  size cancels in the ratio). Where ``z0`` is infinite (no image value on one side of ``θ``) BCa
  is undefined and the percentile interval is returned.

p-values (two-sided, for ``H0: parameter = 0``, e.g. a paired difference) invert the interval of
the same method, so that ``p < α`` exactly when 0 lies outside the ``1 - α`` interval (up to
quantile interpolation): ``percentile``: ``min(1, 2 min(#(θ_b <= 0) + 1, #(θ_b >= 0) + 1) / (B + 1))``
(never 0, as scipy's randomised p-values); ``normal``: ``2 Φ(-|θ| / σ)``; ``bca``: the level at
which a BCa endpoint reaches 0, computed from the same ``(count + 1)/(B + 1)`` tail shares
(equal to the percentile p-value when ``z0 = a = 0``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from .._bounds import clipped, normal_within
from .._checks import check_choice, check_confidence_level
from .._deprecation import renamed_keywords
from .._memory import warn_interval_resolution
from .._quantiles import acceleration, bca_probabilities, quantiles, sorted_quantiles
from ..stats.aggregates import EPS

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray


__all__ = ["METHODS", "PVALUE_METHODS", "EPSILON", "image_interval", "image_pvalue", "standard_error"]

METHODS = ("percentile", "normal", "logit", "bca")
PVALUE_METHODS = ("percentile", "normal", "bca")
#: ε of the logit interval: scores are clipped to [ε, 1 - ε] before the logit.
EPSILON = EPS


def _rows(statistic, distribution, jackknife=None):
    theta = np.asarray(statistic, dtype=float)
    dist = np.asarray(distribution, dtype=float)
    if dist.ndim < 1 or dist.shape[1:] != theta.shape:
        raise ValueError(f"'distribution' must have shape (n_images, *statistic.shape) = (B, {theta.shape}), "
                         f"got {dist.shape}")
    if dist.shape[0] < 2:
        raise ValueError(f"'distribution' needs at least 2 images, got {dist.shape[0]}")
    B = dist.shape[0]
    rows = np.moveaxis(dist, 0, -1).reshape(-1, B)
    jack = None
    if jackknife is not None:
        jack = np.asarray(jackknife, dtype=float)
        if jack.ndim < 1 or jack.shape[1:] != theta.shape or jack.shape[0] < 2:
            raise ValueError(f"'jackknife' must have shape (G >= 2, *statistic.shape), got {jack.shape}")
        jack = np.moveaxis(jack, 0, -1).reshape(-1, jack.shape[0])
    return theta.reshape(-1), rows, jack


def standard_error(distribution: npt.ArrayLike) -> FloatArray:
    """Standard deviation of the image values along the first axis (ddof=1, as scipy)."""
    return np.asarray(distribution, dtype=float).std(axis=0, ddof=1)


def _check_unit(theta, rows, what):
    values = (theta, rows)
    if any(np.any(v < 0) or np.any(v > 1) for v in values):
        low = min(float(np.min(v)) for v in values)
        high = max(float(np.max(v)) for v in values)
        raise ValueError(f"method='logit' needs {what} in [0, 1], got values in [{low:g}, {high:g}]; "
                         "use 'percentile', 'normal' or 'bca'")


def _logit(x, eps):
    return special.logit(np.clip(x, eps, 1 - eps))


@renamed_keywords(epsilon="eps")
def image_interval(statistic: npt.ArrayLike, distribution: npt.ArrayLike, *,
                   method: str = "percentile", confidence_level: float = 0.95,
                   jackknife: npt.ArrayLike | None = None, eps: float = EPSILON,
                   what: str = "scores", bounds: tuple | None = None) -> tuple[FloatArray, FloatArray]:
    """Two-sided interval for each entry of ``statistic`` from its image distribution.

    Args:
        statistic: values on the full corpus, any shape ``s``.
        distribution: values on each image, shape ``(B, *s)``.
        method: ``"percentile"``, ``"normal"``, ``"logit"`` or ``"bca"`` (module docstring).
        confidence_level: e.g. 0.95.
        jackknife: delete-a-group jackknife values, shape ``(G, *s)``; required by ``"bca"``.
        eps: the logit interval's clipping ε.
        what: how to name the values in error messages.
        bounds: the values' range ``(lo, hi)`` (numbers, or arrays broadcast to ``s`` with ``±inf``
            where there is none) or None: the interval is kept inside it (module docstring).

    Returns:
        ``(low, high)``, arrays of shape ``s``.

    Example:
        >>> import numpy as np
        >>> dist = np.random.default_rng(0).beta(2, 5, size=(1000, 3))
        >>> low, high = image_interval(dist.mean(axis=0), dist, method="logit")
        >>> bool(np.all(low < high))
        True
    """
    method = check_choice(method, "method", METHODS)
    if method in ("percentile", "bca"):  # the methods that read the tails of the image distribution
        warn_interval_resolution(np.shape(distribution)[0], check_confidence_level(confidence_level),
                                 method=method, name="n_images")
    confidence_level = check_confidence_level(confidence_level)
    theta, rows, jack = _rows(statistic, distribution, jackknife)
    shape = np.shape(statistic)
    alpha = 1 - confidence_level
    z = special.ndtri(1 - alpha / 2)
    if method == "percentile":
        low, high = quantiles(rows, [alpha / 2, 1 - alpha / 2]).T
    elif method == "normal":
        row_bounds = None if bounds is None else tuple(np.broadcast_to(np.asarray(b, dtype=float), shape).reshape(-1)
                                                        for b in bounds)
        low, high = normal_within(theta, rows.T, z, row_bounds)
    elif method == "logit":
        _check_unit(theta, rows, what)
        centre = _logit(theta, eps)
        sd = _logit(rows, eps).std(axis=1, ddof=1)
        spread = np.ptp(rows, axis=1) > 0  # (a constant row's computed sd may be 1e-15, not 0)
        low = np.where(spread, np.minimum(special.expit(centre - z * sd), theta), theta)
        high = np.where(spread, np.maximum(special.expit(centre + z * sd), theta), theta)
    else:
        if jack is None:
            raise ValueError("method='bca' needs the delete-a-group 'jackknife' values")
        probs = bca_probabilities(rows, theta, jack, confidence_level, "two-sided")
        srt = np.sort(rows, axis=1)
        fallback = ~np.all(np.isfinite(probs), axis=1)
        probs[fallback] = [alpha / 2, 1 - alpha / 2]
        low, high = sorted_quantiles(srt, probs).T
    low, high = np.reshape(low, shape), np.reshape(high, shape)
    return clipped(low, high, bounds) if bounds is not None else (low, high)


def image_pvalue(statistic: npt.ArrayLike, distribution: npt.ArrayLike, *,
                 method: str = "percentile", jackknife: npt.ArrayLike | None = None) -> FloatArray:
    """Two-sided p-value of ``H0: parameter = 0`` for each entry, inverting the ``method`` interval.

    Args:
        statistic: values on the full corpus (e.g. paired differences), shape ``s``.
        distribution: image values, shape ``(B, *s)``.
        method: ``"percentile"``, ``"normal"`` or ``"bca"`` (see the module docstring).
        jackknife: delete-a-group jackknife values ``(G, *s)``; required by ``"bca"``.

    Example:
        >>> import numpy as np
        >>> d = np.random.default_rng(0).normal(0.1, 0.02, size=(999, 1))
        >>> float(image_pvalue(d.mean(axis=0), d)[0])  # no image at or below 0
        0.002
    """
    method = check_choice(method, "method", PVALUE_METHODS)
    theta, rows, jack = _rows(statistic, distribution, jackknife)
    shape = np.shape(statistic)
    B = rows.shape[1]
    n_le = np.count_nonzero(rows <= 0, axis=1)
    n_ge = np.count_nonzero(rows >= 0, axis=1)
    g_low = (n_le + 1) / (B + 1)  # share of images at or below 0
    g_high = (n_ge + 1) / (B + 1)  # share at or above 0
    percentile = np.minimum(1.0, 2 * np.minimum(g_low, g_high))
    if method == "percentile":
        return percentile.reshape(shape)
    if method == "normal":
        sd = rows.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = 2 * special.ndtr(-np.abs(theta) / sd)
        p = np.where(sd > 0, p, np.where(theta == 0, 1.0, 0.0))
        return p.reshape(shape)
    if jack is None:
        raise ValueError("method='bca' needs the delete-a-group 'jackknife' values")
    below = np.count_nonzero(rows < theta[:, None], axis=1) + np.count_nonzero(rows <= theta[:, None], axis=1)
    z0 = special.ndtri(below / (2 * B))
    a = acceleration(jack)

    def level(share):
        # the tail probability p whose BCa quantile level Φ(z0 + t/(1 - a t)), t = z0 + z_p, is `share`
        w = special.ndtri(np.clip(share, 1 / (B + 1), B / (B + 1))) - z0
        denominator = 1 + a * w
        with np.errstate(divide="ignore", invalid="ignore"):
            p = special.ndtr(w / denominator - z0)
        return np.where(denominator > 0, p, np.nan)

    p_low = level(g_low)
    p_high = 1 - level(1 - g_high)
    p = np.minimum(1.0, 2 * np.minimum(p_low, p_high))
    p = np.where(np.isfinite(z0) & np.isfinite(p), p, percentile)
    return p.reshape(shape)
