"""The shared resample plans: scipy-compatible draws, exact enumeration, blocked products."""
import numpy as np
import pytest

from pyterrier_boot.stats import resampling
from pyterrier_boot.stats.resampling import (
    ResamplePlan,
    SignFlipPlan,
    resample_plan,
    sign_flip_plan,
    weighted_sums,
)


def test_plan_draws_the_indices_scipy_bootstrap_draws():
    # scipy.stats.bootstrap draws rng.integers(0, n, (n_resamples, n)) in one call (batch=None)
    plan = resample_plan(17, n_resamples=300, rng=5)
    reference = np.random.default_rng(5).integers(0, 17, (300, 17))
    np.testing.assert_array_equal(plan.indices, reference)
    assert plan.n_resamples == 300 and plan.n_topics == 17


def test_weights_count_draws_per_topic():
    plan = resample_plan(9, n_resamples=50, rng=1)
    w = plan.weights()
    assert w.shape == (50, 9)
    np.testing.assert_array_equal(w.sum(axis=1), 9)
    for b in range(50):
        np.testing.assert_array_equal(w[b], np.bincount(plan.indices[b], minlength=9))


def test_plan_is_read_only_and_replayable_from_indices():
    plan = resample_plan(6, n_resamples=20, rng=2)
    with pytest.raises(ValueError):
        plan.indices[0, 0] = 1
    again = ResamplePlan(np.asarray(plan.indices, dtype=np.int64))
    np.testing.assert_array_equal(again.indices, plan.indices)


@pytest.mark.parametrize("n_topics,n_series", [(5, 1), (54, 3), (54, 70), (300, 33)])
def test_weighted_sums_equal_a_plain_product(n_topics, n_series):
    rng = np.random.default_rng(0)
    values = rng.normal(size=(n_series, n_topics))
    plan = resample_plan(n_topics, n_resamples=777, rng=3)
    expected = values @ plan.weights().T  # one numpy product: independent of the blocking
    np.testing.assert_allclose(weighted_sums(plan, values), expected, rtol=1e-12, atol=1e-12)


def test_weighted_sums_are_bitwise_identical_alone_or_among_many():
    rng = np.random.default_rng(1)
    values = rng.random((100, 54))
    plan = resample_plan(54, n_resamples=1000, rng=4)
    together = weighted_sums(plan, values)
    for row in (0, 31, 32, 99):
        np.testing.assert_array_equal(weighted_sums(plan, values[row]), together[row:row + 1])
    np.testing.assert_array_equal(weighted_sums(plan, values[40:77]), together[40:77])


def test_sign_flip_plan_enumerates_all_flips_when_cheaper():
    plan = sign_flip_plan(4, n_resamples=16)
    assert plan.exact and plan.signs.shape == (16, 4)
    assert len({tuple(row) for row in plan.signs}) == 16
    np.testing.assert_array_equal(plan.signs[0], 1)  # the observed data is one of the flips


def test_sign_flip_plan_samples_when_enumeration_is_too_large():
    plan = sign_flip_plan(20, n_resamples=1000, rng=7)
    assert not plan.exact and plan.signs.shape == (1000, 20)
    assert abs((plan.signs == 1).mean() - 0.5) < 0.02
    np.testing.assert_array_equal(plan.signs, sign_flip_plan(20, n_resamples=1000, rng=7).signs)


def test_row_block_depends_on_topics_only_and_stays_small():
    for n in (2, 10, 54, 100, 1000, 5000):
        rows = resampling.row_block(n)
        assert 8 <= rows <= 256 and rows % 8 == 0
        assert rows * resampling.COL_BLOCK * n < 2 ** 18 or rows == 8


@pytest.mark.parametrize("indices,message", [
    (np.zeros((3,), dtype=int), "must be a 2-D array"),
    (np.array([[0, 2], [1, 1]]), r"must lie in \[0, 2\)"),
])
def test_plan_validation(indices, message):
    with pytest.raises(ValueError, match=message):
        ResamplePlan(indices)


def test_plan_type_and_sign_validation():
    with pytest.raises(TypeError, match="must be integers"):
        ResamplePlan(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"\+1 or -1"):
        SignFlipPlan(np.zeros((2, 2), dtype=int))
    with pytest.raises(ValueError, match="'n_resamples' must be an integer >= 1, got 0"):
        resample_plan(5, n_resamples=0)
    with pytest.raises(TypeError, match="'n_topics' must be an integer"):
        resample_plan(5.5)
