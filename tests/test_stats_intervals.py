"""bootstrap_ci against scipy.stats.bootstrap (same resamples), the t/z formulas, a naive bootstrap-t."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pyterrier_boot._warnings import DegenerateWarning
from pyterrier_boot.stats.aggregates import gmean
from pyterrier_boot.stats.intervals import bootstrap_ci
from pyterrier_boot.stats.resampling import resample_plan

B = 2000


@pytest.fixture
def ap():
    return np.random.default_rng(11).beta(0.8, 2.5, size=23)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("statistic,function", [("mean", np.mean), ("gmean", gmean), ("median", np.median)])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_equals_scipy_bootstrap_with_the_same_resamples(ap, method, statistic, function, alternative):
    # resample_plan draws what scipy.stats.bootstrap draws for the same seed (batch=None)
    ours = bootstrap_ci(ap, statistic=statistic, method=method, n_resamples=B, rng=3,
                        alternative=alternative, confidence_level=0.9)
    ref = stats.bootstrap((ap,), function, method=method, n_resamples=B, rng=3, vectorized=True,
                          alternative=alternative, confidence_level=0.9)
    np.testing.assert_allclose(ours.bootstrap_distribution, ref.bootstrap_distribution, rtol=1e-12)
    np.testing.assert_allclose(ours.confidence_interval, ref.confidence_interval, rtol=1e-10)
    assert ours.standard_error == pytest.approx(ref.standard_error, rel=1e-10)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_matrix_rows_share_one_plan_like_scipy_axis(method):
    scores = np.random.default_rng(2).random((4, 15))
    ours = bootstrap_ci(scores, method=method, n_resamples=B, rng=9)
    ref = stats.bootstrap((scores,), np.mean, axis=-1, method=method, n_resamples=B, rng=9, vectorized=True)
    np.testing.assert_allclose(ours.confidence_interval.low, ref.confidence_interval.low, rtol=1e-10)
    np.testing.assert_allclose(ours.confidence_interval.high, ref.confidence_interval.high, rtol=1e-10)


def test_t_interval_is_park_equation_3(ap):
    res = bootstrap_ci(ap, method="t", confidence_level=0.95)
    ref = stats.ttest_1samp(ap, 0).confidence_interval(0.95)
    assert res.confidence_interval.low == pytest.approx(ref.low, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(ref.high, rel=1e-12)
    assert res.bootstrap_distribution is None and res.plan is None
    lower = bootstrap_ci(ap, method="t", alternative="greater")
    ref_one = stats.ttest_1samp(ap, 0, alternative="greater").confidence_interval(0.95)
    assert lower.confidence_interval.low == pytest.approx(ref_one.low, rel=1e-12)
    assert lower.confidence_interval.high == np.inf


def test_z_interval_with_known_sigma_is_park_equation_1(ap):
    res = bootstrap_ci(ap, method="z", sigma=0.2, confidence_level=0.9)
    half = stats.norm.ppf(0.95) * 0.2 / np.sqrt(ap.size)
    assert res.confidence_interval.low == pytest.approx(ap.mean() - half, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(ap.mean() + half, rel=1e-12)


def test_t_interval_of_gmean_is_on_the_log_scale(ap):
    res = bootstrap_ci(ap, statistic="gmean", method="t")
    logs = np.log(ap + 1e-5)
    ref = stats.ttest_1samp(logs, 0).confidence_interval(0.95)
    assert res.confidence_interval.low == pytest.approx(np.exp(ref.low) - 1e-5, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(np.exp(ref.high) - 1e-5, rel=1e-12)


def test_studentized_equals_a_naive_bootstrap_t(ap):
    plan = resample_plan(ap.size, n_resamples=B, rng=4)
    res = bootstrap_ci(ap, method="studentized", plan=plan)
    n = ap.size
    pivots = []
    for idx in plan.indices:  # Efron & Tibshirani §12.5, one resample at a time
        s = ap[idx]
        pivots.append((s.mean() - ap.mean()) / (s.std(ddof=1) / np.sqrt(n)))
    q_lo, q_hi = np.quantile(pivots, [0.025, 0.975])
    se = ap.std(ddof=1) / np.sqrt(n)
    assert res.confidence_interval.low == pytest.approx(ap.mean() - q_hi * se, rel=1e-10)
    assert res.confidence_interval.high == pytest.approx(ap.mean() - q_lo * se, rel=1e-10)


def test_normal_interval_uses_the_bootstrap_standard_error(ap):
    res = bootstrap_ci(ap, method="normal", n_resamples=B, rng=5)
    ref = stats.bootstrap((ap,), np.mean, n_resamples=B, rng=5, vectorized=True)
    z = stats.norm.ppf(0.975)
    assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-10)
    assert res.confidence_interval.low == pytest.approx(ap.mean() - z * ref.standard_error, rel=1e-10)


def test_dataframe_labels_kept_and_plan_replays():
    frame = pd.DataFrame(np.random.default_rng(3).random((3, 8)), index=["bm25", "dph", "qld"],
                         columns=[f"q{i}" for i in range(8)])
    res = bootstrap_ci(frame, method="percentile", n_resamples=500, rng=1)
    table = res.to_frame()
    assert list(table.index) == ["bm25", "dph", "qld"]
    assert list(table.columns) == ["mean", "ci_low", "ci_high", "standard_error", "n_topics"]
    again = bootstrap_ci(frame, method="percentile", plan=res.plan)
    np.testing.assert_array_equal(again.confidence_interval.low, res.confidence_interval.low)
    low, high = res.confidence_interval
    statistic, ci = res
    np.testing.assert_array_equal(statistic, frame.mean(axis=1))


def test_median_batch_does_not_change_results(ap):
    a = bootstrap_ci(ap, statistic="median", method="bca", n_resamples=1000, rng=1, batch=7)
    b = bootstrap_ci(ap, statistic="median", method="bca", n_resamples=1000, rng=1)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert a.confidence_interval == b.confidence_interval


def test_constant_scores_give_a_point_and_a_warning():
    with pytest.warns(DegenerateWarning, match=r"a system's scores are the same on every topic for 1 interval\(s\), "
                                             r"so each is the single point of that score: 0 \[0.3, 0.3\]"):
        res = bootstrap_ci(np.full(10, 0.3), method="bca", n_resamples=200, rng=1)
    assert tuple(res.confidence_interval) == (pytest.approx(0.3), pytest.approx(0.3))


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(method="bootstrap"), ValueError,
     "'method' must be one of 'percentile', 'basic', 'bca', 'studentized', 'normal', 't', 'z'; got 'bootstrap'"),
    (dict(method="t", statistic="median"), ValueError, "method='t' needs a statistic that is a mean on some scale"),
    (dict(method="z"), ValueError, "method='z' needs the population standard deviation 'sigma'"),
    (dict(method="t", sigma=0.1), ValueError, "'sigma' is only used by method='z', not method='t'"),
    (dict(confidence_level=95), ValueError, r"'confidence_level' must be in \(0, 1\), got 95"),
    (dict(alternative="two_sided"), ValueError, "'alternative' must be one of 'two-sided', 'less', 'greater'"),
    (dict(n_resamples=1), ValueError, "'n_resamples' must be an integer >= 2, got 1"),
])
def test_bad_options(ap, kwargs, error, message):
    with pytest.raises(error, match=message):
        bootstrap_ci(ap, **kwargs)


def test_bad_scores():
    with pytest.raises(ValueError, match="'scores' needs at least 2 topics, got 1"):
        bootstrap_ci([0.5])
    with pytest.raises(ValueError, match=r"'scores' has missing \(NaN\) scores for 1 topic\(s\) \[2\]"):
        bootstrap_ci([0.5, 0.2, np.nan])
    with pytest.raises(TypeError, match="'scores' must hold numeric scores"):
        bootstrap_ci(["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(Warning, match=r"dropped 1 topic\(s\) not scored for every system in 'scores': \[2\]"):
            bootstrap_ci([0.5, 0.2, np.nan, 0.4], nan_policy="omit", method="t")
