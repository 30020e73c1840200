"""Meta-analysis against statsmodels.stats.meta_analysis.combine_effects and scipy's combine_pvalues."""
import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from statsmodels.stats.meta_analysis import combine_effects

from pyterrier_boot.meta.meta_analysis import logit_difference, meta_analysis


@pytest.mark.parametrize("seed", range(8))
def test_fixed_and_dersimonian_laird_equal_statsmodels(seed):
    rng = np.random.default_rng(seed)
    k = 30
    se = rng.uniform(0.1, 0.8, k)
    d = 0.3 + rng.normal(0, 0.4, k) + rng.normal(0, se)
    res = meta_analysis(d, se)
    ref = combine_effects(d, se ** 2, method_re="dl")
    assert res.fixed.estimate == pytest.approx(ref.mean_effect_fe, rel=1e-12)
    assert res.fixed.standard_error == pytest.approx(ref.sd_eff_w_fe, rel=1e-12)
    assert res.q == pytest.approx(ref.q, rel=1e-12)
    frame = ref.summary_frame()
    assert res.fixed.confidence_interval.low == pytest.approx(frame.loc["fixed effect", "ci_low"])
    np.testing.assert_allclose(res.fixed.weights, ref.weights_rel_fe)
    if ref.tau2 >= 0:
        assert res.random.estimate == pytest.approx(ref.mean_effect_re, rel=1e-12)
        assert res.random.standard_error == pytest.approx(ref.sd_eff_w_re, rel=1e-12)
        assert res.tau2 == pytest.approx(ref.tau2, rel=1e-10)
        assert res.i2 == pytest.approx(ref.i2, rel=1e-10)
        assert res.random.confidence_interval.high == pytest.approx(frame.loc["random effect", "ci_upp"])
        np.testing.assert_allclose(res.random.weights, ref.weights_rel_re)
    else:
        # statsmodels 0.15 does not truncate the moment estimate at 0; DerSimonian-Laird does,
        # and then the random-effects model is the fixed-effect one
        assert res.tau2 == 0 and res.i2 == 0
        assert res.random.estimate == res.fixed.estimate
        assert res.random.standard_error == res.fixed.standard_error
    assert res.statistic == res.random.estimate and res.pvalue == res.random.pvalue


def test_homogeneous_effects_have_no_heterogeneity():
    res = meta_analysis([0.2, 0.2, 0.2, 0.2], [0.1, 0.2, 0.3, 0.1])
    assert res.tau2 == 0 and res.i2 == 0 and res.q == pytest.approx(0)
    assert res.fixed.estimate == pytest.approx(0.2) == res.random.estimate
    w = 1 / np.array([0.1, 0.2, 0.3, 0.1]) ** 2
    assert res.fixed.standard_error == pytest.approx(w.sum() ** -0.5)
    assert res.q_pvalue == pytest.approx(1.0)


def test_stouffer_equals_scipy_combine_pvalues_and_cormack():
    rng = np.random.default_rng(1)
    d = rng.normal(0.1, 0.5, 20)
    se = rng.uniform(0.2, 0.6, 20)
    res = meta_analysis(d, se, alternative="greater")
    one_sided = stats.norm.sf(d / se)
    ref = stats.combine_pvalues(one_sided, method="stouffer")
    assert res.stouffer_statistic == pytest.approx(ref.statistic)
    assert res.stouffer_pvalue == pytest.approx(ref.pvalue)
    # Cormack & Lynam §9: p = 1 - Phi(sum(d_i / sigma_i) / sqrt(k))
    assert res.stouffer_pvalue == pytest.approx(1 - stats.norm.cdf((d / se).sum() / np.sqrt(20)))
    two = meta_analysis(d, se)
    assert two.stouffer_pvalue == pytest.approx(2 * min(ref.pvalue, 1 - ref.pvalue))


def test_fixed_method_and_tables():
    res = meta_analysis(pd.Series([0.1, 0.5, -0.2], index=["301", "302", "303"]), [0.2, 0.3, 0.25],
                        method="fixed")
    assert res.statistic == res.fixed.estimate and res.labels == ("301", "302", "303")
    frame = res.to_frame()
    assert frame["label"].tolist() == ["301", "302", "303", "fixed effect", "random effects"]
    z = stats.norm.ppf(0.975)
    assert frame["ci_low"].iloc[0] == pytest.approx(0.1 - z * 0.2)
    summary = res.summary()
    assert summary["model"].tolist() == ["fixed", "random"] and "tau2" in summary.attrs


def test_logit_difference():
    x = np.array([0.0, 0.3, 1.0, 0.5])
    y = np.array([0.2, 0.3, 0.9, 0.0])
    eps = 1e-5
    expected = special.logit(np.clip(x, eps, 1 - eps)) - special.logit(np.clip(y, eps, 1 - eps))
    np.testing.assert_allclose(logit_difference(x, y), expected)
    series = logit_difference(pd.Series(x, index=list("abcd")), y, eps=0.01)
    assert list(series.index) == list("abcd")
    assert series["a"] == pytest.approx(special.logit(0.01) - special.logit(0.2))
    with pytest.raises(ValueError, match=r"'y' must hold scores in \[0, 1\] for a logit, got values in \[0, 1.5\]"):
        logit_difference(x, [0, 0, 1.5, 0])
    with pytest.raises(ValueError, match=r"'eps' must be in \(0, 0.5\), got 0.7"):
        logit_difference(x, y, eps=0.7)


def test_bad_input():
    with pytest.raises(ValueError, match=r"'standard_errors' must be positive, but 1 topic\(s\) have 0: \['302'\]; a zero bootstrap SD"):
        meta_analysis(pd.Series([0.1, 0.2], index=["301", "302"]), [0.1, 0.0])
    with pytest.raises(ValueError, match="'effects' and 'standard_errors' must have the same length, got 3 and 2"):
        meta_analysis([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match="a meta-analysis needs at least 2 topics, got 1"):
        meta_analysis([0.1], [0.1])
    with pytest.raises(ValueError, match=r"'effects' must be finite \(no NaN or infinite values\)"):
        meta_analysis([0.1, np.nan], [0.1, 0.1])
