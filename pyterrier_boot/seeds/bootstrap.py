"""The bootstrap-t over topics with a seed term: the interval of a mean when runs vary by seed.

Topics are resampled as in the studentised topic bootstrap (the default interval of a mean:
skewed, bounded scores such as AP need it at small topic sets), on the run-averaged per-topic
scores, which carries the topic and topic x seed variance. The seed term ``sigma2_u / k`` cannot
be resampled from a handful of runs (three seeds give ten distinct resamples), so it enters
parametrically: in replicate ``b`` the seed mean deviates by ``sqrt(V_u) Z_b`` and its variance
estimate is ``V_u C_b``, with ``Z_b`` standard normal and ``C_b ~ chi2(nu) / nu``, ``nu`` the
Satterthwaite degrees of freedom of the seed term (:mod:`.variance`). The pivot

    ``T*_b = (mean(w*_b) + sqrt(V_u) Z_b) / sqrt(sd(w*_b)^2 / n + V_u C_b)``

is the studentised pivot when ``V_u = 0`` (identical runs, or one run: the interval is then the
studentised topic bootstrap interval, to the last bit) and the t with ``nu`` degrees of freedom
when seeds dominate. The interval is ``[theta - q_hi se, theta - q_lo se]``,
``se = sqrt(sd^2 / n + V_u)``. The normal and chi-square draws come from the caller's generator
in this process, so the numbers are the same on any executor.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._quantiles import quantiles
from ..stats.resampling import map_resamples, resample_moments

if TYPE_CHECKING:
    from concurrent.futures import Executor

    import numpy.typing as npt

    from .._typing import FloatArray
    from ..stats.resampling import ResamplePlan
    from .scores import RunScores

__all__ = ["seed_pivot", "pivot_interval", "pivot_mean_intervals"]


def _moments(values: FloatArray, plan: ResamplePlan) -> FloatArray:
    mean, variance = resample_moments(values, plan)
    return np.stack([mean, variance])


def seed_pivot(scores: npt.ArrayLike, seed_variance: npt.ArrayLike, seed_df: npt.ArrayLike, plan: ResamplePlan,
               rng: np.random.Generator, *, executor: Executor | None = None) -> FloatArray:
    """``T* [series, B]``: the pivot of the module docstring for each row of ``scores [series, topic]``
    (run-averaged per-topic scores or differences) with seed term ``seed_variance`` (``V_u``) and
    its degrees of freedom ``seed_df``, over ``plan``'s resamples (on ``executor`` when given)."""
    z = np.asarray(scores, dtype=float)
    v_u = np.asarray(seed_variance, dtype=float)
    w = z - z.mean(axis=1, keepdims=True)
    mean, variance = map_resamples(_moments, w, plan, executor)
    seeded = np.flatnonzero(v_u > 0)
    if len(seeded):
        B = plan.n_resamples
        df = np.broadcast_to(np.asarray(seed_df, dtype=float), v_u.shape)[seeded]
        normal = rng.standard_normal((len(seeded), B))
        scale = rng.chisquare(df[:, None], size=(len(seeded), B)) / df[:, None]
        mean[seeded] += np.sqrt(v_u[seeded])[:, None] * normal
        variance[seeded] += v_u[seeded][:, None] * scale
    np.sqrt(variance, out=variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean /= variance
    mean[np.isnan(mean)] = 0.0
    return mean


def pivot_interval(theta: npt.ArrayLike, standard_error: npt.ArrayLike, pivot: FloatArray, *,
                   confidence_level: float = 0.95) -> tuple[FloatArray, FloatArray]:
    """The equal-tailed interval ``[theta - q_hi se, theta - q_lo se]`` from the pivot's quantiles."""
    alpha = 1.0 - confidence_level
    q_lo, q_hi = quantiles(pivot, [alpha / 2, 1 - alpha / 2]).T
    theta, se = np.asarray(theta, dtype=float), np.asarray(standard_error, dtype=float)
    return theta - q_hi * se, theta - q_lo * se


def pivot_mean_intervals(scores: RunScores, plan: ResamplePlan, rng: np.random.Generator, *,
                         confidence_level: float = 0.95, executor: Executor | None = None) -> FloatArray:
    """``[system, measure, 2]`` each system's interval of its mean over topics and runs from the
    pivot of the module docstring (the studentised topic bootstrap for a system with one run)."""
    averaged = scores.averaged()  # [S, Q, M]
    S, Q, M = averaged.shape
    rows = np.moveaxis(averaged, 2, 1).reshape(S * M, Q)
    v_u, df = (a.reshape(-1) for a in scores.seed_term())
    pivot = seed_pivot(rows, v_u, df, plan, rng, executor=executor)
    se = np.sqrt(rows.var(axis=1, ddof=1) / Q + v_u)
    low, high = pivot_interval(rows.mean(axis=1), se, pivot, confidence_level=confidence_level)
    return np.stack([low, high], axis=-1).reshape(S, M, 2)
