"""``Experiment``: ``pt.Experiment`` with confidence intervals; ``experiment_result``: everything it measured.

``Experiment`` is a drop-in ``pt.Experiment``: whatever arguments ``pt.Experiment`` takes, it returns
the same type and shape (its own columns first, in ``pt.Experiment``'s order, the added interval and
difference columns after them). The rich result (:class:`ExperimentResult`: intervals, all pairs,
rank intervals, LaTeX, plots) is reached through :func:`experiment_result`, which takes the same
arguments.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
from ir_measures.measures import SumAgg

from .._batches import check_executor
from .._memory import (
    DEFAULT_MAX_MEMORY,
    check_max_memory,
    check_n_resamples,
    require_resamples_memory,
)
from .._random import DEFAULT_SEED, as_generator
from .._warnings import DegenerateWarning, InputWarning, one_warning_per_kind, suppressed, warn
from ..inputs.overlap import check_topic_overlap
from ..inputs.qrels import Qrels, read_qrels
from ..inputs.runs import Runs, check_run_columns, read_runs
from ..inputs.topics import read_topics
from ..measures.arrays import JudgedRuns, natural_order
from ..measures.engine import FALLBACK_MAX_GRADE, Evaluator
from ..measures.evaluation import intern
from ..measures.parsing import LabelledMeasure, parse_measures, require_mean_aggregated
from ..measures.suggestions import did_you_mean, measure_registry
from ..seeds.groups import split_systems
from ..stats.intervals import METHODS as TOPIC_METHODS
from ..stats.registry import PAIRED, spellings
from ..stats.resampling import resample_plan
from .dropin import pt_shaped
from .execution import (
    SAVE_MODES,
    check_system_types,
    named_systems,
    print_plan,
    run_systems,
    unique_keys,
)
from .result import Comparisons, ExperimentResult, unit_bounds
from .several_runs import check_seeds, grouped, grouped_output, seed_mean_spreads
from .uncertainty import BOOTSTRAPS, JOINT_METHODS, difference_spreads, mean_spreads

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor
    from typing import Any

    from .._typing import MeasuresLike, QrelsLike, RngLike, TopicsLike
    from ..judging import JudgingPlan


# test names pt.Experiment accepts ("t", "wilcoxon"), and ours, in every spelling
TESTS = spellings(PAIRED)
CORPUS_METHODS = ("percentile", "normal", "logit", "bca")
# corpus images shift rank-sensitive measures (RR, P@k) down, so percentile intervals of the corpus
# bootstrap can miss the value measured on the collection; the default interval is centred on it
# the topic default is the method that covers best at small topic sets (see stats.intervals.default_method)
DEFAULT_INTERVAL = {"topic": "studentized", "corpus": "normal", "both": "normal"}
_RANKING = {"query_id", "doc_id", "score"}


class ArgumentError(ValueError, AssertionError):
    """A bad argument where ``pt.Experiment`` raises AssertionError: catch it as either."""


class MeasureError(KeyError, TypeError, ValueError):
    """An entry of ``eval_metrics`` that is no measure: ``pt.Experiment`` raises ValueError for an
    unknown name and KeyError for another type, so it is both (and a TypeError)."""

    def __str__(self):
        return str(self.args[0])


class BaselineError(ArgumentError, TypeError, KeyError):
    """A bad ``baseline``: ``pt.Experiment`` raises TypeError (a name with a list of systems),
    AssertionError (a position out of range), ValueError (an unknown name) or KeyError (a
    fractional position) for one, so it is all four."""

    def __str__(self):
        return str(self.args[0])


class MissingInputError(ValueError, TypeError, AttributeError):
    """``topics`` or ``qrels`` None where they are needed: ``pt.Experiment`` fails on them with
    TypeError (topics) or AttributeError (qrels), so it is both (and a ValueError)."""


def _no_ppi_options(estimand, judging_plan) -> None:
    """``estimand`` and ``judging_plan`` belong to the prediction-powered intervals: a ValueError
    without ``human_qrels``."""
    if estimand is not None:
        raise ValueError(f"'estimand' ({estimand!r}) chooses what prediction-powered intervals are about: give it "
                         "with 'human_qrels', or leave it None")
    if judging_plan is not None:
        raise ValueError("'judging_plan' says which documents people judged: give it with 'human_qrels' (their "
                         "labels of the plan's sample), or leave it None")


def _check_view_options(estimand, judging_plan, perquery, highlight) -> None:
    """Errors naming the option for ``estimand`` or ``judging_plan`` without ``human_qrels``, a bad
    ``perquery`` or ``highlight``."""
    _no_ppi_options(estimand, judging_plan)
    if perquery not in (False, True, "both"):
        raise ArgumentError(f"'perquery' must be True, False or 'both', got {perquery!r}")
    if highlight not in (None, "bold", "color", "colour"):
        raise ValueError(f"Unknown highlight {highlight!r}: expected 'bold', 'color' or None")


@one_warning_per_kind()
def Experiment(retr_systems: Any, topics: TopicsLike, qrels: QrelsLike, eval_metrics: MeasuresLike,
               names: Sequence[str] | None = None, perquery: bool = False, dataframe: bool = True,
               batch_size: int | None = None, filter_by_qrels: bool = False,
               filter_by_topics: bool = True, baseline: int | str | None = None, test: str = "t",
               correction: str | None = None, correction_alpha: float | None = 0.05,
               highlight: Any = None, round: int | None = None, verbose: bool | str = "auto",
               validate: str = "warn", save_dir: str | None = None, save_mode: str | None = "warn",
               save_format: str = "trec", precompute_prefix: bool = False, plan: str = "linear", *,
               bootstrap: str | None = "topic", n_resamples: int | None = None,
               confidence_level: float = 0.95, interval: str | None = None, corpus_size: int | None = None,
               model: str = "poisson", rng: RngLike = None, max_memory: int | str | None = DEFAULT_MAX_MEMORY,
               human_qrels: QrelsLike | None = None, estimand: str | None = None,
               judging_plan: JudgingPlan | None = None, executor: Executor | None = None,
               seeds: str | None = None, **kwargs: Any) -> Any:
    """``pt.Experiment`` with confidence intervals from the topic and/or corpus bootstrap.

    A drop-in ``pt.Experiment``: every argument means the same and the result has its type and shape,
    with columns added per measure (``"<m> ci_low"``, ``"<m> ci_high"``; with a baseline ``"<m> diff"``,
    its interval and ``"<m> effect size"``). The p-value is the test of ``test`` and the ``diff``
    interval beside it is the one that test inverts. Everything else (all pairs, rank intervals, LaTeX,
    plots) is in :func:`experiment_result`; ``pt_docs/experiment.md`` has the details and examples.

    New arguments:
        bootstrap: ``"topic"`` (default; Sakai 2007), ``"corpus"`` (Cormack & Lynam 2006; Zobel &
            Rashidi 2020), ``"both"`` (topics resampled and scored on corpus image ``b``) or None.
        n_resamples: topic resamples (default 10,000) or corpus images (default 1,000).
        confidence_level: of every interval (default 0.95). interval: ``"studentized"`` (topic
            default), ``"normal"`` (corpus default), ``"bca"``, ``"percentile"``, ...
        test: also ``"paired-bootstrap"``, ``"randomization"``, ``"sign"`` or a callable ``test(x, y)``;
            with the corpus bootstrap the p-value is the replicate test. baseline: also a list.
        corpus_size, model: the corpus bootstrap's ``N`` and image model (``"poisson"``, ``"multinomial"``).
        rng: seed or Generator (SPEC 7; None is :data:`DEFAULT_SEED`). max_memory: bytes the bootstrap may hold.
        human_qrels, estimand, judging_plan: prediction-powered intervals with ``qrels`` automatic
            (``pt_docs/ppi.md``): ``ppi_evaluate``'s ``human_qrels``, ``estimand`` and ``plan``
            (named ``judging_plan`` here, ``plan`` being ``pt.Experiment``'s execution plan).
        executor: our extra door: a ``concurrent.futures.Executor`` for the bootstrap (``pt_docs/scale.md``).
        seeds: for systems given as lists of runs (``{"T5": [run_s1, run_s2], "BM25": bm25}``), ``"random"``
            or ``"fixed"``: :meth:`ExperimentResult.table` returned (``pt_docs/seeds_and_collections.md``).
    """
    if kwargs:
        raise TypeError(f"Unknown kwargs: {list(kwargs)}")
    if human_qrels is not None:  # prediction-powered intervals, computed entirely in pyterrier_boot.ppi
        from ..ppi.experiment import ppi_experiment

        return ppi_experiment(locals())
    _check_view_options(estimand, judging_plan, perquery, highlight)
    settings = _Settings(
        names=names, batch_size=batch_size, filter_by_qrels=filter_by_qrels, filter_by_topics=filter_by_topics,
        baseline=baseline, test=test, correction=correction, correction_alpha=correction_alpha, round=round,
        verbose=verbose, validate=validate, save_dir=save_dir, save_mode=save_mode, save_format=save_format,
        precompute_prefix=precompute_prefix, plan=plan, bootstrap=bootstrap, n_resamples=n_resamples,
        confidence_level=confidence_level, interval=interval, corpus_size=corpus_size, model=model, rng=rng,
        perquery=perquery, max_memory=max_memory, executor=check_executor(executor), seeds=seeds)
    run = _experiment(retr_systems, topics, qrels, eval_metrics, settings)
    return _output(run, settings, dataframe=dataframe, highlight=highlight)


def _output(run: _Run, settings: _Settings, *, dataframe: bool, highlight: Any) -> Any:
    """What ``Experiment`` returns: ``pt.Experiment``'s output with our columns added (saved to
    ``save_dir`` when given), or, for systems given as several runs, the result's own table."""
    s = settings
    if run.result.run_scores is not None:  # several runs per system: pt.Experiment takes no lists
        return grouped_output(run.result, perquery=s.perquery, dataframe=dataframe, highlight=highlight,
                              save_dir=s.save_dir)
    view = pt_shaped(run.result, run.runs, run.names, run.topics, run.qrels, run.measures.for_pt,
                     rename=run.measures.rename, baseline=run.pt_baseline, test=run.pt_test,
                     correction=s.correction, correction_alpha=s.correction_alpha, round=s.round,
                     filter_by_qrels=s.filter_by_qrels, filter_by_topics=s.filter_by_topics,
                     mrt=run.mrt if run.measures.mrt else None)
    if s.save_dir is not None:
        view.save_summaries(s.save_dir)
    return view.output(perquery=s.perquery, dataframe=dataframe, highlight=highlight)


@one_warning_per_kind()
def experiment_result(retr_systems: Any, topics: TopicsLike, qrels: QrelsLike,
                      eval_metrics: MeasuresLike, names: Sequence[str] | None = None,
                      batch_size: int | None = None, filter_by_qrels: bool = False,
                      filter_by_topics: bool = True, baseline: int | str | None = None,
                      test: str = "t", correction: str | None = None,
                      correction_alpha: float | None = 0.05, round: int | None = None,
                      verbose: bool | str = "auto", validate: str = "warn", save_dir: str | None = None,
                      save_mode: str | None = "warn", save_format: str = "trec",
                      precompute_prefix: bool = False, plan: str = "linear", *,
                      bootstrap: str | None = "topic", n_resamples: int | None = None,
                      confidence_level: float = 0.95, interval: str | None = None,
                      corpus_size: int | None = None, model: str = "poisson", rng: RngLike = None,
                      max_memory: int | str | None = DEFAULT_MAX_MEMORY,
                      human_qrels: QrelsLike | None = None, estimand: str | None = None,
                      judging_plan: JudgingPlan | None = None,
                      executor: Executor | None = None, seeds: str | None = None) -> ExperimentResult:
    """Run an experiment as :func:`Experiment` does and return everything it measured.

    Takes :func:`Experiment`'s arguments (those shaping ``pt.Experiment``'s output, ``perquery``,
    ``dataframe`` and ``highlight``, belong to the methods of the result) and returns an
    :class:`ExperimentResult`: ``table()``, ``per_query()``, ``pairwise()``, ``ranks()``,
    ``distribution()``, ``to_latex()`` and the ``plot_*`` methods. Measures summed over topics are
    refused with a bootstrap (a ValueError: use ``bootstrap=None``); trec_eval families are expanded
    into their measures (without their summed ones when bootstrapping); with
    fewer than two judged topics intervals and tests are NaN (one warning). ``save_dir`` writes
    the runs and the table's ``aggregated.csv``/``perquery.csv``. With ``human_qrels`` (as in
    :func:`Experiment`) it returns the :class:`pyterrier_boot.PPIEvaluation` of the
    prediction-powered intervals instead (``pt_docs/ppi.md``), with ``judging_plan`` its
    :class:`~pyterrier_boot.ppi.sampled.SampledPPIEvaluation`. ``retr_systems`` may also be runs
    already interned one at a time (a :class:`~pyterrier_boot.measures.arrays.JudgedRuns` from
    :class:`~pyterrier_boot.measures.arrays.JudgedRunsBuilder`, as ``pyterrier-boot evaluate``
    does), so that hundreds of deep runs never sit in memory as frames; every measure then needs a
    kernel (a ValueError names those that do not).

    Example:
        >>> res = pyterrier_boot.experiment_result([bm25, dph], topics, qrels, ["map"],
        ...                                        names=["BM25", "DPH"], baseline=0)  # doctest: +SKIP
        >>> res.pairwise(); res.ranks(); print(res.to_latex())                      # doctest: +SKIP
    """
    if human_qrels is not None:  # prediction-powered intervals, computed entirely in pyterrier_boot.ppi
        from ..ppi.experiment import ppi_experiment

        return ppi_experiment(locals(), rich=True)
    _no_ppi_options(estimand, judging_plan)
    settings = _Settings(
        names=names, batch_size=batch_size, filter_by_qrels=filter_by_qrels, filter_by_topics=filter_by_topics,
        baseline=baseline, test=test, correction=correction, correction_alpha=correction_alpha, round=round,
        verbose=verbose, validate=validate, save_dir=save_dir, save_mode=save_mode, save_format=save_format,
        precompute_prefix=precompute_prefix, plan=plan, bootstrap=bootstrap, n_resamples=n_resamples,
        confidence_level=confidence_level, interval=interval, corpus_size=corpus_size, model=model, rng=rng,
        perquery=False, rich=True, max_memory=max_memory, executor=check_executor(executor), seeds=seeds)
    run = _experiment(retr_systems, topics, qrels, eval_metrics, settings)
    if save_dir is not None:
        run.result.save_summaries(save_dir)
    return run.result


# ---------------------------------------------------------------- the experiment


@dataclass(frozen=True)
class _Settings:
    """Every argument of :func:`Experiment` / :func:`experiment_result` besides its four inputs."""

    names: Sequence[str] | None = None
    batch_size: int | None = None
    filter_by_qrels: bool = False
    filter_by_topics: bool = True
    baseline: Any = None
    test: Any = "t"
    correction: str | None = None
    correction_alpha: float | None = 0.05
    round: int | None = None
    verbose: Any = "auto"
    validate: str = "warn"
    save_dir: str | None = None
    save_mode: str | None = "warn"
    save_format: Any = "trec"
    precompute_prefix: bool = False
    plan: str = "linear"
    bootstrap: str | None = "topic"
    n_resamples: int | None = None
    confidence_level: float = 0.95
    interval: str | None = None
    corpus_size: int | None = None
    model: str = "poisson"
    rng: Any = None
    perquery: Any = False
    rich: bool = False
    max_memory: int | str | None = DEFAULT_MAX_MEMORY
    executor: Any = None
    seeds: str | None = None


@dataclass(frozen=True)
class _Run:
    result: ExperimentResult
    runs: list
    names: list
    topics: pd.DataFrame
    qrels: pd.DataFrame
    measures: _Measures
    pt_baseline: int | None
    pt_test: Any
    mrt: list


@dataclass(frozen=True)
class _Inputs:
    """The qrels and topics of an experiment, read once.

    Attributes:
        qrels_all: every judgement read; qrels: those of the topics evaluated (``filter_by_topics``).
        topics_all: every topic read (None when all systems are frames and no topics were given);
            topics: those the systems run on (``filter_by_qrels``).
    """

    qrels_all: Qrels
    qrels: Qrels
    topics_all: pd.DataFrame | None
    topics: pd.DataFrame | None


@dataclass(frozen=True)
class _Spreads:
    """What the bootstraps measured (all None without a bootstrap or with fewer than two topics)."""

    topic_plan: Any = None
    corpus: Any = None
    intervals: np.ndarray | None = None
    distribution: np.ndarray | None = None
    comparisons: Comparisons | None = None


def _systems(retr_systems, settings: _Settings):
    """``(retr_systems, interned, systems, names, baselines, groups)``: lists of runs split into
    runs (``groups``: which make up which system), runs interned by the command line unwrapped."""
    retr_systems, flat_names, groups = split_systems(retr_systems, settings.names)  # lists of runs: seeds
    interned = retr_systems if isinstance(retr_systems, JudgedRuns) else None  # the CLI's door: runs interned
    if interned is not None:
        retr_systems = dict.fromkeys(interned.systems, pd.DataFrame())  # names only: the runs are interned
    systems, names, baselines = _systems_names_baselines(retr_systems, flat_names,
                                                         settings.baseline if groups is None else None)
    if groups is not None:
        baselines = _baseline_positions(settings.baseline, list(groups.names), len(groups.names))
    return retr_systems, interned, systems, names, baselines, groups


def _experiment(retr_systems, topics, qrels, eval_metrics, settings: _Settings) -> _Run:
    retr_systems, interned, systems, names, baselines, groups = _systems(retr_systems, settings)
    settings, test_name = _checked_settings(settings, baselines, names, groups)
    measures = _measures(eval_metrics, summed_allowed=settings.bootstrap is None, rich=settings.rich)
    if interned is None and measures.rankings:
        _check_frame_columns(retr_systems, systems)
    if settings.precompute_prefix:
        warnings.warn("precompute_prefix is deprecated. Use plan='tree' instead", DeprecationWarning, stacklevel=3)
    inputs = _read_inputs([] if interned else systems, topics, qrels, settings)
    if not settings.rich:
        _check_pt_labels(inputs.qrels_all)
    _check_memory(settings.bootstrap, settings.n_resamples, test_name, len(systems),
                  len(baselines) * len(systems), int(inputs.qrels.frame["qid"].nunique()),
                  len(measures.kernel) + len(measures.by_query), settings.max_memory)
    if settings.validate != "ignore" and interned is None:
        _validate(systems, names, inputs.topics, measures.objects, settings.validate)

    keys, runs, mrt = _execute(systems, names, inputs, settings) if interned is None else (names, [], [0.0] * len(names))
    read = isinstance(retr_systems, Runs)  # frames read by read_runs are not checked again
    labels, values, evaluator, qids = _evaluated(runs, keys, inputs.qrels, measures, settings, baselines, read=read,
                                                 interned=interned, chosen=inputs.topics_all is not None)
    run_scores, values, keys, mrt = (grouped(values, keys, mrt, groups, settings.seeds)
                                     if groups is not None else (None, values, keys, mrt))  # several runs: their means
    seed = DEFAULT_SEED if settings.rng is None else settings.rng
    rng = as_generator(seed)
    provenance = _provenance(seed, rng, settings.test, settings.correction, settings.correction_alpha,
                             settings.n_resamples, settings.model, inputs.qrels_all.corpus_size, baselines, keys)
    # the corpus images are drawn from rng itself, as CorpusBootstrap(rng=...) draws them, so that one
    # seed gives the same images in every door; the topic resamples from a child stream
    rngs = (rng.spawn(1)[0], rng)  # topics, corpus
    unit = _in_unit_range(measures.measure_of(labels), values)
    spreads = _Spreads()
    if len(labels) and len(qids) >= 2:
        spreads = _bootstrap(values, keys, labels, baselines, evaluator, inputs.qrels_all, settings, test_name, rngs,
                             unit_bounds(unit), run_scores)
    elif settings.bootstrap is not None:
        spreads = _Spreads(intervals=np.full((len(keys), len(labels), 2), np.nan))
    result = ExperimentResult(
        names=tuple(keys),
        qids=tuple(qids.tolist()),
        measures=tuple(labels),
        summed=tuple(isinstance(m.aggregator(), SumAgg) for m in measures.measure_of(labels)),
        unit=unit,
        values=values,
        bootstrap=settings.bootstrap,
        interval=settings.interval,
        confidence_level=settings.confidence_level,
        intervals=spreads.intervals,
        distribution_=spreads.distribution,
        corpus=spreads.corpus,
        comparisons=spreads.comparisons,
        mrt=dict(zip(keys, mrt, strict=True)) if measures.mrt else None,
        round=settings.round,
        topics=tuple(inputs.topics["qid"]) if inputs.topics is not None else None,
        plan=spreads.topic_plan,
        provenance=provenance,
        seeds=settings.seeds,
        run_scores=run_scores,
    )
    return _pt_run(result, runs, names, inputs, measures, baselines, settings.test, mrt, qids)


def _checked_settings(settings: _Settings, baselines, names, groups=None) -> tuple[_Settings, str | None]:
    """The settings checked, with the bootstrap's defaults filled in (the seeds mode resolved for
    systems given as several runs); the test's name (None: a callable)."""
    test, bootstrap = settings.test, settings.bootstrap
    test_name = _check_test(test)
    seeds = check_seeds(settings.seeds, groups, bootstrap=bootstrap, test=test_name or test,
                        interval=settings.interval)
    bootstrap, interval, n_resamples = _check_bootstrap(bootstrap, settings.interval, settings.n_resamples)
    if bootstrap in ("corpus", "both") and settings.baseline is not None and test != "t":
        warn(InputWarning(f"test={test!r} is not used with bootstrap={bootstrap!r}: the p-values are the {bootstrap}-"
                          "bootstrap test over the same replicates as the difference intervals (corpus variance in "
                          "both); use bootstrap='topic' for a test over topics"))
    max_memory = check_max_memory(settings.max_memory)
    _check_options(settings.perquery, baselines, settings.correction, settings.round, settings.save_dir,
                   settings.save_mode, settings.plan, names)
    _check_running(settings.plan, settings.verbose, settings.batch_size, settings.correction,
                   settings.correction_alpha)
    return replace(settings, bootstrap=bootstrap, interval=interval, n_resamples=n_resamples,
                   max_memory=max_memory, seeds=seeds), test_name


def _read_inputs(systems, topics, qrels, settings: _Settings) -> _Inputs:
    """Read the qrels and topics (once: inner layers take what is read here) and filter them as
    ``pt.Experiment`` does (``filter_by_qrels``, ``filter_by_topics``)."""
    if qrels is None:
        raise MissingInputError("'qrels' is None: give the relevance judgements (a frame, a TREC qrels file, a "
                                "PyTerrier dataset or 'irds:<id>')")
    qrels_all = read_qrels(qrels, corpus_size=settings.corpus_size)
    qrels = qrels_all
    topics = read_topics(topics) if topics is not None else None
    if topics is None and any(not isinstance(s, pd.DataFrame) for s in systems):
        raise MissingInputError("'topics' are needed to run the systems that are transformers")
    topics_all = topics
    no_overlap = ("There is no overlap between the qids found in the topics and qrels. If this is "
                  "intentional, set filter_by_topics=False and filter_by_qrels=False.")
    if topics is not None and settings.filter_by_qrels:
        topics = topics[topics["qid"].isin(set(qrels.frame["qid"]))]
        if len(topics) == 0:
            raise ValueError(no_overlap)
    if topics is not None and settings.filter_by_topics:
        qrels = qrels.restrict(topics["qid"])
        if len(qrels.frame) == 0:
            raise ValueError(no_overlap)
    return _Inputs(qrels_all, qrels, topics_all, topics)


def _execute(systems, names, inputs: _Inputs, settings: _Settings):
    """Run each system once: ``(keys, runs, mrt)``, keys being the names made unique."""
    if settings.plan == "tree" and settings.verbose in ("auto", True):  # as pt.Experiment: shown by default
        print_plan(systems, names)
    keys = unique_keys(names)
    # topics are None only when every system is a frame, which run_systems does not run
    executed = run_systems(systems, keys, inputs.topics,  # type: ignore[arg-type]
                           batch_size=settings.batch_size, save_dir=settings.save_dir,
                           save_mode=settings.save_mode, save_format=settings.save_format,
                           share_prefix=settings.precompute_prefix or settings.plan == "tree",
                           verbose=settings.verbose is True)
    runs = [executed.runs[k] for k in keys]
    n_judged = inputs.qrels.frame["qid"].nunique()
    mrt = [executed.milliseconds[k] / max(n_judged, 1) for k in keys]
    return keys, runs, mrt


def _evaluated(runs, keys, qrels: Qrels, measures, settings: _Settings, baselines, *, read: bool,
               interned: JudgedRuns | None = None, chosen: bool = False):
    """Per-topic values ``[system, topic, measure]`` with their labels, the evaluator of the kernel
    measures (None without) and the topics; only imaged measures are kept for the corpus bootstrap.
    ``chosen``: the topics were given (results for other topics are ignored without a warning)."""
    labels, values, evaluator = _values(runs, keys, qrels, measures, read=read, interned=interned, chosen=chosen)
    if evaluator is None:
        qids = np.array(natural_order(pd.unique(qrels.frame["qid"].to_numpy(object))), dtype=object)
    else:
        qids = evaluator.arrays.qids
    if len(qids) < 2 and (settings.bootstrap is not None or baselines):
        warn(InputWarning(f"only {len(qids)} topic is judged: intervals and tests need at least 2 topics, so they "
                          "are left empty (NaN)"))
    n_kernel = 0 if evaluator is None else len(evaluator.measures)
    if settings.bootstrap in ("corpus", "both") and len(labels) > n_kernel:
        warn(InputWarning(f"{labels[n_kernel:]} are evaluated through ir_measures, not imaged by the corpus "
                          "bootstrap: they get no interval"))
        labels, values = labels[:n_kernel], values[:, :, :n_kernel]
    return labels, values, evaluator, qids


def _bootstrap(values, keys, labels, baselines, evaluator, qrels: Qrels, settings: _Settings, test_name,
               rngs, bounds=None, run_scores=None) -> _Spreads:
    """The topic and/or corpus bootstrap of the means and of the differences from the baselines, their
    intervals kept inside each measure's range ``bounds`` (:func:`unit_bounds`); with the seed variance
    under ``seeds="random"`` (:mod:`.several_runs`)."""
    s = settings
    topic_rng, corpus_rng = rngs
    random = run_scores if s.seeds == "random" else None
    topic_plan = corpus = comparisons = None
    if s.bootstrap in ("topic", "both") or test_name == "paired_bootstrap":
        size = s.n_resamples if s.bootstrap is not None else 10_000
        topic_plan = resample_plan(values.shape[1], n_resamples=size, rng=topic_rng,  # type: ignore[arg-type]
                                   max_memory=s.max_memory)  # n_resamples was resolved by _checked_settings
    if s.bootstrap in ("corpus", "both"):
        corpus = _corpus(evaluator, values, qrels, s.n_resamples, s.model, corpus_rng, s.verbose is True, s)
    if random is not None and s.bootstrap is not None:
        intervals, distribution = seed_mean_spreads(random, s.interval or "studentized", s.confidence_level,
                                                    topic_plan, topic_rng.spawn(1)[0], s.executor, bounds)  # type: ignore[arg-type]  # a topic plan with the topic bootstrap
    else:
        intervals, distribution = mean_spreads(values, s.bootstrap, s.interval, s.confidence_level, topic_plan,
                                               corpus, s.executor, names=keys, measures=labels, bounds=bounds)
    if baselines:
        comparisons = Comparisons.build(values, keys, baselines, labels,
                                        test=s.test if test_name is None else test_name, plan=topic_plan,
                                        rng=topic_rng, correction=s.correction,
                                        correction_alpha=s.correction_alpha,  # type: ignore[arg-type]  # checked
                                        confidence_level=s.confidence_level, bootstrap=s.bootstrap,
                                        interval=s.interval, corpus=corpus, max_memory=s.max_memory,
                                        executor=s.executor, run_scores=random)
        if comparisons.distribution is None and s.bootstrap is not None and s.rich and random is None:
            # the rich result keeps the replicates of the differences (the drop-in table does not show them);
            # only the replicates are kept: the intervals shown are the test's, whose warnings name the pairs
            with suppressed(DegenerateWarning):
                replicates = difference_spreads(values, comparisons.system_index, comparisons.baseline_index,
                                                s.bootstrap, s.interval, s.confidence_level, topic_plan, corpus,
                                                s.executor)[1]
            comparisons = comparisons.with_intervals(comparisons.intervals, replicates)
        comparisons = comparisons.bounded(bounds)
    return _Spreads(topic_plan, corpus, intervals, distribution, comparisons)


def _pt_run(result, runs, names, inputs: _Inputs, measures, baselines, test, mrt, qids) -> _Run:
    """The result with what ``pt.Experiment`` needs to shape its own output from the same runs."""
    pt_baseline = baselines[0] if len(baselines) == 1 else None
    pt_test = test if callable(test) or test in ("t", "wilcoxon") else "t"
    pt_topics = inputs.topics_all if inputs.topics_all is not None else pd.DataFrame({"qid": qids, "query": ""})
    return _Run(result, runs, names, pt_topics, inputs.qrels_all.frame, measures, pt_baseline, pt_test, mrt)


def _check_pt_labels(qrels: Qrels) -> None:
    """Refuse labels ``pt.Experiment`` cannot score: the drop-in table is its own, computed by
    ir_measures' trec_eval provider, which sizes arrays by the largest label and scores 0 when it
    cannot (our kernels take any int64 label: :data:`~pyterrier_boot.measures.engine.FALLBACK_MAX_GRADE`)."""
    labels = qrels.frame["label"].to_numpy()
    top, low = int(labels.max(initial=0)), int(labels.min(initial=0))  # Python ints: abs(-2**63) overflows
    largest = top if top >= -low else low
    if abs(largest) > FALLBACK_MAX_GRADE:
        raise ValueError(
            f"the qrels ({qrels.source}) hold label {largest}: pt.boot.Experiment returns pt.Experiment's "
            "own table, which ir_measures' trec_eval provider computes with arrays sized by the largest "
            f"label (scoring 0 when it cannot); map the labels into -{FALLBACK_MAX_GRADE}..{FALLBACK_MAX_GRADE}, "
            "or use pt.boot.experiment_result, which takes any int64 label"
        )


def _provenance(seed, rng, test, correction, correction_alpha, n_resamples, model, corpus_size, baselines, names):
    """What produced a result, as JSON-able values (kept by ``ExperimentResult.save``)."""
    from .archive import package_versions

    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        rng_record = {"seed": int(seed)}
    else:  # a Generator, BitGenerator or SeedSequence: the seed sequence the streams are spawned from
        # (before this experiment spawned from it) and the generator's state
        seq = rng.bit_generator.seed_seq
        rng_record = {"bit_generator": type(rng.bit_generator).__name__, "state": rng.bit_generator.state,
                      "seed_sequence": {"entropy": seq.entropy, "spawn_key": list(seq.spawn_key),
                                        "n_children_spawned": seq.n_children_spawned}}
    return {
        "test": test if isinstance(test, str) else getattr(test, "__name__", "custom test"),
        "correction": correction,
        "correction_alpha": float(correction_alpha),
        "baselines": [names[b] for b in baselines],
        "n_resamples": None if n_resamples is None else int(n_resamples),
        "model": model,
        "corpus_size": None if corpus_size is None else int(corpus_size),
        "rng": rng_record,
        "versions": package_versions(),
    }


# ---------------------------------------------------------------- measures


@dataclass(frozen=True)
class _Measures:
    """How each entry of ``eval_metrics`` is evaluated.

    Attributes:
        kernel: labelled measures evaluated by pyterrier_boot's kernels (and imaged by the corpus bootstrap).
        by_query: ``(label, measure)`` evaluated per query through ir_measures (other run columns).
        objects: every ir_measures measure asked for (for validating the systems' outputs).
        for_pt: ``eval_metrics`` as ``pt.Experiment`` takes them; rename: its labels -> ours.
        mrt: whether the mean response time was asked for.

    ``rankings``: whether the runs must be rankings (``qid, docno, score``): some measure is evaluated
    by the kernels, or is a trec_eval measure. Otherwise every measure is evaluated per query through
    ir_measures from whatever columns the systems give (answers, contexts: a RAG pipeline's
    ``qid, query, context``), as ``pt.Experiment`` does, and the runs are not read as rankings.
    """

    kernel: list
    by_query: list
    objects: list
    for_pt: list
    rename: dict
    mrt: bool

    def measure_of(self, labels):
        known = {lm.label: lm.measure for lm in self.kernel} | dict(self.by_query)
        return [known[label] for label in labels]

    @property
    def rankings(self) -> bool:
        by_query = {id(measure) for _, measure in self.by_query}
        return bool(self.kernel) or any(id(m) not in by_query for m in self.objects)


def _ir_measures_syntax(text):
    try:
        ir_measures.parse_measure(text)
    except (ValueError, TypeError, NameError, SyntaxError):
        return False
    return True


def _measures(eval_metrics, *, summed_allowed, rich):
    if isinstance(eval_metrics, (str, ir_measures.Measure)):
        eval_metrics = [eval_metrics]
    kernel, by_query, objects, for_pt, rename, mrt = [], [], [], [], {}, False
    for item in list(eval_metrics):
        if isinstance(item, str) and item == "mrt":
            mrt = True
            for_pt.append(item)
            continue
        if isinstance(item, str):
            try:
                trec = ir_measures.parse_trec_measure(item)
            except ValueError:
                trec = []
            if len(trec) > 1:  # a trec_eval family: pt.Experiment's values, no interval
                objects += trec
                for_pt.append(item)
                if rich:
                    kernel += [lm for lm in parse_measures(trec) if summed_allowed or not _summed(lm.measure)]
                continue
            if len(trec) == 1:
                label, measure = item, trec[0]
                for_pt.append(item)
            else:
                try:
                    labelled = parse_measures([item])[0]
                except (ValueError, TypeError):
                    if _ir_measures_syntax(item):
                        raise  # a measure whose parameters break a rule: the error says which
                    raise MeasureError(f"Could not convert measure {item!r}: not a trec_eval name (e.g. 'map', "
                                       "'ndcg_cut_10') nor in ir_measures syntax (e.g. 'nDCG@10')"
                                       f"{did_you_mean(item)}") from None
                label, measure = labelled.label, labelled.measure
                for_pt.append(measure)
                rename[str(measure)] = label
        elif isinstance(item, ir_measures.Measure):
            label, measure = str(item), item
            for_pt.append(item)
        elif isinstance(item, LabelledMeasure):
            label, measure = item.label, item.measure
            for_pt.append(measure)
            rename[str(measure)] = label
        else:
            raise MeasureError(f"Unknown measure {item!r} of type {type(item).__name__}: give a measure name "
                               "('map', 'nDCG@10') or an ir_measures measure")
        objects.append(measure)
        if _summed(measure) and not summed_allowed:
            if rich:
                require_mean_aggregated(parse_measures([item]), context="a bootstrap interval (use bootstrap=None)")
            continue  # pt.Experiment's value, no interval
        if not set(ir_measures.run_inputs([measure])) <= _RANKING or _defined_at_run_time(measure):
            by_query.append((label, measure))
            continue
        try:
            kernel.append(parse_measures([item])[0])
        except (ValueError, TypeError):
            by_query.append((label, measure))
    if not objects:
        raise ArgumentError(f"No measures were found in {eval_metrics}")
    return _Measures(kernel, by_query, objects, for_pt, rename, mrt)


def _summed(measure):
    return isinstance(measure.aggregator(), SumAgg)


def _in_unit_range(measures, values) -> tuple:
    """Per measure, whether its values lie in [0, 1]: by definition (:func:`unit_measure`) and on
    these topics (a custom grade scale could take nDCG outside it; then no range is assumed)."""
    from ..corpus.result import unit_measure  # (the corpus bootstrap's list, loaded when measured)

    inside = ((values >= 0) & (values <= 1)).all(axis=(0, 1)) if values.size else np.ones(values.shape[2], bool)
    return tuple(bool(unit_measure(m) and ok) for m, ok in zip(measures, inside, strict=True))


def _defined_at_run_time(measure):
    """A measure of ``ir_measures.define``/``define_byquery``: it reads the system's output as it is
    (whatever its ``run_inputs`` say), as in ``pt.Experiment``."""
    return getattr(measure, "NAME", None) not in measure_registry()


def _values(runs, keys, qrels: Qrels, measures, *, read: bool, interned: JudgedRuns | None = None,
            chosen: bool = False):
    """Per-topic values ``[system, topic, measure]``: kernel measures, then those through ir_measures.

    The runs are checked here, once (kernel measures need rankings), unless ``read``: frames that
    :func:`~pyterrier_boot.read_runs` returned; or they come ``interned`` (then every measure needs
    a kernel: those through ir_measures need the frames)."""
    kernel, by_query = measures.kernel, measures.by_query
    if interned is not None:
        evaluator = Evaluator(interned, parse_measures(kernel))
        other = [label for label, _ in by_query] + list(evaluator.fallback_measures)
        if other:
            raise ValueError(f"{other} have no kernel: ir_measures computes them from the run frames, so pass the "
                             "runs rather than interned runs")
        values = evaluator.evaluate(np.ones((1, interned.n_docs), np.int32), identity=True)[0]
        return [lm.label for lm in kernel], values, evaluator
    frames = dict(zip(keys, runs, strict=True))
    labels = [lm.label for lm in kernel]
    evaluator = None
    if kernel:
        # as pt.Experiment: topics without judgements are not evaluated (silently when the topics were
        # chosen); unlike it, a run without a judged topic is refused (inputs.overlap)
        evaluator = intern(Runs(frames) if read else read_runs(frames), qrels, parse_measures(kernel),
                           warn_unjudged=not chosen)
        arrays = evaluator.arrays
        values = evaluator.evaluate(np.ones((1, arrays.n_docs), np.int32), identity=True)[0]
        qids = arrays.qids
    else:
        qids = np.array(natural_order(pd.unique(qrels.frame["qid"].to_numpy(object))), dtype=object)
        values = np.zeros((len(runs), len(qids), 0))
        if measures.rankings:  # our checks and messages
            checked = dict(Runs(frames) if read else read_runs(frames))
        else:  # measures reading other columns (answers, contexts): the frames as they are, as pt.Experiment
            checked = {key: _with_qids(key, frame) for key, frame in frames.items()}
        check_topic_overlap({key: run["qid"].unique() for key, run in checked.items()}, qids,
                            ignored=not chosen)  # the same check as interning makes
    if by_query:
        values = np.concatenate([values, _by_query(runs, qrels.frame, by_query, qids)], axis=2)
        labels += [label for label, _ in by_query]
    return labels, values, evaluator


def _with_qids(key, frame):
    """A system's output for measures that read other columns than a ranking: it needs ``qid``."""
    if "qid" not in frame.columns and "query_id" not in frame.columns:
        raise ValueError(f"system {key!r} gives no 'qid' column (it has {list(frame.columns)}): every measure "
                         "needs to know which topic each row answers")
    return frame.rename(columns={"query_id": "qid"}).astype({"qid": str})


def _by_query(runs, qrels_frame, by_query, qids):
    """Per-query values of measures evaluated through ir_measures, as ``pt.Experiment`` evaluates them
    (a topic the run has no value for scores 0)."""
    index = {q: i for i, q in enumerate(qids)}
    column = {measure: j for j, (_, measure) in enumerate(by_query)}
    qrels_irm = pt.model.to_ir_measures(qrels_frame)
    out = np.zeros((len(runs), len(qids), len(by_query)))
    for s, run in enumerate(runs):
        run_irm = pt.model.to_ir_measures(pt.model.coerce_dataframe_types(run))
        for metric in ir_measures.iter_calc([m for _, m in by_query], qrels_irm, run_irm):
            if metric.query_id in index and metric.measure in column:
                out[s, index[metric.query_id], column[metric.measure]] = metric.value
    return out


# ---------------------------------------------------------------- argument checks


def _systems_names_baselines(retr_systems, names, baseline):
    systems, names = named_systems(retr_systems, names)
    if not systems:
        raise ArgumentError("'retr_systems' is empty")
    check_system_types(systems, names)
    for i, s in enumerate(systems):
        if isinstance(s, pd.DataFrame) and {"measure", "value"} <= set(s.columns) and "docno" not in s.columns:
            raise ValueError(
                f"system {names[i]!r} gives per-query scores (qid, measure, value), not a ranking (qid, docno, "
                "score): Experiment evaluates rankings, and the corpus bootstrap resamples their documents; for "
                "per-query scores use pyterrier_boot.compare or pyterrier_boot.bootstrap_ci directly")
    if isinstance(baseline, str) and not isinstance(retr_systems, dict):
        raise BaselineError("baseline should be an int when retr_systems is a list")
    return systems, names, _baseline_positions(baseline, names, len(systems))


def _baseline_positions(baseline, names, n_systems):
    """The positions of ``baseline`` (a position, a name, or a list of them) among ``names``."""
    baselines = []
    for b in ([] if baseline is None else baseline if isinstance(baseline, (list, tuple)) else [baseline]):
        if isinstance(b, str):
            if b not in names:
                raise BaselineError(f"Unknown baseline '{b}'. Valid options are: {', '.join(names)}")
            baselines.append(names.index(b))
        elif isinstance(b, (int, np.integer)) and not isinstance(b, bool) and 0 <= b < n_systems:
            baselines.append(int(b))
        else:
            raise BaselineError(f"baseline {b!r} is not among the systems: give a position 0..{n_systems - 1} "
                                f"or one of the names {names}")
    if len(set(baselines)) < len(baselines):
        raise BaselineError("'baseline' lists a system more than once")
    return baselines


def _check_frame_columns(retr_systems, systems):
    """Frames among the systems have a run's columns: our message, naming the argument, rather than
    ir_measures' on query_id and doc_id."""
    keys = list(retr_systems) if isinstance(retr_systems, dict) else range(len(systems))
    for key, system in zip(keys, systems, strict=True):
        if isinstance(system, pd.DataFrame):
            check_run_columns(system, f"retr_systems[{key!r}]")


def _check_test(test):
    if callable(test):
        return None
    if not isinstance(test, str):
        raise TypeError(f"'test' must be a test's name or a callable test(x, y), got {type(test).__name__}: {test!r}")
    if test not in TESTS:
        raise ArgumentError(f"Unknown test function name {test!r}: expected one of {sorted(set(TESTS))} or a callable")
    return TESTS[test]


def _check_bootstrap(bootstrap, interval, n_resamples):
    if bootstrap is not None and bootstrap not in BOOTSTRAPS:
        raise ValueError(f"Unknown bootstrap {bootstrap!r}: expected 'topic', 'corpus', 'both' or None")
    if bootstrap is None:
        return None, None, n_resamples
    interval = DEFAULT_INTERVAL[bootstrap] if interval is None else interval
    valid = {"topic": TOPIC_METHODS, "corpus": CORPUS_METHODS, "both": JOINT_METHODS}[bootstrap]
    valid = tuple(m for m in valid if m != "z")  # z needs a known sigma
    if interval not in valid:
        raise ValueError(f"Unknown interval {interval!r} for bootstrap={bootstrap!r}: expected one of {list(valid)}")
    if n_resamples is None:
        n_resamples = 10_000 if bootstrap == "topic" else 1_000
    return bootstrap, interval, check_n_resamples(n_resamples)


def _check_memory(bootstrap, n_resamples, test, S, P, Q, M, max_memory):
    """The bootstrap's memory, estimated from the counts of systems, comparisons, judged topics and
    measures before any system runs (see ``max_memory``)."""
    if bootstrap is None and test != "paired_bootstrap":
        return
    B = n_resamples if bootstrap is not None else 10_000
    topic = bootstrap in ("topic", "both") or test == "paired_bootstrap"
    kept = (S + P) * M if bootstrap is not None else 0
    corpus = S * Q * M if bootstrap in ("corpus", "both") else 0
    require_resamples_memory(
        B, max_memory, what=f"the {bootstrap or 'topic'} bootstrap of {S:,} system(s) x {Q:,} topics x {M:,} "
        f"measure(s)", plan_topics=Q if topic else 0, floats=kept + corpus + 4 * max(S, P, 1))


def _check_options(perquery, baselines, correction, round, save_dir, save_mode, plan, names):
    if baselines and perquery:
        raise ArgumentError(f"a baseline cannot be combined with perquery={perquery!r} (as in pt.Experiment): "
                            "per-query values have no baseline columns; use pyterrier_boot.experiment_result")
    if correction is not None and not baselines:
        raise ValueError("Requested multiple testing correction, but no baseline was specified.")
    if round is not None:
        if isinstance(round, bool) or not isinstance(round, (int, dict)):
            raise ValueError("Argument round should be an integer or a dictionary")
        values = round.values() if isinstance(round, dict) else [round]
        if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in values):
            raise ArgumentError(f"'round' must hold integers >= 0, got {round!r}")
        if isinstance(round, dict) and perquery:
            raise ArgumentError("Sorry, per-measure rounding only support when reporting means")
    if plan not in ("linear", "tree"):
        raise ValueError(f"Unknown plan {plan!r}: expected 'linear' or 'tree'")
    if save_dir is not None:
        if plan == "tree":
            raise ValueError("save_dir is not yet supported for tree execution plan")
        if not os.path.exists(save_dir):
            raise ValueError(f"save_dir {save_dir} does not exist")
        if not os.path.isdir(save_dir):
            raise ValueError(f"save_dir {save_dir} is not a directory")
        if save_mode not in SAVE_MODES:
            raise ValueError(f"Unknown save_mode argument '{save_mode}', valid options are 'error', 'warn', "
                             "'reuse' or 'overwrite'.")
        for n in names:
            if not pt.io.ok_filename(n):
                raise ValueError(f"Name contains bad characters and save_dir is set, name is {n}")
        if len(set(names)) < len(names):
            raise ValueError("save_dir is set, but names are not unique. Use names= to set unique names")


def _check_running(plan, verbose, batch_size, correction, correction_alpha):
    """``verbose`` of the tree plan, ``batch_size`` and ``correction_alpha``, with pt.Experiment's error
    types (AssertionError, or TypeError for a value of the wrong type)."""
    if plan == "tree" and verbose not in ("auto", True, False):
        raise ArgumentError(f"'verbose' must be 'auto', True or False with plan='tree', got {verbose!r}")
    if batch_size is not None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"'batch_size' must be a positive integer or None, got {type(batch_size).__name__}: "
                            f"{batch_size!r}")
        if batch_size < 1:
            raise ArgumentError(f"'batch_size' must be a positive integer or None, got {batch_size}")
    if correction is not None:
        if isinstance(correction_alpha, bool) or not isinstance(correction_alpha, (int, float, np.number)):
            raise TypeError(f"'correction_alpha' must be a number in (0, 1), got {type(correction_alpha).__name__}: "
                            f"{correction_alpha!r}")
        if not 0 < correction_alpha < 1:
            raise ValueError(f"'correction_alpha' must be in (0, 1), got {correction_alpha}")


def _validate(systems, names, topics, measures, validate):
    """Check that the systems produce the columns the measures read (``pt.Experiment(validate=...)``):
    a system that does not is an error with ``validate="error"``, a warning otherwise; one that
    cannot be inspected is a warning."""
    required = set(pt.model.from_ir_measures(ir_measures.run_inputs(measures)))
    problems, uninspectable = [], []
    for name, system in zip(names, systems):
        if isinstance(system, pd.DataFrame):
            columns = list(system.columns)
        else:
            try:
                columns = pt.inspect.transformer_outputs(system, input_columns=list(topics.columns)) or []
            except pt.validate.InputValidationError as error:
                problems.append(f"{name} cannot run on the topics ({error})")
                continue
            except Exception:  # noqa: BLE001 -- pt.inspect cannot tell what it produces
                uninspectable.append(name)
                continue
        missing = required - set(columns)
        if missing:
            problems.append(f"{name} does not produce {sorted(missing)} (produces {columns})")
    if problems and validate == "error":
        raise ValueError("Experiment pipeline validation: " + "; ".join(problems))
    if uninspectable:
        problems.append(f"{uninspectable} could not be inspected (set validate='ignore' if they work)")
    if problems:
        warnings.warn("Experiment pipeline validation: " + "; ".join(problems), InputWarning, stacklevel=4)


# ---------------------------------------------------------------- bootstraps


def _corpus(evaluator, values, qrels_read: Qrels, n_images, model, rng, verbose, settings: _Settings):
    """The corpus bootstrap of the experiment, within its ``max_memory``, on its ``executor``."""
    from ..corpus.bootstrap import CorpusBootstrap

    boot = CorpusBootstrap(qrels_read, n_images=n_images, model=model, corpus_size=qrels_read.corpus_size,
                           rng=rng, verbose=verbose, max_memory=settings.max_memory, executor=settings.executor)
    return boot.evaluate_prepared(evaluator, statistic=values)
