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
    from concurrent.futures import Executor

    from .._typing import FloatArray
    from ..stats.resampling import ResamplePlan
    from .scores import RunScores

__all__ = ["seed_pivot", "pivot_interval", "pivot_mean_intervals"]


def seed_pivot(rows: FloatArray, seed: FloatArray, plan: ResamplePlan, rng: np.random.Generator, *,
               executor: Executor | None = None) -> tuple[FloatArray, FloatArray]:
    """``(pivot [series, B], s [series])``: ``T*_b + sqrt(R_u,b) Z_b / s`` for each row of ``rows
    [series, topic]`` (run-averaged scores) with seed draws ``seed [series, B]`` (:mod:`.fiducial`)."""
    z = np.asarray(rows, dtype=float)
    n = z.shape[1]
    w = z - z.mean(axis=1, keepdims=True)
    pivot = map_resamples(studentized_pivot, w, plan, executor)
    s = z.std(axis=1, ddof=1) / np.sqrt(n)
    scale = np.where(s > 0, s, 1.0)
    seeded = np.flatnonzero((seed > 0).any(axis=1))
    if len(seeded):
        normal = rng.standard_normal((len(seeded), plan.n_resamples))
        pivot[seeded] += np.sqrt(seed[seeded]) * normal / scale[seeded, None]
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
    draw_rng, pivot_rng = rng.spawn(2)
    seed = np.concatenate([seed_draws([ms], plan.n_resamples, draw_rng) for ms in scores.mean_squares()])
    pivot, scale = seed_pivot(rows, seed, plan, pivot_rng, executor=executor)
    low, high = pivot_interval(rows.mean(axis=1), scale, pivot, confidence_level=confidence_level)
    return np.stack([low, high], axis=-1).reshape(S, M, 2)
