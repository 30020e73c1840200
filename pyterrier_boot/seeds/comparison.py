"""A comparison table (one row per pair and measure, measure-major) told with seed variance.

The tables of ``compare``, ``Experiment``'s baseline comparisons and ``ExperimentResult.pairwise``
are built on the run-averaged scores; under ``seeds="random"`` each row's p-value, statistic and
interval are replaced by the t test with seed variance and the interval it inverts
(:func:`~pyterrier_boot.seeds.intervals.difference_inference`), and a ``df`` column gives its
Satterthwaite degrees of freedom: verdict and interval from the same numbers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .intervals import difference_inference

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas as pd

    from .._typing import FloatArray
    from .scores import RunScores

__all__ = ["with_seed_tests"]


def with_seed_tests(frame: pd.DataFrame, scores: RunScores, a: npt.ArrayLike, b: npt.ArrayLike, *,
                    alpha: float) -> tuple[pd.DataFrame, FloatArray]:
    """``(frame, intervals [pair, measure, 2])``: ``frame``'s ``p-value``, ``ci_low``, ``ci_high``
    (and ``statistic`` where it has one) replaced by the seed-variance t test of ``a[p] - b[p]``
    at interval level ``1 - alpha``, with its degrees of freedom in ``df``."""
    res = difference_inference(scores, a, b, seeds="random", alpha=alpha)
    frame = frame.copy()
    frame["p-value"] = res.pvalue.T.reshape(-1)  # frame rows: measure-major
    frame["ci_low"] = res.low.T.reshape(-1)
    frame["ci_high"] = res.high.T.reshape(-1)
    if "statistic" in frame:
        frame["statistic"] = res.statistic.T.reshape(-1)
    frame["df"] = res.df.T.reshape(-1)
    return frame, np.stack([res.low, res.high], axis=-1)
