"""numba kernels: every kernel measure on many corpus images at once, without materialising them.

A document with multiplicity ``k`` occupies ``k`` consecutive positions of the image run and
counts ``k`` times in the image qrels (Cormack & Lynam 2006; Zobel & Rashidi 2020; pt_docs/methods.md,
"The corpus bootstrap"). For each (image, topic) the driver :func:`evaluate_tasks` builds a
histogram of judged grades weighted by ``k`` (the number of relevant documents and the ideal
ranking come from it), then walks each system's ranking down to its last judged document (below
which no measure of relevance changes). Measures come in two families, each compiled only when a
call asks for one of its measures:

* the *fused* family (:data:`FUSED_KINDS`: AP, P, R, Rprec, RR, Success, nDCG, nCG, RBP, INSQ,
  without ``judged_only``): one walk per ranking feeds all of them from shared running counts,
  skipping documents none of them gains from and stopping at the deepest cutoff;
* the *general* family (every other kernel measure): the ranking is gathered into two short
  buffers, the copies ``k`` and the grade of each document still present, and each measure walks
  them, advancing the image position by ``k``.

The fused family's ideal rankings are compiled only when one of its measures is nDCG or nCG,
and the code of each group of :data:`FUSED_GROUPS` only when the call asks for one of its
measures (each settled by an argument typed None, whose branch numba prunes before compiling). Only
:func:`evaluate_tasks` is called from Python; the inner kernels are compiled without a Python
entry point (:func:`~pyterrier_boot._environment.inner_kernel`).

Each measure function has a twin in :mod:`.reference` that materialises the image; tests assert
that they agree. Multiplicities arrive as an array, or as image keys from which the kernel draws
counter-based Poisson(1) copies itself (:mod:`pyterrier_boot.corpus.multiplicity`), so no image
is ever stored. One task is one (image, topic) pair, and no task writes what another reads, so
results do not depend on how tasks are shared among threads
(:class:`~pyterrier_boot.measures.engine.Evaluator` runs them on numba's thread count).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from .._environment import inner_kernel, numba_cache
from .._streams import POISSON_THRESHOLDS, poisson_draw
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


@inner_kernel()
def _count_at_least(hist, grade_min, rel):
    total = 0
    for i in range(hist.shape[0]):
        if i + grade_min >= rel:
            total += hist[i]
    return total


@inner_kernel()
def _copies(k, pos, cutoff):
    """How many of ``k`` copies placed after position ``pos`` fall within the cutoff."""
    if cutoff <= 0:
        return k
    return max(0, min(k, cutoff - pos))


@inner_kernel()
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


@inner_kernel()
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


@inner_kernel()
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


@inner_kernel()
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


@inner_kernel()
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


@inner_kernel()
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


@inner_kernel()
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


@inner_kernel()
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


@inner_kernel()
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


# ------------------------------------------------------------------ the fused family
# AP, P, R, Rprec, RR, Success, nDCG, nCG, RBP and INSQ (without judged_only): one walk down each
# ranking feeds every one of them, reading each document's copies once and stepping over the
# documents no measure gains from (unjudged, or below every measure's relevance level).

FUSED_KINDS = (AP, P, R, RPREC, RR, SUCCESS, NDCG, NCG, RBP, INSQ)
#: The fused measures by the running count they keep (hits and a sum, hits, the first hit, a sum of
#: gains): a call compiles the walk of the groups it asks for only (see :func:`_fused_feed`).
FUSED_GROUPS = ((AP,), (P, R, RPREC), (RR, SUCCESS), (NDCG, NCG, RBP, INSQ))
#: The most images walked together, one lane each (the copies of a document in all of them share a
#: cache line). The kernels read the lane count from their scratch arrays (``kt.shape[1]``), not from
#: this constant: loops over a constant count are unrolled when compiled, which cost the first call
#: with an empty numba cache about 0.2 s of LLVM's time (pt_docs/measures.md, "Start-up"); and a
#: plain evaluation (one image) walks one lane instead of eight.
LANES = 8


@inner_kernel(error_model="numpy")
def _fused_setup(hist, lanes, grade_min, fused, orders, discount, ones, n_rel, norm, cut):
    """Per measure on one topic of each of the first ``lanes`` images: relevant copies, ideal gain and
    how deep it reads; returns how deep any of them reads (0: to the last judged document).
    ``orders`` is ``fused[4]``, None when no fused measure is nDCG or nCG: that branch is then
    pruned when numba compiles (an argument typed None), so a call without them does not compile
    :func:`_ideal`."""
    kinds, cutoffs, rels, gains, _, weights = fused[:6]
    reach = 1
    for w in range(lanes):
        for m in range(kinds.shape[0]):
            kind = kinds[m]
            n_rel[w, m] = _count_at_least(hist[w], grade_min, rels[m])
            cut[w, m] = cutoffs[m]
            if kind == NDCG or kind == NCG:
                if orders is not None:
                    norm[w, m] = _ideal(hist[w], gains[m], orders[m], cutoffs[m], discount if kind == NDCG else ones)
            elif kind == RPREC:
                cut[w, m] = max(n_rel[w, m], 1)
            elif kind == RBP or kind == INSQ:
                cut[w, m] = weights.shape[1]
            if cut[w, m] == 0 or reach == 0:
                reach = 0
            else:
                reach = max(reach, cut[w, m])
    return reach


@inner_kernel(inline="always", error_model="numpy")
def _fused_feed(kk, g, pos, w, grade_min, kinds, rels, gains, weights, discount, cut, acc, hits, first, ranked, counted,
                found, gained):
    """One document with ``kk > 0`` copies at position ``pos`` of image lane ``w``, judged grade ``g``,
    fed to every fused measure (each in the order of its own reference walk, so sums round the same).
    ``ranked``, ``counted``, ``found`` and ``gained`` are None when no measure of that group
    (:data:`FUSED_GROUPS`) is asked: numba then prunes the group's code before compiling it (they
    are arguments of :func:`_fused_topic`, into which this is inlined, as pruning needs)."""
    for m in range(kinds.shape[0]):
        c = _copies(kk, pos, cut[w, m])
        if c <= 0:
            continue
        kind = kinds[m]
        if ranked is not None and kind == AP:
            if g >= rels[m]:
                h = hits[w, m]
                total = acc[w, m]
                for t in range(c):
                    h += 1
                    total += h / (pos + t + 1)
                hits[w, m] = h
                acc[w, m] = total
        elif counted is not None and (kind == P or kind == R or kind == RPREC):
            if g >= rels[m]:
                hits[w, m] += c
        elif found is not None and (kind == RR or kind == SUCCESS):
            if g >= rels[m] and first[w, m] == 0:
                first[w, m] = pos + 1
        elif gained is not None:
            gain = gains[m, g - grade_min]
            if gain != 0.0:
                total = acc[w, m]
                for t in range(c):
                    if kind == NDCG:
                        total += gain * discount[pos + t]
                    elif kind == NCG:
                        total += gain * 1.0
                    else:
                        total += gain * weights[m, pos + t]
                acc[w, m] = total


@inner_kernel(error_model="numpy")
def _fused_value(kind, cutoff, n_rel, norm, acc, hits, first, ranked, counted, found, gained):
    """A fused measure's value from its running counts after the walk (groups as :func:`_fused_feed`)."""
    if ranked is not None and kind == AP:
        return acc / n_rel if n_rel > 0 else 0.0
    if counted is not None and kind == P:
        return hits / cutoff
    if counted is not None and (kind == R or kind == RPREC):
        return hits / n_rel if n_rel > 0 else 0.0
    if found is not None and kind == RR:
        return 1.0 / first if first > 0 else 0.0
    if found is not None and kind == SUCCESS:
        return 1.0 if first > 0 else 0.0
    if gained is not None and (kind == NDCG or kind == NCG):
        return acc / norm if norm > 0.0 else 0.0
    return acc


@inner_kernel(error_model="numpy")
def _passed(pos, lanes, reach):
    """Whether every one of the first ``lanes`` images has passed position ``reach`` (> 0)."""
    for w in range(lanes):
        if pos[w] < reach:
            return False
    return True


@inner_kernel(error_model="numpy")
def _fused_topic(kt, b0, lanes, q, data, hist, fused, discount, scratch, out, ranked, counted, found, gained):
    """Every fused measure of every system on topic ``q`` of images ``b0..b0+lanes-1`` (lanes of
    ``kt[doc, lane]``), walked together: each ranking is read once for all of them, from one
    document some measure gains from to the next, adding the copies in between lane by lane; the
    last four arguments are ``fused[9]``, the groups asked (see :func:`_fused_feed`)."""
    grade_min, _, _, _, r_off, r_doc, r_grade, _, _ = data
    kinds, cutoffs, rels, gains, _, weights, cols, i_off, i_pos, _ = fused
    ones, n_rel, norm, cut, acc, hits, first, pos = scratch
    reach = _fused_setup(hist, lanes, grade_min, fused, fused[4], discount, ones, n_rel, norm, cut)
    for s in range(out.shape[1]):
        j = s * out.shape[2] + q
        for w in range(pos.shape[0]):
            pos[w] = 0
            for m in range(kinds.shape[0]):
                acc[w, m] = 0.0
                hits[w, m] = 0
                first[w, m] = 0
        start = r_off[j]
        for e in range(i_off[j], i_off[j + 1]):
            i = i_pos[e]
            for t in range(start, i):
                d = r_doc[t]
                for w in range(pos.shape[0]):
                    pos[w] += kt[d, w]
            if reach > 0 and _passed(pos, lanes, reach):
                break
            d = r_doc[i]
            for w in range(lanes):
                kk = kt[d, w]
                if kk > 0:
                    _fused_feed(kk, r_grade[i], pos[w], w, grade_min, kinds, rels, gains, weights, discount, cut,
                                acc, hits, first, ranked, counted, found, gained)
            for w in range(pos.shape[0]):
                pos[w] += kt[d, w]
            start = i + 1
        for w in range(lanes):
            for m in range(kinds.shape[0]):
                out[b0 + w, s, q, cols[m]] = _fused_value(kinds[m], cutoffs[m], n_rel[w, m], norm[w, m], acc[w, m],
                                                          hits[w, m], first[w, m], ranked, counted, found, gained)


# ------------------------------------------------------------------ the general family
# Every other kernel measure: each ranking is gathered into two short buffers (the copies and the
# grade of each document still present) and each measure walks them.


@inner_kernel()
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


@inner_kernel()
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


@inner_kernel()
def _general_topic(k, b, q, data, hist, general, discount, scratch, out):
    """Every general measure of every system on image ``b``, topic ``q``."""
    grade_min, _, _, _, r_off, r_doc, r_grade, r_stop, _ = data
    kinds, cutoffs, rels, xs, judged_only, gains, orders, weights, whole, cols = general
    ones, n_rel, norm, ks, gs = scratch
    for m in range(kinds.shape[0]):
        n_rel[m] = _count_at_least(hist, grade_min, rels[m])
        norm[m] = _normaliser(kinds[m], cutoffs[m], n_rel[m], hist, grade_min, gains[m], orders[m], discount, ones)
    n_topics = out.shape[2]
    for s in range(out.shape[1]):
        j = s * n_topics + q
        n = 0
        for i in range(r_off[j], r_off[j + 1] if whole else r_stop[j]):
            kk = k[r_doc[i]]
            ks[n] = kk
            gs[n] = r_grade[i]
            n += kk > 0
        for m in range(kinds.shape[0]):
            out[b, s, q, cols[m]] = _value(kinds[m], cutoffs[m], rels[m], xs[m], judged_only[m], ks, gs, n, n_rel[m],
                                           norm[m], hist, grade_min, gains[m], orders[m], weights[m], discount, ones)


# ------------------------------------------------------------------ the driver


@inner_kernel(error_model="numpy")
def _fill_lanes(multiplicity, keys, hashes, thresholds, b0, lanes, kt):
    """Copies ``kt[doc, lane]`` of every document in images ``b0..b0+lanes-1`` (other lanes 0): rows
    of ``multiplicity``, or when ``keys`` is not empty the counter-based Poisson(1) draws of the
    image keys ``keys[b0 + lane]``. (Both ways share one specialisation on purpose: the corpus
    bootstrap uses both, and a second one would cost it more to compile than the draws do.)"""
    for d in range(kt.shape[0]):
        for w in range(lanes, kt.shape[1]):
            kt[d, w] = 0
    for w in range(lanes):
        if keys.shape[0] == 0:
            for d in range(kt.shape[0]):
                kt[d, w] = multiplicity[b0 + w, d]
        else:
            key = keys[b0 + w]
            for d in range(kt.shape[0]):
                kt[d, w] = poisson_draw(hashes[d] ^ key, thresholds)


@inner_kernel(error_model="numpy")
def _histogram(kt, q, data, hist):
    """``hist[lane, grade]``: judged copies of each grade for topic ``q`` in each lane's image."""
    grade_min, q_off, q_doc, q_grade = data[:4]
    for w in range(hist.shape[0]):
        for g in range(hist.shape[1]):
            hist[w, g] = 0
    for i in range(q_off[q], q_off[q + 1]):
        d = q_doc[i]
        g = q_grade[i] - grade_min
        for w in range(hist.shape[0]):
            hist[w, g] += kt[d, w]


@njit(nogil=True, cache=_CACHE, error_model="numpy")
def evaluate_tasks(first: int, last: int, multiplicity: npt.NDArray[Any], keys: npt.NDArray[Any],
                   hashes: npt.NDArray[Any], data: tuple, fused: tuple | None, general: tuple | None,
                   discount: npt.NDArray[Any], scratch: tuple, out: npt.NDArray[Any]) -> None:
    """Fill ``out[image, system, topic, measure]`` for tasks ``first..last-1``: task ``t`` is topic
    ``t % Q`` of the ``W`` images from ``W * (t // Q)`` on, ``W = kt.shape[1]`` the lanes of the scratch
    arrays (at most :data:`LANES`).

    Image ``b`` is ``multiplicity[b]`` (copies of each interned document), or, when ``keys`` is not
    empty, the Poisson(1) image of key ``keys[b]`` drawn here from the documents' ``hashes``
    (exactly :func:`~pyterrier_boot.corpus.multiplicity.poisson_multiplicities`). ``data`` holds
    the arrays of :class:`~pyterrier_boot.measures.arrays.JudgedRuns` and the number of grades; ``fused`` and ``general`` the tables of each family's measures, or None
    when a call has none (then that family is neither compiled nor run); ``discount[p] =
    1 / log2(p + 2)`` must cover every image position a ranking or an ideal ranking reaches;
    ``scratch`` the working arrays (``kt[doc, lane]``, ``hist[lane, grade]`` and each family's,
    see :class:`~pyterrier_boot.measures.engine.Evaluator`), so the kernel allocates nothing. The
    GIL is released, so threads (each with its own ``scratch``) may fill disjoint task ranges at
    once; each image is computed in its own lane from its own copies and written to its own
    cells, so results do not depend on how tasks are shared out.
    """
    n_images, _, n_topics, _ = out.shape
    kt, hist = scratch[0], scratch[1]
    current = -1
    for task in range(first, last):
        b0 = (task // n_topics) * kt.shape[1]
        q = task % n_topics
        lanes = min(kt.shape[1], n_images - b0)
        if b0 != current:
            _fill_lanes(multiplicity, keys, hashes, POISSON_THRESHOLDS, b0, lanes, kt)
            current = b0
        _histogram(kt, q, data, hist)
        if fused is not None:
            ranked, counted, found, gained = fused[9]
            _fused_topic(kt, b0, lanes, q, data, hist, fused, discount, scratch[2], out, ranked, counted, found, gained)
        if general is not None:
            for w in range(lanes):
                _general_topic(kt[:, w], b0 + w, q, data, hist[w], general, discount, scratch[3], out)
