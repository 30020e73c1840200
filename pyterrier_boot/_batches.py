"""Independent batches of random work, run here or on any ``concurrent.futures.Executor``.

Corpus images and topic resamples are independent draws, so long resampling jobs split into
batches that any process, thread or machine can run. What a batch draws never depends on who runs
it or on how many items share a batch, so a result is identical for a given ``rng`` in one
process, on a thread or process pool or on a dask.distributed cluster (``Client.get_executor()``).
Three routes give that:

* :func:`block_seeds`: one seed per *block* of a fixed size, spawned from the user's ``rng`` with
  :meth:`numpy.random.SeedSequence.spawn` (randomised Tukey HSD); the block size is part of the
  stream, a constant of the method, never derived from a memory budget;
* corpus images are keyed: each image draws from a counter-based stream under its own 64-bit key,
  the keys drawn from ``rng`` once (:mod:`pyterrier_boot.corpus.multiplicity`), so a batch of
  images needs only its keys;
* topic resampling plans are drawn once in the calling process and handed to the batches
  (``compare`` and the other statistics of :mod:`pyterrier_boot.stats`).
"""
from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from ._random import as_generator

__all__ = ["SCHEDULERS", "block_seeds", "check_executor", "check_scheduler", "executor_from", "map_batches"]

T = TypeVar("T")
R = TypeVar("R")

#: Schedulers the CLI's ``--scheduler`` names (a ``tcp://`` address means a running dask scheduler).
SCHEDULERS = ("processes", "threads", "dask")


def block_seeds(rng: Any, n_items: int, block: int) -> list[np.random.SeedSequence]:
    """One independent seed per block of ``block`` items (the last block may be shorter).

    The seeds are drawn from ``rng`` once (it advances by four 64-bit draws), so the same ``rng``
    gives the same seeds and hence the same draws, whoever runs the blocks.
    """
    if block < 1:
        raise ValueError(f"block must be a positive integer, got {block}")
    entropy = as_generator(rng).integers(0, 2**63, size=4, dtype=np.int64)
    n_blocks = -(-int(n_items) // block)
    return np.random.SeedSequence([int(e) for e in entropy]).spawn(n_blocks)


def check_executor(executor: Any, name: str = "executor") -> Executor | None:
    """Return ``executor`` if it is ``None`` or has ``submit`` (a concurrent.futures Executor)."""
    if executor is None or callable(getattr(executor, "submit", None)):
        return executor
    raise TypeError(f"{name!r} must be a concurrent.futures.Executor (anything with .submit) or None, "
                    f"got {type(executor).__name__}")


def map_batches(function: Callable[[T], R], batches: Iterable[T], executor: Executor | None = None, *,
                window: int | None = None) -> Iterator[R]:
    """Apply ``function`` to every batch, in order: in this process, or on ``executor``.

    With an executor the batches are submitted ahead (all at once, or at most ``window`` not yet
    yielded, for batches whose arguments are large) and results are yielded in submission order,
    so the caller may reduce them as they come (keeping only summaries, never every batch's output).
    ``function`` and the batches must pickle for process pools and clusters (module-level functions).
    """
    if executor is None:
        yield from map(function, batches)
        return
    if window is not None and window < 1:
        raise ValueError(f"window must be a positive integer or None, got {window}")
    pending: deque[Future[R]] = deque()
    try:
        for batch in batches:
            pending.append(executor.submit(function, batch))
            if window is not None and len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()


def check_scheduler(workers: int | None, scheduler: str | None) -> None:
    """Refuse ``--workers`` that is not a positive integer and an unknown ``--scheduler``
    (:func:`executor_from`; the CLI checks them before reading anything)."""
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"--workers must be a positive integer, got {workers!r}")
    if scheduler is not None and scheduler not in SCHEDULERS and not str(scheduler).startswith("tcp://"):
        raise ValueError(f"--scheduler must be one of {', '.join(SCHEDULERS)} or a dask address "
                         f"tcp://host:port, got {scheduler!r}")


@contextmanager
def executor_from(workers: int | None, scheduler: str | None = None) -> Iterator[Executor | None]:
    """The executor the CLI's ``--workers N --scheduler S`` name, shut down on exit.

    ``workers`` of ``None`` or 1 with no scheduler runs in this process. ``scheduler`` is
    ``"processes"`` (default when ``workers > 1``), ``"threads"``, ``"dask"`` (a local
    dask.distributed cluster of ``workers`` processes) or a dask scheduler address
    (``tcp://host:8786``) to run on an existing cluster.
    """
    check_scheduler(workers, scheduler)
    if scheduler is None and (workers is None or workers == 1):
        yield None
        return
    n = workers or os.cpu_count() or 1
    if scheduler in (None, "processes"):
        with ProcessPoolExecutor(n) as pool:
            yield pool
    elif scheduler == "threads":
        with ThreadPoolExecutor(n) as pool:
            yield pool
    else:  # "dask" or an address (checked above)
        with _dask_client(n, None if scheduler == "dask" else scheduler) as client:
            yield client.get_executor()


@contextmanager
def _dask_client(n_workers: int, address: str | None) -> Iterator[Any]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as error:
        raise ImportError("--scheduler dask needs dask.distributed: pip install 'pyterrier-boot[dask]'") from error
    if address is not None:
        with Client(address) as client:
            yield client
        return
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True) as cluster, \
            Client(cluster) as client:
        yield client
