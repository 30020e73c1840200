"""The hedged betting confidence sequence for the mean of scores in [0, 1].

Waudby-Smith & Ramdas (2024), *Estimating means of bounded random variables by betting*, JRSS-B
86(1). To test a candidate mean ``m``, a gambler starting with capital 1 stakes, before each
topic, a fraction ``lam_i`` of the capital on the next score moving away from ``m``:
``K_t(m) = prod_{i<=t} (1 + lam_i (x_i - m))``. When ``m`` is the true mean of independent scores
(or of scores whose conditional mean given the past is ``m``), every bet is fair and ``K_t(m)`` is
a nonnegative martingale, so by Ville's inequality it ever reaches ``1/alpha`` with probability at
most ``alpha``: the candidates whose capital stays below ``1/alpha`` form a confidence sequence,
valid at every ``t`` at once and at any data-dependent stopping time.

* **Bets** (their predictable plug-in rule): ``lam_t = sqrt(2 log(k/alpha) /
  (s2_{t-1} t log(1 + t)))`` from the regularised running variance ``s2_t = (1/4 + sum_{i<=t}
  (x_i - mu_i)^2) / (t + 1)``, ``mu_i = (1/2 + sum_{j<=i} x_j) / (i + 1)``: a function of the
  earlier scores only (``k = 2`` two-sided, 1 one-sided).
* **Hedging** (their hedged capital process): a gambler betting on scores above ``m`` (stake
  ``min(lam_t, c/m)``) and one betting below (``min(lam_t, c/(1-m))``), each with half the
  capital; the sum ``K = (K+ + K-)/2`` is the two-sided capital. A one-sided sequence uses one
  gambler with all the capital. The truncation keeps every factor at least ``1 - c``; any ``c < 1``
  fixed in advance keeps the guarantee. ``c = 0.9`` (:data:`TRUNCATION`) was chosen on real
  scores: ``c = 3/4``, one of the paper's two suggestions, gave sequences 10-25% narrower than
  ``c = 1/2`` on TREC DL 2020 and Robust 2003; ``c = 0.9`` gave sequences of paired differences
  9-13% narrower than ``c = 3/4`` at 25 and 50 topics on TREC-5..8, Web 2010-2013 and DL
  2019/2020 (their stakes are capped by the truncation most: a difference of 0 sits in the
  middle of its range), and of means 0-8% narrower at 25 topics, at most 3% wider at 50.
* **Search**: the set ``{m : K_t(m) < 1/alpha}`` is read on a grid of :data:`GRID` points over
  [0, 1] (spacing 1/(GRID-1)), each end then refined by bisection within its grid cell to
  :data:`RESOLUTION` and moved outwards by that resolution (exact when the capital crosses
  ``1/alpha`` once per cell).
  The sequence is the running intersection of these intervals, so it never widens; a grid point
  once outside is never evaluated again. A set of candidates narrower than the grid spacing that
  lies entirely between two grid points outside the running interval would be missed.
* **p-value**: ``min(1, 1 / max_{s<=t} K_s(m0))`` is an anytime-valid p-value for ``mean = m0``
  (Ville's inequality again); it is at most ``alpha`` exactly when ``m0`` has left the sequence
  (up to the resolution).
* **e-interval** (:func:`capital_interval`): at the current topic only, the candidates that
  neither one-sided gambler's capital (bets at level ``alpha``) has raised to a threshold. With
  threshold ``1/delta`` it is a ``1 - 2 delta`` interval at any stopping time (each capital is an
  e-value there: optional stopping), and 0 lies outside it exactly when a one-sided capital at 0
  reaches the threshold: the interval that agrees with e-value based claims (e-BY, Xu, Wang &
  Ramdas 2022).
"""
from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["betting_sequence", "betting_pvalue", "betting_capital", "capital_interval", "bets", "GRID", "RESOLUTION",
           "TRUNCATION"]

#: grid points over [0, 1] on which the candidate means are first read
GRID = 513
#: resolution of the bisection refining each end, on the [0, 1] scale (the ends are moved out by it)
RESOLUTION = 1e-6
#: the truncation ``c`` of the stakes ``c/m`` and ``c/(1-m)``: at most this share of the capital is lost on one topic
TRUNCATION = 0.9


@numba.njit(cache=True)
def bets(z: np.ndarray, alpha: float, sides: float) -> np.ndarray:
    """The predictable plug-in stakes ``lam_1..lam_T`` of the scores ``z`` (in [0, 1])."""
    n = z.shape[0]
    out = np.empty(n)
    level = 2.0 * math.log(sides / alpha)
    total, squares, variance = 0.0, 0.0, 0.25
    for i in range(n):
        t = i + 1
        out[i] = math.sqrt(level / (variance * t * math.log(1.0 + t)))
        total += z[i]
        mean = (0.5 + total) / (t + 1.0)
        squares += (z[i] - mean) ** 2
        variance = (0.25 + squares) / (t + 1.0)
    return out


@numba.njit(cache=True)
def _stakes(m):
    """The truncations ``c/m`` (bets on scores above ``m``) and ``c/(1-m)`` (below)."""
    up = TRUNCATION / m if m > 0.0 else np.inf
    down = TRUNCATION / (1.0 - m) if m < 1.0 else np.inf
    return up, down


@numba.njit(cache=True)
def _capital(z, lam, t, m, weight_up):
    """Hedged capital ``K_t(m)`` after the first ``t`` scores (``weight_up``: share of the gambler
    betting on scores above ``m``)."""
    cap_up, cap_down = _stakes(m)
    up, down = 1.0, 1.0
    for i in range(t):
        d = z[i] - m
        up *= 1.0 + min(lam[i], cap_up) * d
        down *= 1.0 - min(lam[i], cap_down) * d
    return weight_up * up + (1.0 - weight_up) * down


@numba.njit(cache=True)
def _crossing(z, lam, t, outside, inside, weight_up, threshold):
    """Bisection between a rejected candidate ``outside`` and an accepted ``inside``: the accepted
    end of the final bracket (at most RESOLUTION from the crossing)."""
    while abs(inside - outside) > RESOLUTION:
        middle = 0.5 * (inside + outside)
        if _capital(z, lam, t, middle, weight_up) < threshold:
            inside = middle
        else:
            outside = middle
    return inside


@numba.njit(cache=True)
def _grid_step(z_t, lam_t, grid, up, down, lo, hi, weight_up, threshold):
    """Update the two gamblers' capital on grid points ``lo..hi`` with one score; return the first
    and last accepted points (``lo > hi``: none)."""
    for j in range(lo, hi + 1):
        cap_up, cap_down = _stakes(grid[j])
        d = z_t - grid[j]
        up[j] *= 1.0 + min(lam_t, cap_up) * d
        down[j] *= 1.0 - min(lam_t, cap_down) * d
    while lo <= hi and weight_up * up[lo] + (1.0 - weight_up) * down[lo] >= threshold:
        lo += 1
    while hi >= lo and weight_up * up[hi] + (1.0 - weight_up) * down[hi] >= threshold:
        hi -= 1
    return lo, hi


@numba.njit(cache=True)
def _refine(z, lam, t, end, grid_end, grid_next, moved, weight_up, threshold):
    """The exact end at time ``t``: it moved past the grid (bisect from ``grid_next``), or it may
    have moved within its grid cell (bisect from the previous ``end`` if that is now rejected)."""
    if moved:
        return _crossing(z, lam, t, grid_next, grid_end, weight_up, threshold)
    if _capital(z, lam, t, end, weight_up) >= threshold:
        return _crossing(z, lam, t, end, grid_end, weight_up, threshold)
    return end


@numba.njit(cache=True)
def _one_sequence(z, lam, weight_up, threshold, low, high):
    """Fill ``low``/``high`` (length T, [0, 1] scale) with the running-intersection sequence."""
    grid = np.linspace(0.0, 1.0, GRID)
    up, down = np.ones(GRID), np.ones(GRID)
    lo, hi = 0, GRID - 1
    end_low, end_high = 0.0, 1.0
    for i in range(z.shape[0]):
        t = i + 1
        new_lo, new_hi = _grid_step(z[i], lam[i], grid, up, down, lo, hi, weight_up, threshold)
        if new_lo > new_hi:  # every candidate rejected: the sequence is empty from here on
            low[i:] = np.nan
            high[i:] = np.nan
            return
        if new_lo > 0:
            end_low = _refine(z, lam, t, end_low, grid[new_lo], grid[new_lo - 1], new_lo > lo,
                              weight_up, threshold)
        if new_hi < GRID - 1:
            end_high = _refine(z, lam, t, end_high, grid[new_hi], grid[new_hi + 1], new_hi < hi,
                               weight_up, threshold)
        lo, hi = new_lo, new_hi
        low[i] = max(end_low - RESOLUTION, 0.0)
        high[i] = min(end_high + RESOLUTION, 1.0)


@numba.njit(cache=True)
def _all_sequences(z, alpha, sides, weight_up, low, high):
    for k in range(z.shape[1]):
        column = np.ascontiguousarray(z[:, k])
        lam = bets(column, alpha, sides)
        _one_sequence(column, lam, weight_up, 1.0 / alpha, low[:, k], high[:, k])


def betting_sequence(z: np.ndarray, alpha: float, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` of the betting confidence sequence for each column of ``z`` (topics x
    columns, scores in [0, 1]) on the [0, 1] scale; NaN from the topic where it becomes empty.

    ``alternative="greater"`` bounds the mean from below only (``high`` is 1), ``"less"`` from
    above only (``low`` is 0).
    """
    low, high = np.empty(z.shape), np.empty(z.shape)
    sides, weight_up = _sides(alternative)
    _all_sequences(np.ascontiguousarray(z, dtype=float), float(alpha), sides, weight_up, low, high)
    return low, high


def _sides(alternative: str) -> tuple[float, float]:
    """``(k of log(k/alpha) in the bets, share of the capital betting on scores above m)``."""
    return {"two-sided": (2.0, 0.5), "greater": (1.0, 1.0), "less": (1.0, 0.0)}[alternative]


@numba.njit(cache=True)
def _all_capitals(z, alpha, sides, weight_up, m0, out):
    for k in range(z.shape[1]):
        column = np.ascontiguousarray(z[:, k])
        lam = bets(column, alpha, sides)
        cap_up, cap_down = _stakes(m0)
        up, down = 1.0, 1.0
        for i in range(column.shape[0]):
            d = column[i] - m0
            up *= 1.0 + min(lam[i], cap_up) * d
            down *= 1.0 - min(lam[i], cap_down) * d
            out[i, k] = weight_up * up + (1.0 - weight_up) * down


def betting_capital(z: np.ndarray, alpha: float, alternative: str, m0: float) -> np.ndarray:
    """The hedged capital ``K_t(m0)`` after each prefix (topics x columns), with the bets of the
    sequence at level ``alpha``: an e-value for ``mean == m0`` at any stopping time ``t`` (its
    expectation is at most 1 when ``m0`` is the mean, by optional stopping)."""
    out = np.empty(z.shape)
    sides, weight_up = _sides(alternative)
    _all_capitals(np.ascontiguousarray(z, dtype=float), float(alpha), sides, weight_up, float(m0), out)
    return out


def betting_pvalue(z: np.ndarray, alpha: float, alternative: str, m0: float) -> np.ndarray:
    """Anytime p-values ``min(1, 1 / max_{s<=t} K_s(m0))`` (topics x columns) for ``mean == m0``
    (``m0`` on the [0, 1] scale), with the bets of the sequence at level ``alpha``."""
    best = np.maximum.accumulate(betting_capital(z, alpha, alternative, m0), axis=0)
    return 1.0 / np.maximum(best, 1.0)


@numba.njit(cache=True)
def _side_capital(z, lam, m, up):
    """The capital of the one-sided gambler betting on scores above ``m`` (``up``) or below it."""
    cap_up, cap_down = _stakes(m)
    out = 1.0
    for i in range(z.shape[0]):
        if up:
            out *= 1.0 + min(lam[i], cap_up) * (z[i] - m)
        else:
            out *= 1.0 - min(lam[i], cap_down) * (z[i] - m)
    return out


#: resolution of the ends of :func:`capital_interval` (the accepted end of the final bracket is reported)
END_RESOLUTION = 1e-10


@numba.njit(cache=True)
def _side_end(z, lam, threshold, up):
    """The outer end of the candidates the one-sided gambler leaves poorer than ``threshold``: its
    capital falls with ``m`` (``up``) or rises with it, so bisection finds the crossing; the end
    reported is the accepted end of the final bracket (within END_RESOLUTION of the crossing, so a
    rejected candidate is never inside), or the bound."""
    outside, inside = (0.0, 1.0) if up else (1.0, 0.0)
    if _side_capital(z, lam, outside, up) < threshold:
        return outside
    while abs(inside - outside) > END_RESOLUTION:
        middle = 0.5 * (inside + outside)
        if _side_capital(z, lam, middle, up) < threshold:
            inside = middle
        else:
            outside = middle
    return inside


@numba.njit(cache=True)
def _all_capital_intervals(z, alpha, threshold, low, high):
    for k in range(z.shape[1]):
        column = np.ascontiguousarray(z[:, k])
        lam = bets(column, alpha, 1.0)
        low[k] = _side_end(column, lam, threshold, True)
        high[k] = _side_end(column, lam, threshold, False)


def capital_interval(z: np.ndarray, alpha: float, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` per column of ``z`` (topics x columns, [0, 1] scale) after the last topic:
    the candidates ``m`` whose one-sided capitals (all the capital on one side, bets at level
    ``alpha``: :func:`betting_capital` with ``alternative="greater"`` and ``"less"``) both stay below
    ``threshold``; NaN where none does."""
    z = np.ascontiguousarray(z, dtype=float)
    low, high = np.empty(z.shape[1]), np.empty(z.shape[1])
    _all_capital_intervals(z, float(alpha), float(threshold), low, high)
    empty = low > high
    low[empty], high[empty] = np.nan, np.nan
    return low, high
