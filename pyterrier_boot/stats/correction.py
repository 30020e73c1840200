"""Multiple-testing corrections of p-values (statsmodels ``multipletests``).

When many system pairs are tested, a family-wise (Bonferroni, Holm, ...) or false-discovery-rate
(Benjamini-Hochberg, ...) correction keeps the error rate of the whole family at ``alpha``.
:func:`~pyterrier_boot.compare` corrects per measure by default (pt_docs/methods.md, "Many systems").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._checks import check_alpha, check_choice
from .._results import TupleLike

if TYPE_CHECKING:
    import numpy.typing as npt


# statsmodels' names, the ones pt.Experiment(correction=...) also accepts
METHODS = (
    "bonferroni",
    "sidak",
    "holm",
    "holm-sidak",
    "simes-hochberg",
    "hommel",
    "fdr_bh",
    "fdr_by",
    "fdr_tsbh",
    "fdr_tsbky",
)

# statsmodels' other spellings (pt.Experiment passes them through), by the name above
ALIASES = {"b": "bonferroni", "bonf": "bonferroni", "s": "sidak", "hs": "holm-sidak", "h": "holm",
           "sh": "simes-hochberg", "ho": "hommel", "fdr_i": "fdr_bh", "fdr_p": "fdr_bh", "fdri": "fdr_bh",
           "fdrp": "fdr_bh", "fdr_n": "fdr_by", "fdr_c": "fdr_by", "fdrn": "fdr_by", "fdrcorr": "fdr_by",
           "fdr_2sbky": "fdr_tsbky", "fdr_twostage": "fdr_tsbky", "fdr_2sbh": "fdr_tsbh"}


def canonical(method: str) -> str | None:
    """A statsmodels correction name in the spelling of :data:`METHODS`, or None if it has none there."""
    if not isinstance(method, str):
        return None
    name = method.lower()
    name = ALIASES.get(name, name)
    return name if name in METHODS else None


__all__ = ["correct_pvalues", "correct_pvalue_rows", "CorrectionResult", "METHODS", "ROW_METHODS", "canonical",
           "multiple_tests"]


@dataclass(frozen=True, slots=True)
class CorrectionResult(TupleLike):
    """Corrected p-values; unpacks as ``reject, pvalues`` (statsmodels' first two outputs).

    Attributes:
        reject: bool array, True where the corrected p-value is below ``alpha``.
        pvalues: corrected p-values (NaN where the input was NaN).
        method, alpha: the options used.
    """

    reject: Any
    pvalues: Any
    method: str
    alpha: float
    _tuple_fields: ClassVar[tuple[str, ...]] = ("reject", "pvalues")


def _correct_pvalues_iv(pvalues, method, alpha):
    check_choice(method, "method", METHODS)
    alpha = check_alpha(alpha)
    try:
        p = np.asarray(pvalues, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("'pvalues' must be numbers") from None
    if p.ndim != 1:
        raise ValueError(f"'pvalues' must be one-dimensional, got shape {p.shape}")
    finite = p[~np.isnan(p)]
    if np.any((finite < 0) | (finite > 1)):
        raise ValueError("'pvalues' must lie in [0, 1]")
    return p, alpha


def correct_pvalues(pvalues: npt.ArrayLike, *, method: str = "holm", alpha: float = 0.05) -> CorrectionResult:
    """Correct a family of p-values for multiple testing.

    A thin wrapper of ``statsmodels.stats.multitest.multipletests``: same method names, same
    numbers (:func:`multiple_tests`). NaN p-values (untestable pairs) are left out of the family
    and stay NaN.

    Args:
        pvalues: 1-D array of p-values, one per hypothesis of the family.
        method: one of ``METHODS`` (statsmodels' names).
        alpha: family-wise error rate or false discovery rate.

    Returns:
        CorrectionResult

    Example:
        >>> reject, p = correct_pvalues([0.01, 0.04, 0.03], method="holm")
        >>> p.round(2).tolist(), reject.tolist()
        ([0.03, 0.06, 0.06], [True, False, False])
    """
    p, alpha = _correct_pvalues_iv(pvalues, method, alpha)
    corrected = np.full_like(p, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    ok = ~np.isnan(p)
    if ok.any():
        reject[ok], corrected[ok] = multiple_tests(p[ok], method=method, alpha=alpha)
    return CorrectionResult(reject, corrected, method, alpha)


#: the corrections :func:`correct_pvalue_rows` applies to many families at once
ROW_METHODS = ("bonferroni", "holm", "fdr_bh")


def correct_pvalue_rows(pvalues: npt.ArrayLike, method: str) -> npt.NDArray[np.float64]:
    """Corrected p-values of many families at once: each row of ``pvalues`` is one family.

    The numbers of ``statsmodels.stats.multitest.multipletests`` applied to each row (no NaN): the
    Bonferroni ``min(m p, 1)``; Holm's step-down ``max_{j <= i} min((m - j + 1) p_(j), 1)``; the
    Benjamini-Hochberg step-up ``min_{j >= i} min(m p_(j) / j, 1)``, over the sorted p-values.
    For the simulations of :func:`~pyterrier_boot.audit_tests`, where thousands of families are
    corrected; :func:`correct_pvalues` is the one-family door with every statsmodels method.

    Example:
        >>> correct_pvalue_rows([[0.01, 0.04, 0.03]], "holm").round(2).tolist()
        [[0.03, 0.06, 0.06]]
    """
    check_choice(method, "method", ROW_METHODS)
    p = np.atleast_2d(np.asarray(pvalues, dtype=float))
    m = p.shape[1]
    if method == "bonferroni":
        return np.minimum(m * p, 1.0)
    order = np.argsort(p, axis=1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=1)
    if method == "holm":
        adjusted = _holm_adjusted(ranked)
    else:
        scaled = np.minimum(m * ranked / np.arange(1, m + 1), 1.0)
        adjusted = np.minimum.accumulate(scaled[:, ::-1], axis=1)[:, ::-1]
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=1)
    return out


def multiple_tests(pvalues: npt.ArrayLike, *, method: str, alpha: float) -> tuple[Any, Any]:
    """``(reject, corrected)``: statsmodels' ``multipletests(pvalues, alpha, method)``, any spelling
    it accepts, NaN p-values counted in the family as it counts them (``pt.Experiment``'s call).

    Holm is computed here with statsmodels' own operations, in its order (the same floats; tests
    compare them), because statsmodels runs a full garbage collection at every Holm call: a pass
    over every object of the session, 0.2-0.5 s in a PyTerrier session, paid once per measure.

    Example:
        >>> reject, corrected = multiple_tests([0.01, 0.04, 0.03], method="holm", alpha=0.05)
        >>> corrected.round(2).tolist(), reject.tolist()
        ([0.03, 0.06, 0.06], [True, False, False])
    """
    if canonical(method) == "holm":
        return _holm(np.asarray(pvalues), alpha)
    from statsmodels.stats.multitest import multipletests

    reject, corrected, _, _ = multipletests(pvalues, alpha=alpha, method=method)
    return reject, corrected


def _holm(p: npt.NDArray[np.float64], alpha: float) -> tuple[Any, Any]:
    """Holm's step-down (Holm 1979) as ``statsmodels.stats.multitest.multipletests(method="holm")``."""
    order = np.argsort(p)
    p = np.take(p, order)
    keep = p > alpha / np.arange(len(p), 0, -1)  # not rejected: the first such p-value and every larger one
    first = np.flatnonzero(keep)
    keep[first.min() if first.size else len(p):] = True
    corrected = _holm_adjusted(p)
    reject, out = np.empty_like(keep), np.empty_like(corrected)
    reject[order], out[order] = ~keep, corrected
    return reject, out


def _holm_adjusted(ranked: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Holm's adjusted p-values of ascending p-values (last axis; one family or a row per family):
    ``max_{j <= i} min((m - j + 1) p_(j), 1)`` with statsmodels' operations in its order (the same floats)."""
    steps = np.arange(ranked.shape[-1], 0, -1)
    return np.minimum(np.maximum.accumulate(ranked * steps, axis=-1), 1.0)
