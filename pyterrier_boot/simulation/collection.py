"""Simulated TREC-like test collections with known population effectiveness.

:func:`simulate_collection` draws topics, documents, runs and pooled judgements from the model of
:class:`~.model.CollectionModel`; :class:`SimulatedCollection` holds the frames (valid inputs for
``read_runs``, ``read_qrels`` and ``pt.Experiment``) and computes the population values that a
topic bootstrap (:meth:`SimulatedCollection.truth`) or a corpus bootstrap
(:meth:`SimulatedCollection.topic_truth`) estimates.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._random import as_generator
from . import truth as _truth
from .model import (
    CollectionModel,
    TopicParameters,
    draw_corpus,
    draw_topics,
    iter_topics,
    with_fresh_seeds,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import numpy.typing as npt

    from .._typing import MeasureLike, MeasuresLike, RngLike


__all__ = ["simulate_collection", "SimulatedCollection"]

_DEFAULT_LOW, _DEFAULT_HIGH = 0.9, 1.7  # default effectiveness range: mean AP about 0.17 to 0.44


@dataclass(frozen=True, eq=False)
class SimulatedCollection:
    """A simulated test collection and the model it was drawn from (see :func:`simulate_collection`).

    Attributes:
        runs: system name -> run frame ``qid, docno, score`` (str, str, float64), ``depth``
            documents per topic (fewer when fewer documents match), sorted by qid then rank; a
            system with several runs (``n_runs``) -> the list of its runs' frames, as
            ``Experiment`` takes them.
        qrels: the pooled judgements ``qid, docno, label`` (str, str, int64; label 0 is a judged
            non-relevant document), sorted by qid and docno.
        complete_qrels: every relevant document of every topic, judged or not (the ground truth
            the pool samples); ``qrels`` without its zeros equals it when ``judge_all=True``.
        topics: ``qid, query`` with synthetic query text.
        topic_parameters: one row per qid: ``expected_relevant`` (``λ_q``), ``relevant`` (``R_q``
            on this corpus), ``judged_relevant`` (relevant documents in ``qrels``) and
            ``difficulty`` (``b_q``).
        model: the generative parameters (:class:`CollectionModel`).
    """

    runs: dict
    qrels: pd.DataFrame
    complete_qrels: pd.DataFrame
    topics: pd.DataFrame
    topic_parameters: pd.DataFrame
    model: CollectionModel
    _parameters: TopicParameters = field(repr=False)

    @property
    def names(self) -> list[str]:
        """System names, in the order of the effectiveness parameters."""
        return list(self.model.names)

    @property
    def effectiveness(self) -> dict[Any, Any]:
        """System name -> its generative effectiveness parameter ``μ_s``."""
        return dict(zip(self.model.names, self.model.effectiveness))

    @property
    def corpus_size(self) -> int:
        return self.model.corpus_size

    def __repr__(self):
        return (
            f"SimulatedCollection({len(self.runs)} systems, {len(self.topics)} topics, "
            f"corpus_size={self.corpus_size}, depth={self.model.depth}, pool_depth={self.model.pool_depth}, "
            f"{len(self.qrels)} judgements)"
        )

    def truth(self, measures: MeasuresLike, *, n_topics: int = 2000, complete: bool = False,
              seeds: str = "random", rng: RngLike = None) -> pd.DataFrame:
        """Population mean of each system over topics, by Monte Carlo on fresh topics.

        The quantity the topic bootstrap estimates: ``E_q[m(s, q)]`` over the topic population
        (and corpora) of the model, with the collection's judging procedure (same ``pool_depth``,
        pooled systems, ``judge_all``), so the mean over a simulated collection's topics is an
        unbiased estimate of it. ``n_topics`` fresh topics are drawn, each on a fresh corpus, and
        every system is measured on them by ``ir_measures`` (paired: the same topics for all).

        Args:
            measures: a measure (``"AP"``, ``"nDCG@10"``, ``"map"``, an ir_measures measure) or a
                list of them; values are labelled as written.
            n_topics: fresh topics to average over; the standard error shrinks as ``1/√n_topics``.
            complete: judge every relevant document instead (the value of an ideal collection;
                compare to see what shallow pooling does to a measure).
            seeds: with several runs per system, ``"random"`` (default: the mean over topics and
                new seeds, what ``seeds="random"`` estimates) or ``"fixed"`` (over topics, for these
                runs' seed effects: the mean of their population values).
            rng: SPEC 7 seed of the Monte Carlo draws.

        Returns:
            For one measure a Series (index: system names, name: the measure label), else a
            DataFrame with one column per measure label. ``.attrs["standard_error"]`` holds the Monte
            Carlo standard errors (same shape), ``.attrs["n_topics"]`` the number of topics.
            Cost: about 4 s per 1000 topics with 8 systems at depth 1000 for AP (ir_measures
            evaluates ``n_topics x n_systems x depth`` documents); measures with a cutoff only
            (``nDCG@10``, ``P@10``) are evaluated on the top ``cutoff`` documents and take about
            1 s per 1000 topics (the draws).

        Example:
            >>> sim = simulate_collection(n_topics=10, depth=100, pool_depth=20, rng=1)
            >>> truth = sim.truth("AP", n_topics=200, rng=2)
            >>> bool(truth.attrs["standard_error"].max() < 0.03)
            True
        """
        labelled, n_topics, complete, rng = _truth_iv(measures, n_topics, complete, rng, "n_topics")
        if seeds not in ("random", "fixed"):
            raise ValueError(f"'seeds' must be 'random' or 'fixed', got {seeds!r}")
        samples = iter_topics(self.model, n_topics, rng, fresh_seeds=seeds == "random" and bool(self.model.runs))
        values = _truth.system_means(_truth.evaluate(self.model, samples, labelled, complete=complete), self.model)
        single = isinstance(measures, str) or not isinstance(measures, (list, tuple))
        return _truth.population_means(values, labelled, self.names, n_topics, single and len(labelled) == 1)

    def topic_truth(self, measure: MeasureLike, *, n_corpora: int = 100, complete: bool = False,
                    rng: RngLike = None) -> pd.DataFrame:
        """Population value of each system on each of this collection's topics, over corpora.

        The quantity the corpus bootstrap estimates (Cormack & Lynam 2006; Zobel & Rashidi 2020):
        for topic ``q`` with its parameters held fixed (``λ_q``, ``b_q``, ``c_sq``), the mean of
        ``m(s, q)`` over ``n_corpora`` fresh corpora of the same size, each with fresh documents,
        runs and pooled judgements. The mean over topics of a row is the corpus-population value
        of the system's mean score on these topics.

        Args:
            measure: one measure (see :meth:`truth`).
            n_corpora: fresh corpora per topic.
            complete: judge every relevant document instead.
            rng: SPEC 7 seed of the Monte Carlo draws.

        Returns:
            A DataFrame, systems x qids, with ``.attrs["standard_error"]`` (same shape) and
            ``.attrs["n_corpora"]``. Cost: ``n_topics * n_corpora`` simulated topics.

        Example:
            >>> sim = simulate_collection(n_topics=3, n_systems=2, depth=100, pool_depth=20, rng=1)
            >>> sim.topic_truth("AP", n_corpora=20, rng=2).shape
            (2, 3)
        """
        labelled, n_corpora, complete, rng = _truth_iv(measure, n_corpora, complete, rng, "n_corpora")
        if len(labelled) != 1:
            raise ValueError(f"'measure' must be a single measure, got {len(labelled)}: "
                             f"{[lm.label for lm in labelled]}")
        model = self.model
        qids = self.topics["qid"].tolist()
        samples = (draw_corpus(model, self._parameters, q, rng) for q in range(len(qids)) for _ in range(n_corpora))
        values = _truth.system_means(_truth.evaluate(model, samples, labelled, complete=complete), model)[0]
        values = values.reshape(model.n_systems, len(qids), n_corpora)
        index = pd.Index(self.names, name="name")
        columns = pd.Index(qids, name="qid")
        result = pd.DataFrame(values.mean(axis=2), index=index, columns=columns)
        se = values.std(axis=2, ddof=1) / np.sqrt(n_corpora) if n_corpora > 1 else np.full(result.shape, np.nan)
        result.attrs["standard_error"] = pd.DataFrame(se, index=index, columns=columns)
        result.attrs["n_corpora"] = n_corpora
        result.attrs["measure"] = labelled[0].label
        return result

    def fresh_topics(self, n_topics: int | None = None, *, rng: RngLike = None) -> SimulatedCollection:
        """Another collection from the same population: new topics (and corpus), same systems.

        What a topic-bootstrap coverage study repeats: each replicate's interval should cover
        :meth:`truth` at the nominal rate. ``n_topics`` defaults to this collection's.

        Example:
            >>> sim = simulate_collection(n_topics=5, depth=100, pool_depth=10, rng=1)
            >>> len(sim.fresh_topics(rng=2).topics), len(sim.fresh_topics(7, rng=2).topics)
            (5, 7)
        """
        n_topics = len(self.topics) if n_topics is None else _check_count(n_topics, "n_topics")
        rng = as_generator(rng, fresh=True)
        return _build(self.model, *draw_topics(self.model, n_topics, rng))

    def fresh_corpus(self, *, rng: RngLike = None) -> SimulatedCollection:
        """The same topics (parameters ``λ_q``, ``b_q``, ``c_sq``) on a fresh corpus.

        What a corpus-bootstrap coverage study repeats: intervals from each replicate should cover
        :meth:`topic_truth` at the nominal rate. Qids and topics are unchanged.

        Example:
            >>> sim = simulate_collection(n_topics=5, depth=100, pool_depth=10, rng=1)
            >>> other = sim.fresh_corpus(rng=2)
            >>> other.topics.equals(sim.topics), other.qrels.equals(sim.qrels)
            (True, False)
        """
        rng = as_generator(rng, fresh=True)
        samples = [draw_corpus(self.model, self._parameters, q, rng) for q in range(len(self.topics))]
        return _build(self.model, self._parameters, samples)


def simulate_collection(n_topics: int = 50, n_systems: int | None = None, *,
                        effectiveness: npt.ArrayLike | Mapping[str, float] | None = None,
                        corpus_size: int | None = 20_000, matching: int = 2_000,
                        relevant: float = 20.0, relevant_sd: float = 1.0,
                        grades: Sequence[float] = (0.6, 0.3, 0.1), topic_sd: float = 0.6,
                        interaction_sd: float = 0.25, noise_correlation: float = 0.7,
                        depth: int = 1000, pool_depth: int = 100,
                        pooled_systems: Sequence[str] | int | None = None, judge_all: bool = False,
                        n_runs: int | Sequence[int] = 1, seed_sd: float = 0.0, seed_interaction_sd: float = 0.0,
                        rng: RngLike = None) -> SimulatedCollection:
    """Simulate a TREC-like test collection: topics, runs and pooled graded judgements.

    The model (stated in full in :class:`CollectionModel` and ``pt_docs/simulation.md``): topic
    ``q`` has about ``Poisson(λ_q)`` relevant documents, ``λ_q`` log-normal with median
    ``relevant``, graded 1..3, and about ``matching`` non-relevant documents matching its query;
    system ``s`` scores a document of grade ``g`` by ``(μ_s + b_q + c_sq)(1 + g)/2`` (0 for a
    non-relevant document) plus standard normal noise, of which a share ``noise_correlation`` is
    common to all systems; runs are the top ``depth`` documents; the judgements are the union of
    the pooled systems' top ``pool_depth``. The defaults give mean AP from about 0.17 to 0.44,
    nDCG@10 from 0.24 to 0.54, a median of 20 relevant documents per topic with 5% of topics
    under 4 and 5% over 100, about 70% of the relevant documents judged (28% with
    ``pool_depth=10``) and 10% of topics with at most 3 judged relevant documents. As in TREC, a
    topic without a judged relevant document is discarded (redrawn).

    Args:
        n_topics: number of topics; qids are ``"1"`` .. ``str(n_topics)``.
        n_systems: number of systems (default: ``len(effectiveness)``, else 8).
        effectiveness: each system's ``μ_s``: a sequence (systems named ``S1``, ``S2``, ... zero
            padded), or a dict ``name -> μ_s``. Default: evenly spaced from 0.9 to 1.7, in order.
            Equal values give systems with identical population distributions (an exact null for
            every measure).
        corpus_size: documents in the corpus ``N``; docnos ``"D000000"`` .. (at least 6 digits).
        matching: expected number of non-relevant documents matching each topic (the only
            non-relevant documents any system retrieves); below ``corpus_size``.
        relevant: median over topics of the expected number of relevant documents ``λ_q``.
        relevant_sd: standard deviation of ``log λ_q``.
        grades: proportions of grades 1, 2, ... among relevant documents (sum to 1).
        topic_sd: standard deviation of the topic difficulty ``b_q`` (shared by all systems).
        interaction_sd: standard deviation of the system x topic interaction ``c_sq``.
        noise_correlation: share ``ρ`` in [0, 1) of the score noise common to all systems.
        depth, pool_depth: documents retrieved per topic; judged from the top of each pooled run (<= ``depth``).
        pooled_systems, judge_all: the pooled systems (names or positions; default all); judge every relevant document.
        n_runs, seed_sd, seed_interaction_sd: runs per system (seeds; ``runs[name]`` then a list), each
            shifted by ``N(0, seed_sd²)`` and per topic by ``N(0, seed_interaction_sd²)`` (:class:`CollectionModel`).
        rng: SPEC 7 seed (None, int, SeedSequence or Generator).

    Returns a :class:`SimulatedCollection`, deterministic for a given ``rng`` (about 0.1 s by default).
    Example:
        >>> import pyterrier_boot as pb
        >>> sim = pb.simulate_collection(n_topics=5, n_systems=3, rng=42)
        >>> sorted(sim.runs), list(sim.runs["S1"].columns), list(sim.qrels.columns)
        (['S1', 'S2', 'S3'], ['qid', 'docno', 'score'], ['qid', 'docno', 'label'])
        >>> sim.effectiveness
        {'S1': 0.9, 'S2': 1.3, 'S3': 1.7}
    """
    model, n_topics = _simulate_collection_iv(
        n_topics, n_systems, effectiveness, corpus_size, matching, relevant, relevant_sd, grades,
        topic_sd, interaction_sd, noise_correlation, depth, pool_depth, pooled_systems, judge_all)
    model = _with_runs(model, n_runs, seed_sd, seed_interaction_sd, rng := as_generator(rng, fresh=True))
    return _build(model, *draw_topics(model, n_topics, rng))


def _with_runs(model: CollectionModel, n_runs, seed_sd, seed_interaction_sd, rng) -> CollectionModel:
    """``model`` with its runs per system and their seed effects (drawn from ``rng`` only when some
    system has several runs, so one run per system keeps the random stream of earlier versions)."""
    counts = [n_runs] * model.n_systems if isinstance(n_runs, numbers.Integral) else list(n_runs)
    if len(counts) != model.n_systems:
        raise ValueError(f"'n_runs' has {len(counts)} values but there are {model.n_systems} systems")
    counts = [_check_count(k, "n_runs") for k in counts]
    seed_sd = _check_real(seed_sd, "seed_sd", 0)
    seed_interaction_sd = _check_real(seed_interaction_sd, "seed_interaction_sd", 0)
    if max(counts) == 1:
        if seed_sd or seed_interaction_sd:
            raise ValueError("'seed_sd' and 'seed_interaction_sd' need several runs per system: set n_runs >= 2")
        return model
    model = replace(model, runs=tuple(counts), seed_sd=seed_sd, seed_interaction_sd=seed_interaction_sd)
    return with_fresh_seeds(model, rng)


def _build(model, parameters, samples):
    """Assemble the frames of a collection from its topics' draws."""
    n_topics = len(parameters)
    qids = np.array([str(q + 1) for q in range(n_topics)])
    docnos = model.docnos()

    lengths = np.array([s.ranking.shape[1] for s in samples])
    run_qids = np.repeat(qids, lengths)
    frames = [pd.DataFrame({
        "qid": run_qids,
        "docno": _concat([docnos[s.doc_ids[s.ranking[i]]] for s in samples], str),
        "score": _concat([s.scores[i] for s in samples], float),
    }) for i in range(model.n_runs)]
    owner = model.owner
    runs: dict[str, Any] = {}
    for k, name in enumerate(model.names):
        mine = [frames[i] for i in np.flatnonzero(owner == k)]
        runs[name] = mine[0] if not model.runs or model.runs[k] == 1 else mine

    def qrels_frame(locals_per_topic):
        ids, labels = [], []
        for sample, local in zip(samples, locals_per_topic):
            order = np.argsort(sample.doc_ids[local])  # docno order: docnos are zero padded
            ids.append(sample.doc_ids[local][order])
            labels.append(sample.labels(local)[order])
        return pd.DataFrame({
            "qid": np.repeat(qids, [len(i) for i in ids]),
            "docno": docnos[_concat(ids, np.int64)],
            "label": _concat(labels, np.int64),
        })

    qrels = qrels_frame([s.judged for s in samples])
    complete = qrels_frame([np.arange(len(s.grades)) for s in samples])
    topics = pd.DataFrame({"qid": qids, "query": [f"simulated topic {q}" for q in qids]})
    topic_parameters = pd.DataFrame({
        "expected_relevant": parameters.expected_relevant,
        "relevant": [len(s.grades) for s in samples],
        "judged_relevant": [int((s.labels(s.judged) > 0).sum()) for s in samples],
        "difficulty": parameters.difficulty,
    }, index=pd.Index(qids, name="qid"))
    return SimulatedCollection(runs, qrels, complete, topics, topic_parameters, model, parameters)


def _concat(arrays, dtype):
    return np.concatenate(arrays) if arrays else np.array([], dtype=dtype)


# ---------------------------------------------------------------------------------------------
# input validation


def _check_count(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name!r} must be an integer >= {minimum}, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name!r} must be an integer >= {minimum}, got {value}")
    return int(value)


def _check_real(value, name, low, high=np.inf, *, low_open=False, high_open=True):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name!r} must be a number, got {type(value).__name__}")
    value = float(value)
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if not np.isfinite(value) or below or above:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        if high == np.inf:
            interval = f"{'> ' if low_open else '>= '}{low:g}"
        raise ValueError(f"{name!r} must be a finite number {interval}, got {value:g}")
    return value


def _effectiveness(effectiveness, n_systems):
    if effectiveness is None:
        n = 8 if n_systems is None else _check_count(n_systems, "n_systems")
        values = np.linspace(_DEFAULT_LOW, _DEFAULT_HIGH, n).round(12)  # 1.3, not 1.2999999999999998
        names = None
    elif isinstance(effectiveness, dict):
        if not effectiveness:
            raise ValueError("'effectiveness' is an empty dict: give at least one system")
        bad = [k for k in effectiveness if not isinstance(k, str)]
        if bad:
            raise TypeError(f"system names (keys of 'effectiveness') must be strings, got {bad[0]!r}")
        names, values = list(effectiveness), list(effectiveness.values())
    elif isinstance(effectiveness, (str, bytes)) or not np.iterable(effectiveness):
        raise TypeError("'effectiveness' must be a sequence of numbers or a dict name -> number, "
                        f"got {type(effectiveness).__name__}")
    else:
        names, values = None, list(effectiveness)
        if not values:
            raise ValueError("'effectiveness' is empty: give at least one system")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"'effectiveness' must hold numbers, got {v!r}")
    values = np.asarray(values, dtype=float)
    if not np.isfinite(values).all():
        raise ValueError(f"'effectiveness' must hold finite numbers, got {values.tolist()}")
    if n_systems is not None:
        n_systems = _check_count(n_systems, "n_systems")
        if n_systems != len(values):
            raise ValueError(f"'effectiveness' has {len(values)} values but n_systems={n_systems}")
    if names is None:
        width = len(str(len(values)))
        names = [f"S{i + 1:0{width}d}" for i in range(len(values))]
    return tuple(names), tuple(float(v) for v in values)


def _pooled(pooled_systems, names):
    if pooled_systems is None:
        return tuple(range(len(names)))
    items = [pooled_systems] if isinstance(pooled_systems, (str, numbers.Integral)) else list(pooled_systems)
    if not items:
        raise ValueError("'pooled_systems' is empty: pool at least one system (or None for all)")
    positions = []
    for item in items:
        if isinstance(item, str):
            if item not in names:
                raise ValueError(f"'pooled_systems' names unknown system {item!r}; systems are {list(names)}")
            positions.append(names.index(item))
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            if not 0 <= item < len(names):
                raise ValueError(f"'pooled_systems' position {item} is out of range for {len(names)} systems")
            positions.append(int(item))
        else:
            raise TypeError(f"'pooled_systems' must hold system names or positions, got {item!r}")
    return tuple(sorted(set(positions)))


def _simulate_collection_iv(n_topics, n_systems, effectiveness, corpus_size, matching, relevant,
                            relevant_sd, grades, topic_sd, interaction_sd, noise_correlation, depth,
                            pool_depth, pooled_systems, judge_all):
    n_topics = _check_count(n_topics, "n_topics")
    names, values = _effectiveness(effectiveness, n_systems)
    if len(set(names)) != len(names):
        raise ValueError("system names must be distinct")
    corpus_size = _check_count(corpus_size, "corpus_size", 2)
    matching = _check_real(matching, "matching", 0, corpus_size, low_open=True)
    relevant = _check_real(relevant, "relevant", 0, low_open=True)
    relevant_sd = _check_real(relevant_sd, "relevant_sd", 0)
    if isinstance(grades, (str, bytes)) or not np.iterable(grades):
        raise TypeError(f"'grades' must be a sequence of proportions, got {type(grades).__name__}")
    grades = tuple(_check_real(g, "grades", 0, 1, high_open=False) for g in grades)
    if not grades or abs(sum(grades) - 1) > 1e-9:
        raise ValueError(f"'grades' must be proportions of grades 1, 2, ... summing to 1, got {list(grades)}")
    topic_sd = _check_real(topic_sd, "topic_sd", 0)
    interaction_sd = _check_real(interaction_sd, "interaction_sd", 0)
    noise_correlation = _check_real(noise_correlation, "noise_correlation", 0, 1)
    depth = _check_count(depth, "depth")
    pool_depth = _check_count(pool_depth, "pool_depth")
    if pool_depth > depth:
        raise ValueError(f"'pool_depth' ({pool_depth}) cannot exceed 'depth' ({depth}): "
                         "a pool takes documents from the top of the runs")
    pooled = _pooled(pooled_systems, names)
    if not isinstance(judge_all, (bool, np.bool_)):
        raise TypeError(f"'judge_all' must be True or False, got {judge_all!r}")
    model = CollectionModel(names, values, corpus_size, matching, relevant, relevant_sd, grades, topic_sd,
                            interaction_sd, noise_correlation, depth, pool_depth, pooled, bool(judge_all))
    return model, n_topics


def _truth_iv(measures, count, complete, rng, count_name):
    labelled = _truth.parse(measures)
    count = _check_count(count, count_name, 2)
    if not isinstance(complete, (bool, np.bool_)):
        raise TypeError(f"'complete' must be True or False, got {complete!r}")
    return labelled, count, bool(complete), as_generator(rng, fresh=True)
