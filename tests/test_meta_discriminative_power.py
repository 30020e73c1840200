"""Discriminative power against naive loops of Sakai's (2007) pseudo-code, scipy and the single-pair tests."""
import warnings

import numpy as np
import pandas as pd
import pytest
from pyterrier_boot.meta.discriminative_power import discriminative_power, kth_largest_rank
from scipy import stats

from pyterrier_boot._warnings import DegenerateWarning
from pyterrier_boot.stats.resampling import ResamplePlan, resample_plan
from pyterrier_boot.stats.significance import (
    paired_bootstrap_test,
    randomization_test,
    unpaired_bootstrap_test,
)


def _scores(S=6, n=15, seed=0):
    rng = np.random.default_rng(seed)
    topic = rng.beta(2, 4, n)
    ap = np.clip(topic + np.linspace(0, 0.2, S)[:, None] + rng.normal(0, 0.1, (S, n)), 0, 1)
    p10 = np.round(np.clip(ap + rng.normal(0, 0.15, (S, n)), 0, 1), 1)
    return {"AP": ap, "P@10": p10}


def _sakai_paired(x, y, indices, alpha):
    """Sakai Fig. 2, 3 and 8 for one pair, written as the paper's loops."""
    n = len(x)
    z = [xi - yi for xi, yi in zip(x, y)]
    zbar = sum(z) / n
    sd = (sum((zi - zbar) ** 2 for zi in z) / (n - 1)) ** 0.5
    t_obs = zbar / (sd / n ** 0.5)
    w = [zi - zbar for zi in z]
    ts, means = [], []
    for row in indices:
        wb = [w[q] for q in row]
        mb = sum(wb) / n
        sb = (sum((v - mb) ** 2 for v in wb) / (n - 1)) ** 0.5
        ts.append(mb / (sb / n ** 0.5) if sb > 0 else (0.0 if mb == 0 else np.sign(mb) * np.inf))
        means.append(mb)
    B = len(indices)
    count = sum(1 for t in ts if abs(t) >= abs(t_obs))
    asl = (count + 1) / (B + 1)
    k = kth_largest_rank(alpha, B)
    order = sorted(range(B), key=lambda b: -abs(ts[b]))
    return asl, abs(means[order[k - 1]])


def _sakai_unpaired(x, y, indices, alpha):
    """Sakai Fig. 6, 7 and 9 for one pair."""
    v = list(x) + list(y)
    n = len(x)
    d_obs = sum(x) / n - sum(y) / len(y)
    ds = []
    for row in indices:
        xb = [v[j] for j in row[:n]]
        yb = [v[j] for j in row[n:]]
        ds.append(sum(xb) / n - sum(yb) / len(yb))
    B = len(indices)
    count = sum(1 for d in ds if abs(d) >= abs(d_obs) - 1e-12)
    k = kth_largest_rank(alpha, B)
    return (count + 1) / (B + 1), sorted((abs(d) for d in ds), reverse=True)[k - 1]


def test_paired_bootstrap_equals_sakai_pseudo_code():
    scores = _scores()
    res = discriminative_power(scores, n_resamples=300, rng=7)
    assert isinstance(res.plan, ResamplePlan)
    indices = res.plan.indices.tolist()
    S = scores["AP"].shape[0]
    a, b = np.triu_indices(S, 1)
    for m, measure in enumerate(["AP", "P@10"]):
        X = scores[measure]
        for p, (i, j) in enumerate(zip(a, b)):
            asl, required = _sakai_paired(X[i].tolist(), X[j].tolist(), indices, 0.05)
            assert res.asl[m, p] == pytest.approx(asl, abs=1e-12)
            assert res.required_difference[m, p] == pytest.approx(required, rel=1e-9)
        assert res.estimated_difference[m] == pytest.approx(res.required_difference[m].max())
        assert res.sensitivity[m] == pytest.approx(np.mean(res.asl[m] < 0.05))


def test_each_pair_equals_the_single_pair_test_on_the_shared_plan():
    scores = _scores(S=5, n=20, seed=3)
    res = discriminative_power(scores, n_resamples=500, rng=1)
    table = res.to_frame()
    for row in table.itertuples():
        X = scores[row.measure]
        ref = paired_bootstrap_test(X[row.system_a], X[row.system_b], plan=res.plan)
        assert row.ASL == ref.pvalue
        assert row.statistic == pytest.approx(ref.statistic)
        assert row.difference == pytest.approx(ref.difference)


def test_significant_exactly_when_the_difference_exceeds_the_required_one_t_test():
    scores = _scores(S=8, n=25, seed=4)
    res = discriminative_power(scores, test="t")
    a, b = np.triu_indices(8, 1)
    for m, measure in enumerate(scores):
        X = scores[measure]
        ref = stats.ttest_rel(X[a], X[b], axis=1)
        np.testing.assert_allclose(res.asl[m], ref.pvalue, rtol=1e-10)
        D = X[a] - X[b]
        expected = stats.t.ppf(0.975, 24) * D.std(axis=1, ddof=1) / 5
        np.testing.assert_allclose(res.required_difference[m], expected)
        np.testing.assert_array_equal(res.asl[m] < 0.05, np.abs(res.difference[m]) > res.required_difference[m])
    assert res.n_resamples is None and res.plan is None


def test_unpaired_bootstrap_equals_pseudo_code_and_single_pair_function():
    scores = _scores(S=4, n=10, seed=5)
    res = discriminative_power(scores, test="unpaired_bootstrap", n_resamples=400, rng=11)
    indices = res.plan.tolist()
    a, b = np.triu_indices(4, 1)
    for m, measure in enumerate(scores):
        X = scores[measure]
        for p, (i, j) in enumerate(zip(a, b)):
            asl, required = _sakai_unpaired(X[i].tolist(), X[j].tolist(), indices, 0.05)
            assert res.asl[m, p] == pytest.approx(asl)
            assert res.required_difference[m, p] == pytest.approx(required, rel=1e-9)
            # the stats core draws its pooled resamples first from the same seed
            ref = unpaired_bootstrap_test(X[i], X[j], n_resamples=400, rng=11)
            assert res.asl[m, p] == pytest.approx(ref.pvalue)


def test_unpaired_gmean_statistic():
    scores = _scores(S=4, n=10, seed=6)
    res = discriminative_power({"AP": scores["AP"]}, test="unpaired_bootstrap", statistic="gmean",
                               n_resamples=300, rng=2)
    a, b = np.triu_indices(4, 1)
    X = scores["AP"]
    for p, (i, j) in enumerate(zip(a, b)):
        ref = unpaired_bootstrap_test(X[i], X[j], statistic="gmean", n_resamples=300, rng=2)
        assert res.asl[0, p] == pytest.approx(ref.pvalue)
        assert res.difference[0, p] == pytest.approx(ref.statistic)


def test_randomization_equals_single_pair_and_kth_largest_null():
    scores = _scores(S=4, n=12, seed=8)
    res = discriminative_power(scores, test="randomization", n_resamples=999, rng=3)
    a, b = np.triu_indices(4, 1)
    k = kth_largest_rank(0.05, 999)
    for m, measure in enumerate(scores):
        X = scores[measure]
        for p, (i, j) in enumerate(zip(a, b)):
            ref = randomization_test(X[i], X[j], plan=res.plan)
            assert res.asl[m, p] == ref.pvalue
            null = np.sort(np.abs(ref.null_distribution))[::-1]
            assert res.required_difference[m, p] == pytest.approx(null[k - 1])


@pytest.mark.parametrize("test", ["wilcoxon", "sign"])
def test_rank_tests_equal_scipy(test):
    scores = _scores(S=4, n=14, seed=9)
    res = discriminative_power(scores, test=test)
    a, b = np.triu_indices(4, 1)
    for m, measure in enumerate(scores):
        X = scores[measure]
        for p, (i, j) in enumerate(zip(a, b)):
            d = X[i] - X[j]
            if test == "wilcoxon":
                ref = stats.wilcoxon(X[i], X[j]).pvalue if np.any(d != 0) else 1.0
            else:
                wins, losses = int((d > 0).sum()), int((d < 0).sum())
                ref = stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
            assert res.asl[m, p] == pytest.approx(ref)
    assert np.isnan(res.estimated_difference).all()


def test_kth_largest_rank_is_sakais_b_alpha():
    assert kth_largest_rank(0.05, 1000) == 50
    assert kth_largest_rank(0.01, 1000) == 10
    assert kth_largest_rank(0.05, 999) == 49
    assert kth_largest_rank(0.05, 1024, exact=True) == 52


def test_dataframes_long_frames_and_arrays_agree():
    scores = _scores(S=4, n=8, seed=10)
    systems = ["s1", "s2", "s3", "s4"]
    topics = [f"q{i}" for i in range(8)]
    frames = {m: pd.DataFrame(v.T, index=topics, columns=systems) for m, v in scores.items()}  # topics x systems
    shuffled = {"AP": frames["AP"], "P@10": frames["P@10"].iloc[::-1, ::-1]}  # aligned by label
    long = pd.concat([
        f.T.stack().rename("value").rename_axis(["name", "qid"]).reset_index().assign(measure=m)
        for m, f in frames.items()
    ])[["name", "qid", "measure", "value"]]
    plan = resample_plan(8, n_resamples=200, rng=0)
    results = [discriminative_power(x, plan=plan) for x in (scores, frames, shuffled, long)]
    for res in results[1:]:
        np.testing.assert_array_equal(res.asl, results[0].asl)
        np.testing.assert_array_equal(res.required_difference, results[0].required_difference)
    assert results[1].system_a[:3] == ("s1", "s1", "s1") and results[1].system_b[:3] == ("s2", "s3", "s4")


def test_replay_with_the_plan_and_tables():
    scores = _scores()
    res = discriminative_power(scores, n_resamples=200, rng=5)
    again = discriminative_power(scores, plan=res.plan)
    np.testing.assert_array_equal(res.asl, again.asl)
    sens, diff = res
    assert sens is res.sensitivity and diff is res.estimated_difference
    summary = res.summary()
    assert list(summary.columns) == ["measure", "significant_pairs", "pairs", "sensitivity", "estimated_difference"]
    assert summary["pairs"].tolist() == [15, 15]
    curves = res.asl_curves()
    assert curves.shape == (15, 2) and curves.index[0] == 1
    np.testing.assert_array_equal(curves["AP"].to_numpy(), np.sort(res.asl[0]))
    frame = res.to_frame()
    assert len(frame) == 30 and frame["significant"].sum() == summary["significant_pairs"].sum()
    assert "sensitivity" in repr(res)


def test_identical_systems_warn_and_get_asl_one():
    scores = _scores(S=4, n=10)
    ap = scores["AP"].copy()
    ap[1] = ap[0]
    with pytest.warns(DegenerateWarning, match=r"all paired differences are 0 for 1 pair\(s\): AP: 0 vs 1;"):
        res = discriminative_power({"AP": ap}, n_resamples=100, rng=0)
    assert res.asl[0, 0] == 1.0 and res.required_difference[0, 0] == 0.0


def test_sensitivity_grows_with_the_true_differences():
    rng = np.random.default_rng(1)
    topic = rng.beta(2, 4, 30)
    noise = rng.normal(0, 0.1, (6, 30))
    small = topic + np.linspace(0, 0.03, 6)[:, None] + noise
    large = topic + np.linspace(0, 0.3, 6)[:, None] + noise
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = discriminative_power({"small": small, "large": large}, n_resamples=500, rng=2)
    assert res.sensitivity[1] > res.sensitivity[0]
