"""trec_eval's ranking of every (run, topic) cell at once, in one compiled pass over the rows.

Rows of all runs, concatenated, are placed cell by cell (a counting sort, which keeps each cell's
rows in input order), each cell is ordered by score descending (as single-precision floats), ties
by document id descending (ids compare as docnos), and each ranked document gets its grade. A
cell whose rows already come in that order (the usual case: run files are written by rank) is
not sorted again. One pass of integer arithmetic replaces a global sort and a dozen temporary
arrays of the length of the input, which is what interning a collection of runs costs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from .._environment import inner_kernel, numba_cache

if TYPE_CHECKING:
    from typing import Any

    import numpy.typing as npt

    IntArray = npt.NDArray[np.integer[Any]]


def descending_score_keys(scores: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
    """Each single-precision score as an integer in ``[0, 2**32)`` whose ascending order is the
    scores' descending order (``-0.0`` ties with ``0.0``; infinite scores order as infinities);
    :func:`_score_key` is the same for one score's bits, in compiled code."""
    bits = (scores + np.float32(0)).view(np.int32)  # + 0: -0.0 becomes 0.0
    ascending = bits ^ ((bits >> 31) & 0x7FFFFFFF)  # float order as signed integer order
    return np.int64(0x7FFFFFFF) - ascending.astype(np.int64)


@inner_kernel()
def _score_key(bits):  # pragma: no cover - compiled
    """:func:`descending_score_keys` of one score given as its float32 bits (an int32)."""
    b = np.int64(bits)
    if b == -2**31:  # -0.0 ties with 0.0
        b = 0
    return 0x7FFFFFFF - (b ^ ((b >> 31) & 0x7FFFFFFF))


@njit(cache=numba_cache())
def rank_cells(topic: IntArray, sizes: IntArray, score_bits: IntArray, doc: IntArray, n_topics: int,
               judged_keys: IntArray, judged_grades: IntArray, judged_docs: npt.NDArray[np.bool_], n_docs: int,
               unjudged: int) -> tuple[IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover - compiled
    """Rank the rows of ``len(sizes)`` runs (``sizes[s]`` consecutive rows each) into cells
    ``s * n_topics + topic``; rows with ``topic < 0`` are left out.

    ``score_bits`` (float32 scores viewed as int32) and ``doc`` are per row; ``judged_keys`` are the
    sorted ``topic * n_docs + doc`` of the qrels with their ``judged_grades``; ``judged_docs`` marks
    the documents judged for some topic. Returns ``(docs, offsets, stops, grades)``: ranked
    document ids, each cell's first position (and the total last), one past each cell's last
    judged position, and each ranked document's grade (``unjudged`` when it has none).
    """
    n_cells = len(sizes) * n_topics
    offsets = np.zeros(n_cells + 1, np.int64)
    row = 0
    for s in range(len(sizes)):
        for _ in range(sizes[s]):
            if topic[row] >= 0:
                offsets[s * n_topics + topic[row] + 1] += 1
            row += 1
    for c in range(n_cells):
        offsets[c + 1] += offsets[c]
    order = np.empty(offsets[n_cells], np.int64)
    fill = np.empty(n_cells, np.int64)
    for c in range(n_cells):
        fill[c] = offsets[c]
    row = 0
    for s in range(len(sizes)):
        for _ in range(sizes[s]):
            if topic[row] >= 0:
                c = s * n_topics + topic[row]
                order[fill[c]] = row
                fill[c] += 1
            row += 1
    docs = np.empty(len(order), np.int32)
    grades = np.empty(len(order), np.int32)
    stops = np.empty(n_cells, np.int64)
    for c in range(n_cells):
        first, end = offsets[c], offsets[c + 1]
        _order_cell(order, first, end, score_bits, doc)
        base = (c % n_topics) * n_docs
        stop = first
        for j in range(first, end):
            d = doc[order[j]]
            docs[j] = d
            grade = unjudged
            if judged_docs[d]:
                i = _search(judged_keys, base + d)
                if i < len(judged_keys) and judged_keys[i] == base + d:
                    grade = judged_grades[i]
                    stop = j + 1
            grades[j] = grade
        stops[c] = stop
    return docs, offsets, stops, grades


@inner_kernel()
def _order_cell(order, first, end, score_bits, doc):  # pragma: no cover - compiled
    """Put the rows ``order[first:end]`` of one cell in ranking order, in place: score descending,
    then doc id descending.

    Rows already in that order are left as they are; nearly ordered rows (a run listed by score
    whose tied documents come in another order) are insertion-sorted, in time linear in the
    rows plus the displacements; rows far from that order are merge-sorted."""
    n = end - first
    keys = np.empty(n, np.int64)
    in_order = True
    for j in range(n):
        r = order[first + j]
        # the score key in [0, 2**32) moved to int64's signed range, then the doc id descending
        keys[j] = ((_score_key(score_bits[r]) - 2**31) << 32) + (0x7FFFFFFF - doc[r])
        if j and keys[j] < keys[j - 1]:
            in_order = False
    if in_order:
        return
    rows = np.empty(n, np.int64)
    for j in range(n):
        rows[j] = order[first + j]
    budget = 8 * n
    for j in range(1, n):
        key, row, i = keys[j], rows[j], j - 1
        while i >= 0 and keys[i] > key:
            keys[i + 1] = keys[i]
            rows[i + 1] = rows[i]
            i -= 1
        keys[i + 1] = key
        rows[i + 1] = row
        budget -= j - 1 - i
        if budget < 0:  # far from ordered: keys and rows still match, sort them at once
            _merge_sort(keys, rows)
            break
    for j in range(n):
        order[first + j] = rows[j]


# Plain loops rather than numba's np.searchsorted, np.argsort and slice assignment, whose
# compilation would add seconds to the first call of a fresh installation (empty numba cache).

@inner_kernel()
def _search(keys, key):  # pragma: no cover - compiled
    """The first position of sorted ``keys`` holding a value ``>= key`` (``np.searchsorted``)."""
    low, high = 0, len(keys)
    while low < high:
        middle = (low + high) // 2
        if keys[middle] < key:
            low = middle + 1
        else:
            high = middle
    return low


@inner_kernel()
def _merge_sort(keys, rows):  # pragma: no cover - compiled
    """Sort int64 ``keys`` ascending in place, stably, moving int64 ``rows`` along (bottom-up)."""
    n = len(keys)
    spare_keys, spare_rows = np.empty(n, np.int64), np.empty(n, np.int64)
    width, passes = 1, 0
    while width < n:
        if passes % 2 == 0:
            _merge_pass(keys, rows, spare_keys, spare_rows, width)
        else:
            _merge_pass(spare_keys, spare_rows, keys, rows, width)
        width *= 2
        passes += 1
    if passes % 2 == 1:
        for k in range(n):  # a loop: numba compiles slice assignment slowly
            keys[k] = spare_keys[k]
            rows[k] = spare_rows[k]


@inner_kernel()
def _merge_pass(keys, rows, out_keys, out_rows, width):  # pragma: no cover - compiled
    """Merge each pair of neighbouring sorted runs of ``width`` keys into ``out_keys``."""
    n = len(keys)
    for low in range(0, n, 2 * width):
        middle, high = min(low + width, n), min(low + 2 * width, n)
        i, j = low, middle
        for k in range(low, high):
            take_right = j < high and (i >= middle or keys[j] < keys[i])
            source = j if take_right else i
            out_keys[k] = keys[source]
            out_rows[k] = rows[source]
            if take_right:
                j += 1
            else:
                i += 1
