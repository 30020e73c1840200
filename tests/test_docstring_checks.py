"""Checked outputs that used to sit in docstring examples, kept here when the docstrings were made
concise (issue #13: no function over 60 lines): the same inputs, the same expected values."""
import numpy as np
import pandas as pd

from pyterrier_boot.corpus.result import CorpusBootstrapResult
from pyterrier_boot.meta.corpus.variance import corpus_variance_decomposition
from pyterrier_boot.meta.design.variance_decomposition import variance_decomposition
from pyterrier_boot.meta.quality.discriminative_power import discriminative_power
from pyterrier_boot.meta.quality.swap import swap_method
from pyterrier_boot.stats.intervals import bootstrap_ci


def _ap(rng):
    topic = rng.beta(2, 5, 40)
    return np.clip(topic + np.linspace(0, 0.15, 8)[:, None] + rng.normal(0, 0.08, (8, 40)), 0, 1)


def test_swap_method_required_difference():
    res = swap_method({"AP": _ap(np.random.default_rng(0))}, rng=1)
    assert res.to_frame().loc[:2, "swaps"].tolist() == [842, 580, 346]
    assert float(res.required_difference[0]) == 0.04


def test_discriminative_power_orders_ap_above_p10():
    rng = np.random.default_rng(0)
    ap = _ap(rng)
    p10 = np.round(np.clip(ap + rng.normal(0, 0.15, (8, 40)), 0, 1), 1)
    res = discriminative_power({"AP": ap, "P@10": p10}, rng=1)
    assert res.summary()["significant_pairs"].tolist() == [22, 11]
    assert bool(res.sensitivity[0] > res.sensitivity[1])


def test_variance_decomposition_effects():
    rng = np.random.default_rng(0)
    S, Q, K = 3, 30, 5
    y = (np.array([0.3, 0.35, 0.4])[:, None, None] + rng.normal(0, 0.15, (1, Q, 1))
         + rng.normal(0, 0.07, (S, Q, 1)) + rng.normal(0, 0.05, (S, Q, K)))
    s, q, k = np.meshgrid(range(S), range(Q), range(K), indexing="ij")
    data = pd.DataFrame({"score": y.ravel(), "system": s.ravel(), "topic": q.ravel(), "replicate": k.ravel()})
    effects = variance_decomposition(data).effects.round(3)
    assert effects["effect"].tolist() == [0.043, 0.088]
    assert effects["standard_error"].tolist() == [0.019, 0.019]


def test_corpus_variance_decomposition_effects():
    rng = np.random.default_rng(0)
    S, Q, B = 3, 20, 50
    cells = 0.4 + np.array([0, 0.05, 0.1])[:, None] + rng.normal(0, 0.1, Q) + rng.normal(0, 0.05, (S, Q))
    images = cells + rng.normal(0, 0.03, (B, S, Q))
    res = CorpusBootstrapResult(cells[..., None], images[..., None], images[:20, ..., None],
                                ("a", "b", "c"), tuple(map(str, range(Q))), ("AP",), "poisson", None,
                                np.zeros(B, np.uint64), np.array([]), np.full((Q, 1), -1), np.zeros((S, Q, 1), int))
    table = corpus_variance_decomposition(res).to_frame().round(3)
    assert table["homo effect"].tolist() == [0.064, 0.109]
    assert table["homo se"].tolist() == [0.017, 0.017]
    assert table["t difference"].tolist() == [0.065, 0.109]
    assert table["t se"].tolist() == [0.016, 0.017]


def test_bootstrap_ci_t_interval_runs_on_the_docstring_data():
    ap = np.array([0.31, 0.12, 0.55, 0.08, 0.47, 0.26, 0.39, 0.18, 0.62, 0.05])
    low, high = bootstrap_ci(ap, method="t").confidence_interval  # Park 2010, eq. 3
    assert low < ap.mean() < high
