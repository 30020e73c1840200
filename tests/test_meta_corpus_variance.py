"""Variance decomposition on corpus-bootstrap images: the long frame against a pandas melt of the
image array, the fits against variance_decomposition (statsmodels solver on a small case) and
scipy's paired t-test, and known variance components recovered."""
import numpy as np
import pandas as pd
import pytest
from conftest import small_collection
from pyterrier_boot.meta.corpus_variance import corpus_replicates, corpus_variance_decomposition
from pyterrier_boot.meta.variance_decomposition import variance_decomposition
from scipy import stats

from pyterrier_boot import CorpusBootstrap
from pyterrier_boot.corpus.result import CorpusBootstrapResult


def _result(images, statistic=None, systems=None, measures=None, unit=()):
    B, S, Q, M = images.shape
    return CorpusBootstrapResult(
        statistic=images.mean(axis=0) if statistic is None else statistic, bootstrap_distribution=images,
        jackknife_distribution=images[:2], systems=tuple(systems or [f"s{i}" for i in range(S)]),
        qids=tuple(f"q{q}" for q in range(Q)), measures=tuple(measures or [f"m{j}" for j in range(M)]),
        model="poisson", corpus_size=None, keys=np.zeros(B, np.uint64), documents=np.array([], dtype=object),
        n_relevant=np.full((Q, M), -1), depth=np.zeros((S, Q, M), int), unit=unit)


def _images(S=4, Q=30, B=60, sd_topic=0.15, sd_cell=0.06, sd_corpus=0.04, seed=0, cell_sd=None):
    rng = np.random.default_rng(seed)
    cells = np.linspace(0.3, 0.4, S)[:, None] + rng.normal(0, sd_topic, Q) + rng.normal(0, sd_cell, (S, Q))
    noise = rng.normal(0, 1, (B, S, Q)) * (sd_corpus if cell_sd is None else cell_sd)
    images = (cells + noise)[..., None]
    return images, cells[..., None]


def test_long_frame_equals_a_melt_of_the_images():
    images, cells = _images(S=3, Q=4, B=5)
    res = _result(np.concatenate([images, images * 2], axis=-1), systems=["a", "b", "c"], measures=["AP", "RR"])
    frame = corpus_replicates(res, "RR", systems=["c", "a"])
    assert list(frame.columns) == ["score", "system", "topic", "replicate"]
    rows = [(2 * images[k, s, q, 0], name, f"q{q}", k) for name, s in (("c", 2), ("a", 0))
            for q in range(4) for k in range(5)]
    expected = pd.DataFrame(rows, columns=["score", "system", "topic", "replicate"])
    pd.testing.assert_frame_equal(frame, expected, check_dtype=False)
    assert len(corpus_replicates(res, "AP", images=3)) == 3 * 4 * 3


def test_fits_equal_variance_decomposition_on_the_frame_and_statsmodels():
    images, cells = _images(S=3, Q=15, B=6, seed=1)
    res = _result(images, statistic=cells, measures=["AP"])
    out = corpus_variance_decomposition(res, reference="s1")
    frame = corpus_replicates(res)
    for fit, hetero in ((out.homoscedastic, False), (out.heteroscedastic, True)):
        ref = variance_decomposition(frame, heteroscedastic=hetero, reference="s1", solver="statsmodels")
        for c in ref.components:
            assert fit.components[c] == pytest.approx(ref.components[c], rel=2e-3)
        np.testing.assert_allclose(fit.effects["effect"], ref.effects["effect"], rtol=1e-4)
        np.testing.assert_allclose(fit.effects["standard_error"], ref.effects["standard_error"], rtol=2e-3)
    homo, hetero = out
    assert homo is out.homoscedastic and not homo.heteroscedastic and hetero.heteroscedastic
    assert out.n_images == 6 and out.n_topics == 15 and out.reference == "s1"


def test_t_test_is_scipy_ttest_rel_on_the_full_corpus():
    images, cells = _images(seed=2)
    res = _result(images, statistic=cells + 0.01 * np.random.default_rng(9).normal(size=cells.shape))
    out = corpus_variance_decomposition(res)
    for _, row in out.t_test.iterrows():
        s = int(row["system"][1:])
        ref = stats.ttest_rel(res.statistic[s, :, 0], res.statistic[0, :, 0])
        assert row["t"] == pytest.approx(ref.statistic) and row["p-value"] == pytest.approx(ref.pvalue)
        assert row["difference"] == pytest.approx(np.mean(res.statistic[s, :, 0] - res.statistic[0, :, 0]))
    table = out.to_frame()
    assert list(table.columns) == ["system", "homo effect", "homo se", "homo p-value", "hetero effect", "hetero se",
                                   "hetero p-value", "t difference", "t se", "t statistic", "t p-value"]
    assert table["system"].tolist() == ["s1", "s2", "s3"]
    comp = out.components_frame()
    assert comp["component"].tolist() == ["topic", "system:topic", "residual"]
    assert comp["homoscedastic share"].sum() == pytest.approx(1)


def test_recovers_known_components():
    images, _ = _images(S=6, Q=200, B=100, sd_topic=0.15, sd_cell=0.06, sd_corpus=0.04, seed=3)
    out = corpus_variance_decomposition(_result(images))
    assert out.homoscedastic.components["topic"] == pytest.approx(0.15 ** 2, rel=0.2)
    assert out.homoscedastic.components["system:topic"] == pytest.approx(0.06 ** 2, rel=0.1)
    assert out.homoscedastic.components["residual"] == pytest.approx(0.04 ** 2, rel=0.02)
    np.testing.assert_allclose(out.homoscedastic.effects["effect"], np.linspace(0.3, 0.4, 6)[1:] - 0.3, atol=0.015)


def test_heteroscedastic_residuals_follow_the_cells():
    rng = np.random.default_rng(4)
    cell_sd = rng.choice([0.01, 0.04, 0.12], size=(4, 60))
    images, _ = _images(S=4, Q=60, B=40, seed=5, cell_sd=cell_sd)
    out = corpus_variance_decomposition(_result(images))
    fitted = out.heteroscedastic.residual_variances
    assert np.corrcoef(np.log(fitted).ravel(), np.log(cell_sd ** 2).ravel())[0, 1] > 0.95
    assert out.heteroscedastic.converged


def test_runs_and_qrels_run_the_corpus_bootstrap():
    runs, qrels = small_collection()
    out = corpus_variance_decomposition(runs, "RBP(p=0.8)", qrels=qrels, n_images=20, rng=4)
    res = CorpusBootstrap(qrels, n_images=20, rng=4, verbose=False).evaluate(runs, ["RBP(p=0.8)"])
    again = corpus_variance_decomposition(res)
    assert out.homoscedastic.components == again.homoscedastic.components
    pd.testing.assert_frame_equal(out.to_frame(), again.to_frame())


def test_bad_input():
    images, _ = _images(S=3, Q=5, B=4)
    res = _result(np.concatenate([images, images], axis=-1), measures=["AP", "RR"])
    with pytest.raises(ValueError, match=r"'measure' is required: the result has 2 measures \['AP', 'RR'\]"):
        corpus_variance_decomposition(res)
    with pytest.raises(ValueError, match=r"'measure': \['nDCG'\] not in the corpus-bootstrap result, whose measures are \['AP', 'RR'\]"):
        corpus_variance_decomposition(res, "nDCG")
    with pytest.raises(ValueError, match=r"'reference' 'zz' is not one of the systems \['s0', 's1', 's2'\]"):
        corpus_variance_decomposition(res, "AP", reference="zz")
    with pytest.raises(ValueError, match=r"'qrels' is for runs: a CorpusBootstrapResult already holds its evaluation"):
        corpus_variance_decomposition(res, "AP", qrels="qrels.txt")
    with pytest.raises(TypeError, match=r"'result' must be a CorpusBootstrapResult, or runs with qrels=...; got dict and no qrels"):
        corpus_variance_decomposition({"a": None}, "AP")
    with pytest.raises(ValueError, match=r"'measure' is required \(one measure label\) when runs and qrels are given"):
        corpus_variance_decomposition({"a": None}, ["AP"], qrels="q")
    with pytest.raises(ValueError, match=r"'images' must be an integer >= 2, got 1"):
        corpus_variance_decomposition(res, "AP", images=1)
    with pytest.raises(ValueError, match=r"'systems': need at least 2 systems, got 1"):
        corpus_variance_decomposition(res, "AP", systems=["s0"])
    with pytest.raises(TypeError, match=r"'measure' must be one measure label \(a string\), got list"):
        corpus_variance_decomposition(res, ["AP"])
