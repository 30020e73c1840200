"""Simulated topic sets from a fitted :class:`~.model.ScoreModel` (Urbano, Lima & Hanjalic 2019).

**Pairs.** Each simulation draws an ordered pair of systems ``(i, j)`` at random and ``n`` topics of
pseudo-observations ``(u1, u2)`` from the pair's copula. Under the null both columns go through
system ``i``'s margin, ``b = F_i⁻¹(u1)``, ``e = F_i⁻¹(u2)``: the two means are equal while the
dependence is the real pair's. Under an effect ``delta`` the same draws go through the two margins
of :meth:`~.model.ScoreModel.effect_margins` (``e`` through the moved one), so ``E[e - b] = delta``
exactly; the null and every effect share the draws (common random numbers: their rates are
estimated from the same topic sets, which sharpens comparisons between them).

**Families.** Each simulation draws ``k`` systems at random, the first one the reference, and ``n``
topics of pseudo-observations of all systems from the joint copula, keeping the ``k`` columns. Under
the null all ``k`` go through the reference's margin; under an effect ``delta`` the last ``k // 2``
go through its moved margin, so pairs across the two groups differ by ``delta`` and pairs within a
group do not.

Every draw comes from the generator passed in (a block's own seed), so results depend on ``rng``
and the block layout only.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .._typing import FloatArray
    from .margins import Margin
    from .model import ScoreModel

__all__ = ["draw_pairs", "pair_draws", "pair_differences", "family_draws", "family_scores", "group_of"]


def draw_pairs(rng: np.random.Generator, n_systems: int, n_draws: int) -> tuple[np.ndarray, np.ndarray]:
    """``(reference, other)``: ``n_draws`` ordered pairs of distinct systems, uniformly at random
    (the first thing a block draws, so the pairs a block will use are known from its seed)."""
    reference = rng.integers(n_systems, size=n_draws)
    return reference, (reference + rng.integers(1, n_systems, size=n_draws)) % n_systems


def pair_draws(model: ScoreModel, n_topics: int, n_draws: int,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, FloatArray]:
    """``(reference, other, U)``: the ordered pair of each draw (:func:`draw_pairs`) and its copula
    uniforms ``(n_draws, n_topics, 2)`` (column 0 the reference's)."""
    S = len(model.systems)
    reference, other = draw_pairs(rng, S, n_draws)
    w = rng.random((n_draws, n_topics, 2))
    U = np.empty_like(w)
    keys, inverse = np.unique(reference * S + other, return_inverse=True)
    for index, key in enumerate(keys):
        rows = np.flatnonzero(inverse == index)
        i, j = divmod(int(key), S)
        U[rows] = model.pairs.draw(i, j, w[rows].reshape(-1, 2)).reshape(len(rows), n_topics, 2)
    return reference, other, U


def _through(margins: list[Margin | None], which: np.ndarray, U: FloatArray) -> FloatArray:
    """``margins[which[r]].ppf(U[r])`` for every row ``r`` (NaN where the margin is None)."""
    out = np.full(U.shape, np.nan)
    for s in np.unique(which):
        rows = which == s
        margin = margins[s]
        if margin is not None:
            out[rows] = margin.ppf(U[rows])
    return out


def pair_differences(model: ScoreModel, reference: np.ndarray, U: FloatArray, delta: float) -> FloatArray:
    """``e - b`` ``(n_draws, n_topics)`` under the null (``delta = 0``) or an effect ``delta > 0``
    (NaN rows where the reference's margin cannot move by ``delta``)."""
    if delta == 0:
        margins: list = list(model.margins)
        return _through(margins, reference, U[..., 1]) - _through(margins, reference, U[..., 0])
    effects = model.effect_margins(delta)
    baseline = [None if e is None else e[0] for e in effects]
    moved = [None if e is None else e[1] for e in effects]
    return _through(moved, reference, U[..., 1]) - _through(baseline, reference, U[..., 0])


def family_draws(model: ScoreModel, n_topics: int, n_draws: int, size: int,
                 rng: np.random.Generator) -> tuple[np.ndarray, FloatArray]:
    """``(members, U)``: ``size`` systems per draw (the first the reference) and their joint copula
    uniforms ``(n_draws, size, n_topics)``."""
    S = len(model.systems)
    members = np.argsort(rng.random((n_draws, S)), axis=1)[:, :size]
    w = rng.random((n_draws * n_topics, S))
    U = model.joint.draw(w).reshape(n_draws, n_topics, S)  # type: ignore[union-attr]  # fitted for families
    picked = np.take_along_axis(U, members[:, None, :], axis=2)  # (n_draws, n_topics, size)
    return members, np.ascontiguousarray(picked.transpose(0, 2, 1))


def group_of(size: int) -> np.ndarray:
    """Which member of a family is moved under an effect: the last ``size // 2`` (1), the rest (0)."""
    return (np.arange(size) >= size - size // 2).astype(int)


def family_scores(model: ScoreModel, members: np.ndarray, U: FloatArray, delta: float) -> FloatArray:
    """Scores ``(n_draws, size, n_topics)`` of each family: every member through the reference's
    margin (null), or the moved group through its moved margin (effect ``delta``; NaN families
    where the reference cannot move)."""
    reference = members[:, 0]
    if delta == 0:
        return _through(list(model.margins), reference, U)
    effects = model.effect_margins(delta)
    moved = group_of(U.shape[1]).astype(bool)
    X = np.empty_like(U)
    X[:, ~moved] = _through([None if e is None else e[0] for e in effects], reference, U[:, ~moved])
    X[:, moved] = _through([None if e is None else e[1] for e in effects], reference, U[:, moved])
    return X
