"""Hypothesis properties: p-value range, topic-order invariance, mirrored alternatives, reproducibility."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pyterrier_boot.stats.intervals import bootstrap_ci
from pyterrier_boot.stats.resampling import ResamplePlan, resample_plan, sign_flip_plan
from pyterrier_boot.stats.significance import (
    paired_bootstrap_test,
    randomization_test,
    sign_test,
    t_test,
    wilcoxon_test,
)

B = 199


def _pairs(min_topics):
    return st.integers(min_value=min_topics, max_value=25).flatmap(
        lambda n: st.tuples(
            arrays(float, n, elements=st.floats(0, 1, allow_nan=False, width=32)),
            arrays(float, n, elements=st.floats(0, 1, allow_nan=False, width=32)),
        )
    )


scores = _pairs(3)
settings.register_profile("stats", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("stats")


def _quiet(test, *args, **kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return test(*args, **kwargs)


@given(scores, st.sampled_from(["two-sided", "greater", "less"]))
def test_resampling_pvalues_lie_in_range(data, alternative):
    x, y = data
    for test in (paired_bootstrap_test, randomization_test):
        res = _quiet(test, x, y, n_resamples=B, rng=0, alternative=alternative)
        exact = getattr(res.plan, "exact", False)
        low = 1 / res.plan.n_resamples if exact else 1 / (B + 1)
        assert low - 1e-15 <= res.pvalue <= 1


# scipy's Wilcoxon p-value with ties on 13 topics or fewer is a 2^n permutation test (seconds per
# example): the default run checks 14 topics or more on 10 examples, the slow run every size on 100
FEW = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _rank_tests_are_invariant_to_topic_order(data, random, tests):
    x, y = data
    perm = np.array(random.sample(range(x.size), x.size))
    for test in tests:
        a, b = _quiet(test, x, y), _quiet(test, x[perm], y[perm])
        assert a.pvalue == pytest.approx(b.pvalue, rel=1e-9, abs=1e-12)
    return x, y, perm


@given(scores, st.randoms(use_true_random=False))
def test_invariance_to_topic_order(data, random):
    x, y, perm = _rank_tests_are_invariant_to_topic_order(data, random, (t_test, sign_test))
    # resampling tests: the same resamples, relabelled, give the same answer
    plan = resample_plan(x.size, n_resamples=B, rng=1)
    inverse = np.argsort(perm)
    a = _quiet(paired_bootstrap_test, x, y, plan=plan)
    b = _quiet(paired_bootstrap_test, x[perm], y[perm], plan=ResamplePlan(inverse[plan.indices]))
    assert a.pvalue == b.pvalue
    flips = sign_flip_plan(x.size, n_resamples=B, rng=1)
    from pyterrier_boot.stats.resampling import SignFlipPlan

    a = _quiet(randomization_test, x, y, plan=flips)
    b = _quiet(randomization_test, x[perm], y[perm], plan=SignFlipPlan(flips.signs[:, perm], exact=flips.exact))
    assert a.pvalue == b.pvalue


@FEW
@given(_pairs(14), st.randoms(use_true_random=False))
def test_wilcoxon_invariance_to_topic_order(data, random):
    _rank_tests_are_invariant_to_topic_order(data, random, (wilcoxon_test,))


@pytest.mark.slow
@MANY
@given(scores, st.randoms(use_true_random=False))
def test_wilcoxon_invariance_to_topic_order_many_inputs(data, random):
    _rank_tests_are_invariant_to_topic_order(data, random, (wilcoxon_test,))


MIRROR = {"two-sided": "two-sided", "greater": "less", "less": "greater"}


def _swapping_mirrors(data, alternative, tests):
    x, y = data
    for test in tests:
        kwargs = {"rng": 3, "n_resamples": B} if test in (paired_bootstrap_test, randomization_test) else {}
        a = _quiet(test, x, y, alternative=alternative, **kwargs)
        b = _quiet(test, y, x, alternative=MIRROR[alternative], **kwargs)
        assert a.pvalue == pytest.approx(b.pvalue, rel=1e-12, abs=1e-15), test.__name__
        assert a.difference == -b.difference


@given(scores, st.sampled_from(["two-sided", "greater", "less"]))
def test_swapping_systems_mirrors_the_alternative(data, alternative):
    _swapping_mirrors(data, alternative, (paired_bootstrap_test, randomization_test, t_test, sign_test))


@FEW
@given(_pairs(14), st.sampled_from(["two-sided", "greater", "less"]))
def test_swapping_systems_mirrors_the_wilcoxon_alternative(data, alternative):
    _swapping_mirrors(data, alternative, (wilcoxon_test,))


@pytest.mark.slow
@MANY
@given(scores, st.sampled_from(["two-sided", "greater", "less"]))
def test_swapping_systems_mirrors_the_wilcoxon_alternative_many_inputs(data, alternative):
    _swapping_mirrors(data, alternative, (wilcoxon_test,))


@given(scores)
def test_identical_results_for_the_same_rng(data):
    x, y = data
    for test in (paired_bootstrap_test, randomization_test):
        a = _quiet(test, x, y, n_resamples=B, rng=12)
        b = _quiet(test, x, y, n_resamples=B, rng=np.random.default_rng(12))
        assert a.pvalue == b.pvalue
        np.testing.assert_array_equal(a.null_distribution, b.null_distribution)


@given(arrays(float, st.integers(3, 20), elements=st.floats(0, 1, allow_nan=False, width=32)),
       st.integers(1, 300))
def test_batch_size_does_not_change_intervals(x, batch):
    a = _quiet(bootstrap_ci, x, statistic="median", method="percentile", n_resamples=B, rng=5, batch=batch)
    b = _quiet(bootstrap_ci, x, statistic="median", method="percentile", n_resamples=B, rng=5)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert tuple(a.confidence_interval) == tuple(b.confidence_interval)
