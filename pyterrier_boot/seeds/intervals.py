"""Intervals and tests of system means and of paired differences with seed variance.

``seeds="random"``: the runs are a sample of what the training recipe produces; the question is
"is the recipe better, for a new seed?", so each interval and test carries both systems' seed
variance and the topic x seed interaction (:mod:`.variance`). ``seeds="fixed"``: these runs as
they are (their average), the t interval and paired t-test on run-averaged scores. Each is a t
interval with Satterthwaite's degrees of freedom and the test it inverts (:mod:`.inference`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .inference import TInference, t_inference
from .variance import VarianceEstimate, difference_variance, mean_variance

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from .._typing import FloatArray
    from .scores import RunScores

__all__ = ["mean_inference", "difference_inference", "standard_errors"]


def _stack(parts: list[TInference]) -> TInference:
    return TInference(*(np.stack([getattr(p, f) for p in parts]) for f in TInference.__dataclass_fields__))


def mean_inference(scores: RunScores, *, seeds: str = "random", alpha: float = 0.05) -> TInference:
    """``[system, measure]`` each system's mean over topics and runs with its t interval at ``1 - alpha``.

    Example:
        >>> from pyterrier_boot.seeds.scores import RunScores
        >>> x = np.array([[[0.2], [0.4], [0.6]], [[0.3], [0.5], [0.7]]])  # 2 runs x 3 topics x 1 measure
        >>> res = mean_inference(RunScores.from_groups(x, [[0, 1]], ("a", "b"), ("A",)))
        >>> round(float(res.estimate[0, 0]), 3), round(float(res.df[0, 0]), 2)
        (0.45, 2.64)
    """
    parts = []
    averaged = scores.averaged()
    for s, ms in enumerate(scores.mean_squares()):
        variance = mean_variance(ms, seeds=seeds)
        parts.append(t_inference(averaged[s].mean(axis=0), variance, alpha=alpha, difference=False))
    return _stack(parts)


def difference_variances(scores: RunScores, a: npt.ArrayLike, b: npt.ArrayLike, *,
                         seeds: str = "random") -> tuple[np.ndarray, list[VarianceEstimate]]:
    """``(estimates [pair, measure], variances per pair)`` of the mean differences ``a[p] - b[p]``."""
    averaged = scores.averaged()
    squares = scores.mean_squares()
    estimates, variances = [], []
    for i, j in zip(np.asarray(a, dtype=int), np.asarray(b, dtype=int), strict=True):
        d = (averaged[i] - averaged[j]).T  # [measure, topic]
        estimates.append(d.mean(axis=1))
        variances.append(difference_variance(d, squares[i], squares[j], seeds=seeds))
    return np.array(estimates).reshape(len(estimates), averaged.shape[2]), variances


def difference_inference(scores: RunScores, a: npt.ArrayLike, b: npt.ArrayLike, *, seeds: str = "random",
                         alpha: float = 0.05) -> TInference:
    """``[pair, measure]`` the mean difference ``system a[p] - system b[p]``, its t test and the
    ``1 - alpha`` interval that test inverts."""
    estimates, variances = difference_variances(scores, a, b, seeds=seeds)
    parts = [t_inference(e, v, alpha=alpha) for e, v in zip(estimates, variances, strict=True)]
    if not parts:
        empty = np.zeros((0, scores.values.shape[2]))
        return TInference(*(empty,) * len(TInference.__dataclass_fields__))
    return _stack(parts)


def standard_errors(scores: RunScores, rows: Sequence[int], base: int | None, measure: int, *,
                    seeds: str = "random") -> tuple[FloatArray, FloatArray]:
    """``(se, df)`` of each system in ``rows``: its mean over topics and runs (``base`` None) or its
    difference from system ``base``, on measure index ``measure`` (Satterthwaite's ``df``). With
    ``seeds="random"`` a system with identical runs has the standard error of one run.

    Example:
        >>> from pyterrier_boot.seeds.scores import RunScores
        >>> x = np.array([[[0.2], [0.4], [0.6]], [[0.3], [0.5], [0.7]]])  # 2 runs x 3 topics x 1 measure
        >>> se, df = standard_errors(RunScores.from_groups(x, [[0, 1]], ("a", "b"), ("A",)), [0], None, 0)
        >>> round(float(se[0] ** 2), 6), round(float(df[0]), 2)
        (0.015833, 2.64)
    """
    if base is None:
        squares = scores.mean_squares()
        variances = [mean_variance(squares[s], seeds=seeds) for s in rows]
    else:
        _, variances = difference_variances(scores, rows, [base] * len(rows), seeds=seeds)
    se = np.array([np.sqrt(v.variance[measure]) for v in variances], dtype=float)
    return se, np.array([v.df[measure] for v in variances], dtype=float)
