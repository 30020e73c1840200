"""Runs and qrels interned once into compact integer arrays, so kernels never touch strings.

Every docno seen in a run or in the qrels gets an integer id: its position in the sorted list of
distinct docnos (so comparing ids compares docnos, which trec_eval's tie-breaking needs). Topics
are those of the qrels, in natural order. For topic ``q`` the judged documents are
``qrels_docs[qrels_offsets[q]:qrels_offsets[q + 1]]`` with their grades; for system ``s`` and topic
``q`` the ranking is ``run_docs[run_offsets[s * Q + q]:run_offsets[s * Q + q + 1]]`` in trec_eval's
order (score descending as single-precision floats, ties by docno descending) with the grade of each document, or
:data:`UNJUDGED`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._warnings import InputWarning, report

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    import numpy.typing as npt

    from .._typing import BoolArray, ScoresLike


#: Grade stored for a retrieved document that has no judgement.
UNJUDGED = np.iinfo(np.int32).min


def trec_eval_scores(scores: ScoresLike) -> npt.NDArray[np.float32]:
    """Scores as trec_eval compares them: single precision (its ``float sim``), so scores equal in
    single precision tie, and ties go by docno, descending. Scores beyond single precision's range
    (about 3.4e38 in magnitude) become infinite, so they tie too, as in trec_eval."""
    with np.errstate(over="ignore"):
        return np.asarray(scores, dtype=np.float64).astype(np.float32)


def natural_order(qids: Iterable[Any]) -> list[Any]:
    """Sort topic ids numerically when they are numbers (``2`` before ``10``), else as text."""
    return sorted(qids, key=lambda q: (0, int(q), q) if q.isdigit() else (1, 0, q))


@dataclass(frozen=True, eq=False)
class JudgedRuns:
    """Runs and qrels as integer arrays (see the module docstring for the layout)."""

    systems: tuple
    qids: np.ndarray
    docnos: np.ndarray
    qrels_offsets: np.ndarray
    qrels_docs: np.ndarray
    qrels_grades: np.ndarray
    run_offsets: np.ndarray
    run_docs: np.ndarray
    run_grades: np.ndarray
    run_stops: np.ndarray

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_topics(self) -> int:
        return len(self.qids)

    @property
    def n_docs(self) -> int:
        return len(self.docnos)

    @property
    def grade_range(self) -> tuple[int, int]:
        """Smallest and largest judged grade (0, 0 for empty qrels)."""
        if len(self.qrels_grades) == 0:
            return 0, 0
        return int(self.qrels_grades.min()), int(self.qrels_grades.max())

    def ranking(self, system: int, topic: int) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """Document ids and grades of one system's ranking for one topic (indices, not names)."""
        i = system * self.n_topics + topic
        sl = slice(self.run_offsets[i], self.run_offsets[i + 1])
        return self.run_docs[sl], self.run_grades[sl]

    def judged(self, topic: int) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """Judged document ids and grades of one topic, by grade descending."""
        sl = slice(self.qrels_offsets[topic], self.qrels_offsets[topic + 1])
        return self.qrels_docs[sl], self.qrels_grades[sl]

    def restrict(self, keep: BoolArray) -> JudgedRuns:
        """The same runs and qrels on the sub-collection of the documents in ``keep`` (a boolean
        mask over ``docnos``), e.g. a corpus half: the other documents leave every ranking and the
        qrels, rankings keep their order, topics and systems are unchanged, and the kept documents
        are renumbered in docno order (ids still compare as docnos)."""
        keep = np.asarray(keep, dtype=bool)
        new_id = (np.cumsum(keep) - 1).astype(np.int32)
        S, Q = self.n_systems, self.n_topics
        q_keep = keep[self.qrels_docs]
        q_topic = np.repeat(np.arange(Q), np.diff(self.qrels_offsets))
        qrels_offsets = np.zeros(Q + 1, np.int64)
        np.cumsum(np.bincount(q_topic[q_keep], minlength=Q), out=qrels_offsets[1:])
        r_keep = keep[self.run_docs]
        cell = np.repeat(np.arange(S * Q), np.diff(self.run_offsets))[r_keep]
        run_offsets = np.zeros(S * Q + 1, np.int64)
        np.cumsum(np.bincount(cell, minlength=S * Q), out=run_offsets[1:])
        run_grades = self.run_grades[r_keep]
        judged = run_grades != UNJUDGED
        within = np.arange(len(cell)) - run_offsets[cell]
        stop = np.zeros(S * Q, np.int64)
        np.maximum.at(stop, cell[judged], within[judged] + 1)
        return JudgedRuns(
            systems=self.systems, qids=self.qids, docnos=self.docnos[keep], qrels_offsets=qrels_offsets,
            qrels_docs=new_id[self.qrels_docs[q_keep]], qrels_grades=self.qrels_grades[q_keep],
            run_offsets=run_offsets, run_docs=new_id[self.run_docs[r_keep]], run_grades=run_grades,
            run_stops=run_offsets[:-1] + stop,
        )

    @classmethod
    def build(cls, runs: Mapping[str, pd.DataFrame], qrels: pd.DataFrame, *, warn_unjudged: bool = True) -> JudgedRuns:
        """Intern validated runs and qrels.

        Args:
            runs: dict name -> frame with ``qid``, ``docno``, ``score`` (as returned by
                :func:`pyterrier_boot.read_runs`).
            qrels: frame with ``qid``, ``docno``, ``label`` (``Qrels.frame``).
            warn_unjudged: warn about the topics of runs that are not in the qrels (``Experiment``
                does not: ``pt.Experiment`` has already said so).

        Topics of a run that are not in the qrels are ignored (as trec_eval and ir_measures
        do), with an :class:`InputWarning` naming them; topics of the qrels a run did not
        retrieve anything for get an empty ranking (every measure then scores 0).
        """
        qids = np.array(natural_order(pd.unique(qrels["qid"].to_numpy(object))), dtype=object)
        topic_index = pd.Index(qids)
        names = tuple(runs)
        docno_columns = [qrels["docno"].to_numpy(object)] + [runs[n]["docno"].to_numpy(object) for n in names]
        codes, docnos = pd.factorize(np.concatenate(docno_columns), sort=True)
        codes = codes.astype(np.int32)
        n_docs = len(docnos)
        bounds = np.cumsum([0] + [len(c) for c in docno_columns])
        q_doc, q_grade, qrels_offsets, lookup = _intern_qrels(qrels, topic_index, codes[bounds[0]:bounds[1]], n_docs)
        interned = [
            _intern_run(name, runs[name], topic_index, codes[bounds[j + 1]:bounds[j + 2]], lookup, n_docs,
                        warn_unjudged)
            for j, name in enumerate(names)
        ]
        docs, grades, counts, stops = zip(*interned) if interned else ((), (), (), ())
        run_offsets, run_stops = _run_offsets(counts, stops, len(qids))
        return cls(
            systems=names,
            qids=qids,
            docnos=np.asarray(docnos, dtype=object),
            qrels_offsets=qrels_offsets,
            qrels_docs=q_doc,
            qrels_grades=q_grade,
            run_offsets=run_offsets,
            run_docs=np.concatenate(docs) if docs else np.zeros(0, np.int32),
            run_grades=np.concatenate(grades) if grades else np.zeros(0, np.int32),
            run_stops=run_stops,
        )


def _intern_qrels(qrels, topic_index, q_doc, n_docs):
    """Judgements by topic, then grade descending, then doc id; their offsets per topic; and the
    ``(sorted keys, grades)`` lookup of the grade of a ``topic * n_docs + doc`` key."""
    n_topics = len(topic_index)
    q_topic = topic_index.get_indexer(qrels["qid"].to_numpy(object))
    q_grade = qrels["label"].to_numpy(np.int64).astype(np.int32)
    order = np.lexsort((q_doc, -q_grade.astype(np.int64), q_topic))
    q_topic, q_doc, q_grade = q_topic[order], q_doc[order], q_grade[order]
    qrels_offsets = np.zeros(n_topics + 1, np.int64)
    np.cumsum(np.bincount(q_topic, minlength=n_topics), out=qrels_offsets[1:])
    judged_keys = q_topic.astype(np.int64) * n_docs + q_doc
    key_order = np.argsort(judged_keys)
    return q_doc, q_grade, qrels_offsets, (judged_keys[key_order], q_grade[key_order])


def _intern_run(name, run, topic_index, doc, lookup, n_docs, warn_unjudged):
    """One run ranked as trec_eval ranks it: ``(docs, grades, results per topic, stops per topic)``."""
    n_topics = len(topic_index)
    topic = topic_index.get_indexer(run["qid"].to_numpy(object))
    score = trec_eval_scores(run["score"])
    if np.isinf(score).any():
        report(InputWarning, "{n} run(s) have scores beyond single precision (about 3.4e38 in magnitude), "
               "which trec_eval compares as infinite, so those documents tie (broken by docno, as "
               "trec_eval does); rescale the scores to rank them apart: {cases}", [repr(name)])
    unknown = topic < 0
    if unknown.any() and warn_unjudged:
        missing = natural_order(pd.unique(run["qid"].to_numpy(object)[unknown]))
        report(InputWarning, "{n} topic(s) not in the qrels are ignored (as trec_eval does): {cases}",
               missing)
    if unknown.any():
        topic, doc, score = topic[~unknown], doc[~unknown], score[~unknown]
    order = np.lexsort((-doc.astype(np.int64), -score, topic))
    topic, doc = topic[order], doc[order]
    grade = _lookup(*lookup, topic.astype(np.int64) * n_docs + doc)
    count = np.bincount(topic, minlength=n_topics)
    return doc, grade, count, _stops(topic, grade != UNJUDGED, count)


def _run_offsets(counts, stops, n_topics):
    """Offsets of each (run, topic) ranking in the concatenated runs, and each ranking's stop."""
    n_runs = len(counts)
    run_offsets = np.zeros(n_runs * n_topics + 1, np.int64)
    if n_runs:
        np.cumsum(np.concatenate(counts), out=run_offsets[1:])
    offsets_per_run = run_offsets[:-1].reshape(n_runs, n_topics) if n_runs else np.zeros((0, n_topics), np.int64)
    run_stops = (
        np.concatenate([offsets_per_run[j] + stops[j] for j in range(n_runs)])
        if n_runs
        else np.zeros(0, np.int64)
    )
    return run_offsets, run_stops


def _lookup(sorted_keys, sorted_grades, keys):
    """Grade of each (topic, doc) key, or UNJUDGED."""
    grade = np.full(len(keys), UNJUDGED, np.int32)
    if len(sorted_keys):
        pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
        hit = sorted_keys[pos] == keys
        grade[hit] = sorted_grades[pos[hit]]
    return grade


def _stops(topic, judged, count):
    """Per topic: 1 + index (within the topic's ranking) of the last judged document, or 0.

    Nothing below the last judged document can change a relevance-based measure, so kernels
    may stop there (cutoff measures that count unjudged documents stop at their cutoff).
    """
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    within = np.arange(len(topic)) - start[topic]
    stop = np.zeros(len(count), np.int64)
    np.maximum.at(stop, topic[judged], within[judged] + 1)
    return stop
