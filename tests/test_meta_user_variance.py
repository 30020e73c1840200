"""User variance against RBP's closed form (Moffat & Zobel 2008) and the engine at fixed parameter values."""
import ir_measures
import numpy as np
import pandas as pd
import pytest
import scipy.stats
from pyterrier_boot.meta.user_variance import user_variance

from pyterrier_boot.measures.evaluation import evaluate

QRELS = pd.DataFrame({
    "qid": ["1", "1", "1", "1", "2", "2", "2"],
    "docno": ["a", "b", "c", "d", "a", "e", "f"],
    "label": [1, 0, 1, 1, 0, 1, 1],
})
RUNS = {
    "x": pd.DataFrame({"qid": ["1"] * 4 + ["2"] * 3, "docno": ["a", "b", "c", "z", "e", "a", "f"],
                       "score": [4., 3., 2., 1., 3., 2., 1.]}),
    "y": pd.DataFrame({"qid": ["1"] * 3 + ["2"] * 3, "docno": ["b", "z", "d", "a", "z", "e"],
                       "score": [3., 2., 1., 3., 2., 1.]}),
    "w": pd.DataFrame({"qid": ["1"] * 2 + ["2"] * 2, "docno": ["d", "c", "f", "e"], "score": [2., 1., 2., 1.]}),
}
GAINS = {  # binary gains by rank, from RUNS and QRELS
    "x": {"1": [1, 0, 1, 0], "2": [1, 0, 1]},
    "y": {"1": [0, 0, 1], "2": [0, 0, 1]},
    "w": {"1": [1, 1], "2": [1, 1]},
}


def _rbp(gains, p):
    return (1 - p) * sum(g * p ** i for i, g in enumerate(gains))


def test_values_equal_rbp_closed_form_for_every_draw():
    dist = scipy.stats.beta(6, 3)
    res = user_variance(RUNS, QRELS, "RBP(p={p})", dist, n_users=50, rng=3)
    draws = dist.rvs(size=50, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(res.parameters, draws)
    assert res.systems == ("x", "y", "w") and res.qids == ("1", "2") and res.parameter == "p"
    for s, name in enumerate(res.systems):
        for q, qid in enumerate(res.qids):
            expected = [_rbp(GAINS[name][qid], p) for p in draws]
            np.testing.assert_allclose(res.values[s, q], expected, rtol=1e-12)
    np.testing.assert_allclose(res.distribution, res.values.mean(axis=1))
    low, high = np.quantile(res.distribution, [0.025, 0.975], axis=1)
    np.testing.assert_allclose(res.confidence_interval.low, low)
    np.testing.assert_allclose(res.confidence_interval.high, high)
    expected_mean = np.mean([[_rbp(GAINS[n]["1"], dist.mean()), _rbp(GAINS[n]["2"], dist.mean())]
                             for n in res.systems], axis=1)
    np.testing.assert_allclose(res.at_mean, expected_mean)


def test_each_draw_equals_evaluate_at_that_value():
    res = user_variance(RUNS, QRELS, "RBP(p={p}, rel=1)", scipy.stats.beta(2, 2), n_users=3, rng=0)
    for k, p in enumerate(res.parameters):
        long = evaluate(RUNS, QRELS, [f"RBP(p={float(p)!r})"])
        wide = long.pivot(index="name", columns="qid", values="value").loc[list(res.systems), list(res.qids)]
        np.testing.assert_array_equal(res.values[..., k], wide.to_numpy())


def test_discrete_cutoffs_equal_evaluate():
    res = user_variance(RUNS, QRELS, "nDCG@{k}", scipy.stats.randint(1, 4), n_users=30, rng=1)
    assert res.parameter == "cutoff" and set(res.parameters) <= {1.0, 2.0, 3.0}
    for k in (1, 2, 3):
        long = evaluate(RUNS, QRELS, [f"nDCG@{k}"])
        wide = long.pivot(index="name", columns="qid", values="value").loc[list(res.systems), list(res.qids)]
        cols = np.flatnonzero(res.parameters == k)
        for c in cols:
            np.testing.assert_allclose(res.values[..., c], wide.to_numpy())


def test_callable_template_and_table():
    res = user_variance(RUNS, QRELS, lambda p: ir_measures.RBP(p=p, rel=1), scipy.stats.uniform(0.5, 0.4),
                        n_users=20, rng=2)
    table = res.to_frame()
    assert list(table.columns) == ["name", "mean", "sd", "ci_low", "ci_high", "at_mean_parameter"]
    assert (table["ci_low"] <= table["mean"]).all() and (table["mean"] <= table["ci_high"]).all()
    statistic, ci = res
    assert statistic is res.statistic


def test_parameters_outside_the_valid_range():
    with pytest.raises(ValueError, match=r"'distribution' has support \[-inf, inf\], outside the valid range \(0, 1\) of RBP's 'p'; use a distribution supported inside it \(e.g. scipy.stats.beta\(a, b\)"):
        user_variance(RUNS, QRELS, "RBP(p={p})", scipy.stats.norm(0.8, 0.05), n_users=10, rng=0)
    with pytest.raises(ValueError, match=r"'distribution' has support \[0.5, 1.1\], outside the valid range \(0, 1\) of RBP's 'p'"):
        user_variance(RUNS, QRELS, "RBP(p={p})", scipy.stats.uniform(0.5, 0.6), n_users=10, rng=0)
    with pytest.raises(ValueError, match=r"'distribution' has support \[0, 3\], outside the valid range \[1, inf\) of nDCG's cutoff; use a distribution supported inside it \(e.g. scipy.stats.randint\(1, 101\) for a cutoff\)"):
        user_variance(RUNS, QRELS, "nDCG@{k}", scipy.stats.randint(0, 4), n_users=10, rng=0)
    with pytest.raises(ValueError, match=r"'distribution' has support \[0.1, 0.9\], outside the valid range \[0.2, 0.6\] of RBP's 'p'"):
        user_variance(RUNS, QRELS, "RBP(p={p})", scipy.stats.uniform(0.1, 0.8), n_users=50, rng=0,
                      valid_range=(0.2, 0.6))
    # beta(0.005, 0.005) is supported on [0, 1] but draws exactly 0.0 and 1.0 in floating point
    with pytest.raises(ValueError, match=r"'distribution' drew 21 value\(s\) outside the valid range \(0, 1\) of RBP's 'p', e.g. 1$"):
        user_variance(RUNS, QRELS, "RBP(p={p})", scipy.stats.beta(0.005, 0.005), n_users=50, rng=0)
    with pytest.raises(ValueError, match=r"parameter value 0.4\d* gives an invalid measure: measure 'nDCG@0.4\d*': the cutoff \(@k\) must be a positive integer"):
        user_variance(RUNS, QRELS, "nDCG@{k}", scipy.stats.beta(2, 2), n_users=5, rng=1)
    with pytest.raises(TypeError, match=r"'distribution' must be a frozen scipy distribution with its parameters, e.g. scipy.stats.beta\(2, 5\), not the family scipy.stats.beta"):
        user_variance(RUNS, QRELS, "RBP(p={p})", scipy.stats.beta, n_users=5)
    with pytest.raises(ValueError, match=r"'measure' template 'RBP\(p=0.5\)' must have exactly one replacement field"):
        user_variance(RUNS, QRELS, "RBP(p=0.5)", scipy.stats.beta(2, 2), n_users=5)
