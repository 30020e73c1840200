"""Estimated labels of every pool pair from automatic labels and a probability sample of human ones.

For a function ``f`` of a grade (a 0/1 relevance indicator, a gain), pair ``i``'s estimate is the
difference estimator (Sarndal, Swensson & Wretman 1992, Sec. 6.3) with the automatic label as the
control variate:

    x_i = lam * f(a_i) + s_i * (f(h_i) - lam * f(a_i)) / pi_i

``a_i`` the automatic grade, ``h_i`` the human one (known where sampled, ``s_i = 1``), ``pi_i`` the
inclusion probability. Its expectation over the sample is ``f(h_i)`` for any fixed ``lam``:
``lam = 0`` is the Horvitz-Thompson estimate from the human sample alone (statAP's), ``lam = 1``
corrects the judge's label where people saw the pair. :func:`tuned_lambda` picks the ``lam`` that
minimises the Poisson design variance ``sum (1 - pi) / pi * (f(h) - lam f(a))^2`` (a regression
coefficient estimated from the sample, clipped to [0, 1]; the GREG idea).
:func:`predictable_lambdas` tunes each topic's ``lam`` on the topics before it in a sequence
instead, so that a topic's estimate stays unbiased given the topics before it (what a confidence
sequence over topics needs). ``lam`` may be one number or one per pool pair.

Replicates (:func:`replicate_estimates`) reweight the sample so that the spread of any statistic
over them estimates its design variance; every label function reads the same replicates
(:func:`replicate_draws`), and a sampled pair's correction (and its weight in a post-stratified
total, :mod:`.poststrata`) is multiplied by a factor of mean 1 that is never negative, so that a
replicate of a ratio of weighted sums stays a ratio of positive weights:

* Poisson design: ``1 + c_i z_i`` with ``z`` a Rademacher sign and ``c_i^2 = 1 - pi_i``, so a
  linear statistic's replicate variance is the Horvitz-Thompson variance estimator
  ``sum_s (1 - pi) d^2 / pi^2`` (a generalised bootstrap, Bertail & Combris 1997; Beaumont &
  Patak 2012);
* stratified design: the rescaled bootstrap of Rao, Wu & Yue (1992) with ``m_h = n_h - 1``
  draws with replacement from the ``n_h`` sampled pairs of each stratum: the factor is
  ``1 - l_h + l_h * n_h / (n_h - 1) * r_i`` with ``r_i`` the pair's count among the draws and
  ``l_h^2 = 1 - n_h / N_h``, so that any linear statistic ``sum_i v_i x_i`` gets the stratified
  variance estimator ``N_h^2 (1 - n_h/N_h) s_h^2 / n_h`` of its own values ``v_i x_i`` in each
  stratum (Cochran 1977, Sec. 5.3), whichever pairs of a stratum it reads (a stratum of one
  sampled pair adds none).

A nonlinear statistic (AP, nDCG) computed on each replicate gets its variance to first order
(nDCG's replicates are linearised around the estimate by :mod:`pyterrier_boot.ppi.sampled`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["point_estimates", "predictable_lambdas", "replicate_draws", "replicate_estimates",
           "replicate_multipliers", "tuned_lambda"]


def tuned_lambda(auto: np.ndarray, human: np.ndarray, probability: np.ndarray) -> float:
    """The ``lam`` minimising the estimated Poisson variance of the corrections, clipped to [0, 1].

    ``auto``, ``human``: ``f`` of the automatic and human grades of the *sampled* pairs;
    ``probability``: their inclusion probabilities. Each sampled pair stands for ``1 / pi`` pairs.
    1 when the sample has no design variance (every ``pi = 1``) or the judge gives ``f = 0`` everywhere."""
    weight = (1.0 - probability) / probability**2
    return float(_clipped_ratio((weight * auto * human).sum(), (weight * auto * auto).sum()))


def _clipped_ratio(numerator, denominator):
    """``numerator / denominator`` clipped to [0, 1]; 1 where the denominator is 0."""
    numerator, denominator = np.asarray(numerator, float), np.asarray(denominator, float)
    ratio = np.divide(numerator, denominator, out=np.ones_like(denominator), where=denominator > 0)
    return np.clip(ratio, 0.0, 1.0)


def predictable_lambdas(auto: np.ndarray, human: np.ndarray, probability: np.ndarray, topic: np.ndarray,
                        order: np.ndarray) -> np.ndarray:
    """Per topic, :func:`tuned_lambda` on the sampled pairs of the topics *before* it in ``order``
    (1 for the first): ``auto``, ``human``, ``probability`` and ``topic`` (a code in
    ``0..len(order)-1``) of the sampled pairs; ``order`` the topic codes in sequence order.
    Returns one ``lam`` per topic code."""
    weight = (1.0 - probability) / probability**2
    n = len(order)
    numerator = np.bincount(topic, weights=weight * auto * human, minlength=n)[order]
    denominator = np.bincount(topic, weights=weight * auto * auto, minlength=n)[order]
    before = _clipped_ratio(np.r_[0.0, np.cumsum(numerator)[:-1]], np.r_[0.0, np.cumsum(denominator)[:-1]])
    out = np.empty(n)
    out[order] = before
    return out


def point_estimates(auto: np.ndarray, sampled: np.ndarray, human: np.ndarray, probability: np.ndarray,
                    lam: float | np.ndarray) -> np.ndarray:
    """``x_i`` of every pool pair (``auto`` over the pool; ``human`` and ``probability`` of the
    ``sampled`` pairs, a boolean mask over the pool)."""
    lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), auto.shape)
    x = lam * auto
    x[sampled] += (human - lam[sampled] * auto[sampled]) / probability
    return x


def replicate_draws(rng: np.random.Generator, n_replicates: int, n_sampled: int) -> np.ndarray:
    """Uniform draws ``(replicates, sampled pairs)`` in [0, 1) behind every replicate's factors
    (:func:`replicate_multipliers`), shared by every label function."""
    return rng.random((n_replicates, n_sampled))


def replicate_multipliers(probability: np.ndarray, draws: np.ndarray, stratum: np.ndarray | None) -> np.ndarray:
    """``(replicates, sampled pairs)``: the factor of each sampled pair's weight in each design
    replicate (see the module docstring), from :func:`replicate_draws`; ``stratum``: the sampled
    pairs' strata (codes ``0..``) under the stratified design, None under Poisson."""
    if stratum is None:
        return 1.0 + np.sqrt(1.0 - probability) * np.where(draws < 0.5, -1.0, 1.0)
    n_replicates, n = draws.shape
    order = np.argsort(stratum, kind="stable")
    code = stratum[order]
    size = np.bincount(code)  # n_h
    start = np.r_[0, np.cumsum(size)[:-1]][code]
    n_h = size[code]
    slot = np.arange(n) - start < n_h - 1  # the n_h - 1 draws of a stratum: the uniforms of its first pairs
    picked = start[slot] + np.floor(draws[:, order][:, slot] * n_h[slot]).astype(np.int64)
    rows = np.arange(n_replicates)[:, None] * n
    counts = np.bincount((picked + rows).ravel(), minlength=n_replicates * n).reshape(n_replicates, n)
    scale = np.sqrt(np.clip(1.0 - probability[order], 0.0, 1.0))
    factor = np.where(n_h > 1, 1.0 - scale + scale * n_h / np.maximum(n_h - 1, 1) * counts, 1.0)
    out = np.empty_like(factor)
    out[:, order] = factor
    return out


def replicate_estimates(auto: np.ndarray, sampled: np.ndarray, human: np.ndarray, probability: np.ndarray,
                        lam: float | np.ndarray, multipliers: np.ndarray) -> np.ndarray:
    """``(1 + replicates, pool pairs)`` estimates: the point estimate, then one row per row of
    ``multipliers`` (:func:`replicate_multipliers`, computed once per sample and shared by every
    label function)."""
    lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), auto.shape)
    base = lam * auto
    correction = (human - lam[sampled] * auto[sampled]) / probability  # each sampled pair's HT correction
    out = np.empty((1 + multipliers.shape[0], len(base)))
    out[:] = base
    out[0, sampled] += correction
    out[1:, sampled] += correction * multipliers
    return out
