"""audit_tests on Urbano et al.'s TREC score matrices, against the Type I error rates they published.

Urbano, Lima & Hanjalic (SIGIR 2019) simulated topic sets from these matrices and published the
rates of each test at alpha = 0.05 (two-sided; their output/type_1 tables, 1,667,000 simulations
per measure and topic count). Their t and permutation tests are ours, so the audit's rates of
those two must agree within 0.01 (the issue's tolerance), plus the Monte Carlo error of our smaller
runs. The whole table, every test and measure, is ``benchmarks/audit_urbano.py`` (pt_docs/test_audit.md).
"""
import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

import pyterrier_boot as pb

WEB = ("web2010", "web2011", "web2012", "web2013")
#: Urbano et al. (2019), nDCG@20, alpha = 0.05, two-sided: (t, permutation) per topic count
PUBLISHED_NDCG20 = {25: (0.0498, 0.0523), 50: (0.0504, 0.0515), 100: (0.0502, 0.0507)}


def _urbano_matrix(name):
    """Their preprocessing (R/01-margins.R): runs equal on every topic (within 1e-5) to an earlier
    run out, then the bottom 10% of runs by mean; systems x topics."""
    data = pd.read_csv(shared_path("urbano-sigir2019-scores", f"{name}.csv"))
    kept = []
    for column in data.columns:
        if not any((np.abs(data[column] - data[k]) <= 1e-5).all() for k in kept):
            kept.append(column)
    means = data[kept].mean()
    frame = data[kept].loc[:, means >= np.quantile(means, 0.1)].T
    frame.columns = pd.Index([str(q) for q in range(frame.shape[1])], name="qid")
    return frame


def _null_audit(frame, n_topics, n_simulations, rng, n_resamples=1000):
    """The audit of the t and randomisation tests, null simulations only."""
    return pb.audit_tests(frame, measure="nDCG@20", n_topics=n_topics, tests=["t", "randomization"],
                          corrections=None, effects=(), n_simulations=n_simulations, n_resamples=n_resamples,
                          rng=rng, verbose=False)


def _null_rejections(audit):
    return audit.null_pvalues[:, 0] < 0.05  # (topic counts, tests, simulations)


def test_null_rates_on_a_web_track_matrix_are_the_published_ones_and_the_model_fits():
    """A few examples of the slow test below: 12 runs of Web 2013, 50 topics, 2,000 simulations
    (Monte Carlo SE about 0.005, added to the tolerance); the model reproduces every run's mean, SD
    and share of zeros and every pair's Kendall tau within their sampling-error tolerances."""
    audit = _null_audit(_urbano_matrix("web2013_ndcg20").iloc[:12], [50], 2000, rng=5, n_resamples=200)
    rejected = _null_rejections(audit)[0]
    rates = rejected.mean(axis=-1)
    se = np.sqrt(rates * (1 - rates) / rejected.shape[-1])
    assert (np.abs(rates - PUBLISHED_NDCG20[50]) < 0.01 + 2 * se).all(), (rates, se)
    assert audit.goodness.ok and (audit.goodness.summary()["within_tolerance"] == 1).all()


@pytest.mark.slow
def test_t_and_permutation_null_rates_are_the_published_ones():
    """nDCG@20 on Web 2010-13 (their protocol: simulations shared among the collections in proportion
    to their runs, 10,000 per topic count): the t and randomisation tests within 0.01 of the
    published rates at 25, 50 and 100 topics (Monte Carlo SE about 0.0022)."""
    frames = [_urbano_matrix(f"{name}_ndcg20") for name in WEB]
    runs = sum(len(f) for f in frames)
    rejected = np.concatenate([_null_rejections(_null_audit(f, [25, 50, 100], round(10_000 * len(f) / runs), rng=i))
                               for i, f in enumerate(frames)], axis=-1)
    for k, n in enumerate((25, 50, 100)):
        rates = rejected[k].mean(axis=-1)
        assert (np.abs(rates - PUBLISHED_NDCG20[n]) < 0.01).all(), (n, rates)
