"""Experiment: pt.Experiment's table with intervals; pt.Experiment itself is the reference."""
import os
import pickle

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from scipy import stats

import pyterrier_boot as ptb
from pyterrier_boot import Experiment, ExperimentResult

MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]


@pytest.fixture(scope="module")
def sim():
    return ptb.simulate_collection(n_topics=25, n_systems=4, rng=11)


def _pt(sim, measures=MEASURES, **kwargs):
    return pt.Experiment(list(sim.runs.values()), sim.topics, sim.qrels, measures, names=list(sim.runs), **kwargs)


def _ours(sim, measures=MEASURES, **kwargs):
    kwargs.setdefault("n_resamples", 500)
    return Experiment(list(sim.runs.values()), sim.topics, sim.qrels, measures, names=list(sim.runs), rng=1, **kwargs)


def _rich(sim, measures=MEASURES, **kwargs):
    """The door to everything measured: ``experiment_result`` (what ``dataframe=False`` gave before)."""
    kwargs.setdefault("n_resamples", 500)
    return ptb.experiment_result(list(sim.runs.values()), sim.topics, sim.qrels, measures, names=list(sim.runs),
                                 rng=1, **kwargs)


def _assert_pt_columns_equal(ours, reference):
    for column in reference.columns:
        if column == "name":
            assert ours["name"].tolist() == reference["name"].tolist()
        else:
            np.testing.assert_allclose(ours[column].to_numpy(float), reference[column].to_numpy(float),
                                       rtol=0, atol=1e-12, err_msg=column)


def test_means_equal_pt_experiment_and_intervals_contain_them(sim):
    ours = _ours(sim)
    _assert_pt_columns_equal(ours, _pt(sim))
    for m in MEASURES:
        assert (ours[f"{m} ci_low"] <= ours[m]).all() and (ours[m] <= ours[f"{m} ci_high"]).all()
        assert (ours[f"{m} ci_high"] - ours[f"{m} ci_low"] > 0).all()


@pytest.mark.parametrize("test", ["t", "wilcoxon", stats.ttest_rel])
@pytest.mark.parametrize("correction", [None, "bonferroni", "holm", "hs", "fdr_bh"])
def test_baseline_columns_equal_pt_experiment(sim, test, correction):
    ours = _ours(sim, baseline=1, test=test, correction=correction)
    _assert_pt_columns_equal(ours, _pt(sim, baseline=1, test=test, correction=correction))


def test_new_baseline_columns(sim):
    ours = _ours(sim, baseline=0, measures=["map"])
    x = {n: ptb.evaluate(r, sim.qrels, ["map"])["value"].to_numpy() for n, r in sim.runs.items()}
    names = list(sim.runs)
    for i in range(1, 4):
        d = x[names[i]] - x[names[0]]
        assert ours.loc[i, "map diff"] == pytest.approx(d.mean())
        assert ours.loc[i, "map effect size"] == pytest.approx(d.mean() / d.std(ddof=1))
        assert ours.loc[i, "map diff ci_low"] < d.mean() < ours.loc[i, "map diff ci_high"]
    assert np.isnan(ours.loc[0, ["map diff", "map p-value", "map +"]].to_numpy(float)).all()


def test_perquery_equals_pt_experiment(sim):
    ours = _ours(sim, perquery=True)
    reference = _pt(sim, perquery=True)
    # rows ordered by name then qid as pt.Experiment; within a topic pt follows ir_measures' order
    assert ours[["name", "qid"]].values.tolist() == reference[["name", "qid"]].values.tolist()
    merged = ours.merge(reference, on=["name", "qid", "measure"], suffixes=("", "_pt"))
    assert len(merged) == len(reference) == len(ours)
    np.testing.assert_allclose(merged["value"], merged["value_pt"], atol=1e-12)


def test_same_rng_same_table_and_other_rng_other_intervals(sim):
    a, b = _ours(sim, baseline=0), _ours(sim, baseline=0)
    pd.testing.assert_frame_equal(a, b)
    c = Experiment(list(sim.runs.values()), sim.topics, sim.qrels, MEASURES, names=list(sim.runs), rng=2,
                   baseline=0, n_resamples=500)
    assert not np.allclose(a["map ci_low"], c["map ci_low"])
    _assert_pt_columns_equal(c, _pt(sim, baseline=0))


@pytest.mark.parametrize(("bootstrap", "interval"), [
    ("topic", "bca"), ("topic", "percentile"), ("topic", "t"), ("topic", "studentized"),
    ("corpus", "percentile"), ("corpus", "bca"), ("corpus", "logit"), ("both", "percentile"), ("both", "normal"),
])
def test_every_bootstrap_gives_intervals_around_the_means(sim, bootstrap, interval):
    ours = _ours(sim, measures=["map", "P_10"], bootstrap=bootstrap, interval=interval, n_resamples=200, baseline=0)
    # the topic bootstrap of a mean is unbiased; corpus images are not (they move rank-sensitive
    # measures down), so only intervals centred on the estimate must contain it there
    centred = bootstrap == "topic" or interval in ("normal", "logit")
    for m in ("map", "P_10"):
        assert (ours[f"{m} ci_low"] < ours[f"{m} ci_high"]).all()
        if centred:
            assert (ours[f"{m} ci_low"] <= ours[m]).all() and (ours[m] <= ours[f"{m} ci_high"]).all()
        rows = ours.index[1:]
        assert (ours.loc[rows, f"{m} diff ci_low"] <= ours.loc[rows, f"{m} diff ci_high"]).all()


def test_corpus_intervals_are_the_corpus_bootstraps(sim):
    res = _rich(sim, measures=["map"], bootstrap="corpus", n_resamples=100)
    assert isinstance(res, ExperimentResult)
    per_system = res.corpus.per_system(method="normal")
    np.testing.assert_allclose(res.table()["map ci_low"], per_system["map ci_low"])
    per_query = res.per_query()
    assert {"ci_low", "ci_high"} <= set(per_query.columns)
    assert (per_query["ci_low"] <= per_query["value"] + 1e-12).all()


def test_both_resamples_topics_and_images(sim):
    both = _rich(sim, measures=["map"], bootstrap="both", n_resamples=300)
    topic = _rich(sim, measures=["map"], bootstrap="topic", interval="percentile", n_resamples=300)
    corpus = _rich(sim, measures=["map"], bootstrap="corpus", n_resamples=300)
    width = {name: np.diff(r.intervals[:, 0], axis=-1).mean() for name, r in
             (("both", both), ("topic", topic), ("corpus", corpus))}
    # two sources of variation give wider intervals than either alone
    assert width["both"] > width["topic"] > width["corpus"]
    # a replicate is the mean over resampled topics of one image's values
    plan = ptb.resample_plan(25, n_resamples=300, rng=np.random.default_rng(1).spawn(2)[0])
    b = 7
    image = both.corpus.bootstrap_distribution[b, :, :, 0]
    assert both.distribution_[b, :, 0] == pytest.approx(image[:, plan.indices[b]].mean(axis=1))


def test_result_object_methods(sim):
    res = _rich(sim, baseline=0, measures=["map", "P_10"])
    assert res.table().shape[0] == 4
    ranks = res.ranks()
    assert set(ranks["name"]) == set(sim.runs) and (ranks["ci_low"] <= ranks["rank"]).all()
    pairs = res.pairwise()
    assert len(pairs) == 2 * 6 and {"p-value corrected", "reject"} <= set(pairs.columns)
    dist = res.distribution()
    assert list(dist.columns) == ["replicate", "name", "measure", "value"] and len(dist) == 500 * 4 * 2
    latex = res.to_latex()
    assert r"\toprule" in latex and "[" in latex and r"\%" in latex
    assert "<table" in res._repr_html_()


def test_round_and_highlight(sim):
    ours = _ours(sim, baseline=0, round=3, measures=["map"])
    assert (ours["map"] == ours["map"].round(3)).all() and (ours["map ci_low"] == ours["map ci_low"].round(3)).all()
    assert (ours["map diff"].dropna() == ours["map diff"].dropna().round(3)).all()
    styled = _ours(sim, highlight="bold", measures=["map"])
    html = styled.to_html()
    assert "font-weight: bold" in html
    by_measure = _ours(sim, round={"map": 2}, measures=["map", "P_10"])
    assert (by_measure["map"] == by_measure["map"].round(2)).all()


def test_several_baselines_and_names_from_a_dict(sim):
    ours = Experiment(sim.runs, sim.topics, sim.qrels, ["map"], baseline=["S1", "S2"], rng=0, n_resamples=200)
    assert "map p-value vs S1" in ours and "map p-value vs S2" in ours
    single = _pt(sim, measures=["map"], baseline=1)
    np.testing.assert_allclose(ours["map p-value vs S2"], single["map p-value"], atol=1e-12)


def test_paired_bootstrap_and_randomization_tests(sim):
    for test in ("paired-bootstrap", "randomization", "sign"):
        ours = _ours(sim, baseline=0, test=test, measures=["map"])
        assert ((ours["map p-value"].dropna() > 0) & (ours["map p-value"].dropna() <= 1)).all()


def test_each_system_runs_once_and_mrt(sim):
    calls = []

    def system(name):
        run = sim.runs[name]

        def fn(topics):
            calls.append(name)
            return run[run["qid"].isin(topics["qid"])].assign(rank=0)
        return pt.apply.generic(fn)

    systems = [system(n) for n in sim.runs]
    table = Experiment(systems, sim.topics, sim.qrels, ["map", "mrt"], names=list(sim.runs), baseline=0,
                       bootstrap="both", n_resamples=50, rng=1, validate="ignore")
    assert sorted(calls) == sorted(sim.runs)
    assert "mrt" in table and (table["mrt"] >= 0).all()


@pytest.mark.filterwarnings(r"ignore:1 topic\(s\) not found in qrels:UserWarning")  # pt.Experiment's reference call
def test_batch_size_and_filters(sim):
    transformer = pt.Transformer.from_df(sim.runs["S2"].assign(query="q"))
    topics = pd.concat([sim.topics, pd.DataFrame({"qid": ["999"], "query": ["extra"]})])
    with pytest.warns(UserWarning, match="1 topic"):  # pt.Experiment's own warning
        per_query = Experiment([transformer], topics, sim.qrels, ["map"], names=["x"], batch_size=7,
                               perquery=True, rng=1, validate="ignore")
    with pytest.warns(UserWarning, match="1 topic"):  # the reference's own warning
        reference = pt.Experiment([transformer], topics, sim.qrels, ["map"], names=["x"], perquery=True)
    merged = per_query.merge(reference, on=["name", "qid", "measure"], suffixes=("", "_pt"))
    assert len(merged) == len(reference)
    np.testing.assert_allclose(merged["value"], merged["value_pt"], atol=1e-12)
    filtered = Experiment([transformer], topics, sim.qrels, ["map"], names=["x"], filter_by_qrels=True, rng=1,
                          validate="ignore")
    assert filtered["map"].item() == pytest.approx(reference["value"].mean())


@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame:DeprecationWarning")  # pt.model.add_ranks, pandas 3.1
def test_save_dir_writes_reuses_and_refuses(tmp_path, sim):
    transformer = pt.Transformer.from_df(pt.model.add_ranks(sim.runs["S3"].assign(query="q")))
    first = Experiment([transformer], sim.topics, sim.qrels, ["map"], names=["x"], save_dir=str(tmp_path), rng=1,
                       validate="ignore")
    assert os.path.exists(tmp_path / "x.res.gz") and os.path.exists(tmp_path / "aggregated.csv")
    boom = pt.apply.generic(lambda t: (_ for _ in ()).throw(RuntimeError("ran again")))
    reused = Experiment([boom], sim.topics, sim.qrels, ["map"], names=["x"], save_dir=str(tmp_path),
                        save_mode="reuse", rng=1, validate="ignore")
    assert reused["map"].item() == pytest.approx(first["map"].item())
    with pytest.raises(ValueError, match="already exists"):
        Experiment([transformer], sim.topics, sim.qrels, ["map"], names=["x"], save_dir=str(tmp_path),
                   save_mode="error", validate="ignore")
    Experiment([transformer], sim.topics, sim.qrels, ["map"], names=["x"], save_dir=str(tmp_path),
               save_format=pickle, rng=1, validate="ignore")
    assert os.path.exists(tmp_path / "x.mod")


def test_summed_measures_pass_through_without_interval(sim):
    # as pt.Experiment: the sum over topics, and no interval (a bootstrap of a mean would be meaningless)
    ours = _ours(sim, measures=["map", "num_ret"])
    _assert_pt_columns_equal(ours, _pt(sim, measures=["map", "num_ret"]))
    assert "map ci_low" in ours and "num_ret ci_low" not in ours
    ours = _ours(sim, measures=["map", "num_ret"], bootstrap=None)
    _assert_pt_columns_equal(ours, _pt(sim, measures=["map", "num_ret"]))
    # the rich result keeps summed measures only without a bootstrap
    assert _rich(sim, measures=["map", "NumRet"], bootstrap=None).measures == ("map", "NumRet")
    with pytest.raises(ValueError, match="'NumRet' is summed over topics.*bootstrap=None"):
        _rich(sim, measures=["map", "NumRet"])


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"bootstrap": "images"}, ValueError, r"Unknown bootstrap 'images'"),
    ({"interval": "logit"}, ValueError, r"Unknown interval 'logit' for bootstrap='topic'"),
    ({"bootstrap": "both", "interval": "bca"}, ValueError, r"Unknown interval 'bca' for bootstrap='both'"),
    ({"test": "z"}, ValueError, r"Unknown test function name 'z'"),
    ({"baseline": 9}, ValueError, r"baseline 9 is not among the systems"),
    ({"baseline": "BM25"}, TypeError, r"baseline should be an int when retr_systems is a list"),
    ({"correction": "holm"}, ValueError, r"Requested multiple testing correction, but no baseline"),
    ({"baseline": 0, "correction": "nope"}, ValueError, r"correction='nope'"),
    ({"baseline": 0, "perquery": True}, ValueError, r"a baseline cannot be combined with perquery=True"),
    ({"round": -1}, ValueError, r"'round' must hold integers >= 0"),
    ({"n_resamples": 1}, ValueError, r"'n_resamples' must be an integer >= 2"),
    ({"highlight": "italic"}, ValueError, r"Unknown highlight 'italic'"),
    ({"bootstrap": "corpus", "model": "multinomial"}, ValueError, r"multinomial"),
    ({"unknown": 1}, TypeError, r"Unknown kwargs: \['unknown'\]"),
])
def test_bad_arguments(sim, kwargs, error, message):
    with pytest.raises(error, match=message):
        _ours(sim, measures=["map"], **kwargs)


def test_per_query_scores_cannot_be_corpus_bootstrapped(sim):
    per_query = ptb.evaluate(sim.runs["S1"], sim.qrels, ["AP"])
    with pytest.raises(ValueError, match="per-query scores"):
        Experiment([per_query], sim.topics, sim.qrels, ["map"], bootstrap="corpus")


def test_bad_systems():
    with pytest.raises(TypeError, match="Expected list or dict of transformers"):
        Experiment("bm25", None, pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]}), ["map"])
    with pytest.raises(TypeError, match="is a int: expected a Transformer or a DataFrame"):
        Experiment([3], None, pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]}), ["map"])


def test_pt_boot_entry_point():
    assert pt.boot.Experiment is Experiment


@pytest.mark.parametrize("bootstrap", ["topic", "corpus", "both"])
def test_pairwise_intervals_are_the_tables(sim, bootstrap):
    res = _rich(sim, measures=["map", "P_10"], bootstrap=bootstrap, baseline=0, n_resamples=200)
    pairs = res.pairwise(n_resamples=500, rng=3).set_index(["measure", "system_a", "system_b"])
    table = res.table().set_index("name")
    for m in ("map", "P_10"):
        for name in list(sim.runs)[1:]:
            # the table compares (system - baseline), pairwise (first - later): S1 is first
            row = pairs.loc[(m, "S1", name)]
            assert row["ci_low"] == pytest.approx(-table.loc[name, f"{m} diff ci_high"], abs=1e-12)
            assert row["ci_high"] == pytest.approx(-table.loc[name, f"{m} diff ci_low"], abs=1e-12)
    if bootstrap == "corpus":
        # the vectorised corpus intervals and p-values equal CorpusBootstrapResult.difference's
        diff = res.corpus.difference("S2", "S4", method="normal")
        row = pairs.loc[("map", "S2", "S4")]
        assert row["ci_low"] == pytest.approx(diff.confidence_interval.low[0], abs=1e-12)
        assert row["corpus p-value"] == pytest.approx(res.corpus.difference("S2", "S4").pvalue[0], abs=1e-12)


@pytest.mark.filterwarnings("ignore:the studentized interval:pyterrier_boot.BootWarning",
                            "ignore:a system's scores are the same:pyterrier_boot.BootWarning",
                            "ignore:the paired-bootstrap:pyterrier_boot.BootWarning")
@pytest.mark.parametrize("bootstrap", ["topic", "corpus", "both"])
@pytest.mark.parametrize("n_topics", [2, 6])
def test_intervals_stay_in_the_measures_range_and_none_is_blank(bootstrap, n_topics, tmp_path):
    """Issue 33: normal and studentised intervals left [0, 1] (DoRA_Small AP [-0.004, 0.021] with
    bootstrap="both") and with 2 topics a studentised end was NaN, printed blank. Means' intervals
    now lie in [0, 1], differences' in [-1, 1], in every door, and the printed table has no blank end."""
    from conftest import small_collection, write_trec

    from pyterrier_boot.cli import main

    runs, qrels = small_collection(n_topics=n_topics, systems="abc")
    measures = ["AP", "P@5", "RR"]
    with np.errstate(all="ignore"):
        res = ptb.experiment_result(runs, None, qrels, measures, baseline=0, bootstrap=bootstrap, n_resamples=200)
        pairs = res.pairwise(n_resamples=200)
    assert res.unit == (True, True, True)
    assert np.isfinite(res.intervals).all() and (res.intervals >= 0).all() and (res.intervals <= 1).all()
    diff = res.table().filter(like="diff ci_").to_numpy(float)
    assert ((diff[1:] >= -1) & (diff[1:] <= 1)).all() and not np.isnan(diff[1:]).any()
    assert ((pairs["ci_low"] >= -1) & (pairs["ci_high"] <= 1)).all()
    folder = write_trec(runs, qrels, tmp_path)
    assert main(["evaluate", "-q", str(folder / "qrels.txt"), str(folder / "runs"), "-m", *measures, "--bootstrap",
                 bootstrap, "--n", "200", "--quiet", "--out", str(tmp_path / "out")]) == 0
    assert "[, ]" not in (tmp_path / "out" / "table.md").read_text()
    assert "nan" not in (tmp_path / "out" / "table.csv").read_text().lower()


def test_measures_without_a_range_keep_their_intervals():
    """A measure not known to lie in [0, 1] (a custom measure counting results) is not clipped."""
    import ir_measures

    sim = ptb.simulate_collection(n_topics=8, n_systems=3, rng=2)
    found = ir_measures.define_byquery(  # relevant documents retrieved: counts of 1 and more
        lambda qrels, run: float(len(run.merge(qrels[qrels["relevance"] > 0], on=["query_id", "doc_id"]))),
        name="found")
    res = ptb.experiment_result(sim.runs, sim.topics, sim.qrels, ["AP", found], n_resamples=200)
    assert res.unit == (True, False)
    assert (res.means[:, 1] > 1).all() and (res.intervals[:, 1, 1] > 1).all()
