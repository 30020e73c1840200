"""Small-R correction (Cormack & Lynam 2006, §7) against brute-force enumeration and the paper."""
import itertools
from fractions import Fraction

import numpy as np
import pytest

from pyterrier_boot.corpus.small_r import (
    expected_ap,
    lead_balloon_limit,
    silver_bullet_limit,
    silver_bullet_share,
    small_r_correction,
)


def test_paper_example_r4_alpha005():
    # "if R = 4, the 95% confidence limit for the proportion of silver bullets is [0, 0.53]"
    assert round(float(silver_bullet_share(4, confidence_level=0.95)), 2) == 0.53
    # definition: the smallest u with (1 - u)^R <= alpha
    u = float(silver_bullet_share(4))
    assert (1 - u) ** 4 == pytest.approx(0.05)
    assert (1 - (u - 1e-6)) ** 4 > 0.05
    assert np.isnan(silver_bullet_share(0))


def brute_force_expected_ap(R, n, u):
    """Every subset of the R relevant documents as silver bullets, every placement of them at
    distinct ranks among n (bullets beyond n not retrieved), AP from its definition."""
    u = Fraction(u)
    total = Fraction(0)
    for bullets in itertools.product([0, 1], repeat=R):
        x = sum(bullets)
        p_subset = u**x * (1 - u) ** (R - x)
        placed = min(x, n)
        placements = list(itertools.combinations(range(1, n + 1), placed))
        mean_ap = Fraction(0)
        for ranks in placements:
            mean_ap += sum(Fraction(j + 1, r) for j, r in enumerate(sorted(ranks))) / R
        total += p_subset * mean_ap / len(placements)
    return float(total)


@pytest.mark.parametrize(("R", "n"), [(1, 1), (1, 4), (2, 3), (3, 5), (4, 2), (4, 6), (2, 1)])
@pytest.mark.parametrize("u", [0.3, 0.527, 1.0])
def test_expected_ap_against_brute_force_enumeration(R, n, u):
    assert expected_ap(R, n, u) == pytest.approx(brute_force_expected_ap(R, n, u), rel=1e-12)


def test_silver_bullet_limit_is_expected_ap_at_the_binomial_limit():
    for R, n in [(1, 5), (3, 4), (4, 6)]:
        u = float(silver_bullet_share(R))
        assert float(silver_bullet_limit(R, n)) == pytest.approx(brute_force_expected_ap(R, n, u), rel=1e-12)
    assert float(silver_bullet_limit(4, 0)) == 0.0  # an empty ranking retrieves nothing


def test_lead_balloon_limit_against_enumeration():
    # X ~ Binomial(R, u) relevant documents are never retrieved; the others keep ranks 1..R-X
    for R in (1, 2, 4, 7):
        u = Fraction(float(silver_bullet_share(R)))
        expected = sum(u**sum(s) * (1 - u) ** (R - sum(s)) * Fraction(R - sum(s), R)
                       for s in itertools.product([0, 1], repeat=R))
        assert float(lead_balloon_limit(R)) == pytest.approx(float(expected), rel=1e-12)
    assert float(lead_balloon_limit(4)) == pytest.approx(0.05**0.25)


def test_correction_widens_only_near_zero_and_one():
    R = np.array([4, 4, 4, 4, 4, 0])
    depth = np.full(6, 1000)
    theta = np.array([0.0, 1.0, 0.4, 0.002, 0.6, 0.0])
    low = np.array([0.0, 1.0, 0.3, 0.001, 0.5, 0.0])
    high = np.array([0.0, 1.0, 0.5, 0.01, 0.7, 0.0])
    new_low, new_high, applied = small_r_correction(theta, low, high, R, depth)
    upper = float(silver_bullet_limit(4, 1000))  # 0.0048
    lower = float(lead_balloon_limit(4))  # 0.473
    assert applied.tolist() == [True, True, False, True, True, False]
    np.testing.assert_allclose(new_low, [0.0, lower, 0.3, 0.0, lower, 0.0])
    np.testing.assert_allclose(new_high, [upper, 1.0, 0.5, 0.01, 1.0, 0.0])  # the hull of both intervals
