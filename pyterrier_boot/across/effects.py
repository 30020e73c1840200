"""Each collection's effects with their standard errors: every system's mean and every pair's
difference, read from :meth:`ExperimentResult.estimates <pyterrier_boot.ExperimentResult.estimates>`
(so they carry whatever variance the collection's intervals include), and their standardised form.

Standardised effects (Cohen's ``d_z`` of paired scores, Hedges' small-sample correction): a
difference ``d̄`` over ``n`` topics with SD ``s`` of its per-topic differences becomes
``g = J d̄ / s``, ``J = Γ(m/2) / (√(m/2) Γ((m-1)/2))``, ``m = n - 1``, with variance
``(SE / s)² + g² / (2n)``, ``SE`` the difference's standard error; with topic variance alone
``SE = s / √n`` and this is ``1/n + g²/(2n)``, metafor's ``escalc(measure="SMCC")``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special

from .._quantiles import critical_value

if TYPE_CHECKING:
    from .._typing import FloatArray
    from .inputs import Collections

__all__ = ["CollectionEffects", "Effects", "collection_figures", "collection_effects", "hedges_correction",
           "standardized"]


@dataclass(frozen=True, eq=False)
class CollectionEffects:
    """Per collection (first axis), each system's mean and each pair's difference.

    Attributes:
        collections, systems: labels; variance: what the standard errors include (``"topics"``,
            ``"corpus"``, ``"topics+corpus"``, ``"topics+seeds"``).
        mean, mean_se, mean_df, mean_low, mean_high: ``[collection, system]``: each system's mean,
            its standard error, degrees of freedom and the collection's own interval.
        difference, difference_se, difference_df, difference_sd: ``[collection, system, other]``:
            ``system - other``, its standard error and degrees of freedom, and the SD of its
            per-topic differences (0 on the diagonal).
        n_topics: ``[collection]`` topics of each collection.
        seeds: ``"random"`` (the seed variance in ``variance``), ``"fixed"`` (systems given as
            several runs, taken as their average: not in it) or None (one run per system).
    """

    collections: tuple
    systems: tuple
    variance: str
    mean: np.ndarray
    mean_se: np.ndarray
    mean_df: np.ndarray
    mean_low: np.ndarray
    mean_high: np.ndarray
    difference: np.ndarray
    difference_se: np.ndarray
    difference_df: np.ndarray
    difference_sd: np.ndarray
    n_topics: np.ndarray
    seeds: str | None = None


@dataclass(frozen=True, eq=False)
class Effects:
    """One effect per collection and row (a system's mean or its difference from the baseline):
    ``[collection, row]`` arrays ``estimate, se, df, ci_low, ci_high``."""

    rows: tuple
    estimate: np.ndarray
    se: np.ndarray
    df: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray


def collection_figures(result: Any, label: str, systems: tuple) -> dict[str, Any]:
    """One collection's figures from ``result.estimates``: ``mean, se, df, low, high`` per system
    and ``difference, difference_se, difference_df, difference_sd`` ``[system, other]``,
    ``n_topics``, ``variance``, ``seeds``."""
    S = len(systems)
    frame = result.estimates(label)
    out: dict[str, Any] = {"variance": frame.attrs["variance"], "n_topics": len(result.qids),
                           "seeds": frame.attrs["seeds"]}
    means = _rows(frame, systems, ["estimate", "se", "df", "ci_low", "ci_high"])
    out.update(zip(("mean", "se", "df", "low", "high"), means.T, strict=True))
    cube = np.zeros((4, S, S))  # difference, se, df, sd of system - other
    cube[2] = np.inf
    for o, other in enumerate(systems):
        others = tuple(s for s in systems if s != other)
        rows = _rows(result.estimates(label, baseline=other), others, ["estimate", "se", "df", "sd"])
        cube[:, np.arange(S) != o, o] = rows.T
    out.update(zip(("difference", "difference_se", "difference_df", "difference_sd"), cube, strict=True))
    return out


def collection_effects(collections: Collections) -> CollectionEffects:
    """The figures of every collection, stacked (first axis: collections); seeds ``"random"`` on
    every collection or none (the inputs' checks), else ``"fixed"`` where any collection's are."""
    f = collections.figures
    seeds = {x["seeds"] for x in f} - {None}

    def stack(key):
        return np.stack([figures[key] for figures in f])

    return CollectionEffects(collections.names, collections.systems, f[0]["variance"], stack("mean"), stack("se"),
                             stack("df"), stack("low"), stack("high"), stack("difference"), stack("difference_se"),
                             stack("difference_df"), stack("difference_sd"), np.array([x["n_topics"] for x in f]),
                             seeds.pop() if seeds else None)


def _rows(frame, systems, columns):
    """``[system, column]``: the ``columns`` of an ``estimates()`` frame for ``systems``, in that order."""
    position = {name: i for i, name in enumerate(frame["name"])}
    return frame[columns].to_numpy(float)[[position[s] for s in systems]]


def hedges_correction(m: FloatArray) -> FloatArray:
    """Hedges' ``J(m) = Γ(m/2) / (√(m/2) Γ((m-1)/2))``, about ``1 - 3 / (4m - 1)``."""
    m = np.asarray(m, dtype=float)
    return np.exp(special.gammaln(m / 2) - 0.5 * np.log(m / 2) - special.gammaln((m - 1) / 2))


def standardized(estimate: FloatArray, se: FloatArray, sd: FloatArray, n: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(g, SE(g))``: differences over the SD of their per-topic differences (module docstring)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g = hedges_correction(n - 1) * estimate / sd
        return g, np.sqrt((se / sd) ** 2 + g ** 2 / (2 * n))


def effects_of(effects: CollectionEffects, *, baseline: str | None, standardize: bool,
               confidence_level: float) -> Effects:
    """Each system's mean (no baseline) or difference from ``baseline`` per collection, standardised
    on request; the interval of a mean is the collection's own, of a difference ``estimate ± c se``."""
    if baseline is None:
        return Effects(effects.systems, effects.mean, effects.mean_se, effects.mean_df, effects.mean_low,
                       effects.mean_high)
    b = effects.systems.index(baseline)
    rows = [s for s in range(len(effects.systems)) if s != b]
    estimate, se = effects.difference[:, rows, b], effects.difference_se[:, rows, b]
    df = effects.difference_df[:, rows, b]
    if standardize:
        estimate, se = standardized(estimate, se, effects.difference_sd[:, rows, b], effects.n_topics[:, None])
    half = critical_value(df, confidence_level) * se
    return Effects(tuple(effects.systems[s] for s in rows), estimate, se, df, estimate - half, estimate + half)
