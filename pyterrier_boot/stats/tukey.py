"""Tukey's honestly significant difference for all pairs of systems, with topics as blocks.

:func:`tukey_hsd` fits the two-way ANOVA without replication ``x[s,q] = μ + α_s + β_q + ε`` (system
and topic effects, one score per cell), so the topic effect is removed from the error term (the
design is paired), and compares every pair of system means with the studentised range
distribution on ``(S-1)(n-1)`` degrees of freedom. A one-way Tukey test (scipy's ``tukey_hsd``,
ranx's) ignores the pairing and is much weaker on IR data.

:func:`randomized_tukey_hsd` is Carterette's (2012) distribution-free version (pt_docs/methods.md, "Many systems"): per resample,
shuffle each topic's scores across the systems, record the range (max minus min) of the system
means; the adjusted p-value of a pair is the share of resamples whose range is at least the
pair's observed difference.

References:
    Tukey, J. W. (1949). Comparing individual means in the analysis of variance.
    Carterette, B. (2012). Multiple testing in statistical analysis of systems-based information
    retrieval experiments. ACM TOIS 30(1).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import stats

from .._batches import block_seeds, check_executor, map_batches
from .._checks import NAN_POLICIES, check_choice, check_confidence_level, tolerance
from .._memory import (
    DEFAULT_MAX_MEMORY,
    check_n_resamples,
    require_resamples_memory,
    warn_interval_resolution,
    warn_pvalue_resolution,
)
from .._quantiles import sorted_quantiles
from .._results import ConfidenceInterval, TupleLike
from .._scores import as_score_matrix
from .._warnings import DegenerateWarning

if TYPE_CHECKING:
    from concurrent.futures import Executor

    import numpy.typing as npt
    import pandas as pd

    from .._typing import FloatArray, RngLike, ScoresLike


__all__ = ["tukey_hsd", "randomized_tukey_hsd", "tukey_statistics", "TukeyHSDResult"]

_BLOCK = 256  # resamples drawn per call to the generator (fixed: results do not depend on memory)


@dataclass(frozen=True, slots=True)
class TukeyHSDResult(TupleLike):
    """All-pairs comparison; unpacks as ``statistic, pvalue``.

    Attributes:
        statistic: ``(S, S)`` matrix of mean differences ``mean_i - mean_j`` (scipy's layout).
        pvalue: ``(S, S)`` adjusted p-values (1 on the diagonal).
        confidence_interval: ``ConfidenceInterval`` of ``(S, S)`` arrays: simultaneous intervals
            of the differences.
        means: system means.
        systems: system labels (row labels or positions).
        n_topics, confidence_level, method: as used.
        mse, df: residual mean square and degrees of freedom of the two-way ANOVA
            (``tukey_hsd``); None for the randomised version.
        null_distribution: the max-minus-min range of system means per resample (randomised).
    """

    statistic: Any
    pvalue: Any
    confidence_interval: ConfidenceInterval
    means: Any
    systems: tuple
    n_topics: int
    confidence_level: float
    method: str
    mse: float | None = None
    df: int | None = None
    null_distribution: Any = None
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")

    def to_frame(self, alpha: float | None = None) -> pd.DataFrame:
        """One row per pair ``i < j``: ``system_a, system_b, difference, ci_low, ci_high, p-value, reject``.

        ``reject`` uses ``alpha = 1 - confidence_level`` unless given.
        """
        import pandas as pd

        alpha = 1 - self.confidence_level if alpha is None else alpha
        i, j = np.triu_indices(len(self.systems), k=1)
        return pd.DataFrame({
            "system_a": [self.systems[k] for k in i],
            "system_b": [self.systems[k] for k in j],
            "difference": self.statistic[i, j],
            "ci_low": self.confidence_interval.low[i, j],
            "ci_high": self.confidence_interval.high[i, j],
            "p-value": self.pvalue[i, j],
            "reject": self.pvalue[i, j] < alpha,
        })

    def _repr_html_(self):
        return self.to_frame()._repr_html_()


def _tukey_iv(scores, confidence_level, nan_policy):
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    confidence_level = check_confidence_level(confidence_level)
    matrix = as_score_matrix(scores, "scores", nan_policy=nan_policy, allow_1d=False)
    if matrix.values.shape[0] < 2:
        raise ValueError(f"'scores' needs at least 2 systems (rows), got {matrix.values.shape[0]}")
    return matrix, confidence_level


def tukey_hsd(scores: ScoresLike, *, confidence_level: float = 0.95, nan_policy: str = "raise") -> TukeyHSDResult:
    """Tukey HSD over all pairs of systems, with topics as blocks (two-way ANOVA, no replication).

    Args:
        scores: a systems x topics array, or a DataFrame with one row per topic and one column per
            system (``pivot(index="qid", columns="name")``; labels read as in ``pt_docs/statistics.md``).
        confidence_level: level of the simultaneous intervals.
        nan_policy: ``"raise"`` or ``"omit"`` (drop topics not scored for every system).

    Returns:
        TukeyHSDResult. With ``MSE = SSE / ((S-1)(n-1))`` from the residuals
        ``x[s,q] - mean_s - mean_q + mean``, the pair statistic is
        ``q = |mean_i - mean_j| / sqrt(MSE / n)`` and ``p = P(Q_{S,(S-1)(n-1)} >= q)``.
        If the additive model fits exactly (MSE = 0) every p-value is 1, with a DegenerateWarning.

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> topic = rng.random(30)
        >>> scores = np.vstack([topic, topic + 0.1, topic + 0.11]) + rng.normal(0, 0.05, (3, 30))
        >>> res = tukey_hsd(scores)
        >>> bool(res.pvalue[0, 1] < 0.05), bool(res.pvalue[1, 2] > 0.05)
        (True, True)
    """
    matrix, confidence_level = _tukey_iv(scores, confidence_level, nan_policy)
    X = matrix.values
    S, n = X.shape
    means, mse_, df = tukey_statistics(X)
    mse = float(mse_)
    diff = means[:, None] - means[None, :]
    se = np.sqrt(mse / n)
    if mse <= 0 or not np.isfinite(mse):
        warnings.warn("the additive system + topic model fits the scores exactly (residual mean "
                      "square 0): Tukey's statistic is undefined; returning pvalue=1.0 for every pair",
                      DegenerateWarning, stacklevel=2)
        pvalue = np.ones((S, S))
        half = np.zeros((S, S))
    else:
        q = np.abs(diff) / se
        pvalue = stats.studentized_range.sf(q, S, df)
        np.fill_diagonal(pvalue, 1.0)
        half = stats.studentized_range.ppf(confidence_level, S, df) * se * np.ones((S, S))
    ci = ConfidenceInterval(diff - half, diff + half)
    return TukeyHSDResult(diff, np.minimum(pvalue, 1.0), ci, means, tuple(matrix.system_labels), n,
                          confidence_level, "tukey_hsd", mse, df)


def tukey_statistics(X: npt.ArrayLike) -> tuple[FloatArray, FloatArray, int]:
    """System means, residual mean square and its degrees of freedom of the two-way ANOVA without
    replication, for score matrices ``X`` of shape ``(..., S, n)`` (systems x topics) at once.

    Returns ``(means (..., S), mse (...), df)`` with ``df = (S-1)(n-1)``; ``mse`` is 0 where the
    additive model fits exactly (up to rounding). Tukey's statistic of a pair is
    ``|mean_i - mean_j| / sqrt(mse / n)`` (:func:`tukey_hsd`).
    """
    X = np.asarray(X, dtype=float)
    S, n = X.shape[-2:]
    means = X.mean(axis=-1)
    grand = means.mean(axis=-1)
    resid = X - means[..., None] - X.mean(axis=-2)[..., None, :] + grand[..., None, None]
    df = (S - 1) * (n - 1)
    sse = (resid ** 2).sum(axis=(-2, -1))
    sst = ((X - grand[..., None, None]) ** 2).sum(axis=(-2, -1))
    mse = np.where(sse <= 1e-20 * sst, 0.0, sse / df)  # exact additive fit up to rounding
    return means, mse, df


def _null_ranges(X, n_resamples, rng, executor=None):
    """The range of the system means with each topic's scores shuffled across systems, per
    resample. Resamples come in blocks of ``_BLOCK``, each drawn from its own seed spawned from
    ``rng`` (:func:`~pyterrier_boot._batches.block_seeds`), so the ranges depend on ``rng`` and
    ``B`` only, whether the blocks run here or on ``executor``."""
    seeds = block_seeds(rng, n_resamples, _BLOCK)
    sizes = [min(_BLOCK, n_resamples - start) for start in range(0, n_resamples, _BLOCK)]
    blocks = ((X, seed, rows) for seed, rows in zip(seeds, sizes, strict=True))
    return np.concatenate(list(map_batches(_block_ranges, blocks, executor)))


def _block_ranges(block):
    """One block of :func:`_null_ranges`: ``(X, seed, rows)`` -> the ``rows`` null ranges."""
    X, seed, rows = block
    S, n = X.shape
    perm = np.random.default_rng(seed).permuted(np.broadcast_to(np.arange(S), (rows, n, S)), axis=-1)
    shuffled_means = X.T[np.arange(n)[None, :, None], perm].mean(axis=1)  # (rows, S)
    return shuffled_means.max(axis=1) - shuffled_means.min(axis=1)


def randomized_tukey_hsd(scores: ScoresLike, *, n_resamples: int = 10_000,
                         confidence_level: float = 0.95, rng: RngLike = None,
                         nan_policy: str = "raise", max_memory: int | str | None = DEFAULT_MAX_MEMORY,
                         executor: Executor | None = None) -> TukeyHSDResult:
    """Carterette's randomised Tukey HSD: all pairs, family-wise error controlled, topics as blocks.

    Per resample, each topic's scores are shuffled across the systems (the null: systems are
    exchangeable within a topic) and the range ``max_s mean* - min_s mean*`` of the system means is
    recorded. The adjusted p-value of pair ``(i, j)`` is ``(count + 1) / (B + 1)`` with ``count`` the
    resamples whose range is at least ``|mean_i - mean_j|``. The simultaneous interval is
    ``difference ± `` the ``confidence_level`` quantile of the null range. Shuffles are drawn in
    fixed blocks of 256 resamples, each from its own seed spawned from ``rng``, so the result
    depends on ``rng`` and ``n_resamples`` only (not on ``executor``).

    Args:
        scores: a systems x topics array, or a DataFrame with one row per topic and one column per system.
        n_resamples: resamples ``B``.
        confidence_level: level of the intervals.
        rng: seed or Generator (SPEC 7).
        nan_policy: ``"raise"`` or ``"omit"``.
        max_memory: bytes it may hold (default 1 GiB: the ``B`` null ranges, twice, and one block
            of shuffles); more is a ValueError stating the estimate.
        executor: a ``concurrent.futures.Executor`` (process pool, ``dask.distributed``'s
            ``Client.get_executor()``) to draw the blocks of resamples on; same result
            (``pt_docs/scale.md``).

    Returns:
        TukeyHSDResult with ``null_distribution`` the ``B`` null ranges.

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> topic = rng.random(30)
        >>> scores = np.vstack([topic, topic + 0.1, topic + 0.11]) + rng.normal(0, 0.05, (3, 30))
        >>> res = randomized_tukey_hsd(scores, n_resamples=2000, rng=1)
        >>> bool(res.pvalue[0, 1] < 0.05), bool(res.pvalue[1, 2] > 0.05)
        (True, True)
    """
    matrix, confidence_level = _tukey_iv(scores, confidence_level, nan_policy)
    n_resamples = check_n_resamples(n_resamples)
    executor = check_executor(executor)
    X = matrix.values
    S, n = X.shape
    require_resamples_memory(n_resamples, max_memory, what=f"a randomised Tukey HSD of {S:,} systems x {n:,} topics",
                             floats=3, extra=8 * 4 * _BLOCK * n * S)
    if not warn_interval_resolution(n_resamples, confidence_level, "greater"):
        warn_pvalue_resolution(n_resamples)
    means = X.mean(axis=1)
    diff = means[:, None] - means[None, :]
    ranges = _null_ranges(X, n_resamples, rng, executor)
    observed = np.abs(diff)
    tol = tolerance(observed)
    srt = np.sort(ranges)
    count = n_resamples - np.searchsorted(srt, observed - tol, side="left")
    pvalue = (count + 1) / (n_resamples + 1)
    np.fill_diagonal(pvalue, 1.0)
    half = sorted_quantiles(srt[None, :], [confidence_level])[0, 0]
    ci = ConfidenceInterval(diff - half, diff + half)
    return TukeyHSDResult(diff, pvalue, ci, means, tuple(matrix.system_labels), n, confidence_level,
                          "randomized_tukey_hsd", null_distribution=ranges)
