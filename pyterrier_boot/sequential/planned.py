"""Per-topic scores for a sequence of topics from a judging plan: automatic labels of the whole pool
and people's labels of the plan's sample, arriving topic by topic.

A topic enters the sequence once people have labelled every pair of it that the plan sampled
(a topic only partly labelled waits: leaving out the pairs still to do would bias its estimate).
Its scores are the plan's estimates (:mod:`pyterrier_boot.ppi.sampled`, the population estimand),
with one change that a confidence sequence needs: the weight ``lam`` of the automatic labels is
*predictable*, tuned on the topics before it in the sequence
(:func:`~pyterrier_boot.judging.estimation.predictable_lambdas`), so that given the earlier topics
a topic's estimate keeps the expectation of its own sampling design. The estimates of earlier
topics therefore never change as topics are added.

Only the measures whose per-topic estimates can be kept within [0, 1] are offered (AP, nDCG, R,
Rprec: ratios, clipped to [0, 1] per topic here, unlike ``ppi_evaluate(plan=)``, whose means a clip
would bias): the betting sequence needs known bounds,
and an estimate of P@k, RR or Success from a sample can reach ``1 / pi`` (10 at a 10% inclusion
probability), bounds that would make the sequence useless.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._warnings import FitWarning, warn
from ..inputs.runs import read_runs
from ..judging import JudgingPlan
from ..judging.plan import raise_outside_pool, share_in_pairs
from ..judging.pool import fingerprint
from ..judging.sensitivity import plan_measures
from ..measures.lowering import AP, NDCG, RPREC, R, lower
from ..measures.parsing import parse_measures
from ..ppi.sampled import PlanEstimator
from .evaluation import _long_frame

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._typing import MeasuresLike, QrelsLike, RunsLike

__all__ = ["PlannedTopics", "planned_topics", "plan_identity", "labels_per_topic", "check_plan_measures",
           "warn_small_budget"]

#: under this share of the pool in human labels, sequences of AP and nDCG from a plan missed more often
#: than promised (TREC DL 2019 and 2020 at 5% with Llama 3.2; pt_docs/sequential.md): one warning
NONLINEAR_BUDGET = 0.1
#: measure kinds whose per-topic estimates from a plan are ratios, clipped to [0, 1] in a sequence
BOUNDED_KINDS = (AP, NDCG, R, RPREC)


@dataclass(frozen=True)
class PlannedTopics:
    """The scores of the topics whose sample is labelled, and the topics still waiting.

    Attributes:
        scores: long frame ``name, qid, measure, value`` of the topics given as known, then of
            those added, in sequence order.
        added: the topics that entered now, in the order they were first labelled.
        partial: topics with some but not all of their sampled pairs labelled.
    """

    scores: pd.DataFrame
    added: list[str]
    partial: list[str]


def plan_identity(plan: JudgingPlan) -> str:
    """The SHA-256 of a plan's pairs, automatic labels, inclusion probabilities and sample (what its
    estimates rest on)."""
    pool = plan.pool
    return fingerprint(pool["qid"], pool["docno"], pool["auto_label"], pool["inclusion_probability"].map(repr),
                       pool["sampled"].astype(np.int64))


def labels_per_topic(plan: JudgingPlan) -> float:
    """The mean number of sampled pairs per topic of the plan."""
    return float(plan.pool["sampled"].sum() / plan.pool["qid"].nunique())


def warn_small_budget(plan: JudgingPlan) -> None:
    """One FitWarning when people label under :data:`NONLINEAR_BUDGET`
    of the pool: the ratio estimates are then biased enough for sequences to miss more often than
    promised (``pt_docs/sequential.md``, validation)."""
    share = plan.budget / len(plan.pool)
    if plan.budget < share_in_pairs(NONLINEAR_BUDGET, len(plan.pool)):  # 10% as judging_plan rounds it
        warn(FitWarning(
            f"the judging plan gives people {share:.1%} of the pool, under {NONLINEAR_BUDGET:.0%}: AP and nDCG "
            "estimated from it are ratios, biased when the sample is small, and their confidence sequences may "
            "miss more often than promised (measured on TREC DL 2019 and 2020 at 5% with Llama 3.2 as the judge: 6-12% "
            f"of the sequences of means); plan at least {NONLINEAR_BUDGET:.0%} of the pool"))


def check_plan_measures(measures: MeasuresLike) -> list[str]:
    """The measures' labels; a ValueError for those whose estimates from a plan are unbounded."""
    parsed = parse_measures(measures)
    lowered = [lower(p.measure) for p in parsed]
    bad = [p.label for p, km in zip(parsed, lowered, strict=True) if km is None or km.kind not in BOUNDED_KINDS]
    if bad:
        raise ValueError(f"a sequential evaluation from a judging plan takes AP, nDCG, R or Rprec (with optional "
                         f"cutoff, rel and gains), whose estimates stay within [0, 1]; got {bad}: an estimate of "
                         "P@k, RR or Success from a sample can reach 1 / (inclusion probability), too wide a range "
                         "for a confidence sequence")
    return [p.label for p in parsed]


def planned_topics(runs: RunsLike, plan: JudgingPlan, human_qrels: QrelsLike, measures: MeasuresLike, *,
                   known: Sequence[str] = ()) -> PlannedTopics:
    """Scores of the ``known`` topics and of the topics newly complete in ``human_qrels``.

    Args:
        runs: the plan's runs (or some of them).
        plan: the :class:`~pyterrier_boot.JudgingPlan` whose sample people label.
        human_qrels: every label given so far (the plan's sampled pairs only), in the order given.
        measures: AP, nDCG, R or Rprec (:func:`check_plan_measures`).
        known: the topics already in the sequence, in its order (each must be complete).

    New complete topics follow in the order their first label appears in ``human_qrels``. A plan
    that samples no pair of some topic (possible under the Poisson design) is refused.
    """
    if not isinstance(plan, JudgingPlan):
        raise TypeError(f"'plan' must be a JudgingPlan (judging_plan(...) or JudgingPlan.load(path)), got "
                        f"{type(plan).__name__}")
    labels = check_plan_measures(measures)
    plan.check_measures(plan_measures(measures)[1], labels)
    pool = plan.pool
    sampled = pool["sampled"].to_numpy(bool)
    _check_every_topic_sampled(pool, sampled)
    labels, labelled = plan.sampled_labels(human_qrels)
    complete, partial, first_seen = _topic_progress(pool[sampled]["qid"].to_numpy(), labelled, human_qrels)
    lost = [q for q in known if q not in complete]
    if lost:
        raise ValueError(f"'human_qrels' lacks labels of {len(lost)} topic(s) already in the sequence (e.g. "
                         f"{lost[0]!r}): give every label given so far, not only the new ones")
    seen = set(known)
    new = [q for q in first_seen if q in complete and q not in seen]
    order = list(known) + new
    if not order:
        return PlannedTopics(pd.DataFrame(columns=["name", "qid", "measure", "value"]), [], partial)
    return PlannedTopics(_estimates(runs, plan, labels, measures, order), new, partial)


def _check_every_topic_sampled(pool: pd.DataFrame, sampled: np.ndarray) -> None:
    """A ValueError when the plan sampled no pair of some topic: such a topic would be complete
    because its sample is empty, so when it entered would depend on the sample, and its score
    would be the automatic labels' alone."""
    unsampled = sorted(set(pool["qid"]) - set(pool.loc[sampled, "qid"]))
    if unsampled:
        raise ValueError(f"'plan' samples no pair of {len(unsampled)} topic(s) (e.g. {unsampled[0]!r}): a sequence "
                         "needs people's labels of every topic; use design='stratified' (pairs of every topic) or "
                         "a larger budget")


def _topic_progress(sample_qids: np.ndarray, labelled: np.ndarray, human_qrels: QrelsLike):
    """Complete topics (a set), partly labelled ones (sorted), and the topics in the order of their
    first label in ``human_qrels``."""
    from ..inputs.qrels import read_qrels

    frame = pd.DataFrame({"qid": sample_qids, "done": labelled})
    done = frame.groupby("qid", sort=True)["done"].agg(["all", "any"])
    complete = set(done.index[done["all"]])
    partial = list(done.index[done["any"] & ~done["all"]])
    first_seen = read_qrels(human_qrels).judged_order
    return complete, partial, first_seen


def _estimates(runs, plan: JudgingPlan, labels: np.ndarray, measures, order: list[str]) -> pd.DataFrame:
    """The per-topic plan estimates of the topics in ``order`` (long frame, sequence order)."""
    chosen = set(order)
    keep = plan.pool["qid"].isin(chosen).to_numpy()
    pool = plan.pool[keep].reset_index(drop=True)
    read = {name: run[run["qid"].isin(chosen)] for name, run in read_runs(runs).items()}
    estimator = PlanEstimator(read, pool, measures, depth=plan.depth)
    if estimator.positions.example is not None:  # the runs' top depth must be in the pool
        raise_outside_pool(estimator.positions.outside, estimator.positions.example, plan.depth)
    sampled = pool["sampled"].to_numpy(bool)
    in_order = keep[plan.pool["sampled"].to_numpy(bool)]
    result = estimator.estimate(sampled, labels[in_order], pool["inclusion_probability"].to_numpy(float)[sampled],
                                topic_order=order)
    values = result.estimates["ppi"][:, 0]  # (measures, topics, runs)
    position = [result.qids.index(q) for q in order]
    return _long_frame(order, list(result.names), list(result.measures), values[:, position].transpose(1, 2, 0))
