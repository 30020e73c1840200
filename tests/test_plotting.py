"""The experiment plots draw what they claim: checked against values computed independently
(numpy means, scipy t-tests with statsmodels' Holm correction, scipy ranks)."""
import numpy as np
import pytest
import scipy.stats
import statsmodels.stats.multitest as multitest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import pyterrier_boot as ptb  # noqa: E402
from pyterrier_boot import plotting  # noqa: E402

MEASURES = ["AP", "nDCG@10"]


@pytest.fixture(scope="module")
def sim():
    return ptb.simulate_collection(n_topics=15, n_systems=4, depth=100, pool_depth=20, corpus_size=5000,
                                   matching=400, rng=3)


@pytest.fixture(scope="module")
def topic_result(sim):
    qrels = ptb.read_qrels(sim.qrels, corpus_size=sim.corpus_size)
    return ptb.experiment_result(sim.runs, None, qrels, MEASURES, bootstrap="topic", n_resamples=500, rng=1)


@pytest.fixture(scope="module")
def corpus_result(sim):
    qrels = ptb.read_qrels(sim.qrels, corpus_size=sim.corpus_size)
    return ptb.experiment_result(sim.runs, None, qrels, MEASURES, bootstrap="corpus", n_resamples=60, rng=1)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _per_topic(result, measure):
    """systems x topics values from the long per-query table (not the result's array)."""
    frame = result.per_query()
    frame = frame[frame["measure"] == measure]
    return frame.pivot(index="name", columns="qid", values="value").loc[list(result.names)]


def _labelled(ax, tmp_path, name):
    assert ax.get_title() or ax.figure._suptitle is not None
    assert ax.get_xlabel()
    ax.figure.savefig(tmp_path / f"{name}.png")
    assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("measure", MEASURES)
def test_means_sorted_with_intervals(topic_result, measure, tmp_path):
    ax = plotting.plot_means(topic_result, measure)
    means = _per_topic(topic_result, measure).mean(axis=1)
    expected = means.sort_values(ascending=False, kind="stable")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == list(expected.index)
    points = ax.collections[-1].get_offsets()  # the scatter of means, drawn after the interval lines
    np.testing.assert_allclose(points[:, 0], expected.to_numpy(), rtol=0, atol=1e-12)
    segments = ax.collections[0].get_segments()
    j = MEASURES.index(measure)
    order = [topic_result.names.index(n) for n in expected.index]
    for seg, s in zip(segments, order, strict=True):
        np.testing.assert_allclose(sorted(seg[:, 0]), topic_result.intervals[s, j], atol=1e-12)
    assert measure in ax.get_title() and "interval" in ax.get_title()
    _labelled(ax, tmp_path, "means")


def test_means_marks_truth_and_baseline(sim, tmp_path):
    qrels = ptb.read_qrels(sim.qrels, corpus_size=sim.corpus_size)
    res = ptb.experiment_result(sim.runs, None, qrels, ["AP"], bootstrap="topic", n_resamples=200, rng=1,
                         baseline="S1")
    truth = {"S1": 0.1, "S2": 0.2, "S3": 0.3, "S4": 0.4}
    ax = res.plot_means(truth=truth)
    diamonds = ax.collections[-1].get_offsets()
    names = [t.get_text() for t in ax.get_yticklabels()]
    np.testing.assert_allclose(diamonds[:, 0], [truth[n] for n in names])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "baseline" in legend and "true (population) mean" in legend
    bold = [t.get_text() for t in ax.get_yticklabels() if t.get_fontweight() == "bold"]
    assert bold == ["S1"]
    _labelled(ax, tmp_path, "means_truth")


def test_pairwise_matrix_matches_scipy_and_holm(topic_result, tmp_path):
    measure = "AP"
    ax = plotting.plot_pairwise(topic_result, measure, correction="holm", alpha=0.05)
    values = _per_topic(topic_result, measure)
    order = list(values.mean(axis=1).sort_values(ascending=False, kind="stable").index)
    matrix = ax.images[0].get_array()
    means = values.mean(axis=1)
    pairs, pvalues = [], []
    for i, a in enumerate(order):
        for k, b in enumerate(order):
            if i != k:
                assert matrix[i, k] == pytest.approx(means[a] - means[b], abs=1e-12)
            if i < k:
                pairs.append((i, k))
                pvalues.append(scipy.stats.ttest_rel(values.loc[a], values.loc[b]).pvalue)
    reject = multitest.multipletests(pvalues, alpha=0.05, method="holm")[0]
    expected = {(i, k) for (i, k), r in zip(pairs, reject, strict=True) if r}
    expected |= {(k, i) for i, k in expected}
    dots = {(int(round(y)), int(round(x))) for x, y in ax.collections[-1].get_offsets()}
    assert dots == expected
    assert [t.get_text() for t in ax.get_yticklabels()] == order
    assert "holm" in ax.get_title()
    _labelled(ax, tmp_path, "pairwise")


def test_pairwise_with_baseline_greys_untested(sim):
    qrels = ptb.read_qrels(sim.qrels, corpus_size=sim.corpus_size)
    res = ptb.experiment_result(sim.runs, None, qrels, ["AP"], bootstrap=None, baseline="S2", correction="holm")
    ax = res.plot_pairwise()
    matrix = np.ma.getdata(ax.images[0].get_array())
    mask = np.ma.getmaskarray(ax.images[0].get_array())
    names = [t.get_text() for t in ax.get_yticklabels()]
    b = names.index("S2")
    for i in range(4):
        for k in range(4):
            assert mask[i, k] == (i == k or (i != b and k != b))
    assert np.isfinite(matrix[b, [k for k in range(4) if k != b]]).all()
    assert "not compared" in ax.get_title()


def test_ranks_boxes_match_scipy_ranks(topic_result, tmp_path):
    ax = plotting.plot_ranks(topic_result, "nDCG@10")
    j = topic_result.measures.index("nDCG@10")
    ranks = scipy.stats.rankdata(-topic_result.distribution_[:, :, j], axis=1, method="average")
    collection = scipy.stats.rankdata(-topic_result.means[:, j], method="average")
    order = np.argsort(collection, kind="stable")
    medians = [line.get_xdata()[0] for line in ax.lines if line.get_gid() == "median"]
    np.testing.assert_allclose(medians, np.median(ranks[:, order], axis=0))
    assert [t.get_text() for t in ax.get_yticklabels()] == [topic_result.names[s] for s in order]
    np.testing.assert_allclose(ax.collections[-1].get_offsets()[:, 0], collection[order])
    assert "rank" in ax.get_xlabel()
    _labelled(ax, tmp_path, "ranks")


def test_topics_with_corpus_boxes(corpus_result, tmp_path):
    ax = plotting.plot_topics(corpus_result, "S2", "AP")
    values = _per_topic(corpus_result, "AP").loc["S2"]
    expected = values.sort_values(kind="stable")
    assert [t.get_text() for t in ax.get_xticklabels()] == list(expected.index)
    np.testing.assert_allclose(ax.collections[-1].get_offsets()[:, 1], expected.to_numpy())
    assert len(ax.patches) == len(values)  # one box per topic
    assert "corpus images" in ax.get_title() and "S2" in ax.get_title()
    _labelled(ax, tmp_path, "topics_corpus")


def test_topics_without_corpus_default_system(topic_result, tmp_path):
    ax = topic_result.plot_topics(measure="nDCG@10")
    best = _per_topic(topic_result, "nDCG@10").mean(axis=1).idxmax()
    assert ax.get_title().startswith(f"{best}:")
    assert "corpus bootstrap" in ax.get_title()  # says why there are no per-topic intervals
    _labelled(ax, tmp_path, "topics_topic")


def test_pvalues_are_per_image_paired_t_tests(corpus_result, tmp_path):
    axes = plotting.plot_pvalues(corpus_result, "S4", "S1", measures=["AP"])
    corpus = corpus_result.corpus
    a, b = corpus.systems.index("S4"), corpus.systems.index("S1")
    m = corpus.measures.index("AP")
    images = corpus.bootstrap_distribution[:, :, :, m]
    diffs = images[:, a].mean(axis=1) - images[:, b].mean(axis=1)
    pvalues = scipy.stats.ttest_rel(images[:, a], images[:, b], axis=1).pvalue
    points = axes[0].collections[0].get_offsets()
    np.testing.assert_allclose(points[:, 0], diffs, atol=1e-12)
    np.testing.assert_allclose(points[:, 1], pvalues, rtol=1e-8, atol=1e-12)
    assert "S4" in axes[0].figure._suptitle.get_text()
    _labelled(axes[0], tmp_path, "pvalues")


def test_pvalues_default_pair_is_best_two(corpus_result):
    axes = corpus_result.plot_pvalues()
    assert len(axes) == 2
    best = list(_per_topic(corpus_result, "AP").mean(axis=1).sort_values(ascending=False).index[:2])
    assert axes[0].figure._suptitle.get_text().startswith(f"{best[0]} vs {best[1]}")


def test_plot_errors(topic_result, sim):
    with pytest.raises(ValueError, match="unknown measure 'P@5'"):
        plotting.plot_means(topic_result, "P@5")
    with pytest.raises(ValueError, match="corpus bootstrap"):
        plotting.plot_pvalues(topic_result)
    with pytest.raises(ValueError, match="unknown system 'nope'"):
        plotting.plot_topics(topic_result, "nope")
    res = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], bootstrap=None)
    with pytest.raises(ValueError, match="needs a bootstrap"):
        plotting.plot_ranks(res)
    ax = plotting.plot_means(res)  # no intervals: means only, said in the title
    assert "no bootstrap" in ax.get_title()
