"""Meta-evaluation on real TREC data (../shared/data): Sakai's robust ordering (RR least
discriminative) holds, and evaluate()'s long frame feeds the meta-evaluation functions."""
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

import pyterrier_boot as pb

pytestmark = pytest.mark.integration


def _urbano(collection, files):
    folder = shared_path("urbano-sigir2019-scores")
    # published score matrices: one row per topic, one column per system, read as they are
    return {label: pd.read_csv(folder / f"{collection}_{f}.csv") for label, f in files.items()}


def test_rr_is_the_least_discriminative_on_trec8():
    scores = _urbano("adhoc8", {"AP": "ap", "P@10": "p10", "RR": "rr"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pb.DegenerateWarning)
        dp = pb.discriminative_power(scores, n_resamples=300, rng=1)
        swap = pb.swap_method(scores, n_resamples=300, plan=dp.plan, rng=2)
    sens = dict(zip(dp.measures, dp.sensitivity))
    assert sens["RR"] < sens["P@10"] < sens["AP"]
    share = dict(zip(swap.measures, swap.share_satisfying))
    assert share["RR"] == min(share.values())
    assert dp.n_pairs == 129 * 128 // 2
    corr = pb.rank_correlations(scores)
    assert (corr["p-value"] < 1e-6).all()


def test_dl2019_evaluate_output_feeds_meta_evaluation():
    folder = shared_path("trec-dl-2019-passage")
    long = pb.evaluate([str(folder / "runs")], str(folder / "qrels.dl19-passage.txt"),
                       ["AP(rel=2)", "nDCG@10", "RR(rel=2)"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pb.DegenerateWarning)
        dp = pb.discriminative_power(long, test="t")
    assert dp.n_pairs == 37 * 36 // 2 and dp.n_topics == 43
    sens = dict(zip(dp.measures, dp.sensitivity))
    assert sens["RR(rel=2)"] < min(sens["AP(rel=2)"], sens["nDCG@10"])
    ap = long[long["measure"] == "AP(rel=2)"].pivot(index="name", columns="qid", values="value")
    size = pb.topic_set_size(ap, difference=0.05, rng=0, n_resamples=200)
    assert size.n_systems == 37 and size.confidence_interval.low <= size.topics_needed
    assert np.isfinite(size.variance)
