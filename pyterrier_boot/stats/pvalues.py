"""p-values of the rank tests for many rows of paired differences at once.

``scipy.stats.wilcoxon`` is vectorised over an axis, but with ``method="auto"`` it chooses the
exact or the normal-approximation p-value once for the whole array (the normal approximation as soon
as any row has a zero or a tie), so a row's p-value depends on the other rows. :func:`wilcoxon_pvalues`
gives every row the p-value scipy gives that row alone: rows are grouped by the method scipy would
choose for them and each group is one vectorised scipy call. :func:`sign_pvalues` is the sign test
(``scipy.stats.binomtest(wins, wins + losses, 0.5)``) in closed form: the two-sided p-value of a
fair coin is twice the smaller tail, 1 at the centre.

Both serve the single-pair tests (:func:`~pyterrier_boot.wilcoxon_test`, :func:`~pyterrier_boot.sign_test`)
and the simulations of :mod:`pyterrier_boot.audit`, where thousands of rows are tested at once.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray

__all__ = ["wilcoxon_pvalues", "sign_pvalues"]

#: scipy's ``method="auto"``: exact null distribution up to this many topics (without zeros or ties)
EXACT_MAX = 50
#: ... and, with zeros or ties, all sign flips enumerated up to this many
ENUMERATED_MAX = 13


def _scipy_method(D: FloatArray) -> npt.NDArray[np.str_]:
    """The method scipy's ``wilcoxon(d, method="auto")`` picks for each row ``d`` of ``D``."""
    n = D.shape[1]
    if n > EXACT_MAX:
        return np.full(D.shape[0], "asymptotic")
    magnitudes = np.sort(np.abs(D), axis=1)
    zeros = magnitudes[:, 0] == 0
    ties = (np.diff(magnitudes, axis=1) == 0).any(axis=1)
    exact = ~(zeros | ties)
    fallback = "enumerated" if n <= ENUMERATED_MAX else "asymptotic"
    return np.where(exact, "exact", fallback)


def wilcoxon_pvalues(D: FloatArray, *, alternative: str = "two-sided", zero_method: str = "wilcox",
                     correction: bool = False, method: str = "auto") -> tuple[FloatArray, FloatArray]:
    """``(statistic, pvalue)`` of ``scipy.stats.wilcoxon(d, ...)`` for every row ``d`` of ``D``.

    Each row gets exactly what scipy returns for it alone (same options). Rows whose differences are
    all 0 get ``statistic = nan, pvalue = 1`` (the package's convention for an undefined test).

    Example:
        >>> D = np.array([[0.1, 0.2, 0.3, -0.05, 0.4], [0.1, 0.1, 0.2, -0.1, 0.3]])
        >>> s, p = wilcoxon_pvalues(D)
        >>> bool(p[0] == stats.wilcoxon(D[0]).pvalue), bool(p[1] == stats.wilcoxon(D[1]).pvalue)
        (True, True)
    """
    D = np.asarray(D, dtype=float)
    statistic = np.full(D.shape[0], np.nan)
    pvalue = np.ones(D.shape[0])
    testable = (D != 0).any(axis=1)
    chosen = _scipy_method(D) if method == "auto" else np.full(D.shape[0], method)
    options = dict(zero_method=zero_method, correction=correction, alternative=alternative)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's notes on zeros, ties and small samples
        for name in np.unique(chosen[testable]):
            rows = np.flatnonzero(testable & (chosen == name))
            if name == "enumerated":  # scipy's permutation route (n <= 13): one row at a time
                for i in rows:
                    res = stats.wilcoxon(D[i], **options)
                    statistic[i], pvalue[i] = res.statistic, res.pvalue
                continue
            res = stats.wilcoxon(D[rows], axis=1, method=str(name), **options)
            statistic[rows], pvalue[rows] = res.statistic, res.pvalue
    return statistic, pvalue


def sign_pvalues(wins: npt.ArrayLike, losses: npt.ArrayLike, alternative: str = "two-sided") -> FloatArray:
    """p-values of the sign test: ``binomtest(wins, wins + losses, 0.5)`` elementwise.

    ``"greater"`` is ``P(W >= wins)``, ``"less"`` ``P(W <= wins)``, two-sided twice the smaller of the
    two tails of ``min(wins, losses)``, capped at 1 (the outcomes no likelier than the observed one, as
    scipy sums them, for a fair coin). No non-tied topic (``wins + losses = 0``) gives 1.

    Example:
        >>> sign_pvalues([9, 5], [1, 5]).round(6).tolist()
        [0.021484, 1.0]
    """
    k = np.asarray(wins, dtype=float)
    m = k + np.asarray(losses, dtype=float)
    if alternative == "greater":
        p = stats.binom.sf(k - 1, m, 0.5)
    elif alternative == "less":
        p = stats.binom.cdf(k, m, 0.5)
    else:
        p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(k, m - k), m, 0.5))
    return np.where(m > 0, p, 1.0)
