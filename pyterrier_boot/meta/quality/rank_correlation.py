"""How similarly two measures rank the systems: Kendall's tau with Sakai's Z0 test, and tau_AP.

* :func:`kendall_tau`: Kendall's rank correlation of the system scores under two measures
  (tau-b, equal to tau-a when nothing is tied, as :func:`scipy.stats.kendalltau`), with the normal
  test Sakai (2007, Appendix, eq. 11) uses: ``Z0 = |tau| / sqrt((4 n + 10) / (9 n (n - 1)))`` for
  ``n`` systems.
* :func:`tau_ap`: Yilmaz, Aslam & Robertson's (2008) AP rank correlation, which weighs swaps near
  the top of the ranking more; asymmetric (a reference ranking and an evaluated one). With
  ``symmetric=True`` it is Urbano & Marrero's (2017) tau_AP_b, the mean of both directions, which
  also handles ties.
* :func:`rank_correlations`: both for every pair of measures (Sakai's Table 5).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from scipy import stats

from ..._checks import ALTERNATIVES, check_choice, describe, is_pandas
from ..._results import TupleLike
from ..._scores import oriented
from .._inputs import MIN_SYSTEMS, as_measure_scores

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy.typing as npt
    import pandas as pd

    from ..._typing import ScoresLike


__all__ = ["kendall_tau", "KendallTauResult", "tau_ap", "rank_correlations"]


@dataclass(frozen=True, slots=True)
class KendallTauResult(TupleLike):
    """Kendall's tau with Sakai's Z0 test; unpacks as ``statistic, pvalue``.

    Attributes:
        statistic: Kendall's tau-b (tau-a when there are no ties).
        pvalue: p-value of the normal test of ``tau = 0`` for ``alternative``.
        z0: Sakai's ``Z0 = |tau| / sqrt((4n + 10) / (9n(n - 1)))``.
        n_systems: number of systems ranked.
        alternative: as used (``"greater"``: positive correlation).
    """

    statistic: float
    pvalue: float
    z0: float
    n_systems: int
    alternative: str
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")


def _system_scores(x, y):
    """Two aligned 1-D float arrays of system scores (2-D inputs are averaged over topics)."""
    arrays = []
    for value, name in ((x, "x"), (y, "y")):
        if is_pandas(value, "DataFrame"):  # one row per topic, one column per system (the one reader's rule)
            value = oriented(value, name).mean(axis=1)
        if not is_pandas(value, "Series"):
            try:
                arr = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                raise TypeError(f"{name!r} must hold numeric system scores") from None
            if arr.ndim == 2:
                arr = arr.mean(axis=1)
            if arr.ndim != 1:
                raise ValueError(f"{name!r} must be one score per system (1-D) or a systems x topics "
                                 f"matrix, got shape {arr.shape}")
            value = arr
        arrays.append(value)
    xs, ys = arrays
    if is_pandas(xs, "Series") and is_pandas(ys, "Series"):
        if set(xs.index) != set(ys.index):
            only_x = [s for s in xs.index if s not in set(ys.index)]
            only_y = [s for s in ys.index if s not in set(xs.index)]
            raise ValueError(f"'x' and 'y' rank different systems: {len(only_x)} only in 'x' "
                             f"{describe(only_x)}, {len(only_y)} only in 'y' {describe(only_y)}")
        ys = ys.reindex(xs.index)
    xa = np.asarray(xs, dtype=float)
    ya = np.asarray(ys, dtype=float)
    if xa.shape != ya.shape:
        raise ValueError(f"'x' and 'y' must score the same systems, got {xa.size} and {ya.size} scores")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("'x' and 'y' must hold finite scores")
    if xa.size < MIN_SYSTEMS:
        raise ValueError(f"a rank correlation needs at least {MIN_SYSTEMS} systems, got {xa.size}")
    return xa, ya


def _tau_b(x, y):
    i, j = np.triu_indices(len(x), k=1)
    sx = np.sign(x[i] - x[j])
    sy = np.sign(y[i] - y[j])
    n0 = len(i)
    denominator = np.sqrt(float(n0 - np.count_nonzero(sx == 0)) * float(n0 - np.count_nonzero(sy == 0)))
    if denominator == 0:
        return np.nan
    return float((sx * sy).sum() / denominator)


def kendall_tau(x: npt.ArrayLike, y: npt.ArrayLike, *, alternative: str = "two-sided") -> KendallTauResult:
    """Kendall's tau between two system rankings, with Sakai's Z0 test.

    Args:
        x, y: the systems' scores under two measures: 1-D arrays (paired by position), Series
            (paired by system label), systems x topics arrays or DataFrames with one row per topic and
            one column per system (averaged over topics first).
        alternative: ``"two-sided"`` (Sakai's), ``"greater"`` (positive correlation) or ``"less"``.

    Returns:
        KendallTauResult. ``statistic`` is tau-b (``(concordant - discordant)`` over the geometric
        mean of untied pairs per ranking), which is tau-a without ties. The test treats
        ``tau / sqrt((4n + 10) / (9n(n - 1)))`` as standard normal (exact null variance of tau-a
        without ties; with ties it is an approximation). Two constant rankings give NaN.

    Example:
        >>> res = kendall_tau([0.31, 0.25, 0.40, 0.22, 0.28], [0.55, 0.49, 0.61, 0.47, 0.45])
        >>> round(res.statistic, 3), round(res.z0, 3), round(res.pvalue, 4)
        (0.6, 1.47, 0.1416)

    References:
        Sakai, T. (2007), Appendix, eq. (11); Kendall, M. G. (1938). A new measure of rank
        correlation. Biometrika 30.
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    xa, ya = _system_scores(x, y)
    n = xa.size
    tau = _tau_b(xa, ya)
    sigma = np.sqrt((4 * n + 10) / (9 * n * (n - 1)))
    z = tau / sigma
    if alternative == "two-sided":
        p = 2 * stats.norm.sf(abs(z))
    elif alternative == "greater":
        p = stats.norm.sf(z)
    else:
        p = stats.norm.cdf(z)
    return KendallTauResult(tau, float(min(p, 1.0)), float(abs(z)), n, alternative)


def _tau_ap_directed(reference, ranked):
    """Mean over items below the top of ``ranked`` of the share of items strictly above them in
    ``ranked`` that are strictly above them in ``reference``, mapped to [-1, 1] (Urbano &
    Marrero's asymmetric tau_AP_b; Yilmaz et al.'s tau_AP when nothing is tied)."""
    above = ranked[None, :] > ranked[:, None]       # above[i, j]: j ranked above i
    agree = above & (reference[None, :] > reference[:, None])
    n_above = above.sum(axis=1)
    mask = n_above > 0
    if not mask.any():
        return np.nan
    return float(2 * np.mean(agree.sum(axis=1)[mask] / n_above[mask]) - 1)


def _tied_groups(values):
    uniq, counts = np.unique(values, return_counts=True)
    return uniq[counts > 1]


def tau_ap(x: npt.ArrayLike, y: npt.ArrayLike, *, symmetric: bool = False) -> float:
    """AP rank correlation of the ranking by ``y`` against the reference ranking by ``x``.

    ``tau_AP = 2 / (n - 1) · Σ_{i=2..n} C(i) / (i - 1) - 1``, where ``i`` runs over positions of
    the ranking by ``y`` (descending scores) and ``C(i)`` counts the items above position ``i``
    that ``x`` also ranks above that item (Yilmaz, Aslam & Robertson 2008). Errors near the top
    cost more than errors at the bottom; ``tau_ap(x, y) != tau_ap(y, x)`` in general.

    Args:
        x: reference ("true") scores per system; y: scores whose ranking is evaluated. 1-D
            arrays, Series (aligned by label), systems x topics arrays or DataFrames with one row per
            topic and one column per system (averaged over topics).
        symmetric: False for Yilmaz et al.'s asymmetric coefficient (ties are an error: it is
            undefined for them); True for Urbano & Marrero's tau_AP_b, the mean of both
            directions, where an item's tied neighbours are neither above nor below it (use it to
            compare two measures, neither of which is the truth).

    Example:
        >>> round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)   # swap at the bottom
        0.7778
        >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4)   # swap at the top
        0.3333

    References:
        Yilmaz, E., Aslam, J. A. & Robertson, S. (2008). A new rank correlation coefficient for
        information retrieval. SIGIR. Urbano, J. & Marrero, M. (2017). The treatment of ties in
        AP correlation. ICTIR.
    """
    xa, ya = _system_scores(x, y)
    if symmetric:
        return (_tau_ap_directed(xa, ya) + _tau_ap_directed(ya, xa)) / 2
    for arr, name in ((xa, "x"), (ya, "y")):
        tied = _tied_groups(arr)
        if len(tied):
            raise ValueError(
                f"tau_AP (Yilmaz et al. 2008) is undefined for tied scores, and {name!r} has "
                f"{len(tied)} tied value(s) {describe([float(t) for t in tied])}; pass "
                "symmetric=True for Urbano & Marrero's tau_AP_b, which handles ties"
            )
    return _tau_ap_directed(xa, ya)


def rank_correlations(scores_by_measure: Mapping[str, ScoresLike] | ScoresLike) -> pd.DataFrame:
    """Kendall's tau (with Sakai's Z0 test) and symmetric tau_AP for every pair of measures.

    Systems are ranked by their mean score over topics (Sakai's Table 5).

    Args:
        scores_by_measure: per-topic scores of at least 3 systems (as
            :func:`~pyterrier_boot.meta.quality.discriminative_power.discriminative_power`).

    Returns:
        pandas.DataFrame with columns ``measure_a, measure_b, tau, z0, p-value, tau_ap``, one row
        per pair of measures in input order.

    Example:
        >>> import numpy as np
        >>> ap = np.array([[0.2, 0.3, 0.4], [0.3, 0.3, 0.5], [0.1, 0.2, 0.2], [0.4, 0.5, 0.6]])
        >>> p10 = np.array([[0.3, 0.4, 0.5], [0.3, 0.5, 0.5], [0.2, 0.2, 0.3], [0.5, 0.5, 0.6]])
        >>> rank_correlations({"AP": ap, "P@10": p10})[["measure_a", "measure_b", "tau", "tau_ap"]]
          measure_a measure_b  tau  tau_ap
        0        AP      P@10  1.0     1.0
    """
    import pandas as pd

    data = as_measure_scores(scores_by_measure)
    means = data.values.mean(axis=2)
    rows = []
    M = len(data.measures)
    for i in range(M):
        for j in range(i + 1, M):
            res = kendall_tau(means[i], means[j])
            rows.append({
                "measure_a": data.measures[i], "measure_b": data.measures[j], "tau": res.statistic,
                "z0": res.z0, "p-value": res.pvalue, "tau_ap": tau_ap(means[i], means[j], symmetric=True),
            })
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "tau", "z0", "p-value", "tau_ap"])
