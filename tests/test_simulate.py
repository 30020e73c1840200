"""Simulated collections and score matrices with known truth (pyterrier_boot.simulation).

References: ir_measures computes every measure value compared here (on the frames, as a user
would); scipy.integrate.quad checks the logit-normal population means; pandas recomputes pools
from the run frames.
"""
import doctest
import importlib
import time

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

import pyterrier_boot as pb
from pyterrier_boot.simulation.scores import _logit_normal_mean

SMALL = dict(n_topics=12, corpus_size=5_000, matching=300, depth=100, pool_depth=20)


def per_topic(sim, measure):
    """systems x qids values of ``measure`` computed by ir_measures on the collection's frames."""
    qrels = sim.qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    rows = {}
    for name, run in sim.runs.items():
        run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
        rows[name] = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(measure)], qrels, run)}
    return pd.DataFrame(rows).T[sim.topics["qid"]]


def frames_of(sim):
    return [*sim.runs.values(), sim.qrels, sim.complete_qrels, sim.topics, sim.topic_parameters]


# ---------------------------------------------------------------------------------------------
# collections: determinism, frames, pooling


def test_same_seed_same_collection_and_different_seed_differs():
    a, b = pb.simulate_collection(rng=7, **SMALL), pb.simulate_collection(rng=7, **SMALL)
    for x, y in zip(frames_of(a), frames_of(b)):
        pd.testing.assert_frame_equal(x, y)
    c = pb.simulate_collection(rng=8, **SMALL)
    assert not a.qrels.equals(c.qrels)
    assert not a.runs["S1"].equals(c.runs["S1"])
    # a Generator is used as is: its stream advances, so two draws from it differ
    gen = np.random.default_rng(7)
    first, second = pb.simulate_collection(rng=gen, **SMALL), pb.simulate_collection(rng=gen, **SMALL)
    pd.testing.assert_frame_equal(first.qrels, a.qrels)
    assert not second.qrels.equals(first.qrels)


def test_default_collection_is_fast_and_realistic():
    pb.simulate_collection(n_topics=2, rng=0)  # imports
    start = time.perf_counter()
    sim = pb.simulate_collection(rng=0)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0, f"default collection took {elapsed:.2f} s"
    assert len(sim.runs) == 8 and len(sim.topics) == 50
    assert all(len(run) == 50 * 1000 for run in sim.runs.values())
    means = per_topic(sim, "AP").mean(axis=1)
    assert 0.08 < means.min() and means.max() < 0.55
    ndcg = per_topic(sim, "nDCG@10").mean(axis=1)
    assert 0.15 < ndcg.min() and ndcg.max() < 0.75
    relevant = sim.topic_parameters["relevant"]
    assert relevant.min() <= 5 and relevant.max() >= 60
    judged = sim.topic_parameters["judged_relevant"]
    assert (judged >= 1).all() and judged.sum() < relevant.sum()  # the pool misses some


def test_frames_are_valid_inputs_with_pyterrier_columns():
    sim = pb.simulate_collection(n_systems=3, rng=1, **SMALL)
    assert list(sim.runs) == ["S1", "S2", "S3"]
    assert sim.topics["qid"].tolist() == [str(i) for i in range(1, 13)]
    for run in sim.runs.values():
        assert list(run.columns) == ["qid", "docno", "score"]
        assert run["score"].dtype == np.float64
        assert pd.api.types.is_string_dtype(run["qid"]) and pd.api.types.is_string_dtype(run["docno"])
        assert run["docno"].str.fullmatch(r"D\d{6}").all()
        assert not run.duplicated(["qid", "docno"]).any()
        sizes = run.groupby("qid", sort=False).size()
        assert (sizes <= 100).all() and sizes.index.tolist() == sim.topics["qid"].tolist()
        # sorted by qid then decreasing score (rank order)
        assert (run.groupby("qid", sort=False)["score"].diff().dropna() < 0).all()
    assert list(sim.qrels.columns) == ["qid", "docno", "label"] and sim.qrels["label"].dtype == np.int64
    assert set(sim.qrels["label"]) <= {0, 1, 2, 3}
    read = pb.read_runs(sim.runs)
    assert list(read) == list(sim.runs)
    for name in sim.runs:
        pd.testing.assert_frame_equal(read[name], sim.runs[name], check_dtype=False)
    qrels = pb.read_qrels(sim.qrels)
    pd.testing.assert_frame_equal(qrels.frame, sim.qrels, check_dtype=False)
    pb.read_topics(sim.topics)
    assert sim.effectiveness == {"S1": 0.9, "S2": 1.3, "S3": 1.7}
    assert sim.corpus_size == 5_000 and sim.names == ["S1", "S2", "S3"]


def test_short_topics_return_every_matching_document():
    sim = pb.simulate_collection(n_topics=4, n_systems=2, corpus_size=1_000, matching=20, depth=500,
                                 pool_depth=500, rng=3)
    sizes = sim.runs["S1"].groupby("qid").size()
    assert (sizes < 500).all()
    # the pool is the whole run: every retrieved document is judged
    retrieved = set(map(tuple, sim.runs["S1"][["qid", "docno"]].to_numpy()))
    assert retrieved <= set(map(tuple, sim.qrels[["qid", "docno"]].to_numpy()))


def pooled_set(sim, systems, pool_depth):
    """The pool recomputed from the run frames: union of each system's top pool_depth by score."""
    tops = [sim.runs[s].sort_values(["qid", "score"], ascending=[True, False]).groupby("qid").head(pool_depth)
            for s in systems]
    return set(map(tuple, pd.concat(tops)[["qid", "docno"]].to_numpy()))


@pytest.mark.parametrize("pooled_systems", [None, ["S2"], [0, 3]])
def test_qrels_are_the_pool_of_the_pooled_systems(pooled_systems):
    sim = pb.simulate_collection(n_systems=4, pooled_systems=pooled_systems, rng=4, **SMALL)
    systems = {None: sim.names, ("S2",): ["S2"], (0, 3): ["S1", "S4"]}[
        None if pooled_systems is None else tuple(pooled_systems)]
    judged = set(map(tuple, sim.qrels[["qid", "docno"]].to_numpy()))
    assert judged == pooled_set(sim, systems, 20)
    # labels are the true grades; every relevant judged document is in complete_qrels
    merged = sim.qrels.merge(sim.complete_qrels, on=["qid", "docno"], how="left", suffixes=("", "_true"))
    assert (merged["label"] == merged["label_true"].fillna(0).astype(int)).all()
    assert (sim.qrels.groupby("qid")["label"].max() > 0).all()  # every topic has a judged relevant document
    # a shallow pool leaves relevant documents unjudged, some of them retrieved
    unjudged = sim.complete_qrels.merge(sim.qrels, on=["qid", "docno"], how="left", indicator=True)
    unjudged = unjudged[unjudged["_merge"] == "left_only"]
    assert len(unjudged) > 0
    retrieved = set(map(tuple, pd.concat(sim.runs.values())[["qid", "docno"]].to_numpy()))
    assert any(pair in retrieved for pair in map(tuple, unjudged[["qid", "docno"]].to_numpy()))
    assert sim.topic_parameters["judged_relevant"].tolist() == (
        sim.qrels[sim.qrels["label"] > 0].groupby("qid").size().reindex(sim.topics["qid"], fill_value=0).tolist())
    assert sim.topic_parameters["relevant"].tolist() == (
        sim.complete_qrels.groupby("qid").size().reindex(sim.topics["qid"], fill_value=0).tolist())


def test_judge_all_judges_every_relevant_document():
    sim = pb.simulate_collection(n_systems=3, judge_all=True, rng=5, **SMALL)
    relevant = sim.qrels[sim.qrels["label"] > 0].reset_index(drop=True)
    pd.testing.assert_frame_equal(relevant, sim.complete_qrels)
    retrieved = pd.concat(sim.runs.values())[["qid", "docno"]].drop_duplicates()
    labels = retrieved.merge(sim.complete_qrels, on=["qid", "docno"])
    judged = set(map(tuple, sim.qrels[["qid", "docno"]].to_numpy()))
    assert len(labels) > 0 and all(pair in judged for pair in map(tuple, labels[["qid", "docno"]].to_numpy()))
    # and the pool is still judged too
    assert pooled_set(sim, sim.names, 20) <= judged


def test_fresh_topics_and_fresh_corpus():
    sim = pb.simulate_collection(n_systems=3, rng=6, **SMALL)
    again = sim.fresh_topics(rng=1)
    assert again.model == sim.model and len(again.topics) == 12
    pd.testing.assert_frame_equal(again.qrels, sim.fresh_topics(rng=1).qrels)
    assert not again.topic_parameters["difficulty"].equals(sim.topic_parameters["difficulty"])
    assert len(sim.fresh_topics(30, rng=1).topics) == 30
    other = sim.fresh_corpus(rng=2)
    pd.testing.assert_frame_equal(other.topics, sim.topics)
    cols = ["expected_relevant", "difficulty"]
    pd.testing.assert_frame_equal(other.topic_parameters[cols], sim.topic_parameters[cols])
    assert not other.qrels.equals(sim.qrels)


# ---------------------------------------------------------------------------------------------
# truth


def test_truth_orders_systems_by_effectiveness_and_reports_standard_errors():
    sim = pb.simulate_collection(effectiveness={"weak": 0.3, "mid": 1.3, "strong": 2.6}, rng=9, **SMALL)
    truth = sim.truth(["AP", "nDCG@10"], n_topics=400, rng=1)
    assert list(truth.columns) == ["AP", "nDCG@10"] and list(truth.index) == ["weak", "mid", "strong"]
    assert truth["AP"].is_monotonic_increasing and truth["nDCG@10"].is_monotonic_increasing
    assert (truth["AP"].diff().dropna() > 0.1).all()
    se = truth.attrs["standard_error"]
    assert se.shape == truth.shape and ((se > 0.003) & (se < 0.03)).all().all()
    assert truth.attrs["n_topics"] == 400
    # the standard error describes the Monte Carlo spread: an independent run agrees within it
    other = sim.truth("AP", n_topics=400, rng=2)
    assert isinstance(other, pd.Series) and other.name == "AP"
    z = (other - truth["AP"]) / np.hypot(other.attrs["standard_error"], se["AP"])
    assert (z.abs() < 4).all()
    # and it is sd/sqrt(n): quadrupling the topics halves it
    bigger = sim.truth("AP", n_topics=1600, rng=3)
    ratio = bigger.attrs["standard_error"] / other.attrs["standard_error"]
    assert ((ratio > 0.4) & (ratio < 0.6)).all()


def test_truth_is_deterministic_and_labelled_as_written():
    sim = pb.simulate_collection(n_systems=2, rng=1, **SMALL)
    a = sim.truth("map", n_topics=50, rng=4)
    b = sim.truth(ir_measures.AP, n_topics=50, rng=4)
    assert a.name == "map" and b.name == "AP"
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())


def test_sample_mean_estimates_truth_without_bias():
    """Means over many simulated topics (ir_measures on the frames) agree with the truth."""
    sim = pb.simulate_collection(n_topics=600, n_systems=3, corpus_size=5_000, matching=300, depth=100,
                                 pool_depth=10, rng=11)
    values = per_topic(sim, "AP")
    sample_mean = values.mean(axis=1)
    sample_se = values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])
    truth = sim.truth("AP", n_topics=1000, rng=12)
    z = (sample_mean - truth) / np.hypot(sample_se, truth.attrs["standard_error"])
    assert (z.abs() < 4).all(), z
    # shallow pools inflate AP: complete judgements give a lower population value
    complete = sim.truth("AP", n_topics=1000, complete=True, rng=12)
    assert (complete < truth - 3 * truth.attrs["standard_error"]).all()


def test_equal_effectiveness_gives_equal_truth():
    sim = pb.simulate_collection(effectiveness=[1.2, 1.2, 1.2], rng=2, **SMALL)
    truth = sim.truth("AP", n_topics=600, rng=5)
    se = truth.attrs["standard_error"]
    assert (truth - truth.mean()).abs().max() < 4 * se.max()


def test_topic_truth_is_the_mean_over_fresh_corpora():
    sim = pb.simulate_collection(n_topics=4, n_systems=2, corpus_size=2_000, matching=150, depth=50,
                                 pool_depth=10, rng=13)
    truth = sim.topic_truth("AP", n_corpora=300, rng=1)
    assert truth.shape == (2, 4) and list(truth.columns) == ["1", "2", "3", "4"]
    assert truth.attrs["n_corpora"] == 300 and truth.attrs["measure"] == "AP"
    se = truth.attrs["standard_error"]
    assert (se > 0).all().all()
    # independent pathway: the frames of fresh corpora, measured by ir_measures
    replicates = [per_topic(sim.fresh_corpus(rng=100 + i), "AP") for i in range(60)]
    stacked = np.stack([r.to_numpy() for r in replicates])
    z = (stacked.mean(axis=0) - truth.to_numpy()) / np.hypot(stacked.std(axis=0, ddof=1) / np.sqrt(60), se.to_numpy())
    assert (np.abs(z) < 4).all(), z


# ---------------------------------------------------------------------------------------------
# score matrices


@pytest.mark.parametrize("scale", [0.0, 0.3, 1.34, 3.0, 8.0])
@pytest.mark.parametrize("location", [-4.0, -1.2, 0.0, 2.5])
def test_logit_normal_mean_matches_quad(location, scale):
    def integrand(z):
        return special.expit(location + scale * z) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)

    if scale == 0:
        expected = special.expit(location)
    else:  # scipy's adaptive quadrature (QUADPACK), piecewise so no peak is missed
        edges = [-40, -4, 0, 4, 40]
        expected = sum(integrate.quad(integrand, a, b, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
                       for a, b in zip(edges[:-1], edges[1:]))
    assert _logit_normal_mean(location, scale) == pytest.approx(expected, abs=1e-12)


def test_scores_have_the_stated_population_means():
    res = pb.simulate_scores(3, 40_000, means=[0.1, 0.25, 0.6], rng=3)
    x, mu = res
    assert x.shape == (3, 40_000) and mu.tolist() == [0.1, 0.25, 0.6]
    assert ((x > 0) & (x < 1)).all()
    se = x.std(axis=1, ddof=1) / np.sqrt(x.shape[1])
    assert (np.abs(x.mean(axis=1) - mu) < 4 * se).all()
    # the locations solve the quadrature exactly; scale is the logit-scale sd
    assert res.scale == pytest.approx(np.hypot(1.2, 0.6))
    for a, m in zip(res.locations, mu):
        assert _logit_normal_mean(a, res.scale) == pytest.approx(m, abs=1e-12)
    # paired through the topic effect: logit correlation topic_sd^2 / scale^2
    logits = special.logit(x)
    assert np.corrcoef(logits)[0, 1] == pytest.approx(1.2**2 / res.scale**2, abs=0.02)


def test_scores_defaults_seed_and_unpaired():
    x, mu = pb.simulate_scores(5, 20, rng=1)
    np.testing.assert_allclose(mu, np.linspace(0.2, 0.3, 5))
    np.testing.assert_array_equal(x, pb.simulate_scores(5, 20, rng=1).scores)
    assert not np.array_equal(x, pb.simulate_scores(5, 20, rng=2).scores)
    assert pb.simulate_scores(1, 3, rng=1).means.tolist() == [0.25]
    independent = pb.simulate_scores(2, 20_000, topic_sd=0.0, rng=4).scores
    assert abs(np.corrcoef(independent)[0, 1]) < 0.04


def test_null_scores_are_exchangeable():
    x, mu = pb.simulate_null_scores(4, 30_000, mean=0.3, rng=5)
    assert mu.tolist() == [0.3] * 4
    d = x[1] - x[0]
    assert abs(d.mean()) < 4 * d.std(ddof=1) / np.sqrt(len(d))
    assert abs(np.median(d)) < 0.01  # symmetric about 0
    np.testing.assert_array_equal(pb.simulate_scores(4, 10, means=0.3, rng=1).scores,
                                  pb.simulate_null_scores(4, 10, mean=0.3, rng=1).scores)


# ---------------------------------------------------------------------------------------------
# the truth is what intervals cover (scipy's t interval and paired t-test as the references)


@pytest.mark.slow
def test_t_intervals_cover_the_collection_truth():
    sim = pb.simulate_collection(n_topics=25, n_systems=3, corpus_size=5_000, matching=300, depth=50,
                                 pool_depth=10, rng=21)
    truth = sim.truth("AP", n_topics=6000, rng=22).to_numpy()
    covered = []
    for i in range(200):
        x = per_topic(sim.fresh_topics(rng=1000 + i), "AP").to_numpy()
        low, high = stats.t.interval(0.95, x.shape[1] - 1, loc=x.mean(axis=1), scale=stats.sem(x, axis=1))
        covered.append((low <= truth) & (truth <= high))
    hits = np.sum(covered, axis=0)
    print("t-interval coverage of the truth (200 replicates):", hits / 200)
    for h in hits:
        assert stats.binomtest(int(h), 200, 0.95).pvalue > 0.001, hits


@pytest.mark.slow
def test_score_truth_is_covered_and_null_scores_hold_the_size():
    reps, n = 2000, 400  # enough topics for the t interval to be accurate with these skewed scores
    x = np.stack([pb.simulate_scores(2, n, means=[0.15, 0.4], rng=i).scores for i in range(reps)])
    low, high = stats.t.interval(0.95, n - 1, loc=x.mean(axis=2), scale=stats.sem(x, axis=2))
    covered = ((low <= [0.15, 0.4]) & ([0.15, 0.4] <= high)).sum(axis=0)
    assert all(stats.binomtest(int(c), reps, 0.95).pvalue > 0.001 for c in covered), covered
    null = np.stack([pb.simulate_null_scores(2, 20, rng=i).scores for i in range(reps)])
    rejected = int((stats.ttest_rel(null[:, 0], null[:, 1], axis=1).pvalue < 0.05).sum())
    assert stats.binomtest(rejected, reps, 0.05).pvalue > 0.001, rejected


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(n_topics=-1), ValueError, "'n_topics' must be an integer >= 1, got -1"),
    (dict(n_topics=2.5), TypeError, "'n_topics' must be an integer >= 1, got float"),
    (dict(n_systems=0), ValueError, "'n_systems' must be an integer >= 1, got 0"),
    (dict(n_systems=2, effectiveness=[1, 2, 3]), ValueError, "'effectiveness' has 3 values but n_systems=2"),
    (dict(effectiveness=[]), ValueError, "'effectiveness' is empty: give at least one system"),
    (dict(effectiveness={}), ValueError, "'effectiveness' is an empty dict: give at least one system"),
    (dict(effectiveness="high"), TypeError, "'effectiveness' must be a sequence of numbers or a dict name -> number, got str"),
    (dict(effectiveness=[1, "a"]), TypeError, "'effectiveness' must hold numbers, got 'a'"),
    (dict(effectiveness=[1, np.nan]), ValueError, "'effectiveness' must hold finite numbers, got [1.0, nan]"),
    (dict(effectiveness={1: 0.5}), TypeError, "system names (keys of 'effectiveness') must be strings, got 1"),
    (dict(corpus_size=-5), ValueError, "'corpus_size' must be an integer >= 2, got -5"),
    (dict(corpus_size=1000, matching=1000), ValueError, "'matching' must be a finite number (0, 1000), got 1000"),
    (dict(matching=0), ValueError, "'matching' must be a finite number (0, 20000), got 0"),
    (dict(relevant=0), ValueError, "'relevant' must be a finite number > 0, got 0"),
    (dict(relevant_sd=-1), ValueError, "'relevant_sd' must be a finite number >= 0, got -1"),
    (dict(grades=(0.5, 0.4)), ValueError, "'grades' must be proportions of grades 1, 2, ... summing to 1, got [0.5, 0.4]"),
    (dict(grades=(1.5, -0.5)), ValueError, "'grades' must be a finite number [0, 1], got 1.5"),
    (dict(grades=()), ValueError, "'grades' must be proportions of grades 1, 2, ... summing to 1, got []"),
    (dict(topic_sd=-0.1), ValueError, "'topic_sd' must be a finite number >= 0, got -0.1"),
    (dict(interaction_sd=np.inf), ValueError, "'interaction_sd' must be a finite number >= 0, got inf"),
    (dict(noise_correlation=1), ValueError, "'noise_correlation' must be a finite number [0, 1), got 1"),
    (dict(depth=0), ValueError, "'depth' must be an integer >= 1, got 0"),
    (dict(depth=100, pool_depth=150), ValueError,
     "'pool_depth' (150) cannot exceed 'depth' (100): a pool takes documents from the top of the runs"),
    (dict(pool_depth=0), ValueError, "'pool_depth' must be an integer >= 1, got 0"),
    (dict(pooled_systems=[]), ValueError, "'pooled_systems' is empty: pool at least one system (or None for all)"),
    (dict(n_systems=2, pooled_systems=["S9"]), ValueError, "'pooled_systems' names unknown system 'S9'; systems are ['S1', 'S2']"),
    (dict(n_systems=2, pooled_systems=[2]), ValueError, "'pooled_systems' position 2 is out of range for 2 systems"),
    (dict(pooled_systems=[1.0]), TypeError, "'pooled_systems' must hold system names or positions, got 1.0"),
    (dict(judge_all="yes"), TypeError, "'judge_all' must be True or False, got 'yes'"),
    (dict(rng=-1), ValueError, "'rng' must be a non-negative integer seed, got -1"),
    (dict(rng=np.random.RandomState(0)), TypeError, "'rng' must be None, an int, a numpy SeedSequence or a numpy Generator"),
])
def test_collection_bad_input(kwargs, error, message):
    with pytest.raises(error) as info:
        pb.simulate_collection(**kwargs)
    assert str(info.value).startswith(message)


def test_collection_that_never_judges_a_relevant_document():
    with pytest.raises(ValueError, match=r"^the model gave no topic with a judged relevant document in 1000 "
                                         r"draws; raise 'relevant' \(now 1e-06\) or 'pool_depth' \(now 1\)$"):
        pb.simulate_collection(n_topics=1, n_systems=1, relevant=1e-6, corpus_size=1000, matching=10,
                               depth=5, pool_depth=1, rng=0)


@pytest.mark.parametrize("call, error, message", [
    (lambda s: s.truth("nosuchmeasure"), ValueError, "unknown measure 'nosuchmeasure'"),
    (lambda s: s.truth("NumRet"), ValueError, "'NumRet' is summed over topics, not averaged, so a population mean"),
    (lambda s: s.truth("Q"), ValueError, "ir_measures cannot compute 'Q' here (Unsupported measures {Q}."),
    (lambda s: s.truth("AP", n_topics=1), ValueError, "'n_topics' must be an integer >= 2, got 1"),
    (lambda s: s.truth("AP", complete=1), TypeError, "'complete' must be True or False, got 1"),
    (lambda s: s.topic_truth(["AP", "P@10"]), ValueError, "'measure' must be a single measure, got 2: ['AP', 'P@10']"),
    (lambda s: s.topic_truth("AP", n_corpora=0), ValueError, "'n_corpora' must be an integer >= 2, got 0"),
    (lambda s: s.fresh_topics(0), ValueError, "'n_topics' must be an integer >= 1, got 0"),
])
def test_truth_bad_input(call, error, message):
    sim = pb.simulate_collection(n_topics=2, n_systems=2, depth=10, pool_depth=5, rng=0)
    with pytest.raises(error) as info:
        call(sim)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("call, error, message", [
    (lambda: pb.simulate_scores(0, 5), ValueError, "'n_systems' must be an integer >= 1, got 0"),
    (lambda: pb.simulate_scores(2, -3), ValueError, "'n_topics' must be an integer >= 1, got -3"),
    (lambda: pb.simulate_scores(2, 5, means=[0.2]), ValueError, "'means' has 1 values but n_systems=2"),
    (lambda: pb.simulate_scores(2, 5, means=[0.2, 1.0]), ValueError, "'means' must be in (0, 1), got 1.0"),
    (lambda: pb.simulate_scores(2, 5, means="0.2"), TypeError, "'means' must be a number or a sequence of numbers, got str"),
    (lambda: pb.simulate_scores(2, 5, topic_sd=-1), ValueError, "'topic_sd' must be a finite number >= 0, got -1"),
    (lambda: pb.simulate_scores(2, 5, interaction_sd="x"), TypeError, "'interaction_sd' must be a number >= 0, got str"),
    (lambda: pb.simulate_null_scores(2, 5, mean=0), ValueError, "'mean' must be in (0, 1), got 0"),
])
def test_scores_bad_input(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("name", ["model", "collection", "scores"])
def test_docstring_examples(name):
    module = importlib.import_module(f"pyterrier_boot.simulation.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    if name != "model":
        assert result.attempted > 0
