"""Copulas: how systems' scores depend on each other over topics.

The data a copula is fitted to are pseudo-observations: each system's scores ranked over the topics,
ties broken at random, divided by ``n + 1`` (Urbano et al.'s ``pobs(ties.method = "random")``).

* **Pairs** (Urbano, Lima & Hanjalic 2019): each pair of systems gets a Gaussian copula and the best
  bivariate copula by AIC among pyvinecopulib's parametric families (independence, Gaussian,
  Student t, Clayton, Gumbel, Frank, Joe, BB1, BB6, BB7, BB8, Tawn, with their rotations); the
  pair keeps the better of the two by AIC. Some of these families are asymmetric (Tawn): the two
  systems are then not exchangeable even through one margin, as in real data.
* **Jointly** (families of systems, for the multiple-comparison corrections): a Gaussian copula
  (the correlation matrix of the normal scores) and an R-vine (pyvinecopulib's ``Vinecop``, pair
  copulas from the families with closed-form inverse h-functions, so drawing stays fast: Gaussian,
  Student t, Clayton, Gumbel, Joe; truncation level selected), the better by AIC.

Draws take uniforms from the caller's generator (``hinv1`` of a pair copula; the inverse
Rosenblatt transform of a vine; a Cholesky factor for the Gaussian), so the numbers depend on ``rng``
only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import special, stats

from .._batches import map_batches

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from .._typing import FloatArray

__all__ = ["PairCopulas", "JointCopula", "pseudo_observations", "fit_pair_copulas", "fit_joint_copula",
           "PAIR_FAMILIES", "JOINT_FAMILIES"]

#: the bivariate families a pair copula is chosen from (pyvinecopulib's names)
PAIR_FAMILIES = ("indep", "gaussian", "student", "clayton", "gumbel", "frank", "joe", "bb1", "bb6", "bb7",
                 "bb8", "tawn")
#: the families of a joint vine's pair copulas
JOINT_FAMILIES = ("indep", "gaussian", "student", "clayton", "gumbel", "joe")
#: pairs fitted per batch (a batch is one task on an executor)
PAIR_BATCH = 64


def pseudo_observations(X: FloatArray, rng: np.random.Generator) -> FloatArray:
    """Ranks of each system's scores over topics, ties broken at random, over ``n + 1``:
    ``(topics, systems)``, the layout pyvinecopulib reads."""
    S, n = X.shape
    noise = rng.random((S, n))
    order = np.lexsort((noise, X), axis=-1)
    ranks = np.empty((S, n))
    np.put_along_axis(ranks, order, np.arange(1, n + 1, dtype=float)[None, :].repeat(S, 0), axis=1)
    return np.asfortranarray(ranks.T / (n + 1))


def _families(names):
    import pyvinecopulib as pv

    return [getattr(pv.BicopFamily, name) for name in names]


def _fit_pairs(batch: tuple[FloatArray, list[tuple[int, int]]]) -> list[tuple[Any, float, float]]:
    """One batch of pairs: ``(chosen Bicop, its AIC, the Gaussian copula's AIC)`` per pair."""
    import pyvinecopulib as pv

    U, pairs = batch
    controls = pv.FitControlsBicop(family_set=_families(PAIR_FAMILIES), selection_criterion="aic")
    out = []
    for i, j in pairs:
        u = np.asfortranarray(U[:, [i, j]])
        best = pv.Bicop.from_data(u, controls=controls)
        gaussian = pv.Bicop(pv.BicopFamily.gaussian)
        gaussian.fit(u, controls)
        aic, aic_gaussian = best.aic(u), gaussian.aic(u)
        out.append((gaussian if aic_gaussian <= aic else best, min(aic, aic_gaussian), aic_gaussian))
    return out


@dataclass(frozen=True, eq=False)
class PairCopulas:
    """The copula of every pair of systems ``i < j`` (see the module docstring).

    Attributes:
        copulas: ``(i, j) -> pyvinecopulib.Bicop``, its first variable system ``i`` (the pairs the
            simulations draw: every pair, unless there are many more pairs than simulations).
        table: one row per pair: ``system_a, system_b, family, tau`` (the copula's Kendall tau),
            ``tau_observed`` (of the pseudo-observations it was fitted to), ``aic``, ``aic_gaussian``.
    """

    copulas: dict
    table: pd.DataFrame

    def draw(self, i: int, j: int, w: FloatArray) -> FloatArray:
        """Uniforms ``(m, 2)`` from the copula of systems ``(i, j)`` (column 0 is ``i``), from
        independent uniforms ``w`` ``(m, 2)``."""
        a, b = (i, j) if i < j else (j, i)
        w = np.asfortranarray(np.clip(w, 1e-12, 1 - 1e-12))
        u = np.column_stack([w[:, 0], self.copulas[a, b].hinv1(w)])
        return u if i < j else u[:, ::-1]


def fit_pair_copulas(U: FloatArray, systems: list, executor: Executor | None = None,
                     pairs: set[tuple[int, int]] | None = None) -> PairCopulas:
    """:class:`PairCopulas` of pseudo-observations ``U`` (topics x systems), for the ``pairs``
    ``(i, j)``, ``i < j`` (default all); fitted in batches of :data:`PAIR_BATCH`, on ``executor``
    when given."""
    S = U.shape[1]
    pairs = sorted(pairs) if pairs is not None else [(i, j) for i in range(S) for j in range(i + 1, S)]
    batches = ((U, pairs[k:k + PAIR_BATCH]) for k in range(0, len(pairs), PAIR_BATCH))
    fitted = [fit for part in map_batches(_fit_pairs, batches, executor) for fit in part]
    rows = []
    for (i, j), (copula, aic, aic_gaussian) in zip(pairs, fitted, strict=True):
        observed = stats.kendalltau(U[:, i], U[:, j])[0]
        rows.append((systems[i], systems[j], copula.family.name, float(copula.tau), float(observed), aic,
                     aic_gaussian))
    table = pd.DataFrame(rows, columns=["system_a", "system_b", "family", "tau", "tau_observed", "aic",
                                        "aic_gaussian"])
    return PairCopulas({pair: fit[0] for pair, fit in zip(pairs, fitted, strict=True)}, table)


@dataclass(frozen=True, eq=False)
class JointCopula:
    """One copula of all systems: ``kind`` ``"gaussian"`` (``correlation``) or ``"vine"`` (``vine``,
    a pyvinecopulib ``Vinecop``), whichever had the lower AIC (both AICs kept)."""

    kind: str
    aic_gaussian: float
    aic_vine: float
    correlation: FloatArray
    vine: Any = None

    def draw(self, w: FloatArray) -> FloatArray:
        """Uniforms ``(m, S)`` from the copula, from independent uniforms ``w`` ``(m, S)``."""
        w = np.clip(w, 1e-12, 1 - 1e-12)
        if self.kind == "vine":
            return np.asarray(self.vine.inverse_rosenblatt(np.asfortranarray(w)))
        factor = np.linalg.cholesky(self.correlation)
        return special.ndtr(special.ndtri(w) @ factor.T)


def _gaussian_fit(U):
    """Correlation of the normal scores (shrunk towards I until positive definite) and its AIC."""
    Z = special.ndtri(U)
    R = np.corrcoef(Z, rowvar=False)
    shrink = 0.0
    while np.linalg.eigvalsh((1 - shrink) * R + shrink * np.eye(len(R)))[0] < 1e-6:
        shrink = max(2 * shrink, 0.01)
    R = (1 - shrink) * R + shrink * np.eye(len(R))
    sign, logdet = np.linalg.slogdet(R)
    quad = np.einsum("qi,ij,qj->", Z, np.linalg.inv(R) - np.eye(len(R)), Z)
    loglik = -0.5 * U.shape[0] * logdet - 0.5 * quad
    return R, -2 * loglik + len(R) * (len(R) - 1)


def fit_joint_copula(U: FloatArray) -> JointCopula:
    """:class:`JointCopula` of pseudo-observations ``U`` (topics x systems)."""
    import pyvinecopulib as pv

    R, aic_gaussian = _gaussian_fit(U)
    controls = pv.FitControlsVinecop(family_set=_families(JOINT_FAMILIES), selection_criterion="aic",
                                     select_trunc_lvl=True)
    vine = pv.Vinecop.from_data(np.asfortranarray(U), controls=controls)
    aic_vine = float(vine.aic(np.asfortranarray(U)))
    kind = "vine" if aic_vine < aic_gaussian else "gaussian"
    return JointCopula(kind, float(aic_gaussian), aic_vine, R, vine if kind == "vine" else None)
