"""TOST equivalence tests (Schuirmann 1987) against statsmodels' ttost_paired / ttost_ind."""
import numpy as np
import pytest
from statsmodels.stats.weightstats import ttost_ind, ttost_paired

from pyterrier_boot import paired_tost, unpaired_tost


def _samples(seed, n=25, m=None, shift=0.0, sd=0.05):
    rng = np.random.default_rng(seed)
    x = rng.beta(2, 5, n)
    y = (x if m is None else rng.beta(2, 5, m)) + shift + rng.normal(0, sd, n if m is None else m)
    return x, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("margin", [0.005, 0.02, 0.1])
def test_paired_tost_matches_statsmodels(seed, margin):
    x, y = _samples(seed, shift=0.01 * (seed - 3))
    res = paired_tost(x, y, margin=margin)
    p, (t1, p1, df1), (t2, p2, df2) = ttost_paired(x, y, -margin, margin)
    assert res.pvalue == pytest.approx(p, rel=1e-10, abs=1e-300)
    assert res.pvalue_lower == pytest.approx(p1, rel=1e-10, abs=1e-300)
    assert res.pvalue_upper == pytest.approx(p2, rel=1e-10, abs=1e-300)
    assert res.statistic_lower == pytest.approx(t1, rel=1e-10)
    assert res.statistic_upper == pytest.approx(t2, rel=1e-10)
    assert res.df == df1 == df2
    assert res.statistic == pytest.approx(t1 if p1 >= p2 else t2, rel=1e-10)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("equal_var,usevar", [(True, "pooled"), (False, "unequal")])
def test_unpaired_tost_matches_statsmodels(seed, equal_var, usevar):
    x, y = _samples(seed, n=20, m=31, shift=0.01 * (seed - 3))
    margin = 0.08
    res = unpaired_tost(x, y, margin=margin, equal_var=equal_var)
    p, (t1, p1, df1), (t2, p2, df2) = ttost_ind(x, y, -margin, margin, usevar=usevar)
    assert res.pvalue == pytest.approx(p, rel=1e-10)
    assert res.pvalue_lower == pytest.approx(p1, rel=1e-10)
    assert res.pvalue_upper == pytest.approx(p2, rel=1e-10)
    assert res.statistic_lower == pytest.approx(t1, rel=1e-10)
    assert res.df == pytest.approx(df1, rel=1e-10)
    assert res.method == ("pooled" if equal_var else "welch")


@pytest.mark.parametrize("seed", range(40))
def test_verdict_matches_the_interval(seed):
    """Equivalence at alpha exactly when the 1 - 2 alpha interval lies within (-margin, margin)."""
    x, y = _samples(seed, n=12, shift=0.02 * np.sin(seed), sd=0.04)
    for alpha in (0.05, 0.1):
        for res in (paired_tost(x, y, margin=0.03, alpha=alpha), unpaired_tost(x, y, margin=0.15, alpha=alpha)):
            ci = res.confidence_interval
            assert res.equivalent == (-res.margin < ci.low and ci.high < res.margin)
            assert res.equivalent == (res.pvalue < alpha)


def test_interval_is_statsmodels_tconfint():
    from statsmodels.stats.weightstats import DescrStatsW

    x, y = _samples(3)
    res = paired_tost(x, y, margin=0.05, alpha=0.05)
    low, high = DescrStatsW(x - y).tconfint_mean(alpha=0.10)
    assert res.confidence_interval.low == pytest.approx(low, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(high, rel=1e-12)
    statistic, pvalue = res  # unpacks like the other tests
    assert pvalue == res.pvalue and res[1] == res.pvalue


def test_relative_margin_is_a_share_of_the_reference_mean():
    x, y = _samples(4)
    res = paired_tost(x, y, relative_margin=0.1)
    assert res.margin == pytest.approx(0.1 * abs(y.mean()))
    assert res.pvalue == pytest.approx(ttost_paired(x, y, -res.margin, res.margin)[0], rel=1e-10)


def test_constant_differences():
    x = np.array([0.3, 0.4, 0.5])
    assert paired_tost(x + 0.01, x, margin=0.02).pvalue == 0.0
    res = paired_tost(x + 0.05, x, margin=0.02)
    assert res.pvalue == 1.0 and not res.equivalent


@pytest.mark.parametrize("kwargs,message", [
    ({"margin": 0.0}, "'margin' must be a positive finite number"),
    ({"margin": -0.1}, "'margin' must be a positive finite number"),
    ({"margin": float("nan")}, "'margin' must be a positive finite number"),
    ({"relative_margin": 0}, "'relative_margin' must be a positive finite number"),
    ({}, "give exactly one of 'margin'"),
    ({"margin": 0.1, "relative_margin": 0.1}, "give exactly one of 'margin'"),
    ({"margin": 0.1, "alpha": 0.5}, "'alpha' must be a number in"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        paired_tost([0.1, 0.2, 0.3], [0.1, 0.2, 0.4], **kwargs)


def test_bad_samples():
    with pytest.raises(ValueError, match="same length"):
        paired_tost([0.1, 0.2, 0.3], [0.1, 0.2], margin=0.1)
    with pytest.raises(ValueError, match="'x' needs at least 2 values"):
        unpaired_tost([0.1], [0.1, 0.2], margin=0.1)
    with pytest.raises(ValueError, match="'y' holds NaN"):
        unpaired_tost([0.1, 0.3], [0.1, np.nan], margin=0.1)
    with pytest.raises(TypeError, match="'margin' must be a positive number"):
        paired_tost([0.1, 0.2], [0.1, 0.3], margin="0.1")
