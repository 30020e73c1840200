"""Topic-set size against statsmodels' TTestPower, a Monte Carlo run of Tukey's HSD, and naive ANOVA."""
import numpy as np
import pytest
from pyterrier_boot.meta.topic_set_size import (
    _bootstrap_variance,
    all_pairs_power,
    difference_variance,
    topic_set_size,
)
from scipy import stats
from statsmodels.stats.power import TTestPower

from pyterrier_boot.stats.resampling import resample_plan


def _naive_mse(X):
    S, n = X.shape
    grand = X.mean()
    sse = 0.0
    for s in range(S):
        for q in range(n):
            sse += (X[s, q] - X[s].mean() - X[:, q].mean() + grand) ** 2
    return sse / ((S - 1) * (n - 1))


@pytest.mark.parametrize("difference,variance,power", [(0.05, 0.02, 0.8), (0.1, 0.05, 0.9), (0.02, 0.01, 0.8)])
def test_pair_equals_statsmodels(difference, variance, power):
    res = topic_set_size(difference=difference, variance=variance, power=power)
    d = difference / np.sqrt(variance)
    assert res.topics_needed == int(np.ceil(TTestPower().solve_power(effect_size=d, alpha=0.05, power=power)))
    assert res.effect_size == pytest.approx(d)
    assert res.achieved_power >= power
    assert res.confidence_interval is None


def test_two_systems_use_the_variance_of_their_differences():
    rng = np.random.default_rng(0)
    x = rng.random(40)
    y = x + rng.normal(0.03, 0.1, 40)
    assert difference_variance(np.vstack([x, y])) == pytest.approx(np.var(x - y, ddof=1))
    res = topic_set_size(np.vstack([x, y]), difference=0.05, rng=1)
    d = 0.05 / np.std(x - y, ddof=1)
    assert res.topics_needed == int(np.ceil(TTestPower().solve_power(effect_size=d, alpha=0.05, power=0.8)))
    assert res.n_topics == 40 and res.n_systems == 2
    low, high = res.confidence_interval
    assert low <= res.topics_needed <= high


def test_pooled_variance_is_twice_the_anova_mse():
    X = np.random.default_rng(2).random((5, 12))
    assert difference_variance(X) == pytest.approx(2 * _naive_mse(X))


def test_bootstrap_variance_equals_naive_recomputation():
    X = np.random.default_rng(3).random((4, 15))
    plan = resample_plan(15, n_resamples=20, rng=4)
    fast = _bootstrap_variance(X, plan)
    slow = [2 * _naive_mse(X[:, row]) for row in plan.indices]
    np.testing.assert_allclose(fast, slow, rtol=1e-10)


@pytest.mark.parametrize("S", [3, 8])
def test_bonferroni_equals_statsmodels_at_alpha_over_m(S):
    res = topic_set_size(difference=0.05, variance=0.03, comparisons="all_pairs", adjustment="bonferroni",
                         n_systems=S)
    m = S * (S - 1) // 2
    d = 0.05 / np.sqrt(0.03)
    assert res.topics_needed == int(np.ceil(TTestPower().solve_power(effect_size=d, alpha=0.05 / m, power=0.8)))


def test_tukey_with_two_systems_is_the_paired_t_test():
    # q_{1-a}(2, n-1) / sqrt(2) = t_{1-a/2, n-1}
    pair = topic_set_size(difference=0.04, variance=0.02)
    tukey = topic_set_size(difference=0.04, variance=0.02, comparisons="all_pairs", n_systems=2)
    assert pair.topics_needed == tukey.topics_needed


def test_tukey_power_matches_monte_carlo_of_the_hsd_rule():
    """Simulate the normal additive model, apply Tukey's HSD rule (studentized range critical value,
    topics as blocks) to one pair with true difference delta, and count rejections."""
    S, n, delta, sigma_e = 5, 30, 0.06, 0.08  # sigma_d^2 = 2 sigma_e^2
    reps = 6000
    rng = np.random.default_rng(0)
    beta = np.zeros(S)
    beta[1] = delta
    X = beta[None, :, None] + rng.normal(0, 0.2, (reps, 1, n)) + rng.normal(0, sigma_e, (reps, S, n))
    resid = X - X.mean(axis=2, keepdims=True) - X.mean(axis=1, keepdims=True) + X.mean(axis=(1, 2), keepdims=True)
    mse = (resid ** 2).sum(axis=(1, 2)) / ((S - 1) * (n - 1))
    q = np.abs(X[:, 1].mean(axis=1) - X[:, 0].mean(axis=1)) / np.sqrt(mse / n)
    crit = stats.studentized_range.ppf(0.95, S, (S - 1) * (n - 1))
    observed = np.mean(q > crit)
    predicted = all_pairs_power(n, delta / np.sqrt(2 * sigma_e ** 2), S)
    assert abs(observed - predicted) < 4 * np.sqrt(predicted * (1 - predicted) / reps)


def test_tukey_needs_more_topics_than_one_pair_and_fewer_than_bonferroni():
    kw = dict(difference=0.05, variance=0.02, comparisons="all_pairs", n_systems=10)
    pair = topic_set_size(difference=0.05, variance=0.02).topics_needed
    tukey = topic_set_size(**kw).topics_needed
    bonf = topic_set_size(**kw, adjustment="bonferroni").topics_needed
    assert pair < tukey < bonf
    assert all_pairs_power(tukey, 0.05 / np.sqrt(0.02), 10) >= 0.8 > all_pairs_power(tukey - 1, 0.05 / np.sqrt(0.02), 10)


def test_result_table_and_errors():
    res = topic_set_size(np.random.default_rng(1).random((4, 25)), difference=0.1, rng=0, n_resamples=200)
    n, ci = res
    assert n == res.topics_needed and ci is res.confidence_interval
    assert res.to_frame()["topics_needed"].iloc[0] == n
    assert res.variance_interval.low <= res.variance <= res.variance_interval.high
    with pytest.raises(ValueError, match="give either 'scores' .* or 'variance'"):
        topic_set_size(difference=0.1)
    with pytest.raises(ValueError, match="comparisons='all_pairs' with a given 'variance' needs 'n_systems'"):
        topic_set_size(difference=0.1, variance=0.02, comparisons="all_pairs")
    with pytest.raises(ValueError, match="'difference' must be finite and non-zero, got 0.0"):
        topic_set_size(difference=0, variance=0.02)
    with pytest.raises(ValueError, match="'variance' must be positive and finite, got -1.0"):
        topic_set_size(difference=0.1, variance=-1)
    with pytest.raises(ValueError, match="'comparisons' must be one of 'pair', 'all_pairs'; got 'all'"):
        topic_set_size(difference=0.1, variance=0.02, comparisons="all")
