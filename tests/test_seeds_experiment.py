"""Several runs per system through every door: Experiment, experiment_result, leaderboard, evaluate,
simulate_collection and the command line; seeds="random" and "fixed"; bad inputs."""
from concurrent.futures import ThreadPoolExecutor

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pyterrier_boot as ptb
from pyterrier_boot.seeds.intervals import difference_inference
from pyterrier_boot.seeds.scores import RunScores


@pytest.fixture(scope="module")
def sim():
    return ptb.simulate_collection(n_topics=15, n_systems=3, n_runs=[3, 1, 2], seed_sd=0.2, seed_interaction_sd=0.2,
                                   corpus_size=3000, matching=500, depth=40, pool_depth=15, rng=7)


@pytest.fixture(scope="module")
def random_result(sim):
    return ptb.experiment_result(sim.runs, None, sim.qrels, ["AP", "P@5"], baseline="S2", n_resamples=1000)


def test_simulated_runs_are_lists_for_systems_with_several(sim):
    assert [type(sim.runs[s]).__name__ for s in ("S1", "S2", "S3")] == ["list", "DataFrame", "list"]
    assert len(sim.runs["S1"]) == 3 and not sim.runs["S1"][0].equals(sim.runs["S1"][1])


def test_per_topic_score_is_the_mean_over_runs(sim, random_result):
    per_run = ptb.evaluate({f"r{i}": r for i, r in enumerate(sim.runs["S1"])}, sim.qrels, ["AP"])
    means = per_run.groupby("qid", sort=False)["value"].mean()
    ours = random_result.per_query()
    ours = ours[(ours["name"] == "S1") & (ours["measure"] == "AP")].set_index("qid")["value"]
    assert np.allclose(ours.loc[means.index].to_numpy(), means.to_numpy(), rtol=1e-12)
    grouped = ptb.evaluate({"S1": sim.runs["S1"], "S2": sim.runs["S2"]}, sim.qrels, ["AP"])
    assert list(grouped["name"].unique()) == ["S1", "S2"]
    assert np.allclose(grouped[grouped["name"] == "S1"]["value"].to_numpy(), means.to_numpy(), rtol=1e-12)


def test_random_is_the_default_and_names_itself(random_result):
    res = random_result
    assert res.seeds == "random" and list(res.run_scores.n_runs) == [3, 1, 2]
    table = res.table()
    for column in ("AP ci_low (seeds random)", "AP diff ci_high (seeds random)", "AP p-value (seeds random)"):
        assert column in table.columns
    assert "seeds random" in res.display().caption and "seed variance" in res.display().caption
    assert "S3: 2 runs, a seed variance on 1 degree of freedom" in res.display().caption  # k = 2 flagged
    assert "seeds" in res.to_dict() and res.to_dict()["runs"]["S1"] == ["S1[1]", "S1[2]", "S1[3]"]


def test_random_comparisons_are_the_seed_variance_t_test(random_result):
    res = random_result
    comp = res.comparisons.frame
    scores = res.run_scores
    a, b = res.comparisons.system_index, res.comparisons.baseline_index
    ref = difference_inference(scores, a, b, alpha=0.05)
    assert np.allclose(comp["p-value"].to_numpy(), ref.pvalue.T.reshape(-1), rtol=1e-12)
    low, high = comp["ci_low"].to_numpy(), comp["ci_high"].to_numpy()
    excludes = (low > 0) | (high < 0)
    assert np.array_equal(excludes, comp["p-value"].to_numpy() < 0.05)  # one story per row
    assert "df" in comp


def test_pairwise_and_letters_under_random(random_result):
    pairs = random_result.pairwise(correction="bonferroni")
    assert pairs.attrs["test"].startswith("t test with seed variance")
    excludes = (pairs["ci_low"] > 0) | (pairs["ci_high"] < 0)
    assert np.array_equal(excludes.to_numpy(), pairs["reject"].to_numpy())
    with pytest.raises(ValueError, match="test='wilcoxon' cannot include the seed variance"):
        random_result.pairwise(test="wilcoxon")


def test_fixed_is_todays_experiment_on_averaged_scores(sim):
    res = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], baseline="S2", n_resamples=1000, seeds="fixed")
    assert res.seeds == "fixed" and "AP ci_low (seeds fixed)" in res.table().columns
    ref = ptb.bootstrap_ci(res.values[:, :, 0], method="studentized", plan=res.plan).confidence_interval
    assert np.array_equal(res.intervals[:, 0, 0], np.asarray(ref.low))
    comp = res.comparisons.frame.set_index("name")
    t = stats.ttest_rel(res.values[0, :, 0], res.values[1, :, 0])
    assert comp.loc["S1", "p-value"] == pytest.approx(t.pvalue, rel=1e-12)
    assert "seeds fixed" in res.display().caption


def test_identical_runs_have_no_seed_variance_and_todays_interval(sim):
    bm25 = sim.runs["S2"]
    res = ptb.experiment_result({"A": [bm25, bm25, bm25], "B": sim.runs["S3"]}, None, sim.qrels, ["AP"],
                                n_resamples=1000)
    components = res.variance_components().set_index("name")
    assert components.loc["A", "seed variance"] == 0.0 and components.loc["A", "seed share"] == 0.0
    ref = ptb.bootstrap_ci(res.values[:, :, 0], method="studentized", plan=res.plan).confidence_interval
    assert np.array_equal(res.intervals[0, 0], [np.asarray(ref.low)[0], np.asarray(ref.high)[0]])


def test_variance_components_against_the_baseline(random_result):
    frame = random_result.variance_components()
    assert set(frame["baseline"]) == {"S2"}
    rows = frame[(frame["measure"] == "AP") & (frame["name"] != "S2")]
    assert ((rows["seed share of difference"] >= 0) & (rows["seed share of difference"] <= 1)).all()
    assert (rows["difference variance (seeds random)"] >= rows["difference variance (seeds fixed)"]).all()
    assert frame[frame["name"] == "S2"]["seed variance"].eq(0).all()


def test_variance_components_need_several_runs(sim):
    res = ptb.experiment_result({"A": sim.runs["S2"], "B": sim.runs["S1"][0]}, None, sim.qrels, ["AP"],
                                n_resamples=200)
    with pytest.raises(ValueError, match="variance_components needs systems given as several runs"):
        res.variance_components()


def test_executor_gives_identical_numbers(sim):
    """Several blocks of resamples on the pool (a system with 5 runs: the Satterthwaite seed term)."""
    from pyterrier_boot.stats.resampling import RESAMPLE_BLOCK

    kwargs = dict(baseline="S2", n_resamples=2 * RESAMPLE_BLOCK + 17)
    runs = dict(sim.runs, S4=[*sim.runs["S1"], *sim.runs["S3"]])  # 5 runs
    one = ptb.experiment_result(runs, None, sim.qrels, ["AP"], **kwargs)
    with ThreadPoolExecutor(2) as pool:
        two = ptb.experiment_result(runs, None, sim.qrels, ["AP"], executor=pool, **kwargs)
    assert np.array_equal(one.intervals, two.intervals)
    assert np.array_equal(one.distribution_, two.distribution_)
    assert one.table().equals(two.table())


def test_ranks_include_seed_draws(random_result):
    ranks = random_result.ranks()
    assert len(ranks) == 6 and ranks["ci_low"].le(ranks["rank"]).all()
    topic_only = np.stack([ptb.resample_plan(15, n_resamples=1000, rng=1).weights() @ random_result.values[0, :, 0]])
    assert random_result.distribution_[:, 0, 0].std() > 0.9 * (topic_only / 15).std()


def test_save_and_load_keep_the_runs(random_result, tmp_path):
    back = ptb.load_result(random_result.save(tmp_path / "r.zip"))
    assert back.seeds == "random" and back.run_scores.runs == random_result.run_scores.runs
    assert back.table().equals(random_result.table())
    assert back.variance_components().equals(random_result.variance_components())


def test_a_version_2_result_loads_without_seeds(sim, tmp_path):
    """Results saved before the seeds fields (format 2) load, with one run per system."""
    import json
    import zipfile

    res = ptb.experiment_result({"A": sim.runs["S2"], "B": sim.runs["S1"][0]}, None, sim.qrels, ["AP"],
                                n_resamples=200)
    path, old = res.save(tmp_path / "new.zip"), tmp_path / "old.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(old, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "result.json":
                doc = json.loads(data)
                doc["version"] = 2
                del doc["result"]["seeds"]
                data = json.dumps(doc)
            dst.writestr(name, data)
    back = ptb.load_result(old)
    assert back.seeds is None and back.run_scores is None and back.table().equals(res.table())


def test_experiment_returns_our_table_for_lists(sim):
    import pyterrier as pt

    topics = sim.topics
    systems = {"S1": [pt.Transformer.from_df(r) for r in sim.runs["S1"]], "S2": pt.Transformer.from_df(sim.runs["S2"])}
    table = ptb.Experiment(systems, topics, sim.qrels, ["AP"], baseline=1, n_resamples=500)
    assert list(table["name"]) == ["S1", "S2"] and "AP p-value (seeds random)" in table.columns
    as_list = ptb.Experiment([sim.runs["S1"], sim.runs["S2"]], topics, sim.qrels, ["AP"], names=["S1", "S2"],
                             n_resamples=500)
    assert np.allclose(as_list["AP"], table["AP"])
    both = ptb.Experiment(systems, topics, sim.qrels, ["AP"], n_resamples=500, perquery="both", dataframe=False)
    assert set(both[0]) == {"S1", "S2"} and set(both[1]["S1"]) == set(sim.topics["qid"])


def test_drop_in_without_lists_is_unchanged(sim):
    runs = {"A": sim.runs["S2"], "B": sim.runs["S1"][0]}
    default = ptb.Experiment(runs, sim.topics, sim.qrels, ["AP"], baseline=0, n_resamples=500)
    fixed = ptb.Experiment(runs, sim.topics, sim.qrels, ["AP"], baseline=0, n_resamples=500, seeds="fixed")
    pd.testing.assert_frame_equal(default, fixed)
    assert "AP ci_low" in default.columns


def test_leaderboard_with_several_runs(sim, tmp_path):
    board = ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=500)
    frame = board.to_frame()
    assert "AP ci_low (seeds random)" in frame and "AP rank ci_low (topics+seeds)" in frame
    assert "t test with seed variance" in board.caption() and "seeds random" in board.caption()
    back = ptb.Leaderboard.load(board.save(tmp_path / "b.zip"))
    assert back.to_frame().equals(frame)
    fixed = ptb.leaderboard(sim.runs, sim.qrels, ["AP"], n_resamples=500, seeds="fixed")
    assert "AP rank ci_low (topics, seeds fixed)" in fixed.to_frame()


@pytest.mark.parametrize("lists", [False, True])
def test_board_columns_with_two_measures(sim, lists):
    """Every measure's interval columns keep their names (the rank labels once leaked into the second's)."""
    runs = sim.runs if lists else {"A": sim.runs["S2"], "B": sim.runs["S1"][0]}
    board = ptb.leaderboard(runs, sim.qrels, ["AP", "P@5"], n_resamples=200)
    label = " (seeds random)" if lists else ""
    for m in ("AP", "P@5"):
        assert {f"{m} ci_low{label}", f"{m} ci_high{label}"} <= set(board.to_frame().columns)
        assert f"{m}{label}" in board.display_frame().columns


def test_simulated_truth_for_a_new_seed_and_for_these_seeds(sim):
    random = sim.truth("AP", n_topics=60, rng=1)
    fixed = sim.truth("AP", n_topics=60, rng=1, seeds="fixed")
    assert list(random.index) == ["S1", "S2", "S3"] and not np.allclose(random, fixed)
    with pytest.raises(ValueError, match="'seeds' must be 'random' or 'fixed'"):
        sim.truth("AP", n_topics=10, seeds="new")


# ---------------------------------------------------------------- bad inputs


def test_a_run_without_results_for_a_topic_scores_0_there_as_one_run_does(sim):
    """One story with the warning (trec_eval -c): a system's run missing a judged topic scores 0 on it
    and the system's value there is the mean over its runs, zero included (the grouped path raised
    after that warning)."""
    short = sim.runs["S1"][1][sim.runs["S1"][1]["qid"] != "3"]
    runs = [sim.runs["S1"][0], short, sim.runs["S1"][2]]
    qrels = sim.qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    reference = []  # ir_measures per run, 0 on the judged topics the run has no result for
    for run in runs:
        values = {m.query_id: m.value for m in ir_measures.iter_calc(
            [ir_measures.AP], qrels, run.rename(columns={"qid": "query_id", "docno": "doc_id"}))}
        reference.append([values.get(q, 0.0) for q in ["3", "4"]])
    expected = np.mean(reference, axis=0)
    with pytest.warns(ptb.InputWarning, match=r"they score 0 on those topics, as in trec_eval -c.*S1\[2\] \(1\)"):
        res = ptb.experiment_result({"S1": runs, "S2": sim.runs["S2"]}, None, sim.qrels, ["AP"], n_resamples=200)
    ours = res.per_query().query("name == 'S1'").set_index("qid")["value"]
    assert ours.loc[["3", "4"]].to_numpy() == pytest.approx(expected, rel=1e-12)
    with pytest.warns(ptb.InputWarning, match="they score 0 on those topics"):
        per_topic = ptb.evaluate({"S1": runs}, sim.qrels, ["AP"]).set_index("qid")["value"]
    assert per_topic.loc[["3", "4"]].to_numpy() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(seeds="new"), "'seeds' must be 'random', 'fixed' or None"),
    (dict(test="wilcoxon", baseline="S2"), "test='wilcoxon' cannot include the seed variance"),
    (dict(interval="bca"), "interval='bca' cannot include the seed variance"),
    (dict(bootstrap="corpus"), "bootstrap='corpus' does not take systems given as several runs"),
])
def test_bad_options_with_several_runs(sim, kwargs, message):
    with pytest.raises(ValueError, match=message):
        ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], n_resamples=200, **kwargs)


def test_random_seeds_with_one_run_per_system(sim):
    with pytest.raises(ValueError, match="seeds='random' needs a system given as two or more runs"):
        ptb.experiment_result({"A": sim.runs["S2"], "B": sim.runs["S1"][0]}, None, sim.qrels, ["AP"], seeds="random")
    with pytest.raises(ValueError, match="seeds='random' needs a system given as two or more runs"):
        ptb.experiment_result({"A": [sim.runs["S2"]], "B": [sim.runs["S1"][0]]}, None, sim.qrels, ["AP"],
                              seeds="random")


def test_bad_lists(sim):
    r = sim.runs["S2"]
    with pytest.raises(ValueError, match=r"retr_systems\[1\] is a list of runs .* name every system"):
        ptb.experiment_result([r, [r, r]], None, sim.qrels, ["AP"])
    with pytest.raises(ValueError, match=r"'names' has 2 name\(s\) for 3 systems: one name per system"):
        ptb.experiment_result([r, [r, r], r], None, sim.qrels, ["AP"], names=["a", "b"])
    with pytest.raises(TypeError, match="'names' must hold one name per system"):
        ptb.experiment_result([r, [r, r]], None, sim.qrels, ["AP"], names=["a", ["b", "c"]])
    with pytest.raises(ValueError, match="system 'b' is an empty list"):
        ptb.experiment_result({"a": r, "b": []}, None, sim.qrels, ["AP"])
    with pytest.raises(ValueError, match="a sequential board takes one run per system"):
        ptb.leaderboard(sim.runs, sim.qrels, ["AP"], sequential=True)


def test_group_names_and_mapping_files(tmp_path):
    from pyterrier_boot.seeds.groups import group_names, read_group_file

    runs = ["bm25", "t5-s1", "t5-s2", "colbert-seed3"]
    assert group_names(runs, pattern=r"(?P<system>.+)-(s|seed)\d+$") == {
        "bm25": ["bm25"], "t5": ["t5-s1", "t5-s2"], "colbert": ["colbert-seed3"]}
    assert group_names(runs, pattern=r"t5", files={"t5-s1": "/x/run.t5.gz"}) == {
        "bm25": ["bm25"], "t5": ["t5-s1", "t5-s2"], "colbert-seed3": ["colbert-seed3"]}
    with pytest.raises(ValueError, match="'pattern' '\\(' is not a regular expression"):
        group_names(runs, pattern="(")
    with pytest.raises(ValueError, match=r"'pattern' 'nomatch-\(\.\+\)' groups none of the 4 runs \('bm25', 't5-s1', 't5-s2', \.\.\.\)"):
        group_names(runs, pattern="nomatch-(.+)")  # silently every run its own system, before
    with pytest.raises(ValueError, match="'mapping' groups none of the 4 runs"):
        group_names(runs, mapping={"other": "x"})
    path = tmp_path / "groups.tsv"
    path.write_text("# run system\nt5-s1\tt5\nt5-s2 t5\n")
    assert read_group_file(path) == {"t5-s1": "t5", "t5-s2": "t5"}
    path.write_text("t5-s1 t5\nt5-s2\n")
    with pytest.raises(ValueError, match=r"groups.tsv, line 2: expected two columns 'run system', got 1"):
        read_group_file(path)
    path.write_text("t5-s1 t5\nt5-s1 other\n")
    with pytest.raises(ValueError, match="line 2: run 't5-s1' is already in system 't5'"):
        read_group_file(path)


def test_mapping_file_reader_fuzzed(tmp_path):
    """Mutated mapping files are read or refused with a ValueError naming the file, never a crash."""
    from pyterrier_boot.seeds.groups import read_group_file

    rng = np.random.default_rng(0)
    base = b"# run system\nt5-s1 t5\nt5-s2\tt5\nbm25 bm25\n"
    for i in range(200):
        data = bytearray(base)
        for _ in range(rng.integers(1, 6)):
            position = int(rng.integers(0, len(data)))
            data[position:position + 1] = bytes([int(rng.choice([9, 10, 32, 35, 0, 255, 65, 195]))])
        path = tmp_path / f"m{i}.txt"
        path.write_bytes(bytes(data))
        try:
            out = read_group_file(path)
        except ValueError as error:
            assert str(path) in str(error)
        else:
            assert all(isinstance(k, str) and isinstance(v, str) for k, v in out.items())


def test_grouped_runs_door(sim):
    from pyterrier_boot.seeds.groups import GroupedRuns

    runs = {"a1": sim.runs["S1"][0], "a2": sim.runs["S1"][1], "b": sim.runs["S2"]}
    grouped = ptb.experiment_result(GroupedRuns(runs, {"A": ["a1", "a2"], "B": ["b"]}), None, sim.qrels, ["AP"],
                                    n_resamples=300)
    assert grouped.names == ("A", "B") and grouped.run_scores.runs == ("a1", "a2", "b")
    with pytest.raises(ValueError, match="run 'b' is in two systems"):
        ptb.experiment_result(GroupedRuns(runs, {"A": ["a1", "b"], "B": ["b", "a2"]}), None, sim.qrels, ["AP"])
    with pytest.raises(ValueError, match="1 run\\(s\\) belong to no system"):
        ptb.experiment_result(GroupedRuns(runs, {"A": ["a1", "a2"]}), None, sim.qrels, ["AP"])


def test_simulation_arguments_checked():
    with pytest.raises(ValueError, match="'seed_sd' and 'seed_interaction_sd' need several runs"):
        ptb.simulate_collection(n_topics=3, n_systems=2, seed_sd=0.1, rng=1)
    with pytest.raises(ValueError, match="'n_runs' has 3 values but there are 2 systems"):
        ptb.simulate_collection(n_topics=3, n_systems=2, n_runs=[1, 2, 3], rng=1)


def test_run_scores_shapes():
    scores = RunScores.from_groups(np.arange(12.0).reshape(4, 3, 1), [[0, 2], [1, 3]], tuple("abcd"), ("X", "Y"))
    assert list(scores.n_runs) == [2, 2] and scores.run_names(0) == ["a", "c"]
    assert np.array_equal(scores.averaged()[0, :, 0], [3.0, 4.0, 5.0])


def test_plot_titles_name_the_seeds_question(sim, random_result):
    """The plots' titles said "topic-bootstrap intervals (studentized)" and "paired t-test" for
    intervals and tests that include the seed variance."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fixed = ptb.experiment_result(sim.runs, None, sim.qrels, ["AP"], baseline="S2", n_resamples=300, seeds="fixed")
    for result, words in ((random_result, "seeds random: a new seed"), (fixed, "seeds fixed: these runs' average")):
        titles = [" ".join(result.plot_means("AP").get_title().split()),
                  " ".join(result.plot_pairwise("AP").get_title().split()),
                  " ".join(result.plot_differences("AP").axes[0].get_title().split())]
        assert all(words in t for t in titles), titles
        if result is random_result:
            assert "with a seed term" in titles[0] and all("seed variance" in t for t in titles[1:])
            assert "seed draws" in " ".join(result.plot_ranks("AP").get_title().split())
        plt.close("all")
