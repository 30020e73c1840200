"""``judging_plan``: which pool pairs to give people, each with its known inclusion probability.

Automatic labels (an LLM's) cover the whole pool; people judge a random sample of pairs drawn with
recorded inclusion probabilities, so that a Horvitz-Thompson (1952) estimator, as in statAP (Aslam,
Pavlu & Yilmaz 2006) and infAP / xinfAP (Yilmaz, Kanoulas & Aslam 2008), can correct the automatic
scores without bias. See pt_docs/ppi.md ("Judging plans").
"""
from __future__ import annotations

import dataclasses
import numbers
import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._checks import check_choice
from .._random import DEFAULT_SEED, as_generator
from .._warnings import InputWarning, warn
from ..measures.lowering import NDCG, KernelMeasure
from . import designs
from .labels import (
    apply_label_map,
    check_label_map,
    compose_label_maps,
    scale_advice,
    unreached_measures,
)
from .pool import build_pool, fingerprint, ranked_pairs, read_auto_qrels, run_positions
from .sensitivity import measure_weights, plan_measures, reach, reads_judged_pairs

if TYPE_CHECKING:
    from .._typing import MeasuresLike, PathLike, QrelsLike, RngLike, RunsLike
    from ..ppi.forecast import Forecast

__all__ = ["JudgingPlan", "judging_plan", "raise_outside_pool", "share_in_pairs"]

#: the columns of :attr:`JudgingPlan.pool`
POOL_COLUMNS = ("qid", "docno", "rank", "auto_label", "stratum", "inclusion_probability", "sampled")


@dataclasses.dataclass(frozen=True, eq=False)
class JudgingPlan:
    """A judging plan: every pool pair's inclusion probability and the drawn sample.

    Build with :func:`judging_plan`; :meth:`save` and :meth:`load` keep it in a text file.

    Attributes:
        pool: one row per pool pair, sorted by ``qid, docno``: ``rank`` (best rank over the runs, 0
            for a pair in no run's top ``depth``), ``auto_label``, ``stratum`` (-1 under the Poisson
            design), ``inclusion_probability`` and ``sampled``.
        strategy, design, budget, depth, uniform_share: as given to :func:`judging_plan` (``budget``
            as a number of pairs: the sample size, or its expectation under the Poisson design).
        runs: the names of the runs the pool was made from.
        auto_fingerprint: SHA-256 of the automatic qrels as given (pairs, labels, probabilities),
            before ``label_map``.
        pool_fingerprint: SHA-256 of the pool's pairs.
        seed: the ``rng`` seed when it was an int or None (42), else None.
        label_map: the map from the automatic labels to the people's grades (``{1: 2}``: the
            judge's 1 is grade 2), applied to the pool's ``auto_label`` and to the automatic qrels
            the plan is given; None for none.
        unlabelled: how many pool pairs have no automatic label (they count as automatically
            non-relevant); None for a plan saved before it was recorded.
        measures: the measures the plan was made for (its pool and probabilities follow them), or
            None for a plan made without (the statAP weights over the runs' top ``depth``).
    """

    pool: pd.DataFrame
    strategy: str
    design: str
    budget: int
    depth: int
    uniform_share: float
    runs: tuple[str, ...]
    auto_fingerprint: str
    pool_fingerprint: str
    seed: int | None = None
    label_map: dict[int, int] | None = None
    unlabelled: int | None = None
    measures: tuple[str, ...] | None = None
    #: the runs read and which pool pairs the judge labelled, kept by judging_plan for forecast()
    _made_from: tuple | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def sample(self) -> pd.DataFrame:
        """The pairs to give people: ``qid, docno, inclusion_probability``, sorted by topic and docno
        (not by rank, so that assessors do not see which documents the runs liked)."""
        chosen = self.pool[self.pool["sampled"].to_numpy(bool)]
        return chosen[["qid", "docno", "inclusion_probability"]].reset_index(drop=True)

    def strata(self) -> pd.DataFrame:
        """Per stratum (design ``"stratified"``): ``stratum, qid, auto_labels`` (the automatic
        labels of its pairs, ``"0,2"`` for a merged stratum), ``N_h, n_h``."""
        if self.design != "stratified":
            raise ValueError(f"strata() needs design='stratified'; this plan's design is {self.design!r}")
        grouped = self.pool.groupby("stratum", sort=True)
        labels = grouped["auto_label"].agg(lambda v: ",".join(map(str, sorted(set(v)))))
        return pd.DataFrame({"qid": grouped["qid"].first(), "auto_labels": labels,
                             "N_h": grouped.size(), "n_h": grouped["sampled"].sum().astype(np.int64)}).reset_index()

    def check(self, runs: RunsLike, auto_qrels: QrelsLike) -> None:
        """Refuse, with a ValueError, automatic qrels other than the plan's, or runs whose top
        ``depth`` leaves the plan's pool (a subset of the plan's runs passes)."""
        from ..inputs.runs import read_runs

        auto = self.check_auto_qrels(auto_qrels)
        ranked = ranked_pairs(read_runs(runs), set(auto["qid"]), self.depth)
        pairs = pd.MultiIndex.from_frame(ranked[["qid", "docno"]])
        outside = ~pairs.isin(pd.MultiIndex.from_frame(self.pool[["qid", "docno"]]))
        if outside.any():
            raise_outside_pool(int(outside.sum()), pairs[np.flatnonzero(outside)[0]], self.depth)

    def check_auto_qrels(self, auto_qrels: QrelsLike) -> pd.DataFrame:
        """The automatic qrels read (:func:`read_auto_qrels`) and put on the people's scale by the
        plan's ``label_map``; a ValueError when they are not the qrels the plan was made from."""
        auto = read_auto_qrels(auto_qrels)
        if _auto_fingerprint(auto) != self.auto_fingerprint:
            raise ValueError("'auto_qrels' are not the automatic qrels this judging plan was made from (their "
                             "fingerprint of their pairs, labels and probabilities differs): use the plan's qrels, or "
                             f"make a new plan{self._relabelled_hint(auto)}")
        return apply_label_map(auto, self.label_map)

    def _relabelled_hint(self, auto: pd.DataFrame) -> str:
        """What to do when ``auto`` holds the plan's pairs with other labels (relabelled by hand)."""
        pairs = pd.MultiIndex.from_frame(auto[["qid", "docno"]].astype(str))
        if len(pairs) == 0 or not pairs.isin(pd.MultiIndex.from_frame(self.pool[["qid", "docno"]])).all():
            return ""
        return ("; if you changed their labels to put them on the people's scale, give them unchanged and let the "
                "plan map them: plan.map_labels({1: 2}) or ppi_evaluate(..., label_map={1: 2}) (command line: "
                "--label-map 1:2)")

    def map_labels(self, label_map: dict[int, int]) -> JudgingPlan:
        """This plan with its automatic labels put on the people's scale (``{1: 2}``: the judge's 1
        is grade 2; labels not named keep their value), after the draw: the sample and its
        inclusion probabilities stay as drawn, so labels people gave already stay valid. The map is
        recorded (after the plan's own, if any) and applied to the automatic qrels the plan is
        given, which must stay those it was made from."""
        mapped = check_label_map(label_map)
        if mapped is None:
            raise TypeError("'label_map' must map automatic labels to the people's grades, e.g. {1: 2}, got None")
        pool = apply_label_map(self.pool.rename(columns={"auto_label": "label"}), mapped)
        return dataclasses.replace(self, pool=pool.rename(columns={"label": "auto_label"}),
                                   label_map=compose_label_maps(self.label_map, mapped))

    def forecast(self, runs: RunsLike | None = None, auto_qrels: QrelsLike | None = None, *,
                 measures: MeasuresLike | None = None, n_draws: int = 20,
                 people: tuple[float, float] | None = None, rng: RngLike = None) -> Forecast:
        """Before anyone judges: the expected width of each measure's intervals (means and
        differences, both estimands), whether intervals held at this many labels per topic in our
        measurements, and :meth:`~pyterrier_boot.ppi.forecast.Forecast.labels_needed` for a target
        width. People's labels are simulated from the judge's (``people``: the chance that people
        call relevant a pair the judge called relevant, and one it called non-relevant; default
        what NIST's assessors did on TREC DL), the sample redrawn ``n_draws`` times and estimated
        as ``ppi_evaluate(plan=)`` does (:mod:`pyterrier_boot.ppi.forecast`).

        ``runs`` and ``auto_qrels``: those the plan was made from (kept by :func:`judging_plan`;
        give them for a plan read from a file). ``measures``: default the plan's own.

        Example:
            >>> import pyterrier_boot as pb
            >>> sim = pb.simulate_collection(n_topics=10, rng=1)
            >>> auto = pb.simulate_judge(sim.qrels, sim.runs, rng=2)
            >>> plan = pb.judging_plan(sim.runs, auto, 200, measures=["nDCG@10"], rng=3)
            >>> forecast = plan.forecast(n_draws=5)
            >>> forecast.labels_needed("nDCG@10", 0.5) <= 200
            True
        """
        from ..ppi.forecast import PEOPLE, forecast_plan

        runs, labelled = self._forecast_inputs(runs, auto_qrels)
        if measures is None and self.measures is None:
            raise ValueError("'measures': this plan was made without measures; name those to forecast")
        labels = list(self.measures or ()) if measures is None else [p.label for p in plan_measures(measures)[0]]
        if isinstance(n_draws, bool) or not isinstance(n_draws, numbers.Integral) or n_draws < 3:
            raise ValueError(f"'n_draws' must be an integer of at least 3, got {n_draws!r}")
        with warnings.catch_warnings():  # a measure the plan was not made for is said in the table
            warnings.simplefilter("ignore", InputWarning)
            planned = self.check_measures(plan_measures(labels)[1], labels)
        return forecast_plan(self, runs, labelled, labels, planned, n_draws=int(n_draws),
                             people=PEOPLE if people is None else _people(people), rng=rng)

    def _forecast_inputs(self, runs, auto_qrels) -> tuple:
        """The runs read and which pool pairs the judge labelled: given, or kept since the plan was made."""
        from ..inputs.runs import read_runs

        kept = self._made_from or (None, None)
        if (runs is None or auto_qrels is None) and self._made_from is None:
            raise ValueError("a plan read from a file keeps neither its runs nor its automatic qrels: give them, "
                             "plan.forecast(runs, auto_qrels)")
        read = kept[0] if runs is None else read_runs(runs)
        if auto_qrels is None:
            return read, kept[1]
        auto = self.check_auto_qrels(auto_qrels)
        pairs = pd.MultiIndex.from_frame(self.pool[["qid", "docno"]])
        return read, pairs.isin(pd.MultiIndex.from_frame(auto[["qid", "docno"]].astype(str)))

    def check_measures(self, lowered: list[KernelMeasure], labels: list[str]) -> list[bool]:
        """Per measure, whether the plan was made for it. A ValueError for a measure that reads pairs
        the plan's pool left out (deeper than its ``depth``, or a normaliser's pairs of a pool made
        for cutoff measures alone); one InputWarning for measures the plan was not made for."""
        if self.measures is None:
            return [False] * len(lowered)
        own = plan_measures(list(self.measures))[1]
        free, judged = any(km.cutoff == 0 for km in own), reads_judged_pairs(own)
        planned = [km in own for km in lowered]
        for km, label in zip(lowered, labels):
            deep = km.cutoff > self.depth or km.cutoff == 0 and not free
            if deep or reads_judged_pairs([km]) and not judged:
                left_out = f"ranks below {self.depth}" if deep else "the judged pairs its normaliser counts"
                raise ValueError(f"'measures': the judging plan was made for {', '.join(self.measures)}, and {label} "
                                 f"reads pairs its pool left out ({left_out}); make a plan with {label} among its "
                                 "measures")
        others = [label for label, done in zip(labels, planned) if not done]
        if others:
            warn(InputWarning(f"the judging plan was made for {', '.join(self.measures)}, not for {', '.join(others)}: "
                              "the estimates are unbiased, but the plan's probabilities follow its own measures and "
                              "the flags read the coverage measured for plans not made for the measure"))
        return planned

    def sampled_labels(self, human_qrels: QrelsLike) -> tuple[np.ndarray, np.ndarray]:
        """``(grades, labelled)``: the human grade of every sampled pair, in pool order (0 where
        ``labelled`` is False: not labelled yet; any grade, negative ones included, counts as a label).

        A ValueError for labels of pairs the plan did not sample (a label chosen after seeing the
        scores would bias every estimate), or a frame's ``inclusion_probability`` column differing
        from the plan's (labels of another plan)."""
        from ..inputs.qrels import read_qrels

        human = read_qrels(human_qrels).frame
        sample = self.pool[self.pool["sampled"].to_numpy(bool)]
        wanted = pd.MultiIndex.from_frame(sample[["qid", "docno"]])
        given = pd.MultiIndex.from_frame(human[["qid", "docno"]].astype(str))
        outside = ~given.isin(wanted)
        if outside.any():
            qid, docno = given[np.flatnonzero(outside)[0]]
            raise ValueError(f"'human_qrels' labels {int(outside.sum())} pair(s) the judging plan did not sample "
                             f"(e.g. topic {qid!r}, document {docno!r}): the estimates need exactly the plan's "
                             "sample; drop the other labels (a label chosen after seeing the scores would bias "
                             "every estimate)")
        if isinstance(human_qrels, pd.DataFrame) and "inclusion_probability" in human_qrels.columns:
            _check_probabilities(human_qrels, human, sample)
        position = given.get_indexer(wanted)
        labelled = position >= 0
        grades = np.where(labelled, human["label"].to_numpy(np.int64)[np.maximum(position, 0)], 0)
        return grades, labelled

    def save(self, path: PathLike) -> None:
        """Write the plan to a text file (:mod:`pyterrier_boot.judging.storage`)."""
        from .storage import save_plan

        save_plan(self, path)

    @classmethod
    def load(cls, path: PathLike) -> JudgingPlan:
        """Read a plan written by :meth:`save`; a ValueError when the file was changed since."""
        from .storage import load_plan

        return load_plan(path)

    def describe_design(self) -> str:
        """The design in words; for a stratified one, its strata and whether small ones were merged."""
        full = designs.strata(self.pool, self.depth)
        before = int(full.max()) + 1
        if self.design != "stratified":
            if self.strategy != "stratified" or designs.strata_fit(full, self.budget):
                return f"{self.design} design"
            return (f"poisson design: the {before} strata of topic x automatic label x rank band would take "
                    f"{int(np.minimum(2, np.bincount(full)).sum())} pairs, two each, more than half of the budget")
        strata = int(self.pool["stratum"].max()) + 1
        merged = f", merged from the {before} of topic x automatic label x rank band to give each two pairs" \
            if strata < before else ""
        return f"stratified design, {strata} strata{merged}"

    def __repr__(self) -> str:
        unlabelled = "" if self.unlabelled is None else f" ({self.unlabelled} without an automatic label)"
        mapped = "" if not self.label_map else f", label_map={self.label_map}"
        mapped += "" if self.measures is None else f", measures={list(self.measures)}"
        return (f"JudgingPlan(strategy={self.strategy!r}, design={self.design!r} ({self.describe_design()}), "
                f"budget={self.budget}, "
                f"{int(self.pool['sampled'].sum())} sampled of {len(self.pool)} pool pairs{unlabelled}, "
                f"{self.pool['qid'].nunique()} topics, depth={self.depth}{mapped})")


def raise_outside_pool(count: int, example: tuple, depth: int) -> None:
    """The ValueError for runs whose top ``depth`` leaves a plan's pool."""
    qid, docno = example
    raise ValueError(f"'runs' are not the runs this judging plan was made for: {count} of their top-{depth} pairs "
                     f"are outside the plan's pool (e.g. topic {qid!r}, document {docno!r}); make a new plan for "
                     "these runs")


def _check_probabilities(source: pd.DataFrame, human: pd.DataFrame, sample: pd.DataFrame) -> None:
    given = pd.Series(pd.to_numeric(source["inclusion_probability"], errors="coerce").to_numpy(float),
                      index=pd.MultiIndex.from_frame(human[["qid", "docno"]].astype(str)))
    planned = sample.set_index(["qid", "docno"])["inclusion_probability"].reindex(given.index)  # labelled pairs
    differ = ~np.isclose(given.to_numpy(), planned.to_numpy(), rtol=1e-9, atol=0)
    if differ.any():
        qid, docno = given.index[np.flatnonzero(differ)[0]]
        raise ValueError(f"'human_qrels' column 'inclusion_probability' differs from the judging plan's for "
                         f"{int(differ.sum())} pair(s) (e.g. topic {qid!r}, document {docno!r}): the labels belong "
                         "to another plan, or the plan was changed")


def _auto_fingerprint(auto: pd.DataFrame) -> str:
    ordered = auto.sort_values(["qid", "docno"], kind="stable")
    return fingerprint(ordered["qid"], ordered["docno"], ordered["label"], ordered["probability"].map(repr))


def share_in_pairs(share: float, size: int) -> int:
    """A share of a pool of ``size`` pairs as a number of pairs: ``budget=0.1`` of 53,345 pairs is
    5,334 (rounded), and that is what a budget of 10% means wherever a share is compared."""
    return max(1, int(round(float(share) * size)))


def _budget(budget, size: int) -> int:
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real):
        raise TypeError(f"'budget' must be a number of pairs (an int) or a fraction of the pool in (0, 1], "
                        f"got {type(budget).__name__}")
    if isinstance(budget, numbers.Integral):
        n = int(budget)
    elif 0 < float(budget) <= 1:
        n = share_in_pairs(float(budget), size)
    else:
        raise ValueError(f"'budget' as a float is a fraction of the pool in (0, 1], got {budget!r}; "
                         "give a number of pairs as an int")
    if n < 1:
        raise ValueError(f"'budget' must be at least 1 pair, got {budget!r}")
    if n > size:
        raise ValueError(f"'budget' {n} is larger than the pool: {size} pairs (topics x documents in the runs' "
                         "top 'depth' and the automatic qrels)")
    return n


def _check_options(strategy, design, depth, uniform_share) -> tuple[str, bool]:
    """The design, and whether it is the default (which adapts to a small budget)."""
    check_choice(strategy, "strategy", designs.STRATEGIES)
    default = design is None
    if design is None:
        design = "stratified" if strategy == "stratified" else "poisson"
    check_choice(design, "design", designs.DESIGNS)
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1):
        raise ValueError(f"'depth' must be a positive integer, got {depth!r}")
    if isinstance(uniform_share, bool) or not isinstance(uniform_share, numbers.Real) or not 0 < float(uniform_share) <= 1:
        raise ValueError(f"'uniform_share' must be in (0, 1] (every pair keeps a positive probability), "
                         f"got {uniform_share!r}")
    return design, default


def judging_plan(runs: RunsLike, auto_qrels: QrelsLike, budget: float, *, measures: MeasuresLike | None = None,
                 strategy: str = "stratified", design: str | None = None, depth: int | None = None,
                 uniform_share: float = 0.2, label_map: dict[int, int] | None = None,
                 rng: RngLike = None) -> JudgingPlan:
    """Draw the pairs people should judge from the pool of ``runs`` and ``auto_qrels``
    (``pt_docs/ppi.md``, "Judging plans").

    Args:
        runs: the runs to evaluate (files, a folder, frames, a dict; as :func:`read_runs`).
        auto_qrels: automatic labels of the pool (an LLM's), as :func:`read_qrels` reads them; a frame
            may carry the judge's probability of relevance (``probability`` or ``score``, in [0, 1]).
        budget: pairs people can judge: an int, or a float in (0, 1] for a fraction of the pool.
        measures: the measures the labels will serve (AP, nDCG, P, R, RR, Rprec, Success): the pool
            keeps the pairs they read, the probabilities follow their sensitivity to a label at each
            rank, their ``rel`` is checked against the automatic labels; recorded in the plan.
        strategy: ``"uniform"``, ``"stratified"`` (the default: statAP's rank weights, or the
            measures') or ``"active"`` (those weights times the judge's uncertainty ``sqrt(p (1 - p))``).
        design: ``"poisson"`` (independent draws) or ``"stratified"`` (a fixed number per topic x
            automatic label x rank band; when two pairs in each would take more than half of the
            budget, the smallest strata are merged); default ``"stratified"`` for
            ``strategy="stratified"`` (``"poisson"`` when two pairs per stratum would take more than
            half of the budget: it covers better there than merged strata), else ``"poisson"``.
        depth: the runs' top ``depth`` documents enter the pool (default 100; with ``measures``,
            their deepest cutoff, or 100 for a measure without one).
        uniform_share: the budget's share spread uniformly over the pool: every pair keeps a
            probability of at least ``uniform_share * budget / N``.
        label_map: the people's grade of each automatic label (``{1: 2}``: a 0/1 judge's 1 is grade
            2), recorded and applied to the automatic qrels the plan is given. Without it, 0/1
            automatic labels get one InputWarning.
        rng: SPEC 7 seed or Generator; None is the fixed seed 42.

    Returns:
        A :class:`JudgingPlan`; ``plan.sample`` is the frame of pairs to judge.

    Raises:
        ValueError: a budget larger than the pool or below what the design needs, an unknown strategy
            or design, ``"active"`` without probabilities, runs sharing no topic with the qrels,
            measures the plan cannot serve.

    Example:
        >>> import pyterrier_boot as pb
        >>> coll = pb.simulate_collection(n_topics=5, rng=1)
        >>> auto = pb.simulate_judge(coll.qrels, coll.runs, rng=2)
        >>> plan = pb.judging_plan(coll.runs, auto, 0.1, rng=3)
        >>> abs(plan.pool["inclusion_probability"].sum() - plan.budget) < 1e-6
        True
    """
    design, adaptive = _check_options(strategy, design, depth, uniform_share)
    return _make_plan(runs, auto_qrels, budget, measures, strategy, design, adaptive, depth, float(uniform_share),
                      check_label_map(label_map), rng)


def _make_plan(runs, auto_qrels, budget, measures, strategy: str, design: str, adaptive: bool, depth: int | None,
               uniform_share: float, label_map: dict[int, int] | None, rng) -> JudgingPlan:
    """The steps of :func:`judging_plan`, its options checked."""
    from ..inputs.runs import read_runs

    runs = read_runs(runs)
    given = read_auto_qrels(auto_qrels)
    auto = apply_label_map(given, label_map)
    _check_topics(runs, auto)
    labels, lowered, depth = _measures_and_depth(measures, depth, runs)
    _check_scale(auto, label_map, labels, lowered)
    pool = _measure_pool(runs, auto, depth, lowered)
    n = _budget(budget, len(pool))
    _check_per_topic(n, pool)
    targets = designs.target_probabilities(designs.strategy_weights(pool, strategy), n, uniform_share)
    design, stratum, probability, sampled = _draw(pool, targets, n, design, adaptive, depth, as_generator(rng))
    frame = pool[["qid", "docno", "rank", "auto_label"]].assign(
        stratum=stratum, inclusion_probability=probability, sampled=sampled)
    return JudgingPlan(frame, strategy, design, n, depth, uniform_share, tuple(runs), _auto_fingerprint(given),
                       fingerprint(frame["qid"], frame["docno"]), _seed(rng), label_map,
                       int((~pool["auto_labelled"]).sum()), None if labels is None else tuple(labels),
                       _made_from=(runs, pool["auto_labelled"].to_numpy()))


def _measures_and_depth(measures, depth: int | None, runs) -> tuple[list[str] | None, list, int]:
    """The measures' labels and lowered forms (None and [] without measures) and the pool's depth;
    a ValueError for a ``depth`` shallower than a measure's cutoff, one InputWarning for a cutoff
    deeper than every run's ranking."""
    if measures is None:
        return None, [], 100 if depth is None else int(depth)
    parsed, lowered = plan_measures(measures)
    deep = [(p.label, km.cutoff) for p, km in zip(parsed, lowered) if depth is not None and km.cutoff > depth]
    if deep:
        raise ValueError(f"'measures' {deep[0][0]} reads the runs' top {deep[0][1]} but depth={depth} keeps only "
                         f"their top {depth} in the pool: raise 'depth' or leave it out (it then follows the measures)")
    longest = max((int(run.groupby("qid").size().max()) for run in runs.values() if len(run)), default=0)
    beyond = [p.label for p, km in zip(parsed, lowered) if km.cutoff > longest]
    if beyond:
        warn(InputWarning(f"'measures' {', '.join(beyond)} read deeper than any run ranks (at most {longest} "
                          "documents a topic): the ranks past the end count as non-relevant, as in trec_eval"))
    return [p.label for p in parsed], lowered, reach(lowered, 100 if depth is None else int(depth))


def _measure_pool(runs, auto: pd.DataFrame, depth: int, lowered: list) -> pd.DataFrame:
    """The pool; with measures, what they read, its ``prior`` their sensitivity weights."""
    if not lowered:
        return build_pool(runs, auto, depth)
    pool = build_pool(runs, auto, depth, judged=reads_judged_pairs(lowered))
    return pool.assign(prior=measure_weights(pool, run_positions(runs, pool, depth), lowered, depth))


def _people(people) -> tuple[float, float]:
    """``people`` as two probabilities in [0, 1]; a ValueError naming it otherwise."""
    try:
        precision, miss = (float(v) for v in people)
    except (TypeError, ValueError):
        raise ValueError(f"'people' must be two probabilities (precision, miss), got {people!r}") from None
    if not (0 <= precision <= 1 and 0 <= miss <= 1):
        raise ValueError(f"'people' must be two probabilities in [0, 1], got {people!r}")
    return precision, miss


def _check_per_topic(n: int, pool: pd.DataFrame) -> None:
    """One InputWarning for a budget under one pair per topic."""
    topics = pool["qid"].nunique()
    if n < topics:
        warn(InputWarning(f"'budget' {n} is under one pair per topic ({topics} topics): topics without a human label "
                          "are estimated from the automatic labels and the few labels elsewhere, such intervals were "
                          "not measured (the table starts at 10 labels per topic), and the default design is then "
                          "Poisson; give at least one pair per topic"))


def _draw(pool: pd.DataFrame, targets: np.ndarray, n: int, design: str, adaptive: bool, depth: int,
          generator: np.random.Generator) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """``(design, stratum, inclusion probability, sampled)``: the default design falls back to Poisson
    when the strata's two pairs each would take more than half of the budget (the plan's repr says
    so); an explicit stratified design then merges its smallest strata, refused when even one
    stratum per topic needs more than the budget."""
    if design == "stratified" and not (adaptive and not designs.strata_fit(designs.strata(pool, depth), n)):
        stratum = designs.merge_strata(pool, depth, targets, n)
        if stratum is None:
            raise ValueError(f"'budget' {n} is below what design='stratified' needs: {designs.topic_minimum(pool)} "
                             "pairs, two in each topic (one in a topic of a single pair) so that every stratum's "
                             "variance can be estimated; raise the budget or use design='poisson'")
        take = designs.allocate(targets, stratum, n)
        probability = (take / np.bincount(stratum))[stratum]
        return design, stratum, probability, designs.draw(probability, stratum, design, generator, take)
    stratum = np.full(len(pool), -1, np.int64)
    return "poisson", stratum, targets, designs.draw(targets, stratum, "poisson", generator)


def _check_scale(auto: pd.DataFrame, label_map: dict[int, int] | None, labels, lowered) -> None:
    """A ValueError for measures whose ``rel`` no automatic label reaches; without measures, one
    InputWarning for 0/1 automatic labels without a label map (the plan cannot tell whether people
    grade on the same scale, and measures with ``rel=2`` would find nothing relevant)."""
    top = int(auto["label"].max()) if len(auto) else 0
    if labels is not None:
        unreached = unreached_measures([la for la, km in zip(labels, lowered) if km.kind != NDCG],
                                       [km.rel for km in lowered if km.kind != NDCG], top)
        if unreached:
            raise ValueError(f"'measures': {scale_advice(top, unreached)}")
    elif label_map is None and top == 1:
        warn(InputWarning(
            "the automatic labels are 0/1: if people grade on a wider scale (TREC DL: 0-3, relevant from 2), no "
            "automatic label counts as relevant for measures with rel=2 and they correct nothing; put them on the "
            "people's scale now with label_map={1: 2} (command line: --label-map 1:2), or give label_map={1: 1} "
            "to keep 0/1"))


def _seed(rng) -> int | None:
    if rng is None:
        return DEFAULT_SEED
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return int(rng)
    return None


def _check_topics(runs, auto: pd.DataFrame) -> None:
    from ..inputs.overlap import check_topic_overlap

    check_topic_overlap({name: run["qid"].unique() for name, run in runs.items()}, auto["qid"].unique(),
                        missing=False)
