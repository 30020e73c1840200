"""Shallow pools against a naive per-topic loop in trec_eval's ranking order, and ir_measures' Judged@k."""
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from pyterrier_boot.meta.pooling import pool

from pyterrier_boot._warnings import InputWarning
from pyterrier_boot.inputs.qrels import read_qrels


def _random_runs(seed, n_runs=4, n_topics=5, depth=30, ties=True):
    rng = np.random.default_rng(seed)
    docs = [f"d{i:03d}" for i in range(80)]
    runs = {}
    for r in range(n_runs):
        rows = []
        for q in range(n_topics):
            chosen = rng.choice(docs, size=depth, replace=False)
            scores = np.round(rng.random(depth), 1) if ties else rng.random(depth)
            rows += [(str(q), d, float(s)) for d, s in zip(chosen, scores)]
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    judged = []
    for q in range(n_topics):
        for d in rng.choice(docs, size=40, replace=False):
            judged.append((str(q), d, int(rng.integers(0, 3))))
    qrels = pd.DataFrame(judged, columns=["qid", "docno", "label"])
    return runs, qrels


def _naive_pool(qrels, runs, depth, systems):
    pooled = set()
    for name in systems:
        run = runs[name]
        for qid in run["qid"].unique():
            rows = [(r.score, r.docno) for r in run[run["qid"] == qid].itertuples()]
            rows.sort(reverse=True)  # score descending, then docno descending (trec_eval)
            pooled |= {(qid, docno) for _, docno in rows[:depth]}
    keep = [(r.qid, r.docno) in pooled for r in qrels.itertuples()]
    return qrels[keep]


@pytest.mark.parametrize("depth", [1, 5, 10, 25])
@pytest.mark.parametrize("seed", range(3))
def test_pool_equals_naive_loop(seed, depth):
    runs, qrels = _random_runs(seed)
    systems = ["run0", "run2"] if seed == 1 else list(runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        result = pool(qrels, runs, depth, systems=systems if seed == 1 else None)
    expected = _naive_pool(qrels, runs, depth, systems)
    got = result.frame.reset_index(drop=True)
    pd.testing.assert_frame_equal(got[["qid", "docno", "label"]].astype({"qid": str, "docno": str}),
                                  expected.reset_index(drop=True).astype({"qid": str, "docno": str}),
                                  check_dtype=False)


def test_single_run_pool_keeps_its_judged_at_k():
    runs, qrels = _random_runs(4, n_runs=1, ties=False)
    depth = 10
    pooled = pool(qrels, runs, depth)
    ir_run = runs["run0"].rename(columns={"qid": "query_id", "docno": "doc_id"})
    full = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    shallow = pooled.frame.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    measure = ir_measures.Judged @ depth
    before = {m.query_id: m.value for m in ir_measures.iter_calc([measure], full, ir_run)}
    after = {m.query_id: m.value for m in ir_measures.iter_calc([measure], shallow, ir_run)}
    for qid, value in after.items():
        assert value == pytest.approx(before[qid])
    # and no judgement below the pool depth survives
    deeper = ir_measures.Judged @ 30
    after30 = {m.query_id: m.value for m in ir_measures.iter_calc([deeper], shallow, ir_run)}
    for qid in after30:
        assert after30[qid] * 30 == pytest.approx(after[qid] * depth)


def test_ties_follow_trec_eval_and_source_and_corpus_size_are_kept():
    qrels = read_qrels(pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "label": [1, 1, 0]}),
                       corpus_size=1000)
    runs = {"r": pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})}
    pooled = pool(qrels, runs, 1)
    assert pooled.frame["docno"].tolist() == ["c"]  # all tied: docno descending puts 'c' first
    assert pooled.corpus_size == 1000
    assert pooled.source == "pool(depth=1, systems=[r]) of DataFrame"


def test_lost_topics_warn_and_bad_input():
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "b"], "label": [1, 1]})
    runs = {"r": pd.DataFrame({"qid": ["1", "2", "2"], "docno": ["a", "x", "b"], "score": [1.0, 2.0, 1.0]})}
    with pytest.warns(InputWarning, match=r"pool\(depth=1\): 1 topic\(s\) have no judged document in the pool and drop out of the qrels: \['2'\]"):
        assert pool(qrels, runs, 1).frame["qid"].tolist() == ["1"]
    with pytest.raises(ValueError, match=r"'systems' names run\(s\) not in 'runs': \['s'\]; the runs are \['r'\]"):
        pool(qrels, runs, 1, systems=["s"])
    with pytest.raises(ValueError, match="'depth' must be a positive integer, got 0"):
        pool(qrels, runs, 0)
    with pytest.raises(TypeError, match="'depth' must be a positive integer, got float"):
        pool(qrels, runs, 2.5)
