"""Which pool pairs the measures read, and how much a label there moves them: the weights of a
measure-aware judging plan (``judging_plan(..., measures=...)``).

**Reach.** A measure with a cutoff ``c`` reads each run's top ``c``; one without reads its whole
ranking, which the pool keeps to the plan's ``depth``. Measures normalised by the number of
relevant documents or the ideal DCG (AP, nDCG, R, Rprec) and measures without a cutoff also read
every pair the judge labelled (the normaliser counts them; a deep judged pair can be the first
relevant one), so the pool keeps the automatic qrels' pairs for them. A measure-aware pool is the
union of what its measures read; every pair in it keeps a positive probability (the uniform share
of ``judging_plan``), so the estimates stay unbiased.

**Weights.** For each measure, each run's ranking of a topic gives its ranks a weight summing to
1, the measure's sensitivity to a label there:

* P@c, R@c: ``1/c`` at ranks 1..c;
* nDCG@c: the discount ``1/log2(k + 1)`` at ranks 1..c (Jarvelin & Kekalainen 2002); and
  :data:`NORMALISER_SHARE` of the measure's weight spread over the topic's pairs the judge called
  relevant, which the ideal DCG counts;
* AP, Rprec: statAP's prior (Aslam, Pavlu & Yilmaz 2006), largest at the top;
* RR, Success@c: ``w_k prod_{j<k} (1 - p_j)`` (``w_k = 1/k`` for RR, 1 for Success), the
  chance that rank ``k`` is the first relevant one, with ``p_j`` the chance that a pair is
  relevant given the judge's label (:data:`RELEVANT_GIVEN_LABEL`): the ranks above the judge's first
  relevant document weigh most, the ranks below little.

A pair's weight for a measure is the mean over the runs answering its topic; every topic gets the
same total, every measure the same share (the union over the measures).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..measures.lowering import AP, NDCG, RPREC, RR, SUCCESS, KernelMeasure, P, R, lower
from ..measures.parsing import LabelledMeasure, parse_measures, require_mean_aggregated

if TYPE_CHECKING:
    from .._typing import MeasuresLike
    from .pool import Positions

__all__ = ["NORMALISER_SHARE", "PLAN_KINDS", "RELEVANT_GIVEN_LABEL", "measure_weights", "plan_measures", "reach",
           "reads_judged_pairs"]

#: the measure kinds a judging plan's estimators compute
PLAN_KINDS = (AP, NDCG, P, R, RR, RPREC, SUCCESS)
#: the share of nDCG's weight on the pairs its ideal DCG counts (those the judge called relevant)
NORMALISER_SHARE = 0.25
#: the chance that a pair is relevant given that the judge called it relevant, or not (RR, Success)
RELEVANT_GIVEN_LABEL = (0.1, 0.5)


def plan_measures(measures: MeasuresLike) -> tuple[list[LabelledMeasure], list[KernelMeasure]]:
    """The measures parsed and lowered; a ValueError naming those a plan's estimators do not
    compute (``rel`` is at least 1: the parser refuses ``rel=0``)."""
    parsed = parse_measures(measures)
    require_mean_aggregated(parsed, context="a prediction-powered interval")
    lowered = [lower(p.measure) for p in parsed]
    bad = [p.label for p, km in zip(parsed, lowered)
           if km is None or km.kind not in PLAN_KINDS or km.judged_only or km.scheme not in ("grade", "exp2")]
    if bad:
        raise ValueError(f"with a judging plan, measures must be AP, nDCG, P, R, RR, Rprec or Success (with optional "
                         f"cutoff, rel and gains), got {bad}")
    return parsed, [km for km in lowered if km is not None]


def reach(lowered: list[KernelMeasure], depth: int) -> int:
    """The deepest rank the measures read: the largest cutoff, ``depth`` for a measure without one."""
    return max(km.cutoff if km.cutoff > 0 else depth for km in lowered)


def reads_judged_pairs(lowered: list[KernelMeasure]) -> bool:
    """Whether some measure reads the judge's pairs beyond the runs' top ranks (a normaliser, or
    no cutoff)."""
    return any(km.kind in (AP, NDCG, R, RPREC) or km.cutoff == 0 for km in lowered)


def measure_weights(pool: pd.DataFrame, positions: Positions, lowered: list[KernelMeasure], depth: int) -> np.ndarray:
    """Each pool pair's weight (see the module docstring), summing to 1 over each topic."""
    topic = pd.factorize(pool["qid"], sort=True)[0]
    n_topics = int(topic.max()) + 1 if len(topic) else 0
    cell = np.repeat(np.arange(len(positions.offsets) - 1), np.diff(positions.offsets))
    answering = positions.runs_per_topic(n_topics)[topic]
    total = np.zeros(len(pool))
    for km in lowered:
        at_rank = _rank_weights(km, positions, cell, pool["auto_label"].to_numpy(np.int64), depth)
        weight = np.bincount(positions.pairs, weights=at_rank, minlength=len(pool)) / answering
        if km.kind == NDCG:
            relevant = (pool["auto_label"].to_numpy() > 0).astype(float)
            weight = (1 - NORMALISER_SHARE) * weight + NORMALISER_SHARE * _per_topic(relevant, topic, n_topics)
        total += _per_topic(weight, topic, n_topics)
    return total / len(lowered)


def _per_topic(weight: np.ndarray, topic: np.ndarray, n_topics: int) -> np.ndarray:
    """``weight`` scaled to sum to 1 over each topic (spread evenly over a topic with none)."""
    sums = np.bincount(topic, weights=weight, minlength=n_topics)
    sizes = np.bincount(topic, minlength=n_topics)
    return np.where(sums[topic] > 0, weight / np.where(sums > 0, sums, 1.0)[topic], 1.0 / sizes[topic])


def _rank_weights(km: KernelMeasure, positions: Positions, cell: np.ndarray, auto: np.ndarray,
                  depth: int) -> np.ndarray:
    """Per position (a run's rank of a pool pair): the measure's weight, summing to 1 per ranking."""
    rank = positions.ranks.astype(float)
    cutoff = km.cutoff if km.cutoff > 0 else depth
    inside = positions.ranks <= cutoff
    if km.kind in (P, R):
        weight = inside / float(cutoff)
    elif km.kind == NDCG:
        weight = inside / np.log2(rank + 1.0)
    elif km.kind in (RR, SUCCESS):
        relevant = np.take(RELEVANT_GIVEN_LABEL, (auto[positions.pairs] >= km.rel).astype(np.int64))
        missed = np.log1p(-relevant)  # log of the chance that a rank holds no relevant document
        before = _cumulated_before(missed, positions.offsets, cell)
        weight = inside * np.exp(before) * (1.0 / rank if km.kind == RR else 1.0)
    else:  # AP, Rprec: statAP's prior over the ranking's top `depth`
        length = np.minimum(np.diff(positions.offsets), cutoff)[cell]
        harmonic = np.r_[0.0, np.cumsum(1.0 / np.arange(1, max(int(length.max(initial=1)), 1) + 1))]
        top = np.minimum(positions.ranks, np.maximum(length, 1))
        weight = inside * (1.0 + harmonic[length] - harmonic[top - 1]) / (2.0 * np.maximum(length, 1))
    sums = np.bincount(cell, weights=weight, minlength=len(positions.offsets) - 1)
    return weight / np.where(sums > 0, sums, 1.0)[cell]


def _cumulated_before(values: np.ndarray, offsets: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """Per position, the sum of ``values`` at the earlier positions of its ranking."""
    cumulated = np.cumsum(values)
    return cumulated - values - np.r_[0.0, cumulated][offsets[:-1][cell]]
