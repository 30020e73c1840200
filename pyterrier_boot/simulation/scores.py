"""Per-topic score matrices with known population means, for tests that need only scores.

A logit-normal model with topic effects: bounded in (0, 1) and skewed like AP, paired across
systems through the topic effect, with population means known to quadrature precision.
"""
from __future__ import annotations

import functools
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from scipy import optimize, special

from .._random import as_generator
from .._results import TupleLike

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import RngLike


__all__ = ["SimulatedScores", "simulate_scores", "simulate_null_scores"]



@dataclass(frozen=True, slots=True)
class SimulatedScores(TupleLike):
    """Simulated per-topic scores; ``scores, means = simulate_scores(...)`` unpacks.

    Attributes:
        scores: systems x topics array in (0, 1).
        means: each system's population mean score (known exactly, not estimated).
        locations: each system's ``a_s`` on the logit scale.
        scale: ``σ = √(topic_sd² + interaction_sd²)``, the logit-scale SD of one system's scores.
    """

    scores: np.ndarray
    means: np.ndarray
    locations: np.ndarray
    scale: float
    _tuple_fields: ClassVar[tuple[str, ...]] = ("scores", "means")


def _logit_normal_mean(location, scale):
    """``E[expit(location + scale Z)]``, Z standard normal, by the trapezoidal rule on z in [-38, 38].

    The integrand is analytic in a strip of half-width ``π / scale`` around the real line, so the
    rule with step ``h`` errs by about ``exp(-2π² / (scale h))``: below 1e-30 with the step used.
    """
    location = np.asarray(location, dtype=float)
    if scale == 0:
        return special.expit(location)
    step = min(0.25, 0.25 / scale)
    z = np.arange(-38.0, 38.0 + step / 2, step)
    weights = np.exp(-z * z / 2) * step / np.sqrt(2 * np.pi)
    return special.expit(location[..., None] + scale * z) @ weights


@functools.lru_cache(maxsize=1024)
def _location_for(mean, scale):
    """The ``a`` with ``E[expit(a + scale Z)] = mean`` (the map is increasing in ``a``).

    Memoised in memory: replicate loops (Type I error, coverage) solve each mean only once.
    """
    if scale == 0:
        return float(special.logit(mean))
    return optimize.brentq(lambda a: _logit_normal_mean(a, scale) - mean, -60.0, 60.0, xtol=1e-13, rtol=1e-14)


def simulate_scores(n_systems: int, n_topics: int, *, means: npt.ArrayLike | None = None,
                    topic_sd: float = 1.2, interaction_sd: float = 0.6, rng: RngLike = None) -> SimulatedScores:
    """Scores of ``n_systems`` systems on ``n_topics`` topics with known population means.

    Model: ``x[s, q] = expit(a_s + b_q + c_sq)`` with topic effects ``b_q ~ N(0, topic_sd²)``
    shared by all systems and interactions ``c_sq ~ N(0, interaction_sd²)``, all independent. Each
    system's scores are i.i.d. over topics with population mean ``E[expit(a_s + σZ)]``,
    ``σ² = topic_sd² + interaction_sd²``; ``a_s`` is solved (numerical integration and Brent's
    method) so that this mean equals ``means[s]`` to about 1e-12. Scores of two systems on a topic
    correlate through ``b_q`` (on the logit scale with correlation ``topic_sd² / σ²``); set
    ``topic_sd=0`` for independent (unpaired) samples. The defaults resemble per-topic AP: a
    standard deviation near 0.2 across topics and a correlation near 0.75 between systems.

    Systems with equal means have identical, exchangeable distributions: the paired difference of
    two of them is symmetric about 0, so every paired test's null hypothesis holds exactly (see
    :func:`simulate_null_scores`).

    Args:
        n_systems, n_topics: shape of the score matrix.
        means: population mean of each system, each in (0, 1); one number for all (the null).
            Default: evenly spaced from 0.2 to 0.3 (0.25 for one system).
        topic_sd: standard deviation of the topic effect (logit scale).
        interaction_sd: standard deviation of the system x topic interaction (logit scale).
        rng: SPEC 7 seed.

    Returns:
        :class:`SimulatedScores` (``scores``: ``n_systems x n_topics``; ``means``).

    Example:
        >>> x, mu = simulate_scores(2, 5000, means=[0.2, 0.3], rng=1)
        >>> x.shape, mu.tolist()
        ((2, 5000), [0.2, 0.3])
        >>> bool(abs(x.mean(axis=1) - mu).max() < 0.01)
        True
    """
    n_systems, n_topics, means, topic_sd, interaction_sd = _simulate_scores_iv(
        n_systems, n_topics, means, topic_sd, interaction_sd)
    rng = as_generator(rng, fresh=True)
    scale = float(np.hypot(topic_sd, interaction_sd))
    locations = np.array([_location_for(float(m), scale) for m in means])
    topic = rng.normal(0.0, topic_sd, size=n_topics)
    interaction = rng.normal(0.0, interaction_sd, size=(n_systems, n_topics))
    scores = special.expit(locations[:, None] + topic + interaction)
    return SimulatedScores(scores, means, locations, scale)


def simulate_null_scores(n_systems: int, n_topics: int, *, mean: float = 0.25,
                         topic_sd: float = 1.2, interaction_sd: float = 0.6, rng: RngLike = None) -> SimulatedScores:
    """Scores of systems with identical population distributions (for Type I error studies).

    :func:`simulate_scores` with every mean equal to ``mean``: systems are exchangeable, so the
    null hypothesis of every paired or unpaired test of equal means (or medians) holds exactly.

    Example:
        >>> x, mu = simulate_null_scores(3, 50, rng=1)
        >>> x.shape, mu.tolist()
        ((3, 50), [0.25, 0.25, 0.25])
    """
    n_systems = _check_count(n_systems, "n_systems")
    mean = _check_unit(mean, "mean")
    return simulate_scores(n_systems, n_topics, means=np.full(n_systems, mean), topic_sd=topic_sd,
                           interaction_sd=interaction_sd, rng=rng)


def _check_count(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name!r} must be an integer >= 1, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name!r} must be an integer >= 1, got {value}")
    return int(value)


def _check_unit(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name!r} must be a number in (0, 1), got {type(value).__name__}")
    if not 0 < value < 1:
        raise ValueError(f"{name!r} must be in (0, 1), got {value}")
    return float(value)


def _check_sd(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name!r} must be a number >= 0, got {type(value).__name__}")
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"{name!r} must be a finite number >= 0, got {value}")
    return float(value)


def _simulate_scores_iv(n_systems, n_topics, means, topic_sd, interaction_sd):
    n_systems = _check_count(n_systems, "n_systems")
    n_topics = _check_count(n_topics, "n_topics")
    if means is None:
        means = np.linspace(0.2, 0.3, n_systems) if n_systems > 1 else np.array([0.25])
        means = means.round(12)
    elif isinstance(means, numbers.Real) and not isinstance(means, bool):
        means = np.full(n_systems, _check_unit(means, "means"))
    else:
        if isinstance(means, (str, bytes)) or not np.iterable(means):
            raise TypeError(f"'means' must be a number or a sequence of numbers, got {type(means).__name__}")
        means = np.array([_check_unit(m, "means") for m in means], dtype=float)
        if len(means) != n_systems:
            raise ValueError(f"'means' has {len(means)} values but n_systems={n_systems}")
    return n_systems, n_topics, means, _check_sd(topic_sd, "topic_sd"), _check_sd(interaction_sd, "interaction_sd")
