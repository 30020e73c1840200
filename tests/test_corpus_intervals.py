"""Intervals and p-values on image distributions, against numpy / scipy computed independently."""
import numpy as np
import pytest
from scipy import special, stats

from pyterrier_boot.corpus.intervals import EPSILON, image_interval, image_pvalue


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    dist = rng.beta(2, 6, size=(999, 4, 3))
    dist[:, 0, 0] = 0.0  # a degenerate cell (AP = 0 in every image)
    dist[rng.random(999) < 0.3, 1, 1] = 0.0  # a cell with many zeros
    theta = np.median(dist, axis=0)
    theta[0, 0] = 0.0
    return theta, dist


def test_percentile_is_numpy_quantile(scores):
    theta, dist = scores
    low, high = image_interval(theta, dist, method="percentile", confidence_level=0.9)
    ref_low, ref_high = np.quantile(dist, [0.05, 0.95], axis=0)
    np.testing.assert_allclose(low, ref_low, rtol=0, atol=1e-15)
    np.testing.assert_allclose(high, ref_high, rtol=0, atol=1e-15)


def test_normal_is_scipy_norm_interval(scores):
    theta, dist = scores
    low, high = image_interval(theta, dist, method="normal")
    sd = dist.std(axis=0, ddof=1)
    spread = np.ptp(dist, axis=0) > 0
    ref_low, ref_high = stats.norm.interval(0.95, loc=theta[spread], scale=sd[spread])
    np.testing.assert_allclose(low[spread], ref_low, atol=1e-14)
    np.testing.assert_allclose(high[spread], ref_high, atol=1e-14)
    assert low[0, 0] == high[0, 0] == 0.0  # no spread: the point


def test_logit_is_cormack_lynam_logit_normal(scores):
    theta, dist = scores
    low, high = image_interval(theta, dist, method="logit")
    clip = np.clip(dist, EPSILON, 1 - EPSILON)
    sd = special.logit(clip).std(axis=0, ddof=1)
    spread = np.ptp(dist, axis=0) > 0
    centre = special.logit(np.clip(theta, EPSILON, 1 - EPSILON))
    ref_low, ref_high = stats.norm.interval(0.95, loc=centre[spread], scale=sd[spread])
    np.testing.assert_allclose(low[spread], np.minimum(special.expit(ref_low), theta[spread]), atol=1e-14)
    np.testing.assert_allclose(high[spread], np.maximum(special.expit(ref_high), theta[spread]), atol=1e-14)
    assert low[0, 0] == high[0, 0] == 0.0  # sigma = 0 at AP = 0: the point itself, not [eps, eps]
    assert EPSILON == 1e-5


def test_logit_needs_scores_in_unit_interval():
    dist = np.random.default_rng(1).normal(size=(50, 2))
    with pytest.raises(ValueError, match=r"method='logit' needs differences in \[0, 1\], got values in \[-.*\]; "
                                         r"use 'percentile', 'normal' or 'bca'"):
        image_interval(dist.mean(axis=0), dist, method="logit", what="differences")


def test_bca_matches_scipy_bootstrap_given_its_distribution_and_jackknife():
    # scipy.stats.bootstrap's BCa with the leave-one-out jackknife: hand our function the same
    # bootstrap distribution and the same jackknife values (one group per observation).
    x = np.random.default_rng(2).exponential(size=40)
    res = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=4999, rng=np.random.default_rng(3))
    jack = (x.sum() - x) / (len(x) - 1)
    low, high = image_interval(np.array(x.mean()), res.bootstrap_distribution, method="bca", jackknife=jack)
    assert low == pytest.approx(res.confidence_interval.low, rel=1e-12)
    assert high == pytest.approx(res.confidence_interval.high, rel=1e-12)


@pytest.mark.filterwarnings(r"ignore:n_images=\d+ is too few:pyterrier_boot.BootWarning")  # tiny distributions
def test_bca_without_spread_on_one_side_falls_back_to_percentile():
    dist = np.linspace(1, 2, 101)[:, None]  # every image above the statistic: z0 = -inf
    jack = np.array([[0.1], [0.5], [0.2]])
    low, high = image_interval(np.array([0.5]), dist, method="bca", jackknife=jack)
    np.testing.assert_allclose([low[0], high[0]], np.quantile(dist[:, 0], [0.025, 0.975]))


@pytest.mark.filterwarnings(r"ignore:n_images=\d+ is too few:pyterrier_boot.BootWarning")  # tiny distributions
def test_bca_needs_jackknife():
    with pytest.raises(ValueError, match=r"method='bca' needs the delete-a-group 'jackknife' values"):
        image_interval(np.zeros(2), np.zeros((5, 2)), method="bca")


@pytest.mark.filterwarnings(r"ignore:n_images=\d+ is too few:pyterrier_boot.BootWarning")  # tiny distributions
def test_unknown_method_and_bad_shapes():
    with pytest.raises(ValueError, match=r"'method' must be one of 'percentile', 'normal', 'logit', 'bca'; got 'basic'"):
        image_interval(np.zeros(2), np.zeros((5, 2)), method="basic")
    with pytest.raises(ValueError, match=r"'distribution' must have shape \(n_images, \*statistic.shape\)"):
        image_interval(np.zeros(2), np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"'distribution' needs at least 2 images, got 1"):
        image_interval(np.zeros(2), np.zeros((1, 2)))


def test_percentile_pvalue_counts_images_on_each_side_of_zero():
    rng = np.random.default_rng(4)
    d = rng.normal(0.02, 0.02, size=(499, 6))
    d[:, 5] = 0.0  # all images tied at 0
    p = image_pvalue(d.mean(axis=0), d)
    below = (d <= 0).sum(axis=0)
    above = (d >= 0).sum(axis=0)
    np.testing.assert_allclose(p, np.minimum(1, 2 * np.minimum(below + 1, above + 1) / 500))
    assert p[5] == 1.0


def test_normal_pvalue_is_the_z_test():
    d = np.random.default_rng(5).normal(0.01, 0.02, size=(300, 4))
    theta = d.mean(axis=0) + 0.003
    p = image_pvalue(theta, d, method="normal")
    np.testing.assert_allclose(p, 2 * stats.norm.sf(np.abs(theta) / d.std(axis=0, ddof=1)))


def test_bca_pvalue_reduces_to_percentile_without_bias_or_acceleration():
    d = np.random.default_rng(6).normal(0.03, 0.02, size=(999, 3))
    theta = np.median(d, axis=0)  # z0 = 0
    jack = np.array([[-1.0] * 3, [0.0] * 3, [1.0] * 3])  # symmetric: a = 0
    np.testing.assert_allclose(image_pvalue(theta, d, method="bca", jackknife=jack), image_pvalue(theta, d))


@pytest.mark.parametrize("method", ["percentile", "normal", "bca"])
def test_pvalue_inverts_the_interval(method):
    # at confidence 1 - p, the interval of the same method has an endpoint at (about) 0
    rng = np.random.default_rng(7)
    d = rng.gamma(4, 0.01, size=(4000, 5)) - rng.uniform(0.0, 0.03, size=5)
    theta = d.mean(axis=0) - 0.002
    jack = rng.normal(theta, 0.004, size=(20, 5))
    p = image_pvalue(theta, d, method=method, jackknife=jack)
    for j in range(5):
        if not 0.002 < p[j] < 0.9:
            continue
        low, high = image_interval(theta[j:j + 1], d[:, j:j + 1], method=method, confidence_level=1 - p[j],
                                   jackknife=jack[:, j:j + 1])
        endpoint = low[0] if theta[j] > 0 else high[0]
        assert abs(endpoint) < 0.05 * d[:, j].std()
