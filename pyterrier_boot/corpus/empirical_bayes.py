"""An empirical-Bayes per-topic variance for L-MAP and G-MAP (``variance="empirical_bayes"``).

L-MAP averages ``logit(clip(x, ε, 1 - ε))`` and G-MAP ``log(x + ε)`` (ε = 1e-5), so a (run, topic)
cell that loses every relevant document it retrieved jumps from its usual value to ``m0 = logit(ε)``
or ``log(ε)``, about -11.5. A Poisson corpus image loses all ``k`` of them with probability
``e^-k``, a plug-in estimate of ``e^-λ``, the chance that another corpus of the same size does
(``k ~ Poisson(λ)``). On average over ``k`` the plug-in overstates it (``E e^-k = e^(-λ(1-1/e))``),
and it gives cells at ``x = 0`` no variance at all, so image variances of L-MAP and G-MAP on AP miss
both ways; measured in ``pt_docs/corpus_bootstrap.md``.

This module estimates the chance from the whole collection instead (empirical Bayes, Robbins 1956):

* ``k`` of every cell of a measure is taken as Poisson(``λ``) with a prior ``g`` on ``λ`` common to
  the cells, estimated by maximum likelihood over all distributions on a grid of rates
  (Kiefer & Wolfowitz 1956, by EM: Laird 1978), :func:`fit_rate_prior`;
* ``q = E[e^-λ | k]``, the posterior chance that a replicate corpus loses them all,
  :func:`zero_chance`;
* each cell's variance is half the expected squared distance of an exchangeable replicate from the
  cell's own value ``x`` (on the statistic's scale), :func:`replicate_variance`: with probability
  ``q`` the replicate sits at ``m0``, otherwise it scatters as the images above 0 do (variance
  ``v1``), so ``v = q (x - m0)² / 2 + (1 - q) v1`` for ``k >= 1``; a cell with ``k = 0`` (``x = m0``)
  leaves ``m0`` with probability ``1 - q`` and then lands where the topic's cells with the fewest
  relevant documents retrieved are (mean squared jump ``t``): ``v = (1 - q) t / 2``. Summed over
  two independent halves, ``v_A + v_B`` has the expectation of ``(x_B - x_A)²`` when ``q`` is
  right, which is what a split-half check asks of a standard error.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import FloatArray


__all__ = ["RATE_GRID", "fit_rate_prior", "zero_chance", "replicate_variance"]

#: The rates ``λ`` on which the prior lives: 120 points, log-spaced from 1e-3 to 2e3.
RATE_GRID = np.exp(np.linspace(np.log(1e-3), np.log(2e3), 120))
#: EM steps of the prior's fit, from uniform weights. EM creeps towards the exact maximum (on TREC
#: runs the mean log-likelihood per cell still rises by about 4e-4 from 500 to 10,000 steps, and
#: ``E[e^-λ | 0]`` moves by up to 0.04): the fit is an early-stopped, smoother estimate, and the
#: calibration in ``pt_docs/corpus_bootstrap.md`` was measured with this number.
EM_STEPS = 500


def _log_likelihood(k: FloatArray) -> FloatArray:
    """``log P(k | λ)`` up to a term in ``k`` alone: ``[len(k), len(RATE_GRID)]``, rows shifted to max 0."""
    log_l = k[:, None] * np.log(RATE_GRID) - RATE_GRID
    return log_l - log_l.max(axis=1, keepdims=True)


def fit_rate_prior(k: npt.ArrayLike) -> FloatArray:
    """Nonparametric maximum-likelihood prior of the rates ``λ`` of counts ``k ~ Poisson(λ)``.

    Args:
        k: counts (any shape; non-negative integers): the relevant documents each cell retrieved.

    Returns:
        Weights on :data:`RATE_GRID` (summing to 1) that increase ``Σ log Σ_i w_i P(k | λ_i)``
        towards its maximum (Kiefer & Wolfowitz 1956) by :data:`EM_STEPS` EM steps from uniform
        weights (Laird 1978; stopped early, see :data:`EM_STEPS`).

    Example:
        >>> w = fit_rate_prior([0, 1, 1, 2, 3, 5, 8, 13])
        >>> round(float(w.sum()), 6), bool((w >= 0).all())
        (1.0, True)
    """
    values, counts = np.unique(_counts(k), return_counts=True)
    if not len(values):
        raise ValueError("'k' is empty: a prior needs at least one count")
    like = np.exp(_log_likelihood(values.astype(float)))
    w = np.full(len(RATE_GRID), 1 / len(RATE_GRID))
    share = counts / counts.sum()
    for _ in range(EM_STEPS):
        joint = like * w
        w = share @ (joint / joint.sum(axis=1, keepdims=True))
    return w / w.sum()


def zero_chance(k: npt.ArrayLike, prior: npt.ArrayLike) -> FloatArray:
    """``E[e^-λ | k]``: the posterior chance that a replicate Poisson count is 0, given the count ``k``.

    Args:
        k: observed counts (any shape).
        prior: weights on :data:`RATE_GRID` (:func:`fit_rate_prior`).

    Returns:
        ``Σ_i w_i λ_i^k e^-2λ_i / Σ_i w_i λ_i^k e^-λ_i``, shaped as ``k``.

    Example:
        >>> point = np.zeros(len(RATE_GRID)); point[np.argmin(abs(RATE_GRID - 2))] = 1
        >>> lam = RATE_GRID[point > 0][0]
        >>> bool(np.allclose(zero_chance([0, 3, 9], point), np.exp(-lam)))
        True
    """
    k = _counts(k)
    values, inverse = np.unique(k, return_inverse=True)
    post = np.exp(_log_likelihood(values.astype(float))) * np.asarray(prior, dtype=float)
    q = (post * np.exp(-RATE_GRID)).sum(axis=1) / post.sum(axis=1)
    return q[inverse].reshape(k.shape)


def replicate_variance(x: npt.ArrayLike, images: npt.ArrayLike, k: npt.ArrayLike, q: npt.ArrayLike,
                       zero_value: float) -> FloatArray:
    """Half the expected squared distance of a replicate from each cell's value (module docstring).

    Args:
        x: each cell's value on the statistic's scale (logit or log), ``[system, topic]``.
        images: the cells' image values on the same scale, ``[image, system, topic]``.
        k: relevant documents each cell retrieved (the value is ``zero_value`` exactly when ``k = 0``).
        q: each cell's chance that a replicate loses them all (:func:`zero_chance`).
        zero_value: ``m0``, the value of a cell that retrieved none (``logit(ε)``, ``log(ε)``).

    Returns:
        ``v [system, topic]``: ``q (x - m0)² / 2 + (1 - q) v1`` where ``k >= 1`` (``v1`` the variance
        of the images above ``m0``, 0 with fewer than two); ``(1 - q) t / 2`` where ``k = 0``, ``t``
        the mean ``(x - m0)²`` of the topic's cells with the fewest relevant documents retrieved (of
        the whole table's, for a topic where no cell retrieved one; 0 when none did anywhere).
    """
    x, images, q = (np.asarray(v, dtype=float) for v in (x, images, q))
    k = _counts(k)
    above = images > zero_value
    n1 = above.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        m1 = np.where(above, images, 0).sum(axis=0) / n1
        v1 = np.where(above, (images - m1) ** 2, 0).sum(axis=0) / (n1 - 1)
    v1 = np.where(n1 > 1, v1, 0.0)
    jump = (x - zero_value) ** 2
    found = k > 0
    v = np.where(found, q * jump / 2 + (1 - q) * v1, 0.0)
    if found.any() and not found.all():
        v = np.where(found, v, (1 - q) * _fewest_found_jump(jump, k, found) / 2)
    return v


def _fewest_found_jump(jump: FloatArray, k: np.ndarray, found: np.ndarray) -> FloatArray:
    """Per topic ``[topic]``: the mean squared jump of its cells with the fewest (>= 1) relevant
    documents retrieved; the table's such cells' mean for a topic where none retrieved one."""
    fewest = np.where(found, k, np.iinfo(k.dtype).max).min(axis=0)
    at_fewest = found & (k == fewest)
    overall = jump[found & (k == k[found].min())].mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        per_topic = np.where(at_fewest, jump, 0).sum(axis=0) / at_fewest.sum(axis=0)
    return np.where(at_fewest.any(axis=0), per_topic, overall)


def _counts(k: npt.ArrayLike) -> np.ndarray:
    """``k`` as int64, checked to hold finite, non-negative whole numbers."""
    k = np.asarray(k)
    if not np.issubdtype(k.dtype, np.number) or (
            k.size and not (np.all(np.isfinite(k)) and np.all(k >= 0) and np.all(k == np.round(k)))):
        raise ValueError("'k' must be non-negative whole counts")
    return k.astype(np.int64)
