"""Measures of rankings over *estimated* labels: real numbers, one per pool pair, possibly negative.

A judging plan's estimate of a pair's relevance (``estimation.py``) is not a grade but a number whose
expectation over the random sample is the human label. Each measure is written in terms of these
numbers so that its parts keep their expectation (Aslam, Pavlu & Yilmaz 2006, statAP):

* linear parts are sums of estimates: ``P@k``, ``DCG@k``, the number of relevant documents ``R``;
* products of *different* pairs' estimates are unbiased when pairs are drawn independently
  (Poisson design): ``AP``'s numerator ``sum_k x_k (1 + sum_{j<k} x_j) / k`` (the square
  ``x_k * x_k`` of a binary label is ``x_k``);
* the first relevant document's measures, ``RR = sum_k w_k h_k prod_{j<k} (1 - h_j)`` with
  ``w_k = 1 / k`` and ``Success@c`` with ``w_k = 1`` (``k <= c``), are products of many labels:
  the same product of estimates ``x``, unbiased as it is, is ruled by the few largest ``1 / pi``
  and useless in practice. They are linearised instead around *imputed* labels ``y`` in [0, 1]
  (the human label where sampled, else the relevance rate of the pair's stratum in the sample):
  ``m(y) + sum_k g_k (x_k - y_k)`` with ``g_k`` the measure's derivative in label ``k`` at ``y``
  (the model-assisted, GREG-style estimator; Sarndal, Swensson & Wretman 1992, ch. 6): exact at
  ``y = h`` and, to first order, unbiased whatever ``y``. One pass computes it, with
  ``Q_k = prod_{j<k} (1 - y_j)`` and ``A_{k+1} = A_k (1 - y_k) + Q_k (x_k - y_k)``:
  ``sum_k w_k (Q_k x_k - y_k A_k)``;
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

from ..measures.lowering import AP, NDCG, RPREC, RR, SUCCESS, P, R

__all__ = ["RANKED_KINDS", "ranked_values", "ideal_dcg"]

#: the kernel kinds computed from estimated labels
RANKED_KINDS = (AP, NDCG, P, R, RR, RPREC, SUCCESS)


@numba.njit(cache=True, nogil=True)
def _cell(kind, cutoff, ranks, pairs, x, y, norm, out):
    """One ranking's value for every row of estimates: ``x`` is ``(pairs, rows)``, ``y`` the imputed
    labels (RR, Success), ``norm`` the topic's estimated R (AP, R, Rprec) or ideal DCG (nDCG) per
    row; the values go to ``out`` (one per row)."""
    n = np.searchsorted(ranks, cutoff, side="right")  # positions are sorted by rank
    rows = x.shape[1]
    total = np.zeros(rows)
    if kind == RPREC:  # precision at the (fractional) rank R, read off the cumulated estimates
        for r in range(rows):
            whole = np.floor(norm[r])
            for e in range(len(ranks)):
                if ranks[e] > whole + 1:
                    break
                total[r] += x[pairs[e], r] * (1.0 if ranks[e] <= whole else norm[r] - whole)
    elif kind == SUCCESS or kind == RR:
        miss = 1.0  # Q: by the imputed labels, the chance that no document above is relevant
        carried = np.zeros(rows)  # A: the corrections above, carried down through the imputed labels
        for e in range(n):
            u, w = y[pairs[e]], 1.0 / ranks[e] if kind == RR else 1.0
            v = x[pairs[e]]
            for r in range(rows):
                total[r] += w * (miss * v[r] - u * carried[r])
                carried[r] = carried[r] * (1.0 - u) + miss * (v[r] - u)
            miss *= 1.0 - u
    elif kind == AP:
        above = np.zeros(rows)
        for e in range(n):
            v, w = x[pairs[e]], 1.0 / ranks[e]
            for r in range(rows):
                total[r] += v[r] * (1.0 + above[r]) * w
                above[r] += v[r]
    else:  # P, R, nDCG: sums, discounted for nDCG
        for e in range(n):
            v, w = x[pairs[e]], 1.0 / np.log2(ranks[e] + 1.0) if kind == NDCG else 1.0
            for r in range(rows):
                total[r] += w * v[r]
    for r in range(rows):
        if kind == P:
            out[r] = total[r] / cutoff
        elif kind == SUCCESS or kind == RR:
            out[r] = total[r]
        else:  # normalised: 0 without relevant documents, as trec_eval
            out[r] = total[r] / norm[r] if norm[r] > 0.0 else 0.0


@numba.njit(cache=True)
def _cells_serial(kind, cutoff, offsets, ranks, pairs, cell_topic, x, y, norm, out):
    for c in range(len(offsets) - 1):
        lo, hi = offsets[c], offsets[c + 1]
        _cell(kind, cutoff, ranks[lo:hi], pairs[lo:hi], x, y, norm[cell_topic[c]], out[c])


@numba.njit(cache=True, parallel=True)
def _cells_parallel(kind, cutoff, offsets, ranks, pairs, cell_topic, x, y, norm, out):
    for c in numba.prange(len(offsets) - 1):
        lo, hi = offsets[c], offsets[c + 1]
        _cell(kind, cutoff, ranks[lo:hi], pairs[lo:hi], x, y, norm[cell_topic[c]], out[c])


#: positions x rows from which the cells are shared among threads (below, starting them costs more)
PARALLEL_WORK = 200_000


def ranked_values(kind: int, cutoff: int, offsets: np.ndarray, ranks: np.ndarray, pairs: np.ndarray,
                  cell_topic: np.ndarray, x: np.ndarray, norm: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """The measure of every ranking (cell) for every row of estimates.

    Args:
        kind, cutoff: the measure (a :data:`RANKED_KINDS` code; cutoff 0 for none).
        offsets: ``(cells + 1,)``: cell ``c``'s positions are ``offsets[c]:offsets[c + 1]``.
        ranks, pairs: per position, its rank (1-based, increasing within a cell) and pool pair.
        cell_topic: each cell's topic.
        x: ``(rows, pairs)`` estimated labels (0/1 relevance or gains).
        norm: ``(rows, topics)`` the estimated R, or the ideal DCG for nDCG (unused by P, RR, Success).
        y: ``(pairs,)`` imputed labels in [0, 1] for RR and Success (default: ``x``'s first row).

    Returns ``(rows, cells)``."""
    out = np.empty((len(offsets) - 1, x.shape[0]))
    limit = cutoff if cutoff > 0 else np.iinfo(np.int64).max
    by_pair = np.ascontiguousarray(np.asarray(x, dtype=np.float64).T)  # a position reads one row of it
    y = by_pair[:, 0].copy() if y is None else np.ascontiguousarray(y, dtype=np.float64)
    cells = _cells_parallel if len(ranks) * by_pair.shape[1] >= PARALLEL_WORK else _cells_serial
    cells(kind, limit, offsets, ranks, pairs, cell_topic, by_pair, y,
          np.ascontiguousarray(np.asarray(norm, dtype=np.float64).T), out)
    return out.T


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
