"""The variance of a system's mean and of a difference of two systems, with Satterthwaite's degrees of freedom.

For a system's mean over ``n`` topics and ``k`` runs (:mod:`.anova`'s model),
``Var = sigma2_t / n + sigma2_u / k + sigma2_e / (n k)``. Its unbiased estimate is a linear
combination of the independent mean squares, ``(MS_T + MS_R - MS_E) / (n k)``, whose distribution
is approximated by a scaled chi-square with Satterthwaite's (1946) degrees of freedom
``(sum c_i MS_i)^2 / sum (c_i MS_i)^2 / df_i``. The combination is unbiased, so the small-sample
bias correction of Kenward & Roger (1997) has nothing to correct here.

* ``seeds="fixed"`` conditions on the runs (``u_r`` fixed): ``MS_T / (n k)``, the variance over
  topics of the run-averaged scores, with ``n - 1`` degrees of freedom (the t interval on averaged
  scores);
* ``seeds="random"`` adds the seed term ``(MS_R - MS_E) / (n k)`` (``sigma2_u / k``), dropped where
  the estimate of ``sigma2_u`` is negative (truncated at 0, as REML does);
* a paired difference of two systems keeps the variance over topics of the per-topic differences
  of run-averaged scores (``n - 1`` degrees of freedom: the shared topic effects cancel) and, under
  ``"random"``, both systems' seed terms (their seeds are independent).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from .._typing import FloatArray
    from .anova import MeanSquares

__all__ = ["SEEDS", "VarianceEstimate", "satterthwaite", "mean_variance", "difference_variance"]

#: the two questions: ``"random"``, the recipe for a new seed; ``"fixed"``, these runs' average
SEEDS = ("random", "fixed")


@dataclass(frozen=True)
class VarianceEstimate:
    """An estimated variance of an estimate, its degrees of freedom, and the part seeds contribute.

    Attributes:
        variance: the estimated variance (per series).
        df: Satterthwaite's degrees of freedom.
        seed: the seed terms included (``sum sigma2_u / k``; 0 with ``seeds="fixed"``).
    """

    variance: FloatArray
    df: FloatArray
    seed: FloatArray

    @property
    def standard_error(self) -> FloatArray:
        return np.sqrt(self.variance)


def satterthwaite(terms: Sequence[tuple[npt.ArrayLike, float]]) -> tuple[FloatArray, FloatArray]:
    """``(sum_i v_i, (sum_i v_i)^2 / sum_i v_i^2 / df_i)`` for terms ``(v_i, df_i)``, ``v_i = c_i MS_i``
    (negative coefficients allowed; terms with ``df_i = 0`` must be 0). Where every term is 0 the
    degrees of freedom are those of the first term.

    Example:
        >>> v, df = satterthwaite([(0.04, 9), (0.0, 4)])
        >>> float(v), float(df)
        (0.04, 9.0)
    """
    values = [np.asarray(v, dtype=float) for v, _ in terms]
    total = sum(values)
    spread = sum(v ** 2 / df for v, (_, df) in zip(values, terms, strict=True) if df > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(spread > 0, total ** 2 / np.where(spread > 0, spread, 1.0), float(terms[0][1]))
    return np.asarray(total, dtype=float), np.asarray(df, dtype=float)


def seed_terms(ms: MeanSquares) -> list[tuple[FloatArray, float]]:
    """The terms of ``sigma2_u / k`` in a mean's variance: ``MS_R / (n k)`` and ``-MS_E / (n k)``,
    both 0 where ``MS_R <= MS_E`` (the estimate truncated at 0) or with one run."""
    scale = ms.n_topics * ms.n_runs
    keep = ms.runs > ms.residual
    return [(np.where(keep, ms.runs, 0.0) / scale, ms.df_runs),
            (-np.where(keep, ms.residual, 0.0) / scale, ms.df_residual)]


def _check_seeds(seeds: str) -> None:
    if seeds not in SEEDS:
        raise ValueError(f"'seeds' must be 'random' or 'fixed', got {seeds!r}")


def mean_variance(ms: MeanSquares, *, seeds: str = "random") -> VarianceEstimate:
    """The variance of a system's mean over topics and runs (see the module docstring).

    Example:
        >>> from pyterrier_boot.seeds.anova import mean_squares
        >>> ms = mean_squares([[0.2, 0.4, 0.6], [0.3, 0.5, 0.7]])
        >>> round(float(mean_variance(ms, seeds="fixed").variance), 6), round(float(mean_variance(ms).variance), 6)
        (0.013333, 0.015833)
    """
    _check_seeds(seeds)
    terms = [(ms.topics / (ms.n_topics * ms.n_runs), float(ms.df_topics))]
    seed = np.zeros_like(terms[0][0])
    if seeds == "random":
        extra = seed_terms(ms)
        terms += extra
        seed = extra[0][0] + extra[1][0]
    variance, df = satterthwaite(terms)
    return VarianceEstimate(variance, df, seed)


def difference_variance(differences: npt.ArrayLike, ms_a: MeanSquares, ms_b: MeanSquares, *,
                        seeds: str = "random") -> VarianceEstimate:
    """The variance of the mean of ``differences[..., topic]`` (system a's run-averaged per-topic
    scores minus system b's), the two systems' runs summarised by ``ms_a`` and ``ms_b``."""
    _check_seeds(seeds)
    d = np.asarray(differences, dtype=float)
    n = d.shape[-1]
    terms = [(d.var(axis=-1, ddof=1) / n if n > 1 else np.full(d.shape[:-1], np.nan), float(n - 1))]
    seed = np.zeros_like(terms[0][0])
    if seeds == "random":
        extra = seed_terms(ms_a) + seed_terms(ms_b)
        terms += extra
        seed = sum(v for v, _ in extra)
    variance, df = satterthwaite(terms)
    return VarianceEstimate(variance, df, np.asarray(seed, dtype=float))
