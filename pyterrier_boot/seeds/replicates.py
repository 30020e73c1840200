"""Bootstrap replicates of every system's mean with seed variance: what rank intervals are read from.

Replicate ``b`` of system ``s`` is its run-averaged mean over the topics of the shared plan's
resample ``b`` (paired across systems, as the topic bootstrap's replicates) plus a draw of its seed
mean's deviation, ``sqrt(V_u) T_b`` with ``T_b`` a t variate on the seed term's Satterthwaite
degrees of freedom (the heavier tail of a variance estimated from a few runs; :mod:`.bootstrap`).
Systems with one run, or no seed variance, keep the topic bootstrap's replicates. The draws come
from the caller's generator in this process; the weighted sums run in blocks on ``executor``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..stats.resampling import map_resamples, weighted_sums

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
    dist = map_resamples(_sums, rows, plan, executor) / Q  # [S * M, B]
    v_u, df = (a.reshape(-1) for a in scores.seed_term())
    seeded = np.flatnonzero(v_u > 0)
    if len(seeded):
        draws = rng.standard_t(df[seeded][:, None], size=(len(seeded), plan.n_resamples))
        dist[seeded] += np.sqrt(v_u[seeded])[:, None] * draws
    return np.moveaxis(dist.reshape(S, M, -1), 2, 0)
