"""Statistical properties over thousands of replications (slow), and Park's experiment on real AP.

The full tables are produced by ``benchmarks/stats_validation.py`` (pt_docs/statistics.md); these
tests check the properties that must hold, with binomial bounds on the Monte Carlo error.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path
from scipy import special, stats

from pyterrier_boot.stats import significance as sig
from pyterrier_boot.stats.intervals import bootstrap_ci
from pyterrier_boot.stats.resampling import resample_plan, sign_flip_plan

pytestmark = pytest.mark.slow
R = 2000
BLOCK = 200


def _coverage(rng, sampler, n, truth, method, **kwargs):
    covered = 0
    for _ in range(R // BLOCK):
        scores = sampler(rng, (BLOCK, n))
        extra = dict(kwargs)
        if method not in ("t", "z"):
            extra["plan"] = resample_plan(n, n_resamples=999, rng=rng)
        low, high = bootstrap_ci(scores, method=method, **extra).confidence_interval
        covered += int(np.sum((low <= truth) & (truth <= high)))
    return covered


@pytest.mark.parametrize("method,kwargs", [("t", {}), ("z", {"sigma": 0.2})])
def test_classical_intervals_are_exact_on_normal_scores(method, kwargs):
    rng = np.random.default_rng(1)
    covered = _coverage(rng, lambda g, shape: g.normal(0.4, 0.2, shape), 10, 0.4, method, **kwargs)
    assert stats.binomtest(covered, R, 0.95).pvalue > 0.001, covered / R


@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "studentized", "normal"])
def test_bootstrap_intervals_near_nominal_with_50_topics(method):
    rng = np.random.default_rng(2)
    dist = stats.beta(2, 2)
    covered = _coverage(rng, lambda g, shape: dist.rvs(size=shape, random_state=g), 50, 0.5, method)
    # bootstrap intervals are first-order accurate: within 2.5 points at n = 50, MC error included
    assert 0.925 <= covered / R <= 0.975, covered / R


def test_studentized_beats_percentile_on_skewed_scores_with_10_topics():
    rng = np.random.default_rng(3)
    dist = stats.beta(0.5, 1.5)
    sampler = lambda g, shape: dist.rvs(size=shape, random_state=g)  # noqa: E731
    pct = _coverage(np.random.default_rng(3), sampler, 10, dist.mean(), "percentile")
    stud = _coverage(np.random.default_rng(3), sampler, 10, dist.mean(), "studentized")
    assert pct / R < 0.93 < stud / R  # the known undercoverage of the percentile interval (Efron & Tibshirani §12)
    del rng


def _null_pairs(rng, n, rows, delta=0.0):
    """Exchangeable pairs (each topic's scores swapped with probability 1/2) on AP-like scores."""
    topic = rng.standard_normal((rows, 1, n))
    latent = 0.7 * topic + np.sqrt(1 - 0.49) * rng.standard_normal((rows, 2, n))
    scores = stats.beta(0.5, 1.5).ppf(special.ndtr(latent))
    swap = rng.random((rows, n)) < 0.5
    x = np.where(swap, scores[:, 1], scores[:, 0])
    y = np.where(swap, scores[:, 0], scores[:, 1])
    return x + delta, y


def _rejections(n, delta, seed):
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(["paired_bootstrap", "randomization", "t", "wilcoxon", "sign"], 0)
    for _ in range(R // BLOCK):
        x, y = _null_pairs(rng, n, BLOCK, delta)
        D = x - y
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = {
                "paired_bootstrap": sig.paired_bootstrap_core(D, resample_plan(n, n_resamples=999, rng=rng))["pvalue"],
                "randomization": sig.randomization_core(D, sign_flip_plan(n, n_resamples=999, rng=rng))["pvalue"],
                "t": sig.t_core(D)["pvalue"],
                "wilcoxon": sig.wilcoxon_core(D)["pvalue"],
                "sign": sig.sign_core(D)["pvalue"],
            }
        for name, values in p.items():
            counts[name] += int(np.sum(values < 0.05))
    return counts


@pytest.mark.parametrize("n", [10, 25])
def test_type_one_error_under_random_swaps(n):
    counts = _rejections(n, 0.0, seed=n)
    # the randomisation test is exact under swaps: its rate must be consistent with 0.05
    assert stats.binomtest(counts["randomization"], R, 0.05).pvalue > 0.001, counts
    se = np.sqrt(0.05 * 0.95 / R)
    for name, count in counts.items():
        assert count / R <= 0.05 + 4 * se, (name, count / R)  # no test is liberal
        assert count / R >= 0.01, (name, count / R)  # nor uselessly conservative


def test_power_grows_with_the_shift_and_matches_the_power_formula():
    from pyterrier_boot.stats.power import paired_power

    low = _rejections(25, 0.02, seed=5)
    high = _rejections(25, 0.10, seed=6)
    for name in low:
        assert high[name] > low[name] > 0.05 * R, (name, low[name], high[name])
    x, y = _null_pairs(np.random.default_rng(7), 1, 200_000)
    sd = np.std(x - y, ddof=1)
    expected = paired_power(25, 0.10 / sd)  # Kanoulas: power of the paired t-test for d = δ/σ
    assert abs(high["t"] / R - expected) < 0.05, (high["t"] / R, expected)


@pytest.mark.integration
def test_park_experiment_t_on_ap_undercovers_and_standardisation_helps():
    path = shared_path("urbano-sigir2019-scores", "adhoc8_ap.csv")
    X = pd.read_csv(path).to_numpy(dtype=float).T
    S, N = X.shape
    rng = np.random.default_rng(2010)
    n, samples = 5, 300
    err_ap, err_sap = [], []
    warnings.simplefilter("ignore")  # samples of all-zero AP give point intervals (and errors)
    for s in range(S):
        idx = rng.integers(0, N, (samples, n))
        low, high = bootstrap_ci(X[s][idx], method="t").confidence_interval
        mu = X[s].mean()
        err_ap.append(np.mean((mu < low) | (mu > high)))
        others = np.delete(np.arange(S), s)
        refs = np.array([rng.choice(others, 5, replace=False) for _ in range(samples)])
        centre, spread = X[refs].mean(axis=1), X[refs].std(axis=1, ddof=1)
        z = np.where(spread > 0, (X[s] - centre) / np.where(spread > 0, spread, 1), 0.0)
        low, high = bootstrap_ci(np.take_along_axis(z, idx, axis=1), method="t").confidence_interval
        mu_z = z.mean(axis=1)
        err_sap.append(np.mean((mu_z < low) | (mu_z > high)))
    # Park, Table 2: t on AP undercovers at n = 5 (0.082 on Robust 2004); standardising helps (Table 5)
    assert np.mean(err_ap) > 0.07
    assert np.mean(err_sap) < np.mean(err_ap)
