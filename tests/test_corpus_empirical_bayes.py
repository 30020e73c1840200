"""The empirical-Bayes variance of L-MAP / G-MAP: Bayes' rule on known priors, hand-computed cells,
and a simulated collection where the split-half expectation it targets is known."""
import numpy as np
import pytest
from scipy import special, stats

from pyterrier_boot.corpus.empirical_bayes import (
    RATE_GRID,
    fit_rate_prior,
    replicate_variance,
    zero_chance,
)


def nearest(rate):
    return RATE_GRID[np.argmin(abs(np.log(RATE_GRID) - np.log(rate)))]


def test_zero_chance_is_bayes_rule_on_a_two_point_prior():
    """``E[e^-λ | k]`` against the posterior worked out by hand for a prior on two rates."""
    a, b = nearest(0.5), nearest(8.0)
    prior = np.where(RATE_GRID == a, 0.7, 0.0) + np.where(RATE_GRID == b, 0.3, 0.0)
    k = np.array([[0, 1], [3, 12]])
    like_a, like_b = stats.poisson.pmf(k, a) * 0.7, stats.poisson.pmf(k, b) * 0.3
    expected = (like_a * np.exp(-a) + like_b * np.exp(-b)) / (like_a + like_b)
    np.testing.assert_allclose(zero_chance(k, prior), expected, rtol=1e-10)


def test_fitted_prior_recovers_the_posterior_of_a_simulated_collection():
    """Counts drawn from a known mixture of rates (5 collections of 20,000 cells): the fitted prior's
    ``E[e^-λ | k]``, averaged over the collections, is within 0.05 of the true posterior for the
    counts that carry the jumps (k = 0..3; nearby rates are hard to tell apart from Poisson counts,
    so the fit converges slowly), where the plug-in ``e^-k`` of a Poisson image misses by 0.09 or
    more."""
    rates, weights = np.array([0.2, 1.5, 6.0, 40.0]), np.array([0.3, 0.2, 0.3, 0.2])
    fits = []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        k = rng.poisson(rng.choice(rates, size=20_000, p=weights))
        fits.append(zero_chance(np.arange(4), fit_rate_prior(k)))
    q = np.mean(fits, axis=0)
    joint = stats.poisson.pmf(np.arange(4)[:, None], rates) * weights
    truth = (joint * np.exp(-rates)).sum(axis=1) / joint.sum(axis=1)
    np.testing.assert_allclose(q, truth, atol=0.05)
    assert (abs(np.exp(-np.arange(4)) - truth)[:3] > 0.085).all()


def test_fitted_prior_is_at_least_as_likely_as_a_negative_binomial_fit():
    """The nonparametric maximum likelihood beats the best Gamma prior (scipy's negative binomial)."""
    rng = np.random.default_rng(4)
    k = rng.poisson(rng.gamma(0.6, 5.0, size=3000))
    w = fit_rate_prior(k)
    mixture = (stats.poisson.pmf(k[:, None], RATE_GRID) * w).sum(axis=1)
    fit = stats.fit(stats.nbinom, k, bounds={"n": (0.01, 50), "p": (1e-4, 1 - 1e-4)})
    assert np.log(mixture).sum() >= stats.nbinom.logpmf(k, fit.params.n, fit.params.p).sum() - 1e-6 * len(k)
    np.testing.assert_allclose(w.sum(), 1)


def test_replicate_variance_by_hand():
    """Two systems x two topics: ``q (x - m0)² / 2 + (1 - q) v1`` where k >= 1, ``(1 - q) t / 2``
    where k = 0 with ``t`` the squared jump of the topic's cells with the fewest relevant found."""
    m0 = -10.0
    x = np.array([[-2.0, -4.0], [-10.0, -3.0]])
    k = np.array([[2, 1], [0, 4]])
    q = np.array([[0.1, 0.3], [0.8, 0.05]])
    images = np.array([[[-2.0, -4.0], [m0, -3.0]],
                       [[m0, -5.0], [m0, -2.0]],
                       [[-1.0, m0], [m0, -3.5]],
                       [[-3.0, -4.5], [m0, -3.0]]])
    v = replicate_variance(x, images, k, q, m0)
    v1 = np.var([-2.0, -1.0, -3.0], ddof=1)
    assert v[0, 0] == pytest.approx(0.1 * 64 / 2 + 0.9 * v1)
    assert v[0, 1] == pytest.approx(0.3 * 36 / 2 + 0.7 * np.var([-4.0, -5.0, -4.5], ddof=1))
    assert v[1, 1] == pytest.approx(0.05 * 49 / 2 + 0.95 * np.var([-3.0, -2.0, -3.5, -3.0], ddof=1))
    assert v[1, 0] == pytest.approx(0.2 * 64 / 2)  # topic 1's fewest found: system 0 (k = 2), jump 8
    # a topic no system found anything for takes the table's fewest-found cells (k = 1: jump 6)
    k2 = np.array([[0, 1], [0, 4]])
    assert replicate_variance(x, images, k2, q, m0)[0, 0] == pytest.approx(0.9 * 36 / 2)
    # nothing found anywhere: no variance
    assert not replicate_variance(np.full((2, 2), m0), np.full((4, 2, 2), m0), np.zeros((2, 2), int), q, m0).any()
    for bad in (-k, k + 0.5, np.where(k == 0, np.inf, k)):
        with pytest.raises(ValueError, match="'k' must be non-negative whole counts"):
            replicate_variance(x, images, bad, q, m0)
    with pytest.raises(ValueError, match="'k' is empty"):
        fit_rate_prior([])


def simulated_halves(rng, n_systems, n_topics, n_images, value):
    """Cells ``[system, topic]`` with rates from a skewed prior (a topic's rate times a system's
    skill); two independent halves ``k_A, k_B ~ Poisson(λ)``; Poisson images of half A keep each of
    its ``k_A`` relevant documents with probability ``1 - 1/e``."""
    lam = rng.gamma(0.5, 4.0, size=n_topics) * rng.gamma(2.0, 0.5, size=(n_systems, n_topics))
    k_a, k_b = rng.poisson(lam), rng.poisson(lam)
    kept = rng.binomial(k_a, 1 - np.exp(-1), size=(n_images, n_systems, n_topics))
    return k_a, value(k_a), value(k_b), value(kept)


def test_replicate_variance_matches_the_split_half_expectation_where_image_variance_does_not():
    """Over 20 simulated collections (10 systems x 500 topics, values ``logit`` of a saturating
    function of the count, 100 images), the summed rule ``Σ 2 v_A`` over ``Σ (x_B - x_A)²`` averages
    within 0.1 of 1 (0.96 ± 0.01); the image variance's ratio is off by far more (about 0.47: here
    cells at 0 are common, and images give them no variance)."""
    def value(k):
        return special.logit(np.clip(k / (k + 4.0), 1e-5, 1 - 1e-5))

    rule, images_only = [], []
    for seed in range(20):
        k_a, x_a, x_b, images = simulated_halves(np.random.default_rng(seed), 10, 500, 100, value)
        v = replicate_variance(x_a, images, k_a, zero_chance(k_a, fit_rate_prior(k_a)), float(value(np.zeros(1))[0]))
        target = ((x_b - x_a) ** 2).sum()
        rule.append(2 * v.sum() / target)
        images_only.append(2 * images.var(axis=0, ddof=1).sum() / target)
    assert np.mean(rule) == pytest.approx(1, abs=0.1)
    assert np.std(rule, ddof=1) / np.sqrt(len(rule)) < 0.02
    assert abs(np.mean(images_only) - 1) > 0.3
