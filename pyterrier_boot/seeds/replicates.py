"""Bootstrap replicates of every system's mean with seed variance: what rank intervals are read from.

Replicate ``b`` of system ``s`` is its run-averaged mean over the topics of the shared plan's
resample ``b`` (paired across systems, as the topic bootstrap's replicates) plus a draw of its seed
mean's deviation, ``sqrt(R_u,b) Z_b`` with ``R_u,b`` the generalized draw of its seed term
(:mod:`.fiducial`) and ``Z_b`` standard normal. Systems with one run, or identical runs, keep the
topic bootstrap's replicates. The draws come from the caller's generator in this process; the
weighted sums run in blocks on ``executor``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..stats.resampling import map_resamples, weighted_sums
from .fiducial import seed_draws

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from .._typing import FloatArray
    from ..stats.resampling import ResamplePlan
    from .scores import RunScores

__all__ = ["seed_replicates"]


def _sums(values: FloatArray, plan: ResamplePlan) -> FloatArray:
    return weighted_sums(plan, values)


def seed_replicates(scores: RunScores, plan: ResamplePlan, rng: np.random.Generator, *,
                    executor: Executor | None = None) -> FloatArray:
    """``[B, system, measure]`` replicates of each system's mean over topics and runs (module docstring)."""
    averaged = scores.averaged()  # [S, Q, M]
    S, Q, M = averaged.shape
    rows = np.moveaxis(averaged, 2, 1).reshape(S * M, Q)  # system-major series
    dist = map_resamples(_sums, rows, plan, executor)  # [S * M, B]
    dist /= Q
    draw_rng, normal_rng = rng.spawn(2)
    for s, ms in enumerate(scores.mean_squares()):  # one system's draws at a time
        seed = seed_draws([ms], plan.n_resamples, draw_rng)
        if (seed > 0).any():
            np.sqrt(seed, out=seed)
            seed *= normal_rng.standard_normal(seed.shape)
            dist[s * M:(s + 1) * M] += seed
    return np.moveaxis(dist.reshape(S, M, -1), 2, 0)
