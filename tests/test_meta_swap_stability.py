"""Swap and stability methods against naive loops of Sakai's (2007) Fig. 19 and Fig. 16.

The loops compute in exact rational arithmetic on the scores as written (``Fraction(repr(x))``:
P@10 = 0.3 is 3/10), so equal means are exactly equal, as the implementation treats them.
"""
from fractions import Fraction

import numpy as np
import pytest
from pyterrier_boot.meta.discriminative_power import discriminative_power
from pyterrier_boot.meta.stability import FUZZINESS, stability_method
from pyterrier_boot.meta.swap import bin_of, required_bin, swap_method

from pyterrier_boot.stats.resampling import resample_plan


def _scores(S=5, n=12, seed=0):
    rng = np.random.default_rng(seed)
    topic = rng.beta(2, 4, n)
    ap = np.clip(topic + np.linspace(0, 0.15, S)[:, None] + rng.normal(0, 0.1, (S, n)), 0, 1)
    p10 = np.round(np.clip(ap + rng.normal(0, 0.15, (S, n)), 0, 1), 1)
    return {"AP": ap, "P@10": p10}


def _exact(X):
    return [[Fraction(repr(float(v))) for v in row] for row in X]


def _fig19(X, idx1, idx2, width=Fraction(1, 100), n_bins=21):
    """Sakai's Fig. 19, loop by loop."""
    X = _exact(X)
    S, n = len(X), len(X[0])
    counter = [0] * n_bins
    swaps = [0] * n_bins
    for i in range(S):
        for j in range(i + 1, S):
            for r1, r2 in zip(idx1, idx2):
                d1 = sum(X[i][q] for q in r1) / n - sum(X[j][q] for q in r1) / n
                d2 = sum(X[i][q] for q in r2) / n - sum(X[j][q] for q in r2) / n
                k = min(int(abs(d1) // width), n_bins - 1)
                counter[k] += 1
                if not d1 * d2 > 0:
                    swaps[k] += 1
    return np.array(counter), np.array(swaps)


def _fig16(X, idx, f):
    """Sakai's Fig. 16 and eq. (9)-(10), loop by loop."""
    X = _exact(X)
    f = Fraction(repr(float(f)))
    S, n = len(X), len(X[0])
    mr = pt = 0
    pairs = 0
    for i in range(S):
        for j in range(i + 1, S):
            pairs += 1
            gt_xy = gt_yx = eq = 0
            for row in idx:
                mx = sum(X[i][q] for q in row) / n
                my = sum(X[j][q] for q in row) / n
                margin = f * max(mx, my)
                if abs(mx - my) < margin:
                    eq += 1
                elif mx > my:
                    gt_xy += 1
                else:
                    gt_yx += 1
            mr += min(gt_xy, gt_yx)
            pt += eq
    B = len(idx)
    return mr / (B * pairs), pt / (B * pairs)


def test_swap_counts_equal_fig19_loops():
    scores = _scores()
    res = swap_method(scores, n_resamples=60, rng=3)
    p1, p2 = res.plans
    for m, measure in enumerate(scores):
        X = scores[measure]
        counter, swaps = _fig19(X.tolist(), p1.indices.tolist(), p2.indices.tolist())
        np.testing.assert_array_equal(res.comparisons[m], counter)
        np.testing.assert_array_equal(res.swaps[m], swaps)
    assert res.comparisons.sum(axis=1).tolist() == [60 * 10, 60 * 10]
    assert res.bin_edges[-2] == pytest.approx(0.20) and len(res.bin_edges) == 22
    frame = res.to_frame()
    assert len(frame) == 42 and frame["bin_high"].iloc[20] == np.inf


def test_swap_summary_is_sakais_table_4():
    scores = _scores(S=8, n=30, seed=1)
    res = swap_method(scores, n_resamples=300, rng=0)
    for m in range(2):
        rate = res.swap_rate[m]
        i = int(round(res.required_difference[m] / 0.01))
        later = rate[i:]
        assert np.all(later[~np.isnan(later)] <= 0.05)
        if i > 0:
            assert rate[i - 1] > 0.05
        assert res.share_satisfying[m] == pytest.approx(res.comparisons[m, i:].sum() / (300 * 28))
    plan = res.plans[0]
    means = np.array([[scores["AP"][s][row].mean() for row in plan.indices] for s in range(8)])
    assert res.max_score[0] == pytest.approx(means.max())
    table = res.summary()
    assert table["relative_difference"].iloc[0] == pytest.approx(res.required_difference[0] / res.max_score[0])


def test_required_bin_rule():
    nan = np.nan
    assert required_bin(np.array([0.5, 0.2, 0.04, 0.06, 0.01, 0.0]), 0.05) == 4
    assert required_bin(np.array([0.5, 0.04, nan, 0.0]), 0.05) == 1
    assert required_bin(np.array([0.04, 0.01]), 0.05) == 0
    assert required_bin(np.array([0.5, 0.04, 0.3]), 0.05) == -1
    assert required_bin(np.array([0.5, nan, nan]), 0.05) == -1


def test_bins_are_robust_to_floating_point():
    d = np.array([0.1 - 0.07, 0.0, 0.0099999, 0.2, 0.35])
    assert bin_of(d, 0.01, 21).tolist() == [3, 0, 0, 20, 20]


def test_stability_equals_fig16_loops():
    scores = _scores(S=4, n=10, seed=2)
    fuzz = [0.0, 0.05, 0.1, 0.2]
    res = stability_method(scores, fuzziness=fuzz, n_resamples=40, rng=4)
    idx = res.plan.indices.tolist()
    for m, measure in enumerate(scores):
        for k, f in enumerate(fuzz):
            mr, pt = _fig16(scores[measure].tolist(), idx, f)
            assert res.minority_rate[m, k] == pytest.approx(float(mr))
            assert res.proportion_ties[m, k] == pytest.approx(float(pt))
    assert res.proportion_ties[0, 0] == 0
    assert np.all(np.diff(res.proportion_ties, axis=1) >= 0)  # more fuzziness, more ties
    assert len(res.to_frame()) == 8


def test_default_fuzziness_is_sakais():
    assert FUZZINESS[0] == 0.01 and FUZZINESS[-1] == 0.2 and len(FUZZINESS) == 20


def test_methods_share_the_discriminative_power_topic_samples():
    scores = _scores()
    dp = discriminative_power(scores, n_resamples=100, rng=1)
    swap = swap_method(scores, plan=dp.plan, rng=2)
    stab = stability_method(scores, plan=dp.plan)
    assert swap.plans[0] is dp.plan and stab.plan is dp.plan
    assert swap.plans[1].n_resamples == 100
    with pytest.raises(ValueError, match="'plan' and 'second_plan' must be independent topic samples"):
        swap_method(scores, plan=dp.plan, second_plan=dp.plan)
    with pytest.raises(ValueError, match="must have the same number of resamples, got 100 and 50"):
        swap_method(scores, plan=dp.plan, second_plan=resample_plan(12, n_resamples=50, rng=0))


def test_a_noisier_measure_swaps_more():
    rng = np.random.default_rng(5)
    topic = rng.beta(2, 4, 40)
    base = topic + np.linspace(0, 0.15, 8)[:, None]
    clean = base + rng.normal(0, 0.05, (8, 40))
    noisy = base + rng.normal(0, 0.3, (8, 40))
    res = swap_method({"clean": clean, "noisy": noisy}, n_resamples=200, rng=1)
    assert res.share_satisfying[0] > res.share_satisfying[1]
    stab = stability_method({"clean": clean, "noisy": noisy}, n_resamples=200, rng=1)
    assert np.all(stab.minority_rate[0] <= stab.minority_rate[1])
