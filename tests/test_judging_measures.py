"""Measure-aware judging plans and their forecast (issue 36, items 1 and 2): the pool keeps what the
measures read, the probabilities follow their sensitivity, every reachable pair keeps a positive
probability, the plan records its measures and refuses (or warns about) others; the forecast says
the widths before anyone judges, and how many labels a width needs."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pyterrier_boot as pb
from pyterrier_boot.judging import designs
from pyterrier_boot.judging.pool import ranked_pairs
from pyterrier_boot.judging.sensitivity import measure_weights, plan_measures
from pyterrier_boot.ppi.forecast import PEOPLE, simulate_people, top_votes
from pyterrier_boot.ppi.sampled import PlanEstimator


@pytest.fixture(scope="module")
def collection():
    sim = pb.simulate_collection(n_topics=12, n_systems=5, corpus_size=3000, depth=60, pool_depth=20, rng=41)
    auto = pb.simulate_judge(sim.qrels, sim.runs, rng=42)
    return sim.runs, sim.qrels, auto


def _people(plan, qrels):
    labels = plan.sample.merge(qrels, on=["qid", "docno"], how="left").fillna({"label": 0})
    return labels.astype({"label": int})[["qid", "docno", "label"]]


def _pairs(frame):
    return set(zip(frame["qid"], frame["docno"]))


# ---------------------------------------------------------------- the pool and the probabilities


def test_the_pool_keeps_what_the_measures_read(collection):
    runs, _, auto = collection
    read = pb.read_runs(runs)
    top5 = _pairs(ranked_pairs(read, set(auto["qid"]), 5))
    precision = pb.judging_plan(runs, auto, 60, measures=["P@5"], rng=1)
    assert _pairs(precision.pool) == top5 and precision.depth == 5  # P@5 reads the runs' top 5, nothing else
    ndcg = pb.judging_plan(runs, auto, 60, measures=["nDCG@5"], rng=1)
    assert _pairs(ndcg.pool) == top5 | _pairs(auto)  # its ideal DCG counts every judged pair
    ap = pb.judging_plan(runs, auto, 60, measures=["AP", "P@5"], rng=1)
    assert ap.depth == 100 and _pairs(ap.pool) == _pairs(pb.judging_plan(runs, auto, 60, rng=1).pool)
    for plan in (precision, ndcg, ap):
        pi = plan.pool["inclusion_probability"].to_numpy()
        assert (pi > 0).all() and np.isclose(pi.sum(), plan.budget)  # every reachable pair: unbiased estimates


def test_the_probabilities_follow_the_measures(collection):
    runs, _, auto = collection
    plan = pb.judging_plan(runs, auto, 80, measures=["nDCG@10", "P@10"], design="poisson", rng=1)
    pool = plan.pool
    top, rest = pool["rank"].between(1, 10), ~pool["rank"].between(1, 10)
    assert pool.loc[top, "inclusion_probability"].mean() > 4 * pool.loc[rest, "inclusion_probability"].mean()
    first = pool["rank"] == 1
    assert pool.loc[first, "inclusion_probability"].mean() > pool.loc[pool["rank"] == 10, "inclusion_probability"].mean()
    today = pb.judging_plan(runs, auto, 80, design="poisson", rng=1).pool  # statAP over the top 100
    share = plan.pool.loc[top, "inclusion_probability"].sum() / plan.budget
    assert share > today.loc[today["rank"].between(1, 10), "inclusion_probability"].sum() / 80


def test_measure_weights_by_hand():
    """Two runs of one topic, P@2 and RR: the weights a reader can compute."""
    runs = {"a": pd.DataFrame({"qid": "1", "docno": ["x", "y", "z"], "score": [3.0, 2.0, 1.0]}),
            "b": pd.DataFrame({"qid": "1", "docno": ["y", "w", "x"], "score": [3.0, 2.0, 1.0]})}
    auto = pd.DataFrame({"qid": ["1"] * 4, "docno": ["w", "x", "y", "z"], "label": [0, 0, 1, 0]})
    from pyterrier_boot.judging.pool import build_pool, read_auto_qrels, run_positions

    read = pb.read_runs(runs)
    pool = build_pool(read, read_auto_qrels(auto), 3)
    positions = run_positions(read, pool, 3)
    weights = measure_weights(pool, positions, plan_measures(["P@2"])[1], 3)
    np.testing.assert_allclose(dict(zip(pool["docno"], weights))["y"], 0.5)  # in both runs' top 2: (1/2 + 1/2) / 2
    np.testing.assert_allclose(weights.sum(), 1.0)
    rr = dict(zip(pool["docno"], measure_weights(pool, positions, plan_measures(["RR"])[1], 3)))
    # run a: x (0.1), y (0.5), z: weights 1, 0.9/2, 0.9*0.5/3, normalised; run b: y, w, x: 1, 0.5/2, 0.5*0.9/3
    a = np.array([1, 0.9 / 2, 0.9 * 0.5 / 3]) / (1 + 0.9 / 2 + 0.9 * 0.5 / 3)
    b = np.array([1, 0.5 / 2, 0.5 * 0.9 / 3]) / (1 + 0.5 / 2 + 0.5 * 0.9 / 3)
    np.testing.assert_allclose([rr["x"], rr["y"], rr["z"], rr["w"]], [(a[0] + b[2]) / 2, (a[1] + b[0]) / 2,
                                                                       a[2] / 2, b[1] / 2])


def test_the_plan_records_its_measures(collection, tmp_path):
    runs, _, auto = collection
    plan = pb.judging_plan(runs, auto, 60, measures=["nDCG@10", "AP(rel=2)"], rng=1)
    assert plan.measures == ("nDCG@10", "AP(rel=2)") and "measures=['nDCG@10', 'AP(rel=2)']" in repr(plan)
    plan.save(tmp_path / "plan.txt")
    loaded = pb.JudgingPlan.load(tmp_path / "plan.txt")
    assert loaded.measures == plan.measures
    pd.testing.assert_frame_equal(loaded.pool, plan.pool)


@pytest.mark.slow
def test_measure_aware_estimates_are_unbiased_over_redraws(collection):
    """P@5 and DCG-like linear parts: the mean of the estimates over 400 redraws of a measure-aware plan
    is the truth (within 4 standard errors of the mean, every run)."""
    from pyterrier_boot.ppi.sampled import PlanEstimator

    runs, qrels, auto = collection
    plan = pb.judging_plan(runs, auto, 60, measures=["P@5"], design="poisson", rng=2)
    pool = plan.pool
    human = pool[["qid", "docno"]].merge(qrels, how="left").fillna({"label": 0})["label"].to_numpy(np.int64)
    truth = pb.evaluate(runs, qrels, ["P@5"]).groupby("name")["value"].mean().reindex(list(runs)).to_numpy()
    estimator = PlanEstimator(pb.read_runs(runs), pool, ["P@5"], depth=plan.depth)
    pi = pool["inclusion_probability"].to_numpy()
    rng = np.random.default_rng(3)
    means = []
    for _ in range(400):
        s = designs.draw(pi, pool["stratum"].to_numpy(), "poisson", rng)
        means.append(estimator.estimate(s, human[s], pi[s], lam=0.5).estimates["ppi"][0, 0].mean(0))
    means = np.array(means)
    assert (np.abs(means.mean(0) - truth) < 4 * means.std(0) / np.sqrt(len(means)) + 1e-12).all()


# ---------------------------------------------------------------- other measures, bad inputs


def test_a_measure_the_plan_was_not_made_for_is_refused_or_warned(collection):
    runs, qrels, auto = collection
    plan = pb.judging_plan(runs, auto, 60, measures=["P@5"], rng=1)
    people = _people(plan, qrels)
    with pytest.raises(ValueError, match=r"made for P@5, and P@10 reads pairs its pool left out \(ranks below 5\)"):
        pb.ppi_evaluate(runs, auto, people, ["P@10"], plan=plan)
    with pytest.raises(ValueError, match=r"nDCG@5 reads pairs its pool left out \(the judged pairs its normaliser"):
        pb.ppi_evaluate(runs, auto, people, ["nDCG@5"], plan=plan)
    with pytest.raises(ValueError, match="AP reads pairs its pool left out"):
        pb.ppi_evaluate(runs, auto, people, ["AP"], plan=plan)
    with pytest.warns(pb.InputWarning, match=r"made for P@5, not for P@3: the estimates are unbiased") as caught:
        res = pb.ppi_evaluate(runs, auto, people, ["P@5", "P@3"], plan=plan)
    assert len([w for w in caught if issubclass(w.category, pb.BootWarning)]) == 1
    assert res.planned == (True, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pb.BootWarning)
        pb.ppi_evaluate(runs, auto, people, ["P@5"], plan=plan)  # its own measure: no warning


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"measures": ["ERR@10"]}, ValueError, r"measures must be AP, nDCG, P, R, RR, Rprec or Success"),
    ({"measures": ["P@20"], "depth": 10}, ValueError, r"'measures' P@20 reads the runs' top 20 but depth=10"),
    ({"measures": ["NumRet"]}, ValueError, "NumRet"),
    ({"measures": ["AP(rel=4)"]}, ValueError, r"no automatic label counts as relevant for AP\(rel=4\)"),
])
def test_measures_the_plan_cannot_serve_are_refused(collection, options, error, message):
    runs, _, auto = collection
    with pytest.raises(error, match=message):
        pb.judging_plan(runs, auto, 60, **options)


def test_a_cutoff_deeper_than_the_runs_and_a_tiny_budget_warn_once(collection):
    runs, _, auto = collection
    with pytest.warns(pb.InputWarning, match=r"'measures' P@500 read deeper than any run ranks \(at most 60"):
        pb.judging_plan(runs, auto, 60, measures=["P@500"], rng=1)
    with pytest.warns(pb.InputWarning, match=r"'budget' 6 is under one pair per topic \(12 topics\)") as caught:
        pb.judging_plan(runs, auto, 6, measures=["P@5"], rng=1)
    assert len(caught) == 1


# ---------------------------------------------------------------- the forecast


def test_the_forecast_says_widths_and_labels_needed(collection):
    runs, _, auto = collection
    plan = pb.judging_plan(runs, auto, 120, measures=["nDCG@10", "P@10"], rng=1)
    forecast = plan.forecast(n_draws=8, rng=2)
    table = forecast.to_frame()
    assert len(table) == 2 * 2 * 2 and set(table["estimand"]) == {"population", "topics"}
    assert (table["width"] > 0).all()
    for measure, column, estimand, width in table[["measure", "column", "estimand", "width"]].itertuples(index=False):
        assert forecast.width(measure, 120, estimand=estimand, column=column) == pytest.approx(width)
        assert forecast.width(measure, 240, estimand=estimand, column=column) < width  # more labels: narrower
    needed = forecast.labels_needed("P@10", forecast.width("P@10", 300, estimand="topics"), estimand="topics")
    assert abs(needed - 300) <= 1
    assert forecast.labels_needed("P@10", 1e-6) is None  # the topics vary more than that
    assert forecast.labels_needed("P@10", 1e-6, estimand="topics") <= len(plan.pool)
    again = plan.forecast(n_draws=8, rng=2)
    pd.testing.assert_frame_equal(again.to_frame(), table)  # the same seed, the same forecast
    assert "Forecast of 120 labels (10 per topic)" in str(forecast)


def test_the_topics_width_is_the_mean_width_ppi_evaluate_gives_on_the_forecasts_draws(collection):
    """The forecast's topics width is what ``estimand="topics"`` intervals would be on its draws:
    rebuilt here through ``PlanEstimator.estimate`` (the path ``ppi_evaluate(plan=)`` takes), on
    the same simulated people, samples and replicates drawn from the same seed."""
    runs, _, auto = collection
    plan = pb.judging_plan(runs, auto, 120, measures=["nDCG@10", "AP"], rng=1)
    forecast = plan.forecast(n_draws=4, rng=7)
    read = pb.read_runs(runs)
    pool = plan.pool
    labelled = pd.MultiIndex.from_frame(pool[["qid", "docno"]]).isin(
        pd.MultiIndex.from_frame(auto[["qid", "docno"]].astype(str)))
    estimator = PlanEstimator(read, pool, ["nDCG@10", "AP"], depth=plan.depth, labelled=labelled)
    rng = np.random.default_rng(7)
    people = simulate_people(pool["auto_label"].to_numpy(np.int64), labelled, estimator.topic, PEOPLE, rng,
                             votes=top_votes(estimator))
    pi, stratum = pool["inclusion_probability"].to_numpy(float), pool["stratum"].to_numpy(np.int64)
    take = np.bincount(stratum, weights=pool["sampled"]).astype(np.int64) if plan.design == "stratified" else None
    widths = {"nDCG@10": [], "AP": []}
    for _ in range(4):
        sampled = designs.draw(pi, stratum, plan.design, rng, take)
        result = estimator.estimate(sampled, people[sampled], pi[sampled], estimand="topics", rng=rng,
                                    stratum=stratum[sampled] if take is not None else None)
        for measure in widths:
            low, high = result.intervals(measure)["ppi"].confidence_interval
            widths[measure].append(high - low)
    for measure, found in widths.items():
        assert np.max(found) < 1.0  # not capped at the measure's range
        assert forecast.width(measure, 120, estimand="topics") == pytest.approx(np.mean(found), rel=1e-9)


def test_the_topics_width_scales_the_replicates_excess_with_the_square_of_the_design_factor(collection):
    """At another budget the document sampling's variance scales as ``N/n - 1`` (relative to the
    plan's), and the topics width's excess over the draws' spread (the ratios' swings) with its
    square: computed here from the forecast's parts, at the plan's budget and four times it."""
    runs, _, auto = collection
    plan = pb.judging_plan(runs, auto, 120, measures=["AP"], rng=1)
    forecast = plan.forecast(n_draws=6, rng=5)
    _, design, replicated = forecast.parts[("AP", "mean")]
    assert np.any(replicated > design)  # AP's replicates swing beyond the draws' spread
    pool = len(plan.pool)
    for labels in (120, 480):
        scale = (pool / labels - 1) / (pool / 120 - 1)
        excess = np.maximum(replicated - design, 0)
        variance = (replicated - excess) * scale + excess * scale**2
        expected = np.minimum(2 * stats.norm.ppf(0.975) * np.sqrt(variance / forecast.n_topics), 1.0).mean()
        assert forecast.width("AP", labels, estimand="topics") == pytest.approx(expected, rel=1e-12)


def test_a_loaded_plan_forecasts_from_its_runs_and_qrels(collection, tmp_path):
    runs, _, auto = collection
    plan = pb.judging_plan(runs, auto, 120, measures=["P@10"], rng=1)
    plan.save(tmp_path / "plan.txt")
    loaded = pb.JudgingPlan.load(tmp_path / "plan.txt")
    with pytest.raises(ValueError, match=r"keeps neither its runs nor its automatic qrels: give them"):
        loaded.forecast()
    pd.testing.assert_frame_equal(loaded.forecast(runs, auto, n_draws=5, rng=3).to_frame(),
                                  plan.forecast(n_draws=5, rng=3).to_frame())
    with pytest.raises(ValueError, match="'auto_qrels' are not the automatic qrels"):
        loaded.forecast(runs, auto.assign(label=0), n_draws=5)
    with pytest.raises(ValueError, match="'n_draws' must be an integer of at least 3"):
        plan.forecast(n_draws=1)
    with pytest.raises(ValueError, match="'people' must be two probabilities"):
        plan.forecast(people=(0.5, 2))
    with pytest.raises(ValueError, match="made without measures; name those to forecast"):
        pb.judging_plan(runs, auto, 120, rng=1).forecast()
    with pytest.raises(ValueError, match="unknown measure 'AP'"):
        plan.forecast(n_draws=3).labels_needed("AP", 0.1)


@pytest.mark.parametrize("labels", [0, 0.5, "10", True, 10**9, None])
def test_a_forecast_width_needs_a_count_of_labels_within_the_pool(collection, labels):
    """A share (0.5), a string or a count beyond the pool is refused, not read as some other budget."""
    runs, _, auto = collection
    forecast = pb.judging_plan(runs, auto, 120, measures=["P@10"], rng=1).forecast(n_draws=3, rng=1)
    with pytest.raises(ValueError, match=r"'labels' must be a number of labels from 1 to the pool's \d+ pairs"):
        forecast.width("P@10", labels)


def test_forecast_widths_stay_within_the_measures_range(collection):
    """A budget far below the plan's scales the sampling variance up; the intervals are kept inside
    [0, 1] (differences [-1, 1]), so no forecast width exceeds 1 (2)."""
    runs, _, auto = collection
    forecast = pb.judging_plan(runs, auto, 120, measures=["P@10"], rng=1).forecast(n_draws=5, rng=1)
    for estimand in ("population", "topics"):
        assert 0.9 < forecast.width("P@10", 1, estimand=estimand) <= 1.0
        assert 1.8 < forecast.width("P@10", 1, estimand=estimand, column="difference") <= 2.0
        assert forecast.width("P@10", 2, estimand=estimand) <= forecast.width("P@10", 1, estimand=estimand)


def test_a_forecast_of_one_run_has_no_differences(collection, tmp_path, capsys):
    from conftest import write_trec

    from pyterrier_boot.cli import main

    runs, _, auto = collection
    one = {"S1": runs["S1"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning of an empty mean either
        forecast = pb.judging_plan(one, auto, 120, measures=["P@10"], rng=1).forecast(n_draws=3, rng=1)
    assert forecast.columns == ["mean"] and set(forecast.to_frame()["column"]) == {"mean"}
    with pytest.raises(ValueError, match="the plan has one run, so there is no 'difference' to forecast"):
        forecast.width("P@10", 120, column="difference")
    folder = write_trec(one, auto, tmp_path)
    assert main(["judge-plan", "--auto-qrels", str(folder / "qrels.txt"), str(folder / "runs"), "--budget", "120",
                 "--measures", "P@10", "--width", "0.3", "--quiet", "--out", str(tmp_path / "plan")]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out and "difference population" not in out and "differences" not in out.split("wide, P@10")[1]
    assert "labels for intervals 0.3 wide, P@10: means " in out and "(topics)\n" in out


def test_simulated_people_follow_the_judge_as_said():
    rng = np.random.default_rng(1)
    auto = np.repeat([0, 2, 0], 20_000)
    labelled = np.r_[np.ones(40_000, bool), np.zeros(20_000, bool)]
    people = simulate_people(auto, labelled, np.zeros(len(auto), np.int64), (0.4, 0.1), rng, spread=0)
    assert abs((people[20_000:40_000] == 2).mean() - 0.4) < 0.01  # the judge's relevant pairs kept at 0.4
    assert abs((people[:20_000] == 2).mean() - 0.1) < 0.01  # its non-relevant ones relevant at 0.1
    assert (people[40_000:] == 0).all()  # pairs it did not label stay non-relevant
    topic = np.repeat(np.arange(100), 600)
    varied = simulate_people(np.full(60_000, 2), np.ones(60_000, bool), topic, (0.4, 0.1), rng, spread=5.0)
    per_topic = (varied == 2).reshape(100, 600).mean(1)  # each topic's precision: Beta(2, 3), sd 0.2
    assert abs(per_topic.mean() - 0.4) < 0.05 and 0.15 < per_topic.std() < 0.25


def test_simulated_people_follow_the_runs_consensus():
    """A pair more of the runs put in their top 10 is more often relevant; the rates of each kind of
    pair (the judge's relevant, its labelled non-relevant) keep about their means."""
    rng = np.random.default_rng(2)
    n = 200_000
    auto = np.where(np.arange(n) % 2 == 0, 2, 0)
    votes = rng.random(n)
    people = simulate_people(auto, np.ones(n, bool), np.zeros(n, np.int64), (0.4, 0.1), rng, spread=0, votes=votes)
    relevant = people == 2
    for judged, mean in ((auto == 2, 0.4), (auto == 0, 0.1)):
        high, low = judged & (votes > 0.8), judged & (votes < 0.2)
        assert relevant[high].mean() > relevant[low].mean() + 0.1
        assert abs(relevant[judged].mean() - mean) < 0.03
    flat = simulate_people(auto, np.ones(n, bool), np.zeros(n, np.int64), (0.4, 0.1), rng, spread=0, votes=votes,
                           slope=0.0)
    assert abs((flat[(auto == 2) & (votes > 0.8)] == 2).mean() - 0.4) < 0.01  # no slope: no consensus


# ---------------------------------------------------------------- command line


def test_cli_judge_plan_with_measures_prints_the_forecast(collection, tmp_path, capsys):
    from conftest import write_trec

    from pyterrier_boot.cli import main

    runs, qrels, auto = collection
    folder = write_trec(runs, auto, tmp_path)
    base = ["judge-plan", "--auto-qrels", str(folder / "qrels.txt"), str(folder / "runs"), "--budget", "120",
            "--quiet"]
    assert main([*base, "--measures", "nDCG@10", "AP", "--rel", "2", "--width", "0.3", "--out",
                 str(tmp_path / "plan")]) == 0
    out = capsys.readouterr().out
    plan = pb.JudgingPlan.load(tmp_path / "plan" / "plan.txt")
    assert plan.measures == ("nDCG@10", "AP(rel=2)")
    assert "made for nDCG@10, AP(rel=2)" in out and "forecast of the 95% intervals with 120 labels (10 per topic" in out
    python = plan.forecast(runs, auto, rng=42).to_frame()  # the printed widths are the Python forecast's
    for measure, column, estimand, width in python[["measure", "column", "estimand", "width"]].itertuples(index=False):
        assert f"{measure:>9} {column:>10} {estimand:>10} {width:.3f}" in out
    assert "labels for intervals 0.3 wide, nDCG@10: means" in out
    qrels.assign(iteration=0)[["qid", "iteration", "docno", "label"]].to_csv(tmp_path / "all.txt", sep=" ",
                                                                             header=False, index=False)
    people = _people(plan, qrels)
    people.assign(iteration=0)[["qid", "iteration", "docno", "label"]].to_csv(tmp_path / "people.txt", sep=" ",
                                                                              header=False, index=False)
    assert main(["ppi", "--auto-qrels", str(folder / "qrels.txt"), "--human-qrels", str(tmp_path / "people.txt"),
                 "--plan", str(tmp_path / "plan" / "plan.txt"), str(folder / "runs"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "nDCG@10: mean" in out and "AP(rel=2): mean" in out  # the plan's measures by default
    assert main([*base, "--rel", "2", "--out", str(tmp_path / "x")]) == 2
    assert "--rel needs --measures" in capsys.readouterr().err
    assert main([*base, "--measures", "P@5", "--width", "0", "--out", str(tmp_path / "x")]) == 2
    assert "--width must be a positive width" in capsys.readouterr().err


def test_a_sequence_from_a_plan_refuses_a_measure_its_pool_cannot_serve(collection):
    runs, qrels, auto = collection
    plan = pb.judging_plan(runs, auto, 120, measures=["nDCG@5"], rng=1)
    people = _people(plan, qrels)
    with pytest.raises(ValueError, match=r"made for nDCG@5, and AP reads pairs its pool left out \(ranks below 5\)"):
        pb.SequentialEvaluation.from_plan(runs, plan, people, ["AP"])
