"""The generative model of a simulated test collection, and the draws that realise it.

Everything random is drawn here, in a fixed order, from a :class:`numpy.random.Generator` passed
in; :mod:`.collection` turns the draws into frames and :mod:`.truth` into measure values.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy.typing as npt

    from .._typing import FloatArray, IntArray


__all__ = ["CollectionModel", "with_fresh_seeds"]


@dataclass(frozen=True)
class CollectionModel:
    """The parameters of a simulated TREC-like collection (see :func:`simulate_collection`).

    Topics ``q`` and systems ``s``; documents are independent given the topic.

    1. **Topic.** Expected number of relevant documents ``λ_q = exp(N(log(relevant),
       relevant_sd²))`` (capped at ``corpus_size - matching``); difficulty ``b_q ~ N(0, topic_sd²)``;
       system x topic interaction ``c_sq ~ N(0, interaction_sd²)``. The system's shift on the topic
       is ``δ_sq = effectiveness_s + b_q + c_sq``.
    2. **Documents.** Each of the ``corpus_size`` documents is, for topic ``q``, relevant with
       probability ``λ_q / corpus_size``, a non-relevant document matching the query with
       probability ``matching / corpus_size``, or unrelated (never retrieved). So the counts are
       ``(R_q, M_q) ~ Multinomial(corpus_size, ...)``, about ``Poisson(λ_q)`` and
       ``Poisson(matching)``. A relevant document has grade ``g ∈ 1..G`` with probability
       ``grades[g-1]``. Which documents (docnos) they are is uniform over the corpus.
    3. **Scores.** System ``s`` scores matching document ``d`` by
       ``δ_sq h(g_d) + √ρ u_qd + √(1-ρ) e_sqd`` with ``h(0) = 0``, ``h(g) = (1 + g) / 2`` (grade 1
       gets the shift, grade 3 twice it), ``u_qd, e_sqd ~ N(0, 1)`` independent and
       ``ρ = noise_correlation``: ``u`` is how relevant the document looks to every system, so
       systems retrieve overlapping documents and some relevant documents are missed by all.
    4. **Runs** are each system's ``depth`` highest-scoring matching documents.
    6. **Runs per system** (seeds, folds): system ``s`` may have ``runs[s]`` runs, run ``r`` with a
       seed effect ``u_sr ~ N(0, seed_sd²)`` drawn once (the trained model) and a topic x seed
       effect ``e_sqr ~ N(0, seed_interaction_sd²)`` per topic: its shift is
       ``δ_sqr = effectiveness_s + u_sr + b_q + c_sq + e_sqr`` (``c_sq`` shared by the system's runs)
       and its score noise its own. With one run per system nothing of this is drawn.
    5. **Judgements.** The union of the top ``pool_depth`` documents of the ``pooled`` systems,
       labelled with their grade (0 for non-relevant); with ``judge_all`` also every relevant
       document of the topic, retrieved or not. As in TREC, a topic without a judged relevant
       document is discarded: its parameters and documents are drawn again (the topic population
       is conditioned on having one). On a fresh corpus for a fixed topic, the documents are drawn
       again until it has one.

    Attributes:
        names: system names, in the order of ``effectiveness``.
        effectiveness: each system's mean shift ``μ_s`` (relevant vs non-relevant, in units of the
            score noise's standard deviation).
        pooled: positions (in ``names``) of the systems whose top documents are judged (all their runs).
        corpus_size, matching, relevant, relevant_sd, grades, topic_sd, interaction_sd,
        noise_correlation, depth, pool_depth, judge_all: as in :func:`simulate_collection`.
        runs: runs per system (empty: one each); seed_sd, seed_interaction_sd: the seed and topic x
            seed standard deviations; seed_effects: every run's ``u_sr`` (in the order of :attr:`owner`).
    """

    names: tuple
    effectiveness: tuple
    corpus_size: int
    matching: float
    relevant: float
    relevant_sd: float
    grades: tuple
    topic_sd: float
    interaction_sd: float
    noise_correlation: float
    depth: int
    pool_depth: int
    pooled: tuple
    judge_all: bool
    runs: tuple = ()
    seed_sd: float = 0.0
    seed_interaction_sd: float = 0.0
    seed_effects: tuple = ()

    @property
    def n_systems(self) -> int:
        return len(self.names)

    @property
    def owner(self) -> npt.NDArray[np.intp]:
        """The system (position in ``names``) of every run, runs of a system consecutive."""
        return np.repeat(np.arange(self.n_systems), self.runs if self.runs else 1)

    @property
    def n_runs(self) -> int:
        """Runs over all systems (``n_systems`` with one run each)."""
        return int(sum(self.runs)) if self.runs else self.n_systems

    @property
    def run_names(self) -> list[str]:
        """``"S1"`` for a system with one run, ``"S2[1]"``, ``"S2[2]"``, ... for several."""
        counts = self.runs if self.runs else (1,) * self.n_systems
        return [name if k == 1 else f"{name}[{r}]" for name, k in zip(self.names, counts, strict=True)
                for r in range(1, k + 1)]

    def run_effectiveness(self) -> FloatArray:
        """Every run's ``effectiveness_s + u_sr``."""
        base = np.asarray(self.effectiveness, dtype=float)[self.owner]
        return base + np.asarray(self.seed_effects, dtype=float) if self.seed_effects else base

    def pooled_runs(self) -> list[int]:
        """The runs of the pooled systems."""
        return [r for r, s in enumerate(self.owner) if s in set(self.pooled)]

    def docnos(self) -> npt.NDArray[np.str_]:
        """Docno of every corpus document: ``"D000000"``, ``"D000001"``, ... (at least 6 digits)."""
        width = max(6, len(str(self.corpus_size - 1)))
        return np.char.add("D", np.char.zfill(np.arange(self.corpus_size).astype(str), width))


_MAX_TRIES = 1000  # draws of a topic before concluding it (almost) never has a judged relevant document


@dataclass(frozen=True)
class TopicParameters:
    """The topic-level draws: expected relevant count, difficulty and interaction (S x Q)."""

    expected_relevant: np.ndarray
    difficulty: np.ndarray
    interaction: np.ndarray

    def __len__(self):
        return len(self.difficulty)

    def shift(self, model: CollectionModel, q: int) -> FloatArray:
        """``δ_sq`` for every run on topic ``q``."""
        return model.run_effectiveness() + self.difficulty[q] + self.interaction[:, q]


@dataclass(frozen=True)
class TopicSample:
    """One topic on one corpus: relevant grades, docnos (as corpus positions), runs and judgements.

    Documents are indexed locally ``0..n-1``; the first ``len(grades)`` are the relevant ones.
    ``ranking[s]`` holds local indices in rank order, ``scores[s]`` their scores, ``judged`` the
    sorted local indices in the qrels.
    """

    grades: np.ndarray
    doc_ids: np.ndarray
    ranking: np.ndarray
    scores: np.ndarray
    judged: np.ndarray

    def labels(self, local: npt.NDArray[np.intp]) -> IntArray:
        """Relevance grade of local documents (0 for non-relevant)."""
        grade = np.zeros(len(local), dtype=np.int64)
        relevant = local < len(self.grades)
        grade[relevant] = self.grades[local[relevant]]
        return grade

    @property
    def judged_relevant(self) -> int:
        return int(np.count_nonzero(self.judged < len(self.grades)))

    def complete(self) -> IntArray:
        """The judged documents plus every relevant one (complete judgements)."""
        return np.union1d(self.judged, np.arange(len(self.grades)))


def _never_judged(model):
    return ValueError(
        f"the model gave no topic with a judged relevant document in {_MAX_TRIES} draws; raise "
        f"'relevant' (now {model.relevant:g}) or 'pool_depth' (now {model.pool_depth})"
    )


def draw_topics(model: CollectionModel, n_topics: int, rng: np.random.Generator) -> tuple[TopicParameters, list[TopicSample]]:
    """Draw ``n_topics`` topics and their documents on one corpus.

    As in TREC, a topic without a judged relevant document is discarded: each topic (its
    parameters and documents) is redrawn until it has one.

    Returns:
        (TopicParameters, list of TopicSample)
    """
    effectiveness = model.run_effectiveness()
    expected, difficulty, interaction, samples = [], [], [], []
    for _ in range(n_topics):
        for _ in range(_MAX_TRIES):
            lam = min(float(np.exp(rng.normal(np.log(model.relevant), model.relevant_sd))),
                      model.corpus_size - model.matching)
            b = rng.normal(0.0, model.topic_sd)
            c = rng.normal(0.0, model.interaction_sd, size=model.n_systems)[model.owner]
            if model.seed_interaction_sd > 0:  # drawn only with runs per system: one run keeps the stream
                c = c + rng.normal(0.0, model.seed_interaction_sd, size=model.n_runs)
            sample = draw_documents(model, lam, effectiveness + b + c, rng)
            if sample.judged_relevant:
                break
        else:
            raise _never_judged(model)
        expected.append(lam)
        difficulty.append(b)
        interaction.append(c)
        samples.append(sample)
    parameters = TopicParameters(np.array(expected), np.array(difficulty),
                                 np.array(interaction).T.reshape(model.n_runs, n_topics))
    return parameters, samples


def iter_topics(model: CollectionModel, n_topics: int, rng: np.random.Generator, *,
                fresh_seeds: bool = False) -> Iterator[TopicSample]:
    """Like :func:`draw_topics`, but yield the samples one at a time (for Monte Carlo); with
    ``fresh_seeds``, each topic with newly drawn seed effects (a new seed for every run)."""
    for _ in range(n_topics):
        yield draw_topics(with_fresh_seeds(model, rng) if fresh_seeds else model, 1, rng)[1][0]


def with_fresh_seeds(model: CollectionModel, rng: np.random.Generator) -> CollectionModel:
    """``model`` with every run's seed effect drawn anew (``N(0, seed_sd²)``)."""
    return replace(model, seed_effects=tuple(rng.normal(0.0, model.seed_sd, size=model.n_runs).tolist()))


def draw_corpus(model: CollectionModel, parameters: TopicParameters, q: int,
                rng: np.random.Generator) -> TopicSample:
    """Topic ``q`` (parameters held fixed) on a fresh corpus with a judged relevant document."""
    for _ in range(_MAX_TRIES):
        sample = draw_documents(model, parameters.expected_relevant[q], parameters.shift(model, q), rng)
        if sample.judged_relevant:
            return sample
    raise _never_judged(model)


def draw_documents(model: CollectionModel, expected_relevant: float, shift: FloatArray,
                   rng: np.random.Generator) -> TopicSample:
    """Draw one topic's documents on a fresh corpus, the systems' runs and the judgements."""
    n = model.corpus_size
    p_relevant = expected_relevant / n
    p_matching = model.matching / n
    n_relevant, n_matching, _ = rng.multinomial(n, [p_relevant, p_matching, max(0.0, 1.0 - p_relevant - p_matching)])
    grades = rng.choice(len(model.grades), size=n_relevant, p=model.grades) + 1
    n_docs = n_relevant + n_matching
    doc_ids = rng.choice(n, size=n_docs, replace=False)
    common = rng.standard_normal(n_docs)
    own = rng.standard_normal((model.n_runs, n_docs))

    gain = np.zeros(n_docs)
    gain[:n_relevant] = (1.0 + grades) / 2.0
    rho = model.noise_correlation
    scores = shift[:, None] * gain + np.sqrt(rho) * common + np.sqrt(1.0 - rho) * own

    depth = min(model.depth, n_docs)
    if depth < n_docs:
        top = np.argpartition(-scores, depth - 1, axis=1)[:, :depth]
    else:
        top = np.broadcast_to(np.arange(n_docs), scores.shape)
    top_scores = np.take_along_axis(scores, top, axis=1)
    order = np.argsort(-top_scores, axis=1, kind="stable")
    ranking = np.take_along_axis(top, order, axis=1)
    ranked_scores = np.take_along_axis(top_scores, order, axis=1)

    judged = ranking[model.pooled_runs(), : model.pool_depth].ravel()
    if model.judge_all:
        judged = np.concatenate([judged, np.arange(n_relevant)])
    return TopicSample(grades, doc_ids, ranking, ranked_scores, np.unique(judged))
