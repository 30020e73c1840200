"""Margins: one system's distribution of per-topic scores, fitted on its measure's support.

Following Urbano & Nagler (2018), as Urbano, Lima & Hanjalic (2019) use them:

* a continuous measure (AP, nDCG, ERR, ...) gets atoms at the ends of its range (the shares of
  scores equal to 0 and to 1, their maximum-likelihood estimates) and, for the scores strictly inside,
  the best by AIC of a normal truncated to the range, a beta and a bounded kernel density
  (pyvinecopulib's ``Kde1d``, whose effective degrees of freedom count as its parameters);
* ``P@k`` and ``Success@k`` get the best by AIC of a beta-binomial and a discrete kernel density on
  the position of the score among the multiples of ``1/k``;
* ``RR`` gets atoms at 0 (no relevant document retrieved) and at 1 (the first document relevant)
  and, for the ranks ``r >= 2`` of the first relevant document, the same two families on ``r``;
* a system with fewer than :data:`MIN_DISTINCT` distinct scores inside the range gets the empirical
  distribution of its scores.

A fitted margin is kept as its quantile function: piecewise linear between knots (continuous
margins; an atom is a flat piece) or a step function on the support's values (discrete margins), so
drawing scores is ``ppf(u)`` of uniforms. An effect of size ``delta`` is drawn through a *tilted*
margin, ``Q_c(u) = Q(Φ(Φ⁻¹(u) + c))`` with ``c`` solved so that the mean moves by exactly ``delta``:
the support, the atoms and the discreteness stay, and the tilted quantile function is again of the
same kind (its knots, or cumulative probabilities, move to ``Φ(Φ⁻¹(F) - c)``), so its mean is exact.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
from scipy import optimize, special, stats

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._typing import FloatArray
    from .support import Support

__all__ = ["Margin", "fit_margin", "MIN_DISTINCT"]

#: fewest distinct scores inside the range for a fitted family (else the empirical distribution)
MIN_DISTINCT = 5
#: knots of a continuous margin's quantile function (denser towards the ends of the range)
N_KNOTS = 513
def _empty() -> FloatArray:
    return np.zeros(0)


#: the two-parameter maximum-likelihood fits (a simplex in pure Python: no threaded BLAS for 2 parameters)
_SIMPLEX = dict(xatol=1e-7, fatol=1e-9, maxiter=2000)


@dataclass(frozen=True, eq=False)
class Margin:
    """A fitted margin (see the module docstring).

    Attributes:
        family: ``"truncated normal"``, ``"beta"``, ``"kernel"``, ``"beta-binomial"``,
            ``"discrete kernel"`` or ``"empirical"``.
        loglik, n_parameters: of the whole margin (atoms included); ``aic`` from them.
        knots_u, knots_x: a continuous margin's quantile function through ``(knots_u, knots_x)``
            (empty for a discrete margin).
        values, cumulative: a discrete margin's values and ``P(X <= value)`` (empty for a
            continuous one).
        tilt: the tilt ``c`` applied to the fitted margin (0 for the fitted one).
    """

    family: str
    loglik: float
    n_parameters: float
    knots_u: FloatArray = field(default_factory=_empty)
    knots_x: FloatArray = field(default_factory=_empty)
    values: FloatArray = field(default_factory=_empty)
    cumulative: FloatArray = field(default_factory=_empty)
    tilt: float = 0.0

    @property
    def aic(self) -> float:
        return -2 * self.loglik + 2 * self.n_parameters

    @property
    def discrete(self) -> bool:
        return self.values.size > 0

    def ppf(self, u: FloatArray) -> FloatArray:
        """Scores with probabilities ``u`` (the quantile function), any shape."""
        if self.discrete:
            index = np.searchsorted(self.cumulative, u, side="left")
            return self.values[np.minimum(index, len(self.values) - 1)]
        return np.interp(u, self.knots_u, self.knots_x)

    def _pieces(self) -> tuple[FloatArray, FloatArray]:
        """(probability, middle value) of each piece of the quantile function: for the moments."""
        if self.discrete:
            return np.diff(self.cumulative, prepend=0.0), self.values
        x = self.knots_x
        return np.diff(self.knots_u), (x[1:] + x[:-1]) / 2

    def mean(self) -> float:
        """The exact mean of the quantile function (the mean of the scores it draws)."""
        weights, middle = self._pieces()
        return float(weights @ middle)

    def sd(self) -> float:
        """The standard deviation of the scores it draws (exact for discrete margins; within-piece
        spread included for continuous ones)."""
        weights, middle = self._pieces()
        second = float(weights @ middle ** 2)
        if not self.discrete:
            second += float(weights @ (np.diff(self.knots_x) ** 2 / 12))
        return float(np.sqrt(max(second - self.mean() ** 2, 0.0)))

    def share(self, value: float) -> float:
        """``P(X = value)``: the atom at ``value`` (0 for none)."""
        if self.discrete:
            at = np.flatnonzero(np.isclose(self.values, value, rtol=0, atol=1e-12))
            return float(np.diff(self.cumulative, prepend=0.0)[at].sum())
        flat = (self.knots_x[1:] == value) & (self.knots_x[:-1] == value)
        return float(np.diff(self.knots_u)[flat].sum())

    def tilted(self, c: float) -> Margin:
        """The margin with quantile function ``Q(Φ(Φ⁻¹(u) + c))`` (``c > 0`` raises the scores)."""
        def move(p):
            return special.ndtr(special.ndtri(np.clip(p, 0.0, 1.0)) - c)

        if self.discrete:
            return replace(self, cumulative=np.maximum.accumulate(move(self.cumulative)), tilt=self.tilt + c)
        return replace(self, knots_u=move(self.knots_u), tilt=self.tilt + c)

    def shifted(self, delta: float) -> Margin | None:
        """The tilted margin whose mean is ``mean() + delta``; None when no tilt reaches it (the
        mean would leave the range, or the margin is a single value)."""
        target = self.mean() + delta
        if delta == 0:
            return self

        def gap(c):
            return self.tilted(c).mean() - target

        try:
            low, high = (0.0, 40.0) if delta > 0 else (-40.0, 0.0)
            if np.sign(gap(low)) == np.sign(gap(high)):
                return None
            return self.tilted(optimize.brentq(gap, low, high, xtol=1e-12, rtol=1e-12))
        except (ValueError, RuntimeError):
            return None


# --------------------------------------------------------------------------------------------
# continuous margins: atoms at the ends, a family inside


def _unit_grid(low, high):
    t = np.linspace(0.0, 1.0, N_KNOTS)
    return low + (high - low) * (1 - np.cos(np.pi * t)) / 2


def _log_mass(lo, hi):
    """``log(Φ(hi) - Φ(lo))`` for ``lo < hi``, accurate far in either tail."""
    lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
    upper = lo > 0  # both ends in the upper tail: Φ(hi) - Φ(lo) = Φ(-lo) - Φ(-hi)
    a, b = np.where(upper, -hi, lo), np.where(upper, -lo, hi)
    la, lb = special.log_ndtr(a), special.log_ndtr(b)
    with np.errstate(divide="ignore"):
        return lb + np.log1p(-np.exp(la - lb))


def _truncated_normal(y, low, high):
    """MLE of a normal truncated to [low, high]: (loglik, 2, cdf)."""
    def nll(theta):
        mu, s = theta[0], np.exp(theta[1])
        z = (y - mu) / s
        value = -(-0.5 * z @ z - y.size * (np.log(s) + 0.5 * np.log(2 * np.pi))
                  - y.size * _log_mass((low - mu) / s, (high - mu) / s))
        return float(value) if np.isfinite(value) else np.inf

    width = high - low  # bounded: with scores piled at one end the likelihood climbs towards mu = -inf
    start = np.array([y.mean(), np.log(max(y.std(), 1e-3 * width))])
    bounds = [(low - 5 * width, high + 5 * width), (np.log(1e-4 * width), np.log(10 * width))]
    fit = optimize.minimize(nll, start, method="Nelder-Mead", bounds=bounds, options=_SIMPLEX)
    mu, s = fit.x[0], np.exp(fit.x[1])
    a, b = (low - mu) / s, (high - mu) / s

    def cdf(x):
        inside = np.clip((np.asarray(x, dtype=float) - mu) / s, a, b)
        return np.where(inside <= a, 0.0, np.exp(_log_mass(a, inside) - _log_mass(a, b)))

    return -fit.fun, 2.0, cdf


def _beta(y, low, high):
    z = (y - low) / (high - low)
    a, b, _, _ = stats.beta.fit(z, floc=0, fscale=1)
    loglik = stats.beta.logpdf(z, a, b).sum() - y.size * np.log(high - low)
    return loglik, 2.0, lambda x: stats.beta.cdf((x - low) / (high - low), a, b)


def _kernel(y, low, high):
    import pyvinecopulib as pv

    kde = pv.core.Kde1d(xmin=low, xmax=high).fit(np.ascontiguousarray(y, dtype=float))
    return float(kde.loglik()), float(kde.npars), lambda x: kde.cdf(np.ascontiguousarray(x, dtype=float))


CONTINUOUS: dict[str, Callable] = {"truncated normal": _truncated_normal, "beta": _beta, "kernel": _kernel}


def _best(candidates: dict[str, Callable], *args) -> tuple[str, float, float, Callable]:
    """The candidate family of least AIC (families whose fit fails are skipped)."""
    fits = []
    for family, fit in candidates.items():
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                loglik, k, function = fit(*args)
            except (ValueError, RuntimeError, FloatingPointError):
                continue
        if np.isfinite(loglik):
            fits.append((-2 * loglik + 2 * k, family, loglik, k, function))
    aic, family, loglik, k, function = min(fits, key=lambda f: f[0])
    return family, loglik, k, function


def _atoms_loglik(counts, n):
    shares = np.asarray(counts, dtype=float) / n
    return float(sum(c * np.log(p) for c, p in zip(counts, shares, strict=True) if c > 0))


def _fit_continuous(x, low, high):
    n = x.size
    n0, n1 = int((x <= low).sum()), int((x >= high).sum())
    inner = x[(x > low) & (x < high)]
    if np.unique(inner).size < MIN_DISTINCT:
        return _empirical(x)
    family, loglik, k, cdf = _best(CONTINUOUS, inner, low, high)
    grid = _unit_grid(low, high)
    G = np.clip(cdf(grid), 0.0, 1.0)
    G = (G - G[0]) / (G[-1] - G[0])
    p0, p1 = n0 / n, n1 / n
    u = np.concatenate([[0.0], p0 + (1 - p0 - p1) * G, [1.0]])
    xs = np.concatenate([[low], grid, [high]])
    u, first = np.unique(u, return_index=True)  # atoms of zero mass and flat pieces of the cdf
    loglik += _atoms_loglik([n0, n1, inner.size], n)
    return Margin(family, float(loglik), k + (n0 > 0) + (n1 > 0), knots_u=u, knots_x=xs[first])


# --------------------------------------------------------------------------------------------
# discrete margins: positions on the support


def _beta_binomial(k, size):
    def nll(theta):
        return -stats.betabinom.logpmf(k, size, *np.exp(theta)).sum()

    mean = np.clip(k.mean() / size, 0.02, 0.98)
    fit = optimize.minimize(nll, np.log([mean * 2, (1 - mean) * 2]), method="Nelder-Mead",
                            bounds=[(-7.0, 7.0)] * 2, options=_SIMPLEX)
    a, b = np.exp(fit.x)
    return -fit.fun, 2.0, lambda j: stats.betabinom.pmf(j, size, a, b)


def _discrete_kernel(k, size):
    import pyvinecopulib as pv

    kde = pv.core.Kde1d(xmin=0, xmax=size, var_type="d").fit(k.astype(float))
    pmf = kde.pdf(np.arange(size + 1, dtype=float))
    pmf = pmf / pmf.sum()
    return float(np.log(pmf[k]).sum()), float(kde.npars), lambda j: pmf[j]


DISCRETE: dict[str, Callable] = {"beta-binomial": _beta_binomial, "discrete kernel": _discrete_kernel}


def _fit_positions(k, size):
    """(family, loglik, n_parameters, pmf over 0..size) of positions ``k`` in 0..size."""
    family, loglik, n_par, pmf = _best(DISCRETE, k, size)
    p = np.clip(pmf(np.arange(size + 1)), 0.0, None)
    return family, loglik, n_par, p / p.sum()


def _fit_discrete(x, values, end_atoms):
    """A discrete margin on ``values``; with ``end_atoms`` (RR) the first and last values (nothing
    found, and the first document relevant) are atoms apart from the ranks 2, 3, ... between them."""
    n = x.size
    position = np.searchsorted(values, x)
    last = len(values) - 1
    inner = position[(position > 0) & (position < last)] - 1 if end_atoms else position
    size = last - 2 if end_atoms else last
    if np.unique(inner).size < MIN_DISTINCT or size < 1:
        return _empirical(x)
    family, loglik, k, p = _fit_positions(inner, size)
    if end_atoms:
        n0, n1 = int((position == 0).sum()), int((position == last).sum())
        p = np.concatenate([[n0 / n], (1 - (n0 + n1) / n) * p, [n1 / n]])
        loglik += _atoms_loglik([n0, inner.size, n1], n)
        k += (n0 > 0) + (n1 > 0)
    cumulative = np.minimum(np.cumsum(p), 1.0)
    cumulative[-1] = 1.0
    return Margin(family, float(loglik), k, values=np.asarray(values, dtype=float), cumulative=cumulative)


def _empirical(x):
    values, counts = np.unique(x, return_counts=True)
    p = counts / x.size
    return Margin("empirical", float(counts @ np.log(p)), float(values.size - 1), values=values.astype(float),
                  cumulative=np.concatenate([np.cumsum(p)[:-1], [1.0]]))


def fit_margin(x: FloatArray, support: Support) -> Margin:
    """The margin of one system's scores ``x`` on ``support`` (see the module docstring).

    Example:
        >>> from pyterrier_boot.audit.support import support_for
        >>> x = np.random.default_rng(1).beta(0.7, 2.5, 50)
        >>> margin = fit_margin(x, support_for("AP", x[None, :]))
        >>> margin.family in ("truncated normal", "beta", "kernel"), abs(margin.mean() - x.mean()) < 0.02
        (True, True)
    """
    x = np.asarray(x, dtype=float)
    if support.values is None:
        return _fit_continuous(x, support.low, support.high)
    return _fit_discrete(x, support.values, end_atoms=support.separate_zero)
