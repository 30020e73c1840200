"""The variance components of each system's runs, and the share the seeds make of a figure's variance.

For each system and measure: the seed variance ``sigma2_u`` (how much a run's mean moves from seed
to seed, exactly 0 for identical runs), the topic x seed variance ``sigma2_e`` and the topic
variance ``sigma2_t`` (:mod:`.anova`); the variance of the mean with ``seeds="fixed"`` and with
``seeds="random"`` (:mod:`.variance`) and the seed share ``(sigma2_u / k) / Var_random``. Against a
baseline, the same for the paired difference: the share of its variance that the two systems'
seeds make up. A share near 1 says more seeds (runs) narrow the interval; near 0, more topics.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .intervals import difference_variances
from .variance import mean_variance

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .scores import RunScores

__all__ = ["variance_components"]


def variance_components(scores: RunScores, measures: Sequence[str], *, baseline: int | None = None) -> pd.DataFrame:
    """One row per measure and system (see the module docstring for the columns).

    Example:
        >>> from pyterrier_boot.seeds.scores import RunScores
        >>> x = np.array([[[0.2], [0.4], [0.6]], [[0.3], [0.5], [0.7]], [[0.2], [0.4], [0.6]]])
        >>> scores = RunScores.from_groups(x, [[0, 1], [2]], ("a1", "a2", "b"), ("A", "B"))
        >>> variance_components(scores, ["AP"])[["name", "runs", "seed variance"]].round(4)
          name  runs  seed variance
        0    A     2          0.005
        1    B     1          0.000
    """
    averaged = scores.averaged()
    rows = []
    for s, ms in enumerate(scores.mean_squares()):
        fixed, random = mean_variance(ms, seeds="fixed"), mean_variance(ms, seeds="random")
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(random.variance > 0, random.seed / random.variance, 0.0)
        for j, m in enumerate(measures):
            rows.append({"measure": m, "name": scores.names[s], "runs": ms.n_runs, "topics": ms.n_topics,
                         "mean": averaged[s, :, j].mean(), "seed variance": ms.seed_variance[j],
                         "topic-by-seed variance": ms.interaction_variance[j], "topic variance": ms.topic_variance[j],
                         "variance (seeds fixed)": fixed.variance[j], "variance (seeds random)": random.variance[j],
                         "seed share": share[j]})
    frame = pd.DataFrame(rows)
    if baseline is not None:
        frame = _with_differences(frame, scores, measures, baseline)
    return frame.sort_values(["measure"], kind="stable").reset_index(drop=True)


def _with_differences(frame: pd.DataFrame, scores: RunScores, measures: Sequence[str], baseline: int) -> pd.DataFrame:
    """``frame`` with each system's difference from ``baseline``, its variances and seed share."""
    others = [s for s in range(len(scores.names)) if s != baseline]
    b = [baseline] * len(others)
    estimates, random = difference_variances(scores, others, b, seeds="random")
    _, fixed = difference_variances(scores, others, b, seeds="fixed")
    columns = {"baseline": scores.names[baseline], "difference": np.nan, "difference variance (seeds fixed)": np.nan,
               "difference variance (seeds random)": np.nan, "seed share of difference": np.nan}
    frame = frame.assign(**columns)
    for p, s in enumerate(others):
        for j, m in enumerate(measures):
            row = (frame["name"] == scores.names[s]) & (frame["measure"] == m)
            v = random[p].variance[j]
            frame.loc[row, ["difference", "difference variance (seeds fixed)", "difference variance (seeds random)",
                            "seed share of difference"]] = [estimates[p, j], fixed[p].variance[j], v,
                                                            random[p].seed[j] / v if v > 0 else 0.0]
    return frame
