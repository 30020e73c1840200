"""Pure-Python reference implementations of every kernel measure, on materialised images.

These are deliberately plain: the image run and qrels are expanded into lists (a document with
multiplicity ``k`` becomes ``k`` entries; ``k = 0`` removes it) and each measure is computed from
its textbook / trec_eval definition. The numba kernels in :mod:`.kernels` must agree with them
(tests/test_measures_kernels.py), and both must agree with ir_measures on materialised frames.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .arrays import UNJUDGED
from .lowering import (
    AP,
    BPREF,
    CWL_DEPTH,
    ERR,
    ERR_MAX_GRADE,
    INSQ,
    INST,
    JUDGED,
    NCG,
    NDCG,
    RBP,
    RPREC,
    RR,
    SUCCESS,
    P,
    Q,
    R,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import numpy.typing as npt

    from .._typing import FloatArray
    from .arrays import JudgedRuns
    from .lowering import KernelMeasure



def materialise(docs: npt.NDArray[Any], grades: npt.NDArray[Any], multiplicity: npt.NDArray[Any]) -> list[int | None]:
    """Grades of a ranking (None for unjudged) with each document repeated by its multiplicity."""
    out = []
    for doc, grade in zip(docs, grades):
        out.extend([None if grade == UNJUDGED else int(grade)] * int(multiplicity[doc]))
    return out


class _Topic(NamedTuple):
    """One materialised ranking of a topic, as the measures read it."""

    ranking: Sequence[int | None]  # grades down the ranking (None: unjudged)
    top: Sequence[int | None]  # the ranking down to the cutoff
    relevant: Sequence[bool]  # of ``top``: grade >= rel
    judged: Sequence[int]  # grades of the topic's judged documents
    n_rel: int  # judged documents with grade >= rel


def measure_value(km: KernelMeasure, ranking: Sequence[int | None], judged: Sequence[int]) -> float:
    """Value of kernel measure ``km`` for a materialised ranking and the judged grades of the topic."""
    if km.judged_only:  # trec_eval: negative grades count as unjudged
        ranking = [g for g in ranking if g is not None and g >= 0]
    top = ranking[: km.cutoff] if km.cutoff else ranking
    relevant = [g is not None and g >= km.rel for g in top]
    topic = _Topic(ranking, top, relevant, judged, sum(1 for g in judged if g >= km.rel))
    for kinds, value in _VALUES:
        if km.kind in kinds:
            return value(km, topic)
    raise ValueError(f"no reference implementation for kind {km.kind}")


def _ap(km, t: _Topic) -> float:
    if t.n_rel == 0:
        return 0.0
    hits, total = 0, 0.0
    for i, is_rel in enumerate(t.relevant):
        if is_rel:
            hits += 1
            total += hits / (i + 1)
    return total / t.n_rel


def _rprec(km, t: _Topic) -> float:
    if t.n_rel == 0:
        return 0.0
    return sum(1 for g in t.ranking[:t.n_rel] if g is not None and g >= km.rel) / t.n_rel


def _cumulated_gain(km, t: _Topic) -> float:
    """nDCG, nCG and Sakai's Q-measure."""
    gains = [km.gain(g) for g in t.top]
    ideal = sorted((km.gain(g) for g in t.judged), reverse=True)
    if km.kind == NDCG:
        ideal = ideal[: km.cutoff] if km.cutoff else ideal
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        return sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / idcg if idcg > 0 else 0.0
    if km.kind == NCG:
        icg = sum(ideal[: km.cutoff])
        return sum(gains) / icg if icg > 0 else 0.0
    if t.n_rel == 0:
        return 0.0
    cg, count, total = 0.0, 0, 0.0
    for i, (gain, is_rel) in enumerate(zip(gains, t.relevant)):
        cg += gain
        count += is_rel
        if is_rel:
            total += (km.x * cg + count) / (km.x * sum(ideal[: i + 1]) + i + 1)
    return total / t.n_rel


def _bpref(km, t: _Topic) -> float:
    n_rel = t.n_rel
    n_nonrel = sum(1 for g in t.judged if 0 <= g < km.rel)
    if n_rel == 0:
        return 0.0
    nonrel_above, total = 0, 0.0
    for g in t.ranking:
        if g is None or g < 0:
            continue
        if g >= km.rel:
            total += 1.0 - min(nonrel_above, n_rel) / min(n_rel, n_nonrel) if nonrel_above else 1.0
        else:
            nonrel_above += 1
    return total / n_rel


def _cwl(km, t: _Topic) -> float:
    """RBP, INSQ and INST: expected rate of gain over the first CWL_DEPTH positions (cwl_eval)."""
    gains = [km.gain(g) for g in t.ranking[:CWL_DEPTH]]
    gains += [0.0] * (CWL_DEPTH - len(gains))
    if km.kind == INST:  # continuation depends on the gain still wanted, T_i = T - sum g
        continuation, so_far = [], 0.0
        for i, gain in enumerate(gains, start=1):
            so_far += gain
            wanted = km.x - so_far
            continuation.append(((i + km.x + wanted - 1) / (i + km.x + wanted)) ** 2)
        reach = [1.0]
        for c in continuation[:-1]:
            reach.append(reach[-1] * c)
        weights = [r / sum(reach) for r in reach]
    else:
        weights = list(km.position_weights())
    return sum(w * g for w, g in zip(weights, gains))


def _err(km, t: _Topic) -> float:
    total, reach = 0.0, 1.0
    for i, g in enumerate(t.top, start=1):
        stop = km.gain(g) / 2**ERR_MAX_GRADE
        total += reach * stop / i
        reach *= 1 - stop
    return total


# kinds -> value(km, topic)
_VALUES = (
    ((AP,), _ap),
    ((P,), lambda km, t: sum(t.relevant) / km.cutoff),
    ((R,), lambda km, t: sum(t.relevant) / t.n_rel if t.n_rel else 0.0),
    ((RR,), lambda km, t: next((1.0 / (i + 1) for i, is_rel in enumerate(t.relevant) if is_rel), 0.0)),
    ((RPREC,), _rprec),
    ((SUCCESS,), lambda km, t: float(any(t.relevant))),
    ((NDCG, NCG, Q), _cumulated_gain),
    ((BPREF,), _bpref),
    ((RBP, INSQ, INST), _cwl),
    ((JUDGED,), lambda km, t: sum(g is not None for g in t.top) / len(t.top) if t.top else 0.0),
    ((ERR,), _err),
)


def reference_values(arrays: JudgedRuns, multiplicity: npt.NDArray[Any],
                     kernel_measures: Sequence[KernelMeasure]) -> FloatArray:
    """Values ``[system, topic, measure]`` of every measure on one image, the slow obvious way."""
    out = np.zeros((arrays.n_systems, arrays.n_topics, len(kernel_measures)))
    for q in range(arrays.n_topics):
        q_docs, q_grades = arrays.judged(q)
        judged = [g for g in materialise(q_docs, q_grades, multiplicity) if g is not None]
        for s in range(arrays.n_systems):
            ranking = materialise(*arrays.ranking(s, q), multiplicity)
            for m, km in enumerate(kernel_measures):
                out[s, q, m] = measure_value(km, ranking, judged)
    return out
