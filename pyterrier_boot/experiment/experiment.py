"""``Experiment``: ``pt.Experiment`` with confidence intervals and better significance columns."""
import os
import warnings

import numpy as np
import pandas as pd
import pyterrier as pt

from .._random import as_generator
from .._warnings import InputWarning
from ..inputs.qrels import read_qrels
from ..inputs.topics import read_topics
from ..measures.evaluation import prepare
from ..measures.parsing import parse_measures, require_mean_aggregated
from ..stats.intervals import METHODS as TOPIC_METHODS
from ..stats.resampling import resample_plan
from .execution import SAVE_MODES, run_systems
from .result import Comparisons, ExperimentResult
from .uncertainty import BOOTSTRAPS, JOINT_METHODS, difference_spreads, mean_spreads

# test names pt.Experiment accepts, and ours (both spellings of the bootstrap test)
TESTS = {"t": "t", "wilcoxon": "wilcoxon", "paired-bootstrap": "paired_bootstrap",
         "paired_bootstrap": "paired_bootstrap", "randomization": "randomization", "sign": "sign"}
CORPUS_METHODS = ("percentile", "normal", "logit", "bca")
# corpus images shift rank-sensitive measures (RR, P@k) down, so percentile intervals of the corpus
# bootstrap can miss the value measured on the collection; the default interval is centred on it
# the topic default is the method that covers best at small topic sets (see stats.intervals.default_method)
DEFAULT_INTERVAL = {"topic": "studentized", "corpus": "normal", "both": "normal"}


def Experiment(retr_systems, topics, qrels, eval_metrics, names=None, perquery=False, dataframe=True,
               batch_size=None, filter_by_qrels=False, filter_by_topics=True, baseline=None, test="t",
               correction=None, correction_alpha=0.05, highlight=None, round=None, verbose="auto",
               validate="warn", save_dir=None, save_mode="warn", save_format="trec",
               precompute_prefix=False, plan="linear", *, bootstrap="topic", n_resamples=None,
               confidence_level=0.95, interval=None, corpus_size=None, model="poisson", rng=None, **kwargs):
    """``pt.Experiment`` with confidence intervals from the topic and/or corpus bootstrap.

    Every argument of ``pt.Experiment`` works and means the same; without new arguments the means
    and p-values equal ``pt.Experiment``'s, and each mean gets a 95% topic-bootstrap interval.
    Each system runs once.

    New arguments:
        bootstrap: ``"topic"`` (default: topics resampled, Sakai 2007), ``"corpus"`` (documents of
            the collection resampled, Cormack & Lynam 2006; Zobel & Rashidi 2020), ``"both"``
            (replicate ``b`` resamples topics *and* takes values on corpus image ``b``) or None.
        n_resamples: topic resamples (default 10,000) or corpus images (default 1,000; also the
            replicates of ``"both"``).
        confidence_level: of every interval (default 0.95).
        interval: interval method: for the topic bootstrap ``"studentized"`` (default: it covers 95%
            within ±0.5 points from 10 topics up on real TREC scores), ``"bca"``, ``"percentile"``,
            ``"basic"``, ``"normal"``, ``"t"``; for the corpus bootstrap
            ``"normal"`` (default: value ± z·SE over images), ``"percentile"``, ``"logit"``,
            ``"bca"``; for both ``"normal"`` (default), ``"percentile"``, ``"basic"``. Corpus images
            move rank-sensitive measures (RR, P@k) down on average, so a percentile interval of
            the corpus bootstrap can miss the value measured on the collection: the defaults are
            centred on it. Differences use the same method (``"logit"`` falls back to
            ``"percentile"`` for differences, which are not in [0, 1]).
        test: also ``"paired-bootstrap"`` (Sakai's studentised test), ``"randomization"``,
            ``"sign"``, besides ``"t"`` (default) and ``"wilcoxon"`` as in ``pt.Experiment``, or a
            callable ``test(x, y)`` whose result has the p-value at ``[1]``. Tests are over topics,
            and the ``diff`` interval beside them is the interval the test inverts, so
            ``p < 1 - confidence_level`` exactly when it excludes 0. With ``bootstrap="corpus"`` or
            ``"both"`` the p-value is instead the replicate test of the difference over the same
            replicates as its interval (corpus variance in both; ``test`` is then unused). With
            ``correction`` Bonferroni/Sidak the intervals are simultaneous, with step-wise
            corrections unadjusted (docs: "One verdict per row").
        baseline: as in ``pt.Experiment`` (a position, or a name when systems are a dict), or a list
            of them; with several baselines the baseline columns end in ``" vs <baseline>"``.
        corpus_size, model: the corpus bootstrap's ``N`` and image model (``"poisson"`` or
            ``"multinomial"``, which needs ``N``: given, or read from an ir_datasets qrels source).
        rng: seed or Generator (SPEC 7); the same ``rng`` gives the identical table.

    Output: ``name``, for each measure ``"<m>"``, ``"<m> ci_low"``, ``"<m> ci_high"``; with a
    baseline also ``"<m> +"``, ``"<m> -"``, ``"<m> diff"``, ``"<m> diff ci_low"``,
    ``"<m> diff ci_high"``, ``"<m> effect size"`` (mean difference / SD of the differences),
    ``"<m> p-value"`` and, when correcting, ``"<m> reject"`` and ``"<m> p-value corrected"``.
    ``perquery=True`` gives the long table (with per-topic corpus-bootstrap intervals when the
    corpus bootstrap ran); ``dataframe=False`` an :class:`ExperimentResult` with ``table()``,
    ``per_query()``, ``pairwise()``, ``ranks()``, ``distribution()`` and ``to_latex()``.

    Conventions: topics are those of the qrels (after ``filter_by_topics``); a system with no
    result for a topic scores 0 on it; measures follow trec_eval / ir_measures (see
    :func:`pyterrier_boot.evaluate`). Measures summed over topics (``NumRet``, ...) are allowed
    only with ``bootstrap=None``.

    Example:
        >>> import pyterrier as pt
        >>> import pyterrier_boot                                                # doctest: +SKIP
        >>> pt.boot.Experiment([bm25, dph], topics, qrels, ["map", "ndcg_cut_10"],
        ...                    names=["BM25", "DPH"], baseline=0, rng=42)       # doctest: +SKIP
    """
    if kwargs:
        raise TypeError(f"Unknown kwargs: {list(kwargs)}")
    systems, names, baselines = _systems_names_baselines(retr_systems, names, baseline)
    test_name = _check_test(test)
    bootstrap, interval, n_resamples = _check_bootstrap(bootstrap, interval, n_resamples)
    if bootstrap in ("corpus", "both") and baseline is not None and test != "t":
        warnings.warn(f"test={test!r} is not used with bootstrap={bootstrap!r}: the p-values are the {bootstrap}-"
                      "bootstrap test over the same replicates as the difference intervals (corpus variance in "
                      "both); use bootstrap='topic' for a test over topics", InputWarning, stacklevel=2)
    _check_options(perquery, baselines, correction, round, save_dir, save_mode, plan, names, highlight)
    mrt_needed = "mrt" in list(eval_metrics)
    metrics = [m for m in eval_metrics if m != "mrt"]
    measures = parse_measures(metrics)
    if bootstrap is not None:
        require_mean_aggregated(measures, context="a bootstrap interval (use bootstrap=None)")

    qrels_read = read_qrels(qrels, corpus_size=corpus_size)
    qrels_frame = qrels_read.frame
    topics = read_topics(topics) if topics is not None else None
    if topics is None and any(not isinstance(s, pd.DataFrame) for s in systems):
        raise ValueError("'topics' are needed to run the systems that are transformers")
    if topics is not None and filter_by_qrels:
        topics = topics[topics["qid"].isin(set(qrels_frame["qid"]))]
        if len(topics) == 0:
            raise ValueError("There is no overlap between the qids found in the topics and qrels. If this is "
                             "intentional, set filter_by_topics=False and filter_by_qrels=False.")
    if topics is not None and filter_by_topics:
        qrels_frame = qrels_frame[qrels_frame["qid"].isin(set(topics["qid"]))]
        if len(qrels_frame) == 0:
            raise ValueError("There is no overlap between the qids found in the topics and qrels. If this is "
                             "intentional, set filter_by_topics=False and filter_by_qrels=False.")
    if validate != "ignore":
        _validate(systems, names, topics, validate)

    executed = run_systems(systems, names, topics, batch_size=batch_size, save_dir=save_dir,
                           save_mode=save_mode, save_format=save_format,
                           share_prefix=precompute_prefix or plan == "tree",
                           verbose=verbose is True)
    evaluator, _ = prepare(executed.runs, qrels_frame, measures)
    arrays = evaluator.arrays
    values = evaluator.evaluate(np.ones((1, arrays.n_docs), np.int32), identity=True)[0]
    if arrays.n_topics < 2 and (bootstrap is not None or baselines):
        raise ValueError(f"only {arrays.n_topics} topic is judged: intervals and tests need at least 2 topics")

    topic_rng, corpus_rng = as_generator(rng).spawn(2)
    topic_plan = None
    corpus = None
    if bootstrap in ("topic", "both") or test_name == "paired_bootstrap":
        size = n_resamples if bootstrap is not None else 10_000
        topic_plan = resample_plan(arrays.n_topics, n_resamples=size, rng=topic_rng)
    if bootstrap in ("corpus", "both"):
        corpus = _corpus(evaluator, values, qrels_read, qrels_frame, n_resamples, model, corpus_rng, verbose is True)

    intervals, distribution = mean_spreads(values, bootstrap, interval, confidence_level, topic_plan, corpus)
    comparisons = None
    if baselines:
        comparisons = Comparisons.build(values, names, baselines, [m.label for m in evaluator.measures],
                                        test=test if test_name is None else test_name, plan=topic_plan,
                                        rng=topic_rng, correction=correction, correction_alpha=correction_alpha,
                                        confidence_level=confidence_level, bootstrap=bootstrap, interval=interval,
                                        corpus=corpus)
        if comparisons.distribution is None and bootstrap is not None:
            comparisons = comparisons.with_intervals(comparisons.intervals, difference_spreads(
                values, comparisons.system_index, comparisons.baseline_index, bootstrap, interval,
                confidence_level, topic_plan, corpus)[1])

    n_q = arrays.n_topics
    result = ExperimentResult(
        names=tuple(names),
        qids=tuple(arrays.qids.tolist()),
        measures=tuple(m.label for m in evaluator.measures),
        summed=tuple(type(m.measure.aggregator()).__name__ == "SumAgg" for m in evaluator.measures),
        values=values,
        bootstrap=bootstrap,
        interval=interval,
        confidence_level=confidence_level,
        intervals=intervals,
        distribution_=distribution,
        corpus=corpus,
        comparisons=comparisons,
        mrt={n: executed.milliseconds[n] / n_q for n in names} if mrt_needed else None,
        round=round,
        topics=tuple(topics["qid"]) if topics is not None else None,
        plan=topic_plan,
    )
    if save_dir is not None:
        result.save_summaries(save_dir)
    if perquery:
        per_query = result.per_query()
        if perquery == "both":
            return (result.table(highlight=highlight), per_query) if dataframe else (result, per_query)
        return per_query
    return result.table(highlight=highlight) if dataframe else result


# ---------------------------------------------------------------- argument checks


def _systems_names_baselines(retr_systems, names, baseline):
    if isinstance(retr_systems, dict):
        names = [str(n) for n in retr_systems]
        systems = list(retr_systems.values())
    elif isinstance(retr_systems, (list, tuple)):
        systems = list(retr_systems)
        if names is None:
            names = [str(s) if not isinstance(s, pd.DataFrame) else f"run {i}" for i, s in enumerate(systems)]
        elif len(names) != len(systems):
            raise ValueError("names should be the same length as retr_systems")
        names = [str(n) for n in names]
    else:
        raise TypeError(f"Expected list or dict of transformers for retr_systems, instead received {type(retr_systems)}")
    if not systems:
        raise ValueError("'retr_systems' is empty")
    for i, s in enumerate(systems):
        if not isinstance(s, (pd.DataFrame, pt.Transformer)):
            raise TypeError(f"system {names[i]!r} is a {type(s).__name__}: expected a Transformer or a DataFrame")
        if isinstance(s, pd.DataFrame) and {"measure", "value"} <= set(s.columns) and "docno" not in s.columns:
            raise ValueError(
                f"system {names[i]!r} gives per-query scores (qid, measure, value), not a ranking (qid, docno, "
                "score): Experiment evaluates rankings, and the corpus bootstrap resamples their documents; for "
                "per-query scores use pyterrier_boot.compare or pyterrier_boot.bootstrap_ci directly")
    if len(set(names)) < len(names):
        duplicated = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"two systems are named {duplicated[0]!r}: use names= to name them apart")
    baselines = []
    for b in ([] if baseline is None else baseline if isinstance(baseline, (list, tuple)) else [baseline]):
        if isinstance(b, str):
            if b not in names:
                raise ValueError(f"Unknown baseline '{b}'. Valid options are: {', '.join(names)}")
            baselines.append(names.index(b))
        elif isinstance(b, (int, np.integer)) and not isinstance(b, bool) and 0 <= b < len(systems):
            baselines.append(int(b))
        else:
            raise ValueError(f"baseline {b!r} is not among the systems: give a position 0..{len(systems) - 1} "
                             f"or one of the names {names}")
    if len(set(baselines)) < len(baselines):
        raise ValueError("'baseline' lists a system more than once")
    return systems, names, baselines


def _check_test(test):
    if callable(test):
        return None
    if test not in TESTS:
        raise ValueError(f"Unknown test function name {test!r}: expected one of {sorted(set(TESTS))} or a callable")
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
    if not isinstance(n_resamples, (int, np.integer)) or isinstance(n_resamples, bool) or n_resamples < 2:
        raise ValueError(f"'n_resamples' must be an integer >= 2, got {n_resamples!r}")
    return bootstrap, interval, int(n_resamples)


def _check_options(perquery, baselines, correction, round, save_dir, save_mode, plan, names, highlight):
    if perquery not in (False, True, "both"):
        raise ValueError(f"'perquery' must be True, False or 'both', got {perquery!r}")
    if baselines and perquery is True:
        raise ValueError("a baseline cannot be combined with perquery=True (as in pt.Experiment): per-query "
                         "values have no baseline columns; use perquery='both' or dataframe=False")
    if correction is not None and not baselines:
        raise ValueError("Requested multiple testing correction, but no baseline was specified.")
    if round is not None:
        if isinstance(round, bool) or not isinstance(round, (int, dict)):
            raise ValueError("Argument round should be an integer or a dictionary")
        values = round.values() if isinstance(round, dict) else [round]
        if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in values):
            raise ValueError(f"'round' must hold integers >= 0, got {round!r}")
    if highlight not in (None, "bold", "color", "colour"):
        raise ValueError(f"Unknown highlight {highlight!r}: expected 'bold', 'color' or None")
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


def _validate(systems, names, topics, validate):
    """Check that transformers produce qid, docno and score (``pt.Experiment(validate=...)``)."""
    problems = []
    for name, system in zip(names, systems):
        if isinstance(system, pd.DataFrame):
            columns = list(system.columns)
        else:
            try:
                columns = pt.inspect.transformer_outputs(system, input_columns=list(topics.columns)) or []
            except Exception:  # noqa: BLE001 -- pt.inspect cannot tell: nothing to report
                continue
        missing = {"qid", "docno", "score"} - set(columns)
        if missing:
            problems.append(f"{name} does not produce {sorted(missing)} (produces {columns})")
    if problems:
        message = "Experiment pipeline validation: " + "; ".join(problems)
        if validate == "error":
            raise ValueError(message)
        warnings.warn(message, InputWarning, stacklevel=3)


# ---------------------------------------------------------------- bootstraps


def _corpus(evaluator, values, qrels_read, qrels_frame, n_images, model, rng, verbose):
    from ..corpus.bootstrap import CorpusBootstrap

    boot = CorpusBootstrap(qrels_read, n_images=n_images, model=model, corpus_size=qrels_read.corpus_size,
                           rng=rng, verbose=verbose)
    return boot.evaluate_prepared(evaluator, statistic=values)
