"""Power and topic-set size against statsmodels' TTestPower."""
import numpy as np
import pytest
from statsmodels.stats.power import TTestPower

from pyterrier_boot.stats.power import effect_size, paired_power, power_analysis, topics_needed

SM_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n,d", [(10, 0.3), (25, 0.5), (50, 0.2), (100, 0.8)])
def test_power_equals_statsmodels(alternative, n, d):
    d = -d if alternative == "less" else d
    ours = paired_power(n, d, alpha=0.05, alternative=alternative)
    ref = TTestPower().power(effect_size=d, nobs=n, alpha=0.05, alternative=SM_ALTERNATIVE[alternative])
    assert ours == pytest.approx(ref, rel=1e-8)


@pytest.mark.parametrize("d,power", [(0.2, 0.8), (0.5, 0.9), (0.8, 0.8), (0.35, 0.95)])
def test_topics_needed_is_the_smallest_n_reaching_power(d, power):
    n = topics_needed(d, alpha=0.05, power=power)
    ref = TTestPower().solve_power(effect_size=d, alpha=0.05, power=power)
    assert n == int(np.ceil(ref))
    assert paired_power(n, d) >= power > paired_power(n - 1, d)


def test_kanoulas_effect_size_and_analysis():
    a = np.array([.25, .43, .39, .75, .43, .15, .20, .52, .49, .50])
    b = np.array([.35, .84, .15, .75, .68, .85, .80, .50, .58, .75])
    assert effect_size(b, a) == pytest.approx(0.214 / 0.291, abs=5e-3)
    assert effect_size(b - a) == effect_size(b, a)
    res = power_analysis(b, a, difference=0.05)
    sd = np.std(b - a, ddof=1)
    assert res.sd == pytest.approx(sd)
    assert res.effect_size == pytest.approx(0.05 / sd)
    assert res.topics_needed == int(np.ceil(TTestPower().solve_power(effect_size=0.05 / sd, alpha=0.05, power=0.8)))
    assert res.power == pytest.approx(TTestPower().power(effect_size=0.05 / sd, nobs=10, alpha=0.05))
    power, needed = res
    assert needed == res.topics_needed


def test_bad_input():
    with pytest.raises(ValueError, match="'effect_size' must be finite, non-zero and in the direction of alternative='greater'"):
        topics_needed(-0.3, alternative="greater")
    with pytest.raises(ValueError, match="more than max_topics=100 topics would be needed"):
        topics_needed(0.01, max_topics=100)
    with pytest.raises(ValueError, match="'n_topics' must be at least 2"):
        paired_power(1, 0.5)
    with pytest.raises(ValueError, match="zero variance"):
        power_analysis([0.5, 0.6], [0.4, 0.5])
