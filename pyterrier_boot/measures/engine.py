"""The batched engine: values of every (image, system, topic, measure) through the kernels.

Measures with a kernel (see :func:`~.lowering.lower`) are computed by
:func:`~.kernels.evaluate_tasks`; any other ir_measures measure falls back to materialising each
image (:mod:`.materialisation`) and calling ``ir_measures.iter_calc``, with a
:class:`~pyterrier_boot._warnings.FallbackWarning` naming it.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import ir_measures
import numba
import numpy as np
import pandas as pd

from .._warnings import FallbackWarning, report
from .kernels import evaluate_tasks
from .lowering import ERR, ERR_MAX_GRADE, JUDGED, kernel_tables, lower
from .materialisation import image_qrels, image_run

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray, MeasuresLike, QrelsLike, RunsLike
    from .arrays import JudgedRuns



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
        grade_min, grade_max = arrays.grade_range
        self._grade_min = grade_min
        if grade_max > ERR_MAX_GRADE and any(km.kind == ERR for km in kms):
            raise ValueError(
                f"ERR follows gdeval (TREC Web track), whose grades are 0..{ERR_MAX_GRADE}, but the qrels "
                f"hold grade {grade_max}: map the grades into that range first"
            )
        self._gains, self._orders, self._weights = kernel_tables(kms, grade_min, grade_max)
        self._kinds = np.array([km.kind for km in kms], dtype=np.int64)
        self._cutoffs = np.array([km.cutoff for km in kms], dtype=np.int64)
        self._rels = np.array([km.rel for km in kms], dtype=np.int64)
        self._xs = np.array([km.x for km in kms], dtype=np.float64)
        self._judged_only = np.array([km.judged_only for km in kms], dtype=np.bool_)
        self._discounts = None

    def _kernels(self, multiplicity):
        """Kernel measures ``[image, system, topic, kernel measure]``: the (image, topic) tasks are
        split into contiguous ranges, one per numba thread, each filled by
        :func:`~.kernels.evaluate_tasks` with the GIL released."""
        a = self.arrays
        values = np.zeros((multiplicity.shape[0], a.n_systems, a.n_topics, len(self.kernel_index)))
        args = (multiplicity, self._grade_min, a.qrels_offsets, a.qrels_docs, a.qrels_grades, a.run_offsets,
                a.run_docs, a.run_grades, a.run_stops, self._kinds, self._cutoffs, self._rels, self._xs,
                self._judged_only, self._gains, self._orders, self._weights, self._discount(multiplicity),
                bool((self._kinds == JUDGED).any()), int(np.diff(a.run_offsets).max(initial=0)), values)
        n_tasks = multiplicity.shape[0] * a.n_topics
        bounds = np.linspace(0, n_tasks, min(numba.get_num_threads(), n_tasks) + 1).astype(int)
        if len(bounds) <= 2:
            evaluate_tasks(0, n_tasks, *args)
        else:
            with ThreadPoolExecutor(len(bounds) - 1) as pool:
                for done in [pool.submit(evaluate_tasks, first, last, *args) for first, last in zip(bounds, bounds[1:])]:
                    done.result()
        return values

    def _discount(self, multiplicity):
        """``1 / log2(p + 2)`` for every image position a ranking or an ideal ranking can reach."""
        a = self.arrays
        longest = max(np.diff(a.run_offsets).max(initial=0), np.diff(a.qrels_offsets).max(initial=0))
        length = int(longest) * max(int(multiplicity.max(initial=1)), 1) + 1
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
                report(FallbackWarning, "no fast kernel for {cases}: computed by materialising every image "
                       "and calling ir_measures (slow)", map(repr, self.fallback_measures))
                frames = self._frames()
                qrels = frames.pop(None)
                for b, k in enumerate(multiplicity):
                    mult = pd.Series(k, index=a.docnos)
                    runs = {name: image_run(run, mult) for name, run in frames.items()}
                    out[b][..., self.fallback_index] = self._fallback(runs, image_qrels(qrels, mult))
        return out

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
            "qid": a.qids[q_topic], "docno": a.docnos[a.qrels_docs], "label": a.qrels_grades.astype(np.int64),
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


def _check_computable(measures):
    """Refuse measures that neither a kernel nor any installed ir_measures provider computes."""
    providers = [p for p in ir_measures.DefaultPipeline.providers if p.is_available()]
    missing = [lm.label for lm in measures if not any(p.supports(lm.measure) for p in providers)]
    if missing:
        raise ValueError(
            f"cannot compute {', '.join(map(repr, missing))}: pyterrier_boot has no kernel for "
            f"{'it' if len(missing) == 1 else 'them'} with these parameters and no installed ir_measures "
            "provider supports them (e.g. RBP and INST take no cutoff; ERR needs one)"
        )
