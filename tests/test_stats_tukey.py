"""Tukey HSD with topics as blocks against an independent two-way ANOVA (statsmodels)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pyterrier_boot._warnings import DegenerateWarning
from pyterrier_boot.stats.significance import randomization_test
from pyterrier_boot.stats.tukey import randomized_tukey_hsd, tukey_hsd


@pytest.fixture
def scores():
    rng = np.random.default_rng(7)
    topic = rng.beta(1, 2, size=20)
    shift = np.array([0.0, 0.02, 0.08, 0.09])[:, None]
    return np.clip(topic + shift + rng.normal(0, 0.06, size=(4, 20)), 0, 1)


def test_equals_two_way_anova_without_replication(scores):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    S, n = scores.shape
    long = pd.DataFrame({"value": scores.ravel(), "system": np.repeat(np.arange(S), n).astype(str),
                         "topic": np.tile(np.arange(n), S).astype(str)})
    fit = smf.ols("value ~ C(system) + C(topic)", data=long).fit()
    table = anova_lm(fit)
    mse = table.loc["Residual", "sum_sq"] / table.loc["Residual", "df"]
    df = int(table.loc["Residual", "df"])
    res = tukey_hsd(scores, confidence_level=0.9)
    assert res.mse == pytest.approx(mse, rel=1e-10) and res.df == df == (S - 1) * (n - 1)
    means = scores.mean(axis=1)
    for i in range(S):
        for j in range(S):
            if i == j:
                continue
            q = abs(means[i] - means[j]) / np.sqrt(mse / n)
            assert res.pvalue[i, j] == pytest.approx(stats.studentized_range.sf(q, S, df), rel=1e-8)
            half = stats.studentized_range.ppf(0.9, S, df) * np.sqrt(mse / n)
            assert res.confidence_interval.low[i, j] == pytest.approx(means[i] - means[j] - half, rel=1e-8)
    assert res.statistic[2, 0] == pytest.approx(means[2] - means[0])


def test_two_systems_reduce_to_the_paired_t_test(scores):
    res = tukey_hsd(scores[:2])
    ref = stats.ttest_rel(scores[0], scores[1])
    assert res.pvalue[0, 1] == pytest.approx(ref.pvalue, rel=1e-6)


def test_pairing_matters(scores):
    # one-way Tukey (scipy) ignores the topic blocks and is much weaker here
    blocked = tukey_hsd(scores).pvalue[0, 2]
    one_way = stats.tukey_hsd(*scores).pvalue[0, 2]
    assert blocked < one_way


def test_randomized_two_systems_is_the_randomization_test(scores):
    x, y = scores[0], scores[1]
    res = randomized_tukey_hsd(scores[:2], n_resamples=4000, rng=1)
    ref = randomization_test(x, y, n_resamples=20000, rng=2).pvalue
    se = np.sqrt(ref * (1 - ref) * (1 / 4000 + 1 / 20000))
    assert abs(res.pvalue[0, 1] - ref) < 4 * se + 1 / 4001


def test_randomized_agrees_with_tukey_and_adjusts(scores):
    res = randomized_tukey_hsd(scores, n_resamples=3000, rng=2)
    classic = tukey_hsd(scores)
    assert res.null_distribution.shape == (3000,)
    assert np.all(res.pvalue >= 1 / 3001) and np.all(res.pvalue <= 1)
    # family-wise adjusted p-values are larger than the unadjusted randomisation p-value
    assert res.pvalue[0, 2] >= randomization_test(scores[0], scores[2], n_resamples=3000, rng=2).pvalue
    assert (res.pvalue[0, 2] < 0.05) == (classic.pvalue[0, 2] < 0.05)
    again = randomized_tukey_hsd(scores, n_resamples=3000, rng=2)
    np.testing.assert_array_equal(again.pvalue, res.pvalue)


def test_labels_and_long_table(scores):
    frame = pd.DataFrame(scores.T, columns=["a", "b", "c", "d"])  # one row per topic, one column per system
    table = tukey_hsd(frame).to_frame()
    assert list(table.columns) == ["system_a", "system_b", "difference", "ci_low", "ci_high", "p-value", "reject"]
    assert table[["system_a", "system_b"]].values.tolist()[:3] == [["a", "b"], ["a", "c"], ["a", "d"]]


def test_degenerate_and_bad_input():
    topic = np.linspace(0, 1, 6)
    with pytest.warns(DegenerateWarning, match="fits the scores exactly"):
        res = tukey_hsd(np.vstack([topic, topic + 0.1]))
    assert np.all(res.pvalue == 1)
    with pytest.raises(ValueError, match=r"'scores' needs at least 2 systems \(rows\), got 1"):
        tukey_hsd(np.ones((1, 5)))
    with pytest.raises(ValueError, match="'scores' must be a 2-D array of systems x topics"):
        tukey_hsd(np.ones(5))
