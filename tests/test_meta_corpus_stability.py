"""Corpus stability of measures against direct numpy computations on hand-made image distributions,
known SDs, and the corpus package's own per-topic and difference SDs on a real corpus bootstrap."""
import numpy as np
import pandas as pd
import pytest
from conftest import small_collection
from pyterrier_boot.meta.corpus_stability import SUMMARY_COLUMNS, corpus_stability

from pyterrier_boot import CorpusBootstrap
from pyterrier_boot.corpus.result import CorpusBootstrapResult


def _result(images, systems=None, qids=None, measures=None):
    """A CorpusBootstrapResult holding ``images[B, S, Q, M]`` (full corpus: the image mean)."""
    B, S, Q, M = images.shape
    return CorpusBootstrapResult(
        statistic=images.mean(axis=0), bootstrap_distribution=images, jackknife_distribution=images[:2],
        systems=tuple(systems or [f"s{i}" for i in range(S)]), qids=tuple(qids or [str(q) for q in range(Q)]),
        measures=tuple(measures or [f"m{j}" for j in range(M)]), model="poisson", corpus_size=None,
        keys=np.zeros(B, np.uint64), documents=np.array([], dtype=object), n_relevant=np.full((Q, M), -1),
        depth=np.zeros((S, Q, M), int))


@pytest.fixture(scope="module")
def images():
    rng = np.random.default_rng(3)
    B, S, Q, M = 40, 5, 7, 3
    shared = rng.normal(0, 0.05, (B, 1, Q, M))  # images move systems together (paired)
    return 0.4 + shared + rng.normal(0, [0.01, 0.05, 0.2], (B, S, Q, M))


def test_sds_equal_a_loop_over_pairs(images):
    res = corpus_stability(_result(images))
    B, S, Q, M = images.shape
    np.testing.assert_allclose(res.score_sd, images.std(axis=0, ddof=1), rtol=1e-12)
    k = 0
    for i in range(S):
        for j in range(i + 1, S):
            assert (res.pairs[0][k], res.pairs[1][k]) == (i, j)
            d = images[:, i] - images[:, j]
            np.testing.assert_allclose(res.difference_sd[k], d.std(axis=0, ddof=1), rtol=1e-12)
            np.testing.assert_allclose(res.mean_difference_sd[k], d.mean(axis=1).std(axis=0, ddof=1), rtol=1e-12)
            k += 1
    assert res.n_pairs == k == S * (S - 1) // 2
    np.testing.assert_allclose(res.mean_sd, images.mean(axis=2).std(axis=0, ddof=1), rtol=1e-12)
    score_sd, difference_sd = res
    assert score_sd is res.score_sd and difference_sd is res.difference_sd


def test_summary_tables_equal_numpy(images):
    res = corpus_stability(_result(images, measures=["AP", "P@10", "RR"]))
    table = res.summary()
    assert list(table.columns) == list(SUMMARY_COLUMNS)
    assert table["measure"].tolist() == ["AP", "P@10", "RR"]
    for m in range(3):
        sd = images[..., m].std(axis=0, ddof=1).ravel()
        row = table.iloc[m]
        assert row["score_sd_mean"] == pytest.approx(sd.mean())
        assert row["score_sd_sd"] == pytest.approx(sd.std())
        assert row["score_sd_median"] == pytest.approx(np.median(sd))
        assert row["score_sd_p95"] == pytest.approx(np.quantile(sd, 0.95))
        diffs = np.concatenate([(images[:, i, :, m] - images[:, j, :, m]).std(axis=0, ddof=1)
                                for i in range(5) for j in range(i + 1, 5)])
        assert row["difference_sd_mean"] == pytest.approx(diffs.mean())
        assert row["difference_sd_sd"] == pytest.approx(diffs.std())
        assert row["difference_sd_p95"] == pytest.approx(np.percentile(diffs, 95))
    per_system = res.per_system()
    assert list(per_system.columns[:4]) == ["name", "AP topic_sd_mean", "AP topic_sd_sd", "AP mean_sd"]
    sd = images[:, 2, :, 1].std(axis=0, ddof=1)
    assert per_system.loc[2, "P@10 topic_sd_mean"] == pytest.approx(sd.mean())
    assert per_system.loc[2, "P@10 topic_sd_sd"] == pytest.approx(sd.std())
    per_topic = res.per_topic()
    assert per_topic["RR sd_p95"].iloc[4] == pytest.approx(np.percentile(images[:, :, 4, 2].std(axis=0, ddof=1), 95))
    pd.testing.assert_frame_equal(res.to_frame(), table)


def test_known_standard_deviations():
    """Independent normal noise: score SD = sigma, difference SD = sigma * sqrt(2); a system that is
    another plus a constant on every image has difference SD exactly 0 (the images pair systems)."""
    rng = np.random.default_rng(0)
    B, Q = 4000, 6
    a = rng.normal(0.5, 0.1, (B, Q))
    images = np.stack([a, rng.normal(0.5, 0.1, (B, Q)), a + 0.2], axis=1)[..., None]
    res = corpus_stability(_result(images))
    np.testing.assert_allclose(res.score_sd[..., 0], 0.1, rtol=0.05)
    np.testing.assert_allclose(res.difference_sd[0, :, 0], 0.1 * np.sqrt(2), rtol=0.05)  # (0, 1)
    np.testing.assert_allclose(res.difference_sd[1, :, 0], 0.0, atol=1e-12)  # (0, 2): paired
    np.testing.assert_allclose(res.mean_difference_sd[0, 0], 0.1 * np.sqrt(2 / Q), rtol=0.05)


def test_subsets_of_systems_and_measures(images):
    full = _result(images, systems=list("abcde"))
    res = corpus_stability(full, systems=["d", "b"], measures="m2")
    assert res.systems == ("d", "b") and res.measures == ("m2",)
    np.testing.assert_allclose(res.difference_sd[0, :, 0], (images[:, 3, :, 2] - images[:, 1, :, 2]).std(axis=0, ddof=1))


@pytest.mark.filterwarnings("ignore:n_images=30 is too few:pyterrier_boot.BootWarning")  # 30 images: a small test
def test_agrees_with_the_corpus_result_on_a_real_bootstrap():
    runs, qrels = small_collection()
    res = CorpusBootstrap(qrels, n_images=30, rng=2, verbose=False).evaluate(runs, ["AP", "RBP(p=0.8)"])
    st = corpus_stability(res)
    np.testing.assert_allclose(st.score_sd, res.standard_error)
    diff = res.difference("a", "c")  # pair (0, 2) is the second in triu order
    np.testing.assert_allclose(st.difference_sd[1], diff.topic_standard_error, rtol=1e-12)
    np.testing.assert_allclose(st.mean_difference_sd[1], diff.standard_error, rtol=1e-12)
    table = res.per_system()
    np.testing.assert_allclose(st.mean_sd[:, 0], table["AP se"], rtol=1e-12)


def test_bad_input(images):
    res = _result(images, systems=list("abcde"), measures=["AP", "P@10", "RR"])
    with pytest.raises(TypeError, match=r"'result' must be a CorpusBootstrapResult \(from CorpusBootstrap\(...\).evaluate\(runs, measures\)\); got dict"):
        corpus_stability({"AP": images})
    with pytest.raises(ValueError, match=r"'measures': \['nDCG'\] not in the corpus-bootstrap result, whose measures are \['AP', 'P@10', 'RR'\] \(labels as written to evaluate\(\)\)"):
        corpus_stability(res, measures=["AP", "nDCG"])
    with pytest.raises(ValueError, match=r"'systems': unknown system\(s\) \['z'\]; the result's systems are \['a', 'b', 'c', 'd', 'e'\]"):
        corpus_stability(res, systems=["a", "z"])
    with pytest.raises(ValueError, match=r"'systems': need at least 2 systems, got 1"):
        corpus_stability(res, systems=["a"])
    with pytest.raises(ValueError, match=r"'measures' is empty: name at least one of \['AP', 'P@10', 'RR'\]"):
        corpus_stability(res, measures=[])
    one = _result(images[:1])
    with pytest.raises(ValueError, match=r"'result' has 1 corpus image\(s\); a standard deviation over images needs at least 2 \(use n_images >= 100, as Zobel & Rashidi\)"):
        corpus_stability(one)
