"""Runs and qrels interned once into compact integer arrays, so kernels never touch strings.

Every docno seen in a run or in the qrels gets an integer id: its position in the sorted list of
distinct docnos (so comparing ids compares docnos, which trec_eval's tie-breaking needs). Topics
are those of the qrels, in natural order. For topic ``q`` the judged documents are
``qrels_docs[qrels_offsets[q]:qrels_offsets[q + 1]]`` with their grade codes; for system ``s`` and
topic ``q`` the ranking is ``run_docs[run_offsets[s * Q + q]:run_offsets[s * Q + q + 1]]`` in
trec_eval's order (score descending as single-precision floats, ties by docno descending) with the
grade code of each document, or :data:`UNJUDGED`; ``run_stops[s * Q + q]`` is the absolute position
one past the last judged document of that ranking (its offset when none is judged), where measures
can stop walking.

Grades are interned as docnos are: ``grade_values`` holds the distinct judged grades (exact int64,
trec_eval's ``long``) in increasing order, and each grade is stored as its *code*, its position
among them shifted so that negative grades get negative codes (``-1`` for the largest negative
grade) and the others ``0, 1, 2, ...`` (:func:`grade_codes`). Codes compare as grades do and keep
their sign (trec_eval reads a negative grade as unjudged), so arrays indexed by grade are sized by
the number of distinct grades, never by the largest grade: a grade of ``2**40`` costs what a grade
of 2 costs. Grades 0..G with no gap, the usual case, are their own codes. A threshold such as
``rel`` becomes a code with :meth:`JudgedRuns.code_at_least`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._warnings import InputWarning, report
from ..inputs.overlap import TopicOverlap
from ..inputs.runs import check_run
from .ranking import descending_score_keys, rank_cells

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    import numpy.typing as npt

    from .._typing import BoolArray, ScoresLike


#: Grade stored for a retrieved document that has no judgement.
UNJUDGED = np.iinfo(np.int32).min

#: Results (rows of all runs together) from which :meth:`JudgedRuns.build` ranks them with the
#: compiled :func:`~.ranking.rank_cells` (faster, with fewer temporary arrays) rather than with numpy
#: sorts: below, compiling it (about a second, once per installation) would cost more than it saves.
COMPILED_RANKING_ROWS = 500_000

#: Results (rows of all runs together) up to which :meth:`JudgedRuns.build` interns every run in one
#: pass; its working memory is about 100 bytes per result, so larger inputs go one run at a time.
ALL_AT_ONCE_ROWS = 4_000_000


def trec_eval_scores(scores: ScoresLike) -> npt.NDArray[np.float32]:
    """Scores as trec_eval compares them: single precision (its ``float sim``), so scores equal in
    single precision tie, and ties go by docno, descending. Scores beyond single precision's range
    (about 3.4e38 in magnitude) become infinite, so they tie too, as in trec_eval."""
    with np.errstate(over="ignore"):
        return np.asarray(scores, dtype=np.float64).astype(np.float32)


def natural_order(qids: Iterable[Any]) -> list[Any]:
    """Sort topic ids numerically when they are numbers (``2`` before ``10``), else as text."""
    return sorted(qids, key=lambda q: (0, int(q), q) if q.isascii() and q.isdigit() else (1, 0, q))


def grade_codes(grades: npt.ArrayLike) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """The code of each grade and the distinct grades, increasing (see the module docstring):
    ``values[code + n_negative] == grade``, where ``n_negative`` counts the distinct negative grades.

    Example:
        >>> grade_codes([0, 2**40, -1, 2])
        (array([ 0,  2, -1,  1], dtype=int32), array([           -1,             0,             2, 1099511627776]))
    """
    values, inverse = np.unique(np.asarray(grades, dtype=np.int64), return_inverse=True)
    n_negative = int(np.searchsorted(values, 0))
    return (inverse.reshape(-1) - n_negative).astype(np.int32), values


@dataclass(frozen=True, eq=False)
class JudgedRuns:
    """Runs and qrels as integer arrays (see the module docstring for the layout)."""

    systems: tuple
    qids: np.ndarray
    docnos: np.ndarray
    qrels_offsets: np.ndarray
    qrels_docs: np.ndarray
    qrels_codes: np.ndarray
    run_offsets: np.ndarray
    run_docs: np.ndarray
    run_codes: np.ndarray
    run_stops: np.ndarray
    grade_values: np.ndarray

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
    def n_negative_grades(self) -> int:
        """Distinct negative judged grades: the codes run from ``-n_negative_grades`` up."""
        return int(np.searchsorted(self.grade_values, 0))

    @property
    def code_range(self) -> tuple[int, int]:
        """Smallest and largest grade code (0, 0 without judgements)."""
        if len(self.grade_values) == 0:
            return 0, 0
        return -self.n_negative_grades, len(self.grade_values) - 1 - self.n_negative_grades

    def code_at_least(self, grade: int) -> int:
        """The smallest code of a judged grade ``>= grade`` (one past the largest code when no
        judged grade is): ``codes >= code_at_least(g)`` is ``grades >= g``."""
        return int(np.searchsorted(self.grade_values, grade)) - self.n_negative_grades

    def grades_of(self, codes: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """The exact grades (int64) of grade codes; :data:`UNJUDGED` stays :data:`UNJUDGED`."""
        codes = np.asarray(codes)
        unjudged = codes == UNJUDGED
        if len(self.grade_values) == 0:  # nothing judged: every code is UNJUDGED
            return np.full(codes.shape, UNJUDGED, np.int64)
        index = np.where(unjudged, 0, codes.astype(np.int64) + self.n_negative_grades)
        return np.where(unjudged, np.int64(UNJUDGED), self.grade_values[index])

    def ranking(self, system: int, topic: int) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64]]:
        """Document ids and grades (exact, or :data:`UNJUDGED`) of one system's ranking for one topic
        (indices, not names)."""
        i = system * self.n_topics + topic
        sl = slice(self.run_offsets[i], self.run_offsets[i + 1])
        return self.run_docs[sl], self.grades_of(self.run_codes[sl])

    def judged(self, topic: int) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64]]:
        """Judged document ids and grades of one topic, by grade descending."""
        sl = slice(self.qrels_offsets[topic], self.qrels_offsets[topic + 1])
        return self.qrels_docs[sl], self.grades_of(self.qrels_codes[sl])

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
        run_codes = self.run_codes[r_keep]
        judged = run_codes != UNJUDGED
        within = np.arange(len(cell)) - run_offsets[cell]
        stop = np.zeros(S * Q, np.int64)
        np.maximum.at(stop, cell[judged], within[judged] + 1)
        return JudgedRuns(
            systems=self.systems, qids=self.qids, docnos=self.docnos[keep], qrels_offsets=qrels_offsets,
            qrels_docs=new_id[self.qrels_docs[q_keep]], qrels_codes=self.qrels_codes[q_keep],
            run_offsets=run_offsets, run_docs=new_id[self.run_docs[r_keep]], run_codes=run_codes,
            run_stops=run_offsets[:-1] + stop, grade_values=self.grade_values,
        )

    @classmethod
    def build(cls, runs: Mapping[str, pd.DataFrame], qrels: pd.DataFrame, *, warn_unjudged: bool = True,
              warn_missing: bool = True) -> JudgedRuns:
        """Intern validated runs and qrels.

        Args:
            runs: dict name -> frame with ``qid``, ``docno``, ``score`` (as returned by
                :func:`pyterrier_boot.read_runs`).
            qrels: frame with ``qid``, ``docno``, ``label`` (``Qrels.frame``).
            warn_unjudged, warn_missing: warn about the runs' topics that are not in the qrels, and
                about the judged topics a run has no result for (False where the caller has said so).

        A run that shares no topic with the qrels is refused (a ValueError naming it). Topics of a
        run that are not in the qrels are ignored (as trec_eval and ir_measures do), and topics of
        the qrels a run did not retrieve anything for get an empty ranking (every measure then
        scores 0), each with one :class:`InputWarning` counting the runs and topics
        (:mod:`pyterrier_boot.inputs.overlap`).

        Up to :data:`ALL_AT_ONCE_ROWS` results in all, every run is interned in one pass over the
        concatenated columns (fastest); beyond, one run at a time (:class:`JudgedRunsBuilder`: the
        same arrays, with working memory of one run rather than of all).
        """
        names = tuple(runs)
        frames = [runs[n] for n in names]
        if sum(len(f) for f in frames) > ALL_AT_ONCE_ROWS:
            builder = JudgedRunsBuilder(qrels, warn_unjudged=warn_unjudged, warn_missing=warn_missing)
            for name, frame in zip(names, frames, strict=True):
                builder.add(name, frame)
            return builder.build()
        qids = np.array(natural_order(pd.unique(qrels["qid"].to_numpy(object))), dtype=object)
        doc, docnos = _docno_ids([qrels["docno"]] + [f["docno"] for f in frames])
        q_doc, q_code, qrels_offsets, lookup, values = _intern_qrels(qrels, pd.Index(qids), doc[:len(qrels)],
                                                                     len(docnos))
        sizes = np.array([len(f) for f in frames], np.int64)
        topic = _topic_ids([f["qid"] for f in frames], qids)
        score = np.concatenate([trec_eval_scores(f["score"].to_numpy(np.float64)) for f in frames]
                               if frames else [np.zeros(0, np.float32)])
        overlap = TopicOverlap(qids, ignored=warn_unjudged, missing=warn_missing)
        _warn_dropped(names, frames, sizes, topic, score, qids, overlap)
        overlap.report()
        if len(topic) >= COMPILED_RANKING_ROWS:
            judged_docs = np.zeros(len(docnos), dtype=bool)
            judged_docs[q_doc] = True
            judged_keys, judged_codes = lookup
            run_docs, run_offsets, run_stops, run_codes = rank_cells(
                topic, sizes, score.view(np.int32), doc[len(qrels):], len(qids), judged_keys, judged_codes,
                judged_docs, len(docnos), UNJUDGED)
        else:
            run_docs, run_offsets, run_stops, run_codes = _rank_runs(
                topic, sizes, score, doc[len(qrels):], lookup, len(qids), len(docnos))
        return cls(
            systems=names, qids=qids, docnos=docnos, qrels_offsets=qrels_offsets, qrels_docs=q_doc,
            qrels_codes=q_code, run_offsets=run_offsets, run_docs=run_docs, run_codes=run_codes,
            run_stops=run_stops, grade_values=values,
        )


def _docno_ids(columns):
    """Every docno of ``columns`` (concatenated) as its position among the sorted distinct docnos;
    and those docnos. Hashing first and sorting only the distinct docnos is much faster than
    sorting while factorising."""
    values = np.concatenate([c.to_numpy(object) for c in columns])
    codes, uniques = pd.factorize(values)
    uniques = np.asarray(uniques, dtype=object)
    order = _string_order(uniques)
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank[codes], uniques[order]


def _string_order(values):
    """``argsort`` of strings in code-point order (stable: equal strings keep their order).

    ASCII strings of up to 24 characters are packed, NUL-padded, into up to three big-endian
    64-bit words whose integer order is their order (a prefix sorts first, as the padding is
    below every character); other short strings sort as fixed-width numpy text, long ones as
    objects. Strings holding NUL characters (which padding would confuse) sort as objects."""
    if len(values) == 0:
        return np.zeros(0, np.int64)
    longest = max(map(len, values))
    joined = "".join(values)
    if "\x00" in joined:
        return np.argsort(values, kind="stable")
    if joined.isascii() and longest <= 24:
        words = max(1, -(-longest // 8))  # an empty string still takes a word
        packed = values.astype(f"S{8 * words}").view(">u8").astype(np.uint64).reshape(-1, words)
        return np.lexsort(packed.T[::-1])
    if longest <= 64 and len(values) * longest <= 2**28:
        return np.argsort(values.astype(f"U{longest}"), kind="stable")
    return np.argsort(values, kind="stable")


def _topic_ids(columns, qids):
    """Topic index (in ``qids``) of every row of the concatenated ``qid`` columns, -1 for a topic
    not in the qrels. Runs list a topic's results together, so only the first row of each block of
    equal ids is looked up."""
    index = pd.Index(qids)
    parts = [np.zeros(0, np.int32)]
    for column in columns:
        values = column.to_numpy(object)
        starts = np.ones(len(values), dtype=bool)
        np.not_equal(values[1:], values[:-1], out=starts[1:])
        heads = np.flatnonzero(starts)
        ids = index.get_indexer(values[heads]).astype(np.int32)
        parts.append(np.repeat(ids, np.diff(np.append(heads, len(values)))))
    return np.concatenate(parts)


def _warn_dropped(names, frames, sizes, topic, score, qids, overlap):
    """Warn (once per kind, naming the runs) about scores beyond single precision, and add each run's
    topics to ``overlap`` (:class:`~pyterrier_boot.inputs.overlap.TopicOverlap`: a run without a
    topic in the qrels is refused), for runs of ``sizes`` consecutive rows; return the mask of the
    rows kept (those of judged topics)."""
    ends = np.cumsum(sizes)
    infinite = np.unique(np.searchsorted(ends, np.flatnonzero(np.isinf(score)), side="right"))
    if len(infinite):
        report(InputWarning, "{n} run(s) have scores beyond single precision (about 3.4e38 in magnitude), "
               "which trec_eval compares as infinite, so those documents tie (broken by docno, as "
               "trec_eval does); rescale the scores to rank them apart: {cases}", [repr(names[j]) for j in infinite])
    for j, (name, frame) in enumerate(zip(names, frames, strict=True)):
        rows = topic[ends[j] - sizes[j]:ends[j]]
        seen = np.zeros(len(qids), dtype=bool)
        seen[rows[rows >= 0]] = True
        unknown = pd.unique(frame["qid"].to_numpy(object)[rows < 0])
        overlap.add(name, [*qids[seen], *unknown])
    return topic >= 0


def _rank_runs(topic, sizes, score, doc, lookup, n_topics, n_docs):
    """:func:`~.ranking.rank_cells` with numpy sorts, for inputs too small to repay its compilation:
    ``(docs, offsets, stops, grades)`` in the layout of the module docstring."""
    kept = topic >= 0
    cell = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)[kept] * n_topics + topic[kept]
    doc = doc[kept]
    order = _ranking_order(cell, score[kept], lambda rows: np.argsort(doc[rows], kind="stable"))
    cell, doc = cell[order], doc[order]
    grade = _lookup(*lookup, cell % max(n_topics, 1), doc, n_docs)
    offsets, stop = _offsets_and_stops(cell, grade, len(sizes) * n_topics)
    return doc, offsets, offsets[:-1] + stop, grade


def _offsets_and_stops(cell, grade, n_cells):
    """For rows in cell order: each cell's first row (``n_cells + 1`` offsets, the total last) and
    how many of its rows reach its last judged document (0 when none is judged)."""
    offsets = np.zeros(n_cells + 1, np.int64)
    np.cumsum(np.bincount(cell, minlength=n_cells), out=offsets[1:])
    judged = grade != UNJUDGED
    within = np.arange(len(cell)) - offsets[cell]
    stop = np.zeros(n_cells, np.int64)
    np.maximum.at(stop, cell[judged], within[judged] + 1)
    return offsets, stop


def _ranking_order(cell, score, tie_order):
    """Order of rows by cell, then score descending, then docno descending (the numpy ranking of
    :func:`_rank_runs` and :class:`JudgedRunsBuilder`).

    One 64-bit key (cell, then the descending score key) sorted stably, which is fast on runs
    already listed by score; only the rows tying on the key (equal scores) are then put in docno
    order, by ``tie_order(rows)``, the argsort of the docnos of those rows (of their ids, where ids
    compare as docnos)."""
    key = (cell.astype(np.int64) << 32) | descending_score_keys(score)
    order = np.argsort(key, kind="stable")
    key = key[order]
    tie = np.zeros(len(key), dtype=bool)
    same = key[1:] == key[:-1]
    tie[1:] |= same
    tie[:-1] |= same
    if tie.any():
        rows = np.flatnonzero(tie)
        group = np.cumsum(~np.concatenate([[False], same])[rows])  # one id per block of equal keys
        tie_doc = np.empty(len(rows), np.int64)
        tie_doc[tie_order(order[rows])] = np.arange(len(rows))
        within = np.lexsort((-tie_doc, group))
        order[rows] = order[rows[within]]
    return order


def _intern_qrels(qrels, topic_index, q_doc, n_docs):
    """Judgements by topic, then grade descending, then doc id; their offsets per topic; the
    ``(sorted keys, grade codes)`` lookup of the grade code of a ``topic * n_docs + doc`` key; and
    the distinct grades (:func:`grade_codes`)."""
    n_topics = len(topic_index)
    q_topic = topic_index.get_indexer(qrels["qid"].to_numpy(object))
    q_code, values = grade_codes(qrels["label"].to_numpy(np.int64))
    order = np.lexsort((q_doc, -q_code.astype(np.int64), q_topic))
    q_topic, q_doc, q_code = q_topic[order], q_doc[order], q_code[order]
    qrels_offsets = np.zeros(n_topics + 1, np.int64)
    np.cumsum(np.bincount(q_topic, minlength=n_topics), out=qrels_offsets[1:])
    judged_keys = q_topic.astype(np.int64) * n_docs + q_doc
    key_order = np.argsort(judged_keys)
    return q_doc, q_code, qrels_offsets, (judged_keys[key_order], q_code[key_order]), values


def _lookup(sorted_keys, sorted_grades, topic, doc, n_docs):
    """Grade code of each (topic, doc), or UNJUDGED; only rows retrieving a document judged for
    some topic are searched."""
    grade = np.full(len(doc), UNJUDGED, np.int32)
    judged_somewhere = np.zeros(n_docs, dtype=bool)
    judged_somewhere[sorted_keys % max(n_docs, 1)] = True
    rows = np.flatnonzero(judged_somewhere[doc])
    if len(rows):
        keys = topic[rows].astype(np.int64) * n_docs + doc[rows]
        pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
        hit = sorted_keys[pos] == keys
        grade[rows[hit]] = sorted_grades[pos[hit]]
    return grade


class JudgedRunsBuilder:
    """Interns runs one at a time, so that a caller reading many large runs never holds more than
    one run frame: each run is ranked and graded as it is added and only its integer arrays are
    kept; :meth:`build` returns the same :class:`JudgedRuns` as :meth:`JudgedRuns.build` on all
    the runs at once (``warn_unjudged`` and ``warn_missing`` as there).

    Example:
        >>> builder = JudgedRunsBuilder(qrels.frame)
        >>> for name, frame in iter_runs("runs/"):     # doctest: +SKIP
        ...     builder.add(name, frame)
        >>> arrays = builder.build()                   # doctest: +SKIP
    """

    def __init__(self, qrels: pd.DataFrame, *, warn_unjudged: bool = True, warn_missing: bool = True) -> None:
        self._qrels = qrels[["qid", "docno", "label"]]
        self._qids = np.array(natural_order(pd.unique(qrels["qid"].to_numpy(object))), dtype=object)
        self._overlap = TopicOverlap(self._qids, ignored=warn_unjudged, missing=warn_missing)
        self._vocabulary = _Vocabulary()  # ids in first-seen order
        codes = self._vocabulary.ids(qrels["docno"].to_numpy(object))
        uniques = self._vocabulary.values()
        self._q_doc = codes.astype(np.int32)
        self._n_judged_docs = len(uniques)  # the qrels' documents have the first ids
        topic = pd.Index(self._qids).get_indexer(qrels["qid"].to_numpy(object)).astype(np.int64)
        keys = topic * len(uniques) + self._q_doc
        order = np.argsort(keys)
        self._lookup = (keys[order], grade_codes(qrels["label"].to_numpy(np.int64))[0][order])
        self._names: list[str] = []
        self._docs: list[np.ndarray] = []
        self._grades: list[np.ndarray] = []
        self._counts: list[np.ndarray] = []
        self._stops: list[np.ndarray] = []

    def add(self, name: str, run: pd.DataFrame) -> None:
        """Rank and grade one run (a frame as :func:`pyterrier_boot.read_run` returns); the frame
        is not kept. A run with the same docno twice for a topic is refused
        (:func:`~pyterrier_boot.inputs.runs.check_run`, naming it as ``run.attrs["what"]`` says),
        so runs read with ``iter_runs(check_pairs=False)`` are checked here, on integer ids."""
        topic = _topic_ids([run["qid"]], self._qids)
        score = trec_eval_scores(run["score"].to_numpy(np.float64))
        kept = _warn_dropped([name], [run], [len(run)], topic, score, self._qids, self._overlap)
        docnos = run["docno"].to_numpy(object)
        ids = self._vocabulary.ids(docnos)  # every docno gets an id, as in JudgedRuns.build
        if _repeats(run["qid"], ids):  # check_run raises, naming the first repeated pair
            check_run(run, run.attrs.get("what", f"run {name!r}"))
        ids = ids[kept]
        docnos = docnos[kept]
        order = _ranking_order(topic[kept], score[kept], lambda rows: _string_order(docnos[rows]))
        doc, topic = ids[order].astype(np.int32), topic[kept][order]
        grade = np.full(len(doc), UNJUDGED, np.int32)
        graded = doc < self._n_judged_docs
        grade[graded] = _lookup(*self._lookup, topic[graded], doc[graded], max(self._n_judged_docs, 1))
        offsets, stop = _offsets_and_stops(topic, grade, len(self._qids))
        self._names.append(name)
        self._docs.append(doc)
        self._grades.append(grade)
        self._counts.append(np.diff(offsets))
        self._stops.append(stop)

    def build(self) -> JudgedRuns:
        """The runs added so far, with docnos renumbered in sorted order (ids compare as docnos)."""
        self._overlap.report()
        docnos = self._vocabulary.values()
        order = _string_order(docnos)
        rank = np.empty(len(order), np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        n_topics, n_systems = len(self._qids), len(self._names)
        q_doc, q_code, qrels_offsets, _, values = _intern_qrels(self._qrels, pd.Index(self._qids),
                                                                rank[self._q_doc], len(docnos))
        for i, docs in enumerate(self._docs):  # one run at a time: no second copy of every ranking
            self._docs[i] = rank[docs]
        run_docs = np.concatenate(self._docs) if n_systems else np.zeros(0, np.int32)
        run_codes = np.concatenate(self._grades) if n_systems else np.zeros(0, np.int32)
        self._docs, self._grades = [], []
        run_offsets = np.zeros(n_systems * n_topics + 1, np.int64)
        if n_systems:
            np.cumsum(np.concatenate(self._counts), out=run_offsets[1:])
        run_stops = run_offsets[:-1] + (np.concatenate(self._stops) if n_systems else np.zeros(0, np.int64))
        return JudgedRuns(
            systems=tuple(self._names), qids=self._qids, docnos=docnos[order], qrels_offsets=qrels_offsets,
            qrels_docs=q_doc, qrels_codes=q_code, run_offsets=run_offsets, run_docs=run_docs,
            run_codes=run_codes, run_stops=run_stops, grade_values=values,
        )


def _repeats(qids: pd.Series, ids: npt.NDArray[np.int64]) -> bool:
    """Whether some (qid, document id) pair occurs twice (one sort of integer keys)."""
    if len(ids) < 2:
        return False
    topic, _ = pd.factorize(qids)
    keys = np.sort(topic.astype(np.int64) * (int(ids.max()) + 1) + ids)
    return bool((keys[1:] == keys[:-1]).any())


class _Vocabulary:
    """Distinct strings numbered in first-seen order, looked up a whole array at a time (a dict
    probed through ``map``, which is about twice as fast as hashed pandas indexes here)."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}

    def ids(self, values: npt.NDArray[np.object_]) -> npt.NDArray[np.int64]:
        """The id of each of ``values``, numbering those not seen before (one lookup per value)."""
        ids = self._ids
        found = np.array(list(map(ids.get, values)), dtype=object)
        missing = np.flatnonzero(pd.isna(found))
        if len(missing):
            codes, new = pd.factorize(values[missing])
            size = len(ids)
            ids.update(zip(new, range(size, size + len(new))))
            found[missing] = codes + size
        return found.astype(np.int64)

    def values(self) -> npt.NDArray[np.object_]:
        """Every string, by id."""
        return np.array(list(self._ids), dtype=object)
