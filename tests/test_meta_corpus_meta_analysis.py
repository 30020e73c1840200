"""Meta-analysis from the corpus bootstrap: per-topic effects and SDs against scipy's logit and numpy
on the image values, the pooling against statsmodels' combine_effects, and the degenerate topics."""
import warnings

import numpy as np
import pytest
from conftest import small_collection
from pyterrier_boot.meta.corpus_meta_analysis import corpus_meta_analysis, corpus_topic_effects
from scipy import special, stats
from statsmodels.stats.meta_analysis import combine_effects

from pyterrier_boot import CorpusBootstrap, InputWarning
from pyterrier_boot.corpus.result import CorpusBootstrapResult


def _result(images, statistic=None, systems=("x", "y", "z"), measures=("AP",), unit=(True,)):
    B, S, Q, M = images.shape
    return CorpusBootstrapResult(
        statistic=images.mean(axis=0) if statistic is None else statistic, bootstrap_distribution=images,
        jackknife_distribution=images[:2], systems=tuple(systems), qids=tuple(f"q{q}" for q in range(Q)),
        measures=tuple(measures), model="poisson", corpus_size=None, keys=np.zeros(B, np.uint64),
        documents=np.array([], dtype=object), n_relevant=np.full((Q, M), -1), depth=np.zeros((S, Q, M), int),
        unit=tuple(unit))


@pytest.fixture
def res():
    rng = np.random.default_rng(0)
    B, Q = 80, 25
    base = rng.beta(2, 4, Q)
    x = np.clip(base + 0.08 + rng.normal(0, 0.06, (B, Q)), 0, 1)
    y = np.clip(base + rng.normal(0, 0.06, (B, Q)) + 0.5 * (x - x.mean(axis=0)), 0, 1)  # correlated images
    z = np.clip(base + rng.normal(0, 0.1, (B, Q)), 0, 1)
    images = np.stack([x, y, z], axis=1)[..., None]
    full = np.stack([base + 0.08 + rng.normal(0, 0.15, Q), base, base], axis=0)[..., None]
    return _result(images, statistic=np.clip(full, 0, 1))


def test_effects_and_sds_equal_scipy_logit_on_the_images(res):
    d, se = corpus_topic_effects(res, "x", "y")
    eps = 1e-5
    logit = special.logit(np.clip(res.statistic, eps, 1 - eps))[..., 0]
    np.testing.assert_allclose(d, logit[0] - logit[1], rtol=1e-12)
    images = special.logit(np.clip(res.bootstrap_distribution, eps, 1 - eps))[..., 0]
    np.testing.assert_allclose(se, (images[:, 0] - images[:, 1]).std(axis=0, ddof=1), rtol=1e-12)
    assert list(d.index) == list(res.qids) and d.name == "logit"
    diff, diff_se = corpus_topic_effects(res, "x", "z", effect="difference")
    np.testing.assert_allclose(diff, res.statistic[0, :, 0] - res.statistic[2, :, 0])
    np.testing.assert_allclose(diff_se, (res.bootstrap_distribution[:, 0] - res.bootstrap_distribution[:, 2])[..., 0]
                               .std(axis=0, ddof=1))
    # a callable: the arcsine-square-root transform
    asin, _ = corpus_topic_effects(res, "x", "y", effect=lambda a, b: np.arcsin(np.sqrt(a)) - np.arcsin(np.sqrt(b)))
    np.testing.assert_allclose(asin, np.arcsin(np.sqrt(res.statistic[0, :, 0])) - np.arcsin(np.sqrt(res.statistic[1, :, 0])))


def test_sd_of_the_paired_difference_is_smaller_for_correlated_images(res):
    """Cormack & Lynam: bootstrapping d itself accounts for the correlation of the systems."""
    _, paired = corpus_topic_effects(res, "x", "y", effect="difference")
    x, y = res.bootstrap_distribution[:, 0, :, 0], res.bootstrap_distribution[:, 1, :, 0]
    independent = np.sqrt(x.var(axis=0, ddof=1) + y.var(axis=0, ddof=1))
    assert (paired.to_numpy() < independent).mean() > 0.9


def test_pooling_equals_statsmodels_combine_effects(res):
    meta = corpus_meta_analysis(res, "x", "z")
    d, se = corpus_topic_effects(res, "x", "z")
    ref = combine_effects(d.to_numpy(), se.to_numpy() ** 2, method_re="dl")
    assert meta.fixed.estimate == pytest.approx(ref.mean_effect_fe, rel=1e-12)
    assert meta.fixed.standard_error == pytest.approx(ref.sd_eff_w_fe, rel=1e-12)
    assert ref.tau2 > 0
    assert meta.random.estimate == pytest.approx(ref.mean_effect_re, rel=1e-12)
    assert meta.tau2 == pytest.approx(ref.tau2, rel=1e-10) and meta.i2 == pytest.approx(ref.i2, rel=1e-10)
    z = (d / se).sum() / np.sqrt(len(d))
    assert meta.stouffer_statistic == pytest.approx(z)
    one_sided = corpus_meta_analysis(res, "x", "z", alternative="greater", method="fixed")
    assert one_sided.stouffer_pvalue == pytest.approx(stats.norm.sf(z))  # Cormack & Lynam's p = 1 - Phi(Z)
    assert one_sided.statistic == one_sided.fixed.estimate
    assert meta.labels == res.qids


def test_degenerate_topics_are_dropped_with_a_warning(res):
    images = res.bootstrap_distribution.copy()
    images[:, 0, 3] = 0.0  # both systems score 0 on topic q3 on every image
    images[:, 1, 3] = 0.0
    images[:, 0, 7], images[:, 1, 7] = 0.4, 0.3  # a constant difference on q7
    broken = _result(images)
    with pytest.warns(InputWarning, match=r"2 topic\(s\) have the same effect on every corpus image \(SD 0\) and are left out of the meta-analysis: \['q3', 'q7'\]"):
        meta = corpus_meta_analysis(broken, "x", "y", effect="difference")
    assert meta.n_topics == 23 and "q3" not in meta.labels
    with pytest.raises(ValueError, match=r"2 topic\(s\) have the same effect on every corpus image \(SD 0\), which carries no information about precision: \['q3', 'q7'\]; pass degenerate='drop' to leave them out"):
        corpus_meta_analysis(broken, "x", "y", effect="difference", degenerate="raise")
    images[:, 1] = images[:, 0]  # identical systems: every difference is 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        with pytest.raises(ValueError, match=r"only 0 topic\(s\) have an effect that varies over images; a meta-analysis needs at least 2"):
            corpus_meta_analysis(_result(images), "x", "y", effect="difference")


def test_forest_plot_rows_are_the_topics(res, tmp_path):
    pytest.importorskip("matplotlib").use("Agg")
    meta = corpus_meta_analysis(res, "x", "y")
    ax = meta.plot()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == list(res.qids) + ["fixed effect", "random effects"]
    ax.figure.savefig(tmp_path / "forest.png")


def test_on_a_real_corpus_bootstrap_the_topic_sds_are_the_difference_sds():
    runs, qrels = small_collection(systems="ab", n_topics=8)
    res = CorpusBootstrap(qrels, n_images=40, rng=3, verbose=False).evaluate(runs, ["AP", "nDCG@10"])
    _, se = corpus_topic_effects(res, "b", "a", measure="nDCG@10", effect="difference")
    diff = res.difference("b", "a", measures=["nDCG@10"])
    np.testing.assert_allclose(se, diff.topic_standard_error[:, 0], rtol=1e-12)
    meta = corpus_meta_analysis(res, "b", "a", measure="AP")
    assert meta.n_topics <= 8 and np.isfinite(meta.statistic)


def test_bad_input(res):
    with pytest.raises(ValueError, match=r"unknown system 'w' for 'b': the result's systems are \['x', 'y', 'z'\]"):
        corpus_meta_analysis(res, "x", "w")
    with pytest.raises(ValueError, match=r"'a' and 'b' are the same system \('x'\): an effect needs two systems"):
        corpus_meta_analysis(res, "x", "x")
    with pytest.raises(ValueError, match=r"'measure': \['P@10'\] not in the corpus-bootstrap result, whose measures are \['AP'\]"):
        corpus_meta_analysis(res, "x", "y", measure="P@10")
    with pytest.raises(ValueError, match=r"'effect' must be one of 'logit', 'difference'; got 'ratio'"):
        corpus_meta_analysis(res, "x", "y", effect="ratio")
    with pytest.raises(ValueError, match=r"'degenerate' must be one of 'drop', 'raise'; got 'keep'"):
        corpus_meta_analysis(res, "x", "y", degenerate="keep")
    scaled = _result(res.bootstrap_distribution * 3, measures=("DCG",), unit=(False,))
    with pytest.raises(ValueError, match=r"effect='logit' needs scores in \[0, 1\], and 'DCG' is not known to lie in \[0, 1\]: use effect='difference'"):
        corpus_meta_analysis(scaled, "x", "y")
    with pytest.raises(ValueError, match=r"'effect' returned NaN or infinite values"):
        corpus_meta_analysis(res, "x", "y", effect=lambda a, b: np.full_like(a, np.nan))
    with pytest.raises(ValueError, match=r"'effect' must return an array shaped like its inputs"):
        corpus_meta_analysis(res, "x", "y", effect=lambda a, b: np.mean(a - b))
