"""Judging plans as a new user meets them (issue 33, items 4, 5, 6 and 12): a budget asked as 10% is
10%; the automatic labels' scale is settled when the plan is made (a label map the plan keeps);
the pool's pairs without an automatic label are counted; the default design takes small budgets."""
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import real_collection, shared_path

import pyterrier_boot as pb
from pyterrier_boot.cli import main
from pyterrier_boot.judging import designs


@pytest.fixture(scope="module")
def binary():
    """Runs, the people's graded qrels and a 0/1 automatic judge of them."""
    sim = pb.simulate_collection(n_topics=12, n_systems=4, corpus_size=3000, depth=40, pool_depth=20, rng=21)
    graded = pb.simulate_judge(sim.qrels, sim.runs, rng=22)
    return sim.runs, sim.qrels, graded.assign(label=(graded["label"] >= 2).astype(int))


def _people(plan, qrels):
    labels = plan.sample.merge(qrels, on=["qid", "docno"], how="left").fillna({"label": 0})
    return labels.astype({"label": int})[["qid", "docno", "label"]]


# ---------------------------------------------------------------- item 4: 10% is 10%


def test_a_budget_of_a_tenth_is_not_flagged_under_a_tenth():
    sim = pb.simulate_collection(n_topics=20, n_systems=3, corpus_size=3000, depth=30, pool_depth=15, rng=5)
    auto = pb.simulate_judge(sim.qrels, sim.runs, rng=6)
    plan = pb.judging_plan(sim.runs, auto, 0.1, design="poisson", rng=3)
    assert plan.budget == round(0.1 * len(plan.pool)) < 0.1 * len(plan.pool)  # rounded down: the case of the issue
    res = pb.ppi_evaluate(sim.runs, auto, _people(plan, sim.qrels), ["AP", "nDCG@10"], plan=plan)
    table = res.table()
    for measure in ("AP", "nDCG@10"):
        assert not table[f"{measure} flag"].str.contains("under 10%").any(), table[f"{measure} flag"]
    from pyterrier_boot.sequential.planned import warn_small_budget

    with warnings.catch_warnings():
        warnings.simplefilter("error", pb.BootWarning)
        warn_small_budget(plan)  # the sequences' own threshold: 10% as the plan rounds it
    below = pb.judging_plan(sim.runs, auto, plan.budget - 1, design="poisson", rng=3)  # one pair fewer: under
    with pytest.warns(pb.FitWarning, match="under 10%"):
        warn_small_budget(below)


# ---------------------------------------------------------------- item 5: label scales


def test_zero_one_labels_without_a_map_warn_once_and_say_what_to_do(binary):
    runs, _, auto = binary
    with pytest.warns(pb.InputWarning, match=r"automatic labels are 0/1.*label_map=\{1: 2\}.*--label-map 1:2") as caught:
        pb.judging_plan(runs, auto, 0.2)
    assert len([w for w in caught if issubclass(w.category, pb.BootWarning)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", pb.BootWarning)
        pb.judging_plan(runs, auto, 0.2, label_map={1: 1})  # a 0/1 scale said to be the people's too


def test_a_plan_with_a_label_map_keeps_the_qrels_it_was_made_from(binary):
    runs, nist, auto = binary
    plan = pb.judging_plan(runs, auto, 0.2, label_map={1: 2}, rng=1)
    assert plan.label_map == {1: 2} and set(plan.pool["auto_label"]) == {0, 2}
    plan.check(runs, auto)  # the 0/1 qrels as given: not refused
    people = _people(plan, nist)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pb.BootWarning)  # no "no automatic label counts as relevant"
        res = pb.ppi_evaluate(runs, auto, people, ["AP(rel=2)", "P(rel=2)@5"], plan=plan)
    assert (res.table()["AP(rel=2) auto-only"] > 0).all()
    relabelled = auto.assign(label=2 * auto["label"])
    same = pb.judging_plan(runs, relabelled, 0.2, rng=1)  # relabelled by hand before the plan: the same plan
    pd.testing.assert_frame_equal(same.pool, plan.pool)
    with pytest.raises(ValueError, match=r"not the automatic qrels.*give them unchanged and let the plan map them: "
                                         r"plan.map_labels\(\{1: 2\}\)"):
        pb.ppi_evaluate(runs, relabelled, people, ["AP(rel=2)"], plan=plan)


def test_map_labels_after_people_judged_keeps_the_sample(binary, tmp_path):
    runs, nist, auto = binary
    with pytest.warns(pb.InputWarning, match="0/1"):
        plan = pb.judging_plan(runs, auto, 0.2, rng=2)
    people = _people(plan, nist)
    with pytest.warns(pb.InputWarning, match=r"human labels reach 3: no automatic label counts as relevant for "
                                             r"AP\(rel=2\).*label_map=\{1: 2\}.*JudgingPlan.map_labels"):
        pb.ppi_evaluate(runs, auto, people, ["AP(rel=2)"], plan=plan)
    mapped = plan.map_labels({1: 2})
    pd.testing.assert_frame_equal(mapped.sample, plan.sample)
    assert mapped.label_map == {1: 2} and plan.label_map is None  # a new plan; the old one unchanged
    with warnings.catch_warnings():
        warnings.simplefilter("error", pb.BootWarning)
        by_method = pb.ppi_evaluate(runs, auto, people, ["AP(rel=2)"], plan=mapped).table()
        by_argument = pb.ppi_evaluate(runs, auto, people, ["AP(rel=2)"], plan=plan, label_map={1: 2}).table()
        pb.ppi_evaluate(runs, auto, people, ["AP(rel=2)"], plan=mapped, label_map={1: 2})  # the plan's own: fine
    pd.testing.assert_frame_equal(by_method, by_argument)
    with pytest.raises(ValueError, match=r"'label_map' \{1: 3\} differs from the judging plan's own \{1: 2\}"):
        pb.ppi_evaluate(runs, auto, people, ["AP(rel=2)"], plan=mapped, label_map={1: 3})
    mapped.save(tmp_path / "plan.txt")
    loaded = pb.JudgingPlan.load(tmp_path / "plan.txt")
    assert loaded.label_map == {1: 2} and loaded.unlabelled == mapped.unlabelled
    pd.testing.assert_frame_equal(loaded.pool, mapped.pool)
    assert mapped.map_labels({2: 3}).label_map == {1: 3, 2: 3}  # maps compose


def test_a_plan_file_of_version_1_still_loads(binary, tmp_path):
    runs, _, auto = binary
    plan = pb.judging_plan(runs, auto, 0.2, label_map={1: 1})
    plan.save(tmp_path / "plan.txt")
    lines = (tmp_path / "plan.txt").read_text().split("\n", 3)
    header = lines[1].replace('"version": 2', '"version": 1')
    header = header.replace(', "label_map": [[1, 1]]', "").replace(f', "unlabelled": {plan.unlabelled}', "")
    header = header.replace(', "measures": null', "")
    assert "label_map" not in header and "unlabelled" not in header and "measures" not in header
    (tmp_path / "old.txt").write_text("\n".join([lines[0], header, lines[2], lines[3]]))
    old = pb.JudgingPlan.load(tmp_path / "old.txt")
    assert old.label_map is None and old.unlabelled is None
    pd.testing.assert_frame_equal(old.pool, plan.pool)


@pytest.mark.parametrize(("label_map", "error", "message"), [
    ([1, 2], TypeError, "'label_map' must map automatic labels"),
    ({1: 2.5}, TypeError, "integer labels to integer grades"),
    ({"1": 2}, TypeError, "integer labels to integer grades"),
])
def test_bad_label_maps_are_refused(binary, label_map, error, message):
    runs, _, auto = binary
    with pytest.raises(error, match=message):
        pb.judging_plan(runs, auto, 0.2, label_map=label_map)


def test_cli_label_map_on_judge_plan_and_on_ppi(binary, tmp_path, capsys):
    from conftest import write_trec

    runs, nist, auto = binary
    folder = write_trec(runs, auto, tmp_path)
    auto_file = str(folder / "qrels.txt")
    base = ["judge-plan", "--auto-qrels", auto_file, str(folder / "runs"), "--budget", "0.2", "--quiet"]
    assert main([*base, "--label-map", "1:2", "--out", str(tmp_path / "plan")]) == 0
    out = capsys.readouterr().out
    assert "automatic labels read on the people's scale: 1 as 2" in out
    plan = pb.JudgingPlan.load(tmp_path / "plan" / "plan.txt")
    assert plan.label_map == {1: 2}
    _people(plan, nist).assign(iteration=0)[["qid", "iteration", "docno", "label"]].to_csv(
        tmp_path / "people.txt", sep=" ", header=False, index=False)
    ppi = ["ppi", "--auto-qrels", auto_file, "--human-qrels", str(tmp_path / "people.txt"), str(folder / "runs"),
           "-m", "AP", "--rel", "2", "--quiet"]
    assert main([*ppi, "--plan", str(tmp_path / "plan" / "plan.txt")]) == 0
    captured = capsys.readouterr()
    assert "no automatic label counts as relevant" not in captured.err
    assert main([*base, "--label-map", "1-2", "--out", str(tmp_path / "x")]) == 2
    assert "--label-map takes LABEL:GRADE pairs" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "plain")]) == 0  # without a map: the warning, one line
    assert capsys.readouterr().err.count("warning: the automatic labels are 0/1") == 1
    plain = ["--plan", str(tmp_path / "plain" / "plan.txt")]
    pb.JudgingPlan.load(tmp_path / "plain" / "plan.txt")
    _people(pb.JudgingPlan.load(tmp_path / "plain" / "plan.txt"), nist).assign(iteration=0)[
        ["qid", "iteration", "docno", "label"]].to_csv(tmp_path / "people.txt", sep=" ", header=False, index=False)
    assert main([*ppi, *plain]) == 0
    assert "label_map={1: 2}" in capsys.readouterr().err  # the one message, with what to do
    assert main([*ppi, *plain, "--label-map", "1:2"]) == 0  # mapped after the people judged
    assert "no automatic label counts" not in capsys.readouterr().err


# ---------------------------------------------------------------- item 6: pairs without a label


def test_the_pairs_without_an_automatic_label_are_counted_where_the_plan_is_made(binary, tmp_path, capsys):
    from conftest import write_trec

    runs, _, auto = binary
    plan = pb.judging_plan(runs, auto, 0.2, label_map={1: 2})
    labelled = set(zip(auto["qid"], auto["docno"]))
    expected = sum((q, d) not in labelled for q, d in zip(plan.pool["qid"], plan.pool["docno"]))
    assert plan.unlabelled == expected > 0
    assert f"({expected} without an automatic label)" in repr(plan)
    folder = write_trec(runs, auto, tmp_path)
    assert main(["judge-plan", "--auto-qrels", str(folder / "qrels.txt"), str(folder / "runs"), "--budget", "0.2",
                 "--label-map", "1:2", "--quiet", "--out", str(tmp_path / "plan")]) == 0
    share = f"{expected / len(plan.pool):.0%}"
    assert (f"{expected} of the {len(plan.pool)} pool pairs ({share}) have no automatic label (in a run's top "
            "--depth, not in --auto-qrels): they count as automatically non-relevant") in capsys.readouterr().out


# ---------------------------------------------------------------- item 12: small budgets


def test_strata_merge_within_topics_smallest_first():
    pool = pd.DataFrame({"qid": ["a"] * 6 + ["b"] * 3, "docno": list("123456789"),
                         "rank": [1, 2, 15, 40, 0, 5, 1, 2, 50], "auto_label": [1, 0, 0, 0, 0, 1, 0, 0, 0]})
    targets = np.array([0.5, 0.4, 0.1, 0.05, 0.02, 0.3, 0.5, 0.3, 0.1])
    np.testing.assert_array_equal(designs.strata(pool, 100), [4, 0, 1, 2, 3, 4, 5, 5, 6])  # qid x label x band
    np.testing.assert_array_equal(designs.merge_strata(pool, 100, targets, 18), designs.strata(pool, 100))  # half free
    merged = designs.merge_strata(pool, 100, targets, 14)  # 9 needed (1 in a stratum of one pair): at most 7
    assert merged is not None and np.minimum(2, np.bincount(merged)).sum() <= 7  # half of the budget
    topic_of = {code: set(pool["qid"][merged == code]) for code in np.unique(merged)}
    assert all(len(qids) == 1 for qids in topic_of.values())  # never across topics
    # the smallest first: topic a's unranked pair joins its label's next band, then both the band above;
    # then topic b's deep pair its label's top band
    assert merged[2] == merged[3] == merged[4] != merged[1] and merged[6] == merged[7] == merged[8]
    np.testing.assert_array_equal(designs.merge_strata(pool, 100, targets, 5), [0] * 6 + [1] * 3)  # one per topic
    assert designs.merge_strata(pool, 100, targets, 3) is None  # under two per topic
    assert designs.topic_minimum(pool) == 4


def test_the_default_design_merges_strata_or_falls_back_to_poisson(binary):
    runs, _, auto = binary
    strata = designs.strata(pb.judging_plan(runs, auto, 0.2, label_map={1: 2}).pool, 100)
    small = int(strata.max())  # fewer than two per stratum, more than two per topic
    with warnings.catch_warnings():
        warnings.simplefilter("error", pb.BootWarning)  # merging is the design working: said in the plan
        plan = pb.judging_plan(runs, auto, small, label_map={1: 2})
    assert plan.design == "stratified" and plan.pool["sampled"].sum() == small
    table = plan.strata()
    assert (f"stratified design, {len(table)} strata, merged from the {strata.max() + 1} of topic x automatic label x "
            "rank band to give each two pairs") in repr(plan)
    assert (table["n_h"] >= np.minimum(2, table["N_h"])).all() and len(table) < strata.max() + 1
    np.testing.assert_allclose(plan.pool["inclusion_probability"],
                               (table["n_h"] / table["N_h"]).to_numpy()[plan.pool["stratum"]])
    with pytest.warns(pb.InputWarning, match=r"needs two pairs in each topic, 24 pairs, more than the budget of 20: "
                                             r"the Poisson design is used instead"):
        poisson = pb.judging_plan(runs, auto, 20, label_map={1: 2})
    assert poisson.design == "poisson" and np.isclose(poisson.pool["inclusion_probability"].sum(), 20)
    with pytest.raises(ValueError, match=r"'budget' 20 is below what design='stratified' needs: 24 pairs"):
        pb.judging_plan(runs, auto, 20, design="stratified", label_map={1: 2})


@pytest.mark.integration
@pytest.mark.parametrize(("collection", "judge", "budget"), [("dl2020", None, 1139), ("dl2019", "gpt4o", 463)])
def test_ordinary_budgets_of_the_issue_are_taken(collection, judge, budget):
    runs, nist = real_collection(collection)
    fifteen = {name: runs[name] for name in sorted(runs)[:15]}
    if judge is None:  # a graded judge
        auto, label_map = pb.simulate_judge(nist, runs, rng=1), None
    else:
        auto = pb.read_qrels(shared_path("llm-judgments", "binary_gpt4o_dl19.txt.gz")).frame
        label_map = {1: 2}
    plan = pb.judging_plan(fifteen, auto, budget, label_map=label_map)
    assert plan.design == "stratified" and plan.pool["sampled"].sum() == budget and "merged from" in repr(plan)
    assert budget == round(0.1 * len(nist)) if collection == "dl2020" else round(0.05 * len(nist))


def _coverage(plan, sim, draws, seed):
    """Coverage of P@5's 95% PPI intervals (both estimands) over ``draws`` redraws of ``plan``'s sample."""
    from pyterrier_boot.ppi.sampled import PlanEstimator

    pool = plan.pool
    human = pool[["qid", "docno"]].merge(sim.qrels, how="left").fillna({"label": 0})["label"].to_numpy(np.int64)
    truth = pb.evaluate(sim.runs, sim.qrels, ["P@5"]).groupby("name")["value"].mean().reindex(list(sim.runs))
    estimator = PlanEstimator(pb.read_runs(sim.runs), pool, ["P@5"], depth=plan.depth)
    pi, stratum = pool["inclusion_probability"].to_numpy(), pool["stratum"].to_numpy()
    take = np.bincount(stratum, weights=pool["sampled"]).astype(np.int64) if plan.design == "stratified" else None
    rng = np.random.default_rng(seed)
    hits = {"population": [], "topics": []}
    for _ in range(draws):
        s = designs.draw(pi, stratum, plan.design, rng, take)
        for estimand in hits:
            res = estimator.estimate(s, human[s], pi[s], stratum=stratum[s] if take is not None else None,
                                     estimand=estimand, n_replicates=100, rng=rng)
            ci = res.intervals("P@5")["ppi"].confidence_interval
            hits[estimand].append(((ci.low <= truth.to_numpy()) & (truth.to_numpy() <= ci.high)).mean())
    return {estimand: np.mean(covered) for estimand, covered in hits.items()}


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="merged strata (half of the budget free) cover less than the Poisson design "
                   "at 5 labels per topic: measured population 92.3% (Poisson 96.5%), topics 89.1% (Poisson 92.9%)")
def test_merged_strata_keep_the_coverage():
    """P@5 (a linear measure) from plans of 5 labels per topic whose strata had to be merged, against
    the Poisson design of the same budget, 300 redraws each: the population intervals cover 95%; the
    topics intervals cover as the Poisson design's do."""
    sim = pb.simulate_collection(n_topics=30, n_systems=4, corpus_size=4000, depth=50, pool_depth=20, rng=31)
    auto = pb.simulate_judge(sim.qrels, sim.runs, rng=32)
    merged = pb.judging_plan(sim.runs, auto, 150, depth=50, rng=33)  # 5 per topic: the strata are merged
    assert merged.design == "stratified" and len(merged.strata()) < designs.strata(merged.pool, 50).max() + 1
    poisson = pb.judging_plan(sim.runs, auto, 150, depth=50, design="poisson", rng=33)
    ours, theirs = _coverage(merged, sim, 300, 34), _coverage(poisson, sim, 300, 34)
    assert abs(ours["population"] - 0.95) < 0.03, ours
    assert ours["topics"] > theirs["topics"] - 0.03, (ours, theirs)  # binomial SE about 1.5 points each
