"""Measures of rankings over *estimated* labels: real numbers, one per pool pair, possibly negative.

A judging plan's estimate of a pair's relevance (``estimation.py``) is not a grade but a number whose
expectation over the random sample is the human label. Each measure is written in terms of these
numbers so that its parts keep their expectation (Aslam, Pavlu & Yilmaz 2006, statAP):

* linear parts are sums of estimates: ``P@k``, ``DCG@k``, the number of relevant documents ``R``;
* products of *different* pairs' estimates are unbiased when pairs are drawn independently
  (Poisson design): ``AP``'s numerator ``sum_k x_k (1 + sum_{j<k} x_j) / k`` (the square
  ``x_k * x_k`` of a binary label is ``x_k``), ``RR = sum_k x_k / k * prod_{j<k} (1 - x_j)`` and
  ``Success@k = 1 - prod_{j<=k} (1 - x_j)``;
* normalised measures are ratios of such estimates: ``AP``, ``R@k`` and ``Rprec`` divide by the
  estimated ``R`` and ``nDCG@k`` by the ideal DCG of the estimated number of documents of each
  gain, filled in gain order with a fractional last document (``Rprec`` likewise reads
  precision at a fractional rank): the exact measure wherever the estimates are labels.

With every estimate a 0/1 label (or a gain) each function equals trec_eval's measure. Positions
hold only the ranked documents that can have a non-zero estimate: the rest count as
non-relevant, as unjudged documents do.
"""
from __future__ import annotations

import numba
import numpy as np

from ..measures.lowering import AP, NDCG, P, R, RPREC, RR, SUCCESS

__all__ = ["RANKED_KINDS", "ranked_values", "ideal_dcg"]

#: the kernel kinds computed from estimated labels
RANKED_KINDS = (AP, NDCG, P, R, RR, RPREC, SUCCESS)


@numba.njit(cache=True, nogil=True)
def _cell(kind, cutoff, ranks, pairs, x, norm):
    """One ranking's value for one row of estimates ``x`` (pool-indexed); ``norm`` is the topic's
    estimated R (AP, R, Rprec) or ideal DCG (nDCG)."""
    total = 0.0
    if kind == P:
        for e in range(len(ranks)):
            if ranks[e] <= cutoff:
                total += x[pairs[e]]
        return total / cutoff
    if kind == SUCCESS:
        miss = 1.0
        for e in range(len(ranks)):
            if ranks[e] <= cutoff:
                miss *= 1.0 - x[pairs[e]]
        return 1.0 - miss
    if kind == RR:
        miss = 1.0
        for e in range(len(ranks)):
            if ranks[e] <= cutoff:
                v = x[pairs[e]]
                total += miss * v / ranks[e]
                miss *= 1.0 - v
        return total
    if kind == NDCG:
        if norm <= 0.0:
            return 0.0
        for e in range(len(ranks)):
            if ranks[e] <= cutoff:
                total += x[pairs[e]] / np.log2(ranks[e] + 1.0)
        return total / norm
    if norm <= 0.0:  # no relevant document: 0, as trec_eval
        return 0.0
    if kind == R:
        for e in range(len(ranks)):
            if ranks[e] <= cutoff:
                total += x[pairs[e]]
        return total / norm
    if kind == AP:
        above = 0.0
        for e in range(len(ranks)):
            if ranks[e] <= cutoff:
                v = x[pairs[e]]
                total += v * (1.0 + above) / ranks[e]
                above += v
        return total / norm
    # RPREC: precision at the (fractional) rank R, read off the cumulated estimates
    whole = np.floor(norm)
    for e in range(len(ranks)):
        if ranks[e] <= whole:
            total += x[pairs[e]]
        elif ranks[e] == whole + 1:
            total += (norm - whole) * x[pairs[e]]
    return total / norm


@numba.njit(cache=True, parallel=True)
def _cells(kind, cutoff, offsets, ranks, pairs, cell_topic, x, norm, out):
    n_cells = len(offsets) - 1
    for c in numba.prange(n_cells):
        lo, hi = offsets[c], offsets[c + 1]
        t = cell_topic[c]
        for r in range(x.shape[0]):
            out[r, c] = _cell(kind, cutoff, ranks[lo:hi], pairs[lo:hi], x[r], norm[r, t])


def ranked_values(kind: int, cutoff: int, offsets: np.ndarray, ranks: np.ndarray, pairs: np.ndarray,
                  cell_topic: np.ndarray, x: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """The measure of every ranking (cell) for every row of estimates.

    Args:
        kind, cutoff: the measure (a :data:`RANKED_KINDS` code; cutoff 0 for none).
        offsets: ``(cells + 1,)``: cell ``c``'s positions are ``offsets[c]:offsets[c + 1]``.
        ranks, pairs: per position, its rank (1-based, increasing within a cell) and pool pair.
        cell_topic: each cell's topic.
        x: ``(rows, pairs)`` estimated labels (0/1 relevance or gains).
        norm: ``(rows, topics)`` the estimated R, or the ideal DCG for nDCG (unused by P, RR, Success).

    Returns ``(rows, cells)``."""
    out = np.empty((x.shape[0], len(offsets) - 1))
    limit = cutoff if cutoff > 0 else np.iinfo(np.int64).max
    _cells(kind, limit, offsets, ranks, pairs, cell_topic, np.ascontiguousarray(x, dtype=np.float64),
           np.ascontiguousarray(norm, dtype=np.float64), out)
    return out


def ideal_dcg(gains: np.ndarray, counts: np.ndarray, cutoff: int) -> np.ndarray:
    """The ideal DCG@cutoff of estimated counts of documents of each gain.

    Args:
        gains: ``(levels,)`` positive gains, decreasing.
        counts: ``(..., levels)`` estimated numbers of documents of each gain (negative ones count as 0).
        cutoff: 0 for the whole ranking.

    The documents fill ranks 1, 2, ... in gain order; a fractional count fills part of a rank, which
    adds that part of the rank's discounted gain (exact at whole counts)."""
    counts = np.clip(np.asarray(counts, dtype=np.float64), 0.0, None)
    filled = np.cumsum(counts, axis=-1)
    if cutoff > 0:
        filled = np.minimum(filled, cutoff)
    most = int(np.ceil(filled.max())) if filled.size else 0
    discounted = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, most + 2)))])

    def reach(m):  # discounted ranks up to a fractional number of documents m
        whole = np.floor(m).astype(np.int64)
        part = m - whole
        nxt = np.minimum(whole + 1, most)
        return discounted[whole] + part * (discounted[nxt] - discounted[whole])

    upto = reach(filled)
    before = np.concatenate([np.zeros(upto.shape[:-1] + (1,)), upto[..., :-1]], axis=-1)
    return ((upto - before) * gains).sum(axis=-1)
