"""The figures for papers (differences from the baseline, per-topic differences, rank intervals)
draw the numbers an independent computation gives (numpy, scipy t-tests with statsmodels' Holm,
scipy ranks), return their Figure and draw into a given Axes."""
import numpy as np
import pytest
import scipy.stats
import statsmodels.stats.multitest as multitest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import pyterrier_boot as ptb  # noqa: E402

MEASURES = ["AP", "nDCG@10"]


@pytest.fixture(scope="module")
def sim():
    return ptb.simulate_collection(n_topics=25, n_systems=6, depth=100, pool_depth=20, corpus_size=5000,
                                   matching=400, rng=8)


@pytest.fixture(scope="module")
def based(sim):
    return ptb.experiment_result(sim.runs, None, sim.qrels, MEASURES, bootstrap="topic", n_resamples=400, rng=3,
                                 baseline="S1", correction="holm")


@pytest.fixture(scope="module")
def plain(sim):
    return ptb.experiment_result(sim.runs, None, sim.qrels, MEASURES, bootstrap="topic", n_resamples=400, rng=3)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _x(result, j):
    frame = result.per_query()
    frame = frame[frame["measure"] == result.measures[j]]
    return frame.pivot(index="name", columns="qid", values="value").loc[list(result.names)]


def _segments(collection):
    """(y, x0, x1) of each horizontal segment of a LineCollection drawn by hlines."""
    return sorted((float(p[0, 1]), float(p[0, 0]), float(p[1, 0])) for p in collection.get_segments())


@pytest.mark.parametrize("j", [0, 1])
def test_differences_forest_shows_each_test_and_its_interval(based, j):
    fig = ptb.plot_differences(based, MEASURES[j])
    assert isinstance(fig, matplotlib.figure.Figure)
    ax = fig.axes[0]
    x = _x(based, j)
    diffs = (x.mean(axis=1) - x.loc["S1"].mean()).drop("S1")
    order = diffs.sort_values(ascending=False, kind="stable")
    assert [t.get_text() for t in ax.get_yticklabels()] == list(order.index)  # ticks top-down: largest first
    p = [scipy.stats.ttest_rel(x.loc[n], x.loc["S1"]).pvalue for n in order.index]
    reject = multitest.multipletests(p, alpha=0.05, method="holm")[0]
    filled = {c.get_gid(): c for c in ax.collections if c.get_gid()}
    y_of = {n: len(order) - 1 - k for k, n in enumerate(order.index)}
    filled_y = sorted(float(v[1]) for v in filled["significant"].get_offsets())
    assert filled_y == sorted(float(y_of[n]) for n, r in zip(order.index, reject, strict=True) if r)
    for v in filled["significant"].get_offsets():
        n = order.index[len(order) - 1 - int(v[1])]
        assert v[0] == pytest.approx(order[n])
    # each line is the comparison's interval; Holm's intervals are unadjusted: a rejected row's excludes 0
    rows = based.comparisons.frame[based.comparisons.frame["measure"] == MEASURES[j]].set_index("name")
    lines = _segments(ax.collections[0])
    for y, low, high in lines:
        n = order.index[len(order) - 1 - int(y)]
        assert (low, high) == pytest.approx((rows.loc[n, "ci_low"], rows.loc[n, "ci_high"]))
        if reject[list(order.index).index(n)]:
            assert low > 0 or high < 0
    assert "holm-corrected" in ax.get_title()


@pytest.mark.parametrize("all_significant", [False, True])
def test_differences_legend_says_what_colour_and_dot_mean(based, all_significant):
    """Colour is the direction, a filled or hollow dot the verdict: the key lists both colours and
    both dots, also when every comparison is significant (no hollow dot drawn)."""
    import dataclasses

    from matplotlib.colors import to_rgba

    frame = based.comparisons.frame
    frame = frame.assign(reject=True if all_significant else np.arange(len(frame)) % 2 == 0)
    result = dataclasses.replace(based, comparisons=dataclasses.replace(based.comparisons, frame=frame))
    ax = ptb.plot_differences(result, "AP").axes[0]
    drawn = {c.get_gid(): len(c.get_offsets()) for c in ax.collections if c.get_gid()}
    assert (drawn["not significant"] == 0) is all_significant
    legend = ax.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == ["higher than S1", "lower than S1", "significant", "not significant"]
    higher, lower, filled, hollow = legend.legend_handles
    assert to_rgba(higher.get_color()) == to_rgba("tab:blue") and to_rgba(lower.get_color()) == to_rgba("tab:red")
    assert higher.get_marker() in ("None", "", None) and filled.get_marker() == hollow.get_marker() == "o"
    assert to_rgba(filled.get_markerfacecolor()) == to_rgba("black")
    assert to_rgba(hollow.get_markerfacecolor()) == to_rgba("white")
    # the drawn dots use the key's colours: blue above 0, red below
    for gid in ("significant", "not significant"):
        points = next(c for c in ax.collections if c.get_gid() == gid)
        colours = points.get_edgecolors() if gid == "not significant" else points.get_facecolors()
        for (x, _), colour in zip(points.get_offsets(), colours, strict=False):
            assert tuple(colour) == to_rgba("tab:blue" if x >= 0 else "tab:red")


def test_plot_forest_accepts_an_experiment_result(based, sim):
    uncorrected = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], n_resamples=400, rng=3, baseline="S1")
    ax = ptb.plot_forest(uncorrected).axes[0]
    filled = [float(v[1]) for v in next(c for c in ax.collections if c.get_gid() == "significant").get_offsets()]
    excluding = [y for y, low, high in _segments(ax.collections[0]) if low > 0 or high < 0]
    assert sorted(filled) == sorted(excluding)  # uncorrected: filled exactly where the interval excludes 0
    fig = ptb.plot_forest(based, measure="nDCG@10")
    assert isinstance(fig, matplotlib.figure.Figure)
    assert fig.axes[0].get_xlabel() == "difference in mean nDCG@10 from S1"
    fig2, ax = plt.subplots()
    assert ptb.plot_forest(based, ax=ax) is fig2 and ax.get_xlabel() == "difference in mean AP from S1"
    from dataclasses import replace

    with pytest.raises(ValueError, match="no baseline comparisons"):
        ptb.plot_forest(replace(based, comparisons=None))
    with pytest.raises(TypeError, match="MetaAnalysisResult, an AcrossCollections or an ExperimentResult"):
        ptb.plot_forest("not a result")


@pytest.mark.parametrize("j", [0, 1])
def test_topic_differences_are_the_sorted_per_topic_deltas(based, j):
    fig, ax = plt.subplots()
    out = ptb.plot_topic_differences(based, "S4", MEASURES[j], ax=ax)
    assert out is fig
    x = _x(based, j)
    delta = (x.loc["S4"] - x.loc["S1"]).to_numpy()
    heights = np.array([bar.get_height() for bar in ax.patches])
    assert heights == pytest.approx(np.sort(delta)[::-1])
    labels = [t.get_text() for t in ax.get_xticklabels()]
    expected = (x.loc["S4"] - x.loc["S1"]).sort_values(ascending=False, kind="stable")
    assert [float(v) for v in expected.to_numpy()] == pytest.approx(heights)
    assert sorted(labels) == sorted(str(q) for q in x.columns)
    wins, losses = int((delta > 0).sum()), int((delta < 0).sum())
    assert f"({wins} better, {len(delta) - wins - losses} tied, {losses} worse)" in ax.get_title()
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert dashed[0].get_ydata()[0] == pytest.approx(delta.mean())


def test_topic_differences_defaults_and_errors(based, plain):
    fig = ptb.plot_topic_differences(based)  # the best system other than the baseline
    best = max((n for n in based.names if n != "S1"), key=lambda n: based.means[based.names.index(n), 0])
    assert f"{best} vs S1" in fig.axes[0].get_title()
    with pytest.raises(ValueError, match="'baseline' is needed"):
        ptb.plot_topic_differences(plain)
    assert "S2 vs S3" in ptb.plot_topic_differences(plain, "S2", baseline="S3").axes[0].get_title()
    with pytest.raises(ValueError, match="'system' 'S1' is the baseline"):
        ptb.plot_topic_differences(based, "S1")
    with pytest.raises(ValueError, match="unknown system 'nope'"):
        ptb.plot_topic_differences(based, "nope")


@pytest.mark.parametrize("j", [0, 1])
def test_rank_intervals_are_scipy_ranks_with_the_replicate_quantiles(plain, j):
    letters = {n: "ab"[k % 2] for k, n in enumerate(plain.names)}
    fig = ptb.plot_rank_intervals(plain, MEASURES[j], letters=letters)
    ax = fig.axes[0]
    x = _x(plain, j)
    ranks = scipy.stats.rankdata(-x.mean(axis=1).to_numpy(), method="average")
    order = np.argsort(ranks, kind="stable")
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert names == [plain.names[s] for s in order]
    dots = ax.collections[1].get_offsets()
    assert [float(v[0]) for v in dots] == pytest.approx(sorted(ranks))
    replicate_ranks = scipy.stats.rankdata(-plain.distribution_[:, :, j], axis=1, method="average")
    for y, low, high in _segments(ax.collections[0]):
        s = plain.names.index(names[int(round(y)) - 1])
        assert low == np.quantile(replicate_ranks[:, s], 0.025, method="lower")
        assert high == np.quantile(replicate_ranks[:, s], 0.975, method="higher")
    assert [t.get_text() for t in ax.texts] == [letters[n] for n in names]


def test_rank_intervals_need_a_bootstrap(sim):
    res = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], bootstrap=None)
    with pytest.raises(ValueError, match="needs a bootstrap"):
        ptb.plot_rank_intervals(res)


def test_result_methods_draw_the_same_figures(based):
    assert based.plot_differences("AP").axes[0].get_title() == ptb.plot_differences(based, "AP").axes[0].get_title()
    assert based.plot_rank_intervals().axes[0].get_xlabel().startswith("rank by mean AP")
    assert "vs S1" in based.plot_topic_differences("S2").axes[0].get_title()
