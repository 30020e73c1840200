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


def test_the_default_design_falls_back_to_poisson_where_the_strata_do_not_fit(binary):
    """The decision rule: two pairs per stratum within half of the budget keep the stratified design;
    beyond, the default is Poisson (said once, in the plan) and an explicit stratified design merges."""
    runs, _, auto = binary
    strata = designs.strata(pb.judging_plan(runs, auto, 0.2, label_map={1: 2}).pool, 100)
    minimum = int(np.minimum(2, np.bincount(strata)).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("error", pb.BootWarning)  # the fallback is the default working: said in the plan
        fits = pb.judging_plan(runs, auto, 2 * minimum, label_map={1: 2})
        fallback = pb.judging_plan(runs, auto, 2 * minimum - 1, label_map={1: 2})
        merged = pb.judging_plan(runs, auto, 2 * minimum - 1, design="stratified", label_map={1: 2})
    assert designs.strata_fit(strata, 2 * minimum) and not designs.strata_fit(strata, 2 * minimum - 1)
    assert fits.design == "stratified" and len(fits.strata()) == strata.max() + 1
    assert "merged" not in repr(fits) and "poisson" not in repr(fits)
    assert fallback.design == "poisson" and (fallback.pool["stratum"] == -1).all()
    np.testing.assert_allclose(fallback.pool["inclusion_probability"].sum(), 2 * minimum - 1)
    assert repr(fallback).count(f"poisson design: the {strata.max() + 1} strata of topic x automatic label x rank band "
                                f"would take {minimum} pairs, two each, more than half of the budget") == 1
    table = merged.strata()
    assert merged.design == "stratified" and merged.pool["sampled"].sum() == 2 * minimum - 1
    assert (f"stratified design, {len(table)} strata, merged from the {strata.max() + 1} of topic x automatic label x "
            "rank band to give each two pairs") in repr(merged)
    assert (table["n_h"] >= np.minimum(2, table["N_h"])).all() and len(table) < strata.max() + 1
    np.testing.assert_allclose(merged.pool["inclusion_probability"],
                               (table["n_h"] / table["N_h"]).to_numpy()[merged.pool["stratum"]])
    explicit = pb.judging_plan(runs, auto, 2 * minimum - 1, design="poisson", strategy="uniform", label_map={1: 2})
    assert repr(explicit).count("(poisson design)") == 1  # no stratified design to fall back from
    poisson = pb.judging_plan(runs, auto, 20, label_map={1: 2})  # under two per topic: no warning either
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
    plan = pb.judging_plan(fifteen, auto, budget, label_map=label_map)  # no warning: the fallback is said in the plan
    assert plan.design == "poisson" and np.isclose(plan.pool["inclusion_probability"].sum(), budget)
    assert "more than half of the budget" in repr(plan)
    merged = pb.judging_plan(fifteen, auto, budget, label_map=label_map, design="stratified")
    assert merged.pool["sampled"].sum() == budget and "merged from" in repr(merged)
    assert budget == round(0.1 * len(nist)) if collection == "dl2020" else round(0.05 * len(nist))


@pytest.mark.slow
def test_the_default_keeps_the_coverage_where_the_strata_do_not_fit():
    """P@5 (a linear measure) at 5 labels per topic on simulated collections (30 topics, 4 runs; about
    210 strata merged to 37): the default falls back to the Poisson design, whose 95% intervals cover
    at least as the merged strata's, and are narrower. Measured (benchmarks/judging_fallback_coverage.py,
    5 collections x 600 redraws, SE clustered by redraw): Poisson population 97.6% +- 0.2, topics 93.3% +- 0.3,
    widths 0.49 and 0.39; merged strata 93.2% +- 0.3 and 89.5% +- 0.3, widths 0.68 and 0.60. Here 2 collections
    x 300 redraws (SE about 0.5 points)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from judging_fallback_coverage import redraws, simulated, summary

    cells: dict[str, list] = {"default": [], "merged": []}
    for k in range(2):
        runs, qrels, auto, budget, depth, measures = simulated(31 + 10 * k)
        default = pb.judging_plan(runs, auto, budget, depth=depth, rng=33 + k)
        assert default.design == "poisson" and "more than half of the budget" in repr(default)
        merged = pb.judging_plan(runs, auto, budget, depth=depth, design="stratified", rng=33 + k)
        assert len(merged.strata()) < designs.strata(merged.pool, depth).max() + 1
        for label, plan in (("default", default), ("merged", merged)):
            cells[label].append(redraws(plan, runs, qrels, measures, 300, 34 + k))
    ours, theirs = summary(cells["default"]), summary(cells["merged"])
    assert ours["population/P@5"]["coverage"] > 0.95 - 3 * ours["population/P@5"]["se"], ours
    assert ours["topics/P@5"]["coverage"] > 0.95 - 0.03, ours  # within 3 points for the collection's own topics
    for key in ours:
        assert ours[key]["coverage"] > theirs[key]["coverage"], (key, ours, theirs)  # 4 points apart, SE 0.7
        assert ours[key]["width"] < theirs[key]["width"], (key, ours, theirs)
