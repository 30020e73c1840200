"""Resample plans: the topic bootstrap and the sign flips, drawn once and shared.

Topics are an i.i.d. sample from a population of topics (Sakai 2007, §5; pt_docs/methods.md, "The topic bootstrap"). A
:class:`ResamplePlan` holds ``B`` bootstrap resamples of topic *positions*, drawn once from ``rng``;
every system and every measure in one call is resampled with the same plan, so comparisons are
paired, and a kept plan replays the experiment exactly. A :class:`SignFlipPlan` does the same for
the randomisation (permutation) test: ``B`` vectors of per-topic sign flips, or all ``2^n`` of them
when that is no more than ``B`` (exact enumeration).

Means over resamples are matrix products of the plan's weights (how often each topic is drawn,
or its sign) with the score matrix. The products run in blocks whose shape depends on the number
of topics only (``row_block(n)`` resamples x ``COL_BLOCK`` series, zero-padded), so every resampled
value is computed by the same floating-point operations whatever the number of systems or pairs,
the ``batch`` size or the thread count: results are bitwise identical for the same plan. The
blocks are kept small enough (``rows x 32 x n < 2**18`` multiply-adds) that OpenBLAS runs them on
one thread, which on small products is many times faster than its thread pool.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._batches import map_batches
from .._checks import check_positive_int
from .._memory import (
    DEFAULT_MAX_MEMORY,
    check_max_memory,
    check_n_resamples,
    plan_bytes,
    require_memory,
)
from .._random import as_generator

if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Executor
    from typing import Any

    import numpy.typing as npt

    from .._typing import FloatArray, RngLike


COL_BLOCK = 32

#: Resamples per block when the resamples of a few series are split across an executor (rounded up
#: to a multiple of :func:`row_block`, so each block's products are those of the whole plan).
RESAMPLE_BLOCK = 4096


def row_block(n_topics: int) -> int:
    """Resamples per block product for ``n_topics`` topics (a function of ``n_topics`` only)."""
    return int(max(8, min(256, (8191 // max(1, n_topics)) // 8 * 8)))


__all__ = ["ResamplePlan", "SignFlipPlan", "resample_plan", "sign_flip_plan"]


def _index_dtype(n):
    for dtype in (np.int16, np.int32):
        if n - 1 <= np.iinfo(dtype).max:
            return dtype
    return np.int64


@dataclass(frozen=True, slots=True, eq=False)
class ResamplePlan:
    """``n_resamples`` topic-bootstrap resamples of ``n_topics`` topic positions.

    Attributes:
        indices: int array of shape ``(n_resamples, n_topics)``; row ``b`` lists the topic positions
            drawn (with replacement) for resample ``b``. Read-only.

    Build one with :func:`resample_plan`; pass it as ``plan=`` to :func:`bootstrap_ci`,
    :func:`paired_bootstrap_test` or :func:`compare` to replay the same resamples.

    Example:
        >>> plan = resample_plan(5, n_resamples=3, rng=1)
        >>> plan.indices.shape
        (3, 5)
        >>> plan.weights().sum(axis=1)
        array([5., 5., 5.])
    """

    indices: np.ndarray

    def __post_init__(self):
        idx = np.asarray(self.indices)
        if idx.ndim != 2 or idx.shape[0] < 1 or idx.shape[1] < 1:
            raise ValueError(f"'plan' indices must be a 2-D array (n_resamples, n_topics), got shape {idx.shape}")
        if not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"'plan' indices must be integers, got {idx.dtype}")
        n = idx.shape[1]
        if idx.min() < 0 or idx.max() >= n:
            raise ValueError(f"'plan' indices must lie in [0, {n}) (topic positions)")
        idx = np.array(idx, dtype=_index_dtype(n), copy=True)
        idx.setflags(write=False)
        object.__setattr__(self, "indices", idx)

    @property
    def n_resamples(self) -> int:
        return self.indices.shape[0]

    @property
    def n_topics(self) -> int:
        return self.indices.shape[1]

    def weights(self, start: int = 0, stop: int | None = None) -> FloatArray:
        """How often each topic is drawn in resamples ``start:stop``: float array (rows, n_topics)."""
        idx = self.indices[start:stop].astype(np.intp)
        rows, n = idx.shape
        flat = (idx + n * np.arange(rows)[:, None]).ravel()
        return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(float)

    def rows(self, start: int, stop: int) -> ResamplePlan:
        """The plan of resamples ``start:stop``."""
        return ResamplePlan(self.indices[start:stop])

    def take(self, values: npt.ArrayLike, start: int = 0, stop: int | None = None) -> npt.NDArray[Any]:
        """``values[..., indices[start:stop]]``: resampled scores, shape ``(..., rows, n_topics)``."""
        return np.asarray(values)[..., self.indices[start:stop]]

    def __repr__(self):
        return f"ResamplePlan(n_resamples={self.n_resamples}, n_topics={self.n_topics})"


@dataclass(frozen=True, slots=True, eq=False)
class SignFlipPlan:
    """Sign flips for the paired randomisation test.

    Attributes:
        signs: int8 array ``(n_resamples, n_topics)`` of +1/-1; -1 swaps the two systems' scores on
            that topic. Read-only.
        exact: True when ``signs`` enumerates all ``2^n_topics`` flips (the first row keeps every
            sign, i.e. the observed data), so p-values are exact.
    """

    signs: np.ndarray
    exact: bool = False

    def __post_init__(self):
        signs = np.asarray(self.signs)
        if signs.ndim != 2 or signs.shape[0] < 1 or signs.shape[1] < 1:
            raise ValueError(f"'plan' signs must be a 2-D array (n_resamples, n_topics), got shape {signs.shape}")
        if np.issubdtype(signs.dtype, np.integer):  # one boolean temporary, not isin's int64 ones
            valid = signs.size == 0 or (signs.min() >= -1 and signs.max() <= 1 and np.all(signs != 0))
        else:
            valid = np.isin(signs, (-1, 1)).all()
        if not valid:
            raise ValueError("'plan' signs must all be +1 or -1")
        signs = np.array(signs, dtype=np.int8, copy=True)
        signs.setflags(write=False)
        object.__setattr__(self, "signs", signs)
        object.__setattr__(self, "exact", bool(self.exact))

    @property
    def n_resamples(self) -> int:
        return self.signs.shape[0]

    @property
    def n_topics(self) -> int:
        return self.signs.shape[1]

    def weights(self, start: int = 0, stop: int | None = None) -> FloatArray:
        """Signs of resamples ``start:stop`` as floats, shape (rows, n_topics)."""
        return self.signs[start:stop].astype(float)

    def rows(self, start: int, stop: int) -> SignFlipPlan:
        """The flips ``start:stop`` (as exact as the whole: a block of an enumeration)."""
        return SignFlipPlan(self.signs[start:stop], exact=self.exact)

    def __repr__(self):
        return f"SignFlipPlan(n_resamples={self.n_resamples}, n_topics={self.n_topics}, exact={self.exact})"


def _require_plan_memory(n_topics, n_resamples, max_memory, kind):
    require_memory(plan_bytes(n_resamples, n_topics), check_max_memory(max_memory),
                   what=f"{kind} of {n_topics:,} topics", size=f"n_resamples={n_resamples:,}",
                   fix="lower n_resamples")


def resample_plan(n_topics: int, *, n_resamples: int = 10_000, rng: RngLike = None,
                  max_memory: int | str | None = DEFAULT_MAX_MEMORY) -> ResamplePlan:
    """Draw a topic-bootstrap plan: ``n_resamples`` resamples of ``n_topics`` positions.

    The indices are drawn in one call, ``rng.integers(0, n_topics, (n_resamples, n_topics))``, which
    is also how :func:`scipy.stats.bootstrap` draws them, so the same seed gives scipy the same
    resamples.

    Args:
        n_topics: number of topics (columns of the score matrix).
        n_resamples: number of bootstrap resamples ``B``.
        rng: ``None``, an int seed, a ``SeedSequence`` or a ``Generator`` (SPEC 7).
        max_memory: bytes the plan may take while it is drawn (default 1 GiB; about
            ``10·B·n_topics``); a larger plan is a ValueError stating the estimate.

    Returns:
        ResamplePlan

    Example:
        >>> plan = resample_plan(50, n_resamples=1000, rng=42)
        >>> plan
        ResamplePlan(n_resamples=1000, n_topics=50)
    """
    n_topics = check_positive_int(n_topics, "n_topics")
    n_resamples = check_n_resamples(n_resamples, minimum=1)
    _require_plan_memory(n_topics, n_resamples, max_memory, "a topic-bootstrap plan")
    gen = as_generator(rng)
    return ResamplePlan(gen.integers(0, n_topics, (n_resamples, n_topics)))


def sign_flip_plan(n_topics: int, *, n_resamples: int = 10_000, rng: RngLike = None,
                   max_memory: int | str | None = DEFAULT_MAX_MEMORY) -> SignFlipPlan:
    """Draw the sign flips of a paired randomisation test.

    When ``2 ** n_topics <= n_resamples`` every flip is enumerated (exact test, ``rng`` unused);
    otherwise each topic's sign is flipped with probability 1/2, independently, ``n_resamples``
    times (``rng.integers(0, 2, (n_resamples, n_topics))``). ``max_memory`` as :func:`resample_plan`.

    Example:
        >>> sign_flip_plan(3, n_resamples=100).signs.shape  # 2**3 = 8 <= 100: exact
        (8, 3)
    """
    n_topics = check_positive_int(n_topics, "n_topics")
    n_resamples = check_n_resamples(n_resamples, minimum=1)
    exact = n_topics < 63 and 2 ** n_topics <= n_resamples
    _require_plan_memory(n_topics, 2 ** n_topics if exact else n_resamples, max_memory, "a sign-flip plan")
    if exact:
        codes = np.arange(2 ** n_topics, dtype=np.int64)[:, None]
        bits = (codes >> np.arange(n_topics, dtype=np.int64)) & 1
        return SignFlipPlan(1 - 2 * bits, exact=True)
    gen = as_generator(rng)
    signs = gen.integers(0, 2, (n_resamples, n_topics))
    signs *= -2  # 1 - 2 * bits, in place: one int64 array at a time
    signs += 1
    return SignFlipPlan(signs, exact=False)


def planned_resamples(plan: ResamplePlan | SignFlipPlan | npt.ArrayLike | None, n_resamples: int) -> int:
    """Resamples a call will use: those of ``plan`` (a plan or its 2-D array; an invalid one is
    refused when it is read) or, without a plan, ``n_resamples``."""
    if isinstance(plan, (ResamplePlan, SignFlipPlan)):
        return plan.n_resamples
    if plan is not None and np.ndim(plan) == 2:
        return int(np.shape(plan)[0])
    return n_resamples


def as_resample_plan(plan: object, n_topics: int, n_resamples: int, rng: RngLike,
                     max_memory: int | str | None = DEFAULT_MAX_MEMORY) -> ResamplePlan:
    """The plan to use: the given one (checked against ``n_topics``) or a new one drawn from ``rng``."""
    if plan is None:
        return resample_plan(n_topics, n_resamples=n_resamples, rng=rng, max_memory=max_memory)
    if not isinstance(plan, ResamplePlan):
        if isinstance(plan, SignFlipPlan):
            raise TypeError("'plan' must be a ResamplePlan (topic bootstrap), got a SignFlipPlan")
        plan = ResamplePlan(np.asarray(plan))
    if plan.n_topics != n_topics:
        raise ValueError(f"'plan' resamples {plan.n_topics} topics but the scores have {n_topics} topics")
    return plan


def as_sign_flip_plan(plan: object, n_topics: int, n_resamples: int, rng: RngLike,
                      max_memory: int | str | None = DEFAULT_MAX_MEMORY) -> SignFlipPlan:
    if plan is None:
        return sign_flip_plan(n_topics, n_resamples=n_resamples, rng=rng, max_memory=max_memory)
    if not isinstance(plan, SignFlipPlan):
        raise TypeError(f"'plan' must be a SignFlipPlan for the randomisation test, got {type(plan).__name__}")
    if plan.n_topics != n_topics:
        raise ValueError(f"'plan' flips {plan.n_topics} topics but the scores have {n_topics} topics")
    return plan


def weighted_sums(plan: ResamplePlan | SignFlipPlan, values: FloatArray) -> FloatArray:
    """``out[p, b] = sum_q values[p, q] * plan.weights()[b, q]`` in fixed-shape blocks.

    Args:
        plan: a :class:`ResamplePlan` or :class:`SignFlipPlan`.
        values: float array ``(P, n_topics)`` (systems, pairs' differences, squares, ...).

    Returns:
        float array ``(P, n_resamples)`` (resamples on the last axis, as scipy). Each entry is
        computed by the same operations whatever ``P`` is, so a pair gives the same numbers alone
        or among 1,000 others.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[None, :]
    n_series, n = values.shape
    n_blocks = -(-n_series // COL_BLOCK)
    blocks = np.zeros((n_blocks, COL_BLOCK, n))
    blocks.reshape(-1, n)[:n_series] = values
    B = plan.n_resamples
    out = np.empty((n_series, B))
    step = row_block(n)
    w = np.zeros((step, n))
    for start in range(0, B, step):
        stop = min(start + step, B)
        rows = stop - start
        w[:rows] = plan.weights(start, stop)
        w[rows:] = 0.0
        wt = w.T
        for k in range(n_blocks):
            lo = k * COL_BLOCK
            hi = min(lo + COL_BLOCK, n_series)
            out[lo:hi, start:stop] = (blocks[k] @ wt)[:hi - lo, :rows]
    return out


def resample_moments(W: FloatArray, plan: ResamplePlan) -> tuple[FloatArray, FloatArray]:
    """``(mean, variance of the mean)`` of each row of the centred scores ``W`` in every resample
    ``b``, both (rows, B): ``mean(w*b)`` and ``sd(w*b)^2 / n`` (ddof=1), a variance within rounding of
    0 (``1e-12`` of the sum of squares or less: one repeated score) set to 0 (:func:`studentized_pivot`)."""
    n = W.shape[1]
    s1 = weighted_sums(plan, W)
    s1 /= n
    squares = weighted_sums(plan, W * W)
    s2 = squares - n * s1 * s1
    s2[s2 <= 1e-12 * squares] = 0.0
    s2 /= (n - 1) * n
    return s1, s2


def studentized_pivot(W: FloatArray, plan: ResamplePlan) -> FloatArray:
    """``t(w*b)`` for each row of the centred scores ``W`` and resample ``b``: (rows, B).

    The bootstrap-t pivot: the null distribution of Sakai's paired bootstrap test (``W`` the
    differences minus their mean) and the studentised interval's pivot (``W`` the scores minus
    their mean).

    ``t = mean / (sd / √n)`` with ``sd`` the resample's own standard deviation (ddof=1); a resample
    with zero spread gives ``±inf``, or 0 when its mean is 0 too. Zero spread is read to rounding: a
    resample of one repeated score, whose computed sum of squares about its mean is a rounding
    residue (``1e-12`` of the sum of squares or less), has zero spread (not ``t = 4e6``).
    """
    s1, s2 = resample_moments(W, plan)
    np.sqrt(s2, out=s2)
    with np.errstate(divide="ignore", invalid="ignore"):
        s1 /= s2
    s1[np.isnan(s1)] = 0.0
    return s1


def _apply_block(batch):
    function, values, plan = batch
    return function(values, plan)


def map_resamples(function: Callable[[FloatArray, Any], FloatArray], values: FloatArray,
                  plan: ResamplePlan | SignFlipPlan, executor: Executor | None = None) -> FloatArray:
    """``function(values, plan)``, a ``(series, B)`` array, computed in fixed blocks of resamples on
    ``executor`` (a module-level ``function``), joined in order: the same numbers as in one call,
    since blocks start at multiples of :func:`row_block` and every product keeps its shape."""
    if executor is None:
        return function(values, plan)
    step = row_block(values.shape[1])
    size = -(-RESAMPLE_BLOCK // step) * step
    blocks = ((function, values, plan.rows(start, start + size)) for start in range(0, plan.n_resamples, size))
    return np.concatenate(list(map_batches(_apply_block, blocks, executor)), axis=1)
