"""The asymptotic confidence sequence for a mean, and its anytime p-value.

Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas (2024), *Time-uniform central limit theory and
asymptotic confidence sequences*, Annals of Statistics 52(6). Their Gaussian-mixture sequence

    mu_t +- sd_t * sqrt( 2 (t rho^2 + 1) / (t^2 rho^2) * log( sqrt(t rho^2 + 1) / alpha ) )

(``mu_t`` the running mean, ``sd_t`` the running standard deviation, divisor ``t``) covers the
mean at all ``t`` at once as the start time grows (its guarantee is asymptotic, like a t interval's,
but uniform over time). ``rho`` sets the time at which it is tightest: :func:`tuned_rho` minimises
the half-width at ``planned_n`` numerically. The one-sided version uses the one-sided normal
mixture of Howard, Ramdas, McAuliffe & Sekhon (2021, Annals of Statistics 49(2), eq. 14):
``log(1 + sqrt(t rho^2 + 1) / (2 alpha))`` in place of the logarithm above.

Being asymptotic, it misses more often than promised over the first topics, and an early miss
would be carried forward by the intersection over time. So before :data:`MIN_TOPICS` topics, and
while the running standard deviation is 0 (identical scores so far: the data say nothing about the
spread), the interval is the whole range of the scores. From there on, intervals are clipped to
that range and intersected over time, so the sequence never widens. Measured share of 4,000
sequences of 300 iid scores whose 95% sequence (``planned_n=50``) ever misses the mean, from
topic 10 on: Beta(2, 3) 6.9%, Beta(0.5, 0.5) 7.2%, Bernoulli(0.3) 9.8%, Bernoulli(0.1) 11.4%,
Beta(0.3, 2) 17% (from topic 2 on: 29%, 37%, 10%, 12%, 50%). Use the betting sequence when the
guarantee must hold at small n or for skewed or binary scores.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize

__all__ = ["asymptotic_sequence", "asymptotic_pvalue", "tuned_rho", "boundary", "MIN_TOPICS"]

#: topics before which the asymptotic sequence is the whole range (and its p-value 1)
MIN_TOPICS = 10


def boundary(t: np.ndarray, rho: float, alpha: float, two_sided: bool) -> np.ndarray:
    """The half-width per unit standard deviation after ``t`` topics."""
    t = np.asarray(t, dtype=float)
    spread = t * rho**2 + 1.0
    log_term = np.log(np.sqrt(spread) / alpha) if two_sided else np.log1p(np.sqrt(spread) / (2 * alpha))
    return np.sqrt(2.0 * spread / (t**2 * rho**2) * log_term)


def tuned_rho(planned_n: int, alpha: float, two_sided: bool) -> float:
    """The ``rho`` whose boundary is narrowest at ``t = planned_n``."""
    def width(log_rho):
        return float(boundary(np.array(planned_n), float(np.exp(log_rho)), alpha, two_sided))

    best = optimize.minimize_scalar(width, bounds=(-12.0, 6.0), method="bounded",
                                    options={"xatol": 1e-10})
    return float(np.exp(best.x))


def _running_moments(x: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, running mean, running sd with divisor t)`` for each prefix (topics x columns); the sd
    is 0 (no information) before :data:`MIN_TOPICS` topics and below rounding (``width``: the
    range of the scores)."""
    t = np.arange(1, x.shape[0] + 1, dtype=float)[:, None]
    mean = np.cumsum(x, axis=0) / t
    shifted = x - x[:1]  # centred on the first topic: less cancellation in the sum of squares
    variance = np.cumsum(shifted**2, axis=0) / t - (np.cumsum(shifted, axis=0) / t) ** 2
    variance[variance <= (1e-7 * width) ** 2] = 0.0  # rounding error of identical scores
    variance[: MIN_TOPICS - 1] = 0.0
    return t, mean, np.sqrt(variance)


def asymptotic_sequence(x: np.ndarray, bounds: tuple[float, float], alpha: float, alternative: str,
                        planned_n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` (topics x columns) of the running-intersection asymptotic sequence."""
    two_sided = alternative == "two-sided"
    t, mean, sd = _running_moments(x, bounds[1] - bounds[0])
    half = sd * boundary(t, tuned_rho(planned_n, alpha, two_sided), alpha, two_sided)
    informative = sd > 0
    low = np.where(informative & (alternative != "less"), mean - half, bounds[0])
    high = np.where(informative & (alternative != "greater"), mean + half, bounds[1])
    low = np.maximum.accumulate(np.clip(low, *bounds), axis=0)
    high = np.minimum.accumulate(np.clip(high, *bounds), axis=0)
    return low, high


def asymptotic_pvalue(x: np.ndarray, bounds: tuple[float, float], alpha: float, alternative: str,
                      planned_n: int, null: float) -> np.ndarray:
    """Anytime p-values for ``mean == null``: the smallest level whose sequence (same ``rho``)
    has excluded ``null`` at some ``s <= t``."""
    two_sided = alternative == "two-sided"
    rho = tuned_rho(planned_n, alpha, two_sided)
    t, mean, sd = _running_moments(x, bounds[1] - bounds[0])
    spread = t * rho**2 + 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (mean - null) / sd
        if alternative == "less":
            z = -z
        evidence = z**2 * t**2 * rho**2 / (2.0 * spread)
        if two_sided:
            p = np.sqrt(spread) * np.exp(-evidence)
        else:
            p = np.where(z > 0, np.sqrt(spread) / (2.0 * np.expm1(evidence)), 1.0)
    p = np.where(sd > 0, np.minimum(p, 1.0), 1.0)
    return np.minimum.accumulate(p, axis=0)
