"""``simulate_judge``: automatic relevance labels of known bias and noise, made from human qrels.

A stand-in for an LLM judge in coverage studies and examples: each judged document keeps, loses
or gains relevance with probabilities that depend on its human grade and on how high the runs
rank it. A lenient judge that over-rates highly ranked non-relevant documents inflates every
run's score, and the runs that retrieve more such documents the most, which is the failure that
makes intervals from automatic judgments alone confidently wrong (Oosterhuis et al. 2024).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._random import as_generator
from ..inputs.qrels import read_qrels
from ..inputs.runs import read_runs

if TYPE_CHECKING:
    from .._typing import QrelsLike, RngLike, RunsLike


__all__ = ["simulate_judge"]


def _probability(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{name!r} must be a probability in [0, 1], got {value!r}")
    return float(value)


def simulate_judge(qrels: QrelsLike, runs: RunsLike, *,
                   false_positive: tuple[float, float] = (0.3, 0.05),
                   false_negative: tuple[float, ...] = (0.3, 0.15, 0.05), grade_noise: float = 0.2,
                   top: int = 10, rng: RngLike = None) -> pd.DataFrame:
    """Relabel human qrels as a simulated automatic judge with grade- and rank-dependent errors.

    For each judged (topic, document) with human grade ``g`` and best rank ``r`` over ``runs``
    (by score, as trec_eval; documents no run retrieves have rank infinity):

    * ``g <= 0`` becomes grade 1 with probability ``false_positive[0]`` if ``r <= top``, else
      ``false_positive[1]`` (a lenient judge, fooled most by documents the systems like);
    * ``g >= 1`` becomes 0 with probability ``false_negative[min(g, len) - 1]`` (misses are more
      common for marginal documents); otherwise, with probability ``grade_noise``, moves one grade
      up or down (at random, kept within 1 .. the highest human grade).

    Args:
        qrels: human qrels. runs: the runs whose ranks drive the rank dependence (not transformers).
        false_positive: probabilities for non-relevant documents ranked in / below the top ``top``.
        false_negative: probabilities by human grade 1, 2, ... (the last repeats for higher grades).
        grade_noise: probability of a one-grade move of a relevant document the judge keeps.
        top: the rank cut of ``false_positive``. rng: SPEC 7 seed or Generator.

    Returns a qrels frame ``qid, docno, label`` with the same pairs as ``qrels``.

    Example:
        >>> import pyterrier_boot as pb
        >>> coll = pb.simulate_collection(n_topics=5, rng=1)
        >>> auto = pb.simulate_judge(coll.qrels, coll.runs, rng=2)
        >>> len(auto) == len(coll.qrels)
        True
    """
    fp = tuple(_probability(p, "false_positive") for p in false_positive)
    if len(fp) != 2:
        raise ValueError(f"'false_positive' must be 2 probabilities (top ranks, below), got {false_positive!r}")
    fn = tuple(_probability(p, "false_negative") for p in false_negative)
    if not fn:
        raise ValueError("'false_negative' must hold at least one probability (for grade 1)")
    grade_noise = _probability(grade_noise, "grade_noise")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"'top' must be a positive integer, got {top!r}")
    rng = as_generator(rng, fresh=True)
    frame = read_qrels(qrels).frame.reset_index(drop=True)
    best = _best_ranks(read_runs(runs))
    rank = frame.merge(best.reset_index(), on=["qid", "docno"], how="left")["rank"].fillna(np.inf).to_numpy(float)
    grade = frame["label"].to_numpy()
    top_grade = max(int(grade.max()), 1)
    u = rng.random((3, len(frame)))
    label = grade.copy()
    nonrel = grade <= 0
    label[nonrel & (u[0] < np.where(rank <= top, fp[0], fp[1]))] = 1
    rel = ~nonrel
    miss = np.array([fn[min(int(g), len(fn)) - 1] for g in grade[rel]])
    dropped = np.zeros(len(frame), bool)
    dropped[rel] = u[0][rel] < miss
    label[dropped] = 0
    moved = rel & ~dropped & (u[1] < grade_noise)
    step = np.where(u[2] < 0.5, -1, 1)
    label[moved] = np.clip(grade[moved] + step[moved], 1, top_grade)
    return pd.DataFrame({"qid": frame["qid"], "docno": frame["docno"], "label": label.astype(np.int64)})


def _best_ranks(runs: dict) -> pd.Series:
    """The best (smallest) 1-based rank of each (qid, docno) over the runs, ranking by score descending."""
    parts = []
    for run in runs.values():
        ordered = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False], kind="stable")
        ranked = ordered[["qid", "docno"]].copy()
        ranked["rank"] = ordered.groupby("qid", sort=False).cumcount().to_numpy() + 1
        parts.append(ranked)
    return pd.concat(parts).groupby(["qid", "docno"])["rank"].min()
