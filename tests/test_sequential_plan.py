"""``SequentialEvaluation`` from a judging plan (issue 27, item 3): topics enter as people finish
labelling their sample of documents, scored by the plan's estimators with a predictable ``lam``."""
import json
import math

import numpy as np
import pandas as pd
import pytest
from conftest import real_collection, shared_path, write_trec

import pyterrier_boot as pb
from pyterrier_boot.cli import main
from pyterrier_boot.judging.estimation import predictable_lambdas, tuned_lambda
from pyterrier_boot.ppi.sampled import PlanEstimator
from pyterrier_boot.sequential.planned import check_plan_measures, labels_per_topic

MEASURES = ["nDCG@10", "AP"]


@pytest.fixture(scope="module")
def collection():
    sim = pb.simulate_collection(n_topics=12, n_systems=3, depth=40, pool_depth=20, rng=5)
    auto = pb.simulate_judge(sim.qrels, sim.runs, rng=6)
    plan = pb.judging_plan(sim.runs, auto, 0.2, depth=30, rng=7)
    return {"runs": sim.runs, "truth": sim.qrels, "auto": auto, "plan": plan}


def _labels(plan, truth, order):
    """People's labels of the plan's sample (the truth, 0 where it has none), topic by topic in ``order``."""
    sample = plan.sample
    grades = truth.set_index(["qid", "docno"])["label"]
    labelled = sample.assign(label=grades.reindex(pd.MultiIndex.from_frame(sample[["qid", "docno"]]))
                             .fillna(0).astype(int).to_numpy())
    rank = {q: i for i, q in enumerate(order)}
    labelled = labelled.iloc[np.argsort(labelled["qid"].map(rank).to_numpy(), kind="stable")]
    return labelled[["qid", "docno", "label"]].reset_index(drop=True)


def _order(plan, seed=0):
    return list(np.random.default_rng(seed).permutation(sorted(plan.pool["qid"].unique())))


def test_predictable_lambdas_are_tuned_on_the_earlier_topics():
    rng = np.random.default_rng(1)
    n = 400
    auto, human = rng.integers(0, 2, n).astype(float), rng.integers(0, 2, n).astype(float)
    probability, topic = rng.uniform(0.05, 0.9, n), rng.integers(0, 7, n)
    order = rng.permutation(7)
    got = predictable_lambdas(auto, human, probability, topic, order)
    for position, t in enumerate(order):
        earlier = np.isin(topic, order[:position])
        expected = tuned_lambda(auto[earlier], human[earlier], probability[earlier]) if position else 1.0
        assert got[t] == pytest.approx(expected, abs=1e-12)


def test_every_pair_labelled_gives_the_measures_of_the_labels(collection):
    """Budget 1: every pool pair sampled with probability 1, so each estimate is the measure itself."""
    runs, truth = collection["runs"], collection["truth"]
    plan = pb.judging_plan(runs, collection["auto"], 1.0, depth=30, rng=7)
    labels = _labels(plan, truth, _order(plan))
    state = pb.SequentialEvaluation.from_plan(runs, plan, labels, MEASURES)
    expected = pb.evaluate(runs, labels, MEASURES)  # ir_measures on the people's labels of the pool
    merged = state.scores().merge(expected.astype({"qid": str}), on=["name", "qid", "measure"], how="left")
    assert len(merged) == len(expected) and np.allclose(merged["value_x"], merged["value_y"], atol=1e-12)
    assert state.qids == _order(plan)


def test_topics_enter_when_their_sample_is_labelled_in_label_order(collection):
    plan, order = collection["plan"], _order(collection["plan"])
    labels = _labels(plan, collection["truth"], order)
    cut = int(np.flatnonzero(labels["qid"] == order[5])[1])  # topic 6 partly labelled
    state = pb.SequentialEvaluation.from_plan(collection["runs"], plan, labels.iloc[:cut], MEASURES)
    assert state.qids == order[:5] and state.waiting == [order[5]]
    assert state.update_from_plan(collection["runs"], plan, labels.iloc[:cut]) == []
    assert state.update_from_plan(collection["runs"], plan, labels) == order[5:]
    assert state.qids == order and state.waiting == []


def test_scores_equal_the_estimator_in_sequence_order_and_do_not_change(collection):
    """Growing topic by topic gives the scores of one computation in the same order: each topic's
    lam depends only on the topics before it."""
    runs, plan, order = collection["runs"], collection["plan"], _order(collection["plan"], seed=3)
    labels = _labels(plan, collection["truth"], order)
    state = pb.SequentialEvaluation.from_plan(runs, plan, labels[labels["qid"].isin(order[:3])], MEASURES)
    for k in range(4, len(order) + 1, 2):
        state.update_from_plan(runs, plan, labels[labels["qid"].isin(order[:k])])
    whole = pb.SequentialEvaluation.from_plan(runs, plan, labels, MEASURES)
    assert state.qids == whole.qids == order
    pd.testing.assert_frame_equal(state.scores(), whole.scores(), rtol=0, atol=1e-12)
    # by hand: the estimator with the same topic order
    sampled = plan.pool["sampled"].to_numpy(bool)
    human = labels.set_index(["qid", "docno"])["label"].reindex(
        pd.MultiIndex.from_frame(plan.pool.loc[sampled, ["qid", "docno"]])).to_numpy()
    result = PlanEstimator(runs, plan.pool, MEASURES, depth=plan.depth).estimate(
        sampled, human, plan.pool.loc[sampled, "inclusion_probability"].to_numpy(), topic_order=order)
    cube = state.scores().pivot_table(index=["measure", "qid"], columns="name", values="value")
    for m, measure in enumerate(result.measures):
        expected = pd.DataFrame(result.estimates["ppi"][m, 0], index=list(result.qids), columns=list(result.names))
        np.testing.assert_allclose(cube.loc[measure].loc[order, list(result.names)], expected.loc[order], atol=1e-12)


def test_decisions_project_the_labels_still_needed(collection):
    plan = collection["plan"]
    state = pb.SequentialEvaluation.from_plan(collection["runs"], plan,
                                              _labels(plan, collection["truth"], _order(plan)), MEASURES)
    table = state.decisions(0.01)
    per_topic = plan.pool["sampled"].sum() / plan.pool["qid"].nunique()
    assert labels_per_topic(plan) == pytest.approx(per_topic)
    expected = [math.ceil(t * per_topic) if math.isfinite(t) else t for t in table["topics_needed"]]
    assert table["labels_needed"].tolist() == expected
    assert state.settings["plan"]["labels_per_topic"] == pytest.approx(per_topic)


def test_refusals(collection):
    runs, plan, truth = collection["runs"], collection["plan"], collection["truth"]
    order = _order(plan)
    labels = _labels(plan, truth, order)
    with pytest.raises(ValueError, match=r"AP, nDCG, R or Rprec.*\['P@10'\]"):
        check_plan_measures(["nDCG@10", "P@10"])
    with pytest.raises(ValueError, match="completes no topic"):
        pb.SequentialEvaluation.from_plan(runs, plan, labels.iloc[:1], MEASURES)
    with pytest.raises(ValueError, match="did not sample"):
        pb.SequentialEvaluation.from_plan(runs, plan, pd.concat([labels, pd.DataFrame(
            {"qid": [order[0]], "docno": ["NOT-IN-POOL"], "label": [1]})]), MEASURES)
    with pytest.raises(TypeError, match="'plan' must be a JudgingPlan"):
        pb.SequentialEvaluation.from_plan(runs, "plan.txt", labels, MEASURES)
    state = pb.SequentialEvaluation.from_plan(runs, plan, labels[labels["qid"].isin(order[:6])], MEASURES)
    before = state.scores()
    other = pb.judging_plan(runs, collection["auto"], 0.2, depth=30, rng=8)
    with pytest.raises(ValueError, match="not the judging plan"):
        state.update_from_plan(runs, other, labels)
    changed = labels.copy()
    last = changed.index[changed["qid"] == order[5]]  # the last topic in the state: the earlier ones keep their lam
    changed.loc[last, "label"] = 1 - changed.loc[last, "label"].clip(0, 1)
    with pytest.raises(ValueError, match=f"changes the scores of 1 topic.*from '{order[5]}' on"):
        state.update_from_plan(runs, plan, changed)
    first = changed.index[changed["qid"] == order[0]]  # the first: every later topic's lam changes too
    changed.loc[first, "label"] = 1 - changed.loc[first, "label"].clip(0, 1)
    with pytest.raises(ValueError, match=f"changes the scores of 6 topic.*from '{order[0]}' on"):
        state.update_from_plan(runs, plan, changed)
    with pytest.raises(ValueError, match="lacks labels of"):
        state.update_from_plan(runs, plan, labels[~labels["qid"].isin(order[:1])])
    pd.testing.assert_frame_equal(state.scores(), before)
    plain = pb.SequentialEvaluation(before)
    with pytest.raises(ValueError, match="not made from a judging plan"):
        plain.update_from_plan(runs, plan, labels)


def test_save_load_keeps_the_plan(collection, tmp_path):
    runs, plan, order = collection["runs"], collection["plan"], _order(collection["plan"])
    labels = _labels(plan, collection["truth"], order)
    state = pb.SequentialEvaluation.from_plan(runs, plan, labels[labels["qid"].isin(order[:6])], MEASURES)
    loaded = pb.SequentialEvaluation.load(state.save(tmp_path / "state.txt"))
    assert loaded.settings == state.settings
    assert loaded.update_from_plan(runs, plan, labels) == order[6:]
    # a file written before plans were kept (no 'plan' in its header) reads as made without one
    text = (tmp_path / "state.txt").read_text().splitlines(keepends=True)
    header = json.loads(text[1][2:])
    del header["plan"]
    (tmp_path / "old.txt").write_text("".join([text[0], "# " + json.dumps(header) + "\n", *text[2:]]))
    assert pb.SequentialEvaluation.load(tmp_path / "old.txt").settings["plan"] is None


def test_cli_decide_with_a_plan(collection, tmp_path, capsys):
    runs, plan, order = collection["runs"], collection["plan"], _order(collection["plan"])
    write_trec(runs, collection["truth"], tmp_path)
    plan.save(tmp_path / "plan.txt")
    labels = _labels(plan, collection["truth"], order)
    lines = [f"{q} 0 {d} {g}\n" for q, d, g in zip(labels["qid"], labels["docno"], labels["label"], strict=True)]
    half = int(np.flatnonzero(labels["qid"] == order[6])[0])
    (tmp_path / "day1.qrels").write_text("".join(lines[:half]))
    (tmp_path / "day2.qrels").write_text("".join(lines))
    state, common = str(tmp_path / "state.txt"), ["--plan", str(tmp_path / "plan.txt"), str(tmp_path / "runs")]
    assert main(["decide", "--state", state, "--qrels", str(tmp_path / "day1.qrels"), *common, "-m", *MEASURES,
                 "--quiet"]) == 0
    assert pb.SequentialEvaluation.load(state).qids == order[:6]
    assert main(["decide", "--state", state, "--qrels", str(tmp_path / "day2.qrels"), *common, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "12 topics (scores estimated from a judging plan's sample" in out and "more labels" in out
    expected = pb.SequentialEvaluation.from_plan(runs, plan, labels, MEASURES)
    pd.testing.assert_frame_equal(pb.SequentialEvaluation.load(state).scores(), expected.scores(), atol=1e-12)
    assert main(["decide", "--state", state, "--qrels", str(tmp_path / "day2.qrels"), str(tmp_path / "runs"),
                 "--quiet"]) == 1
    assert "made with a judging plan" in capsys.readouterr().err


@pytest.mark.slow
def test_time_uniform_misses_on_dl2020_with_gpt4o():
    """The plan's sequences, built as from_plan builds them, over 150 random orders of DL 2020's
    topics, each with a fresh sample of 10% of the pool labelled by NIST: the share of sequences
    that ever exclude the full-set mean (NIST's labels of every pair) is at most 5% + 2 SE."""
    from pyterrier_boot.judging import designs

    runs, nist = real_collection("dl2020")
    auto = pb.read_qrels(shared_path("llm-judgments", "binary_gpt4o_dl20.txt.gz")).frame
    auto = auto[auto["qid"].isin(set(nist["qid"]))].assign(label=lambda f: f["label"] * 2)
    plan = pb.judging_plan(runs, auto, 0.1, rng=11)
    pool = plan.pool
    estimator = PlanEstimator(runs, pool, ["nDCG@10", "AP(rel=2)"], depth=plan.depth)
    human = nist.set_index(["qid", "docno"])["label"].reindex(
        pd.MultiIndex.from_frame(pool[["qid", "docno"]])).fillna(0).to_numpy(np.int64)
    truth = estimator.estimate(np.ones(len(pool), bool), human, np.ones(len(pool))).estimates["ppi"][:, 0].mean(1)
    pi, stratum = pool["inclusion_probability"].to_numpy(), pool["stratum"].to_numpy()
    take = np.bincount(stratum, weights=pool["sampled"].to_numpy(float)).astype(np.int64)
    rng, qids = np.random.default_rng(12), list(estimator.qids)
    missed = []
    for _ in range(150):
        order = rng.permutation(len(qids))
        s = designs.draw(pi, stratum, "stratified", rng, take)
        values = estimator.estimate(s, human[s], pi[s], topic_order=[qids[i] for i in order]).estimates["ppi"][:, 0]
        for m in range(2):
            x = values[m][order]
            median = int(np.argsort(truth[m])[len(truth[m]) // 2])
            for y, target, bounds in ((x, truth[m], (0, 1)),
                                      (x - x[:, [median]], truth[m] - truth[m][median], (-1, 1))):
                cs = pb.confidence_sequence(y, bounds=bounds)
                missed.append(((cs.ci_low > target + 1e-12) | (cs.ci_high < target - 1e-12)).any(axis=0).mean())
    rate, se = np.mean(missed), np.std(missed, ddof=1) / np.sqrt(len(missed))
    assert rate <= 0.05 + 2 * se, (rate, se)


def test_labels_with_the_plans_probabilities_are_checked_pair_by_pair(collection):
    """A frame keeping plan.sample's inclusion_probability column may hold only some topics' labels."""
    plan, order = collection["plan"], _order(collection["plan"])
    labels = _labels(plan, collection["truth"], order).merge(plan.sample, on=["qid", "docno"])
    day1 = labels[labels["qid"].isin(order[:4])]
    assert pb.SequentialEvaluation.from_plan(collection["runs"], plan, day1, MEASURES).qids == order[:4]
    wrong = day1.assign(inclusion_probability=day1["inclusion_probability"] * 0.5)
    with pytest.raises(ValueError, match="'inclusion_probability' differs from the judging plan's"):
        pb.SequentialEvaluation.from_plan(collection["runs"], plan, wrong, MEASURES)


def test_a_plan_under_ten_percent_of_the_pool_warns_once(collection):
    plan = pb.judging_plan(collection["runs"], collection["auto"], 0.09, depth=30, strategy="uniform", rng=7)
    labels = _labels(plan, collection["truth"], _order(plan))
    with pytest.warns(pb.FitWarning, match=r"gives people 9\.\d% of the pool, under 10%") as caught:
        pb.SequentialEvaluation.from_plan(collection["runs"], plan, labels, MEASURES)
    assert len([w for w in caught if issubclass(w.category, pb.BootWarning)]) == 1


def test_plans_that_cannot_make_a_sequence_and_plain_updates_are_refused(collection):
    runs, truth = collection["runs"], collection["truth"]
    with pytest.warns(pb.InputWarning, match="under one pair per topic"):
        poisson = pb.judging_plan(runs, collection["auto"], 0.01, depth=30, design="poisson", rng=3)
    sampled = set(poisson.pool.loc[poisson.pool["sampled"], "qid"])
    assert sampled != set(poisson.pool["qid"])  # this plan samples no pair of some topic
    with pytest.raises(ValueError, match="'plan' samples no pair of .* design='stratified'"):
        pb.SequentialEvaluation.from_plan(runs, poisson, _labels(poisson, truth, _order(poisson)), MEASURES)
    plan, order = collection["plan"], _order(collection["plan"])
    labels = _labels(plan, truth, order)
    state = pb.SequentialEvaluation.from_plan(runs, plan, labels[labels["qid"].isin(order[:3])], MEASURES)
    with pytest.raises(ValueError, match="made from a judging plan: add topics with update_from_plan"):
        state.update_from_runs(runs, truth)
    with pytest.raises(ValueError, match="made from a judging plan"):
        state.update(state.scores())
    assert state.n_topics == 3


def test_a_negative_grade_is_a_label(collection):
    """TREC qrels may hold negative grades (e.g. -2, junk): they label a pair (as non-relevant)."""
    plan, order = collection["plan"], _order(collection["plan"])
    labels = _labels(plan, collection["truth"], order)
    first = labels.index[labels["qid"] == order[0]]
    negative = labels.copy()
    negative.loc[first[0], "label"] = -2
    state = pb.SequentialEvaluation.from_plan(collection["runs"], plan, negative, MEASURES)
    assert state.qids == order and state.waiting == []
