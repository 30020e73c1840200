"""Shallow-pool comparisons against an independent composition (pool -> CorpusBootstrap -> per-topic
image values, zero-padded, with scipy's paired t-test per image), the same images at every depth,
the summary against numpy, the Fig. 6 plot, and pinned bad-input messages."""
import warnings

import numpy as np
import pandas as pd
import pytest
from pyterrier_boot.meta.pooling import pool
from pyterrier_boot.meta.shallow_pools import SUMMARY_COLUMNS, shallow_pool_comparison
from scipy import stats

from pyterrier_boot import CorpusBootstrap, InputWarning

B = 20


def _collection(seed=3, n_topics=6, n_docs=60):
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in range(1, n_topics + 1)]
    docs = [f"d{i:03d}" for i in range(n_docs)]
    rows = []
    for q in qids:
        judged = rng.choice(n_docs, size=35, replace=False)
        rows += [(q, docs[d], int(g)) for d, g in zip(judged, rng.choice([0, 0, 1, 2], size=35), strict=True)]
    runs = {}
    qrels = pd.DataFrame(rows, columns=["qid", "docno", "label"])
    for s, name in enumerate(["a", "b", "c"]):
        out = []
        for q in qids:
            grade = qrels[qrels.qid == q].set_index("docno")["label"].reindex(docs).fillna(0).to_numpy()
            score = grade * (0.4 + 0.6 * s) + rng.normal(0, 1.2, n_docs)
            out += [(q, docs[d], float(100 - r)) for r, d in enumerate(np.argsort(-score)[:30])]
        runs[name] = pd.DataFrame(out, columns=["qid", "docno", "score"])
    # topic 99: a and b put unjudged documents first; the judged ones from rank 4 on
    extra = [f"x{i}" for i in range(10)]
    for name in runs:
        runs[name] = pd.concat([runs[name], pd.DataFrame({"qid": "99", "docno": extra,
                                                          "score": np.arange(10, 0, -1.0)})], ignore_index=True)
    qrels = pd.concat([qrels, pd.DataFrame({"qid": "99", "docno": extra[4:], "label": [1, 0, 2, 0, 1, 1]})],
                      ignore_index=True)
    return runs, qrels


@pytest.fixture(scope="module")
def data():
    return _collection()


@pytest.fixture(scope="module")
def result(data):
    runs, qrels = data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = shallow_pool_comparison(runs, qrels, "c", "b", depths=[2, 10], measures=["AP", "RBP(p=0.8)"],
                                      n_images=B, rng=7)
    caught = [w for w in caught if "is too few for a" not in str(w.message)]  # B images: a small test
    assert [(w.category, str(w.message)) for w in caught] == [(InputWarning, (
        "1 topic(s) keep no judged document in the pool of ['c', 'b'] at some depth and score 0 for both "
        "systems there: 99 (depth 2)"))]
    return res


def _reference(runs, qrels, depth, measures, qids):
    """Independent composition: per-topic values on the full corpus and each image, zero-padded."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)  # topic 99 leaves the depth-2 pool
        q = qrels if depth == "full" else pool(qrels, runs, depth, systems=["c", "b"])
        res = CorpusBootstrap(q, n_images=B, rng=7, verbose=False).evaluate({"c": runs["c"], "b": runs["b"]},
                                                                           measures)
    index = [qids.index(t) for t in res.qids]
    full = np.zeros((2, len(qids), len(measures)))
    images = np.zeros((B, 2, len(qids), len(measures)))
    full[:, index] = res.statistic[[res.systems.index("c"), res.systems.index("b")]]
    images[:, :, index] = res.bootstrap_distribution[:, [res.systems.index("c"), res.systems.index("b")]]
    return full[0] - full[1], images[:, 0] - images[:, 1]  # [Q, M], [B, Q, M]


def test_each_depth_equals_the_independent_composition(data, result):
    runs, qrels = data
    assert result.depths == (2, 10, "full")
    assert result.qids == ("1", "2", "3", "4", "5", "6", "99")
    for depth in result.depths:
        topic, images = _reference(runs, qrels, depth, ["AP", "RBP(p=0.8)"], list(result.qids))
        d = result.differences[depth]
        np.testing.assert_allclose(d.topic_statistic, topic, atol=1e-15)
        np.testing.assert_allclose(d.statistic, topic.mean(axis=0), atol=1e-15)
        np.testing.assert_allclose(d.bootstrap_distribution, images.mean(axis=1), atol=1e-15)
        for m in range(2):
            ref = stats.ttest_rel(images[:, :, m], np.zeros_like(images[:, :, m]), axis=1)
            np.testing.assert_allclose(d.image_ttest_pvalues[:, m], ref.pvalue, rtol=1e-10)
            assert d.ttest_pvalue[m] == pytest.approx(stats.ttest_rel(topic[:, m], np.zeros(7)).pvalue)
    assert result.dropped_topics == {2: ("99",), 10: (), "full": ()}
    assert result.topics_judged == {2: 6, 10: 7, "full": 7}
    assert result.differences[2].topic_bootstrap_distribution[:, 6].tolist() == [[0.0, 0.0]] * B


def test_judgement_counts(data, result):
    runs, qrels = data
    for depth in (2, 10):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InputWarning)
            kept = pool(qrels, runs, depth, systems=["c", "b"]).frame
        assert result.judgements[depth] == len(kept)
        assert result.relevant[depth] == int((kept["label"] > 0).sum())
    assert result.judgements["full"] == len(qrels)
    assert result.judgements[2] < result.judgements[10] < result.judgements["full"]


def test_summary_equals_numpy(result):
    table = result.summary()
    assert list(table.columns) == list(SUMMARY_COLUMNS)
    assert table[["measure", "depth"]].values.tolist() == [["AP", 2], ["AP", 10], ["AP", "full"],
                                                           ["RBP(p=0.8)", 2], ["RBP(p=0.8)", 10],
                                                           ["RBP(p=0.8)", "full"]]
    row = table.iloc[4]  # RBP, depth 10
    d = result.differences[10]
    p = d.image_ttest_pvalues[:, 1]
    assert row["image_ttest_pvalue_median"] == pytest.approx(np.median(p))
    assert row["image_ttest_pvalue_q975"] == pytest.approx(np.quantile(p, 0.975))
    assert row["image_ttest_pvalue_max"] == pytest.approx(p.max())
    assert row["share_significant"] == pytest.approx(np.mean(p < 0.05))
    assert row["topic_sd_mean"] == pytest.approx(d.topic_bootstrap_distribution[..., 1].std(axis=0, ddof=1).mean())
    assert row["difference"] == pytest.approx(d.statistic[1])
    assert row["ci_low"] == pytest.approx(np.quantile(d.bootstrap_distribution[:, 1], 0.025))
    depths, differences = result
    assert depths == result.depths and differences is result.differences


@pytest.mark.filterwarnings("ignore:n_images=20 is too few:pyterrier_boot.BootWarning")  # B images: a small test
def test_every_depth_uses_the_same_images_with_a_generator(data):
    """A pool deeper than the runs keeps every judged document they retrieved: P@5 is then the same
    as with the full qrels on every image, if and only if the images are the same."""
    runs, qrels = data
    res = shallow_pool_comparison(runs, qrels, "a", "c", depths=[1000], measures=["P@5"], n_images=B,
                                  rng=np.random.default_rng(11))
    np.testing.assert_array_equal(res.differences[1000].topic_bootstrap_distribution,
                                  res.differences["full"].topic_bootstrap_distribution)
    other = shallow_pool_comparison(runs, qrels, "a", "c", depths=[1000], measures=["P@5"], n_images=B,
                                    rng=np.random.default_rng(12), full=False)
    assert not np.array_equal(other.differences[1000].topic_bootstrap_distribution,
                              res.differences[1000].topic_bootstrap_distribution)


def test_plot_fig6(result, tmp_path):
    pytest.importorskip("matplotlib").use("Agg")
    from pyterrier_boot.meta.plots import plot_pool_differences

    axes = result.plot()
    assert axes.shape == (2, 3)
    offsets = axes[1, 0].collections[0].get_offsets()
    d = result.differences[2]
    np.testing.assert_allclose(offsets[:, 0], d.bootstrap_distribution[:, 1])
    np.testing.assert_allclose(offsets[:, 1], d.image_ttest_pvalues[:, 1])
    assert axes[0, 2].get_title() == "AP, full qrels"
    axes[0, 0].figure.savefig(tmp_path / "fig6.png")
    boxes = plot_pool_differences(result, measures="AP")
    assert len(boxes) == 1 and [t.get_text() for t in boxes[0].get_xticklabels()] == ["2", "10", "full"]


def test_bad_input(data):
    runs, qrels = data
    with pytest.raises(ValueError, match=r"'depths' must be positive integers \(pool depths\), got \[0\]; pass full=True for the original qrels"):
        shallow_pool_comparison(runs, qrels, "a", "b", depths=[10, 0])
    with pytest.raises(ValueError, match=r"'depths' must be positive integers \(pool depths\), got \[2.5, True\]"):
        shallow_pool_comparison(runs, qrels, "a", "b", depths=[2.5, True])
    with pytest.raises(TypeError, match=r"'depths' must be a list of positive integers, got float"):
        shallow_pool_comparison(runs, qrels, "a", "b", depths=2.5)
    with pytest.raises(ValueError, match=r"'depths' has repeated values: \[10, 10\]"):
        shallow_pool_comparison(runs, qrels, "a", "b", depths=[10, 10])
    with pytest.raises(ValueError, match=r"'depths' is empty and full=False: nothing to compare"):
        shallow_pool_comparison(runs, qrels, "a", "b", depths=[], full=False)
    with pytest.raises(ValueError, match=r"unknown system 'z' for 'b': the runs are \['a', 'b', 'c'\]"):
        shallow_pool_comparison(runs, qrels, "a", "z")
    with pytest.raises(ValueError, match=r"'a' and 'b' are the same system \('a'\): a comparison needs two systems"):
        shallow_pool_comparison(runs, qrels, "a", "a")
    with pytest.raises(ValueError, match=r"'pool_systems' names run\(s\) not in 'runs': \['q'\]; the runs are \['a', 'b', 'c'\]"):
        shallow_pool_comparison(runs, qrels, "a", "b", pool_systems=["a", "q"])
    with pytest.raises(ValueError, match=r"'n_images' must be an integer >= 2, got 1"):
        shallow_pool_comparison(runs, qrels, "a", "b", n_images=1)
    with pytest.raises(ValueError, match=r"method='logit' is not available for differences"):
        shallow_pool_comparison(runs, qrels, "a", "b", method="logit")
    with pytest.raises(TypeError, match=r"'full' must be True or False, got str"):
        shallow_pool_comparison(runs, qrels, "a", "b", full="yes")
