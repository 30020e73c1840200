"""numba kernels: every kernel measure on many corpus images at once, without materialising them.

A document with multiplicity ``k`` occupies ``k`` consecutive positions of the image run and
counts ``k`` times in the image qrels (Cormack & Lynam 2006; Zobel & Rashidi 2020; pt_docs/methods.md,
"The corpus bootstrap"). For each (image, system, topic) the driver
gathers the ranking once into two short buffers, the copies ``k`` and the grade of each document
still present (down to the last judged document, below which no measure of relevance changes),
and each measure then walks that buffer, advancing the image position by ``k``. The number of
relevant documents and the ideal ranking come from a histogram of judged grades weighted by
``k``. Each measure function has a twin in :mod:`.reference` that materialises the image; tests
assert that they agree.

Randomness never enters: multiplicities arrive as an array. One task is one (image, topic) pair,
and no task writes what another reads, so results do not depend on how tasks are shared among
threads (:class:`~pyterrier_boot.measures.engine.Evaluator` runs them on numba's thread count).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from .._environment import numba_cache
from .arrays import UNJUDGED
from .lowering import (
    AP,
    BPREF,
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
    from typing import Any

    import numpy.typing as npt


_UNJ = np.int32(UNJUDGED)
_CACHE = numba_cache()  # False only when no folder at all is writable (see pyterrier_boot._environment)


@njit(cache=_CACHE)
def _count_at_least(hist, grade_min, rel):
    total = 0
    for i in range(hist.shape[0]):
        if i + grade_min >= rel:
            total += hist[i]
    return total


@njit(cache=_CACHE)
def _copies(k, pos, cutoff):
    """How many of ``k`` copies placed after position ``pos`` fall within the cutoff."""
    if cutoff <= 0:
        return k
    return max(0, min(k, cutoff - pos))


@njit(cache=_CACHE)
def _ap(ks, gs, n, cutoff, rel, judged_only, n_rel):
    if n_rel == 0:
        return 0.0
    pos = 0
    hits = 0
    total = 0.0
    for i in range(n):
        g = gs[i]
        if judged_only and g < 0:
            continue
        if g >= rel:
            for t in range(_copies(ks[i], pos, cutoff)):
                hits += 1
                total += hits / (pos + t + 1)
        pos += ks[i]
        if cutoff > 0 and pos >= cutoff:
            break
    return total / n_rel


@njit(cache=_CACHE)
def _relevant_within(ks, gs, n, cutoff, rel, judged_only, first_only):
    """Relevant copies within the cutoff, and the position of the first one (0 if none)."""
    pos = 0
    hits = 0
    first = 0
    for i in range(n):
        g = gs[i]
        if judged_only and g < 0:
            continue
        if g >= rel:
            c = _copies(ks[i], pos, cutoff)
            if c > 0 and first == 0:
                first = pos + 1
                if first_only:
                    break
            hits += c
        pos += ks[i]
        if cutoff > 0 and pos >= cutoff:
            break
    return hits, first


@njit(cache=_CACHE)
def _gain_within(ks, gs, n, cutoff, judged_only, grade_min, gains, discount):
    """Cumulative gain of the image ranking to the cutoff, each position ``p`` weighted by
    ``discount[p]``: ``1 / log2(p + 2)`` for DCG, ones for CG, cwl_eval's weights for RBP/INSQ."""
    pos = 0
    total = 0.0
    for i in range(n):
        g = gs[i]
        if judged_only and g < 0:
            continue
        if g != _UNJ:
            gain = gains[g - grade_min]
            if gain != 0.0:
                for t in range(_copies(ks[i], pos, cutoff)):
                    total += gain * discount[pos + t]
        pos += ks[i]
        if cutoff > 0 and pos >= cutoff:
            break
    return total


@njit(cache=_CACHE)
def _ideal(hist, gains, order, cutoff, discount):
    """Cumulative gain of the ideal ranking of the judged copies to the cutoff, weighted by
    ``discount[position]``."""
    pos = 0
    total = 0.0
    for j in range(order.shape[0]):
        o = order[j]
        gain = gains[o]
        if gain <= 0.0:
            break
        c = _copies(hist[o], pos, cutoff)
        for t in range(c):
            total += gain * discount[pos + t]
        pos += c
        if cutoff > 0 and pos >= cutoff:
            break
    return total


@njit(cache=_CACHE)
def _q_measure(ks, gs, n, cutoff, rel, judged_only, beta, n_rel, hist, grade_min, gains, order):
    if n_rel == 0:
        return 0.0
    pos = 0
    cg = 0.0
    count = 0
    total = 0.0
    # cursor over the ideal ranking: grade slot j, copies of it used, ideal position and gain
    j = 0
    used = 0
    ideal_pos = 0
    ideal_cg = 0.0
    for i in range(n):
        g = gs[i]
        if judged_only and g < 0:
            continue
        gain = gains[g - grade_min] if g != _UNJ else 0.0
        is_rel = g >= rel
        for t in range(_copies(ks[i], pos, cutoff)):
            cg += gain
            if is_rel:
                count += 1
                p = pos + t + 1
                while ideal_pos < p and j < order.shape[0]:  # advance the ideal ranking to p
                    o = order[j]
                    if gains[o] <= 0.0:
                        break
                    if used == hist[o]:
                        j += 1
                        used = 0
                        continue
                    step = min(hist[o] - used, p - ideal_pos)
                    ideal_cg += gains[o] * step
                    used += step
                    ideal_pos += step
                total += (beta * cg + count) / (beta * ideal_cg + p)
        pos += ks[i]
        if cutoff > 0 and pos >= cutoff:
            break
    return total / n_rel


@njit(cache=_CACHE)
def _bpref(ks, gs, n, rel, n_rel, n_nonrel):
    if n_rel == 0:
        return 0.0
    nonrel_above = 0
    total = 0.0
    for i in range(n):
        g = gs[i]
        if g < 0:  # trec_eval: unjudged, or judged with a negative grade
            continue
        if g >= rel:
            if nonrel_above > 0:
                total += ks[i] * (1.0 - min(nonrel_above, n_rel) / min(n_rel, n_nonrel))
            else:
                total += ks[i]
        else:
            nonrel_above += ks[i]
    return total / n_rel


@njit(cache=_CACHE)
def _inst(ks, gs, n, grade_min, gains, target, depth):
    """cwl_eval's INST: continuation ((i+T+T_i-1)/(i+T+T_i))^2 with T_i = T - gain so far."""
    gain_at = np.zeros(depth)
    pos = 0
    for i in range(n):
        g = gs[i]
        if g != _UNJ:
            for t in range(_copies(ks[i], pos, depth)):
                gain_at[pos + t] = gains[g - grade_min]
        pos += ks[i]
        if pos >= depth:
            break
    reach = 1.0
    norm = 0.0
    total = 0.0
    cumulative = 0.0
    for i in range(depth):
        norm += reach
        total += reach * gain_at[i]
        cumulative += gain_at[i]
        remaining = target - cumulative
        c = (i + 1 + target + remaining - 1) / (i + 1 + target + remaining)
        reach *= c * c
    return total / norm


@njit(cache=_CACHE)
def _judged(ks, gs, n, cutoff):
    """Share of the top min(cutoff, n) image positions holding a judged document."""
    pos = 0
    judged = 0
    for i in range(n):
        c = _copies(ks[i], pos, cutoff)
        if gs[i] != _UNJ:
            judged += c
        pos += c
        if cutoff > 0 and pos >= cutoff:
            break
    return judged / pos if pos > 0 else 0.0


@njit(cache=_CACHE)
def _err(ks, gs, n, cutoff, grade_min, gains):
    """gdeval's ERR@k: stopping probability (2^g - 1) / 2^4 at each position."""
    scale = 2.0**ERR_MAX_GRADE
    pos = 0
    reach = 1.0
    total = 0.0
    for i in range(n):
        g = gs[i]
        if g != _UNJ:
            stop_here = gains[g - grade_min] / scale
            if stop_here > 0.0:
                for t in range(_copies(ks[i], pos, cutoff)):
                    total += reach * stop_here / (pos + t + 1)
                    reach *= 1.0 - stop_here
        pos += ks[i]
        if pos >= cutoff:
            break
    return total


@njit(cache=_CACHE)
def _normaliser(kind, cutoff, n_rel, hist, grade_min, gains, order, discount, ones):
    """What a measure divides by on one image and topic: the ideal (discounted) cumulative gain for
    nDCG and nCG, the judged non-relevant copies for Bpref, else nothing (0)."""
    if kind == NDCG:
        return _ideal(hist, gains, order, cutoff, discount)
    if kind == NCG:
        return _ideal(hist, gains, order, cutoff, ones)
    if kind == BPREF:
        return _count_at_least(hist, grade_min, 0) - n_rel
    return 0.0


@njit(cache=_CACHE)
def _value(kind, cutoff, rel, x, judged_only, ks, gs, n, n_rel, norm, hist, grade_min, gains, order, weights,
           discount, ones):
    if kind == AP:
        return _ap(ks, gs, n, cutoff, rel, judged_only, n_rel)
    if kind == P:
        return _relevant_within(ks, gs, n, cutoff, rel, judged_only, False)[0] / cutoff
    if kind == R or kind == RPREC:
        if n_rel == 0:
            return 0.0
        return _relevant_within(ks, gs, n, n_rel if kind == RPREC else cutoff, rel, judged_only, False)[0] / n_rel
    if kind == RR or kind == SUCCESS:
        first = _relevant_within(ks, gs, n, cutoff, rel, judged_only, True)[1]
        if kind == SUCCESS:
            return 1.0 if first > 0 else 0.0
        return 1.0 / first if first > 0 else 0.0
    if kind == NDCG or kind == NCG:
        if norm <= 0.0:
            return 0.0
        return _gain_within(ks, gs, n, cutoff, judged_only, grade_min, gains, discount if kind == NDCG else ones) / norm
    if kind == Q:
        return _q_measure(ks, gs, n, cutoff, rel, judged_only, x, n_rel, hist, grade_min, gains, order)
    if kind == BPREF:
        return _bpref(ks, gs, n, rel, n_rel, norm)
    if kind == RBP or kind == INSQ:
        return _gain_within(ks, gs, n, weights.shape[0], False, grade_min, gains, weights)
    if kind == INST:
        return _inst(ks, gs, n, grade_min, gains, x, weights.shape[0])
    if kind == JUDGED:
        return _judged(ks, gs, n, cutoff)
    if kind == ERR:
        return _err(ks, gs, n, cutoff, grade_min, gains)
    return np.nan


@njit(nogil=True, cache=_CACHE)
def evaluate_tasks(first: int, last: int, multiplicity: npt.NDArray[Any], grade_min: int,
                   q_off: npt.NDArray[Any], q_doc: npt.NDArray[Any], q_grade: npt.NDArray[Any],
                   r_off: npt.NDArray[Any], r_doc: npt.NDArray[Any], r_grade: npt.NDArray[Any],
                   r_stop: npt.NDArray[Any], kinds: npt.NDArray[Any], cutoffs: npt.NDArray[Any],
                   rels: npt.NDArray[Any], xs: npt.NDArray[Any], judged_only: npt.NDArray[Any],
                   gains: npt.NDArray[Any], orders: npt.NDArray[Any], weights: npt.NDArray[Any],
                   discount: npt.NDArray[Any], whole: bool, longest: int, out: npt.NDArray[Any]) -> None:
    """Fill ``out[image, system, topic, measure]`` for tasks ``first..last-1`` (task = image * Q + topic).

    ``multiplicity[image, doc]`` gives each interned document's copies in each image; the other
    arrays are those of :class:`~pyterrier_boot.measures.arrays.JudgedRuns` and of
    :func:`~pyterrier_boot.measures.lowering.kernel_tables`; ``discount[p] = 1 / log2(p + 2)``
    must cover every image position a ranking or an ideal ranking reaches. ``whole``: gather
    rankings to their end (Judged counts unjudged documents); ``longest``: the longest ranking.
    The GIL is released, so threads may fill disjoint task ranges at once.
    """
    _, n_systems, n_topics, n_measures = out.shape
    n_grades = gains.shape[1]
    ones = np.ones(discount.shape[0])
    ks = np.empty(longest, np.int64)
    gs = np.empty(longest, np.int32)
    n_rel = np.empty(n_measures, np.int64)
    norm = np.empty(n_measures)
    for task in range(first, last):
        b = task // n_topics
        q = task - b * n_topics
        k = multiplicity[b]
        hist = np.zeros(n_grades, np.int64)
        for i in range(q_off[q], q_off[q + 1]):
            hist[q_grade[i] - grade_min] += k[q_doc[i]]
        for m in range(n_measures):
            n_rel[m] = _count_at_least(hist, grade_min, rels[m])
            norm[m] = _normaliser(kinds[m], cutoffs[m], n_rel[m], hist, grade_min, gains[m], orders[m], discount, ones)
        for s in range(n_systems):
            j = s * n_topics + q
            n = 0
            for i in range(r_off[j], r_off[j + 1] if whole else r_stop[j]):
                kk = k[r_doc[i]]
                if kk > 0:
                    ks[n] = kk
                    gs[n] = r_grade[i]
                    n += 1
            for m in range(n_measures):
                out[b, s, q, m] = _value(kinds[m], cutoffs[m], rels[m], xs[m], judged_only[m], ks, gs, n, n_rel[m],
                                         norm[m], hist, grade_min, gains[m], orders[m], weights[m], discount, ones)
