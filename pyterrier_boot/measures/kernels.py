"""numba kernels: every kernel measure on many corpus images at once, without materialising them.

A document with multiplicity ``k`` occupies ``k`` consecutive positions of the image run and
counts ``k`` times in the image qrels (METHODS.md §1). The kernels walk each original ranking
once, advancing the image position by ``k``, and take the number of relevant documents and the
ideal ranking from a histogram of judged grades weighted by ``k``. Each function here has a twin
in :mod:`.reference` that materialises the image; tests assert that they agree.

Randomness never enters: multiplicities arrive as an array. One parallel task is one
(image, topic) pair, and no task writes what another reads, so results do not depend on the
number of threads.
"""
import math

import numpy as np
from numba import njit, prange

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

_UNJ = np.int32(UNJUDGED)


@njit(cache=True)
def _count_at_least(hist, grade_min, rel):
    total = 0
    for i in range(hist.shape[0]):
        if i + grade_min >= rel:
            total += hist[i]
    return total


@njit(cache=True)
def _copies(k, pos, cutoff):
    """How many of ``k`` copies placed after position ``pos`` fall within the cutoff."""
    if cutoff <= 0:
        return k
    return max(0, min(k, cutoff - pos))


@njit(cache=True)
def _ap(k, docs, grades, lo, stop, cutoff, rel, judged_only, n_rel):
    if n_rel == 0:
        return 0.0
    pos = 0
    hits = 0
    total = 0.0
    for i in range(lo, stop):
        kk = k[docs[i]]
        g = grades[i]
        if kk == 0 or (judged_only and g < 0):
            continue
        if g >= rel:
            for t in range(_copies(kk, pos, cutoff)):
                hits += 1
                total += hits / (pos + t + 1)
        pos += kk
        if cutoff > 0 and pos >= cutoff:
            break
    return total / n_rel


@njit(cache=True)
def _relevant_within(k, docs, grades, lo, stop, cutoff, rel, judged_only):
    """Relevant copies within the cutoff, and the position of the first one (0 if none)."""
    pos = 0
    hits = 0
    first = 0
    for i in range(lo, stop):
        kk = k[docs[i]]
        g = grades[i]
        if kk == 0 or (judged_only and g < 0):
            continue
        if g >= rel:
            n = _copies(kk, pos, cutoff)
            if n > 0 and first == 0:
                first = pos + 1
            hits += n
        pos += kk
        if cutoff > 0 and pos >= cutoff:
            break
    return hits, first


@njit(cache=True)
def _gain_within(k, docs, grades, lo, stop, cutoff, judged_only, grade_min, gains, discounted):
    """(Discounted) cumulative gain of the image ranking to the cutoff."""
    pos = 0
    total = 0.0
    for i in range(lo, stop):
        kk = k[docs[i]]
        g = grades[i]
        if kk == 0 or (judged_only and g < 0):
            continue
        if g != _UNJ:
            gain = gains[g - grade_min]
            n = _copies(kk, pos, cutoff)
            if not discounted:
                total += gain * n
            elif gain != 0.0:
                for t in range(n):
                    total += gain / math.log2(pos + t + 2)
        pos += kk
        if cutoff > 0 and pos >= cutoff:
            break
    return total


@njit(cache=True)
def _ideal(hist, gains, order, cutoff, discounted):
    """(Discounted) cumulative gain of the ideal ranking of the judged copies, to the cutoff."""
    pos = 0
    total = 0.0
    for j in range(order.shape[0]):
        o = order[j]
        gain = gains[o]
        if gain <= 0.0:
            break
        n = _copies(hist[o], pos, cutoff)
        if discounted:
            for t in range(n):
                total += gain / math.log2(pos + t + 2)
        else:
            total += gain * n
        pos += n
        if cutoff > 0 and pos >= cutoff:
            break
    return total


@njit(cache=True)
def _q_measure(k, docs, grades, lo, stop, cutoff, rel, judged_only, beta, n_rel, hist, grade_min, gains, order):
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
    for i in range(lo, stop):
        kk = k[docs[i]]
        g = grades[i]
        if kk == 0 or (judged_only and g < 0):
            continue
        gain = gains[g - grade_min] if g != _UNJ else 0.0
        is_rel = g >= rel
        for t in range(_copies(kk, pos, cutoff)):
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
                total += (beta * cg + count) / (beta * ideal_cg + pos + t + 1)
        pos += kk
        if cutoff > 0 and pos >= cutoff:
            break
    return total / n_rel


@njit(cache=True)
def _bpref(k, docs, grades, lo, stop, rel, n_rel, n_nonrel):
    if n_rel == 0:
        return 0.0
    nonrel_above = 0
    total = 0.0
    for i in range(lo, stop):
        kk = k[docs[i]]
        g = grades[i]
        if kk == 0 or g < 0:  # trec_eval: negative grades are not judged
            continue
        if g >= rel:
            if nonrel_above > 0:
                total += kk * (1.0 - min(nonrel_above, n_rel) / min(n_rel, n_nonrel))
            else:
                total += kk
        else:
            nonrel_above += kk
    return total / n_rel


@njit(cache=True)
def _weighted(k, docs, grades, lo, stop, grade_min, gains, weights):
    """cwl_eval's expected utility with fixed position weights (RBP, INSQ)."""
    depth = weights.shape[0]
    pos = 0
    total = 0.0
    for i in range(lo, stop):
        kk = k[docs[i]]
        g = grades[i]
        if kk == 0:
            continue
        if g != _UNJ:
            gain = gains[g - grade_min]
            if gain != 0.0:
                for t in range(_copies(kk, pos, depth)):
                    total += weights[pos + t] * gain
        pos += kk
        if pos >= depth:
            break
    return total


@njit(cache=True)
def _inst(k, docs, grades, lo, stop, grade_min, gains, target, depth):
    """cwl_eval's INST: continuation ((i+T+T_i-1)/(i+T+T_i))^2 with T_i = T - gain so far."""
    gain_at = np.zeros(depth)
    pos = 0
    for i in range(lo, stop):
        kk = k[docs[i]]
        g = grades[i]
        if kk == 0:
            continue
        if g != _UNJ:
            for t in range(_copies(kk, pos, depth)):
                gain_at[pos + t] = gains[g - grade_min]
        pos += kk
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


@njit(cache=True)
def _judged(k, docs, grades, lo, hi, cutoff):
    """Share of the top min(cutoff, n) image positions holding a judged document."""
    pos = 0
    judged = 0
    for i in range(lo, hi):
        kk = k[docs[i]]
        if kk == 0:
            continue
        n = _copies(kk, pos, cutoff)
        if grades[i] != _UNJ:
            judged += n
        pos += n
        if cutoff > 0 and pos >= cutoff:
            break
    return judged / pos if pos > 0 else 0.0


@njit(cache=True)
def _err(k, docs, grades, lo, stop, cutoff, grade_min, gains):
    """gdeval's ERR@k: stopping probability (2^g - 1) / 2^4 at each position."""
    scale = 2.0**ERR_MAX_GRADE
    pos = 0
    reach = 1.0
    total = 0.0
    for i in range(lo, stop):
        kk = k[docs[i]]
        g = grades[i]
        if kk == 0:
            continue
        if g != _UNJ:
            stop_here = gains[g - grade_min] / scale
            if stop_here > 0.0:
                for t in range(_copies(kk, pos, cutoff)):
                    total += reach * stop_here / (pos + t + 1)
                    reach *= 1.0 - stop_here
        pos += kk
        if pos >= cutoff:
            break
    return total


@njit(cache=True)
def _value(kind, cutoff, rel, x, judged_only, k, docs, grades, lo, stop, hi, hist, grade_min, gains, order,
           weights):
    if kind == AP:
        return _ap(k, docs, grades, lo, stop, cutoff, rel, judged_only, _count_at_least(hist, grade_min, rel))
    if kind == P:
        return _relevant_within(k, docs, grades, lo, stop, cutoff, rel, judged_only)[0] / cutoff
    if kind == R:
        n_rel = _count_at_least(hist, grade_min, rel)
        if n_rel == 0:
            return 0.0
        return _relevant_within(k, docs, grades, lo, stop, cutoff, rel, judged_only)[0] / n_rel
    if kind == RR:
        first = _relevant_within(k, docs, grades, lo, stop, cutoff, rel, judged_only)[1]
        return 1.0 / first if first > 0 else 0.0
    if kind == RPREC:
        n_rel = _count_at_least(hist, grade_min, rel)
        if n_rel == 0:
            return 0.0
        return _relevant_within(k, docs, grades, lo, stop, n_rel, rel, judged_only)[0] / n_rel
    if kind == SUCCESS:
        return 1.0 if _relevant_within(k, docs, grades, lo, stop, cutoff, rel, judged_only)[1] > 0 else 0.0
    if kind == NDCG:
        idcg = _ideal(hist, gains, order, cutoff, True)
        if idcg <= 0.0:
            return 0.0
        return _gain_within(k, docs, grades, lo, stop, cutoff, judged_only, grade_min, gains, True) / idcg
    if kind == NCG:
        icg = _ideal(hist, gains, order, cutoff, False)
        if icg <= 0.0:
            return 0.0
        return _gain_within(k, docs, grades, lo, stop, cutoff, judged_only, grade_min, gains, False) / icg
    if kind == Q:
        n_rel = _count_at_least(hist, grade_min, rel)
        return _q_measure(k, docs, grades, lo, stop, cutoff, rel, judged_only, x, n_rel, hist, grade_min, gains, order)
    if kind == BPREF:
        n_rel = _count_at_least(hist, grade_min, rel)
        return _bpref(k, docs, grades, lo, stop, rel, n_rel, _count_at_least(hist, grade_min, 0) - n_rel)
    if kind == RBP or kind == INSQ:
        return _weighted(k, docs, grades, lo, stop, grade_min, gains, weights)
    if kind == INST:
        return _inst(k, docs, grades, lo, stop, grade_min, gains, x, weights.shape[0])
    if kind == JUDGED:
        return _judged(k, docs, grades, lo, hi, cutoff)
    if kind == ERR:
        return _err(k, docs, grades, lo, stop, cutoff, grade_min, gains)
    return np.nan


@njit(parallel=True, cache=True)
def evaluate_images(multiplicity, grade_min, q_off, q_doc, q_grade, r_off, r_doc, r_grade, r_stop,
                    kinds, cutoffs, rels, xs, judged_only, gains, orders, weights, out):
    """Fill ``out[image, system, topic, measure]`` for a batch of images.

    ``multiplicity[image, doc]`` gives each interned document's copies in each image; the other
    arrays are those of :class:`~pyterrier_boot.measures.arrays.JudgedRuns` and of
    :func:`~pyterrier_boot.measures.lowering.kernel_tables`.
    """
    n_images, n_systems, n_topics, n_measures = out.shape
    n_grades = gains.shape[1]
    for task in prange(n_images * n_topics):
        b = task // n_topics
        q = task - b * n_topics
        k = multiplicity[b]
        hist = np.zeros(n_grades, np.int64)
        for i in range(q_off[q], q_off[q + 1]):
            hist[q_grade[i] - grade_min] += k[q_doc[i]]
        for s in range(n_systems):
            j = s * n_topics + q
            lo = r_off[j]
            hi = r_off[j + 1]
            stop = r_stop[j]
            for m in range(n_measures):
                out[b, s, q, m] = _value(kinds[m], cutoffs[m], rels[m], xs[m], judged_only[m], k, r_doc,
                                         r_grade, lo, stop, hi, hist, grade_min, gains[m], orders[m],
                                         weights[m])
