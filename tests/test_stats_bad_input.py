"""Bad input to the pairwise tests: each message pinned."""
import warnings

import numpy as np
import pandas as pd
import pytest

from pyterrier_boot._warnings import DegenerateWarning, InputWarning
from pyterrier_boot.stats.significance import (
    paired_bootstrap_test,
    randomization_test,
    sign_test,
    t_test,
    unpaired_bootstrap_test,
    wilcoxon_test,
)

PAIRED = [paired_bootstrap_test, randomization_test, t_test, wilcoxon_test, sign_test]


@pytest.mark.parametrize("test", PAIRED)
def test_mismatched_topic_sets_are_an_error(test):
    x = pd.Series([0.1, 0.2, 0.3, 0.4], index=["301", "302", "303", "304"])
    y = pd.Series([0.2, 0.2, 0.1, 0.5], index=["301", "302", "303", "305"])
    with pytest.raises(ValueError, match=r"'x' and 'y' cover different topics: 1 only in 'x' \['304'\], 1 only in 'y' \['305'\]; pass nan_policy='omit' to keep the common topics"):
        test(x, y)


@pytest.mark.parametrize("test", PAIRED)
def test_explicit_alignment_warns_naming_dropped_topics(test):
    x = pd.Series([0.1, 0.25, 0.3, 0.4, 0.6], index=["301", "302", "303", "304", "306"])
    y = pd.Series([0.5, 0.2, 0.2, 0.1, 0.45], index=["305", "301", "302", "303", "306"])
    with pytest.warns(InputWarning, match=r"dropped 2 topic\(s\) not scored for both 'x' and 'y': \['304', '305'\]"):
        res = test(x, y, nan_policy="omit")
    assert res.n_topics == 4
    assert res.difference == pytest.approx(np.mean([0.1 - 0.2, 0.25 - 0.2, 0.3 - 0.1, 0.6 - 0.45]))


@pytest.mark.parametrize("test", PAIRED)
def test_nan_scores(test):
    x = [0.1, np.nan, 0.3, 0.5, 0.2]
    y = [0.2, 0.2, 0.1, 0.4, 0.25]
    with pytest.raises(ValueError, match=r"NaN scores for 1 topic\(s\) \[1\] in 'x' or 'y'; pass nan_policy='omit' to drop those topics from both"):
        test(x, y)
    with pytest.warns(InputWarning, match=r"dropped 1 topic\(s\) with NaN scores from both 'x' and 'y': \[1\]"):
        assert test(x, y, nan_policy="omit").n_topics == 4


@pytest.mark.parametrize("test", PAIRED)
def test_fewer_than_two_topics(test):
    with pytest.raises(ValueError, match="a paired test needs at least 2 topics, got 1"):
        test([0.3], [0.2])


@pytest.mark.parametrize("test", PAIRED)
def test_different_lengths(test):
    with pytest.raises(ValueError, match=r"'x' and 'y' must have the same length \(scores paired by topic position\), got 3 and 2"):
        test([0.3, 0.2, 0.1], [0.2, 0.1])


@pytest.mark.parametrize("test", PAIRED)
def test_identical_systems_give_p_1_and_a_warning(test):
    x = np.array([0.1, 0.5, 0.3, 0.7])
    with pytest.warns(DegenerateWarning, match="all paired differences are 0 for 1 pair\\(s\\): x vs y; the test statistic is undefined; returning pvalue=1.0"):
        res = test(x, x.copy())
    assert res.pvalue == 1.0 and res.difference == 0.0


@pytest.mark.parametrize("test", [paired_bootstrap_test, t_test])
def test_constant_differences_give_p_1_and_a_warning(test):
    x = np.array([0.1, 0.5, 0.3, 0.7])
    with pytest.warns(DegenerateWarning, match=r"all paired differences are equal \(zero variance\) for 1 pair\(s\): x vs y; the t statistic is undefined or infinite; returning pvalue=1.0"):
        res = test(x + 0.125, x)
    assert res.pvalue == 1.0
    assert res.difference == pytest.approx(0.125)
    # issue 11: the interval is the test's own, so with p = 1 no shift is rejected and it is the whole
    # line (it was [0.125, 0.125], which excluded 0 beside p = 1); the warning says so
    assert tuple(res.confidence_interval) == (-np.inf, np.inf)


def test_constant_nonzero_differences_are_fine_for_rank_and_permutation_tests():
    x = np.array([0.1, 0.5, 0.3, 0.7, 0.2, 0.4])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert randomization_test(x + 0.1, x).pvalue == pytest.approx(2 / 64)
        assert sign_test(x + 0.1, x).pvalue == pytest.approx(2 / 64)


@pytest.mark.parametrize("test", PAIRED)
def test_unknown_option_values_list_the_choices(test):
    with pytest.raises(ValueError, match="'alternative' must be one of 'two-sided', 'less', 'greater'; got 'larger'"):
        test([0.1, 0.2, 0.3], [0.2, 0.1, 0.1], alternative="larger")
    with pytest.raises(ValueError, match="'nan_policy' must be one of 'raise', 'omit'; got 'propagate'"):
        test([0.1, 0.2, 0.3], [0.2, 0.1, 0.1], nan_policy="propagate")


def test_other_bad_values():
    with pytest.raises(ValueError, match="'zero_method' must be one of 'wilcox', 'pratt', 'zsplit'; got 'drop'"):
        wilcoxon_test([0.1, 0.2, 0.3], [0.2, 0.1, 0.1], zero_method="drop")
    with pytest.raises(ValueError, match="'x' must be one-dimensional"):
        t_test(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(TypeError, match="'x' must hold numeric scores"):
        t_test(["a", "b"], [0.1, 0.2])
    with pytest.raises(ValueError, match="'x' needs at least 2 topics, got 1"):
        unpaired_bootstrap_test([0.1], [0.2, 0.3])
    with pytest.raises(ValueError, match=r"statistic='gmean' needs 'y' in \[0.0, inf\]"):
        unpaired_bootstrap_test([0.1, 0.2], [-0.2, 0.3], statistic="gmean")
    with pytest.raises(TypeError, match="'rng' must be None, an int, a numpy SeedSequence or a numpy Generator"):
        paired_bootstrap_test([0.1, 0.2, 0.3], [0.2, 0.1, 0.1], rng="seed")
    with pytest.raises(TypeError, match="'plan' must be a SignFlipPlan for the randomisation test"):
        randomization_test([0.1, 0.2, 0.3], [0.2, 0.1, 0.1], plan=np.zeros((3, 3), dtype=int))
