"""``ppi_evaluate(..., plan=plan)``: intervals from automatic labels of the whole pool and human
labels of a probability sample of its (topic, document) pairs.

Each pool pair's human label is estimated without bias from the design (the automatic label
corrected where people judged it, weighted by ``1 / inclusion probability``:
:mod:`pyterrier_boot.judging.estimation`), and every measure is computed from these estimates
(:mod:`pyterrier_boot.judging.ranked`, statAP-style), giving one estimate per topic and run. The
normalisers of the ratio measures (nDCG's ideal DCG, the ``R`` of AP, R and Rprec) are estimated by
post-stratification on the judge's label instead (:mod:`pyterrier_boot.judging.poststrata`).
A ratio's per-topic estimate is not clipped to [0, 1] (a clip biases the mean over topics; a
sequence over topics, which needs known bounds, clips it).

* estimand ``"population"``: the topics are a sample of a population and the per-topic estimates
  are independent across topics (but for the share over all topics that a post-stratum without
  sampled pairs borrows), so Student's t interval over topics of the per-topic estimates
  (or their differences) accounts for both the topic and the document sampling (the *ultimate
  cluster* variance of two-stage sampling, Cochran 1977, Sec. 11.2);
* estimand ``"topics"``: these topics are the target and only the document sampling varies; its
  variance comes from design replicates of the whole computation (a generalised bootstrap;
  nDCG's linearised around the estimate), with a normal quantile.

In both, nDCG's per-topic estimate is corrected for its second-order bias with the design
replicates (:func:`_ratio_bias`; drawn for nDCG alone under ``"population"``).

Beside them: ``"human-only"`` (the same estimators with the human sample alone, ``lam = 0``,
the statAP estimate) and ``"auto-only"`` (the automatic labels as if right). See
``pt_docs/ppi.md`` ("Judging fewer documents").
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._random import as_generator
from .._warnings import FitWarning, InputWarning, report, warn
from ..inputs.overlap import check_topic_overlap
from ..inputs.runs import read_runs
from ..judging import JudgingPlan, designs
from ..judging.estimation import (
    point_estimates,
    predictable_lambdas,
    replicate_draws,
    replicate_estimates,
    replicate_multipliers,
    tuned_lambda,
)
from ..judging.labels import scale_advice, unreached_measures
from ..judging.plan import raise_outside_pool
from ..judging.pool import run_positions
from ..judging.poststrata import PostStrata, post_strata
from ..judging.ranked import ideal_dcg, ranked_values
from ..judging.sensitivity import plan_measures
from ..measures.lowering import AP, NDCG, RPREC, RR, SUCCESS, KernelMeasure, R
from .coverage import coverage_flag
from .intervals import FEW_TOPICS, PPIResult, _normal_result, classical_mean_ci
from .tables import MOSTLY_ZERO, IntervalTables, column_flags

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .._typing import MeasuresLike, QrelsLike, RngLike, RunsLike

__all__ = ["DEFAULT_REPLICATES", "FEW_LABELS_IN_TOP", "PlanEstimator", "SampledPPIEvaluation", "evaluate_with_plan",
           "replicate_standard_error"]

#: design replicates: of the ``"topics"`` estimand's variance, and of nDCG's bias in both estimands
DEFAULT_REPLICATES = 200
#: fewer sampled pairs per topic than this in a run's top ranks flags it "few labels in top ranks"
FEW_LABELS_IN_TOP = 1.0
#: the ``method`` of each kind's intervals
_METHODS = {"ppi": "difference estimator", "human-only": "horvitz-thompson", "auto-only": "classical"}
#: measures normalised by an estimated quantity (R, the ideal DCG): their per-topic estimates are ratios
_RATIOS = (AP, NDCG, R, RPREC)
#: the ratios whose replicates are linearised around the estimate: nDCG. (AP's and R's ``R`` can come
#: out near 0 in a topic, where the expansion overshoots far more than the ratio moves: AP's
#: intervals at 20 labels per topic on DL 2020 were then 4.5 times as wide; Rprec's ``R`` is also its cutoff.)
_LINEARISED = (NDCG,)
#: the largest relative variance of nDCG's ideal DCG over the replicates, ``Var(D_r) / D^2``, at which
#: its bias is corrected (:func:`_ratio_bias`): beyond, the expansion of ``1 / D`` does not hold (on
#: DL 2020 with Llama 3.2 at 10 labels per topic, under 1% of the topics and runs, whose expansions ran to
#: -7 and +14 where nDCG is in [0, 1]; measured: 0.25 and 1 covered alike, 1 corrected more)
_EXPANDED = 1.0


@dataclass(frozen=True, eq=False)
class SampledPPIEvaluation(IntervalTables):
    """Per-topic estimates of runs' scores from a judging plan's human sample and automatic labels.

    Attributes:
        names, measures: run names, measure labels.
        qids: the topics (the plan's).
        estimates: ``{"ppi", "human-only", "auto-only"} -> (measures, rows, topics, runs)``; row 0
            is the estimate, rows 1... the design replicates (estimand ``"topics"``; none for auto-only).
        lam: per measure, the weight of the automatic labels (of its relevance or gain estimates).
        n_labels: human labels used; n_pool: pool pairs.
        sampled_in_top: ``(measures, topics, runs)``: sampled pairs in each run's ranks the measure
            reads (its cutoff, else the top 10), for the flags.
        kernel_measures: the measures as the estimators see them (for the flags).
        planned: per measure, whether the plan was made for it (``judging_plan(measures=...)``).
        n_replicates: design replicates behind the ``"topics"`` intervals (0 for ``"population"``,
            whose nDCG estimates read ``n_replicates`` of them for their bias, not kept).
        confidence_level, estimand, design: as given / the plan's design.
    """

    names: tuple[str, ...]
    measures: tuple[str, ...]
    qids: tuple[str, ...]
    estimates: dict
    lam: tuple[float, ...]
    n_labels: int
    n_pool: int
    sampled_in_top: np.ndarray
    kernel_measures: tuple[KernelMeasure, ...] = ()
    planned: tuple[bool, ...] = ()
    n_replicates: int = 0
    confidence_level: float = 0.95
    estimand: str = "population"
    design: str = "poisson"

    def describe_estimand(self) -> str:
        """What the intervals are about, in words."""
        if self.estimand == "topics":
            return f"estimand 'topics': the mean over these {len(self.qids)} topics"
        return "estimand 'population': the mean over the population the topics are sampled from"

    def __repr__(self) -> str:
        return (f"SampledPPIEvaluation({len(self.names)} runs, measures {list(self.measures)}, {len(self.qids)} "
                f"topics, {self.n_labels} human labels of {self.n_pool} pool pairs ({self.design} design), "
                f"confidence_level={self.confidence_level:g}; {self.describe_estimand()})")

    def _intervals(self, m: int, weights: np.ndarray) -> dict[str, PPIResult]:
        out = {}
        for kind, values in self.estimates.items():
            combined = values[m] @ weights  # (rows, topics, columns)
            lam = 0.0 if kind == "human-only" else self.lam[m] if kind == "ppi" else 1.0
            out[kind] = self._interval(combined, lam, kind)
        return out

    def _interval(self, combined: np.ndarray, lam: float, kind: str) -> PPIResult:
        """The interval of ``combined`` (rows x topics x columns: estimates, then replicates)."""
        level, n_topics = self.confidence_level, combined.shape[1]
        if self.estimand == "population" or kind == "auto-only":  # auto-only: no sampling error
            result = classical_mean_ci(combined[0], confidence_level=level,
                                       population_size=n_topics if self.estimand == "topics" else None)
        else:
            estimate = combined[0].mean(0)
            # the replicates' root mean squared distance from the estimate: their spread, and the
            # distance of their mean (a ratio measure's bias, in part; about 0 for a linear one; for
            # nDCG, ``-N dD / D^2`` with ``dD`` its ideal DCG's replicates' mean shift: kept, a margin
            # for the bias its correction leaves, and under Poisson, where ``dD`` is not corrected, for that)
            se = replicate_standard_error(combined[1:].mean(1) - estimate)
            result = _normal_result(estimate, se, level, "two-sided", 0.0, lam, 0, 0, "", estimand=self.estimand)
        return replace(result, lam=np.full(np.shape(result.statistic), lam), method=_METHODS[kind],
                       n_labeled=self.n_labels, n_unlabeled=self.n_pool - self.n_labels)

    def _flags(self, m: int, weights: np.ndarray) -> list[str]:
        """See pt_docs/ppi.md, "Flags": per column, the reasons of the runs involved and what was
        measured for this measure at this many labels per topic, estimand and column kind."""
        auto = self.estimates["auto-only"][m, 0]  # (topics, runs)
        in_top = self.sampled_in_top[m].sum(0)  # per run: sampled pairs in its top ranks
        flags = column_flags(weights, {
            "mostly 0": (auto == 0).mean(0) > MOSTLY_ZERO,
            "few labels in top ranks": in_top < FEW_LABELS_IN_TOP * len(self.qids),
        })
        if not self.kernel_measures:
            return flags
        measured = {column: coverage_flag(self.kernel_measures[m], self.measures[m], self.planned[m],
                                          self.labels_per_topic, self.estimand, column)
                    for column in ("mean", "difference")}
        kinds = ["mean" if (w < 0).sum() == 0 else "difference" for w in weights.T]
        return [", ".join(filter(None, (flag, measured[kind]))) for flag, kind in zip(flags, kinds)]

    @property
    def labels_per_topic(self) -> float:
        """Human labels per topic."""
        return self.n_labels / len(self.qids)

    def per_query(self) -> pd.DataFrame:
        """Per-topic estimates in long form: ``name, qid, measure, kind, value``."""
        frames = []
        for kind, values in self.estimates.items():
            for m, label in enumerate(self.measures):
                for s, name in enumerate(self.names):
                    frames.append(pd.DataFrame({"name": name, "qid": list(self.qids), "measure": label,
                                                "kind": kind, "value": values[m, 0, :, s]}))
        return pd.concat(frames, ignore_index=True)


def _human_labels(human_qrels: QrelsLike, plan: JudgingPlan) -> np.ndarray:
    """The human grade of every sampled pair, in pool order (:meth:`JudgingPlan.sampled_labels`); a
    ValueError also for sampled pairs without a label."""
    labels, labelled = plan.sampled_labels(human_qrels)
    missing = ~labelled
    if missing.any():
        sample = plan.pool[plan.pool["sampled"].to_numpy(bool)]
        qid, docno = sample[["qid", "docno"]].to_numpy()[np.flatnonzero(missing)[0]]
        raise ValueError(f"'human_qrels' has no label for {int(missing.sum())} of the plan's {len(labels)} "
                         f"sampled pair(s) (e.g. topic {qid!r}, document {docno!r}): every sampled pair needs a "
                         "human label (a pair left out because it was hard to judge would bias the estimates)")
    return labels


class PlanEstimator:
    """Runs and a judging plan's pool, prepared once; :meth:`estimate` from any probability sample of
    the pool (``ppi_evaluate(..., plan=)`` draws one; a coverage study draws many).

    Args:
        runs: read runs (:func:`read_runs`), ranked over the whole of each ranking.
        pool: the plan's pool (``qid, docno, auto_label``, sorted by ``qid, docno``).
        measures: measures (AP, nDCG, P, R, RR, Rprec, Success).
        depth: the plan's depth (its rank bands make the strata whose relevance rates RR and Success impute).
        labelled: per pool pair, whether the judge labelled it (the post-strata of the normalisers
            keep its 0 apart from no label); None: not known (one class)."""

    def __init__(self, runs: Mapping[str, pd.DataFrame], pool: pd.DataFrame, measures: MeasuresLike, *,
                 depth: int = 100, labelled: np.ndarray | None = None) -> None:
        self.parsed, self.lowered = plan_measures(measures)
        self.names = tuple(runs)
        self.auto = pool["auto_label"].to_numpy(np.int64)
        self.labelled = None if labelled is None else np.asarray(labelled, bool)
        qid_code, qids = pd.factorize(pool["qid"], sort=True)
        self.topic = qid_code
        self.starts = np.flatnonzero(np.r_[True, qid_code[1:] != qid_code[:-1]])
        self.qids = tuple(qids)
        self.strata = designs.strata(pool, depth)
        self.bands = designs.strata(pool, depth, by_label=False)  # for the human sample alone
        self.positions = run_positions(runs, pool, depth)
        offsets = self.positions.offsets
        self.cell = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))

    def estimate(self, sampled: np.ndarray, human: np.ndarray, probability: np.ndarray, *,
                 stratum: np.ndarray | None = None, confidence_level: float = 0.95, lam: float | None = None,
                 estimand: str = "population", n_replicates: int = DEFAULT_REPLICATES,
                 rng: RngLike = None, topic_order: Sequence[str] | None = None) -> SampledPPIEvaluation:
        """Estimates from a sample: ``sampled`` (a boolean mask over the pool), the human grades and
        inclusion probabilities of the sampled pairs (in pool order) and, under the stratified
        design, their strata (None: Poisson).

        ``topic_order`` (every topic once; with ``lam`` None): tune each topic's ``lam`` on the
        topics before it in this order (:func:`~pyterrier_boot.judging.estimation.predictable_lambdas`),
        so that each topic's estimate is unbiased given the earlier topics, as a sequence over
        topics needs; the ``lam`` reported is the last topic's."""
        if topic_order is not None and sorted(topic_order) != list(self.qids):
            raise ValueError("'topic_order' must list every topic of the pool once")
        order = None if topic_order is None else np.searchsorted(self.qids, np.asarray(topic_order, dtype=object))
        # the population estimand reads replicates for nDCG's bias alone; a sequence draws none (its
        # draws would span every topic, so adding one would move the earlier topics' scores)
        corrected = order is None and any(km.kind in _LINEARISED for km in self.lowered)
        replicates = n_replicates if estimand == "topics" or corrected else 0
        draws = replicate_draws(as_generator(rng), replicates, int(sampled.sum()))
        design = _Sample(self, sampled, human, probability, stratum, draws, order)
        estimates: dict[str, list] = {"ppi": [], "human-only": [], "auto-only": []}
        used = []
        for km in self.lowered:
            for kind in estimates:
                # the "population" estimand reads the replicates only for nDCG's bias (see _ratio_bias)
                values, weight = design.measure(km, kind, lam, estimand == "topics" or km.kind in _LINEARISED)
                estimates[kind].append(values if estimand == "topics" else values[:1])
                if kind == "ppi":
                    used.append(weight)
        return SampledPPIEvaluation(
            names=self.names, measures=tuple(p.label for p in self.parsed), qids=self.qids,
            estimates={k: np.stack(v) for k, v in estimates.items()}, lam=tuple(used),
            n_labels=int(sampled.sum()), n_pool=len(self.auto), sampled_in_top=self._sampled_in_top(sampled),
            kernel_measures=tuple(self.lowered), planned=(False,) * len(self.lowered),
            n_replicates=replicates if estimand == "topics" else 0,
            confidence_level=float(confidence_level), estimand=estimand,
            design="poisson" if stratum is None else "stratified")

    def _sampled_in_top(self, sampled: np.ndarray) -> np.ndarray:
        """``(measures, topics, runs)``: sampled pairs among each run's ranks up to the measure's
        cutoff (10 without one)."""
        offsets, ranks, pairs = self.positions.offsets, self.positions.ranks, self.positions.pairs
        out = []
        for km in self.lowered:
            hit = (ranks <= (km.cutoff if km.cutoff > 0 else 10)) & sampled[pairs]
            out.append(self.by_topic_and_run(np.bincount(self.cell[hit], minlength=len(offsets) - 1)[None])[0])
        return np.stack(out)

    def by_topic_and_run(self, values: np.ndarray) -> np.ndarray:
        """``(rows, cells)`` values as ``(rows, topics, runs)``; a topic a run has no cell for scores 0."""
        cell_topic, cell_run = self.positions.cell_topic, self.positions.cell_run
        out = np.zeros((values.shape[0], len(self.qids), len(self.names)), dtype=values.dtype)
        out[:, cell_topic, cell_run] = values
        return out


class _Sample:
    """One sample of a pool: estimates of each label function, then of each measure.

    Estimates are kept only for the *active* pairs of a measure (those that can be non-zero in
    some row: a non-zero automatic value, a sampled pair, a non-zero imputed label); the others are
    0 in every row and add nothing."""

    def __init__(self, estimator: PlanEstimator, sampled, human, probability, stratum, draws, order=None):
        self.estimator, self.order = estimator, order
        self.sampled, self.human, self.probability = sampled, human, probability
        codes = None if stratum is None else pd.factorize(stratum)[0]
        #: ``(replicates, sampled pairs)``: each sampled pair's factor in each design replicate
        self.multipliers = replicate_multipliers(probability, draws, codes)
        #: whether the replicates resample the sampled pairs (the stratified design's rescaled
        #: bootstrap), rather than perturb each pair's weight alone (Poisson's two-point factors)
        self.resampled = codes is not None
        self._post: tuple[PostStrata, np.ndarray] | None = None

    def normaliser_totals(self, f_auto: np.ndarray, f_human: np.ndarray, replicated: bool = True) -> np.ndarray:
        """``(rows, topics)`` post-stratified totals of ``f`` (:mod:`pyterrier_boot.judging.poststrata`):
        the estimate, then (if ``replicated``) the design replicates (the sampled pairs' weights moved
        as their corrections are in :meth:`rows`)."""
        if self._post is None:
            estimator = self.estimator
            weights = 1.0 / self.probability[None]
            weights = np.vstack([weights, weights * self.multipliers])
            self._post = post_strata(estimator.topic, estimator.auto, estimator.labelled, self.sampled), weights
        strata, weights = self._post
        return strata.totals(f_auto, f_human, self.sampled, weights if replicated else weights[:1],
                             borrow=self.order is None)

    def rows(self, f_auto: np.ndarray, f_human: np.ndarray, lam: float | np.ndarray, active: np.ndarray,
             replicated: bool = True) -> np.ndarray:
        """Estimates of ``f`` for the ``active`` pairs: the point estimate, then (if ``replicated``)
        the replicates."""
        lam = np.asarray(lam)[active] if np.ndim(lam) else lam
        if not (replicated and len(self.multipliers)):
            return point_estimates(f_auto[active], self.sampled[active], f_human, self.probability, lam)[None]
        return replicate_estimates(f_auto[active], self.sampled[active], f_human, self.probability, lam,
                                   self.multipliers)

    def per_topic(self, rows: np.ndarray, active: np.ndarray) -> np.ndarray:
        """``(rows, topics)`` sums of ``rows`` (of the ``active`` pairs) over each topic's pairs."""
        topic = self.estimator.topic[active]  # sorted: the pool is sorted by topic
        n_topics = len(self.estimator.qids)
        starts = np.searchsorted(topic, np.arange(n_topics))
        filled = starts < np.r_[starts[1:], len(topic)]
        out = np.zeros((rows.shape[0], n_topics))
        if filled.any():
            out[:, filled] = np.add.reduceat(rows, starts[filled], axis=1)
        return out

    def imputed(self, f_auto: np.ndarray, f_human: np.ndarray, kind: str) -> np.ndarray:
        """Labels in [0, 1] for the products of RR and Success: the human one where sampled, else the
        share relevant among the sampled pairs of the pair's stratum: topic x automatic label x rank
        band (the automatic label where the stratum has no sampled pair); for ``"human-only"``,
        topic x rank band (0 where none is sampled), so that no automatic label enters."""
        if kind == "auto-only":
            return f_auto
        strata = self.estimator.strata if kind == "ppi" else self.estimator.bands
        taken = strata[self.sampled]
        count = np.bincount(taken, minlength=strata.max() + 1)
        rate = np.bincount(taken, weights=f_human, minlength=strata.max() + 1) / np.maximum(count, 1)
        y = np.where(count[strata] > 0, rate[strata], f_auto if kind == "ppi" else 0.0)
        y[self.sampled] = f_human
        return np.clip(y, 0.0, 1.0)

    def measure(self, km, kind: str, lam: float | None, replicated: bool = True) -> tuple[np.ndarray, float]:
        """``(rows, topics, runs)`` estimates of one measure for one kind (the estimate, then, if
        ``replicated``, the design replicates), and the ``lam`` used."""
        f_auto, f_human, values = self._label_values(km)
        imputed = self.imputed(f_auto, f_human, kind)
        active = (f_auto != 0) & (kind != "human-only") | self.sampled & (kind != "auto-only")
        if km.kind in (RR, SUCCESS):
            active = active | (imputed != 0)
        reported: float
        if kind == "auto-only":
            used = reported = 1.0
            rows = f_auto[active][None]
        else:
            used, reported = (0.0, 0.0) if kind == "human-only" else (lam, lam) if lam is not None else \
                self.tuned(f_auto, f_human)
            rows = self.rows(f_auto, f_human, used, active, replicated)
        if km.kind == NDCG:
            levels = np.unique(values[values > 0])[::-1]
            counts = [self._level_counts(f_auto, f_human, v, used, kind, active, replicated) for v in levels]
            norm = ideal_dcg(levels, np.stack(counts, axis=-1) if counts else
                             np.zeros(rows.shape[:1] + (len(self.estimator.qids), 0)), km.cutoff)
        elif km.kind in _RATIOS and kind == "ppi":
            norm = self.normaliser_totals(f_auto, f_human, replicated)
        else:
            norm = self.per_topic(rows, active)
        if km.kind in _LINEARISED and kind != "auto-only":
            numerator = self._ranked(km, rows, np.ones_like(norm), imputed[active], active)
            values = _linearised_ratio(numerator, norm[:, :, None], shifted=self.resampled)
        else:
            values = self._ranked(km, rows, norm, imputed[active], active)
        if km.kind in _RATIOS and self.order is not None:  # a confidence sequence needs known bounds
            values = np.clip(values, 0.0, 1.0)
        return values, reported

    def _label_values(self, km) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``f`` of the automatic grades (every pool pair) and of the human ones (sampled pairs),
        and ``f`` of every grade present: the gain for nDCG, else relevance at ``rel``."""
        auto = self.estimator.auto
        grades = np.unique(np.r_[auto, self.human])
        if km.kind == NDCG:
            values = np.array([km.gain(int(g)) for g in grades], dtype=float)
        else:
            values = (grades >= km.rel).astype(float)
        return values[np.searchsorted(grades, auto)], values[np.searchsorted(grades, self.human)], values

    def _ranked(self, km, rows: np.ndarray, norm: np.ndarray, imputed: np.ndarray, active: np.ndarray) -> np.ndarray:
        """``(rows, topics, runs)``: the measure of every ranking from the active pairs' estimates."""
        positions = self.estimator.positions
        index = np.full(len(active), -1, np.int64)
        index[active] = np.arange(int(active.sum()))
        at = index[positions.pairs]
        keep = at >= 0  # positions whose estimate (and imputed label) is 0 in every row add nothing
        kept = np.r_[0, np.cumsum(np.bincount(self.estimator.cell[keep], minlength=len(positions.offsets) - 1))]
        values = ranked_values(km.kind, km.cutoff, kept, positions.ranks[keep], at[keep], positions.cell_topic, rows,
                               norm, imputed)
        return self.estimator.by_topic_and_run(values)

    def tuned(self, f_auto: np.ndarray, f_human: np.ndarray) -> tuple[float | np.ndarray, float]:
        """The ``lam`` minimising the design variance (:func:`tuned_lambda`): one from the whole
        sample or, given a topic order, each topic's from the topics before it (one per pool pair);
        and the ``lam`` to report (the last topic's)."""
        if self.order is None:
            lam = tuned_lambda(f_auto[self.sampled], f_human, self.probability)
            return lam, lam
        topic = self.estimator.topic
        per_topic = predictable_lambdas(f_auto[self.sampled], f_human, self.probability, topic[self.sampled],
                                        self.order)
        return per_topic[topic], float(per_topic[self.order[-1]])

    def _level_counts(self, f_auto, f_human, level: float, lam, kind: str, active: np.ndarray,
                      replicated: bool) -> np.ndarray:
        """``(rows, topics)``: each topic's estimated number of documents of gain ``level``."""
        at_auto, at_human = (f_auto == level).astype(float), (f_human == level).astype(float)
        if kind == "ppi":
            return self.normaliser_totals(at_auto, at_human, replicated)
        rows = at_auto[active][None] if kind == "auto-only" else self.rows(at_auto, at_human, lam, active, replicated)
        return self.per_topic(rows, active)


def replicate_standard_error(shifts: np.ndarray) -> np.ndarray:
    """The ``"topics"`` estimand's standard error from ``(..., replicates, columns)`` shifts (each
    design replicate's mean over the topics less the estimate's): their root mean square over the
    replicates (the axis before the columns)."""
    return np.sqrt((shifts**2).mean(-2))


def _linearised_ratio(numerator: np.ndarray, normaliser: np.ndarray, *, shifted: bool = False) -> np.ndarray:
    """``(rows, ...)``: the ratio ``N / D`` of the estimates (row 0; 0 where ``D`` is 0, as trec_eval)
    and, for each design replicate, its first-order (Taylor) expansion around them,
    ``N_r / D - N (D_r - D) / D^2``, so that a replicate whose normaliser comes out near 0 does not
    make its ratio explode (Sarndal, Swensson & Wretman 1992, Sec. 5.5); then every row less the
    ratio's second-order bias (:func:`_ratio_bias`, ``shifted`` passed on): shifted alike, the
    replicates keep their spread about the estimate."""
    base, top = normaliser[:1], numerator[:1]
    positive = base > 0
    safe = np.where(positive, base, 1.0)
    ratio = np.where(positive, numerator / safe - top * (normaliser - base) / safe**2, 0.0)
    ratio[0] = np.where(positive[0], top[0] / safe[0], 0.0)
    return ratio - _ratio_bias(numerator, normaliser, shifted=shifted)


def _ratio_bias(numerator: np.ndarray, normaliser: np.ndarray, *, shifted: bool = False) -> np.ndarray:
    """The bias of the ratio ``N / D`` of row 0 to second order, from the design replicates (rows
    1...; 0 without them, and where ``D`` is 0), the ratio expanded around the estimates (Cochran
    1977, Sec. 6.8): ``-N dD / D^2 + N Var(D_r) / D^3 - Cov(N_r, D_r) / D^2``. With few labels per
    topic the ideal DCG is uncertain, and ``N / D`` is then biased (``D`` in the denominator).

    ``dD``, the bias of the post-stratified ideal DCG itself (a concave function of the estimated
    counts, which saturates at the cutoff), is the replicates' mean ``D_r`` less ``D`` (the
    bootstrap's estimate of bias, Efron & Tibshirani 1993, ch. 10) where ``shifted`` (replicates
    that resample the sampled pairs: the stratified design's rescaled bootstrap, which follows the
    counts' sampling distribution beyond its variance), else 0: Poisson's two-point factors match
    the counts' variance (all the other two terms read) but not their skew, which a concave
    function's bias depends on. (``N``'s own, ``dN``, is left out: ``N`` is linear in the weights.)
    Not corrected (0) where ``Var(D_r) / D^2`` exceeds :data:`_EXPANDED`, where the expansion fails."""
    if len(numerator) < 2:
        return np.zeros_like(numerator[:1])
    base, top = normaliser[0], numerator[0]
    positive = base > 0
    safe = np.where(positive, base, 1.0)
    mean = normaliser[1:].mean(0)
    spread, shift = normaliser[1:] - mean, (mean - base) if shifted else 0.0
    covariance = ((numerator[1:] - numerator[1:].mean(0)) * spread).mean(0)
    variance = (spread**2).mean(0)
    bias = -top * shift / safe**2 + top * variance / safe**3 - covariance / safe**2
    return np.where(positive & (variance <= _EXPANDED * safe**2), bias, 0.0)[None]


def evaluate_with_plan(runs: RunsLike, auto_qrels: QrelsLike, human_qrels: QrelsLike, measures: MeasuresLike,
                       plan: JudgingPlan, *, names: Sequence[str] | None = None, confidence_level: float = 0.95,
                       lam: float | None = None, estimand: str = "population",
                       n_replicates: int = DEFAULT_REPLICATES, rng: RngLike = None,
                       batch_size: int | None = None, verbose: bool = False) -> SampledPPIEvaluation:
    """The body of ``ppi_evaluate(..., plan=plan)`` (its docstring says what each argument does)."""
    if not isinstance(plan, JudgingPlan):
        raise TypeError(f"'plan' must be a JudgingPlan (judging_plan(...) or JudgingPlan.load(path)), got "
                        f"{type(plan).__name__}")
    if isinstance(n_replicates, bool) or not isinstance(n_replicates, (int, np.integer)) or n_replicates < 20:
        raise ValueError(f"'n_replicates' must be an integer of at least 20, got {n_replicates!r}")
    read = read_runs(runs, names=names, batch_size=batch_size, verbose=verbose)
    parsed, lowered = plan_measures(measures)
    planned = plan.check_measures(lowered, [p.label for p in parsed])
    check_topic_overlap({name: run["qid"].unique() for name, run in read.items()}, plan.pool["qid"].unique())
    auto = plan.check_auto_qrels(auto_qrels)
    pool = plan.pool
    labelled = pd.MultiIndex.from_frame(pool[["qid", "docno"]]).isin(pd.MultiIndex.from_frame(auto[["qid", "docno"]]))
    estimator = PlanEstimator(read, pool, parsed, depth=plan.depth, labelled=labelled)
    if estimator.positions.example is not None:  # the runs' top depth must be in the pool
        raise_outside_pool(estimator.positions.outside, estimator.positions.example, plan.depth)
    human = _human_labels(human_qrels, plan)
    _warn_unreached(parsed, lowered, pool["auto_label"].to_numpy(), human)
    if estimand == "population" and len(estimator.qids) < FEW_TOPICS:
        report(FitWarning, "only {cases} topics: the population interval is Student's t over the topics' estimates, "
               f"which below {FEW_TOPICS} topics rests on their being nearly normal; evaluate more topics, or use "
               "estimand='topics' for the mean over these", [len(estimator.qids)])
    sampled = pool["sampled"].to_numpy(bool)
    stratum = pool["stratum"].to_numpy(np.int64)[sampled] if plan.design == "stratified" else None
    result = estimator.estimate(
        sampled, human, pool["inclusion_probability"].to_numpy(float)[sampled], stratum=stratum,
        confidence_level=confidence_level, lam=lam, estimand=estimand, n_replicates=n_replicates, rng=rng)
    return replace(result, planned=tuple(planned))


def _warn_unreached(parsed, lowered, auto: np.ndarray, human: np.ndarray) -> None:
    top_auto, top_human = int(auto.max(initial=0)), int(human.max(initial=0))
    unreached = unreached_measures([p.label for p, km in zip(parsed, lowered) if km.kind != NDCG],
                                   [km.rel for km in lowered if km.kind != NDCG], top_auto)
    unreached = [(label, rel) for label, rel in unreached if rel <= top_human]
    if unreached:
        warn(InputWarning(f"the human labels reach {top_human}: {scale_advice(top_auto, unreached)}; until then "
                          "PPI's estimates of them rest on people's labels alone"))
