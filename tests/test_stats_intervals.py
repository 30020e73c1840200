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
    frame = pd.DataFrame(np.random.default_rng(3).random((8, 3)), columns=["bm25", "dph", "qld"],
                         index=[f"q{i}" for i in range(8)])  # one row per topic, one column per system
    res = bootstrap_ci(frame, method="percentile", n_resamples=500, rng=1)
    table = res.to_frame()
    assert list(table.index) == ["bm25", "dph", "qld"]
    assert list(table.columns) == ["mean", "ci_low", "ci_high", "standard_error", "n_topics"]
    again = bootstrap_ci(frame, method="percentile", plan=res.plan)
    np.testing.assert_array_equal(again.confidence_interval.low, res.confidence_interval.low)
    low, high = res.confidence_interval
    statistic, ci = res
    np.testing.assert_array_equal(statistic, frame.mean(axis=0))


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


# ---------------------------------------------------------------- bounds (issue 33: intervals outside [0, 1])

SPARSE = np.array([[0.0, 0.02, 0.0, 0.0, 0.01, 0.0, 0.0, 0.3],  # most topics at 0
                   [0.1, 0.3, 0.2, 0.4, 0.25, 0.3, 0.2, 0.35],  # inside the range
                   [1.0, 1.0, 0.5, 1.0, 1.0, 0.25, 1.0, 1.0]])  # most topics at 1


@pytest.mark.filterwarnings("ignore:the studentized interval:pyterrier_boot.BootWarning")
@pytest.mark.parametrize("method", ["studentized", "basic", "t", "percentile", "bca"])
def test_bounds_clip_every_interval_but_the_normal_one(method):
    """With bounds the interval is the unbounded one intersected with the range (so it covers a value
    in the range exactly when the unbounded one does)."""
    free = bootstrap_ci(SPARSE, method=method, n_resamples=2000, rng=1)
    kept = bootstrap_ci(SPARSE, method=method, n_resamples=2000, rng=1, bounds=(0, 1))
    np.testing.assert_allclose(kept.confidence_interval.low, np.clip(free.confidence_interval.low, 0, 1))
    np.testing.assert_allclose(kept.confidence_interval.high, np.clip(free.confidence_interval.high, 0, 1))
    assert free.confidence_interval.low[0] < 0 or method in ("percentile", "bca")  # the case the bounds are for


def test_bounded_normal_interval_is_on_the_logit_scale_where_it_would_leave_the_range():
    from scipy.special import expit, logit

    free = bootstrap_ci(SPARSE, method="normal", n_resamples=2000, rng=1)
    kept = bootstrap_ci(SPARSE, method="normal", n_resamples=2000, rng=1, bounds=(0, 1))
    low, high = free.confidence_interval
    outside = (low < 0) | (high > 1)
    assert outside.tolist() == [True, False, True]
    theta, dist = free.statistic, free.bootstrap_distribution
    sd = logit(np.clip(dist, 1e-5, 1 - 1e-5)).std(axis=1, ddof=1)
    z = 1.959963984540054
    expected_low = np.where(outside, expit(logit(theta) - z * sd), low)
    expected_high = np.where(outside, expit(logit(theta) + z * sd), high)
    np.testing.assert_allclose(kept.confidence_interval.low, expected_low, rtol=1e-12)
    np.testing.assert_allclose(kept.confidence_interval.high, expected_high, rtol=1e-12)


def test_no_end_is_nan_and_an_unbounded_end_is_the_end_of_the_range():
    """With 2 topics half the resamples repeat one topic (infinite t): the studentised ends were NaN
    (a quantile between two infinite pivots) and printed blank."""
    two = np.array([[0.1, 0.3], [0.0, 0.5]])
    with pytest.warns(DegenerateWarning, match="unbounded"):
        free = bootstrap_ci(two, n_resamples=1000, rng=1)
    assert not np.isnan(free.confidence_interval.low).any() and not np.isnan(free.confidence_interval.high).any()
    with pytest.warns(DegenerateWarning, match=r"shown as the end of the range \[0, 1\]"):
        kept = bootstrap_ci(two, n_resamples=1000, rng=1, bounds=(0, 1))
    assert kept.confidence_interval.low.tolist() == [0, 0] and kept.confidence_interval.high.tolist() == [1, 1]


def test_a_resample_of_one_repeated_score_has_zero_spread():
    """Rounding left a tiny spread in such resamples: a studentised end of -4,132,834 for [0, 0.1, 0]."""
    with pytest.warns(DegenerateWarning, match="unbounded"):
        res = bootstrap_ci(np.array([0.0, 0.1, 0.0]), n_resamples=1000, rng=1)
    assert res.confidence_interval.low == -np.inf or res.confidence_interval.low > -1


def test_bounded_normal_covers_better_near_zero_than_clipped():
    """The measurement behind the bounded normal interval (benchmarks/bounded_interval_coverage.py),
    in small: 600 samples of 10 topics of a score that is 0 with probability 0.85, else Beta(1, 3)."""
    rng = np.random.default_rng(5)
    sample = np.where(rng.random((600, 10)) < 0.85, 0.0, rng.beta(1.0, 3.0, (600, 10)))
    truth = 0.15 * 0.25
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)  # samples of ten zeros
        free = bootstrap_ci(sample, method="normal", n_resamples=1000, rng=1).confidence_interval
        kept = bootstrap_ci(sample, method="normal", n_resamples=1000, rng=1, bounds=(0, 1)).confidence_interval
    covered_free = np.mean((free.low <= truth) & (truth <= free.high))  # = clipped: truth is in [0, 1]
    covered_kept = np.mean((kept.low <= truth) & (truth <= kept.high))
    se = np.sqrt(covered_free * (1 - covered_free) / 600)
    assert covered_kept > covered_free + 3 * se, (covered_free, covered_kept)
    assert ((kept.low >= 0) & (kept.high <= 1)).all()


def test_bad_bounds():
    with pytest.raises(ValueError, match=r"'bounds' must be \(lo, hi\) with lo < hi"):
        bootstrap_ci(SPARSE, bounds=(1, 0))
    with pytest.raises(TypeError, match="'bounds' must be None or a pair of numbers"):
        bootstrap_ci(SPARSE, bounds="0-1")
