"""Paired and unpaired tests against scipy and independent re-implementations of the papers."""
import numpy as np
import pytest
from scipy import stats

from pyterrier_boot.stats.intervals import bootstrap_ci
from pyterrier_boot.stats.resampling import resample_plan, sign_flip_plan
from pyterrier_boot.stats.significance import (
    paired_bootstrap_test,
    randomization_test,
    sign_test,
    t_test,
    unpaired_bootstrap_test,
    wilcoxon_test,
)

ALTERNATIVES = ["two-sided", "greater", "less"]

# Kanoulas, "Experimental design for collection-based comparative evaluation", slide
# "Statistic: t": systems A and B on 10 queries
KANOULAS_A = np.array([.25, .43, .39, .75, .43, .15, .20, .52, .49, .50])
KANOULAS_B = np.array([.35, .84, .15, .75, .68, .85, .80, .50, .58, .75])


@pytest.fixture
def pair():
    rng = np.random.default_rng(42)
    topic = rng.beta(1, 3, size=30)
    x = np.clip(topic + rng.normal(0.03, 0.08, size=30), 0, 1)
    y = np.clip(topic + rng.normal(0.0, 0.08, size=30), 0, 1)
    return x, y


def test_kanoulas_worked_example():
    res = t_test(KANOULAS_B, KANOULAS_A, alternative="greater")
    assert res.difference == pytest.approx(0.214, abs=5e-4)
    assert np.std(KANOULAS_B - KANOULAS_A, ddof=1) == pytest.approx(0.291, abs=5e-4)
    assert res.statistic == pytest.approx(2.33, abs=5e-3)
    assert res.pvalue == pytest.approx(0.02, abs=5e-3)  # his p is the one-sided value
    assert res.effect_size == pytest.approx(0.214 / 0.291, abs=5e-3)
    assert (res.wins, res.ties, res.losses) == (7, 1, 2)
    # Sakai's statistic t(z) is the same t
    assert paired_bootstrap_test(KANOULAS_B, KANOULAS_A, n_resamples=200, rng=1).statistic == pytest.approx(res.statistic, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_t_test_equals_scipy_ttest_rel(pair, alternative):
    x, y = pair
    ours = t_test(x, y, alternative=alternative, confidence_level=0.9)
    ref = stats.ttest_rel(x, y, alternative=alternative)
    assert ours.statistic == ref.statistic
    assert ours.pvalue == ref.pvalue
    ci = ref.confidence_interval(0.9)
    assert tuple(ours.confidence_interval) == (ci.low, ci.high)
    statistic, pvalue = ours
    assert (statistic, pvalue) == (ref.statistic, ref.pvalue)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
def test_wilcoxon_equals_scipy(pair, alternative, zero_method):
    x, y = pair
    y = y.copy()
    y[:3] = x[:3]  # ties
    ours = wilcoxon_test(x, y, alternative=alternative, zero_method=zero_method)
    ref = stats.wilcoxon(x, y, alternative=alternative, zero_method=zero_method)
    assert ours.statistic == ref.statistic
    assert ours.pvalue == ref.pvalue


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_sign_test_equals_scipy_binomtest(pair, alternative):
    x, y = pair
    y = y.copy()
    y[:4] = x[:4]
    ours = sign_test(x, y, alternative=alternative)
    wins, losses = int((x > y).sum()), int((x < y).sum())
    ref = stats.binomtest(wins, wins + losses, 0.5, alternative=alternative)
    assert ours.pvalue == ref.pvalue
    assert ours.statistic == ref.statistic
    assert (ours.wins, ours.ties, ours.losses) == (wins, 4, losses)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_randomization_equals_scipy_permutation_test(pair, alternative):
    x, y = pair[0][:12], pair[1][:12]

    def mean_difference(a, b, axis):
        return np.mean(a - b, axis=axis)

    ours = randomization_test(x, y, alternative=alternative, n_resamples=5000)
    ref = stats.permutation_test((x, y), mean_difference, permutation_type="samples", vectorized=True,
                                 n_resamples=np.inf, alternative=alternative)
    assert ours.method == "randomization_exact"
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-13)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-13)
    np.testing.assert_allclose(np.sort(ours.null_distribution), np.sort(ref.null_distribution), atol=1e-15)


def test_sampled_randomization_agrees_with_exact_within_monte_carlo_error(pair):
    x, y = pair[0][:14], pair[1][:14]
    exact = randomization_test(x, y, n_resamples=2 ** 14).pvalue
    sampled = randomization_test(x, y, n_resamples=4000, rng=3)
    assert sampled.method == "randomization"
    se = np.sqrt(exact * (1 - exact) / 4000)
    assert abs(sampled.pvalue - exact) < 4 * se + 1 / 4001


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_bootstrap_equals_sakai_figures_2_and_3(pair, alternative):
    """A direct transcription of Sakai's algorithms, one resample at a time, on the same plan."""
    x, y = pair
    plan = resample_plan(x.size, n_resamples=1000, rng=8)
    ours = paired_bootstrap_test(x, y, plan=plan, alternative=alternative)
    z = x - y
    n = z.size
    t_z = z.mean() / (z.std(ddof=1) / np.sqrt(n))
    w = z - z.mean()
    count = 0
    t_star = []
    for b in range(plan.n_resamples):
        wb = w[plan.indices[b]]  # Fig. 2
        t_wb = wb.mean() / (wb.std(ddof=1) / np.sqrt(n))  # Fig. 3
        t_star.append(t_wb)
        if alternative == "two-sided":
            count += abs(t_wb) >= abs(t_z)
        elif alternative == "greater":
            count += t_wb >= t_z
        else:
            count += t_wb <= t_z
    assert ours.statistic == pytest.approx(t_z, rel=1e-12)
    assert ours.pvalue == (count + 1) / (plan.n_resamples + 1)
    np.testing.assert_allclose(ours.null_distribution, t_star, rtol=1e-9)


def test_paired_bootstrap_interval_is_the_symmetric_studentized_interval_it_inverts(pair):
    # issue 11: the interval beside Sakai's test is the one the test inverts. The test counts
    # |t*| >= |t|, so its interval is the symmetric bootstrap-t interval mean ± c·se with c the
    # K-th largest |t*| (K = the smallest count the test does not reject), not the equal-tailed
    # studentized interval of bootstrap_ci (which this test pinned before).
    x, y = pair
    plan = resample_plan(x.size, n_resamples=2000, rng=2)
    test = paired_bootstrap_test(x, y, plan=plan)
    d = x - y
    se = d.std(ddof=1) / np.sqrt(d.size)
    abs_t = np.sort(np.abs(test.null_distribution))[::-1]
    K = next(c for c in range(2001) if (c + 1) / 2001 >= 0.05)
    c = abs_t[K - 1]
    assert test.confidence_interval.low == pytest.approx(d.mean() - c * se, rel=1e-9)
    assert test.confidence_interval.high == pytest.approx(d.mean() + c * se, rel=1e-9)
    # the same pivot as bootstrap_ci's studentized interval: the two agree to within the asymmetry of t*
    ci = bootstrap_ci(d, method="studentized", plan=plan)
    assert test.confidence_interval.high - test.confidence_interval.low == pytest.approx(
        ci.confidence_interval.high - ci.confidence_interval.low, rel=0.25)
    assert test.plan is plan


def test_paired_bootstrap_replays_with_its_plan(pair):
    x, y = pair
    first = paired_bootstrap_test(x, y, rng=5, n_resamples=500)
    again = paired_bootstrap_test(x, y, plan=first.plan)
    assert first.pvalue == again.pvalue
    np.testing.assert_array_equal(first.null_distribution, again.null_distribution)
    flips = sign_flip_plan(x.size, n_resamples=500, rng=1)
    assert randomization_test(x, y, plan=flips).pvalue == randomization_test(x, y, plan=flips).pvalue


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("statistic", ["mean", "gmean", "median"])
def test_unpaired_bootstrap_equals_sakai_figures_6_and_7(pair, alternative, statistic):
    x, y = pair[0], pair[1][:25]  # different sizes are allowed
    ours = unpaired_bootstrap_test(x, y, statistic=statistic, alternative=alternative, n_resamples=800, rng=4)
    M = {"mean": np.mean, "median": np.median,
         "gmean": lambda v: np.exp(np.mean(np.log(v + 1e-5))) - 1e-5}[statistic]
    gen = np.random.default_rng(4)
    v = np.concatenate([x, y])
    d_hat = M(x) - M(y)
    idx = gen.integers(0, v.size, (800, v.size))
    count = 0
    for b in range(800):
        d = M(v[idx[b, :x.size]]) - M(v[idx[b, x.size:]])
        if alternative == "two-sided":
            count += abs(d) >= abs(d_hat) - 1e-13
        elif alternative == "greater":
            count += d >= d_hat - 1e-13
        else:
            count += d <= d_hat + 1e-13
    assert ours.statistic == pytest.approx(d_hat, rel=1e-12)
    assert ours.pvalue == (count + 1) / 801
    assert (ours.n_x, ours.n_y) == (30, 25)
    pooled = np.sqrt(((29) * x.var(ddof=1) + 24 * y.var(ddof=1)) / 53)
    assert ours.effect_size == pytest.approx((x.mean() - y.mean()) / pooled, rel=1e-12)


def test_unpaired_has_less_power_than_paired_on_paired_data(pair):
    x, y = pair
    assert paired_bootstrap_test(x, y, rng=1).pvalue < unpaired_bootstrap_test(x, y, rng=1).pvalue


@pytest.mark.parametrize("test", [paired_bootstrap_test, randomization_test, t_test, wilcoxon_test, sign_test])
def test_effect_fields(pair, test):
    x, y = pair
    res = test(x, y)
    assert res.difference == pytest.approx(np.mean(x - y), rel=1e-12)
    assert res.effect_size == pytest.approx(np.mean(x - y) / np.std(x - y, ddof=1), rel=1e-12)
    assert res.confidence_interval.low < res.difference < res.confidence_interval.high
    assert res.n_topics == x.size
    assert res[1] == res.pvalue


def test_randomization_pvalue_is_never_zero_when_sampled():
    x = np.linspace(0.5, 0.9, 40)
    y = x - 0.2
    res = randomization_test(x, y, n_resamples=999, rng=1)
    assert res.pvalue == 1 / 1000
