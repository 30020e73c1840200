"""``pt.boot.Experiment(..., human_qrels=..., judging_plan=plan)`` and ``experiment_result``: the
judging plan passed through to ``ppi_evaluate(..., plan=)``; ``perquery`` against ``pt.Experiment``."""
import numpy as np
import pandas as pd
import pytest

import pyterrier_boot as pb

MEASURES = ["AP", "nDCG@10"]


@pytest.fixture(scope="module")
def planned():
    sim = pb.simulate_collection(n_topics=10, n_systems=3, corpus_size=3000, depth=50, pool_depth=20, rng=5)
    runs = dict(zip("abc", sim.runs.values()))
    auto = pb.simulate_judge(sim.qrels, runs, rng=6)
    plan = pb.judging_plan(runs, auto, 0.3, depth=30, rng=2)
    truth = sim.qrels.set_index(["qid", "docno"])["label"]
    sample = plan.sample
    labels = truth.reindex(pd.MultiIndex.from_frame(sample[["qid", "docno"]])).fillna(0).astype(int).to_numpy()
    human = sample[["qid", "docno"]].assign(label=labels)
    return {"runs": runs, "auto": auto, "plan": plan, "human": human, "topics": sim.topics}


def _ppi(planned, measures=MEASURES, **options):
    return pb.ppi_evaluate(planned["runs"], planned["auto"], planned["human"], measures, plan=planned["plan"],
                           **options)


def test_the_table_is_ppi_evaluate_s_with_the_plan(planned):
    runs = planned["runs"]
    table = pb.Experiment(list(runs.values()), None, planned["auto"], MEASURES, names=list(runs), baseline=0,
                          human_qrels=planned["human"], judging_plan=planned["plan"])
    expected = _ppi(planned).table(baseline="a")
    pd.testing.assert_frame_equal(table, expected)
    averages = pb.Experiment(runs, None, planned["auto"], MEASURES, human_qrels=planned["human"],
                             judging_plan=planned["plan"], dataframe=False)
    assert averages["b"]["AP"] == pytest.approx(expected.loc[1, "AP"], rel=1e-12)


def test_experiment_result_threads_the_estimand_and_the_seed(planned):
    result = pb.experiment_result(planned["runs"], None, planned["auto"], ["AP"], human_qrels=planned["human"],
                                  judging_plan=planned["plan"], estimand="topics", rng=5)
    assert isinstance(result, pb.ppi.sampled.SampledPPIEvaluation) and result.estimand == "topics"
    pd.testing.assert_frame_equal(result.table(), _ppi(planned, ["AP"], estimand="topics", rng=5).table())
    other = _ppi(planned, ["AP"], estimand="topics", rng=6).table()
    assert not np.allclose(result.table()["AP ci_low"], other["AP ci_low"])  # the replicates follow rng


def test_perquery_is_pt_experiment_s_with_the_automatic_qrels(planned):
    import pyterrier as pt

    runs, topics = planned["runs"], planned["topics"]
    ours = pb.Experiment(list(runs.values()), topics, planned["auto"], ["map", "ndcg_cut_10"], names=list(runs),
                         human_qrels=planned["human"], judging_plan=planned["plan"], perquery=True)
    theirs = pt.Experiment(list(runs.values()), topics, planned["auto"], ["map", "ndcg_cut_10"], names=list(runs),
                           perquery=True)
    assert list(ours.columns) == list(theirs.columns)
    merged = ours.merge(theirs, on=["name", "qid", "measure"], suffixes=("", " pt"))
    assert len(merged) == len(theirs) > 0
    np.testing.assert_allclose(merged["value"], merged["value pt"], atol=1e-9)


def test_a_plan_without_human_labels_is_refused(planned):
    for door in (pb.Experiment, pb.experiment_result):
        with pytest.raises(ValueError, match="'judging_plan' says which documents people judged: give it with "
                                             "'human_qrels'"):
            door(planned["runs"], None, planned["auto"], ["AP"], judging_plan=planned["plan"])
    with pytest.raises(TypeError, match="'plan' must be a JudgingPlan"):
        pb.Experiment(planned["runs"], None, planned["auto"], ["AP"], human_qrels=planned["human"],
                      judging_plan="plan.txt")
