"""Aggregates: Sakai's geometric mean, L-MAP, median, callables."""
import numpy as np
import pytest
from scipy import stats

from pyterrier_boot.stats.aggregates import AGGREGATES, get_aggregate, gmean, logit_mean


def test_gmean_is_sakais_equation_7():
    x = np.array([0.0, 0.1, 0.25, 0.8])
    expected = np.exp(np.sum(np.log(x + 0.00001)) / x.size) - 0.00001
    assert gmean(x) == pytest.approx(expected, rel=1e-14)
    # without zeros it tends to scipy's geometric mean
    y = np.array([0.2, 0.4, 0.8])
    assert gmean(y) == pytest.approx(stats.gmean(y), abs=2e-5)


def test_logit_mean_is_cormack_lynam_l_map():
    x = np.array([0.0, 0.3, 0.6, 1.0])
    clipped = np.clip(x, 1e-5, 1 - 1e-5)
    expected = 1 / (1 + np.exp(-np.mean(np.log(clipped / (1 - clipped)))))
    assert logit_mean(x) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", ["mean", "gmean", "logit_mean"])
def test_linear_aggregates_are_means_on_a_transformed_scale(name):
    agg = AGGREGATES[name]
    x = np.random.default_rng(0).random((3, 12))
    assert agg.linear
    np.testing.assert_allclose(agg.inverse(agg.forward(x).mean(axis=1)), agg(x, axis=-1), rtol=1e-12)


def test_callables_with_and_without_axis():
    x = np.random.default_rng(1).random((4, 9))
    with_axis = get_aggregate(lambda s, axis=-1: np.max(s, axis=axis))
    without = get_aggregate(lambda s: np.max(s))
    np.testing.assert_array_equal(with_axis(x), x.max(axis=1))
    np.testing.assert_array_equal(without(x), x.max(axis=1))
    assert not with_axis.linear


def test_unknown_statistic_lists_choices():
    with pytest.raises(ValueError, match="'statistic' must be one of 'mean', 'gmean', 'logit_mean', 'median' or a callable; got 'gmap'"):
        get_aggregate("gmap")
    with pytest.raises(TypeError, match="'statistic' must be a string or a callable, got int"):
        get_aggregate(3)


def test_domain_checks():
    with pytest.raises(ValueError, match=r"statistic='logit_mean' needs 'scores' in \[0.0, 1.0\]"):
        AGGREGATES["logit_mean"].check_domain(np.array([0.5, 1.5]))
