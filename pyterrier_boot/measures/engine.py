"""The batched engine: values of every (image, system, topic, measure) through the kernels.

Measures with a kernel (see :func:`~.lowering.lower`) are computed by
:func:`~.kernels.evaluate_tasks`; any other ir_measures measure falls back to materialising each
image (:mod:`.materialisation`) and calling ``ir_measures.iter_calc``, with a
:class:`~pyterrier_boot._warnings.FallbackWarning` naming it.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import ir_measures
import numba
import numpy as np
import pandas as pd

from .._streams import POISSON_CAP
from .._warnings import FallbackWarning, report
from .kernels import FUSED_GROUPS, FUSED_KINDS, LANES, evaluate_tasks
from .lowering import (
    AP,
    ERR,
    ERR_MAX_GRADE,
    JUDGED,
    NCG,
    NDCG,
    RPREC,
    RR,
    SUCCESS,
    P,
    R,
    kernel_tables,
    lower,
)
from .materialisation import image_qrels, image_run

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray, MeasuresLike, QrelsLike, RunsLike
    from .arrays import JudgedRuns
    from .lowering import KernelMeasure



class Evaluator:
    """Evaluates fixed runs and measures on any batch of corpus images.

    Args:
        arrays: the interned runs and qrels (:class:`~.arrays.JudgedRuns`).
        measures: labelled measures (:func:`~.parsing.parse_measures`).
        runs, qrels: the original frames; when given, fallback measures on the unchanged
            collection are computed by ir_measures on them exactly as a user would.

    Example:
        >>> ev = Evaluator(arrays, parse_measures(["AP", "nDCG@10"]))
        >>> values = ev.evaluate(np.ones((1, arrays.n_docs), np.int32))  # [1, S, Q, 2]
        >>> images = ev.evaluate_poisson(image_keys(1, 100), docno_hashes(arrays.docnos))  # [100, S, Q, 2]
    """

    def __init__(self, arrays: JudgedRuns, measures: MeasuresLike, *, runs: RunsLike | None = None,
                 qrels: QrelsLike | None = None):
        self.arrays = arrays
        self.measures = tuple(measures)
        self._runs = runs
        self._qrels = qrels
        lowered = [lower(lm.measure) for lm in self.measures]
        self.kernel_index = np.array([i for i, km in enumerate(lowered) if km is not None], dtype=np.int64)
        self.fallback_index = np.array([i for i, km in enumerate(lowered) if km is None], dtype=np.int64)
        _check_computable([lm for lm, km in zip(self.measures, lowered) if km is None])
        kms = [km for km in lowered if km is not None]
        self.kernel_measures = tuple(kms)
        _check_grades(kms, arrays.grade_values, self.fallback_measures)
        code_min, code_max = arrays.code_range  # kernels index arrays by grade code: sized by distinct grades
        self._grade_min = code_min
        self._fused, self._general = _family_tables(kms, arrays)
        self._n_grades = code_max - code_min + 1
        self._discounts = None

    def _kernels(self, multiplicity, keys=None, hashes=None):
        """Kernel measures ``[image, system, topic, kernel measure]`` of the images in
        ``multiplicity``, or of the Poisson(1) images of ``keys`` drawn in the kernel from the
        documents' ``hashes``. The (block of images, topic) tasks are split into contiguous ranges, a
        few per numba thread; each thread fills the next range left with
        :func:`~.kernels.evaluate_tasks` (GIL released) until none is."""
        a = self.arrays
        n_images = multiplicity.shape[0] if keys is None else len(keys)
        values = np.zeros((n_images, a.n_systems, a.n_topics, len(self.kernel_index)))
        if keys is None:
            keys, hashes, most = np.zeros(0, np.uint64), np.zeros(0, np.uint64), int(multiplicity.max(initial=1))
        else:
            multiplicity, most = np.zeros((0, 0), np.int32), POISSON_CAP
        data = (self._grade_min, a.qrels_offsets, a.qrels_docs, a.qrels_codes, a.run_offsets, a.run_docs,
                a.run_codes, a.run_stops, self._n_grades)
        discount = self._discount(most)
        width = min(LANES, max(n_images, 1))  # images walked together (one: a plain evaluation)
        n_tasks = -(-n_images // width) * a.n_topics
        threads = min(numba.get_num_threads(), max(n_tasks, 1))
        bounds = np.linspace(0, n_tasks, (4 * threads if threads > 1 else 1) + 1).astype(int)
        ranges = iter(list(zip(bounds[:-1].tolist(), bounds[1:].tolist())))
        lock = threading.Lock()

        def work():  # one per thread, with its own scratch, taking the next range until none is left
            scratch = self._scratch(discount, width)
            while True:
                with lock:
                    task = next(ranges, None)
                if task is None:
                    return
                evaluate_tasks(*task, multiplicity, keys, hashes, data, self._fused, self._general, discount,
                               scratch, values)

        if threads == 1:
            work()
        else:
            with ThreadPoolExecutor(threads) as pool:
                for done in [pool.submit(work) for _ in range(threads)]:
                    done.result()
        return values

    def _scratch(self, discount, width):
        """Working arrays of one thread's :func:`~.kernels.evaluate_tasks` (see its docstring), for
        ``width`` images walked together."""
        ones = np.ones(len(discount))
        longest = int(np.diff(self.arrays.run_offsets).max(initial=0))
        fused = general = None
        if self._fused is not None:
            shape = (width, len(self._fused[0]))
            fused = (ones, np.zeros(shape, np.int64), np.zeros(shape), np.zeros(shape, np.int64), np.zeros(shape),
                     np.zeros(shape, np.int64), np.zeros(shape, np.int64), np.zeros(width, np.int64))
        if self._general is not None:
            m = len(self._general[0])
            general = (ones, np.zeros(m, np.int64), np.zeros(m), np.zeros(longest, np.int64),
                       np.zeros(longest, np.int32))
        kt = np.zeros((self.arrays.n_docs, width), np.int32)
        return kt, np.zeros((width, self._n_grades), np.int64), fused, general

    def _discount(self, most):
        """``1 / log2(p + 2)`` for every image position a ranking or an ideal ranking can reach when
        no document has more than ``most`` copies."""
        a = self.arrays
        longest = max(np.diff(a.run_offsets).max(initial=0), np.diff(a.qrels_offsets).max(initial=0))
        length = int(longest) * max(most, 1) + 1
        if self._discounts is None or len(self._discounts) < length:
            self._discounts = 1.0 / np.log2(np.arange(length, dtype=np.float64) + 2.0)
        return self._discounts

    @property
    def fallback_measures(self) -> list[str]:
        """Labels of the measures computed through ir_measures rather than a kernel."""
        return [self.measures[i].label for i in self.fallback_index]

    def evaluate(self, multiplicity: npt.ArrayLike | None, *, identity: bool = False) -> FloatArray:
        """Values ``[image, system, topic, measure]`` for ``multiplicity[image, doc]`` (int32).

        ``identity=True`` states that the single image is the unchanged collection, so fallback
        measures are computed by ir_measures on the original frames when they were given.
        """
        multiplicity = np.ascontiguousarray(multiplicity, dtype=np.int32)
        a = self.arrays
        out = np.zeros((multiplicity.shape[0], a.n_systems, a.n_topics, len(self.measures)))
        if len(self.kernel_index):
            out[..., self.kernel_index] = self._kernels(multiplicity)
        if len(self.fallback_index):
            if identity and self._runs is not None and self._qrels is not None:
                out[0][..., self.fallback_index] = self._fallback(self._runs, self._qrels)
            else:
                self._fallback_images(multiplicity, out)
        return out

    def evaluate_poisson(self, keys: npt.ArrayLike, hashes: npt.ArrayLike) -> FloatArray:
        """Values ``[image, system, topic, measure]`` on the Poisson(1) corpus images of ``keys``.

        The same numbers as ``evaluate(poisson_multiplicities(keys, hashes))``
        (:mod:`pyterrier_boot.corpus.multiplicity`; Cormack & Lynam 2006), but each image is drawn
        inside the kernel that reads it, so no ``[image, document]`` array is built.

        Args:
            keys: uint64 image keys (:func:`~pyterrier_boot.corpus.multiplicity.image_keys`).
            hashes: :func:`~pyterrier_boot.corpus.multiplicity.docno_hashes` of ``arrays.docnos``.
        """
        keys = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1)
        hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
        a = self.arrays
        if hashes.shape != (a.n_docs,):
            raise ValueError(f"'hashes' must hold one hash per document seen ({a.n_docs}), got shape {hashes.shape}")
        out = np.zeros((len(keys), a.n_systems, a.n_topics, len(self.measures)))
        if len(self.kernel_index):
            out[..., self.kernel_index] = self._kernels(None, keys, hashes)
        if len(self.fallback_index):
            from ..corpus.multiplicity import poisson_multiplicities

            self._fallback_images(poisson_multiplicities(keys, hashes), out)
        return out

    def _fallback_images(self, multiplicity, out):
        """Fallback measures of every image, each materialised and evaluated by ir_measures."""
        report(FallbackWarning, "no fast kernel for {cases}: computed by materialising every image "
               "and calling ir_measures (slow)", map(repr, self.fallback_measures))
        frames = self._frames()
        qrels = frames.pop(None)
        for b, k in enumerate(multiplicity):
            mult = pd.Series(k, index=self.arrays.docnos)
            runs = {name: image_run(run, mult) for name, run in frames.items()}
            out[b][..., self.fallback_index] = self._fallback(runs, image_qrels(qrels, mult))

    def _frames(self):
        """Runs (by system) and qrels (under key None) rebuilt from the arrays, in ranking order."""
        a = self.arrays
        topic_of = np.repeat(np.tile(np.arange(a.n_topics), a.n_systems), np.diff(a.run_offsets))
        system_of = np.repeat(np.repeat(np.arange(a.n_systems), a.n_topics), np.diff(a.run_offsets))
        position = np.arange(len(a.run_docs)) - np.repeat(a.run_offsets[:-1], np.diff(a.run_offsets))
        frames = {}
        for s, name in enumerate(a.systems):
            mine = system_of == s
            frames[name] = pd.DataFrame({
                "qid": a.qids[topic_of[mine]],
                "docno": a.docnos[a.run_docs[mine]],
                "score": -position[mine].astype(np.float64),
            })
        q_topic = np.repeat(np.arange(a.n_topics), np.diff(a.qrels_offsets))
        frames[None] = pd.DataFrame({
            "qid": a.qids[q_topic], "docno": a.docnos[a.qrels_docs], "label": a.grades_of(a.qrels_codes),
        })
        return frames

    def _fallback(self, runs, qrels):
        """ir_measures values [system, topic, fallback measure]; topics it skips score 0."""
        a = self.arrays
        measures = [self.measures[i] for i in self.fallback_index]
        columns = {}
        for j, lm in enumerate(measures):  # two labels may name one measure ("map", "AP")
            columns.setdefault(lm.measure, []).append(j)
        topic = {q: i for i, q in enumerate(a.qids)}
        ir_qrels = pd.DataFrame({
            "query_id": qrels["qid"].astype(str), "doc_id": qrels["docno"].astype(str),
            "relevance": qrels["label"].astype(np.int64),
        })
        out = np.zeros((a.n_systems, a.n_topics, len(measures)))
        for s, name in enumerate(a.systems):
            run = runs[name]
            ir_run = pd.DataFrame({
                "query_id": run["qid"].astype(str), "doc_id": run["docno"].astype(str),
                "score": run["score"].astype(np.float64),
            })
            for metric in ir_measures.iter_calc(list(columns), ir_qrels, ir_run):
                q = topic.get(metric.query_id)
                if q is not None:
                    out[s, q, columns[metric.measure]] = metric.value
        return out


_BINARY = (AP, P, R, RPREC, RR, SUCCESS)


def _family_tables(kms: list[KernelMeasure], arrays: JudgedRuns) -> tuple[tuple | None, tuple | None]:
    """The tables :func:`~.kernels.evaluate_tasks` reads for its fused and general families (None
    for a family without measures, so its code is neither compiled nor run), in grade codes (gains
    per code, ``rel`` as the smallest code of a grade >= rel). The fused family also gets, per
    ranking, the positions of the documents some fused measure gains from
    (``i_pos[i_off[j]:i_off[j + 1]]`` for ranking ``j``): all its walk stops at."""
    fused = [m for m, km in enumerate(kms) if km.kind in FUSED_KINDS and not km.judged_only]
    general = [m for m in range(len(kms)) if m not in fused]
    tables: list[tuple | None] = []
    for cols in (fused, general):
        if not cols:
            tables.append(None)
            continue
        mine = [kms[m] for m in cols]
        gains, orders, weights = kernel_tables(mine, arrays.grade_values)
        kinds = np.array([km.kind for km in mine], dtype=np.int64)
        cutoffs = np.array([km.cutoff for km in mine], dtype=np.int64)
        rels = np.array([arrays.code_at_least(km.rel) for km in mine], dtype=np.int64)
        columns = np.array(cols, dtype=np.int64)
        if cols is fused:
            i_pos = np.flatnonzero(arrays.run_codes >= _lowest(mine, gains, rels, arrays.code_range[0]))
            i_pos = i_pos.astype(np.int64)
            i_off = np.searchsorted(i_pos, arrays.run_offsets).astype(np.int64)
            # orders only serve ideal rankings (nDCG, nCG): None otherwise, so the kernel compiled for
            # such a call has no ideal-ranking code (see kernels._fused_setup)
            ideal = bool(np.isin(kinds, (NDCG, NCG)).any())
            # likewise each group of fused measures (kernels.FUSED_GROUPS) is True when asked, else None
            groups = tuple(True if np.isin(kinds, group).any() else None for group in FUSED_GROUPS)
            tables.append((kinds, cutoffs, rels, gains, orders if ideal else None, weights, columns, i_off, i_pos,
                           groups))
        else:
            tables.append((kinds, cutoffs, rels, np.array([km.x for km in mine], dtype=np.float64),
                           np.array([km.judged_only for km in mine], dtype=np.bool_), gains, orders, weights,
                           bool((kinds == JUDGED).any()), columns))
    return tables[0], tables[1]


def _lowest(kms, gains, rels, grade_min):
    """The lowest grade code any of these fused measures gains from (the walk skips documents below
    it); ``rels`` are their ``rel`` as codes."""
    lowest = grade_min + gains.shape[1]
    for m, km in enumerate(kms):
        if km.kind in _BINARY:
            lowest = min(lowest, int(rels[m]))
        else:
            positive = np.flatnonzero(gains[m] > 0.0)
            if len(positive):
                lowest = min(lowest, grade_min + int(positive[0]))
    return int(lowest)


#: ir_measures' trec_eval provider (pytrec_eval) allocates arrays sized by the largest grade, and
#: quietly scores 0 when it cannot: fallback measures refuse grades beyond this.
FALLBACK_MAX_GRADE = 2**24
#: ``2**g - 1`` overflows a double beyond this grade.
EXP2_MAX_GRADE = 1023


def _check_grades(kms, grades, fallback):
    """Refuse grades a measure cannot score exactly, naming the grade and the measure: ERR's beyond
    gdeval's 0..4, ``2**g - 1`` gains that overflow, and huge grades for fallback measures."""
    top = int(grades.max(initial=0))
    if top > ERR_MAX_GRADE and any(km.kind == ERR for km in kms):
        raise ValueError(
            f"ERR follows gdeval (TREC Web track), whose grades are 0..{ERR_MAX_GRADE}, but the qrels "
            f"hold grade {top}: map the grades into that range first"
        )
    if top > EXP2_MAX_GRADE and any(km.scheme == "exp2" for km in kms):
        raise ValueError(f"the qrels hold grade {top}, whose gain 2**{top} - 1 (dcg='exp-log2', gdeval) "
                         "overflows a double: map the grades into a smaller range first")
    low = int(grades.min(initial=0))  # in Python ints: abs(-2**63) overflows int64
    largest = top if top >= -low else low
    if fallback and abs(largest) > FALLBACK_MAX_GRADE:
        raise ValueError(
            f"the qrels hold grade {largest}, and {', '.join(map(repr, fallback))} (no fast kernel) "
            f"would be computed by ir_measures, whose trec_eval provider sizes arrays by the largest "
            f"grade: map the grades into -{FALLBACK_MAX_GRADE}..{FALLBACK_MAX_GRADE} first"
        )


def _check_computable(measures):
    """Refuse measures that neither a kernel nor any installed ir_measures provider computes (asking
    the providers only when there are such measures: some take seconds to import)."""
    if not measures:
        return
    providers = [p for p in ir_measures.DefaultPipeline.providers if p.is_available()]
    missing = [lm.label for lm in measures if not any(p.supports(lm.measure) for p in providers)]
    if missing:
        raise ValueError(
            f"cannot compute {', '.join(map(repr, missing))}: pyterrier_boot has no kernel for "
            f"{'it' if len(missing) == 1 else 'them'} with these parameters and no installed ir_measures "
            "provider supports them (e.g. RBP and INST take no cutoff; ERR needs one)"
        )
