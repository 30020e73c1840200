"""``ppi_evaluate``: prediction-powered intervals for runs judged by automatic qrels on every topic
and by human qrels on a random subset of the topics (Angelopoulos et al. 2023; PPI++ 2024)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._warnings import FitWarning, InputWarning, one_warning_per_kind, suppressed, warn
from ..inputs.overlap import check_topic_overlap
from ..inputs.qrels import read_qrels
from ..inputs.runs import read_runs
from ..inputs.topics import read_topics
from ..judging.labels import apply_label_map, check_label_map, scale_advice, unreached_measures
from ..measures.evaluation import prepare, to_long_frame
from ..measures.parsing import parse_measures, require_mean_aggregated
from .intervals import (
    CROSSFIT_MIN_TOPICS,
    PPIResult,
    check_estimand,
    classical_mean_ci,
    ppi_mean_ci,
    warn_few_topics,
)
from .sampled import DEFAULT_REPLICATES, SampledPPIEvaluation, evaluate_with_plan
from .tables import MOSTLY_ZERO, IntervalTables, column_flags

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._typing import MeasuresLike, QrelsLike, RngLike, RunsLike, TopicsLike
    from ..judging import JudgingPlan


__all__ = ["PPIEvaluation", "ppi_evaluate"]

@dataclass(frozen=True, eq=False)
class PPIEvaluation(IntervalTables):
    """Per-topic scores of runs under automatic and human qrels, and their intervals.

    Attributes:
        names: run names.
        measures: measure labels as written.
        labeled_qids: the human-judged topics (human and automatic scores known).
        unlabeled_qids: the topics judged only automatically.
        human: human scores, shape ``(measures, labeled topics, runs)``.
        auto_labeled: automatic scores on the human-judged topics, same shape.
        auto_unlabeled: automatic scores on the other topics, ``(measures, unlabeled topics, runs)``.
        confidence_level: of every interval.
        lam: None (chosen for each run / difference and measure, see :func:`ppi_mean_ci`) or the
            fixed weight.
        small_sample: whether the small-sample rule of :func:`ppi_mean_ci` applies (default True).
        estimand: ``"population"`` (the mean human score over the population the topics are
            sampled from) or ``"topics"`` (the mean human score over these topics, with the
            finite-population correction); said by :meth:`describe_estimand`, the repr and the
            ``estimand`` column of the tables.

    Methods give each interval as a :class:`PPIResult` (:meth:`intervals`), a wide table like
    ``pt.Experiment``'s (:meth:`table`), every pair of runs (:meth:`pairwise`) and the per-topic
    scores (:meth:`per_query`). Three intervals are reported side by side, for the same quantity
    (the mean human score, of the estimand):

    * ``ppi``: prediction-powered (``lam`` chosen by :func:`ppi_mean_ci` unless fixed);
    * ``human-only``: classical (Student's t), from the human-judged topics alone;
    * ``auto-only``: classical, from the automatic scores of every topic, as if the judge were
      right; shown to make its bias visible, it does not cover the human mean when the judge is biased.
    """

    names: tuple[str, ...]
    measures: tuple[str, ...]
    labeled_qids: tuple[str, ...]
    unlabeled_qids: tuple[str, ...]
    human: np.ndarray
    auto_labeled: np.ndarray
    auto_unlabeled: np.ndarray
    confidence_level: float = 0.95
    lam: float | None = None
    small_sample: bool = True
    estimand: str = "population"

    @property
    def n_topics(self) -> int:
        """Every topic: human-judged and automatic-only."""
        return len(self.labeled_qids) + len(self.unlabeled_qids)

    def describe_estimand(self) -> str:
        """What the intervals are about, in words (as the repr and the command print it)."""
        if self.estimand == "topics":
            return f"estimand 'topics': the mean over these {self.n_topics} topics"
        return "estimand 'population': the mean over the population the topics are sampled from"

    @property
    def method(self) -> str:
        """What ``lam=None`` means for these topics, or the fixed weight: ``"PPI"``, ``"PPI++ (cross-fitted)"``,
        ``"PPI++"`` (in-sample, ``small_sample=False``) or ``"PPI (lam=...)"``."""
        if self.lam is not None:
            return "PPI" if self.lam == 1 else f"PPI (lam={self.lam:g})"
        if not self.small_sample:
            return "PPI++"
        return "PPI++ (cross-fitted)" if len(self.labeled_qids) >= CROSSFIT_MIN_TOPICS else "PPI"

    def __repr__(self) -> str:
        lam = self.method + ("" if self.small_sample else ", asymptotic")
        return (f"PPIEvaluation({len(self.names)} runs, measures {list(self.measures)}, "
                f"{len(self.labeled_qids)} human-judged + {len(self.unlabeled_qids)} automatic-only topics, "
                f"{lam}, confidence_level={self.confidence_level:g}; {self.describe_estimand()})")

    def _intervals(self, m: int, weights: np.ndarray) -> dict[str, PPIResult]:
        """Intervals of the linear combinations ``scores @ weights`` (columns) of the runs, for measure ``m``."""
        human, auto_l, auto_u = (a[m] @ weights for a in (self.human, self.auto_labeled, self.auto_unlabeled))
        level, small, estimand = self.confidence_level, self.small_sample, self.estimand
        size = self.n_topics if estimand == "topics" else None  # the finite population of the classical intervals
        with suppressed(FitWarning):  # said once, by ppi_evaluate
            ppi = ppi_mean_ci(human, auto_l, auto_u, confidence_level=level, lam=self.lam, small_sample=small,
                              estimand=estimand)
        return {"ppi": ppi, "human-only": classical_mean_ci(human, confidence_level=level, small_sample=small,
                                                            population_size=size),
                "auto-only": classical_mean_ci(np.concatenate([auto_l, auto_u]), confidence_level=level,
                                               small_sample=small, population_size=size)}

    def _flags(self, m: int, weights: np.ndarray) -> list[str]:
        auto = np.concatenate([self.auto_labeled[m], self.auto_unlabeled[m]])
        return column_flags(weights, {"mostly 0": (auto == 0).mean(0) > MOSTLY_ZERO})

    def per_query(self) -> pd.DataFrame:
        """Per-topic scores in long form: ``name, qid, measure, judge ("human" / "auto"), value``."""
        rows = []
        for m, label in enumerate(self.measures):
            for judge, qids, values in (("human", self.labeled_qids, self.human[m]),
                                        ("auto", self.labeled_qids, self.auto_labeled[m]),
                                        ("auto", self.unlabeled_qids, self.auto_unlabeled[m])):
                for s, name in enumerate(self.names):
                    rows.append(pd.DataFrame({"name": name, "qid": list(qids), "measure": label, "judge": judge,
                                              "value": values[:, s]}))
        return pd.concat(rows, ignore_index=True)


@one_warning_per_kind()
def _check_evaluate_options(confidence_level, lam, small_sample, estimand):
    """ValueError/TypeError naming the option for a bad ``confidence_level``, ``lam``, ``small_sample`` or
    ``estimand``."""
    check_estimand(estimand)
    if not (isinstance(confidence_level, (float, int)) and 0 < confidence_level < 1):
        raise ValueError(f"'confidence_level' must be a number in (0, 1), got {confidence_level!r}")
    if lam is not None and (isinstance(lam, bool) or not isinstance(lam, (int, float)) or not 0 <= lam <= 1):
        raise ValueError(f"'lam' must be None (chosen) or a number in [0, 1], got {lam!r}")
    if not isinstance(small_sample, bool):
        raise TypeError(f"'small_sample' must be True or False, got {small_sample!r}")


def ppi_evaluate(runs: RunsLike, auto_qrels: QrelsLike, human_qrels: QrelsLike,
                 measures: MeasuresLike, *, topics: TopicsLike | None = None,
                 names: Sequence[str] | None = None, confidence_level: float = 0.95,
                 lam: float | None = None, small_sample: bool = True, estimand: str = "population",
                 plan: JudgingPlan | None = None, n_replicates: int = DEFAULT_REPLICATES, rng: RngLike = None,
                 label_map: dict[int, int] | None = None, batch_size: int | None = None,
                 verbose: bool = False) -> PPIEvaluation | SampledPPIEvaluation:
    """Evaluate runs with automatic qrels on every topic and human qrels on a subset of topics, or,
    with a judging ``plan``, on a random sample of the pool's documents.

    Each run is read (or run) once and scored per topic with both sets of qrels by
    :func:`pyterrier_boot.evaluate`. The topics in ``human_qrels`` are the labeled sample, the
    other topics of ``auto_qrels`` the unlabeled one; intervals come from
    :func:`pyterrier_boot.ppi_mean_ci` (PPI, Angelopoulos et al. 2023; PPI++ power tuning,
    Angelopoulos, Duchi & Zrnic 2024), beside the human-only and automatic-only intervals.

    Args:
        runs: runs or transformers, anything :func:`pyterrier_boot.read_runs` accepts.
        auto_qrels: automatic judgments (e.g. from an LLM) covering every topic.
        human_qrels: human judgments of a subset of those topics. Each of its topics is taken as
            completely judged by people: its qrels give the gold per-topic score. With a ``plan``:
            people's labels of exactly ``plan.sample`` (the pairs the plan drew, from every topic).
        measures: mean-aggregated measures (ir_measures syntax or trec_eval names).
        topics, names: topics to run transformers on (both qrels are then limited to them); names of
            the runs (as in :func:`read_runs`). confidence_level: of every interval (0.95).
        lam, small_sample: as :func:`ppi_mean_ci` (default: the small-sample rule, plain PPI below
            30 human-judged topics, cross-fitted PPI++ from 30).
        estimand: ``"population"`` (default): each run's mean over the population of topics the
            topics are a random sample of (the question of a paper generalising beyond its test
            collection); ``"topics"``: each run's mean over the topics of ``auto_qrels`` (every topic
            judged automatically, the human-judged ones a random subset), with the
            finite-population correction: narrower, and of zero width when every topic is
            human-judged (the mean is then known). ``pt_docs/ppi.md`` says which to choose.
        plan: a :class:`pyterrier_boot.JudgingPlan` of these runs and ``auto_qrels``: the human
            labels are then its sample of documents, and means and differences are estimated from
            the automatic labels corrected by them (``pt_docs/ppi.md``, "Judging fewer documents");
            ``lam`` weighs the automatic labels (None: tuned per measure); returns a
            :class:`SampledPPIEvaluation`. n_replicates, rng: its design replicates (default 200)
            and their seed (None: 42): the ``"topics"`` estimand's variance, and nDCG's bias in both.
        label_map: the people's grade of each automatic label (``{1: 2}``: a 0/1 judge's 1 is grade
            2) for ``auto_qrels`` (with a ``plan``: :meth:`JudgingPlan.map_labels`). batch_size,
            verbose: as in :func:`read_runs`.

    Returns:
        :class:`PPIEvaluation`; ``.table(baseline=...)`` gives the wide table (``pt_docs/ppi.md``). A
        ValueError for human-judged topics the automatic qrels miss, fewer than 2 human-judged
        topics (2 automatic-only ones for the population estimand), or measures summed over topics.

    The intervals assume the human-judged topics are a *random* subset of the topics and, for the
    population estimand, the topics a random sample of the population the claim is about."""
    _check_evaluate_options(confidence_level, lam, small_sample, estimand)
    if (label_map := check_label_map(label_map)) is not None and plan is None:
        auto_qrels = apply_label_map(read_qrels(auto_qrels).frame, label_map)
    if plan is not None:
        read = read_runs(runs, topics=topics, names=names, batch_size=batch_size, verbose=verbose)
        return evaluate_with_plan(read, auto_qrels, human_qrels, measures, _mapped_plan(plan, label_map),
                                  confidence_level=confidence_level, lam=lam, estimand=estimand,
                                  n_replicates=n_replicates, rng=rng)
    return _evaluate_topic_sample(runs, auto_qrels, human_qrels, measures, topics, names, confidence_level, lam,
                                  small_sample, estimand, batch_size, verbose)


def _mapped_plan(plan, label_map: dict[int, int] | None):
    """``plan`` with ``label_map`` applied (:meth:`JudgingPlan.map_labels`), unless it has its own."""
    from ..judging import JudgingPlan

    if label_map is None or not isinstance(plan, JudgingPlan):  # evaluate_with_plan names a wrong plan
        return plan
    if plan.label_map is None:
        return plan.map_labels(label_map)
    if plan.label_map != label_map:
        raise ValueError(f"'label_map' {label_map} differs from the judging plan's own {plan.label_map}, which it "
                         "applies already: leave 'label_map' out")
    return plan


def _evaluate_topic_sample(runs, auto_qrels, human_qrels, measures, topics, names, confidence_level, lam,
                           small_sample, estimand, batch_size, verbose) -> PPIEvaluation:
    """``ppi_evaluate`` without a plan: human qrels for a random subset of the topics."""
    parsed = parse_measures(measures)
    require_mean_aggregated(parsed, context="a prediction-powered interval")
    auto, human, topics = _read_qrels(auto_qrels, human_qrels, topics)
    _warn_unreached_rel(auto, human, parsed)
    labeled, unlabeled = _split_topics(auto, human, estimand)
    if small_sample and (unlabeled or estimand == "population"):  # every topic human-judged: the mean is known
        warn_few_topics(len(labeled))
    read = read_runs(runs, topics=topics, names=names, batch_size=batch_size, verbose=verbose)
    check_topic_overlap({name: run["qid"].unique() for name, run in read.items()}, auto["qid"].unique())
    labels = [p.label for p in parsed]
    human_scores = _scores(read, human, parsed, labeled, labels)
    auto_scores = _scores(read, auto, parsed, labeled + unlabeled, labels)
    return PPIEvaluation(names=tuple(read), measures=tuple(labels), labeled_qids=tuple(labeled),
                         unlabeled_qids=tuple(unlabeled), human=human_scores,
                         auto_labeled=auto_scores[:, :len(labeled)], auto_unlabeled=auto_scores[:, len(labeled):],
                         confidence_level=float(confidence_level), lam=None if lam is None else float(lam),
                         small_sample=bool(small_sample), estimand=estimand)


def _warn_unreached_rel(auto: pd.DataFrame, human: pd.DataFrame, parsed) -> None:
    """One InputWarning when a measure's ``rel`` is above every automatic label but not every human
    one: the judge then finds nothing relevant (e.g. binary LLM labels 0/1 with ``AP(rel=2)``), and
    PPI quietly becomes the human-only interval."""
    top_auto, top_human = int(auto["label"].max()), int(human["label"].max())
    unreached = unreached_measures([p.label for p in parsed], [p.measure.params.get("rel") or 1 for p in parsed],
                                   top_auto)
    unreached = [(label, rel) for label, rel in unreached if rel <= top_human]
    if unreached:
        warn(InputWarning(f"the human qrels reach {top_human}: {scale_advice(top_auto, unreached)}; until then "
                          "every automatic score is 0 and PPI gives the human-only interval"))


def _read_qrels(auto_qrels, human_qrels, topics):
    """The automatic and human qrels frames, restricted to ``topics`` when given, and the topics read."""
    auto, human = read_qrels(auto_qrels).frame, read_qrels(human_qrels).frame
    if topics is None:
        return auto, human, None
    topics = read_topics(topics)
    wanted = set(topics["qid"])
    return auto[auto["qid"].isin(wanted)], human[human["qid"].isin(wanted)], topics


def _split_topics(auto: pd.DataFrame, human: pd.DataFrame, estimand: str) -> tuple[list[str], list[str]]:
    auto_topics, human_topics = set(auto["qid"]), set(human["qid"])
    missing = sorted(human_topics - auto_topics)
    if missing:
        shown = ", ".join(map(repr, missing[:5])) + (", ..." if len(missing) > 5 else "")
        raise ValueError(f"'human_qrels' judges {len(missing)} topic(s) that 'auto_qrels' does not ({shown}): the "
                         "automatic qrels must judge every topic, the human qrels a subset of them")
    labeled = sorted(human_topics, key=_natural)
    unlabeled = sorted(auto_topics - human_topics, key=_natural)
    if len(labeled) < 2:
        raise ValueError(f"'human_qrels' judges {len(labeled)} topic(s): prediction-powered intervals need at least "
                         "2 human-judged topics (and, being normal approximations, many more to be accurate)")
    if len(unlabeled) < 2 and estimand == "population":
        raise ValueError(f"only {len(unlabeled)} topic(s) of 'auto_qrels' lack human judgments: prediction-powered "
                         "intervals of the population estimand need at least 2 topics judged only automatically; "
                         "with (almost) every topic judged by people, evaluate with the human qrels alone (or "
                         "estimand='topics' for the mean over these topics)")
    return labeled, unlabeled


def _natural(qid: str):
    return (0, int(qid), "") if qid.isdigit() else (1, 0, qid)


def _scores(runs: dict, qrels: pd.DataFrame, measures, qids: list[str], labels: list[str]) -> np.ndarray:
    """Per-topic scores ``(measures, qids, runs)``; a run without results for a topic scores 0 on it."""
    wanted = set(qids)
    subset = {name: run[run["qid"].isin(wanted)] for name, run in runs.items()}
    retrieved = {name: run for name, run in subset.items() if len(run)}
    index = pd.MultiIndex.from_product([labels, qids], names=["measure", "qid"])
    cube = pd.DataFrame(0.0, index=index, columns=list(runs))  # no result for any of these topics: 0
    if retrieved:
        # the overlap with the qrels was checked at the door, against every topic
        evaluator, _ = prepare(retrieved, qrels[qrels["qid"].isin(wanted)], measures, warn_unjudged=False,
                               warn_missing=False)
        values = evaluator.evaluate(np.ones((1, evaluator.arrays.n_docs), np.int32), identity=True)[0]
        long = to_long_frame(values, evaluator.arrays, evaluator.measures)
        scored = long.pivot_table(index=["measure", "qid"], columns="name", values="value", aggfunc="first")
        cube.update(scored.reindex(index=index, columns=list(retrieved)))
    return cube.to_numpy(dtype=float).reshape(len(labels), len(qids), len(runs))
