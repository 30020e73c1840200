"""The interval of a mean over topics and runs: the bootstrap-t over topics with a seed term.

Topics are resampled as in the studentised topic bootstrap (the default interval of a mean:
skewed, bounded scores such as AP need it at small topic sets), on the run-averaged per-topic
scores, which carries the topic and topic x seed variance. The seed term ``sigma2_u / k`` cannot
be resampled from a handful of runs (three seeds give ten distinct resamples), so it enters
parametrically, in one of two ways chosen by measurement (``pt_docs/seeds_and_collections.md``):

* from :data:`SATTERTHWAITE_RUNS` runs, with its estimate ``V_u`` and Satterthwaite's degrees of
  freedom ``nu`` (:mod:`.variance`): in resample ``b`` the seed mean deviates by ``sqrt(V_u) Z_b``
  and its variance estimate is ``V_u C_b``, ``C_b ~ chi2(nu) / nu``, so the pivot is
  ``T*_b = (mean(w*_b) + sqrt(V_u) Z_b) / sqrt(sd(w*_b)^2 / n + V_u C_b)`` in units of
  ``se = sqrt(sd^2 / n + V_u)``;
* with fewer runs, through its generalized pivotal quantity ``R_u`` (:mod:`.fiducial`), whose heavy
  right tail keeps two or three runs that happen to agree from passing for a small seed variance:
  ``T*_b = t*_b + sqrt(R_u,b) Z_b / s``, ``t*_b`` the studentised pivot, in units of ``s = sd / sqrt(n)``.

The interval is ``[theta - q_hi unit, theta - q_lo unit]``, ``q`` the pivot's quantiles: the
studentised topic-bootstrap interval to the last bit for a system with one run or identical runs.
The draws come from the caller's generator in this process, so the numbers are the same on any
executor.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._bounds import clipped
from .._quantiles import quantiles
from ..stats.resampling import map_resamples, resample_moments
from .fiducial import seed_draws
from .variance import satterthwaite, seed_terms

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor

    from .._typing import FloatArray
    from ..stats.resampling import ResamplePlan
    from .anova import MeanSquares
    from .scores import RunScores

__all__ = ["SATTERTHWAITE_RUNS", "seed_pivot", "pivot_interval", "pivot_mean_intervals"]

#: from this many runs a system's seed term enters with Satterthwaite's degrees of freedom; with
#: fewer, through its generalized pivotal quantity (measured: 84-93% coverage with 2-3 runs the
#: Satterthwaite way, at least 95.5% the generalized way; 94-95.5% both ways from 5 runs, the
#: generalized one up to 97.5%)
SATTERTHWAITE_RUNS = 5


def _moments(values: FloatArray, plan: ResamplePlan) -> FloatArray:
    """The resample means over the resample variances, stacked row-wise ``[2 series, B]`` (blocks
    of resamples are joined along the last axis by :func:`~pyterrier_boot.stats.resampling.map_resamples`)."""
    return np.concatenate(resample_moments(values, plan))


def seed_pivot(rows: FloatArray, squares: Sequence[MeanSquares], plan: ResamplePlan, rng: np.random.Generator, *,
               executor: Executor | None = None) -> tuple[FloatArray, FloatArray]:
    """``(pivot [series, B], unit [series])`` of the module docstring for each row of ``rows
    [series, topic]`` (run-averaged scores, system-major: system ``i``'s rows are the ``i``-th block,
    ``squares[i]`` holding one value per row of it)."""
    z = np.asarray(rows, dtype=float)
    n, B = z.shape[1], plan.n_resamples
    mean, var = np.split(map_resamples(_moments, z - z.mean(axis=1, keepdims=True), plan, executor), 2)
    s = z.std(axis=1, ddof=1) / np.sqrt(n)
    unit = np.where(s > 0, s, 1.0)
    per = len(z) // max(len(squares), 1)
    draw_rng, normal_rng = rng.spawn(2)
    fiducial = []
    for i, ms in enumerate(squares):
        block = slice(i * per, (i + 1) * per)
        if ms.n_runs < SATTERTHWAITE_RUNS:
            fiducial.append((block, seed_draws([ms], B, draw_rng)))
            continue
        v_u, df = (np.broadcast_to(a, (per,)) for a in satterthwaite(seed_terms(ms)))
        for j in np.flatnonzero(v_u > 0):
            row = i * per + j
            mean[row] += np.sqrt(v_u[j]) * normal_rng.standard_normal(B)
            var[row] += v_u[j] * draw_rng.chisquare(df[j], B) / df[j]
            unit[row] = np.sqrt(s[row] ** 2 + v_u[j])
    np.sqrt(var, out=var)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean /= var  # the studentised pivot where no seed term was added
    mean[np.isnan(mean)] = 0.0
    for block, seed in fiducial:
        if (seed > 0).any():
            np.sqrt(seed, out=seed)
            seed *= normal_rng.standard_normal(seed.shape)
            seed /= unit[block, None]
            mean[block] += seed
    return mean, unit


def pivot_interval(theta: FloatArray, unit: FloatArray, pivot: FloatArray, *,
                   confidence_level: float = 0.95) -> tuple[FloatArray, FloatArray]:
    """The equal-tailed interval ``[theta - unit q_hi, theta - unit q_lo]`` from the pivot's quantiles."""
    alpha = 1.0 - confidence_level
    q_lo, q_hi = quantiles(pivot, [alpha / 2, 1 - alpha / 2]).T
    return theta - q_hi * unit, theta - q_lo * unit


def pivot_mean_intervals(scores: RunScores, plan: ResamplePlan, rng: np.random.Generator, *,
                         confidence_level: float = 0.95, executor: Executor | None = None,
                         bounds: tuple | None = None) -> FloatArray:
    """``[system, measure, 2]`` each system's interval of its mean over topics and runs (module
    docstring; the studentised topic bootstrap for a system with one run), kept inside each
    measure's range ``bounds`` (``(lo [M], hi [M])``, as the studentised interval is)."""
    averaged = scores.averaged()  # [S, Q, M]
    S, Q, M = averaged.shape
    rows = np.moveaxis(averaged, 2, 1).reshape(S * M, Q)  # system-major series
    pivot, unit = seed_pivot(rows, scores.mean_squares(), plan, rng, executor=executor)
    low, high = pivot_interval(rows.mean(axis=1), unit, pivot, confidence_level=confidence_level)
    low, high = clipped(low, high, None if bounds is None else (np.tile(bounds[0], S), np.tile(bounds[1], S)))
    return np.stack([low, high], axis=-1).reshape(S, M, 2)
