"""The flag columns of prediction-powered tables: "mostly 0" (topic-level and plan-based) and
"few labels in top ranks" (plan-based), computed from their definitions by hand."""
import numpy as np
import pandas as pd
import pytest

import pyterrier_boot as pb
from pyterrier_boot.ppi.coverage import coverage_flag
from pyterrier_boot.ppi.sampled import FEW_LABELS_IN_TOP
from pyterrier_boot.ppi.tables import MOSTLY_ZERO, column_flags


@pytest.fixture(scope="module")
def collection():
    sim = pb.simulate_collection(n_topics=20, n_systems=3, corpus_size=3000, depth=30, pool_depth=15, rng=5)
    runs = dict(sim.runs)
    # a run that retrieves nothing relevant on most topics: keep its results on 6 of the 20 topics only,
    # and replace the others by documents nobody judged
    first = next(iter(runs))
    weak = runs[first].copy()
    keep = set(sorted(weak["qid"].unique())[:6])
    weak.loc[~weak["qid"].isin(keep), "docno"] = "nowhere-" + weak.loc[~weak["qid"].isin(keep), "docno"]
    runs["weak"] = weak
    auto = pb.simulate_judge(sim.qrels, runs, rng=6)
    return sim, runs, auto


def test_column_flags_name_every_reason_of_any_involved_run():
    weights = np.array([[1.0, 1.0, 0.0], [0.0, -1.0, 1.0], [0.0, 0.0, -1.0]])
    reasons = {"a": np.array([True, False, False]), "b": np.array([False, False, True])}
    assert column_flags(weights, reasons) == ["a", "a", "b"]
    assert column_flags(weights, {"a": np.zeros(3, bool)}) == ["", "", ""]


def _people(plan, qrels):
    labels = plan.sample.merge(qrels, on=["qid", "docno"], how="left").fillna({"label": 0})
    return labels.astype({"label": int})[["qid", "docno", "label"]]


def test_plan_flags_follow_their_definitions(collection):
    sim, runs, auto = collection
    plan = pb.judging_plan(runs, auto, 0.2, rng=3)
    res = pb.ppi_evaluate(runs, auto, _people(plan, sim.qrels), ["P@5", "AP"], plan=plan)
    table = res.table(baseline="weak")
    for m, label in enumerate(res.measures):
        zero_share = (res.estimates["auto-only"][m, 0] == 0).mean(0)
        in_top = res.sampled_in_top[m].sum(0)
        for s, name in enumerate(res.names):
            expected = [r for r, hit in (("mostly 0", zero_share[s] > MOSTLY_ZERO),
                                         ("few labels in top ranks", in_top[s] < FEW_LABELS_IN_TOP * 20)) if hit]
            measured = coverage_flag(res.kernel_measures[m], label, res.planned[m], res.labels_per_topic,
                                     res.estimand, "mean")  # what the coverage table says (test_ppi_coverage)
            assert table.loc[s, f"{label} flag"] == ", ".join(filter(None, [*expected, measured]))
            if name != "weak":  # a difference with the weak baseline carries its run flags too
                weak_flag = table.loc[res.names.index("weak"), f"{label} flag"]
                own = {"mostly 0", "few labels in top ranks"} & set(weak_flag.split(", "))
                assert own <= set(table.loc[s, f"{label} diff flag"].split(", "))
    assert "mostly 0" in table.loc[res.names.index("weak"), "P@5 flag"]
    assert table.loc[res.names.index("weak"), "P@5 diff flag"] == ""  # the baseline's own row


def test_sampled_in_top_counts_the_sampled_pairs_a_run_ranks_within_the_cutoff(collection):
    sim, runs, auto = collection
    plan = pb.judging_plan(runs, auto, 0.2, rng=3)
    res = pb.ppi_evaluate(runs, auto, _people(plan, sim.qrels), ["P@5"], plan=plan)
    sampled = set(map(tuple, plan.sample[["qid", "docno"]].to_numpy()))
    for s, name in enumerate(res.names):
        run = runs[name].sort_values(["qid", "score", "docno"], ascending=[True, False, False])
        top = run.groupby("qid", sort=False).head(5)
        counts = top.apply(lambda row: (row["qid"], row["docno"]) in sampled, axis=1).groupby(top["qid"]).sum()
        expected = counts.reindex(list(res.qids), fill_value=0).to_numpy()
        np.testing.assert_array_equal(res.sampled_in_top[0, :, s], expected)


def test_a_tiny_budget_flags_few_labels(collection):
    sim, runs, auto = collection
    with pytest.warns(pb.InputWarning, match=r"'budget' 12 is under one pair per topic \(20 topics\)"):
        plan = pb.judging_plan(runs, auto, 12, strategy="uniform", rng=4)
    res = pb.ppi_evaluate(runs, auto, _people(plan, sim.qrels), ["P@5"], plan=plan)
    assert all("few labels in top ranks" in flag for flag in res.table()["P@5 flag"])


def test_topic_level_ppi_flags_mostly_zero(collection):
    sim, runs, auto = collection
    human = sim.qrels[sim.qrels["qid"].isin(sorted(sim.qrels["qid"].unique())[:8])]
    with pytest.warns(pb.FitWarning, match="human-judged topic"):
        res = pb.ppi_evaluate(runs, auto, human, ["P@5"])
    flags = res.table()["P@5 flag"]
    scores = pb.evaluate(runs, auto, ["P@5"]).pivot_table(index="qid", columns="name", values="value")
    for s, name in enumerate(res.names):
        zero_share = (scores.reindex(columns=[name]).fillna(0.0).to_numpy() == 0).mean()
        assert flags[s] == ("mostly 0" if zero_share > MOSTLY_ZERO else "")
    assert isinstance(res.pairwise(), pd.DataFrame) and "flag" in res.pairwise().columns


def test_measured_coverage_flags_read_the_table(collection, monkeypatch):
    """Issue 36 item 3: the flag says what was measured for the measure at this many labels per topic,
    estimand and column (a fake table here; the real one is tested in test_ppi_coverage.py)."""
    import pyterrier_boot.ppi.coverage as coverage

    monkeypatch.setattr(coverage, "TABLE", (
        ("AP", False, "population", "mean", 10, 91.0, 0.5, 500, "DL 2020 Llama 3.2"),
        ("AP", False, "population", "difference", 10, 95.0, 0.4, 500, "DL 2019 GPT-4o"),
        ("AP", False, "topics", "mean", 10, 97.0, 0.5, 500, "DL 2019 GPT-4o"),
        ("AP", False, "topics", "difference", 10, 80.0, 1.0, 500, "DL 2020 simulated"),
        ("P@10", False, "population", "mean", 10, 94.0, 0.5, 500, "DL 2020 GPT-4o"),
    ))
    sim, runs, auto = collection
    plan = pb.judging_plan(runs, auto, 0.3, design="poisson", rng=3)  # about 20 labels per topic
    people = _people(plan, sim.qrels)
    res = pb.ppi_evaluate(runs, auto, people, ["P@5", "AP"], plan=plan)
    assert res.labels_per_topic >= 10 and res.planned == (False, False)
    table = res.table(baseline="S1")
    ap = table["AP flag"].str.contains("measured 91.0% at 10 labels per topic (population estimand; a plan not "
                                       "made for it; lowest in DL 2020 Llama 3.2)", regex=False)
    assert ap.all()
    assert not table["AP diff flag"].str.contains("measured").any()  # 95.0% held
    assert not table["P@5 flag"].str.contains("measured").any()  # P@10's row held
    topics = pb.ppi_evaluate(runs, auto, people, ["AP"], plan=plan, estimand="topics", n_replicates=40)
    pairs = topics.pairwise()["flag"]
    assert pairs.str.contains("measured 80.0% at 10 labels per topic (topics estimand", regex=False).all()
    assert not topics.table()["AP flag"].str.contains("measured").any()  # 97.0% held
    monkeypatch.setattr(coverage, "TABLE", tuple((*row[:4], 50, *row[5:]) for row in coverage.TABLE))
    below = pb.ppi_evaluate(runs, auto, people, ["AP"], plan=plan).table()["AP flag"]
    assert below.str.contains("not measured below 50 labels per topic").all()
