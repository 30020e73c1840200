"""Stability method: minority rate and proportion of ties over topic samples (Sakai 2007, §7.1).

Buckley & Voorhees' stability method in Sakai's bootstrap version (his Fig. 16): for every pair of
systems ``(X, Y)`` and every bootstrap topic sample ``Q*b``, with ``margin = f · max(M(X, Q*b),
M(Y, Q*b))`` for a fuzziness ``f``, count ``EQ(X, Y)`` when ``|M(X) - M(Y)| < margin``, else
``GT(X, Y)`` when ``M(X) > M(Y)``, else ``GT(Y, X)``. Then (his eq. 9, 10)

* minority rate ``MR = Σ_pairs min(GT(X, Y), GT(Y, X)) / (B · pairs)``: the chance of a wrong
  conclusion about a pair;
* proportion of ties ``PT = Σ_pairs EQ(X, Y) / (B · pairs)``: lack of discriminative power.

Both should be small; tracing them over ``f = 0.01, ..., 0.20`` gives a measure's MR-PT curve
(his Fig. 17-18).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..._deprecation import keyword_only
from ..._memory import DEFAULT_MAX_MEMORY, check_n_resamples, require_resamples_memory
from ..._results import TupleLike
from ...stats.resampling import as_resample_plan, planned_resamples, weighted_sums
from .._inputs import as_measure_scores, pair_indices
from .swap import snap_ties

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pandas as pd
    from matplotlib.axes import Axes

    from ..._typing import RngLike, ScoresLike
    from ...stats.resampling import ResamplePlan


__all__ = ["stability_method", "StabilityResult", "FUZZINESS"]

#: Sakai's fuzziness values f = 0.01, 0.02, ..., 0.20.
FUZZINESS = tuple(np.round(np.arange(1, 21) / 100, 2))
_CELLS = 1 << 21


@dataclass(frozen=True, slots=True)
class StabilityResult(TupleLike):
    """MR and PT per measure and fuzziness; unpacks as ``minority_rate, proportion_ties``.

    Attributes:
        minority_rate: ``(M, F)`` MR per measure and fuzziness value.
        proportion_ties: ``(M, F)`` PT per measure and fuzziness value.
        fuzziness: ``(F,)`` the values of ``f``.
        measures, n_resamples, n_pairs, n_topics: as used.
        plan: the :class:`ResamplePlan` of the topic samples.
    """

    minority_rate: np.ndarray
    proportion_ties: np.ndarray
    fuzziness: np.ndarray
    measures: tuple
    n_resamples: int
    n_pairs: int
    n_topics: int
    plan: Any = None
    _tuple_fields: ClassVar[tuple[str, ...]] = ("minority_rate", "proportion_ties")

    def to_frame(self) -> pd.DataFrame:
        """Long table ``measure, fuzziness, minority_rate, proportion_ties``."""
        import pandas as pd

        M, F = self.minority_rate.shape
        return pd.DataFrame({
            "measure": np.repeat(np.array(self.measures, dtype=object), F),
            "fuzziness": np.tile(self.fuzziness, M),
            "minority_rate": self.minority_rate.ravel(),
            "proportion_ties": self.proportion_ties.ravel(),
        })

    @keyword_only("ax")
    def plot(self, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """MR-PT curves, one per measure (:func:`~pyterrier_boot.meta.plots.plot_mr_pt`)."""
        from ..plots import plot_mr_pt

        return plot_mr_pt(self, ax=ax, **kwargs)

    def _repr_html_(self):
        return self.to_frame()._repr_html_()


def _stability_iv(fuzziness, n_resamples):
    n_resamples = check_n_resamples(n_resamples)
    try:
        f = np.asarray(fuzziness, dtype=float).ravel()
    except (TypeError, ValueError):
        raise TypeError("'fuzziness' must be a number or a sequence of numbers") from None
    if f.size == 0 or not np.all(np.isfinite(f)) or np.any(f < 0) or np.any(f >= 1):
        raise ValueError(f"'fuzziness' values must be in [0, 1), got {fuzziness}")
    return f, n_resamples


def _count_orderings(X, plan, a, b, f, size, minority, ties):
    """Fig. 16's counts for one measure, added into ``minority`` and ``ties`` (one cell per
    fuzziness value), over the pairs ``a, b`` in chunks of ``size`` pairs."""
    n = X.shape[1]
    scale = max(float(np.abs(X).max()), np.finfo(float).tiny)
    means = weighted_sums(plan, X) / n  # (S, B)
    for start in range(0, len(a), size):
        sl = slice(start, min(start + size, len(a)))
        x, y = means[a[sl]], means[b[sl]]
        diff = snap_ties(x - y, scale)
        gap = np.abs(diff)
        top = np.maximum(x, y)
        x_wins = diff > 0
        for i, fz in enumerate(f):
            eq = gap < fz * top - 1e-9 * scale  # a gap equal to the margin is not a tie
            gt_xy = (~eq & x_wins).sum(axis=1)
            gt_yx = (~eq & ~x_wins).sum(axis=1)
            minority[i] += np.minimum(gt_xy, gt_yx).sum()
            ties[i] += eq.sum()


def stability_method(scores_by_measure: Mapping[str, ScoresLike] | ScoresLike, *,
                     fuzziness: Sequence[float] | float = FUZZINESS, n_resamples: int = 1000,
                     rng: RngLike = None, plan: ResamplePlan | None = None,
                     max_memory: int | str | None = DEFAULT_MAX_MEMORY) -> StabilityResult:
    """Sakai's bootstrap stability method (Fig. 16): MR and PT for each fuzziness value.

    Args:
        scores_by_measure: per-topic scores of at least 3 systems (as
            :func:`discriminative_power`).
        fuzziness: values of ``f`` (default Sakai's 0.01, ..., 0.20).
        n_resamples: topic samples ``B``.
        rng: seed or Generator (SPEC 7).
        plan: a :class:`~pyterrier_boot.ResamplePlan` to use as the topic samples, e.g. the
            ``plan`` of :func:`discriminative_power` or the first of :func:`swap_method`'s plans.
        max_memory: bytes the resampling may hold (default 1 GiB); more is a ValueError stating the
            estimate (see :func:`~pyterrier_boot.bootstrap_ci`).

    Returns:
        StabilityResult (``to_frame()``, ``plot()`` draws the MR-PT curves).

    The counting follows Fig. 16 literally: ``|M(X) - M(Y)| < margin`` is a tie, so with
    ``f = 0`` (or two systems scoring 0 on a sample) nothing is a tie and equal scores count as
    ``GT(Y, X)``. Means (and a gap and its margin) equal up to rounding (``1e-9`` times the largest
    score) are equal.

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> topic = rng.beta(2, 5, 40)
        >>> ap = np.clip(topic + np.linspace(0, 0.15, 8)[:, None] + rng.normal(0, 0.08, (8, 40)), 0, 1)
        >>> res = stability_method({"AP": ap}, fuzziness=[0.05, 0.1], rng=1)
        >>> res.to_frame().round(4)
          measure  fuzziness  minority_rate  proportion_ties
        0      AP       0.05         0.0165           0.1150
        1      AP       0.10         0.0023           0.2551

    References:
        Sakai, T. (2007), §7.1, Fig. 16, eq. (9)-(10); Buckley, C. & Voorhees, E. M. (2000).
        Evaluating evaluation measure stability. SIGIR.
    """
    f, n_resamples = _stability_iv(fuzziness, n_resamples)
    data = as_measure_scores(scores_by_measure)
    values = data.values
    M, S, n = values.shape
    B = planned_resamples(plan, n_resamples)
    max_memory = require_resamples_memory(B, max_memory, what=f"the stability method on {S:,} systems x {n:,} topics",
                                          plan_topics=n if plan is None else 0, floats=2 * S + 4 * min(S * (S - 1) // 2, max(1, _CELLS // B)))
    used = as_resample_plan(plan, n, n_resamples, rng, max_memory)
    B = used.n_resamples
    a, b = pair_indices(S)
    P = len(a)
    minority = np.zeros((M, len(f)))
    ties = np.zeros((M, len(f)))
    for m in range(M):
        _count_orderings(values[m], used, a, b, f, max(1, _CELLS // B), minority[m], ties[m])
    minority /= B * P
    ties /= B * P
    return StabilityResult(minority, ties, f, data.measures, B, P, n, used)
