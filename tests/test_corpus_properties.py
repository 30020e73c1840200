"""Statistical properties of the corpus bootstrap on simulated collections (slow)."""
import numpy as np
import pandas as pd
import pytest

from pyterrier_boot import CorpusBootstrap, corpus_split


def simulated_collection(n_topics=300, n_docs=3000, seed=0):
    """Topics whose documents are i.i.d. from a population: relevant with probability p_t, scored
    N(1.2 * relevant, 1); one system ranks by score (top 1000); every document is judged."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(n_topics):
        p = rng.uniform(0.003, 0.03)
        rel = rng.random(n_docs) < p
        score = rng.normal(1.2 * rel, 1.0)
        docnos = np.array([f"t{t}-d{i}" for i in range(n_docs)], dtype=object)
        qrels.append(pd.DataFrame({"qid": str(t), "docno": docnos, "label": rel.astype(np.int64)}))
        top = np.argsort(-score)[:1000]
        run.append(pd.DataFrame({"qid": str(t), "docno": docnos[top], "score": score[top]}))
    return pd.concat(run, ignore_index=True), pd.concat(qrels, ignore_index=True)


@pytest.mark.slow
def test_split_half_prediction_on_simulated_collections():
    """Cormack & Lynam §6: 95% logit intervals from half A (small-R corrected) hold AP on half B
    about 83.5% of the time, with about equal misses below and above."""
    run, qrels = simulated_collection()
    halves = {h: (corpus_split(run, h), corpus_split(qrels, h)) for h in "AB"}
    a = CorpusBootstrap(halves["A"][1], n_images=400, rng=1, verbose=False).evaluate({"s": halves["A"][0]}, ["AP"])
    b = CorpusBootstrap(halves["B"][1], n_images=2, rng=1, verbose=False).evaluate({"s": halves["B"][0]}, ["AP"])
    table = a.per_topic(method="logit")
    truth = b.statistic[0, :, 0]
    keep = a.n_relevant[:, 0] > 0
    low, high = table["ci_low"].to_numpy()[keep], table["ci_high"].to_numpy()[keep]
    below = np.mean(truth[keep] < low)
    above = np.mean(truth[keep] > high)
    inside = 1 - below - above
    n = int(keep.sum())
    se = np.sqrt(0.835 * 0.165 / n)
    assert abs(inside - 0.835) < 4 * se + 0.03, (below, inside, above)
    assert abs(below - above) < 0.08, (below, inside, above)


@pytest.mark.slow
def test_held_out_images_fall_in_the_percentile_interval_of_the_others():
    """Zobel & Rashidi §4: images are i.i.d., so an image falls within the 95% interval of 99
    others about (96.55 - 3.45)% = 93.1% of the time for continuous values (more with ties)."""
    run, qrels = simulated_collection(n_topics=200, n_docs=1500, seed=3)
    res = CorpusBootstrap(qrels, n_images=100, rng=2, verbose=False).evaluate({"s": run}, ["AP", "RBP(p=0.95)"])
    d = res.bootstrap_distribution[:, 0]  # [B, Q, M]
    low, high = np.quantile(d[:-1], [0.025, 0.975], axis=0)
    wide = high > low
    inside = ((d[-1] >= low) & (d[-1] <= high))[wide].mean()
    assert 0.90 < inside < 0.97
