"""What a judging plan's budget will support, before anyone judges (``JudgingPlan.forecast``).

People's labels are simulated from the automatic ones: in each topic, a pair the judge called
relevant keeps its label with probability ``precision_t`` (else it is non-relevant), a pair it
labelled non-relevant is relevant with probability ``miss_t``, a pool pair it did not label stays
non-relevant. ``precision_t`` and ``miss_t`` vary by topic, as judges' errors do: they are drawn
per topic from Beta distributions of means ``people`` and concentration :data:`TOPIC_SPREAD`.
Within a topic, a pair more of the runs put in their top 10 is more often relevant: the log-odds
of both rates move by :data:`CONSENSUS_SLOPE` times the pair's share of the topic's runs ranking it
in their top 10, less that share's mean over the pairs of its kind (labelled relevant, labelled
non-relevant) in the topic. The defaults are what NIST's assessors did with the judge's labels on
TREC DL 2019 and 2020 (relevant at grade 2; mean precision over topics: GPT-4o 0.39-0.48, Llama 3.2
0.21-0.32; miss 0.04-0.09; concentrations 3.6-9.2; the slope of a logistic regression of
relevance on that share: 1.5-3.6 for the judge's relevant pairs, 0.5-4.0 for its non-relevant
ones, means 2.5 and 2.0; one slope, the first mean, serves both). Without the consensus, people
scatter relevance over the judge's pairs whatever the runs' rankings, and a measure such as AP
then varies from topic to topic less than half as much as with NIST's labels (forecasts too
narrow). With one simulated set of people, the plan's sample is redrawn ``n_draws`` times and
every draw estimated as ``ppi_evaluate(plan=)`` does; for each measure and column (every run's
mean, every run minus the median run):

* the population width: Student's t over the topics of one draw's estimates, averaged over draws;
* the topics width: the normal interval ``ppi_evaluate(plan=, estimand="topics")`` gives, from
  the design replicates of each draw (:data:`~pyterrier_boot.ppi.sampled.DEFAULT_REPLICATES`),
  averaged over draws. Its replicates, not the draws' spread: a ratio's replicates can swing far
  where its normaliser comes out near 0 in a topic, so AP's intervals at 10-20 labels per topic are
  about twice as wide as its estimates vary (on TREC DL with NIST's labels in place of simulated
  people, AP's topics widths forecast from the draws' spread were 0.64 of the realised ones in the
  median, from the replicates 0.96);
* the measured coverage at this many labels per topic (:mod:`pyterrier_boot.ppi.coverage`), and
  whether the interval held there.

:meth:`Forecast.labels_needed` scales the document sampling's variance with the budget (as a
stratified sample's, ``N/n - 1``; the topics width's excess over the draws' spread, the ratios'
swings where a normaliser nears 0, with its square, being of second order) and finds the fewest
labels whose forecast width is at most the target. See ``pt_docs/ppi.md`` ("A forecast before judging").
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import special, stats

from .._random import as_generator
from ..judging import designs
from ..judging.estimation import replicate_draws
from ..judging.plan import raise_outside_pool
from .coverage import measured_coverage
from .sampled import DEFAULT_REPLICATES, PlanEstimator, _Sample, replicate_standard_error

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._typing import RngLike
    from ..judging import JudgingPlan

__all__ = ["CONSENSUS_SLOPE", "Forecast", "PEOPLE", "TOPIC_SPREAD", "forecast_plan", "simulate_people",
           "top_votes"]

#: the default mean (precision, miss) of the simulated people (see the module docstring)
PEOPLE = (0.35, 0.06)
#: the concentration ``a + b`` of the Beta distributions of each topic's precision and miss
TOPIC_SPREAD = 5.0
#: how much the log-odds of a pair's precision and miss rise with the share of the runs that put it
#: in their top 10 (see the module docstring)
CONSENSUS_SLOPE = 2.5
#: the columns of a forecast
COLUMNS = ("mean", "difference")
#: the estimands of a forecast
ESTIMANDS = ("population", "topics")


@dataclass(frozen=True)
class Forecast:
    """A plan's forecast: expected interval widths and the measured coverage, per measure.

    Attributes:
        table: one row per measure, column (``"mean"``, ``"difference"``) and estimand:
            ``width`` (the expected width of a 95% interval, averaged over the runs or
            differences), ``coverage`` (measured at this many labels per topic, %, NaN where not
            measured), ``measured at`` (its labels per topic) and ``holds`` (no flag).
        labels, pool, n_topics: the plan's budget, its pool size and topics.
        parts: ``(measure, column) -> (between, design, replicated)``, per run or difference:
            the variance of its per-topic values over the topics net of the document sampling, the
            document sampling's variance per topic at the plan's budget (the draws' spread), and
            the topics interval's variance as its design replicates give it, times the topics (what
            :meth:`width` scales with the budget).
        n_draws, people: the draws behind it and the simulated people's ``(precision, miss)``.
    """

    table: pd.DataFrame
    labels: int
    pool: int
    n_topics: int
    parts: dict
    n_draws: int
    people: tuple[float, float]

    @property
    def measures(self) -> list[str]:
        """The measures forecast."""
        return list(dict.fromkeys(measure for measure, _ in self.parts))

    @property
    def columns(self) -> list[str]:
        """The column kinds forecast: ``"mean"``, and ``"difference"`` when the plan has two runs or more."""
        return [column for column in COLUMNS if any(c == column for _, c in self.parts)]

    def width(self, measure: str, labels: float, *, estimand: str = "population", column: str = "mean") -> float:
        """The forecast width of ``measure``'s 95% intervals with ``labels`` labels (a count from 1
        to the pool's size), averaged over the runs (``column="mean"``) or the differences from the
        median run. Each run's width is at most the measure's range (1 for a mean, 2 for a
        difference): a wider interval says no more than the range."""
        self._check(measure, estimand, column)
        self._check_labels(labels)
        between, design, replicated = self.parts[(measure, column)]
        scale = _design_scale(labels, self.labels, self.pool)
        if estimand == "topics":  # the replicates' excess over the draws' spread is of second order
            excess = np.maximum(replicated - design, 0.0)
            widths = 2 * stats.norm.ppf(0.975) * np.sqrt((replicated - excess) * scale + excess * scale**2)
            widths = widths / np.sqrt(self.n_topics)
        else:
            design = design * scale
            widths = 2 * stats.t.ppf(0.975, self.n_topics - 1) * np.sqrt((between + design) / self.n_topics)
        return float(np.minimum(widths, 1.0 if column == "mean" else 2.0).mean())

    def labels_needed(self, measure: str, width: float, *, estimand: str = "population",
                      column: str = "mean") -> int | None:
        """The fewest labels whose forecast width of ``measure`` (``column``: ``"mean"`` or
        ``"difference"``) is at most ``width``; None when even every pool pair judged gives wider
        intervals (the topics themselves vary too much, for the population estimand)."""
        if not (isinstance(width, (int, float)) and width > 0):
            raise ValueError(f"'width' must be a positive number, got {width!r}")
        if self.width(measure, self.pool, estimand=estimand, column=column) > width:
            return None
        low, high = 1.0, float(self.pool)
        while high - low > 0.5:
            mid = (low + high) / 2
            low, high = (mid, high) if self.width(measure, mid, estimand=estimand, column=column) > width else (low, mid)
        return int(np.ceil(high))

    def _check_labels(self, labels: float) -> None:
        if isinstance(labels, bool) or not isinstance(labels, (int, float, np.integer, np.floating)) \
                or not 1 <= labels <= self.pool:
            raise ValueError(f"'labels' must be a number of labels from 1 to the pool's {self.pool} pairs (a count, "
                             f"not a share of the pool), got {labels!r}")

    def _check(self, measure: str, estimand: str, column: str) -> None:
        if measure not in self.measures:
            raise ValueError(f"unknown measure {measure!r}: the forecast has {self.measures}")
        if estimand not in ESTIMANDS or column not in COLUMNS:
            raise ValueError(f"'estimand' must be one of {list(ESTIMANDS)} and 'column' one of {list(COLUMNS)}, got "
                             f"{estimand!r} and {column!r}")
        if column not in self.columns:
            raise ValueError(f"'column': the plan has one run, so there is no {column!r} to forecast")

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def __str__(self) -> str:
        shown = self.table.assign(
            width=self.table["width"].map(lambda v: f"{v:.3f}"),
            coverage=[("not measured" if np.isnan(c) else f"{c:.1f}% at {int(b)}/topic")
                      for c, b in zip(self.table["coverage"], self.table["measured at"])],
            holds=self.table["holds"].map({True: "yes", False: "no"}))
        return (f"Forecast of {self.labels} labels ({self.labels / self.n_topics:.0f} per topic), "
                f"{self.n_draws} draws, simulated people (precision {self.people[0]:g}, miss {self.people[1]:g}):\n"
                + shown[["measure", "column", "estimand", "width", "coverage", "holds"]].to_string(index=False))

    def __repr__(self) -> str:
        return str(self)


def forecast_plan(plan: JudgingPlan, runs: Mapping[str, pd.DataFrame], labelled: np.ndarray, measures: list[str],
                  planned: list[bool], *, n_draws: int = 20, people: tuple[float, float] = PEOPLE,
                  rng: RngLike = None) -> Forecast:
    """The body of :meth:`JudgingPlan.forecast`: ``runs`` read, ``labelled`` which pool pairs the
    judge labelled, ``planned`` whether the plan was made for each measure."""
    generator = as_generator(rng)
    estimator = PlanEstimator(runs, plan.pool, measures, depth=plan.depth, labelled=labelled)
    if estimator.positions.example is not None:  # the runs' top depth must be in the pool
        raise_outside_pool(estimator.positions.outside, estimator.positions.example, plan.depth)
    simulated = simulate_people(plan.pool["auto_label"].to_numpy(np.int64), labelled, estimator.topic, people,
                                generator, votes=top_votes(estimator))
    values, shifts = _draws(plan, estimator, simulated, n_draws, generator)
    n_topics = len(estimator.qids)
    parts = {(label, column): (*_variances(values[:, m] @ w),  # the topics interval's SE, averaged over draws
                               n_topics * replicate_standard_error(shifts[:, m] @ w).mean(0) ** 2)
             for m, label in enumerate(measures) for column, w in zip(COLUMNS, _weights(values[:, m]))
             if w.shape[1]}  # no differences with one run
    result = Forecast(pd.DataFrame(), int(plan.budget), len(plan.pool), n_topics, parts, int(n_draws),
                      (float(people[0]), float(people[1])))
    rows = []
    for label, km, made_for in zip(measures, estimator.lowered, planned):
        for column, estimand in ((c, e) for c in result.columns for e in ESTIMANDS):
            found = measured_coverage(km, made_for, plan.budget / n_topics, estimand, column)
            rows.append({"measure": label, "column": column, "estimand": estimand,
                         "width": result.width(label, plan.budget, estimand=estimand, column=column),
                         "coverage": np.nan if found is None else found.coverage,
                         "measured at": np.nan if found is None else found.labels_per_topic,
                         "holds": bool(found is not None and found.holds)})
    return dataclasses.replace(result, table=pd.DataFrame(rows))


def simulate_people(auto: np.ndarray, labelled: np.ndarray, topic: np.ndarray, people: tuple[float, float],
                    rng: np.random.Generator, spread: float = TOPIC_SPREAD, votes: np.ndarray | None = None,
                    slope: float = CONSENSUS_SLOPE) -> np.ndarray:
    """People's grades of every pool pair (``topic``: each pair's topic code), simulated from the
    judge's (see the module docstring); ``spread`` 0 or below: the same precision and miss in
    every topic; ``votes`` (each pair's share of its topic's runs ranking it in their top 10,
    :func:`top_votes`) None: the same within a topic."""
    n_topics = int(topic.max(initial=-1)) + 1
    rates = []
    for mean in people:
        if spread <= 0 or mean in (0.0, 1.0):
            rates.append(np.full(n_topics, mean))
        else:
            rates.append(rng.beta(spread * mean, spread * (1 - mean), n_topics))
    relevant = auto > 0
    precision, miss = rates[0][topic], rates[1][topic]
    if votes is not None and slope != 0:
        kind = 2 * topic + relevant  # the judge's relevant and non-relevant pairs of each topic apart
        shown = relevant | labelled
        mean = (np.bincount(kind, weights=votes * shown, minlength=2 * n_topics)
                / np.maximum(np.bincount(kind, weights=shown, minlength=2 * n_topics), 1))
        shift = slope * (votes - mean[kind])
        precision, miss = _moved(precision, shift), _moved(miss, shift)
    positive = auto[relevant]
    grade = int(np.bincount(positive).argmax()) if len(positive) else 1  # the judge's most common grade
    draw = rng.random(len(auto))
    return np.where(relevant, np.where(draw < precision, auto, 0), np.where(labelled & (draw < miss), grade, 0))


def _moved(rate: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``rate`` with its log-odds moved by ``shift`` (a rate of 0 or 1 stays)."""
    inside = (rate > 0) & (rate < 1)
    safe = np.where(inside, rate, 0.5)
    return np.where(inside, special.expit(special.logit(safe) + shift), rate)


def top_votes(estimator: PlanEstimator) -> np.ndarray:
    """Each pool pair's share of the runs answering its topic that rank it in their top 10."""
    positions = estimator.positions
    top = positions.ranks <= 10
    answering = positions.runs_per_topic(len(estimator.qids))[estimator.topic]
    return np.bincount(positions.pairs[top], minlength=len(estimator.topic)) / answering


def _draws(plan: JudgingPlan, estimator: PlanEstimator, people: np.ndarray, n_draws: int,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic PPI estimates of ``n_draws`` redraws of the plan's sample, ``(draws, measures,
    topics, runs)``, and each draw's design replicates as ``ppi_evaluate(plan=, estimand="topics")``
    draws them (the sample, then the replicates, from ``rng``): their mean over the topics less the
    estimate's, ``(draws, measures, replicates, runs)``. The estimates are nDCG's without its bias
    correction (with simulated people it swings far at 10 labels per topic); the shifts are from
    the corrected estimate, as the topics interval's are."""
    pool = plan.pool
    pi, stratum = pool["inclusion_probability"].to_numpy(float), pool["stratum"].to_numpy(np.int64)
    take = np.bincount(stratum, weights=pool["sampled"]).astype(np.int64) if plan.design == "stratified" else None
    values, shifts = [], []
    for _ in range(n_draws):
        sampled = designs.draw(pi, stratum, plan.design, rng, take)
        draws = replicate_draws(rng, DEFAULT_REPLICATES, int(sampled.sum()))
        sample = _Sample(estimator, sampled, people[sampled], pi[sampled],
                         stratum[sampled] if take is not None else None, draws)
        values.append([sample.measure(km, "ppi", None, replicated=False)[0][0] for km in estimator.lowered])
        replicated = [sample.measure(km, "ppi", None)[0] for km in estimator.lowered]
        shifts.append([rows[1:].mean(1) - rows[0].mean(0) for rows in replicated])
    return np.array(values), np.array(shifts)


def _weights(values: np.ndarray) -> list[np.ndarray]:
    """``[means, differences]`` column weights (runs x columns); differences from the median run."""
    n_runs = values.shape[-1]
    ref = int(np.argsort(values.mean((0, 1)), kind="stable")[n_runs // 2])
    diff = np.eye(n_runs)[:, np.arange(n_runs) != ref]
    diff[ref] -= 1.0
    return [np.eye(n_runs), diff]


def _variances(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``(draws, topics, columns)`` values: the variance over the topics net of the
    document sampling's, and the document sampling's per topic (over the draws, averaged over topics)."""
    per_topic = columns.var(0, ddof=1).mean(0)
    return np.maximum(columns.var(1, ddof=1).mean(0) - per_topic, 0.0), per_topic


def _design_scale(labels: float, budget: float, pool: int) -> float:
    """How the document sampling's variance at ``budget`` labels scales to ``labels`` (``N/n - 1``)."""
    return (pool / labels - 1.0) / max(pool / budget - 1.0, 1e-12)
