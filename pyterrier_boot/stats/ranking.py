"""Rank intervals: how a system's position in the ranking of systems varies across bootstrap
replicates (Zobel & Rashidi 2020, Fig. 5), for corpus images and topic resamples alike."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from scipy import stats

from .._checks import check_confidence_level
from .._results import ConfidenceInterval, TupleLike

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from .._typing import MeasuresLike


__all__ = ["rank_intervals", "RankIntervals"]


def rank_intervals(statistic: npt.ArrayLike, distribution: npt.ArrayLike, *, systems: Sequence[str],
                   measures: MeasuresLike, confidence_level: float = 0.95,
                   statistic_name: str = "mean") -> RankIntervals:
    """Ranks of systems (1 = best) on the collection and on every replicate, with a rank interval.

    Args:
        statistic: each system's aggregate (e.g. MAP) on the collection, ``[system, measure]``.
        distribution: the same on each bootstrap replicate, ``[replicate, system, measure]``.
        systems, measures: labels.
        confidence_level: of the rank interval.
        statistic_name: what was aggregated (for display).

    Ties share the average rank (``scipy.stats.rankdata(method="average")``). The rank interval
    is the ``α/2`` quantile (rounded down to an observed rank) to the ``1 - α/2`` quantile
    (rounded up) of the replicate ranks, so it holds at least ``1 - α`` of the replicates.

    Example:
        >>> import numpy as np
        >>> theta = np.array([[0.30], [0.25], [0.10]])
        >>> dist = theta[None] + np.random.default_rng(0).normal(0, 0.03, (200, 3, 1))
        >>> r = rank_intervals(theta, dist, systems=("a", "b", "c"), measures=("AP",))
        >>> r.statistic[:, 0].tolist()
        [1.0, 2.0, 3.0]
    """
    confidence_level = check_confidence_level(confidence_level)
    full = stats.rankdata(-np.asarray(statistic), axis=0, method="average")
    ranks = stats.rankdata(-np.asarray(distribution), axis=1, method="average")
    alpha = 1 - confidence_level
    low = np.quantile(ranks, alpha / 2, axis=0, method="lower")
    high = np.quantile(ranks, 1 - alpha / 2, axis=0, method="higher")
    return RankIntervals(
        statistic=full,
        bootstrap_distribution=ranks,
        confidence_interval=ConfidenceInterval(low, high),
        systems=tuple(systems),
        measures=tuple(measures),
        statistic_name=statistic_name,
        confidence_level=confidence_level,
    )


@dataclass(frozen=True, slots=True, eq=False)
class RankIntervals(TupleLike):
    """Each system's rank (1 = best) on the collection and on every bootstrap replicate.

    Unpacks as ``statistic, confidence_interval``.

    Attributes:
        statistic: ranks on the collection ``[system, measure]``.
        bootstrap_distribution: ranks on each replicate (corpus image or topic resample) ``[replicate, system, measure]``.
        confidence_interval: rank interval per ``[system, measure]``.
        systems, measures, statistic_name, confidence_level.
    """

    statistic: Any
    bootstrap_distribution: Any
    confidence_interval: ConfidenceInterval
    systems: tuple
    measures: tuple
    statistic_name: str
    confidence_level: float
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "confidence_interval")

    def to_frame(self) -> pd.DataFrame:
        """One row per (measure, system), by measure then full-corpus rank: ``name, measure, rank,
        mean_rank, min, q1, median, q3, max, ci_low, ci_high, p_first`` (Fig. 5's boxes are
        q1..q3; ``p_first``: share of replicates where the system ranks first)."""
        d = self.bootstrap_distribution
        S, M = self.statistic.shape
        q1, median, q3 = np.quantile(d, [0.25, 0.5, 0.75], axis=0)
        frame = pd.DataFrame({
            "name": np.repeat(np.array(self.systems, dtype=object)[None, :], M, axis=0).reshape(-1),
            "measure": np.repeat(np.array(self.measures, dtype=object), S),
            "rank": self.statistic.T.reshape(-1),
            "mean_rank": d.mean(axis=0).T.reshape(-1),
            "min": d.min(axis=0).T.reshape(-1),
            "q1": q1.T.reshape(-1),
            "median": median.T.reshape(-1),
            "q3": q3.T.reshape(-1),
            "max": d.max(axis=0).T.reshape(-1),
            "ci_low": np.asarray(self.confidence_interval.low).T.reshape(-1),
            "ci_high": np.asarray(self.confidence_interval.high).T.reshape(-1),
            "p_first": (d == 1).mean(axis=0).T.reshape(-1),
        })
        order = {m: i for i, m in enumerate(self.measures)}
        frame = frame.sort_values(["measure", "rank"], key=lambda c: c.map(order) if c.name == "measure" else c,
                                  kind="stable")
        return frame.reset_index(drop=True)

    def frequencies(self) -> pd.DataFrame:
        """Share of replicates giving each rank: ``name, measure, rank, share`` (ranks observed only)."""
        rows = []
        for m, label in enumerate(self.measures):
            for s, name in enumerate(self.systems):
                values, counts = np.unique(self.bootstrap_distribution[:, s, m], return_counts=True)
                rows += [(name, label, v, c / self.bootstrap_distribution.shape[0]) for v, c in zip(values, counts)]
        return pd.DataFrame(rows, columns=["name", "measure", "rank", "share"])

    def _repr_html_(self):
        return self.to_frame()._repr_html_()

    def __repr__(self):
        return f"RankIntervals({len(self.systems)} systems, measures {list(self.measures)}, statistic={self.statistic_name!r})"
