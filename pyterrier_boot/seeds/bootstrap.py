"""The interval of a mean over topics and runs: the bootstrap-t over topics with a generalized seed term.

Topics are resampled as in the studentised topic bootstrap (the default interval of a mean:
skewed, bounded scores such as AP need it at small topic sets), on the run-averaged per-topic
scores, which carries the topic and topic x seed variance. The seed term ``sigma2_u / k`` cannot
be resampled from a handful of runs (three seeds give ten distinct resamples), so it enters through
its generalized pivotal quantity ``R_u`` (:mod:`.fiducial`). With ``T*_b`` the studentised pivot of
resample ``b``, ``s`` the standard error over topics and ``Z_b`` standard normal, the estimate's
error is drawn as ``s T*_b + sqrt(R_u,b) Z_b`` and the interval is

    ``[theta - s q_hi, theta - s q_lo]``,  ``q`` the quantiles of ``T*_b + sqrt(R_u,b) Z_b / s``,

the studentised topic-bootstrap interval to the last bit when a system has one run or identical
runs (``R_u = 0``), a t-like interval on the runs' degrees of freedom when seeds dominate. The
normal and chi-square draws come from the caller's generator in this process, so the numbers are
the same on any executor.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._quantiles import quantiles
from ..stats.resampling import map_resamples, studentized_pivot
from .fiducial import seed_draws

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor

    from .._typing import FloatArray
    from ..stats.resampling import ResamplePlan
    from .anova import MeanSquares
    from .scores import RunScores

__all__ = ["seed_pivot", "pivot_interval", "pivot_mean_intervals"]


def seed_pivot(rows: FloatArray, squares: Sequence[MeanSquares], plan: ResamplePlan, rng: np.random.Generator, *,
               executor: Executor | None = None) -> tuple[FloatArray, FloatArray]:
    """``(pivot [series, B], s [series])``: ``T*_b + sqrt(R_u,b) Z_b / s`` for each row of ``rows
    [series, topic]`` (run-averaged scores, system-major: ``len(squares)`` systems, each ``squares[i]``
    holding one value per row of its block), the seed draws added one system at a time."""
    z = np.asarray(rows, dtype=float)
    n = z.shape[1]
    pivot = map_resamples(studentized_pivot, z - z.mean(axis=1, keepdims=True), plan, executor)
    s = z.std(axis=1, ddof=1) / np.sqrt(n)
    scale = np.where(s > 0, s, 1.0)
    per = len(z) // max(len(squares), 1)
    draw_rng, normal_rng = rng.spawn(2)
    for i, ms in enumerate(squares):
        block = slice(i * per, (i + 1) * per)
        seed = seed_draws([ms], plan.n_resamples, draw_rng)
        if (seed > 0).any():
            np.sqrt(seed, out=seed)
            seed *= normal_rng.standard_normal(seed.shape)
            seed /= scale[block, None]
            pivot[block] += seed
    return pivot, scale


def pivot_interval(theta: FloatArray, scale: FloatArray, pivot: FloatArray, *,
                   confidence_level: float = 0.95) -> tuple[FloatArray, FloatArray]:
    """The equal-tailed interval ``[theta - s q_hi, theta - s q_lo]`` from the pivot's quantiles."""
    alpha = 1.0 - confidence_level
    q_lo, q_hi = quantiles(pivot, [alpha / 2, 1 - alpha / 2]).T
    return theta - q_hi * scale, theta - q_lo * scale


def pivot_mean_intervals(scores: RunScores, plan: ResamplePlan, rng: np.random.Generator, *,
                         confidence_level: float = 0.95, executor: Executor | None = None) -> FloatArray:
    """``[system, measure, 2]`` each system's interval of its mean over topics and runs (module
    docstring; the studentised topic bootstrap for a system with one run)."""
    averaged = scores.averaged()  # [S, Q, M]
    S, Q, M = averaged.shape
    rows = np.moveaxis(averaged, 2, 1).reshape(S * M, Q)  # system-major series
    pivot, scale = seed_pivot(rows, scores.mean_squares(), plan, rng, executor=executor)
    low, high = pivot_interval(rows.mean(axis=1), scale, pivot, confidence_level=confidence_level)
    return np.stack([low, high], axis=-1).reshape(S, M, 2)
