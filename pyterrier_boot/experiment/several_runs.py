"""Systems given as several runs (seeds, folds, checkpoints): the experiment's route to :mod:`pyterrier_boot.seeds`.

Lists of runs are split into runs at the door (:func:`~pyterrier_boot.seeds.groups.split_systems`),
every run is executed and evaluated as ``Experiment`` does for one, and the per-topic scores are
averaged per system here. ``seeds="fixed"`` then goes on as for one run per system (today's
intervals on averaged scores); ``seeds="random"`` takes its intervals, tests and replicates from
:mod:`pyterrier_boot.seeds` (``pt_docs/seeds_and_collections.md``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._bounds import clipped
from ..seeds.scores import RunScores
from ..seeds.variance import SEEDS

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from .._typing import FloatArray
    from ..seeds.groups import RunGroups
    from ..stats.resampling import ResamplePlan
    from .result import ExperimentResult

__all__ = ["check_seeds", "grouped", "seed_mean_spreads", "grouped_output"]

#: the interval of a mean under ``seeds="random"``: the bootstrap-t with a seed term, or the t
RANDOM_INTERVALS = ("studentized", "t")


def check_seeds(seeds: Any, groups: RunGroups | None, *, bootstrap: str | None, test: Any,
                interval: str | None) -> str | None:
    """The seeds mode (``"random"``, ``"fixed"``, or None with one run per system) after checking
    that the options can include it; errors name the argument."""
    if seeds is not None and seeds not in SEEDS:
        raise ValueError(f"'seeds' must be 'random', 'fixed' or None, got {seeds!r}")
    if groups is None or not groups.several:
        if seeds == "random":
            raise ValueError("seeds='random' needs a system given as two or more runs (a list of runs in place of "
                             "one): with one run per system there is no seed variance to estimate")
        return None
    mode = "random" if seeds is None else seeds
    if bootstrap in ("corpus", "both"):
        raise ValueError(f"bootstrap={bootstrap!r} does not take systems given as several runs: use "
                         "bootstrap='topic' (or None)")
    if mode == "random" and (callable(test) or test not in ("t",)):
        raise ValueError(f"test={test!r} cannot include the seed variance: with seeds='random' the test is the t "
                         "test with seed variance (Satterthwaite degrees of freedom); use test='t', or "
                         "seeds='fixed' for the other tests on run-averaged scores")
    if mode == "random" and interval is not None and interval not in RANDOM_INTERVALS:
        raise ValueError(f"interval={interval!r} cannot include the seed variance: with seeds='random' a mean's "
                         "interval is 'studentized' (the bootstrap-t over topics with a seed term, default) or "
                         "'t' (Satterthwaite degrees of freedom); use seeds='fixed' for the others")
    return mode


def grouped(values: FloatArray, keys: list[str], mrt: list[float], groups: RunGroups,
            seeds: str | None) -> tuple[RunScores | None, FloatArray, list[str], list[float]]:
    """``(run scores, per-system values [S, Q, M], system names, per-system mrt)`` from the runs'
    values (a run scores 0 on a judged topic it has no result for, as one run does); the run scores
    are None without a seeds mode (no system with several runs)."""
    position = {k: i for i, k in enumerate(keys)}
    order = [position[r] for r in groups.runs]
    scores = RunScores.of_groups(values[order], groups)
    mrt = [float(np.mean([mrt[order[r]] for r in members])) for members in groups.members]
    return scores if seeds is not None else None, scores.averaged(), list(groups.names), mrt


def seed_mean_spreads(scores: RunScores, interval: str, confidence_level: float, plan: ResamplePlan,
                      rng: np.random.Generator, executor: Executor | None,
                      bounds: tuple | None = None) -> tuple[FloatArray, FloatArray]:
    """``(intervals [S, M, 2], replicates [B, S, M])`` of the systems' means under ``seeds="random"``,
    the intervals kept inside each measure's range ``bounds``."""
    from ..seeds.bootstrap import pivot_mean_intervals
    from ..seeds.intervals import mean_inference
    from ..seeds.replicates import seed_replicates

    pivot_rng, replicate_rng = rng.spawn(2)
    if interval == "t":
        res = mean_inference(scores, seeds="random", alpha=1 - confidence_level)
        low, high = clipped(res.low, res.high, bounds)
        intervals = np.stack([low, high], axis=-1)
    else:
        intervals = pivot_mean_intervals(scores, plan, pivot_rng, confidence_level=confidence_level,
                                         executor=executor, bounds=bounds)
    return intervals, seed_replicates(scores, plan, replicate_rng, executor=executor)


def grouped_output(result: ExperimentResult, *, perquery: Any, dataframe: bool, highlight: Any,
                   save_dir: str | None) -> Any:
    """``Experiment``'s output for systems given as several runs: the result's own table (its
    columns in ``pt.Experiment``'s order, intervals and tests with the seed variance named), the
    per-topic run-averaged values for ``perquery``, dicts for ``dataframe=False``."""
    if save_dir is not None:
        result.save_summaries(save_dir)
    table = result.table(highlight=highlight if dataframe and not perquery else None)
    per_query = result.per_query()
    if not dataframe:
        table = {row["name"]: {k: v for k, v in row.items() if k != "name"} for row in table.to_dict("records")}
        per_query = {name: {q: dict(zip(g["measure"], g["value"], strict=True)) for q, g in frame.groupby("qid")}
                     for name, frame in per_query.groupby("name", sort=False)}
    if perquery is True:
        return per_query
    return (table, per_query) if perquery == "both" else table
