"""Every pairwise test can be handed to pt.Experiment(test=...) unchanged."""
import functools

import numpy as np
import pandas as pd
import pytest

from pyterrier_boot.stats.significance import (
    paired_bootstrap_test,
    randomization_test,
    sign_test,
    t_test,
    wilcoxon_test,
)

pt = pytest.importorskip("pyterrier")


def _frames():
    rng = np.random.default_rng(3)
    qids = [str(q) for q in range(1, 13)]
    docs = [f"d{i}" for i in range(20)]
    qrels = pd.DataFrame([(q, d, int(rng.random() < 0.3)) for q in qids for d in docs],
                         columns=["qid", "docno", "label"])
    topics = pd.DataFrame({"qid": qids, "query": [f"query {q}" for q in qids]})

    def run(noise):
        rows = []
        for q in qids:
            rel = qrels[(qrels.qid == q)].set_index("docno")["label"]
            score = rel.reindex(docs).to_numpy() + rng.normal(0, noise, len(docs))
            order = np.argsort(-score)
            rows += [(q, docs[i], float(score[i]), r) for r, i in enumerate(order)]
        return pd.DataFrame(rows, columns=["qid", "docno", "score", "rank"])

    return [run(2.0), run(0.8)], topics, qrels


@pytest.mark.parametrize("test", [
    functools.partial(paired_bootstrap_test, rng=1),
    functools.partial(randomization_test, rng=1),
    t_test, wilcoxon_test, sign_test,
])
def test_pt_experiment_reads_our_pvalue(test):
    runs, topics, qrels = _frames()
    calls = []

    def recording(x, y):
        calls.append((np.array(x), np.array(y)))
        return test(x, y)  # our result object, handed back to PyTerrier unchanged

    table = pt.Experiment(runs, topics, qrels, eval_metrics=["map"], names=["weak", "strong"],
                          baseline=0, test=recording)
    per_query = pt.Experiment(runs, topics, qrels, eval_metrics=["map"], names=["weak", "strong"],
                              perquery=True)
    (x, y), = calls
    # PyTerrier passes (system, baseline) per-topic scores, paired by topic
    np.testing.assert_allclose(np.sort(x), np.sort(per_query[per_query.name == "strong"]["value"]))
    np.testing.assert_allclose(np.sort(y), np.sort(per_query[per_query.name == "weak"]["value"]))
    assert table.loc[1, "map p-value"] == test(x, y).pvalue
    assert 0 < table.loc[1, "map p-value"] <= 1
