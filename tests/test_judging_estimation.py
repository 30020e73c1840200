"""Design replicates (:mod:`pyterrier_boot.judging.estimation`): the factors' moments and the
variance they give a linear statistic, against the design's own variance estimators."""
import numpy as np
import pytest

from pyterrier_boot.judging.estimation import replicate_draws, replicate_multipliers

REPLICATES = 40_000


def _factors(probability, stratum, seed=0):
    draws = replicate_draws(np.random.default_rng(seed), REPLICATES, len(probability))
    return replicate_multipliers(probability, draws, stratum)


def test_poisson_factors_are_one_plus_or_minus_the_root_of_one_minus_pi():
    pi = np.array([0.1, 0.5, 0.9, 1.0])
    factors = _factors(pi, None)
    for i, p in enumerate(pi):
        assert set(np.round(factors[:, i], 12)) <= {round(1 - np.sqrt(1 - p), 12), round(1 + np.sqrt(1 - p), 12)}
    assert factors.mean(0) == pytest.approx(1.0, abs=0.02)


def test_stratified_factors_are_a_rescaled_bootstrap_of_each_stratum():
    # strata of 2, 3 and 5 sampled pairs (fractions n_h / N_h of 0.1, 0.5, 0.25) and one of a single pair
    size = np.array([2, 3, 5, 1])
    fraction = np.array([0.1, 0.5, 0.25, 0.2])
    stratum = np.array([2, 0, 1, 2, 0, 2, 1, 3, 2, 1, 2])  # not sorted: the factors follow each pair
    assert np.array_equal(np.bincount(stratum), size)
    pi = fraction[stratum]
    factors = _factors(pi, stratum)
    assert factors.min() >= 0.0  # a replicate of a ratio stays a ratio of positive weights
    assert np.all(factors[:, stratum == 3] == 1.0)  # one sampled pair: no variance to estimate
    cov = np.cov(factors, rowvar=False)
    n = size[stratum]
    expected = np.where(stratum[:, None] == stratum[None, :], -(1 - pi)[:, None] / np.maximum(n[:, None] - 1, 1), 0.0)
    np.fill_diagonal(expected, np.where(n > 1, 1 - pi, 0.0))  # Var = 1 - f_h, Cov = -(1 - f_h) / (n_h - 1)
    assert factors.mean(0) == pytest.approx(1.0, abs=0.02)
    np.testing.assert_allclose(cov, expected, atol=0.03)


def test_a_linear_total_gets_cochrans_stratified_variance():
    rng = np.random.default_rng(3)
    size = np.array([2, 4, 7])
    population = np.array([20, 9, 70])
    stratum = np.repeat(np.arange(3), size)
    pi = (size / population)[stratum]
    y = rng.gamma(2.0, 1.0, len(stratum))
    factors = _factors(pi, stratum, seed=4)
    replicates = (factors * y / pi).sum(1)
    cochran = sum(population[h] ** 2 * (1 - size[h] / population[h]) * y[stratum == h].var(ddof=1) / size[h]
                  for h in range(3))
    assert replicates.var() == pytest.approx(cochran, rel=0.03)
