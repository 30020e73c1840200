"""Breuer et al.'s (2020) reproducibility measures, on rankings and numpy arrays.

Order of documents (per topic, between an original and a reproduced ranking):

* :func:`kendall_tau_union` (KTU): Kendall's tau between the two rankings after each document
  is replaced by its position in the sorted union of the documents of both rankings;
* :func:`rank_biased_overlap` (RBO; Webber, Moffat & Zobel 2010), truncated at ``depth`` and
  normalised so that two identical rankings of at least ``depth`` documents score 1.

Scores and effects (over topics; the last axis is topics, so resampled matrices work too):

* :func:`rmse`: root mean square error of per-topic scores;
* :func:`effect_ratio` (ER): mean per-topic improvement of the advanced over the baseline run in
  the reproduction, divided by the same in the original;
* :func:`delta_relative_improvement` (DeltaRI): relative improvement of the means in the original
  minus that in the reproduction.

Definitions follow Breuer et al. and their reference implementation, the ``repro-eval``
package (Breuer et al. 2021), and agree with it to 1e-12 on the same rankings and scores; the one
difference is noted in :func:`kendall_tau_union`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas as pd

    from .._typing import FloatArray


__all__ = ["kendall_tau_union", "rank_biased_overlap", "rmse", "effect_ratio", "delta_relative_improvement"]

DEPTH = 1000
RBO_P = 0.95


def _ranking(values, name):
    array = np.asarray(values, dtype=object)
    if array.ndim != 1:
        raise ValueError(f"'{name}' must be a 1-D sequence of document ids in rank order")
    return array.astype(str)


def check_depth(depth: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"'depth' must be a positive integer, got {depth!r}")
    return int(depth)


PAIRINGS = ("position", "document")


def kendall_tau_union(original: pd.DataFrame, reproduced: pd.DataFrame, *, depth: int = DEPTH,
                      pairing: str = "position") -> float:
    """Kendall's tau Union (KTU) between two rankings of one topic (Breuer et al. 2020, §4.1).

    ``pairing="position"`` (default; Breuer et al.'s reference implementation, repro-eval): both
    rankings are cut to their first ``min(depth, len(original), len(reproduced))`` documents;
    every document is replaced by its position in the sorted union of the two cut rankings, and
    Kendall's tau-b (``scipy.stats.kendalltau``) is taken between the two sequences *rank by
    rank*: the observations are rank positions, not documents. So it is not the textbook tau
    between the documents' ranks, it depends on how the document ids sort, and one document
    inserted or dropped near the top shifts every later position: small perturbations of a run
    can bring it near 0 while RBO stays near 1.

    ``pairing="document"`` is the textbook reading: the observations are the documents of the
    union of the two cut rankings (cut to ``depth`` each), each ranked by both rankings, those
    missing from a ranking tied below its last document; Kendall's tau-b between the two ranks.

    Args:
        original, reproduced: document ids in rank order (best first).
        depth: rank cut-off (repro-eval's default, 1000).
        pairing: ``"position"`` or ``"document"`` (see above).

    Returns:
        KTU in [-1, 1]; NaN when fewer than 2 observations remain (tau is undefined).

    Difference from repro-eval (``"position"``): it refuses rankings of different lengths
    (scipy's error); here the longer one is cut to the length of the shorter.

    Example:
        >>> kendall_tau_union(["a", "b", "c"], ["a", "b", "c"])
        1.0
        >>> kendall_tau_union(["a", "b", "c"], ["c", "b", "a"])
        -1.0
        >>> kendall_tau_union(["b", "c", "a"], ["b", "a", "c"])   # one swap, yet rank by rank: -1
        -1.0
        >>> round(kendall_tau_union(["b", "c", "a"], ["b", "a", "c"], pairing="document"), 6)
        0.333333
    """
    depth = check_depth(depth)
    if pairing not in PAIRINGS:
        raise ValueError(f"'pairing' must be one of {PAIRINGS}, got {pairing!r}")
    o = _ranking(original, "original")
    r = _ranking(reproduced, "reproduced")
    if pairing == "document":
        o, r = o[:depth], r[:depth]
        union = np.unique(np.concatenate([o, r]))
        if union.size < 2:
            return float("nan")
        rank_o = np.full(union.size, o.size, dtype=float)
        rank_o[np.searchsorted(union, o)] = np.arange(o.size)
        rank_r = np.full(union.size, r.size, dtype=float)
        rank_r[np.searchsorted(union, r)] = np.arange(r.size)
        return float(stats.kendalltau(rank_o, rank_r).statistic)
    k = min(depth, o.size, r.size)
    if k < 2:
        return float("nan")
    o, r = o[:k], r[:k]
    union = np.unique(np.concatenate([o, r]))
    tau = stats.kendalltau(np.searchsorted(union, o), np.searchsorted(union, r)).statistic
    return float(tau)


def rank_biased_overlap(original: pd.DataFrame, reproduced: pd.DataFrame, *, p: float = RBO_P,
                        depth: int = DEPTH) -> float:
    """Rank-biased overlap of two rankings of one topic, truncated at ``depth`` (Webber et al. 2010).

    ``RBO = sum_{d=1..depth} p^(d-1) A_d / sum_{d=1..depth} p^(d-1)``, where ``A_d`` is the
    number of documents the first ``d`` of each ranking share, divided by ``d``. The
    normalisation (Clarke et al. 2021's form, used by repro-eval) makes identical rankings of at
    least ``depth`` documents score 1; rankings shorter than ``depth`` contribute no new overlap
    below their end, so short identical rankings score less than 1. With ``depth = 1000`` and
    ``p = 0.95`` it equals Webber et al.'s RBO evaluated to depth 1000 (``p^1000`` is negligible).

    Args:
        original, reproduced: document ids in rank order (best first).
        p: persistence, in (0, 1); smaller values weigh the top of the rankings more.
        depth: evaluation depth.

    Example:
        >>> round(rank_biased_overlap(["a", "b"], ["a", "b"], depth=2), 6)
        1.0
        >>> round(rank_biased_overlap(["a", "b"], ["b", "a"], p=0.5, depth=2), 6)
        0.333333
    """
    depth = check_depth(depth)
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating)) or not 0 < p < 1:
        raise ValueError(f"'p' must be a number in (0, 1), got {p!r}")
    o = _ranking(original, "original")[:depth]
    r = _ranking(reproduced, "reproduced")[:depth]
    _, io, ir = np.intersect1d(o, r, assume_unique=False, return_indices=True)
    reached = np.maximum(io, ir)  # 0-based depth at which each shared document is in both prefixes
    overlap = np.cumsum(np.bincount(reached, minlength=depth)[:depth])
    weights = np.cumprod(np.concatenate([[1.0], np.full(depth - 1, float(p))]))
    return float(np.sum(weights * overlap / np.arange(1, depth + 1)) / weights.sum())


def rmse(original: npt.ArrayLike, reproduced: npt.ArrayLike, axis: int = -1) -> float | FloatArray:
    """Root mean square error ``sqrt(mean((original - reproduced)^2))`` of per-topic scores.

    Example:
        >>> round(float(rmse([0.2, 0.4], [0.2, 0.1])), 6)
        0.212132
    """
    d = np.asarray(original, dtype=float) - np.asarray(reproduced, dtype=float)
    return np.sqrt(np.mean(d ** 2, axis=axis))


def effect_ratio(original_advanced: npt.ArrayLike, original_baseline: npt.ArrayLike,
                 reproduced_advanced: npt.ArrayLike, reproduced_baseline: npt.ArrayLike,
                 axis: int = -1) -> float | FloatArray:
    """Effect Ratio: ``mean(rep_adv - rep_base) / mean(orig_adv - orig_base)`` (Breuer et al. 2020, §4.3).

    1 means the reproduction found the same mean improvement, below 1 a smaller one, above 1 a
    larger one, negative values an improvement turned into a loss. Undefined (inf or NaN) when the
    original improvement is 0; unstable when it is small.

    Example:
        >>> float(effect_ratio([0.5, 0.7], [0.4, 0.5], [0.45, 0.6], [0.4, 0.5]))
        0.5
    """
    orig = np.mean(np.asarray(original_advanced, float) - np.asarray(original_baseline, float), axis=axis)
    rep = np.mean(np.asarray(reproduced_advanced, float) - np.asarray(reproduced_baseline, float), axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return rep / orig


def delta_relative_improvement(original_advanced: npt.ArrayLike, original_baseline: npt.ArrayLike,
                               reproduced_advanced: npt.ArrayLike,
                               reproduced_baseline: npt.ArrayLike, axis: int = -1) -> float | FloatArray:
    """Delta Relative Improvement: ``RI_orig - RI_rep`` with ``RI = (mean(adv) - mean(base)) / mean(base)``.

    0 means the same relative improvement; positive values a smaller one in the reproduction
    (Breuer et al. 2020, §4.3). Undefined when a baseline mean is 0.

    Example:
        >>> round(float(delta_relative_improvement([0.6], [0.5], [0.55], [0.5])), 6)
        0.1
    """
    def ri(adv, base):
        a = np.mean(np.asarray(adv, float), axis=axis)
        b = np.mean(np.asarray(base, float), axis=axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (a - b) / b

    return ri(original_advanced, original_baseline) - ri(reproduced_advanced, reproduced_baseline)
