"""Seeds and collections together: systems given as several runs on several collections carry their
seed variance into each collection's standard error (``ExperimentResult.estimates``, hence
``across_collections`` and ``pyterrier-boot across``)."""
import io

import numpy as np
import pandas as pd
import pytest
from conftest import write_trec
from scipy import stats

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.seeds.groups import GroupedRuns

N = 300  # resamples: the standard errors do not depend on them


def _sim(seed_sd, rng, n_runs=(1, 4)):
    return ptb.simulate_collection(n_topics=30, n_systems=2, n_runs=list(n_runs), seed_sd=seed_sd,
                                   seed_interaction_sd=0.2 if seed_sd else 0.0, depth=50, pool_depth=20, rng=rng)


def _runs(sim):
    return {"BM25": sim.runs["S1"], "monoT5": sim.runs["S2"]}


def _by_hand(runs, qrels, measure):
    """The variance of the run-averaged mean and of its difference from BM25, written independently:
    the topic part from the per-topic values, the seed part ``max(var(run means) - MS_E / n, 0) / k``
    from the runs x topics table (MS_E the residual mean square of the two-way layout)."""
    per_run = ptb.evaluate({f"r{i}": r for i, r in enumerate(runs["monoT5"])}, qrels, [measure])
    x = per_run.pivot_table(index="name", columns="qid", values="value").to_numpy()  # runs x topics
    base = ptb.evaluate({"b": runs["BM25"]}, qrels, [measure]).sort_values("qid")["value"].to_numpy()
    k, n = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    ms_e = (residual ** 2).sum() / ((k - 1) * (n - 1))
    seed = max(x.mean(axis=1).var(ddof=1) - ms_e / n, 0.0) / k
    averaged = x.mean(axis=0)
    return averaged.var(ddof=1) / n + seed, (averaged - base).var(ddof=1) / n + seed, seed


def test_estimates_under_random_seeds_add_the_seed_variance():
    sim = _sim(0.2, rng=3)
    res = ptb.experiment_result(_runs(sim), None, sim.qrels, ["AP"], baseline="BM25", n_resamples=N)
    mean_var, diff_var, seed = _by_hand(_runs(sim), sim.qrels, "AP")
    assert seed > 0
    means, diffs = res.estimates("AP"), res.estimates("AP", baseline="BM25")
    assert means.attrs["variance"] == diffs.attrs["variance"] == "topics+seeds"
    assert means.loc[1, "se"] == pytest.approx(np.sqrt(mean_var), rel=1e-10)
    assert diffs.loc[0, "se"] == pytest.approx(np.sqrt(diff_var), rel=1e-10)
    assert diffs.loc[0, "df"] < 29  # Satterthwaite's, below the n - 1 of the topics alone
    table = res.table()  # the interval of the difference is the table's: one story
    assert diffs.loc[0, "ci_low"] == pytest.approx(table.loc[1, "AP diff ci_low (seeds random)"], rel=1e-10)
    assert diffs.loc[0, "ci_high"] == pytest.approx(table.loc[1, "AP diff ci_high (seeds random)"], rel=1e-10)
    half = stats.t.isf(0.025, diffs.loc[0, "df"]) * diffs.loc[0, "se"]
    assert diffs.loc[0, "ci_high"] == pytest.approx(diffs.loc[0, "estimate"] + half, rel=1e-10)
    fixed = ptb.experiment_result(_runs(sim), None, sim.qrels, ["AP"], baseline="BM25", n_resamples=N, seeds="fixed")
    f = fixed.estimates("AP", baseline="BM25")  # today's: the SE of the run-averaged differences
    assert f.attrs["variance"] == "topics" and f.loc[0, "df"] == 29
    assert f.loc[0, "se"] ** 2 == pytest.approx(diff_var - seed, rel=1e-10)


def test_a_system_with_identical_runs_has_the_standard_error_of_one_run():
    sim = _sim(0.0, rng=4, n_runs=(1, 1))
    one = ptb.experiment_result(_runs(sim), None, sim.qrels, ["AP"], n_resamples=N)
    copies = {"BM25": sim.runs["S1"], "monoT5": [sim.runs["S2"]] * 3}
    three = ptb.experiment_result(copies, None, sim.qrels, ["AP"], n_resamples=N)
    assert three.seeds == "random"
    for baseline in (None, "BM25"):
        a, b = one.estimates("AP", baseline=baseline), three.estimates("AP", baseline=baseline)
        np.testing.assert_allclose(b["se"], a["se"], rtol=1e-12)
        np.testing.assert_allclose(b["df"], a["df"])


@pytest.fixture(scope="module")
def collections_by_seed_sd():
    """Three collections simulated with the same random numbers at seed SDs 0, 0.1 and 0.3."""
    return {sd: {f"c{c}": (_runs(s := _sim(sd, rng=10 + c)), s.qrels) for c in range(3)} for sd in (0.0, 0.1, 0.3)}


def test_per_collection_standard_errors_grow_with_the_seed_sd(collections_by_seed_sd):
    se = {}
    for sd, collections in collections_by_seed_sd.items():
        res = ptb.across_collections(collections, "AP", baseline="BM25", n_resamples=N)
        assert res.variance == "topics+seeds"
        assert "seed variance" in res.display().caption
        se[sd] = res.per_collection()["se"].to_numpy()
        fixed = ptb.across_collections(collections, "AP", baseline="BM25", n_resamples=N, seeds="fixed")
        seed_part = se[sd] ** 2 - fixed.per_collection()["se"].to_numpy() ** 2
        assert np.all(seed_part >= -1e-15)
        se[sd, "seed"] = seed_part
    np.testing.assert_allclose(se[0.0, "seed"], 0, atol=1e-15)  # no seed effect: identical runs
    assert np.all(se[0.3, "seed"] > se[0.1, "seed"]) and np.all(se[0.1, "seed"] >= 0)  # 0: the estimate truncated
    assert np.all(se[0.3] > se[0.0])


def test_captions_say_whether_the_seed_variance_is_in(collections_by_seed_sd, tmp_path):
    """One story per table: seeds="fixed" said only "topics" (as for one run per system) where
    seeds="random" named the seed variance; display, LaTeX, Markdown and the board say it, saved too."""
    collections = collections_by_seed_sd[0.1]
    single = {c: ({"BM25": runs["BM25"], "monoT5": runs["monoT5"][0]}, qrels) for c, (runs, qrels) in collections.items()}
    said = {"random": "and each system's seed variance; seeds random: a new seed",
            "fixed": "not each system's seed variance; seeds fixed: these runs' average"}
    for seeds, given in (("fixed", collections), ("random", collections), (None, single)):
        res = ptb.across_collections(given, "AP", baseline="BM25", n_resamples=N, seeds=seeds)
        back = ptb.AcrossCollections.load(res.save(tmp_path / f"{seeds}.zip"))
        texts = [res.display().caption, res.to_markdown(), res.to_latex(), res.leaderboard().display().caption,
                 back.display().caption]
        for text in texts:
            assert all((phrase in text) == (key == seeds) for key, phrase in said.items()), (seeds, text)
        assert res.seeds == back.seeds == seeds
        if seeds is None:  # one run per system: no seeds to speak of
            assert "95% interval (topics resampled within each collection)." in res.display().caption


def test_several_runs_in_every_form_of_experiment(collections_by_seed_sd):
    collections = collections_by_seed_sd[0.1]
    expected = ptb.across_collections(collections, "AP", baseline="BM25", n_resamples=N).per_collection()
    as_lists = {c: ([runs["BM25"], runs["monoT5"]], qrels) for c, (runs, qrels) in collections.items()}
    listed = ptb.across_collections(as_lists, "AP", baseline="BM25", names=["BM25", "monoT5"], n_resamples=N)
    grouped = {c: (GroupedRuns({"b": runs["BM25"]} | {f"t{i}": r for i, r in enumerate(runs["monoT5"])},
                               {"BM25": ["b"], "monoT5": [f"t{i}" for i in range(len(runs["monoT5"]))]}), qrels)
               for c, (runs, qrels) in collections.items()}
    by_groups = ptb.across_collections(grouped, "AP", baseline="BM25", n_resamples=N)
    for other in (listed, by_groups):
        pd.testing.assert_frame_equal(other.per_collection(), expected)


def test_collections_with_and_without_seed_variance_are_named(collections_by_seed_sd):
    collections = dict(collections_by_seed_sd[0.1])
    runs, qrels = collections["c2"]
    collections["c2"] = ({"BM25": runs["BM25"], "monoT5": runs["monoT5"][0]}, qrels)
    with pytest.raises(ValueError, match=r"\['c0', 'c1'\] include the seed variance .* \['c2'\] do not"):
        ptb.across_collections(collections, "AP", baseline="BM25", n_resamples=N)
    fixed = ptb.across_collections(collections, "AP", baseline="BM25", n_resamples=N, seeds="fixed")
    assert fixed.variance == "topics"
    with pytest.raises(ValueError, match="collection 'c2': seeds='random' needs a system given as two or more runs"):
        ptb.across_collections({"c2": collections["c2"], "c3": collections["c2"]}, "AP", seeds="random")


def test_command_line_groups_runs_on_every_collection(capsys, collections_by_seed_sd, tmp_path):
    argv = ["across", "--quiet", "--n", str(N), "-m", "AP", "-b", "BM25", "-f", "csv", "--group-runs", r"(.+)-seed\d+"]
    collections = collections_by_seed_sd[0.1]
    for c, (runs, qrels) in collections.items():
        files = {"BM25": runs["BM25"]} | {f"monoT5-seed{i}": r for i, r in enumerate(runs["monoT5"], 1)}
        folder = write_trec(files, qrels, tmp_path / c)
        argv += ["-c", c, str(folder / "qrels.txt"), str(folder / "runs")]
    expected = ptb.across_collections(collections, "AP", baseline="BM25", n_resamples=N).per_collection()
    for extra, seeds in (([], "random"), (["--seeds", "fixed"], "fixed")):
        assert main(argv + extra) == 0
        printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
        if seeds == "fixed":
            expected = ptb.across_collections(collections, "AP", baseline="BM25", n_resamples=N,
                                              seeds="fixed").per_collection()
        assert list(printed["variance"].unique()) == [expected["variance"][0]]
        np.testing.assert_allclose(printed["se"], expected["se"], rtol=1e-12)
