"""Bootstrap replicates of every system's mean with seed variance: what rank intervals are read from.

Replicate ``b`` of system ``s`` is its run-averaged mean over the topics of the shared plan's
resample ``b`` (paired across systems, as the topic bootstrap's replicates) plus a draw of its seed
mean's deviation, as the mean's interval draws it (:mod:`.bootstrap`): ``sqrt(V_u) T_b`` with
``T_b`` a t variate on the seed term's Satterthwaite degrees of freedom from
:data:`~.bootstrap.SATTERTHWAITE_RUNS` runs, ``sqrt(R_u,b) Z_b`` with the generalized draw
``R_u,b`` (:mod:`.fiducial`) with fewer. Systems with one run, or identical runs, keep the topic
bootstrap's replicates. The draws come from the caller's generator in this process; the
weighted sums run in blocks on ``executor``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..stats.resampling import map_resamples, weighted_sums
from .bootstrap import SATTERTHWAITE_RUNS
from .fiducial import seed_draws
from .variance import satterthwaite, seed_terms

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
        if ms.n_runs >= SATTERTHWAITE_RUNS:  # sqrt(V_u) t_nu, as the mean's interval
            v_u, df = (np.broadcast_to(a, (M,)) for a in satterthwaite(seed_terms(ms)))
            seed = np.zeros((M, plan.n_resamples))
            for j in np.flatnonzero(v_u > 0):
                seed[j] = np.sqrt(v_u[j]) * draw_rng.standard_t(df[j], plan.n_resamples)
        else:
            seed = seed_draws([ms], plan.n_resamples, draw_rng)
            np.sqrt(seed, out=seed)
            seed *= normal_rng.standard_normal(seed.shape)
        dist[s * M:(s + 1) * M] += seed
    return np.moveaxis(dist.reshape(S, M, -1), 2, 0)
