"""``across_collections``: the same systems on several test collections, for these collections and
for a new one.

Each collection's standard error is the one its result's intervals include
(:meth:`ExperimentResult.estimates <pyterrier_boot.ExperimentResult.estimates>`). Errors, each
naming the argument: fewer than two collections (nothing to pool), a collection named twice or
given twice under two names (the same result, or the same per-topic scores), a system missing from
a collection, a collection without the measure, collections whose intervals include different
variances or levels. ``pt_docs/seeds_and_collections.md`` says which figure answers which question.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._batches import check_executor
from .._checks import check_confidence_level
from .._memory import DEFAULT_MAX_MEMORY
from .._warnings import DegenerateWarning, one_warning_per_kind, report
from ..meta.random_effects import PREDICTIONS, TAU2_METHODS
from .effects import collection_effects
from .inputs import collection_results
from .result import AcrossCollections

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor

    from .._typing import MeasureLike, RngLike

__all__ = ["across_collections"]


def _across_iv(measure, baseline, standardize, tau2_method, hksj, prediction, confidence_level, verbose):
    import ir_measures

    if not isinstance(measure, (str, ir_measures.Measure)):
        raise TypeError(f"'measure' must be one measure, a name ('nDCG@10', 'map') or an ir_measures measure, got "
                        f"{type(measure).__name__}")
    if tau2_method not in TAU2_METHODS:
        raise ValueError(f"'tau2_method' must be one of {TAU2_METHODS}, got {tau2_method!r}")
    if prediction not in PREDICTIONS:
        raise ValueError(f"'prediction' must be one of {PREDICTIONS}, got {prediction!r}")
    for name, value in (("hksj", hksj), ("standardize", standardize), ("verbose", verbose)):
        if not isinstance(value, bool):
            raise TypeError(f"{name!r} must be True or False, got {value!r}")
    if standardize and baseline is None:
        raise ValueError("'standardize' applies to differences: give a 'baseline' (each collection's difference "
                         "from it is divided by the SD of its per-topic differences)")
    if baseline is not None and not isinstance(baseline, str):
        raise TypeError(f"'baseline' must be a system's name, got {type(baseline).__name__}")
    return None if confidence_level is None else check_confidence_level(confidence_level)


@one_warning_per_kind()
def across_collections(results: Any, measure: MeasureLike, *, baseline: str | None = None,
                       standardize: bool = False, tau2_method: str = "REML", hksj: bool = True,
                       prediction: str = "q-profile", systems: Sequence[str] | None = None,
                       confidence_level: float | None = None, bootstrap: str | None = "topic",
                       n_resamples: int | None = None, interval: str | None = None, seeds: str | None = None,
                       names: Sequence[str] | None = None, rng: RngLike = None, executor: Executor | None = None,
                       max_memory: int | str | None = DEFAULT_MAX_MEMORY, verbose: bool = False) -> AcrossCollections:
    """The same systems on several test collections: what holds for these collections, and for a new one.

    Args:
        results: each collection's name mapped to its :class:`~pyterrier_boot.ExperimentResult`,
            or to ``(runs, qrels)`` (anything :func:`~pyterrier_boot.experiment_result` takes, lists of
            runs of a system included; qrels may be an ir_datasets id: ``"irds:beir/scifact/test"``); a
            collection named ``"irds:<id>"`` may map to its runs alone. A list of pairs works too.
        measure: the measure compared (its label in the results, or the same measure written
            another way: ``"ndcg_cut_10"`` finds ``"nDCG@10"``).
        baseline: a system: the figures are the others' differences from it (default: means).
        standardize: with a baseline, each collection's difference over the SD of its per-topic
            differences (Hedges' g), where the measure's scale differs between collections.
        tau2_method, hksj, prediction: the random-effects model of :meth:`~AcrossCollections.pooled`
            (:func:`~pyterrier_boot.random_effects`): REML ``τ²`` (``"DL"``, ``"PM"``), the HKSJ interval
            (``hksj=False``: normal), the prediction interval from ``τ²``'s confidence distribution
            (``"higgins"``, ``"hksj"``: plug-in forms).
        systems: the systems to compare (default: all; every collection must hold them).
        confidence_level: of every interval (default: the results' own, 0.95 for runs).
        bootstrap, n_resamples, interval, seeds, names, rng, executor, max_memory: for collections
            given as runs, as :func:`~pyterrier_boot.experiment_result` (one child stream of ``rng``
            each; None: 42); with ``seeds="random"`` (the default for several runs) each collection's
            standard error includes the systems' seed variance.
        verbose: a progress bar over the collections.
    Returns:
        :class:`~pyterrier_boot.across.result.AcrossCollections`: ``per_collection()``, ``average()``
        (these collections), ``pooled()`` (a population of collections: interval, prediction interval
        for a new collection, ``τ²``, ``I²``), ``leaderboard()``, ``plot_forest()``, ``save()``, ...

    Example:
        >>> import pyterrier_boot as ptb
        >>> sims = {f"C{c}": ptb.simulate_collection(n_topics=30, n_systems=3, depth=50, pool_depth=10, rng=c)
        ...         for c in range(3)}
        >>> res = ptb.across_collections({c: (s.runs, s.qrels) for c, s in sims.items()}, "AP",
        ...                              baseline="S1", n_resamples=1000)
        >>> res.pooled().columns.tolist()[:7]
        ['system', 'estimate', 'se', 'df', 'ci_low', 'ci_high', 'pi_low']

    References:
        Soboroff (2018), CIKM; IntHout, Ioannidis & Borm (2014); Nagashima, Noma & Furukawa (2019).
    """
    level = _across_iv(measure, baseline, standardize, tau2_method, hksj, prediction, confidence_level, verbose)
    collections = collection_results(
        results, measure, systems=systems, bootstrap=bootstrap, n_resamples=n_resamples, confidence_level=level,
        rng=rng, executor=check_executor(executor), interval=interval, max_memory=max_memory, verbose=verbose,
        seeds=seeds, names=names)
    _check_baseline(baseline, collections.systems)
    label = collections.labels[0] if len(set(collections.labels)) == 1 else str(measure)
    result = AcrossCollections(effects=collection_effects(collections), measure=label, labels=collections.labels,
                               baseline=baseline, standardize=standardize, tau2_method=tau2_method, hksj=hksj,
                               confidence_level=collections.confidence_level, results=collections.results,
                               prediction=prediction)
    return _warned_unweighable(result)


def _check_baseline(baseline: str | None, systems: Sequence[str]) -> None:
    if baseline is not None and baseline not in systems:
        raise ValueError(f"'baseline': {baseline!r} is not one of the systems {list(systems)}")
    if baseline is not None and len(systems) < 2:
        raise ValueError(f"'baseline': {baseline!r} is the only system: there is no difference to compare "
                         "(give other systems, or no baseline for its mean)")


def _warned_unweighable(result: AcrossCollections) -> AcrossCollections:
    """One warning naming the (collection, system) whose standard error is 0: a system equal to the
    baseline (or constant) on every topic has nothing to weigh it by, so its pooled figures are NaN."""
    e = result.per_collection()
    zero = e[e["se"] == 0]
    report(DegenerateWarning, "{n} collection(s) give a system a standard error of 0 (the same score, or difference, "
           "on every topic): the pooled figures of those systems are NaN: {cases}",
           [f"{c}: {s}" for c, s in zip(zero["collection"], zero["system"], strict=True)])
    return result
