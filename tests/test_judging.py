"""Judging plans (issue 26 item 2): the pool, inclusion probabilities, the draws, storage, the CLI."""
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

import pyterrier_boot as pb
from pyterrier_boot.cli import main
from pyterrier_boot.judging import designs
from pyterrier_boot.judging.pool import build_pool, read_auto_qrels

COMBINATIONS = [("uniform", "poisson"), ("uniform", "stratified"), ("stratified", "stratified"),
                ("stratified", "poisson"), ("active", "poisson"), ("active", "stratified")]


@pytest.fixture(scope="module")
def collection():
    sim = pb.simulate_collection(n_topics=6, n_systems=5, depth=60, pool_depth=20, rng=11)
    auto = pb.simulate_judge(sim.qrels, sim.runs, rng=12)
    probability = np.random.default_rng(13).beta(0.5, 0.5, len(auto))
    return sim.runs, auto.assign(probability=probability)


def _plan(collection, budget=0.2, **options):
    runs, auto = collection
    return pb.judging_plan(runs, auto, budget, depth=30, **options)


@pytest.mark.parametrize(("strategy", "design"), COMBINATIONS)
def test_probabilities_sum_to_the_budget_and_are_positive(collection, strategy, design):
    plan = _plan(collection, strategy=strategy, design=design)
    pi = plan.pool["inclusion_probability"].to_numpy()
    assert np.isclose(pi.sum(), plan.budget, rtol=0, atol=1e-9)
    assert (pi > 0).all() and (pi <= 1).all()
    if strategy != "uniform" and design == "poisson":  # the floor of the uniform mix
        assert pi.min() >= 0.2 * plan.budget / len(pi) * (1 - 1e-9)
    if design == "stratified":
        assert plan.pool["sampled"].sum() == plan.budget
        strata = plan.strata()
        assert (strata["n_h"] >= np.minimum(2, strata["N_h"])).all()
        assert np.allclose(plan.pool["inclusion_probability"],
                           (strata["n_h"] / strata["N_h"]).to_numpy()[plan.pool["stratum"]])


def _reference_pool(runs, auto, depth):
    """The pool by plain pandas: each run sorted as trec_eval (score down, docno down), cut at depth."""
    rows = []
    topics = set(auto["qid"])
    for run in runs.values():
        run = run[run["qid"].isin(topics)]
        for _, frame in run.groupby("qid"):
            top = frame.sort_values(["score", "docno"], ascending=False).head(depth)
            d = len(top)
            for r, (qid, docno) in enumerate(zip(top["qid"], top["docno"]), 1):
                prior = (1 + sum(1 / k for k in range(r, d + 1))) / (2 * d)
                rows.append((qid, docno, r, prior, run["qid"].eq(qid).any()))
    ranked = pd.DataFrame(rows, columns=["qid", "docno", "rank", "prior", "answers"])
    answering = {q: sum(run["qid"].eq(q).any() for run in runs.values()) for q in topics}
    ranked["prior"] /= ranked["qid"].map(answering)
    best = ranked.groupby(["qid", "docno"]).agg(rank=("rank", "min"), prior=("prior", "sum")).reset_index()
    pairs = pd.concat([best[["qid", "docno"]], auto[["qid", "docno"]]]).drop_duplicates()
    return pairs.merge(best, how="left").fillna({"rank": 0, "prior": 0.0}).sort_values(["qid", "docno"])


def test_pool_matches_a_plain_pandas_reference(collection):
    runs, auto = collection
    auto = auto[auto["qid"] != auto["qid"].iloc[0]]  # a topic of the runs not in the qrels is left out
    pool = build_pool(pb.read_runs(runs), read_auto_qrels(auto), 25)
    reference = _reference_pool(runs, auto, 25).reset_index(drop=True)
    assert list(pool["qid"]) == list(reference["qid"]) and list(pool["docno"]) == list(reference["docno"])
    np.testing.assert_array_equal(pool["rank"], reference["rank"].astype(int))
    np.testing.assert_allclose(pool["prior"], reference["prior"], rtol=1e-12)
    for qid, prior in pool.groupby("qid")["prior"].sum().items():
        assert prior == pytest.approx(1.0), qid  # each run's AP prior is a distribution over its top depth


def test_ties_in_score_go_by_docno_as_trec_eval():
    run = pd.DataFrame({"qid": "1", "docno": ["a", "c", "b", "d"], "score": [1.0, 1.0, 1.0, 0.5]})
    auto = pd.DataFrame({"qid": ["1"], "docno": ["z"], "label": [1]})
    pool = build_pool(pb.read_runs({"r": run}), read_auto_qrels(auto), 2).set_index("docno")
    assert pool["rank"].to_dict() == {"b": 2, "c": 1, "z": 0}  # docno descending among equal scores
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator({"1": {"c": 1, "b": 1}}, {"P_2"})
    assert evaluator.evaluate({"1": dict(zip(run["docno"], run["score"]))})["1"]["P_2"] == 1.0  # trec_eval's top 2


def test_scores_equal_in_single_precision_tie_as_in_trec_eval():
    run = pd.DataFrame({"qid": "1", "docno": ["a", "c", "d"], "score": [1.0 + 1e-12, 1.0, 0.5]})
    auto = pd.DataFrame({"qid": ["1"], "docno": ["z"], "label": [1]})
    pool = build_pool(pb.read_runs({"r": run}), read_auto_qrels(auto), 1).set_index("docno")
    assert pool["rank"].to_dict() == {"c": 1, "z": 0}  # 'a' was ranked first by its float64 score
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator({"1": {"c": 1, "z": 0}}, {"P_1"})
    assert evaluator.evaluate({"1": dict(zip(run["docno"], run["score"]))})["1"]["P_1"] == 1.0  # trec_eval's top 1


def test_cap_at_one_redistributes_the_excess():
    weights = np.array([10.0, 1, 1, 1, 1, 1])
    pi = designs.cap_at_one(weights / weights.sum(), 3.0)
    np.testing.assert_allclose(pi, [1.0, 0.4, 0.4, 0.4, 0.4, 0.4])


@pytest.mark.parametrize(("strategy", "design"), [("uniform", "poisson"), ("stratified", "poisson")])
def test_a_budget_of_the_whole_pool_gives_every_pair(collection, strategy, design):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0/0 in cap_at_one warned once every pair was capped
        plan = _plan(collection, 1.0, strategy=strategy, design=design)
        np.testing.assert_array_equal(designs.cap_at_one(np.array([0.25, 0.25, 0.5]), 3.0), 1.0)
    # exactly 1, not 1 less rounding (whose replicate factors 1 +- 1e-8 would move nDCG's bias correction)
    np.testing.assert_array_equal(plan.pool["inclusion_probability"], 1.0)
    np.testing.assert_array_equal(designs.cap_at_one(np.full(19440, 1 / 19440), 19440.0), 1.0)
    assert plan.pool["sampled"].all()


def test_strategies_put_probability_where_they_say(collection):
    stratified = _plan(collection, strategy="stratified", design="poisson").pool
    top, deep = stratified["rank"].between(1, 5), stratified["rank"] > 20
    assert stratified.loc[top, "inclusion_probability"].mean() > 2 * stratified.loc[deep, "inclusion_probability"].mean()
    active = _plan(collection, strategy="active").pool
    p = read_auto_qrels(collection[1]).set_index(["qid", "docno"])["probability"]
    joined = active.join(p, on=["qid", "docno"])
    first = joined["rank"].between(1, 10)
    unsure = first & (joined["probability"] - 0.5).abs().lt(0.2)
    sure = first & (joined["probability"] - 0.5).abs().gt(0.45)
    assert joined.loc[unsure, "inclusion_probability"].mean() > 1.5 * joined.loc[sure, "inclusion_probability"].mean()
    uniform = _plan(collection, strategy="uniform").pool["inclusion_probability"]
    assert uniform.nunique() == 1


def _frequencies(plan, draws, seed):
    pool = plan.pool
    pi = pool["inclusion_probability"].to_numpy()
    stratum = pool["stratum"].to_numpy()
    take = None if plan.design == "poisson" else np.bincount(stratum, weights=pool["sampled"]).astype(np.int64)
    rng = np.random.default_rng(seed)
    counts = sum(designs.draw(pi, stratum, plan.design, rng, take).astype(int) for _ in range(draws))
    inside = pi < 1
    z = (counts - draws * pi)[inside] / np.sqrt(draws * pi * (1 - pi))[inside]
    assert (counts[~inside] == draws).all()
    return z


@pytest.mark.parametrize(("strategy", "design"), [("stratified", "stratified"), ("active", "poisson")])
def test_inclusion_frequencies_match_the_probabilities(collection, strategy, design):
    plan = _plan(collection, strategy=strategy, design=design)
    z = _frequencies(plan, 400, 1)
    assert np.abs(z).max() < 5.5
    assert 0.8 < np.mean(z ** 2) < 1.2  # per-pair binomial: z^2 averages 1


@pytest.mark.slow
@pytest.mark.parametrize(("strategy", "design"), COMBINATIONS)
def test_inclusion_frequencies_match_the_probabilities_many_draws(collection, strategy, design):
    plan = _plan(collection, strategy=strategy, design=design)
    z = _frequencies(plan, 20_000, 2)
    assert np.abs(z).max() < 5.5
    # Poisson draws are independent; the counts of one stratum add up to 20,000 n_h, so their z^2
    # are correlated and their mean varies more (0.90-1.15 over seeds here)
    tolerance = 0.1 if design == "poisson" else 0.25
    assert abs(np.mean(z ** 2) - 1) < tolerance
    runs, auto = collection  # the plan's own draw, not only designs.draw, has these frequencies
    rng = np.random.default_rng(3)
    counts = sum(pb.judging_plan(runs, auto, 0.2, depth=30, strategy=strategy, design=design,
                                 rng=rng).pool["sampled"].astype(int) for _ in range(300))
    pi = plan.pool["inclusion_probability"].to_numpy()
    inside = pi < 1
    z = (counts - 300 * pi)[inside] / np.sqrt(300 * pi * (1 - pi))[inside]
    assert np.abs(z).max() < 6 and 0.75 < np.mean(z ** 2) < 1.25


def test_strata_need_the_stratified_design_and_a_huge_depth_is_cheap(collection):
    with pytest.raises(ValueError, match="design='stratified'"):
        _plan(collection, strategy="uniform").strata()
    runs, auto = collection
    plan = pb.judging_plan(runs, auto, 0.2, depth=10 ** 12, design="poisson")  # no array of depth's size
    assert plan.pool["rank"].max() == max(len(run[run["qid"] == q]) for run in runs.values() for q in run["qid"])


def test_the_sample_is_reproducible(collection):
    a, b = _plan(collection), _plan(collection, rng=42)
    pd.testing.assert_frame_equal(a.sample, b.sample)
    assert a.seed == 42
    c = _plan(collection, rng=7)
    assert not a.sample[["qid", "docno"]].equals(c.sample[["qid", "docno"]])
    assert list(a.sample.columns) == ["qid", "docno", "inclusion_probability"]


@pytest.mark.parametrize(("strategy", "design"), [("stratified", "stratified"), ("active", "poisson")])
def test_save_and_load_round_trip(collection, tmp_path, strategy, design):
    plan = _plan(collection, strategy=strategy, design=design)
    plan.save(tmp_path / "plan.txt")
    loaded = pb.JudgingPlan.load(tmp_path / "plan.txt")
    pd.testing.assert_frame_equal(loaded.pool, plan.pool)
    for key in ("strategy", "design", "budget", "depth", "uniform_share", "runs", "auto_fingerprint",
                "pool_fingerprint", "seed"):
        assert getattr(loaded, key) == getattr(plan, key), key
    loaded.check(*collection)


def _tampered(tmp_path, plan, change):
    plan.save(tmp_path / "plan.txt")
    lines = (tmp_path / "plan.txt").read_text().split("\n")
    change(lines)
    (tmp_path / "plan.txt").write_text("\n".join(lines))
    return tmp_path / "plan.txt"


def test_load_refuses_a_changed_file(collection, tmp_path):
    plan = _plan(collection)

    def probability(lines):
        fields = lines[3].split()
        fields[5] = "0.5"
        lines[3] = " ".join(fields)

    with pytest.raises(ValueError, match="do not match the checksum"):
        pb.JudgingPlan.load(_tampered(tmp_path, plan, probability))
    with pytest.raises(ValueError, match="not a judging plan"):
        pb.JudgingPlan.load(_tampered(tmp_path, plan, lambda lines: lines.pop(0)))
    with pytest.raises(ValueError, match="not valid JSON"):
        pb.JudgingPlan.load(_tampered(tmp_path, plan, lambda lines: lines.__setitem__(1, "# {")))


def test_load_refuses_probabilities_off_the_budget(collection, tmp_path):
    plan = _plan(collection, strategy="active")
    changed = plan.pool.assign(inclusion_probability=plan.pool["inclusion_probability"] * 0.9)
    pb.JudgingPlan(changed, *[getattr(plan, k) for k in ("strategy", "design", "budget", "depth", "uniform_share",
                                                          "runs", "auto_fingerprint", "pool_fingerprint")]
                   ).save(tmp_path / "p.txt")
    with pytest.raises(ValueError, match="add up to"):
        pb.JudgingPlan.load(tmp_path / "p.txt")


def test_check_refuses_other_qrels_and_other_runs(collection):
    runs, auto = collection
    plan = _plan(collection)
    plan.check(runs, auto)
    plan.check({name: runs[name] for name in list(runs)[:2]}, auto)  # a subset of the runs
    flipped = auto.assign(label=np.where(np.arange(len(auto)) == 0, 1 - auto["label"].clip(0, 1), auto["label"]))
    with pytest.raises(ValueError, match="'auto_qrels' are not the automatic qrels"):
        plan.check(runs, flipped)
    name = next(iter(runs))
    other = runs[name].assign(docno=runs[name]["docno"] + "x")
    with pytest.raises(ValueError, match="'runs' are not the runs this judging plan was made for"):
        plan.check({**runs, name: other}, auto)


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"budget": 10 ** 6}, ValueError, "larger than the pool"),
    ({"budget": 0}, ValueError, "at least 1 pair"),
    ({"budget": 1.5}, ValueError, "fraction of the pool"),
    ({"budget": True}, TypeError, "'budget'"),
    ({"budget": 8, "design": "stratified"}, ValueError, "below what design='stratified' needs"),
    ({"strategy": "greedy"}, ValueError, "strategy"),
    ({"design": "cluster"}, ValueError, "design"),
    ({"depth": 0}, ValueError, "'depth'"),
    ({"uniform_share": 0}, ValueError, "'uniform_share'"),
])
def test_bad_options_are_refused(collection, options, error, message):
    runs, auto = collection
    options = {"budget": 0.2, "depth": 30, **options}
    with pytest.raises(error, match=message):
        pb.judging_plan(runs, auto, options.pop("budget"), **options)


def test_active_needs_probabilities_in_the_unit_interval(collection):
    runs, auto = collection
    with pytest.raises(ValueError, match="needs the judge's probability"):
        pb.judging_plan(runs, auto.drop(columns="probability"), 0.2, strategy="active")
    with pytest.raises(ValueError, match=r"probability of relevance, a number in \[0, 1\]"):
        pb.judging_plan(runs, auto.assign(probability=auto["probability"] * 3), 0.2, strategy="active")


def test_runs_sharing_no_topic_with_the_qrels_are_refused(collection):
    runs, auto = collection
    with pytest.raises(ValueError, match="no topic in the qrels"):
        pb.judging_plan(runs, auto.assign(qid="x" + auto["qid"]), 0.2)


def test_white_space_in_ids_cannot_be_saved(tmp_path):
    run = pd.DataFrame({"qid": "topic one", "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    auto = pd.DataFrame({"qid": ["topic one"], "docno": ["a"], "label": [1]})
    plan = pb.judging_plan(run, auto, 2, design="poisson", label_map={1: 1})
    with pytest.raises(ValueError, match="white space"):
        plan.save(tmp_path / "plan.txt")


def test_public_api():
    assert {"judging_plan", "JudgingPlan"} <= set(pb.__all__)
    assert pb.judging_plan is pb.judging.judging_plan


# ---------------------------------------------------------------- command line


@pytest.fixture
def files(collection, tmp_path):
    runs, auto = collection
    auto.assign(iteration=0)[["qid", "iteration", "docno", "label"]].to_csv(
        tmp_path / "auto.txt", sep=" ", header=False, index=False)
    auto.assign(iteration=0)[["qid", "iteration", "docno", "probability"]].to_csv(
        tmp_path / "auto.prob", sep=" ", header=False, index=False)
    (tmp_path / "runs").mkdir()
    for name, run in runs.items():
        ranked = run.assign(Q0="Q0", rank=run.groupby("qid").cumcount() + 1, tag=name)
        ranked[["qid", "Q0", "docno", "rank", "score", "tag"]].to_csv(
            tmp_path / "runs" / f"{name}.run", sep=" ", header=False, index=False)
    return tmp_path


def test_cli_writes_the_plan_and_the_assessors_file(files, collection, capsys):
    code = main(["judge-plan", "--auto-qrels", str(files / "auto.txt"), str(files / "runs"), "--budget", "0.2",
                 "--depth", "30", "--out", str(files / "out"), "--rng", "5", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "pairs to judge" in out
    plan = pb.JudgingPlan.load(files / "out" / "plan.txt")
    python = _plan((collection[0], collection[1].drop(columns="probability")), rng=5)
    pd.testing.assert_frame_equal(plan.sample, python.sample)
    lines = (files / "out" / "to_judge.txt").read_text().splitlines()
    assert lines == [f"{q} 0 {d}" for q, d in zip(plan.sample["qid"], plan.sample["docno"])]
    code = main(["judge-plan", "--auto-qrels", str(files / "auto.txt"), str(files / "runs"), "--budget", "40",
                 "--out", str(files / "out"), "--quiet"])
    assert code == 1 and "exists and is not empty" in capsys.readouterr().err


def test_cli_active_reads_the_probabilities(files, capsys):
    argv = ["judge-plan", "--auto-qrels", str(files / "auto.txt"), str(files / "runs"), "--budget", "40",
            "--strategy", "active", "--out", str(files / "out"), "--quiet"]
    assert main(argv) == 2 and "--probabilities" in capsys.readouterr().err
    assert main([*argv, "--probabilities", str(files / "auto.prob")]) == 0
    assert pb.JudgingPlan.load(files / "out" / "plan.txt").strategy == "active"
    (files / "bad.prob").write_text("1 0 nowhere 0.5\n")
    assert main([*argv, "--probabilities", str(files / "bad.prob"), "--overwrite"]) == 1
    assert "not in --auto-qrels" in capsys.readouterr().err
    (files / "short.prob").write_text("".join((files / "auto.prob").read_text().splitlines(True)[1:]))
    assert main([*argv, "--probabilities", str(files / "short.prob"), "--overwrite"]) == 1
    assert "lacks the probability of 1 pairs of --auto-qrels" in capsys.readouterr().err
    assert main([*argv[:-5], "--budget", "lots", "--out", str(files / "x")]) == 2
    assert main([*argv[:-5], "--depth", "0", "--out", str(files / "x")]) == 2
    assert main([*argv[:-5], "--uniform-share", "0", "--out", str(files / "x")]) == 2
    assert main([*argv[:4], "--budget", "10", "--design", "stratified", "--out", str(files / "x"), "--quiet"]) == 1
    assert "--budget 10 is below what design='stratified' needs" in capsys.readouterr().err


def test_cli_help_is_documented(capsys):
    assert main(["judge-plan", "--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: pyterrier-boot judge-plan" in out and "examples" in out and "exit status" in out
    assert "inclusion_probability" in out


# ---------------------------------------------------------------- real data


def test_plan_on_dl2020_with_the_gpt4o_judge():
    runs = pb.read_runs(shared_path("trec-dl-2020-passage", "runs"))
    auto = pb.read_qrels(shared_path("llm-judgments", "binary_gpt4o_dl20.txt.gz"))
    with pytest.warns(pb.InputWarning, match="the automatic labels are 0/1"):
        pb.judging_plan(runs, auto, 0.1)  # warm
    start = time.perf_counter()
    plan = pb.judging_plan(runs, auto, 0.1, label_map={1: 2})
    seconds = time.perf_counter() - start
    assert plan.pool["qid"].nunique() == 54 and len(plan.sample) == plan.budget
    assert set(zip(auto.frame["qid"], auto.frame["docno"])) <= set(zip(plan.pool["qid"], plan.pool["docno"]))
    assert np.isclose(plan.pool["inclusion_probability"].sum(), plan.budget)
    plan.check(runs, auto)
    assert seconds < 15, f"{seconds:.1f} s (target: well under 5 s on an idle machine)"
