"""Row-wise work in chunks of rows, here or on an executor (private).

The vectorised cores of the tests and intervals treat each row (a pair of systems, a system) on
its own: a row's numbers do not depend on which other rows share its chunk. So a long matrix can be
cut into chunks of rows sized from the memory budget (:func:`~pyterrier_boot._memory.chunk_rows`),
each chunk handed to :func:`~pyterrier_boot._batches.map_batches` (in this process, or on any
``concurrent.futures.Executor``), and the per-row summaries joined in order: the result is the same
whatever the executor, the number of workers or the chunk size. Only summaries come back (p-values,
bounds, counts), so memory stays one chunk per worker.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

import numpy as np

from ._batches import map_batches

__all__ = ["join_rows", "map_rows"]


def _apply(batch: tuple[Callable[..., Any], tuple[Any, ...]]) -> Any:
    function, arrays = batch
    return function(*arrays)


def map_rows(function: Callable[..., Any], *arrays: np.ndarray, rows: int,
             executor: Executor | None = None) -> Any:
    """``function(*arrays)`` computed ``rows`` rows at a time and joined with :func:`join_rows`.

    ``function`` must be module-level (or a ``functools.partial`` of one) so that it pickles for
    process pools and clusters. Without an executor the arrays are passed whole (the cores chunk
    within), which gives the same numbers since every row is computed on its own.
    """
    n = len(arrays[0])
    if executor is None or n == 0:
        return function(*arrays)
    step = max(1, int(rows))
    batches = ((function, tuple(a[start:start + step] for a in arrays)) for start in range(0, n, step))
    return join_rows(list(map_batches(_apply, batches, executor)))


def join_rows(parts: list[Any]) -> Any:
    """Join per-chunk outputs in order: arrays along their first axis, dicts and tuples item by item;
    scalars and ``None`` are the same in every chunk and taken from the first."""
    first = parts[0]
    if isinstance(first, dict):
        return {key: join_rows([part[key] for part in parts]) for key in first}
    if isinstance(first, tuple):
        return tuple(join_rows([part[i] for part in parts]) for i in range(len(first)))
    if isinstance(first, np.ndarray) and first.ndim >= 1:
        return np.concatenate(parts, axis=0)
    return first
