"""across_collections: the figures of several collections against their definitions (each
collection's ExperimentResult, the average's variance, random_effects for the pool), the bad inputs
of issue 34 that concern collections, save/load, the leaderboard's letters and rank intervals, the
displays, and executors giving identical numbers."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

import pyterrier_boot as ptb
from pyterrier_boot.across.effects import hedges_correction
from pyterrier_boot.across.storage import read_across

N_RESAMPLES = 500


def _simulated(n_collections=3, n_topics=20, shift=0.3, seed=0):
    """Collections C0.. of three systems whose middle one's effectiveness moves between collections."""
    rng = np.random.default_rng(seed)
    out = {}
    for c in range(n_collections):
        sim = ptb.simulate_collection(n_topics=n_topics, effectiveness=[1.0, 1.2 + shift * rng.normal(), 1.5],
                                      depth=50, pool_depth=10, corpus_size=5000, matching=300, rng=seed * 100 + c)
        out[f"C{c}"] = (sim.runs, sim.qrels)
    return out


@pytest.fixture(scope="module")
def collections():
    return _simulated()


@pytest.fixture(scope="module")
def results(collections):
    return {name: ptb.experiment_result(runs, None, qrels, ["AP", "nDCG@10"], n_resamples=N_RESAMPLES, rng=i)
            for i, (name, (runs, qrels)) in enumerate(collections.items())}


@pytest.fixture(scope="module")
def analysis(results):
    return ptb.across_collections(results, "AP", baseline="S1")


def test_per_collection_is_each_results_estimates(analysis, results):
    per = analysis.per_collection()
    assert list(per.columns) == ["collection", "system", "estimate", "se", "df", "ci_low", "ci_high", "n_topics",
                                 "variance"]
    for name, result in results.items():
        mine = per[per["collection"] == name].reset_index(drop=True)
        theirs = result.estimates("AP", baseline="S1")
        for column in ("estimate", "se", "df", "ci_low", "ci_high"):
            np.testing.assert_array_equal(mine[column].to_numpy(), theirs[column].to_numpy())
        values = result.values[:, :, 0]
        np.testing.assert_allclose(mine["se"], (values[1:] - values[0]).std(axis=1, ddof=1) / np.sqrt(20))
    assert set(per["variance"]) == {"topics"}


def test_estimates_interval_of_a_difference_is_the_tables(collections):
    runs, qrels = collections["C0"]
    for bootstrap in ("topic", "corpus", "both"):
        res = ptb.experiment_result(runs, None, qrels, ["AP"], baseline="S1", bootstrap=bootstrap, n_resamples=200)
        table = res.table().set_index("name")
        est = res.estimates("AP", baseline="S1").set_index("name")
        np.testing.assert_allclose(est["ci_low"], table.loc[est.index, "AP diff ci_low"], rtol=1e-12)
        np.testing.assert_allclose(est["ci_high"], table.loc[est.index, "AP diff ci_high"], rtol=1e-12)
        means = res.estimates("AP").set_index("name")
        np.testing.assert_array_equal(means["ci_low"], table.loc[means.index, "AP ci_low"])
        assert est.attrs["variance"] == {"topic": "topics", "corpus": "corpus", "both": "topics+corpus"}[bootstrap]
        if bootstrap != "topic":  # the SD of the replicates, differences taken within each
            dist = res.distribution_[:, :, 0]
            np.testing.assert_allclose(est["se"], (dist[:, 1:] - dist[:, [0]]).std(axis=0, ddof=1))
            assert np.isinf(est["df"]).all()


def test_estimates_refuses_what_it_cannot_estimate(results):
    res = results["C0"]
    with pytest.raises(ValueError, match="'measure': 'P@10' is not in the result"):
        res.estimates("P@10")
    with pytest.raises(ValueError, match="'baseline': 'S9' is not a system"):
        res.estimates("AP", baseline="S9")


def test_average_is_the_mean_over_these_collections(analysis):
    per, avg = analysis.per_collection(), analysis.average()
    for system, row in avg.set_index("system").iterrows():
        mine = per[per["system"] == system]
        assert row["estimate"] == pytest.approx(mine["estimate"].mean(), rel=1e-12)
        assert row["se"] == pytest.approx(np.sqrt((mine["se"] ** 2).sum()) / 3, rel=1e-12)
        v = mine["se"].to_numpy() ** 2
        assert row["df"] == pytest.approx(v.sum() ** 2 / (v ** 2 / 19).sum(), rel=1e-12)
        from scipy import stats

        half = stats.t.isf(0.025, row["df"]) * row["se"]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((row["estimate"] - half, row["estimate"] + half))


def test_pooled_is_random_effects_of_the_collections(analysis):
    per, pooled = analysis.per_collection(), analysis.pooled()
    assert list(pooled.columns)[:9] == ["system", "estimate", "se", "df", "ci_low", "ci_high", "pi_low", "pi_high",
                                        "tau2"]
    for system, row in pooled.set_index("system").iterrows():
        mine = per[per["system"] == system]
        fit = ptb.random_effects(mine["estimate"], mine["se"] ** 2)  # REML, HKSJ, Higgins' prediction
        for ours, theirs in (("estimate", "estimate"), ("ci_low", "ci_low"), ("pi_high", "pi_high"),
                             ("tau2", "tau2"), ("i2", "i2"), ("p-value", "pvalue")):
            assert row[ours] == pytest.approx(getattr(fit, theirs), rel=1e-12, abs=1e-15)
        assert row["k"] == 3 and row["variance"] == "topics+collections"
    dl = ptb.across_collections(analysis.results and dict(zip(analysis.collections, analysis.results, strict=True)),
                                "AP", baseline="S1", tau2_method="DL", hksj=False).pooled()
    mine = per[per["system"] == "S3"]
    fit = ptb.random_effects(mine["estimate"], mine["se"] ** 2, tau2_method="DL", hksj=False)
    assert dl.set_index("system").loc["S3", "ci_high"] == pytest.approx(fit.ci_high, rel=1e-12)


def test_prediction_intervals_q_profile_by_default_higgins_or_hksj(results):
    per = ptb.across_collections(results, "AP", baseline="S1").per_collection()
    mine = per[per["system"] == "S2"]
    for kind in ("q-profile", "higgins", "hksj"):
        pooled = ptb.across_collections(results, "AP", baseline="S1", prediction=kind).pooled().iloc[0]
        fit = ptb.random_effects(mine["estimate"], mine["se"] ** 2, prediction=kind)
        assert (pooled["pi_low"], pooled["pi_high"]) == pytest.approx((fit.pi_low, fit.pi_high), rel=1e-12)
    two = {k: results[k] for k in ("C0", "C1")}
    with pytest.warns(ptb.DegenerateWarning, match="with 2 studies it is undefined"):
        higgins = ptb.across_collections(two, "AP", baseline="S1", prediction="higgins").pooled()
    assert higgins["pi_low"].isna().all() and higgins["ci_low"].notna().all()  # t with k - 2 = 0 df: no interval
    assert ptb.across_collections(two, "AP", baseline="S1").pooled()["pi_low"].notna().all()
    with pytest.raises(ValueError, match="'prediction' must be one of"):
        ptb.across_collections(results, "AP", prediction="riley")


def test_standardised_differences_are_hedges_g(results):
    res = ptb.across_collections(results, "AP", baseline="S1", standardize=True)
    per = res.per_collection()
    values = results["C1"].values[:, :, 0]
    d = values[2] - values[0]
    g = hedges_correction(19) * d.mean() / d.std(ddof=1)
    row = per[(per["collection"] == "C1") & (per["system"] == "S3")].iloc[0]
    assert row["estimate"] == pytest.approx(g, rel=1e-12)
    assert row["se"] == pytest.approx(np.sqrt(1 / 20 + g ** 2 / 40), rel=1e-12)
    assert "standardised difference (Hedges' g)" in res.what


def test_means_without_a_baseline_and_the_measure_written_otherwise(results):
    res = ptb.across_collections(results, "ndcg_cut_10")
    assert res.measure == "nDCG@10" and res.baseline is None
    per = res.per_collection()
    assert len(per) == 9 and set(per["system"]) == {"S1", "S2", "S3"}
    means = results["C2"].estimates("nDCG@10")
    np.testing.assert_array_equal(per[per["collection"] == "C2"]["ci_low"], means["ci_low"])
    assert "p-value" not in res.average() and "p-value" not in res.pooled()


def test_runs_and_qrels_are_evaluated_with_one_stream_per_collection(collections, results):
    res = ptb.across_collections(collections, "AP", baseline="S1", n_resamples=N_RESAMPLES, rng=7)
    again = ptb.across_collections(list(collections.items()), "AP", baseline="S1", n_resamples=N_RESAMPLES, rng=7)
    pd.testing.assert_frame_equal(res.pooled(), again.pooled())
    assert res.results == (None, None, None)  # collections given as runs: only their figures are kept
    np.testing.assert_allclose(res.per_collection()["estimate"], ptb.across_collections(
        results, "AP", baseline="S1").per_collection()["estimate"], rtol=1e-12)


def test_an_executor_gives_identical_numbers(collections):
    alone = ptb.across_collections(collections, "AP", n_resamples=N_RESAMPLES)
    with ThreadPoolExecutor(2) as pool:
        pooled = ptb.across_collections(collections, "AP", n_resamples=N_RESAMPLES, executor=pool)
    for method in ("per_collection", "average", "pooled"):
        pd.testing.assert_frame_equal(getattr(alone, method)(), getattr(pooled, method)())


def test_ir_datasets_ids_name_collections(irds_home):
    qrels = ptb.read_qrels("irds:vaswani").frame
    rng = np.random.default_rng(0)
    qids = qrels["qid"].unique()
    other = pd.DataFrame({"qid": np.repeat(qids, 20), "docno": [f"X{i}" for i in range(20 * len(qids))]})
    docs = pd.concat([qrels[["qid", "docno"]].assign(relevant=1.0), other.assign(relevant=0.0)])
    runs = {name: docs.assign(score=rng.random(len(docs)) + bonus * docs["relevant"])[["qid", "docno", "score"]]
            for name, bonus in (("A", 0.0), ("B", 0.3))}
    noisy = {name: run.assign(score=run["score"] + rng.normal(0, 0.3, len(run))) for name, run in runs.items()}
    res = ptb.across_collections({"irds:vaswani": runs, "noisy": (noisy, "irds:vaswani")}, "AP", n_resamples=200)
    assert res.collections == ("vaswani", "noisy")
    assert res.per_collection()["n_topics"].iloc[0] == qrels["qid"].nunique()


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda r: {"C0": r["C0"]}, ValueError, r"one collection \('C0'\): nothing to pool"),
    (lambda r: {}, ValueError, "no collection: nothing to pool"),
    (lambda r: [("C0", r["C0"]), ("C0", r["C1"])], ValueError, r"the collection names \['C0'\] are given more"),
    (lambda r: {"C0": r["C0"], "C1": r["C1"].__class__(**{**r["C1"].__dict__, "names": ("S1", "S2", "X")})},
     ValueError, r"system 'S3' is missing from 'C1'; system 'X' is only in 'C1'"),
    (lambda r: {"C0": r["C0"], "C1": "not a result"}, TypeError, "collection 'C1' must be an ExperimentResult"),
    (lambda r: "C0", TypeError, "'results' must map each collection's name"),
    (lambda r: [(r["C0"], r["C0"]), (r["C1"], r["C1"])], TypeError,
     r"'results' is a list whose pairs must be \(collection name, .* starts with a value of type ExperimentResult, not a name"),
])
def test_bad_collections_are_refused_by_name(results, make, error, match):
    with pytest.raises(error, match=match):
        ptb.across_collections(make(results), "AP")


def test_a_collection_given_twice_under_two_names_is_named(collections, results):
    """Only a repeated name was caught: the same result (or the same runs) under another name was
    pooled twice, weighing double in the average and the pool."""
    import copy

    twice = r"'results': collections 'C0' and 'again' are one collection given twice"
    with pytest.raises(ValueError, match=twice + r" \(the same ExperimentResult\)"):
        ptb.across_collections({"C0": results["C0"], "C1": results["C1"], "again": results["C0"]}, "AP")
    with pytest.raises(ValueError, match=twice + r" \(the same per-topic AP of every system on the same topics\)"):
        ptb.across_collections({"C0": results["C0"], "C1": results["C1"], "again": copy.copy(results["C0"])}, "AP")
    with pytest.raises(ValueError, match=twice + r" \(the same per-topic AP"):
        ptb.across_collections({"C0": collections["C0"], "C1": collections["C1"], "again": collections["C0"]}, "AP",
                               n_resamples=100)


def test_a_measure_missing_from_a_collection_is_named(collections, results):
    runs, qrels = collections["C1"]
    other = ptb.experiment_result(runs, None, qrels, ["P@10"], n_resamples=N_RESAMPLES)
    with pytest.raises(ValueError, match=r"collection 'C1' has no 'AP' \(its measures: \['P@10'\]\)"):
        ptb.across_collections({"C0": results["C0"], "C1": other}, "AP")


def test_collections_must_share_their_kind_of_variance_and_level(collections, results):
    runs, qrels = collections["C1"]
    corpus = ptb.experiment_result(runs, None, qrels, ["AP"], bootstrap="corpus", n_resamples=100)
    with pytest.raises(ValueError, match="include different variances"):
        ptb.across_collections({"C0": results["C0"], "C1": corpus}, "AP")
    level = ptb.experiment_result(runs, None, qrels, ["AP"], n_resamples=N_RESAMPLES, confidence_level=0.9)
    with pytest.raises(ValueError, match="different confidence levels"):
        ptb.across_collections({"C0": results["C0"], "C1": level}, "AP")
    with pytest.raises(ValueError, match="'confidence_level' 0.9 differs"):
        ptb.across_collections(results, "AP", confidence_level=0.9)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"standardize": True}, ValueError, "'standardize' applies to differences: give a 'baseline'"),
    ({"baseline": "S9"}, ValueError, r"'baseline': 'S9' is not one of the systems"),
    ({"baseline": "S1", "systems": ["S1"]}, ValueError, r"'baseline': 'S1' is the only system: there is no difference"),
    ({"tau2_method": "ML"}, ValueError, "'tau2_method' must be one of"),
    ({"hksj": 1}, TypeError, "'hksj' must be True or False"),
    ({"systems": ["S1", "S9"]}, ValueError, "'systems': system 'S9' is missing from 'C0', 'C1', 'C2'"),
])
def test_bad_options_name_themselves(results, kwargs, error, match):
    with pytest.raises(error, match=match):
        ptb.across_collections(results, "AP", **kwargs)


def test_systems_chooses_those_compared(results):
    res = ptb.across_collections(results, "AP", systems=["S3", "S1"], baseline="S1")
    assert res.systems == ("S3", "S1") and list(res.pooled()["system"]) == ["S3"]


def test_save_and_load_give_the_same_figures(analysis, tmp_path):
    path = analysis.save(tmp_path / "deep" / "across.zip")
    back = ptb.AcrossCollections.load(path)
    assert back.results is None and back.collections == analysis.collections and back.labels == analysis.labels
    for method in ("per_collection", "average", "pooled"):
        pd.testing.assert_frame_equal(getattr(back, method)(), getattr(analysis, method)())
    assert back.leaderboard().to_markdown() == analysis.leaderboard().to_markdown()
    assert set(read_across(path)) == {"effects", "measure", "labels", "baseline", "standardize", "tau2_method",
                                      "hksj", "prediction", "confidence_level"}


def test_a_file_that_is_not_a_saved_analysis_is_refused(results, tmp_path):
    path = results["C0"].save(tmp_path / "result.zip")
    with pytest.raises(ValueError, match="is not a saved analysis across collections"):
        ptb.AcrossCollections.load(path)


@pytest.mark.parametrize("which", ["average", "pooled"])
def test_leaderboard_letters_and_rank_intervals_follow_the_verdicts(analysis, which):
    board = analysis.leaderboard(which=which)
    table, pairs = board.to_frame(), board.pairwise
    assert list(table["system"]) == list(table.sort_values("estimate", ascending=False)["system"])
    groups = dict(zip(table["system"], table["group"], strict=True))
    for a, b, reject in zip(pairs["system_a"], pairs["system_b"], pairs["reject"], strict=True):
        assert bool(set(groups[a]) & set(groups[b])) == (not reject)
    for _, row in table.iterrows():
        better = sum((pairs["decision"] == "better") & (pairs["system_a"] != row["system"])
                     & (pairs["system_b"] == row["system"])) + sum(
            (pairs["decision"] == "worse") & (pairs["system_a"] == row["system"]))
        assert row["rank ci_low"] == 1 + better
        assert row["rank ci_low"] <= row["rank"] <= row["rank ci_high"]
    assert ("pi_low" in table) == (which == "pooled")
    assert f"ranked by their {'mean AP over these 3' if which == 'average' else 'random-effects mean AP'}" in board.caption


def test_leaderboard_pooled_tests_are_random_effects_of_pair_differences(analysis, results):
    pairs = analysis.leaderboard(which="pooled", correction=None).pairwise.set_index(["system_a", "system_b"])
    d = [r.estimates("AP", baseline="S3").set_index("name").loc["S2"] for r in results.values()]
    fit = ptb.random_effects([x["estimate"] for x in d], [x["se"] ** 2 for x in d])
    assert pairs.loc[("S2", "S3"), "p-value"] == pytest.approx(fit.pvalue, rel=1e-10)
    assert pairs.loc[("S2", "S3"), "difference"] == pytest.approx(fit.estimate, rel=1e-10)


def test_displays_say_which_question_each_figure_answers(analysis):
    table = analysis.display()
    assert list(table.frame.columns) == ["system", "C0", "C1", "C2", "average", "pooled", "prediction", "I²"]
    for phrase in ("Average (these collections)", "Pooled (a population of collections)",
                   "Prediction (a new collection)", "REML τ², Hartung-Knapp-Sidik-Jonkman"):
        assert phrase in table.caption
    latex = analysis.to_latex(label="tab:across")
    assert latex.startswith(r"\begin{table}") and r"\label{tab:across}" in latex and r"I\textsuperscript{2}" in latex
    assert latex.isascii(), [c for c in latex if not c.isascii()]  # pdflatex without a Unicode set-up: τ², ± were raw
    assert analysis.to_markdown().splitlines()[0].startswith("| system | C0 |")
    assert "<table" in analysis._repr_html_()
    assert "Hartung" in analysis.leaderboard(which="pooled").to_latex()
    assert repr(analysis).startswith("AcrossCollections(3 systems x 3 collections, AP difference from S1")


def test_captions_keep_the_measure_s_name(results):
    """A caption starting with the measure keeps its spelling (it read "NDCG@10 difference")."""
    from pyterrier_boot.across.display import _sentence_start

    assert _sentence_start("nDCG@10 difference from BM25") == "nDCG@10 difference from BM25"
    assert _sentence_start("mean nDCG@10") == "Mean nDCG@10"
    assert ptb.across_collections(results, "AP").display().caption.startswith("Mean AP on 3 collections.")


def test_forest_plot_has_a_row_per_collection_and_the_pooled_rows(analysis):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = analysis.plot_forest("S3")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["C0", "C1", "C2", "average (these collections)", "pooled (random effects)"]
    axes = analysis.plot_forest()
    assert np.asarray(axes).size >= 2
    with pytest.raises(TypeError, match="takes system="):
        ptb.plot_forest(analysis)
    plt.close("all")


@pytest.fixture(scope="module")
def upper_right():
    """Two systems on four collections whose first row's interval lies where loc="best" put the key."""
    collections = {}
    for c in range(4):
        sim = ptb.simulate_collection(n_topics=30, n_systems=2, rng=20 + c)
        collections[f"coll{c}"] = (sim.runs, sim.qrels)
    return ptb.across_collections(collections, "nDCG@10", baseline="S1", n_resamples=200)


@pytest.mark.parametrize(("case", "system"), [("upper_right", "S2"), ("analysis", "S3"), ("analysis", None)])
def test_forest_plot_legend_covers_no_row(request, case, system):
    """The prediction interval's key sits under the x-axis label (loc="best" put it on the first
    collection's row): drawn, its box overlaps no row, tick label or axis label, inside the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    across = request.getfixturevalue(case)
    for ax in np.ravel(across.plot_forest(system) if system else across.plot_forest()):
        figure = ax.figure
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        legend = ax.get_legend().get_window_extent(renderer)
        first = across.forest_table(ax.get_title().split(":")[0]).iloc[0]
        row = ax.get_yticks()[0]
        interval = matplotlib.transforms.Bbox(ax.transData.transform([(first["ci_low"], row - 0.3),
                                                                      (first["ci_high"], row + 0.3)]))
        assert not legend.overlaps(interval)
        assert not legend.overlaps(ax.get_window_extent(renderer))  # the rows' area
        assert not legend.overlaps(ax.xaxis.label.get_window_extent(renderer))
        assert not any(legend.overlaps(t.get_window_extent(renderer)) for t in ax.get_xticklabels() if t.get_text())
        assert figure.bbox.contains(legend.x0, legend.y0)  # the layout made room for it
    plt.close("all")


@pytest.mark.parametrize("module", ["pyterrier_boot.across.analysis", "pyterrier_boot.across.average",
                                    "pyterrier_boot.meta.random_effects"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def test_a_system_equal_to_the_baseline_warns_once_and_pools_to_nan(collections):
    copied = {name: ({**runs, "copy": runs["S1"].copy()}, qrels) for name, (runs, qrels) in collections.items()}
    with pytest.warns(ptb.DegenerateWarning, match=r"3 collection\(s\) give a system a standard error of 0") as seen:
        res = ptb.across_collections(copied, "AP", baseline="S1", n_resamples=N_RESAMPLES)
    assert len(seen) == 1 and list(seen[0].message.cases) == ["C0: copy", "C1: copy", "C2: copy"]
    pooled = res.pooled().set_index("system")
    assert np.isnan(pooled.loc["copy", "estimate"]) and np.isfinite(pooled.loc["S3", "estimate"])


def test_a_collection_with_one_topic_is_refused(collections):
    runs, qrels = collections["C0"]
    one = qrels[qrels["qid"] == qrels["qid"].iloc[0]]
    with pytest.raises(ValueError, match="collection 'C0' judges 1 topic"), \
            pytest.warns(ptb.InputWarning, match="only 1 topic is judged"):
        ptb.across_collections({"C0": (runs, one), "C1": collections["C1"]}, "AP", n_resamples=N_RESAMPLES)


def test_estimates_keep_the_intervals_of_a_unit_measure_in_range():
    from pyterrier_boot.experiment.result import ExperimentResult

    values = np.array([[1.0, 1.0, 1.0, 0.2], [0.0, 0.0, 0.0, 0.0]])[:, :, None]
    res = ExperimentResult(names=("A", "B"), qids=("1", "2", "3", "4"), measures=("AP",), summed=(False,),
                           values=values, bootstrap=None, interval=None, confidence_level=0.95, intervals=None,
                           distribution_=None, corpus=None, comparisons=None, mrt=None, unit=(True,))
    difference = res.estimates("AP", baseline="B").iloc[0]
    assert difference["estimate"] == pytest.approx(0.8) and difference["ci_high"] == 1.0  # 0.8 + 3.18 x 0.2 > 1
    mean = res.estimates("AP").iloc[0]
    assert mean["ci_high"] == 1.0 and mean["ci_low"] < 0.8
