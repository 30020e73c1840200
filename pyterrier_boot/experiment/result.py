"""What ``experiment_result(...)`` returns, and the tables built from it."""
from __future__ import annotations

import builtins
import os
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._archive import ArrayWriter, json_value, open_archive, write_archive
from .._memory import DEFAULT_MAX_MEMORY
from .._warnings import DegenerateWarning, InputWarning, suppressed
from ..stats.comparison import compare
from ..stats.letters import DEFAULT_METHOD as DEFAULT_LETTERS
from .archive import FORMAT, VERSION, decode_fields, encode_fields
from .pairwise import PairwiseTable

if TYPE_CHECKING:
    import zipfile
    from collections.abc import Callable, Sequence
    from concurrent.futures import Executor
    from typing import Any

    from matplotlib.axes import Axes

    from .._typing import FloatArray, MeasureLike, MeasuresLike, RngLike
    from ..corpus.result import CorpusBootstrapResult
    from ..seeds.scores import RunScores
    from ..stats.resampling import ResamplePlan, SignFlipPlan
    from .display import ResultTable

#: The functions that draw a result, by the name of the :class:`ExperimentResult` method that
#: calls them (``"display"``: :func:`~pyterrier_boot.experiment.display.result_table`, ``"plot_means"``:
#: :func:`pyterrier_boot.plotting.plot_means`, ...). The modules that draw a result import it; it
#: imports none of them: the package (``pyterrier_boot/experiment/__init__.py``) fills this table
#: when it is imported, before any result exists.
VIEWS: dict[str, Callable[..., Any]] = {}


@dataclass(frozen=True, eq=False)
class Comparisons:
    """Each system against each baseline, per measure, with pt.Experiment's test semantics.

    Attributes:
        names: system names; measures: measure labels.
        system_index, baseline_index: the compared pair ``(system, baseline)`` of each row.
        frame: long table ``measure, name, baseline, +, -, diff, effect size, p-value``
            (+ ``p-value corrected``, ``reject`` when correcting), one row per (pair, measure).
        intervals: ``[pair, measure, 2]`` bootstrap interval of each mean difference, or None.
        distribution: ``[replicate, pair, measure]`` bootstrap differences, or None.
    """

    names: tuple
    measures: tuple
    system_index: np.ndarray
    baseline_index: np.ndarray
    frame: pd.DataFrame
    correction: str | None
    intervals: np.ndarray | None = None
    distribution: np.ndarray | None = None

    @classmethod
    def build(cls, values: FloatArray, names: Sequence[str], baselines: Any,
              measures: MeasuresLike, *, test: str, plan: ResamplePlan | SignFlipPlan | None, rng: RngLike, correction: str | None,
              correction_alpha: float, confidence_level: float = 0.95,
              bootstrap: str | None = None, interval: str | None = None, corpus: Any = None,
              max_memory: int | str | None = DEFAULT_MAX_MEMORY, executor: Executor | None = None,
              run_scores: RunScores | None = None) -> Comparisons:
        """The tests and, with a bootstrap, the interval each one inverts (see
        :func:`~pyterrier_boot.experiment.uncertainty.matched_intervals`): topic tests with their own
        intervals, or with the corpus bootstrap the replicate test of the shown interval, or with
        ``run_scores`` (``seeds="random"``) the t test with seed variance and its interval
        (:func:`~pyterrier_boot.seeds.comparison.with_seed_tests`)."""
        from ..stats.comparison import interval_alpha
        from ..stats.correction import canonical
        from ..stats.inversion import alpha_of
        from .uncertainty import matched_intervals

        scores = {m: pd.DataFrame(values[:, :, j].T, columns=list(names)) for j, m in enumerate(measures)}
        family = canonical(correction) if correction is not None else None
        alpha = correction_alpha if correction is not None else alpha_of(confidence_level)
        # with the corpus bootstrap the topic test's interval is replaced below: its warnings do not apply
        with suppressed(DegenerateWarning if bootstrap in ("corpus", "both") else None):
            # the correction itself is statsmodels' below (any spelling pt accepts); compare only
            # needs it to put each interval at the level that matches the verdict
            table = compare(scores, baseline=[names[b] for b in baselines], test=test, correction=family,
                            alpha=alpha, plan=plan if test == "paired_bootstrap" else None, rng=rng,
                            max_memory=max_memory, executor=executor)
        index = {n: i for i, n in enumerate(names)}
        system_index = np.array([index[n] for n in table["system_a"][table["measure"] == measures[0]]])
        baseline_index = np.array([index[n] for n in table["system_b"][table["measure"] == measures[0]]])
        frame = pd.DataFrame({
            "measure": table["measure"], "name": table["system_a"], "baseline": table["system_b"],
            "+": table["wins"].astype(int), "-": table["losses"].astype(int), "diff": table["difference"],
            "effect size": table["effect_size"], "p-value": table["p-value"],
            "ci_low": table["ci_low"], "ci_high": table["ci_high"],
        }).reset_index(drop=True)
        P, M = len(system_index), len(measures)
        intervals = np.stack([frame["ci_low"].to_numpy(float).reshape(M, P).T,
                              frame["ci_high"].to_numpy(float).reshape(M, P).T], axis=-1)
        distribution = None
        if bootstrap in ("corpus", "both"):
            ci_alpha, inclusive = interval_alpha(alpha, family, P)
            frame, intervals, distribution = matched_intervals(
                frame, values, system_index, baseline_index, bootstrap=bootstrap, interval=interval, plan=plan,
                corpus=corpus, alpha=ci_alpha, inclusive=inclusive)
        if run_scores is not None:
            from ..seeds.comparison import with_seed_tests

            frame, intervals = with_seed_tests(frame, run_scores, system_index, baseline_index,
                                               alpha=interval_alpha(alpha, family, P)[0])
        if correction is not None:
            frame = _pt_corrected(frame, measures, correction, correction_alpha)
        return cls(tuple(names), tuple(measures), system_index, baseline_index, frame, correction,
                   intervals if bootstrap is not None else None, distribution)

    def rejects(self, alpha: float) -> np.ndarray:
        """Each row's verdict: the corrected ``reject`` column when a correction was made, else
        ``p-value < alpha`` (the experiment's level is ``1 - confidence_level``)."""
        if "reject" in self.frame:
            return self.frame["reject"].to_numpy(bool)
        return self.frame["p-value"].to_numpy(float) < alpha

    def with_intervals(self, intervals: FloatArray | None, distribution: FloatArray | None) -> Comparisons:
        return replace(self, intervals=intervals, distribution=distribution)

    def bounded(self, bounds: tuple | None) -> Comparisons:
        """The comparisons with their difference intervals kept inside ``[lo - hi, hi - lo]`` of each
        measure's range ``bounds`` (:func:`unit_bounds`; the verdicts are unchanged: 0 is inside)."""
        if bounds is None or self.intervals is None:
            return self
        from .._bounds import clipped, difference_bounds

        intervals = np.stack(clipped(self.intervals[..., 0], self.intervals[..., 1], difference_bounds(bounds)),
                             axis=-1)
        frame = self.frame.copy()
        frame["ci_low"] = intervals[..., 0].T.reshape(-1)  # frame rows: measure-major
        frame["ci_high"] = intervals[..., 1].T.reshape(-1)
        return replace(self, frame=frame, intervals=intervals)


@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """Everything an experiment measured: per-topic values, intervals, comparisons.

    Attributes:
        names, qids, measures: labels of the systems, (judged) topics and measures.
        summed: per measure, whether it is summed over topics (NumRet, ...) rather than averaged.
        unit: per measure, whether its values lie in [0, 1] (AP, nDCG, P@k, RR, ...): its intervals
            are kept inside it, those of differences inside [-1, 1] (``pt_docs/statistics.md``,
            "Intervals near the ends of the range"); empty for results saved without it.
        values: per-topic values ``[system, topic, measure]``.
        bootstrap, interval, confidence_level: how intervals were made (bootstrap None: none).
        intervals: ``[system, measure, 2]`` interval of each mean.
        distribution_: ``[replicate, system, measure]`` bootstrap distribution of the means.
        corpus: the :class:`~pyterrier_boot.corpus.result.CorpusBootstrapResult` when the corpus
            bootstrap ran.
        comparisons: :class:`Comparisons` against the baseline(s), or None.
        mrt: mean response time per system (milliseconds per topic), when asked for.
        round: ``round`` as given to ``Experiment``.
        topics: qids of the topics given, when given (per-query output backfills the unjudged).
        plan: the topic-resample plan (:class:`~pyterrier_boot.ResamplePlan`) the intervals used.
        provenance: what produced the result (test, correction and its alpha, baselines,
            resample count, corpus model and size, the rng's seed or state, package versions).
        seeds: with systems given as several runs, ``"random"`` (intervals and tests include the
            seed variance) or ``"fixed"`` (these runs' average); None with one run per system.
        run_scores: every run's per-topic values grouped into systems
            (:class:`~pyterrier_boot.seeds.scores.RunScores`), with ``seeds``; ``values`` are their
            per-system means over runs.
    """

    names: tuple
    qids: tuple
    measures: tuple
    summed: tuple
    values: np.ndarray
    bootstrap: str | None
    interval: str | None
    confidence_level: float
    intervals: np.ndarray | None
    distribution_: np.ndarray | None
    corpus: CorpusBootstrapResult | None
    comparisons: Comparisons | None
    mrt: dict | None
    round: object = None
    topics: tuple | None = None
    plan: ResamplePlan | None = None
    provenance: dict | None = None
    unit: tuple = ()
    seeds: str | None = None
    run_scores: RunScores | None = None

    # ------------------------------------------------------------ summaries

    @property
    def means(self) -> FloatArray:
        """Aggregate of each system over topics ``[system, measure]`` (sum for summed measures)."""
        out = self.values.mean(axis=1)
        summed = np.array(self.summed, dtype=bool)
        if summed.any():
            out[:, summed] = self.values[:, :, summed].sum(axis=1)
        return out

    def _round(self, label, value, round):
        if round is None:
            return value
        digits = round if isinstance(round, int) else round.get(label)
        if digits is None:
            return value
        return np.round(value, digits) if isinstance(value, np.ndarray) else builtins.round(value, digits)

    @property
    def seeds_label(self) -> str:
        """``" (seeds random)"``, ``" (seeds fixed)"`` or ``""``: what the interval and test columns of
        :meth:`table` end with, saying whether they include the seed variance."""
        return "" if self.seeds is None else f" (seeds {self.seeds})"

    def table(self, *, highlight: Any = None, round: int | None = None) -> Any:
        """The ``pt.Experiment``-style table (a Styler when ``highlight`` is ``"bold"``/``"color"``).

        Its columns are in the order of ``pt.boot.Experiment``'s table: ``name``, the means (and
        ``mrt``); against each baseline ``pt.Experiment``'s test columns per measure (``"<m> +"``,
        ``"<m> -"``, ``"<m> p-value"``, ``"<m> reject"``, ``"<m> p-value corrected"``); the intervals
        of the means per measure (``"<m> ci_low"``, ``"<m> ci_high"``); then against each baseline the
        differences per measure (``"<m> diff"``, ``"<m> diff ci_low"``, ``"<m> diff ci_high"``,
        ``"<m> effect size"``). With several baselines the comparison columns end in ``" vs <b>"``; with
        systems given as several runs the interval and test columns in :attr:`seeds_label` before that
        (``"nDCG@10 ci_low (seeds random)"``)."""
        round = self.round if round is None else round
        columns = {"name": list(self.names)}
        direction = {}
        means = self.means
        for j, m in enumerate(self.measures):
            columns[m] = self._round(m, means[:, j], round)
            direction[m] = "+"
        if self.mrt is not None:
            columns["mrt"] = [self.mrt[n] for n in self.names]
            direction["mrt"] = "-"
        if self.comparisons is not None:
            columns.update(self._baseline_columns(direction, round, tests=True))
        if self.intervals is not None:
            for j, m in enumerate(self.measures):
                columns[f"{m} ci_low{self.seeds_label}"] = self._round(m, self.intervals[:, j, 0], round)
                columns[f"{m} ci_high{self.seeds_label}"] = self._round(m, self.intervals[:, j, 1], round)
        if self.comparisons is not None:
            columns.update(self._baseline_columns(direction, round, tests=False))
        frame = pd.DataFrame(columns)
        if highlight in ("bold", "color", "colour"):
            return _highlighted(frame, direction, highlight)
        return frame

    def _baseline_columns(self, direction, round, *, tests):
        """Against each baseline, per measure: the test columns (``tests``) or the differences."""
        comp = self.comparisons
        several = len(set(comp.baseline_index.tolist())) > 1
        columns = {}
        for b in dict.fromkeys(comp.baseline_index.tolist()):
            suffix = f" vs {self.names[b]}" if several else ""
            for j, m in enumerate(self.measures):
                rows = comp.frame[(comp.frame["measure"] == m) & (comp.frame["baseline"] == self.names[b])]
                rows = rows.set_index("name")

                def column(key, rows=rows):
                    return np.array([rows.loc[n, key] if n in rows.index else None for n in self.names], dtype=object)

                if tests:
                    columns.update(self._test_columns(m, self.seeds_label + suffix, column, comp.correction is not None,
                                                      direction, plus=suffix))
                    continue
                by_name = {self.names[comp.system_index[p]]: p for p in np.flatnonzero(comp.baseline_index == b)}
                columns[f"{m} diff{suffix}"] = self._round(m, column("diff").astype(float), round)
                direction[f"{m} diff{suffix}"] = "+"
                if comp.intervals is not None:
                    for k, side in enumerate(("ci_low", "ci_high")):
                        columns[f"{m} diff {side}{self.seeds_label}{suffix}"] = self._round(m, np.array(
                            [comp.intervals[by_name[n], j, k] if n in by_name else np.nan for n in self.names]), round)
                columns[f"{m} effect size{suffix}"] = column("effect size").astype(float)
        return columns

    @staticmethod
    def _test_columns(m, suffix, column, corrected, direction, *, plus):
        """``pt.Experiment``'s columns of one measure's test against a baseline (NaN for the baseline);
        ``suffix`` ends the test's columns, ``plus`` the counts of wins and losses."""
        columns = {f"{m} +{plus}": column("+").astype(float), f"{m} -{plus}": column("-").astype(float),
                   f"{m} p-value{suffix}": column("p-value").astype(float)}
        direction[f"{m} +{plus}"], direction[f"{m} -{plus}"] = "+", "-"
        if corrected:
            columns[f"{m} reject{suffix}"] = [bool(v) if v is not None else False for v in column("reject")]
            columns[f"{m} p-value corrected{suffix}"] = column("p-value corrected").astype(float)
        return columns

    def per_query(self) -> pd.DataFrame:
        """Long table ``name, qid, measure, value`` as ``pt.Experiment(perquery=True)``; with the
        corpus bootstrap also ``ci_low``, ``ci_high`` (per-topic corpus-bootstrap intervals)."""
        S, Q, M = self.values.shape
        frame = pd.DataFrame({
            "name": np.repeat(np.array(self.names, dtype=object), Q * M),
            "qid": np.tile(np.repeat(np.array(self.qids, dtype=object), M), S),
            "measure": np.tile(np.array(self.measures, dtype=object), S * Q),
            "value": self.values.reshape(-1),
        })
        if self.corpus is not None:
            method = self.interval if self.interval in ("percentile", "normal", "logit", "bca") else "percentile"
            topics = self.corpus.per_topic(method=method, confidence_level=self.confidence_level)
            frame["ci_low"] = topics["ci_low"].to_numpy()
            frame["ci_high"] = topics["ci_high"].to_numpy()
        if self.topics is not None:
            unjudged = [q for q in dict.fromkeys(self.topics) if q not in set(self.qids)]
            if unjudged:
                warnings.warn(f"{len(unjudged)} topic(s) not found in qrels. Scores for these topics are given as "
                              "NaN and should not contribute to averages.", InputWarning, stacklevel=2)
                frame = pd.concat([frame, pd.DataFrame({
                    "name": np.repeat(np.array(self.names, dtype=object), len(unjudged) * M),
                    "qid": np.tile(np.repeat(np.array(unjudged, dtype=object), M), S),
                    "measure": np.tile(np.array(self.measures, dtype=object), S * len(unjudged)),
                    "value": np.nan,
                })], ignore_index=True)
        frame = frame.sort_values(["name", "qid"], kind="stable").reset_index(drop=True)
        if isinstance(self.round, int):
            frame["value"] = frame["value"].round(self.round)
        return frame

    def pairwise(self, *, test: str = "t", correction: str | None = "holm", alpha: float = 0.05,
                 n_resamples: int = 10_000, rng: RngLike = None,
                 max_memory: int | str | None = DEFAULT_MAX_MEMORY,
                 executor: Executor | None = None) -> PairwiseTable:
        """All pairs of systems on every measure (:func:`pyterrier_boot.compare` with ``test``,
        ``correction``, ``alpha``, ``n_resamples``, ``rng``, ``max_memory`` and ``executor``). Each row's ``ci_low``/``ci_high`` is the
        interval its verdict inverts: the test's own interval (topic bootstrap or none), or with the
        corpus bootstrap (``"corpus"``/``"both"``) the experiment's replicate interval of the
        difference, and ``p-value`` (then ``statistic`` is NaN) is the replicate test that inverts it
        (:func:`~pyterrier_boot.experiment.uncertainty.replicate_test`), so the verdict includes the
        same corpus variance as the interval; under ``seeds="random"`` both are the t test with seed
        variance (``test="t"`` only; a ``df`` column). With fewer than 2 topics every pair gets its
        difference with NaN p-values and intervals, as :meth:`table` leaves them (the experiment
        warned once). The table is a :class:`pandas.DataFrame` (a
        :class:`~pyterrier_boot.experiment.pairwise.PairwiseTable`) that a notebook shows readable:
        rounded, p-values formatted, significant pairs bold with their verdict."""
        from ..stats.comparison import interval_alpha
        from .uncertainty import matched_intervals

        if len(self.qids) < 2:
            return PairwiseTable.of(_untested_pairs(self.values, self.names, self.measures, test, correction, alpha))
        if self.seeds == "random":
            _check_random_test(test)
        scores = {m: pd.DataFrame(self.values[:, :, j].T, columns=list(self.names))  # topics x systems
                  for j, m in enumerate(self.measures)}
        random = self.seeds == "random"  # the p-values are replaced below, then corrected once
        table = compare(scores, test=test, correction=None if random else correction, alpha=alpha, rng=rng,
                        n_resamples=n_resamples, max_memory=max_memory, executor=executor)
        if self.bootstrap not in ("corpus", "both") and not random:
            return PairwiseTable.of(_bounded_pairs(table, self.measures, self.unit))
        index = {n: i for i, n in enumerate(self.names)}
        first = table["measure"] == self.measures[0]
        a = table.loc[first, "system_a"].map(index).to_numpy()
        b = table.loc[first, "system_b"].map(index).to_numpy()
        corrected = correction not in (None, "none")
        ci_alpha, inclusive = interval_alpha(alpha, correction if corrected else None, len(a))
        if random:
            from ..seeds.comparison import with_seed_tests

            table, _ = with_seed_tests(table, self.run_scores, a, b, alpha=ci_alpha)  # type: ignore[arg-type]  # set with seeds
            table["ci_level"] = 1 - ci_alpha
            table.attrs.update(test="t test with seed variance (Satterthwaite df)", correction=correction,
                               confidence_level=1 - ci_alpha)
        else:
            table, _, _ = matched_intervals(table, self.values, a, b, bootstrap=self.bootstrap, interval=self.interval,
                                            plan=self.plan, corpus=self.corpus, alpha=ci_alpha, inclusive=inclusive)
            table["statistic"] = np.nan
        table["estimate"] = table["difference"]
        _recorrected(table, self.measures, correction if corrected else None, alpha)
        if self.bootstrap == "corpus":  # the percentile test over images (earlier versions' column)
            from ..corpus.intervals import image_pvalue

            theta, dist = self.corpus.system_distribution()  # type: ignore[union-attr]  # corpus is set with the corpus bootstrap
            table["corpus p-value"] = image_pvalue(theta[a] - theta[b], dist[:, a] - dist[:, b]).T.reshape(-1)
        if not random:
            table.attrs["test"] = f"{self.bootstrap}-bootstrap replicate test ({replicate_name(self.interval)})"
        return PairwiseTable.of(_bounded_pairs(table, self.measures, self.unit))

    def variance_components(self, *, baseline: str | int | None = None) -> pd.DataFrame:
        """Each system's seed variance and how much of its mean's (and, against ``baseline``, of the
        difference's) variance it makes up, per measure (:mod:`pyterrier_boot.seeds.components`).

        Columns: ``measure, name, runs, topics, mean, seed variance, topic-by-seed variance, topic
        variance, variance (seeds fixed), variance (seeds random), seed share``; with a baseline
        (default: the experiment's first, if any) also ``baseline, difference, difference variance
        (seeds fixed)``, ``difference variance (seeds random)`` and ``seed share of difference``. A
        system with one run, or with identical runs, has seed variance 0. Needs systems given as
        several runs (a ValueError otherwise).
        """
        if self.run_scores is None:
            raise ValueError("variance_components needs systems given as several runs (a list of runs in place of "
                             "one, e.g. {'monoT5': [run_s1, run_s2, run_s3]}): this experiment has one run per system")
        from ..seeds.components import variance_components

        if baseline is None and self.comparisons is not None:
            baseline = int(self.comparisons.baseline_index[0])
        if isinstance(baseline, str):
            if baseline not in self.names:
                raise ValueError(f"'baseline' {baseline!r} is not one of the systems: {list(self.names)}")
            baseline = self.names.index(baseline)
        return variance_components(self.run_scores, self.measures, baseline=baseline)

    def estimates(self, measure: MeasureLike | None = None, *, baseline: str | None = None) -> pd.DataFrame:
        """Each system's mean, or its difference from ``baseline``, with its standard error: the
        figures another analysis builds on (:func:`pyterrier_boot.across_collections` pools them).

        Columns ``name, estimate, se, df, ci_low, ci_high, sd, n_topics``, one row per system (but
        the baseline). ``se`` has the variance the result's intervals include (``attrs["variance"]``):
        with the topic bootstrap (or none) ``sd / √n``, ``sd`` the SD of the per-topic values or
        differences and ``df = n - 1``; with the corpus (``"corpus"``, ``"both"``) the SD over
        the bootstrap replicates (differences taken within each replicate), ``df`` infinite; with
        systems given as several runs, ``seeds="random"``, the variance of the run-averaged mean or
        difference with each system's seed variance and Satterthwaite's ``df`` (``"topics+seeds"``,
        :mod:`pyterrier_boot.seeds.variance`), ``seeds="fixed"`` the run-averaged ``sd / √n``. The
        interval of a mean is the result's own (a t interval without a bootstrap); of a difference
        ``estimate ± c se``, ``c`` the t (``df``) or normal quantile: the interval of the t test,
        or of the replicate test's normal interval, the tables' defaults (kept inside ``[-1, 1]``
        for a measure in ``[0, 1]``, as theirs).

        Example:
            >>> sim = pyterrier_boot.simulate_collection(n_topics=20, n_systems=3, rng=1)   # doctest: +SKIP
            >>> res = pyterrier_boot.experiment_result(sim.runs, None, sim.qrels, ["AP"])   # doctest: +SKIP
            >>> res.estimates("AP", baseline="S1").columns.tolist()                          # doctest: +SKIP
            ['name', 'estimate', 'se', 'df', 'ci_low', 'ci_high', 'sd', 'n_topics']
        """
        from .._bounds import UNIT, clipped, difference_bounds
        from .._quantiles import critical_value
        from .uncertainty import standard_errors

        j, rows, base = self._estimand(measure, baseline)
        x = self.values[rows, :, j] - (0 if base is None else self.values[base, :, j])
        estimate = x.mean(axis=1)
        replicates = None
        if self.bootstrap in ("corpus", "both") and self.distribution_ is not None:
            dist = self.distribution_[:, :, j]
            replicates = dist[:, rows] - (0 if base is None else dist[:, [base]])
        if self.seeds == "random":  # each run-averaged mean's topic, seed and topic-by-seed variance
            from ..seeds.intervals import standard_errors as seed_errors

            se, df = seed_errors(self.run_scores, rows, base, j)  # type: ignore[arg-type]  # set with seeds
        else:
            se, df = standard_errors(x, replicates)
        half = critical_value(df, self.confidence_level) * se
        low, high = estimate - half, estimate + half
        if self.unit and self.unit[j]:  # kept inside the range, as the tables' intervals
            low, high = clipped(low, high, UNIT if base is None else difference_bounds(UNIT))
        if base is None and self.intervals is not None:
            low, high = self.intervals[rows, j, 0], self.intervals[rows, j, 1]
        sd = x.std(axis=1, ddof=1) if x.shape[1] > 1 else np.full(len(rows), np.nan)
        frame = pd.DataFrame({"name": [self.names[s] for s in rows], "estimate": estimate, "se": se, "df": df,
                              "ci_low": low, "ci_high": high, "sd": sd, "n_topics": x.shape[1]})
        variance = {"corpus": "corpus", "both": "topics+corpus"}.get(self.bootstrap or "topic", "topics")
        frame.attrs.update(measure=self.measures[j], baseline=None if base is None else self.names[base],
                           variance="topics+seeds" if self.seeds == "random" else variance,
                           confidence_level=self.confidence_level, seeds=self.seeds)
        return frame

    def _estimand(self, measure, baseline):
        """``(measure index, system rows, baseline row or None)`` of :meth:`estimates`, checked."""
        if measure is None:
            j = 0
        elif measure in self.measures:
            j = self.measures.index(measure)
        else:
            raise ValueError(f"'measure': {measure!r} is not in the result, whose measures are {list(self.measures)}")
        if self.summed[j]:
            raise ValueError(f"'measure': {self.measures[j]!r} is summed over topics, not averaged: it has no "
                             "mean to estimate")
        if baseline is None:
            return j, list(range(len(self.names))), None
        if baseline not in self.names:
            raise ValueError(f"'baseline': {baseline!r} is not a system of the result, whose systems are "
                             f"{list(self.names)}")
        base = self.names.index(baseline)
        return j, [s for s in range(len(self.names)) if s != base], base

    def ranks(self) -> pd.DataFrame:
        """Each system's rank (1 = best mean) on the collection and across bootstrap replicates,
        with a rank interval (Zobel & Rashidi 2020, Fig. 5); None without a bootstrap."""
        if self.distribution_ is None:
            raise ValueError("ranks need a bootstrap: run the experiment with bootstrap='topic', 'corpus' or 'both'")
        from ..stats.ranking import rank_intervals

        return rank_intervals(self.means, self.distribution_, systems=self.names, measures=self.measures,
                              confidence_level=self.confidence_level).to_frame()

    def distribution(self) -> pd.DataFrame:
        """The bootstrap distribution of each system's mean, long: ``replicate, name, measure, value``."""
        if self.distribution_ is None:
            raise ValueError("no bootstrap ran: use bootstrap='topic', 'corpus' or 'both'")
        B, S, M = self.distribution_.shape
        return pd.DataFrame({
            "replicate": np.repeat(np.arange(B), S * M),
            "name": np.tile(np.repeat(np.array(self.names, dtype=object), M), B),
            "measure": np.tile(np.array(self.measures, dtype=object), B * S),
            "value": self.distribution_.reshape(-1),
        })

    def display(self, *, digits: int = 3, letters: bool | str = "auto", pairwise: pd.DataFrame | None = None,
                test: str = "t", correction: str = "holm", alpha: float | None = None, sort: bool = False,
                letters_method: str = DEFAULT_LETTERS) -> ResultTable:
        """The readable table: ``0.305 [0.254, 0.356]`` cells, the best mean per measure bold, ``†``
        where a system differs significantly from the baseline, and (for all pairs) compact-letter
        -display letters (``letters_method``: ``"cover"``, the default of every door, or
        ``"insert-absorb"``), with a caption saying what they mean and how they were found
        (:func:`~pyterrier_boot.experiment.display.result_table`; a notebook shows it for the result).
        It has ``to_html()``, ``to_latex()``, ``to_markdown()`` and ``to_frame()``."""
        return VIEWS["display"](self, digits=digits, letters=letters, pairwise=pairwise, test=test,
                                correction=correction, alpha=alpha, sort=sort, letters_method=letters_method)

    def to_latex(self, *, digits: int = 3, alpha: float | None = None, caption: str | None = None,
                 label: str | None = None, letters: bool | str = "auto", letters_method: str = DEFAULT_LETTERS) -> str:
        """A booktabs table of :meth:`display` (``0.412 [0.381, 0.444]``, best bold, ``$^\\dagger$``
        against the baseline, letters for all pairs); ``caption`` goes before the explanation of
        the marks."""
        table = self.display(digits=digits, alpha=alpha, letters=letters, letters_method=letters_method)
        text = table.caption if caption is None else f"{caption} {table.caption}"
        return table.to_latex(caption=text, label=label)

    def to_markdown(self, *, digits: int = 3, alpha: float | None = None, letters: bool | str = "auto",
                    letters_method: str = DEFAULT_LETTERS) -> str:
        """A Markdown table of :meth:`display`, its caption below."""
        return self.display(digits=digits, alpha=alpha, letters=letters, letters_method=letters_method).to_markdown()

    def to_dict(self) -> dict:
        """Every summary figure as plain JSON-able values (NaN as None): settings, provenance, per
        system and measure the mean, interval and per-topic values, the comparisons (one record per
        row), with systems given as several runs the seeds mode and each system's runs. :meth:`save`
        keeps everything else (distributions, plans, corpus images, every run's scores)."""
        means = self.means
        systems: dict[str, dict[str, Any]] = {}
        for s, name in enumerate(self.names):
            systems[name] = {}
            for j, m in enumerate(self.measures):
                cell = {"mean": means[s, j]}
                if self.intervals is not None:
                    cell["ci_low"], cell["ci_high"] = self.intervals[s, j]
                cell["per_topic"] = dict(zip(self.qids, self.values[s, :, j].tolist(), strict=True))
                systems[name][m] = cell
        out = {
            "names": list(self.names), "qids": list(self.qids), "measures": list(self.measures),
            "bootstrap": self.bootstrap, "interval": self.interval, "confidence_level": self.confidence_level,
            "n_replicates": None if self.distribution_ is None else int(self.distribution_.shape[0]),
            "systems": systems,
            "comparisons": None if self.comparisons is None else self.comparisons.frame.to_dict(orient="records"),
            "provenance": self.provenance,
            "seeds": self.seeds,
            "runs": None if self.run_scores is None else {n: self.run_scores.run_names(s)
                                                          for s, n in enumerate(self.names)},
        }
        return json_value(out, tagged=False)

    def save(self, path: str | os.PathLike) -> Path:
        """Write every figure and what produced it to one zip file of JSON and ``.npy`` arrays (no
        pickle; the format is in :mod:`pyterrier_boot.experiment.archive`); read it back with
        :meth:`load` or :func:`pyterrier_boot.load_result`. Returns the path."""
        writer = ArrayWriter()
        doc = {"format": FORMAT, "version": VERSION, **encode_fields(self, writer)}
        texts = {"table.csv": self.table().to_csv(index=False), "perquery.csv": self.per_query().to_csv(index=False)}
        return write_archive(Path(path), doc, writer, member="result.json", texts=texts, what="save the result to")

    @classmethod
    def load(cls, path: str | os.PathLike) -> ExperimentResult:
        """Read a result written by :meth:`save`."""
        with open_archive(Path(path), member="result.json", format=FORMAT, version=VERSION,
                          what="result") as (archive, doc):
            return cls.decode(archive, doc)

    @classmethod
    def decode(cls, archive: zipfile.ZipFile, doc: dict) -> ExperimentResult:
        """The result whose fields :func:`~pyterrier_boot.experiment.archive.encode_fields` put
        into ``doc`` (a saved result's, or one embedded in a saved leaderboard's)."""
        saved = decode_fields(archive, doc)
        comparisons = None if saved["comparisons"] is None else Comparisons(**saved["comparisons"])
        return cls(**saved["result"], plan=saved["plan"], corpus=saved["corpus"], comparisons=comparisons)

    def save_summaries(self, save_dir: str) -> None:
        """``aggregated.csv`` and ``perquery.csv`` in ``save_dir``, keeping other systems' rows (as pt.Experiment)."""
        for file, new in (("aggregated.csv", self.table()), ("perquery.csv", self.per_query())):
            path = os.path.join(save_dir, file)
            if os.path.exists(path):
                old = pd.read_csv(path)
                old = old[~old["name"].isin(set(self.names))]
                if not old.empty:
                    new = pd.concat([new, old], ignore_index=True)
            new.to_csv(path, index=False)

    def _repr_html_(self):
        return self.display()._repr_html_()

    def _repr_latex_(self):
        return self.display()._repr_latex_()

    def __repr__(self):
        rng = (self.provenance or {}).get("rng") or {}
        seed = f", seed={rng['seed']}" if "seed" in rng else ""
        return (f"ExperimentResult({len(self.names)} systems x {len(self.qids)} topics x measures "
                f"{list(self.measures)}, bootstrap={self.bootstrap!r}{seed})")

    # ------------------------------------------------------------ plots (pyterrier_boot.plotting, through VIEWS)

    def plot_means(self, measure: MeasureLike | None = None, **kwargs: Any) -> Axes:
        """Each system's mean with its interval, sorted (:func:`pyterrier_boot.plotting.plot_means`)."""
        return VIEWS["plot_means"](self, measure, **kwargs)

    def plot_pairwise(self, measure: MeasureLike | None = None, **kwargs: Any) -> Axes:
        """Matrix of mean differences, significant pairs marked (:func:`pyterrier_boot.plotting.plot_pairwise`)."""
        return VIEWS["plot_pairwise"](self, measure, **kwargs)

    def plot_topics(self, system: str | int | None = None, measure: MeasureLike | None = None,
                    **kwargs: Any) -> Axes:
        """One system's per-topic scores, with their spread over corpus images
        (Zobel & Rashidi Fig. 2; :func:`pyterrier_boot.plotting.plot_topics`)."""
        return VIEWS["plot_topics"](self, system, measure, **kwargs)

    def plot_ranks(self, measure: MeasureLike | None = None, **kwargs: Any) -> Axes:
        """Rank variability over bootstrap replicates (Zobel & Rashidi Fig. 5;
        :func:`pyterrier_boot.plotting.plot_ranks`)."""
        return VIEWS["plot_ranks"](self, measure, **kwargs)

    def plot_pvalues(self, a: str | int | None = None, b: str | int | None = None, **kwargs: Any) -> Any:
        """Per-image t-test p-value against score difference (Zobel & Rashidi Fig. 6;
        :func:`pyterrier_boot.plotting.plot_pvalues`); needs the corpus bootstrap."""
        return VIEWS["plot_pvalues"](self, a, b, **kwargs)

    def plot_differences(self, measure: MeasureLike | None = None, **kwargs: Any) -> Any:
        """Forest plot of the differences from the baseline (:func:`pyterrier_boot.plotting.plot_differences`)."""
        return VIEWS["plot_differences"](self, measure, **kwargs)

    def plot_topic_differences(self, system: str | int | None = None, measure: MeasureLike | None = None,
                               **kwargs: Any) -> Any:
        """Sorted per-topic differences from the baseline
        (:func:`pyterrier_boot.plotting.plot_topic_differences`)."""
        return VIEWS["plot_topic_differences"](self, system, measure, **kwargs)

    def plot_rank_intervals(self, measure: MeasureLike | None = None, **kwargs: Any) -> Any:
        """Ranks with their intervals (:func:`pyterrier_boot.plotting.plot_rank_intervals`)."""
        return VIEWS["plot_rank_intervals"](self, measure, **kwargs)


def _pt_corrected(frame: pd.DataFrame, measures: Sequence[str], correction: str, correction_alpha: float) -> pd.DataFrame:
    """``frame`` with ``reject`` and ``p-value corrected`` per measure, as pt.Experiment corrects
    (statsmodels' ``multipletests``, any spelling it takes; :func:`~pyterrier_boot.stats.correction.multiple_tests`)."""
    from ..stats.correction import multiple_tests

    corrected = np.full(len(frame), np.nan)
    reject = np.zeros(len(frame), dtype=bool)
    for m in measures:
        rows = np.flatnonzero((frame["measure"] == m).to_numpy())
        try:
            reject[rows], corrected[rows] = multiple_tests(
                frame["p-value"].to_numpy()[rows], alpha=correction_alpha, method=correction)
        except ValueError as error:
            raise ValueError(f"correction={correction!r}: {error}") from None
    frame["reject"] = reject
    frame["p-value corrected"] = corrected
    return frame


def _check_random_test(test: str) -> None:
    """Under ``seeds="random"`` the pairs get the t test with seed variance: other tests are refused."""
    if test not in ("t",):
        raise ValueError(f"test={test!r} cannot include the seed variance: with seeds='random' the pairs get the t "
                         "test with seed variance (Satterthwaite degrees of freedom); use test='t', or run the "
                         "experiment with seeds='fixed' for the other tests on run-averaged scores")


def _recorrected(table: pd.DataFrame, measures: Sequence[str], correction: str | None, alpha: float) -> None:
    """``p-value corrected`` and ``reject`` of ``table`` from its (replaced) p-values, per measure."""
    from ..stats.correction import correct_pvalues

    if correction is None:
        table["p-value corrected"] = table["p-value"]
        table["reject"] = table["p-value"] < alpha
    else:
        for m in measures:
            rows = np.flatnonzero((table["measure"] == m).to_numpy())
            res = correct_pvalues(table["p-value"].to_numpy()[rows], method=correction, alpha=alpha)
            table.loc[table.index[rows], "p-value corrected"] = res.pvalues
            table.loc[table.index[rows], "reject"] = res.reject
    table["reject"] = table["reject"].astype(bool)


def _bounded_pairs(table: pd.DataFrame, measures: Sequence[str], unit: Sequence[bool]) -> pd.DataFrame:
    """``compare``'s table with the intervals of the measures in [0, 1] kept inside [-1, 1]."""
    for m, inside in zip(measures, unit, strict=False):
        if inside:
            rows = (table["measure"] == m).to_numpy()
            table.loc[rows, "ci_low"] = np.clip(table.loc[rows, "ci_low"].to_numpy(float), -1.0, 1.0)
            table.loc[rows, "ci_high"] = np.clip(table.loc[rows, "ci_high"].to_numpy(float), -1.0, 1.0)
    return table


def unit_bounds(unit: Sequence[bool]) -> tuple | None:
    """Each measure's range ``(lo [M], hi [M])``: ``[0, 1]`` where ``unit``, unbounded elsewhere
    (None when no measure has a range)."""
    unit = np.asarray(unit, dtype=bool)
    if not unit.any():
        return None
    return np.where(unit, 0.0, -np.inf), np.where(unit, 1.0, np.inf)


def replicate_name(interval: str | None) -> str:
    from .uncertainty import replicate_method

    return replicate_method(interval)  # type: ignore[arg-type]  # interval is set with a bootstrap


def _untested_pairs(values, names, measures, test, correction, alpha) -> pd.DataFrame:
    """:func:`compare`'s table of every pair on fewer than 2 topics: means, difference and the
    per-topic wins, ties and losses; the test's columns NaN (``reject`` False)."""
    from ..stats.comparison import COLUMNS

    a, b = np.triu_indices(len(names), k=1)
    means = values.mean(axis=1)  # [system, measure]
    diff = values[a] - values[b]  # [pair, topic, measure]
    frame = pd.DataFrame({
        "measure": np.repeat(np.array(measures, dtype=object), len(a)),
        "system_a": np.tile(np.array(names, dtype=object)[a], len(measures)),
        "system_b": np.tile(np.array(names, dtype=object)[b], len(measures)),
        "mean_a": means[a].T.reshape(-1), "mean_b": means[b].T.reshape(-1),
        "difference": (means[a] - means[b]).T.reshape(-1),
        "wins": (diff > 0).sum(axis=1).T.reshape(-1), "ties": (diff == 0).sum(axis=1).T.reshape(-1),
        "losses": (diff < 0).sum(axis=1).T.reshape(-1), "n_topics": values.shape[1], "reject": False,
    }).reindex(columns=COLUMNS)
    frame["reject"] = frame["reject"].astype(bool)
    frame.attrs.update(test=test, correction=correction, alpha=alpha, alternative="two-sided",
                       confidence_level=1 - alpha)
    return frame


def _highlighted(frame, direction, highlight):
    """pt.Experiment's highlighting: the best value of each column bold or coloured."""
    style = "font-weight: bold" if highlight == "bold" else "background-color: lightgreen"

    def mark(column):
        sign = direction.get(column.name)
        if sign is None or column.isna().all():
            return [""] * len(column)
        best = column.max() if sign == "+" else column.min()
        return [style if v == best else "" for v in column]

    return frame.style.apply(mark, axis=0)
