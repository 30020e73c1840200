"""The collections of an analysis across collections, read and checked at the door.

Each collection is an :class:`~pyterrier_boot.ExperimentResult`, or runs and qrels that are
evaluated here (:func:`~pyterrier_boot.experiment_result`, one random stream per collection); every
collection must hold the same systems and the measure, with intervals of the same kind.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyterrier as pt

from .._random import DEFAULT_SEED, as_generator
from ..experiment.result import ExperimentResult
from ..inputs.qrels import IRDS_PREFIX
from .effects import collection_figures

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from .._typing import MeasureLike, RngLike

__all__ = ["Collections", "collection_results"]


@dataclass(frozen=True)
class Collections:
    """The collections' names, the label of the measure in each, the systems compared, each
    collection's figures (:func:`~pyterrier_boot.across.effects.collection_figures`) and result
    (None for those evaluated here from runs: only their figures are kept), and the level."""

    names: tuple[str, ...]
    labels: tuple[str, ...]
    systems: tuple[str, ...]
    figures: tuple[dict, ...]
    results: tuple[ExperimentResult | None, ...]
    confidence_level: float


class _Seen(NamedTuple):
    """What the checks read of a collection's result (its arrays are not kept)."""

    names: tuple
    bootstrap: str | None
    confidence_level: float
    seeds: str | None = None


def _items(results: Any) -> list[tuple[str, Any]]:
    """``(name, collection)`` pairs from a mapping or a sequence of pairs; names unique."""
    if isinstance(results, Mapping):
        items = list(results.items())
    elif isinstance(results, Sequence) and not isinstance(results, str) and all(
            isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2 for item in results):
        items = [tuple(item) for item in results]
        unnamed = [type(name).__name__ for name, _ in items if not isinstance(name, str)]
        if unnamed:
            raise TypeError("'results' is a list whose pairs must be (collection name, result or (runs, qrels)), "
                            f"but a pair starts with a value of type {unnamed[0]}, not a name; name each collection: "
                            "{'dl19': (runs, qrels), 'dl20': (runs, qrels)}")
    else:
        raise TypeError("'results' must map each collection's name to its ExperimentResult or to (runs, qrels), "
                        f"or be a list of (name, result) pairs; got {type(results).__name__}")
    names = [str(name) for name, _ in items]
    if len(items) < 2:
        what = "no collection" if not items else f"one collection ({names[0]!r})"
        raise ValueError(f"'results' holds {what}: nothing to pool across collections; give two or more "
                         "collections (for one, its ExperimentResult has the intervals)")
    return [(n, item) for n, (_, item) in zip(names, items, strict=True)]


def _source(name: str, item: Any) -> tuple[str, Any]:
    """``(collection name, its result or (runs, qrels))``: a name ``irds:<id>`` holding runs
    takes its qrels from ir_datasets and is named ``<id>``."""
    if isinstance(item, ExperimentResult):
        return name, item
    if isinstance(item, tuple) and len(item) == 2:
        return name, item
    if name.startswith(IRDS_PREFIX):
        return name[len(IRDS_PREFIX):], (item, name)
    raise TypeError(f"'results': collection {name!r} must be an ExperimentResult or a pair (runs, qrels), got "
                    f"{type(item).__name__} (runs alone need a collection named 'irds:<ir_datasets id>')")


def _label(result: ExperimentResult, measure: MeasureLike, collection: str) -> str:
    """The label under which ``result`` holds ``measure`` (written the same way, or parsed equal)."""
    from ..measures.parsing import parse_measures

    if isinstance(measure, str) and measure in result.measures:
        return measure
    wanted = parse_measures([measure])[0].measure
    for label in result.measures:
        try:
            if parse_measures([label])[0].measure == wanted:
                return label
        except (ValueError, TypeError):  # a label ir_measures cannot parse is another measure
            continue
    raise ValueError(f"'measure': collection {collection!r} has no {str(measure)!r} (its measures: "
                     f"{list(result.measures)}); the same measure is needed on every collection")


def _check_systems(names, results, systems):
    """The systems compared: ``systems``, or those of every collection, which must be the same."""
    if systems is not None:
        systems = [str(s) for s in ([systems] if isinstance(systems, str) else systems)]
        if len(systems) < 1 or len(set(systems)) < len(systems):
            raise ValueError(f"'systems' must name each system once, got {systems}")
    wanted = list(systems) if systems is not None else list(results[0].names)
    missing = {s: [repr(n) for n, r in zip(names, results, strict=True) if s not in r.names] for s in wanted}
    problems = [f"system {s!r} is missing from {', '.join(where)}" for s, where in missing.items() if where]
    if systems is None:
        for name, result in zip(names[1:], results[1:], strict=True):
            problems += [f"system {s!r} is only in {name!r}" for s in result.names if s not in wanted]
    if problems:
        argument = "'systems'" if systems is not None else "'results': every collection must hold the same systems"
        shown = "; ".join(problems[:8]) + (f"; and {len(problems) - 8} more" if len(problems) > 8 else "")
        raise ValueError(f"{argument}: {shown}"
                         + ("" if systems is not None else "; pass systems=[...] to compare those they share"))
    return tuple(wanted)


def _check_kinds(names, results, confidence_level):
    """One kind of variance and one confidence level for all collections: the level, checked."""
    kinds = {n: r.bootstrap or "topic" for n, r in zip(names, results, strict=True)}
    if len(set(kinds.values())) > 1:
        raise ValueError(f"'results': the collections' intervals include different variances (bootstrap {kinds}): "
                         "their standard errors cannot be pooled as one kind; run them with the same bootstrap")
    seeds = {n: "random" if r.seeds == "random" else "none" for n, r in zip(names, results, strict=True)}
    if len(set(seeds.values())) > 1:
        with_seeds = [n for n, v in seeds.items() if v == "random"]
        raise ValueError(f"'results': the standard errors of {with_seeds} include the seed variance (seeds='random', "
                         f"several runs per system) and those of {[n for n in seeds if n not in with_seeds]} do not: "
                         "give every collection all its runs, or seeds='fixed' everywhere")
    levels = {n: r.confidence_level for n, r in zip(names, results, strict=True)}
    if confidence_level is not None:
        differ = {n: v for n, v in levels.items() if v != confidence_level}
        if differ:
            raise ValueError(f"'confidence_level' {confidence_level:g} differs from the level of the collections' "
                             f"intervals ({differ}): give results made at that level, or leave it None")
    elif len(set(levels.values())) > 1:
        raise ValueError(f"'results': the collections' intervals have different confidence levels {levels}")
    return next(iter(levels.values())) if confidence_level is None else confidence_level


def _evaluated(name: str, runs: Any, qrels: Any, measure: MeasureLike, options: dict[str, Any],
               rng: Any) -> ExperimentResult:
    """The result of the runs of collection ``name``; its errors name the collection."""
    from ..experiment.experiment import experiment_result

    try:
        return experiment_result(runs, None, qrels, [measure], rng=rng, **options)
    except (ValueError, TypeError) as error:
        raise type(error)(f"collection {name!r}: {error}") from None


def _checked_names(results: Any) -> list[tuple[str, Any]]:
    """``(name, result or (runs, qrels))`` of every collection, each name once."""
    items = [_source(name, item) for name, item in _items(results)]
    names = [name for name, _ in items]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"'results': the collection names {repeated} are given more than once: name each "
                         "collection once (a collection counted twice would weigh twice in the average and the pool)")
    return items


def _check_once(name: str, result: ExperimentResult, label: str, given: bool,
                seen: dict[str, tuple[str, ExperimentResult | None]]) -> None:
    """A ValueError when collection ``name`` is one seen before under another name: the same
    result, or the same per-topic ``label`` values of the same systems on the same topics (``seen``:
    digest -> first name and, given, its result)."""
    values = np.ascontiguousarray(result.values[:, :, result.measures.index(label)], dtype=np.float64)
    digest = hashlib.sha256(repr((result.names, result.qids)).encode() + values.tobytes()).hexdigest()
    if digest in seen:
        first, earlier = seen[digest]
        how = ("the same ExperimentResult" if earlier is result
               else f"the same per-topic {label} of every system on the same topics")
        raise ValueError(f"'results': collections {first!r} and {name!r} are one collection given twice ({how}): "
                         "it would weigh twice in the average and the pool; give each collection once")
    seen[digest] = (name, result if given else None)


def _digested(items, measure, systems, confidence_level, run_options, streams, verbose):
    """Each collection's result (given, or evaluated from its runs), checked against those before
    it, and its figures: ``(labels, figures, results kept, systems, confidence level)``."""
    seen: list[_Seen] = []
    digests: dict[str, tuple[str, ExperimentResult | None]] = {}
    labels, figures, kept = [], [], []
    with pt.tqdm(total=len(items), desc="across_collections", unit="collection", disable=not verbose) as bar:
        for (name, item), stream in zip(items, streams, strict=True):
            given = isinstance(item, ExperimentResult)
            result = item if given else _evaluated(name, item[0], item[1], measure, run_options, stream)
            labels.append(_label(result, measure, name))
            if len(result.qids) < 2:
                raise ValueError(f"'results': collection {name!r} judges {len(result.qids)} topic(s): a mean over "
                                 "topics needs at least 2 for its standard error")
            _check_once(name, result, labels[-1], given, digests)
            seen.append(_Seen(result.names, result.bootstrap, result.confidence_level, result.seeds))
            names = [n for n, _ in items[:len(seen)]]
            chosen = _check_systems(names, seen, systems)
            confidence_level = _check_kinds(names, seen, confidence_level)
            figures.append(collection_figures(result, labels[-1], chosen))
            kept.append(result if given else None)
            bar.update()
    return labels, figures, kept, chosen, confidence_level


def collection_results(results: Any, measure: MeasureLike, *, systems: Sequence[str] | None = None,
                       bootstrap: str | None = "topic", n_resamples: int | None = None,
                       confidence_level: float | None = None, rng: RngLike = None,
                       executor: Executor | None = None, verbose: bool = False, **options: Any) -> Collections:
    """The collections of ``results`` (see :func:`~pyterrier_boot.across_collections`) and their
    figures. The results given are checked together first; those given as runs are evaluated one at
    a time (the experiment's options, one child of ``rng`` each), checked against the others, and
    only their figures kept, so that memory does not grow with the collections or the resamples."""
    items = _checked_names(results)
    given = [(n, r) for n, r in items if isinstance(r, ExperimentResult)]
    if given:
        _check_systems([n for n, _ in given], [r for _, r in given], systems)
        confidence_level = _check_kinds([n for n, _ in given], [r for _, r in given], confidence_level)
    run_options = dict(options, bootstrap=bootstrap, n_resamples=n_resamples, executor=executor,
                       confidence_level=0.95 if confidence_level is None else confidence_level)
    streams = as_generator(DEFAULT_SEED if rng is None else rng).spawn(len(items))
    names = [n for n, _ in items]
    labels, figures, kept, chosen, confidence_level = _digested(items, measure, systems, confidence_level, run_options,
                                                                streams, verbose)
    return Collections(tuple(names), tuple(labels), chosen, tuple(figures), tuple(kept), confidence_level)
