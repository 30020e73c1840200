"""The estimand of prediction-powered intervals: ``"population"`` (a population of topics, the
papers' and ``ppi_py``'s, tested against ppi_py in test_ppi.py) or ``"topics"`` (the mean over the
topics at hand, the human-judged ones a simple random sample of them: the finite-population
correction of Cochran 1977). Checked against direct formulas, by coverage, and at every door."""
import io
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pyterrier_boot as pb
from pyterrier_boot.cli import main


def _topics(seed=0, n_topics=50):
    """Skewed per-topic scores (like AP) and a biased, noisy judge of them."""
    rng = np.random.default_rng(seed)
    truth = rng.beta(0.8, 2.0, size=n_topics)
    judge = np.clip(0.8 * truth + 0.1 + rng.normal(0, 0.08, size=n_topics), 0, 1)
    return truth, judge


def _split(n_topics, n, seed=1):
    order = np.random.default_rng(seed).permutation(n_topics)
    return order[:n], order[n:]


# ---------------------------------------------------------------- the core against direct formulas


@pytest.mark.parametrize("lam", [1.0, 0.4, 0.0])
@pytest.mark.parametrize("n", [5, 12, 25])
def test_topics_interval_is_the_difference_estimator_with_the_fpc(lam, n):
    """Cochran's difference estimator lam * mean_T(auto) + mean_n(human - lam * auto), variance
    (1 - n/T) S^2 / n, Student t with n - 1 degrees of freedom."""
    truth, judge = _topics(n)
    labeled, unlabeled = _split(50, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pb.FitWarning)  # below 10 human-judged topics: said in test_ppi.py
        result = pb.ppi_mean_ci(truth[labeled], judge[labeled], judge[unlabeled], lam=lam, estimand="topics")
    residual = truth[labeled] - lam * judge[labeled]
    estimate = lam * judge.mean() + residual.mean()
    se = np.sqrt((1 - n / 50) * residual.var(ddof=1) / n)
    quantile = stats.t.ppf(0.975, n - 1)
    assert result.estimand == "topics" and result.df == n - 1
    assert result.statistic == pytest.approx(estimate, abs=1e-12)
    assert result.standard_error == pytest.approx(se, abs=1e-12)
    assert tuple(result.confidence_interval) == pytest.approx((estimate - quantile * se, estimate + quantile * se))
    assert result.pvalue == pytest.approx(2 * stats.t.sf(estimate / se, n - 1))


def test_topics_asymptotic_and_tuned_lambda_are_the_regression_estimator():
    """small_sample=False: lam = Cov(Y, Yhat) / Var(Yhat) (no 1 + n/N: the automatic mean is known),
    divisor-n variances, z quantile."""
    truth, judge = _topics(3)
    judge = np.clip(judge + np.random.default_rng(3).normal(0, 0.15, size=50), 0, 1)  # a noisier judge: lam < 1
    labeled, unlabeled = _split(50, 20)
    y, yhat = truth[labeled], judge[labeled]
    raw = np.cov(y, yhat, ddof=0)[0, 1] / judge.var(ddof=1)
    lam = np.clip(raw, 0, 1)
    assert 0.2 < raw / (1 + 20 / 30) and lam < 1  # neither clipped: the two rules differ by 1 + n/N
    assert pb.ppi_lambda(y, yhat, judge[unlabeled], estimand="topics") == pytest.approx(lam, abs=1e-12)
    assert pb.ppi_lambda(y, yhat, judge[unlabeled]) == pytest.approx(raw / (1 + 20 / 30), abs=1e-12)
    result = pb.ppi_mean_ci(y, yhat, judge[unlabeled], small_sample=False, estimand="topics")
    residual = y - lam * yhat
    estimate = lam * judge.mean() + residual.mean()
    se = np.sqrt((1 - 20 / 50) * residual.var() / 20)
    assert result.lam == pytest.approx(lam) and result.method == "ppi++" and np.isinf(result.df)
    assert tuple(result.confidence_interval) == pytest.approx((estimate - 1.959964 * se, estimate + 1.959964 * se))


def test_topics_cross_fitted_lambda_by_hand():
    """From 30 human-judged topics: each fold's rectifier uses the topics-estimand lam of the other folds;
    the estimate is the known human mean of the n topics plus the PPI estimate of the N others."""
    truth, judge = _topics(4, n_topics=80)
    labeled, unlabeled = _split(80, 35)
    y, yhat, yhat_u = truth[labeled], judge[labeled], judge[unlabeled]
    result = pb.ppi_mean_ci(y, yhat, yhat_u, estimand="topics")
    folds = np.arange(35) % 5
    lam = np.array([float(pb.ppi_lambda(y[folds != f], yhat[folds != f], yhat_u, estimand="topics")) for f in folds])
    residual = y - lam * yhat
    estimate = 35 / 80 * y.mean() + 45 / 80 * (lam.mean() * yhat_u.mean() + residual.mean())
    assert result.method == "ppi++ cross-fit" and result.lam == pytest.approx(lam.mean(), abs=1e-12)
    assert result.statistic == pytest.approx(estimate, abs=1e-12)
    assert result.standard_error == pytest.approx(np.sqrt((1 - 35 / 80) * residual.var(ddof=1) / 35), abs=1e-12)


@pytest.mark.parametrize("lam", [None, 1.0, 0.3])
def test_every_topic_human_judged_gives_the_mean_itself_with_zero_width(lam):
    truth, judge = _topics(5, n_topics=40)
    result = pb.ppi_mean_ci(truth, judge, judge[:0], lam=lam, estimand="topics")
    assert result.statistic == pytest.approx(truth.mean(), abs=1e-12) and result.standard_error == 0
    assert tuple(result.confidence_interval) == pytest.approx((truth.mean(), truth.mean()), abs=1e-12)
    assert result.n_unlabeled == 0 and result.pvalue == 0.0  # the mean is known and not 0
    with pytest.raises(ValueError, match="at least 2 topics judged only automatically.*estimand='topics'"):
        pb.ppi_mean_ci(truth, judge, judge[:0])  # a population needs the other side
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 5 topics, all human-judged: exact, so no few-topics warning
        five = pb.ppi_mean_ci(truth[:5], judge[:5], judge[:0], lam=lam, estimand="topics")
    assert five.statistic == pytest.approx(truth[:5].mean(), abs=1e-12) and five.standard_error == 0


def test_classical_with_a_population_size_has_the_fpc():
    scores = _topics(6)[0][:12]
    plain = pb.classical_mean_ci(scores)
    finite = pb.classical_mean_ci(scores, population_size=48)
    assert plain.estimand == "population" and finite.estimand == "topics"
    assert finite.standard_error == pytest.approx(plain.standard_error * np.sqrt(1 - 12 / 48), abs=1e-15)
    assert finite.df == 11 and finite.n_unlabeled == 36
    census = pb.classical_mean_ci(scores, population_size=12)
    assert census.standard_error == 0 and census.confidence_interval.low == census.confidence_interval.high
    for bad in (11, 12.0, True, "48"):
        with pytest.raises(ValueError, match="'population_size' must be None or an integer of at least the 12"):
            pb.classical_mean_ci(scores, population_size=bad)


def test_columns_are_differences_or_runs_alike():
    """Paired differences: the same formula on per-topic differences (columns are independent problems)."""
    truth, judge = _topics(7)
    other_truth, other_judge = _topics(8)
    labeled, unlabeled = _split(50, 15)
    both = pb.ppi_mean_ci(np.c_[truth, truth - other_truth][labeled], np.c_[judge, judge - other_judge][labeled],
                          np.c_[judge, judge - other_judge][unlabeled], estimand="topics")
    diff = pb.ppi_mean_ci((truth - other_truth)[labeled], (judge - other_judge)[labeled],
                          (judge - other_judge)[unlabeled], estimand="topics")
    assert both.statistic[1] == pytest.approx(diff.statistic) and both.confidence_interval.low[1] == pytest.approx(
        diff.confidence_interval.low)


@pytest.mark.parametrize("bad", ["topic", "Population", None, ["topics"]])
def test_unknown_estimand_is_named(bad):
    truth, judge = _topics(0)
    message = r"'estimand' must be one of \['population', 'topics'\], got "
    with pytest.raises(ValueError, match=message):
        pb.ppi_mean_ci(truth[:10], judge[:10], judge[10:], estimand=bad)
    with pytest.raises(ValueError, match=message):
        pb.ppi_lambda(truth[:10], judge[:10], judge[10:], estimand=bad)


# ---------------------------------------------------------------- coverage


def _coverage(result, target):
    low, high = result.confidence_interval
    return ((low <= target) & (target <= high)).mean()


def coverage_both_designs(n_topics, n, reps, seed):
    """Coverage of the default interval of each estimand in its own design, with its SE.

    ``"topics"``: one fixed collection of ``n_topics`` topics, ``reps`` random splits (without
    replacement) into ``n`` human-judged and the rest; the target is the collection's human mean.
    ``"population"``: ``reps`` collections drawn iid from a beta population (its mean the target).
    Replications are the columns (independent problems of the core).
    """
    rng = np.random.default_rng(seed)
    out = {}
    truth = rng.beta(0.8, 2.0, size=n_topics)
    judge = np.clip(0.8 * truth + 0.1 + rng.normal(0, 0.08, size=n_topics), 0, 1)
    order = np.argsort(rng.random((n_topics, reps)), axis=0)
    labeled, unlabeled = order[:n], order[n:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pb.FitWarning)
        res = pb.ppi_mean_ci(truth[labeled], judge[labeled], judge[unlabeled], estimand="topics")
        out["topics"] = _coverage(res, truth.mean())
        truth = rng.beta(0.8, 2.0, size=(n_topics, reps))
        judge = np.clip(0.8 * truth + 0.1 + rng.normal(0, 0.08, size=truth.shape), 0, 1)
        res = pb.ppi_mean_ci(truth[:n], judge[:n], judge[n:], estimand="population")
        out["population"] = _coverage(res, 0.8 / 2.8)
    return {k: (c, np.sqrt(c * (1 - c) / reps)) for k, c in out.items()}


def test_coverage_of_both_estimands_small():
    """3,000 replications of 12 of 50 topics human-judged: each estimand's interval within 1.5
    points of 95% (3 SE); the population interval over-covers the mean over these topics."""
    for estimand, (coverage, se) in coverage_both_designs(50, 12, 3000, seed=11).items():
        assert abs(coverage - 0.95) < 0.015 + 3 * se, (estimand, coverage)
    truth, judge = _topics(12)
    order = np.argsort(np.random.default_rng(13).random((50, 3000)), axis=0)
    wide = pb.ppi_mean_ci(truth[order[:25]], judge[order[:25]], judge[order[25:]])
    assert _coverage(wide, truth.mean()) > 0.97  # half the topics human-judged: the ignored FPC shows


@pytest.mark.slow
@pytest.mark.parametrize(("n_topics", "n"), [(43, 10), (54, 20), (50, 35), (200, 40)])
def test_coverage_of_both_estimands_many_replications(n_topics, n):
    """40,000 replications (SE 0.11 points): each estimand's default interval in 95 +- 1.5, plain PPI
    below 30 human-judged topics and the cross-fitted PPI++ from 30."""
    for estimand, (coverage, se) in coverage_both_designs(n_topics, n, 40_000, seed=n_topics + n).items():
        assert abs(coverage - 0.95) < 0.015, (estimand, coverage, se)


# ---------------------------------------------------------------- the doors: evaluation, Experiment, CLI


@pytest.fixture(scope="module")
def judged():
    sim = pb.simulate_collection(n_topics=30, n_systems=3, corpus_size=3000, depth=30, pool_depth=15, rng=5)
    runs = dict(zip("abc", sim.runs.values()))
    auto = pb.simulate_judge(sim.qrels, runs, rng=6)
    human_topics = np.random.default_rng(7).choice(sorted(set(sim.qrels["qid"])), 12, replace=False)
    human = sim.qrels[sim.qrels["qid"].isin(human_topics)]
    return {"runs": runs, "auto": auto, "human": human, "full": sim.qrels, "topics": sim.topics}


def test_evaluation_says_its_estimand_and_uses_it(judged):
    runs, auto, human = judged["runs"], judged["auto"], judged["human"]
    ev = pb.ppi_evaluate(runs, auto, human, ["AP"], estimand="topics")
    assert ev.estimand == "topics" and "estimand 'topics': the mean over these 30 topics" in repr(ev)
    assert "estimand 'population'" in repr(pb.ppi_evaluate(runs, auto, human, ["AP"]))
    table = ev.table(baseline="a")
    assert list(table["estimand"]) == ["topics"] * 3 and set(ev.pairwise()["estimand"]) == {"topics"}
    diff = ev.intervals("AP", difference=("b", "a"))
    direct = pb.ppi_mean_ci(ev.human[0][:, 1] - ev.human[0][:, 0], ev.auto_labeled[0][:, 1] - ev.auto_labeled[0][:, 0],
                            ev.auto_unlabeled[0][:, 1] - ev.auto_unlabeled[0][:, 0], estimand="topics")
    assert diff["ppi"].confidence_interval.low == pytest.approx(direct.confidence_interval.low, abs=1e-12)
    assert table.loc[1, "AP diff ci_low"] == pytest.approx(direct.confidence_interval.low, abs=1e-12)
    human_only = diff["human-only"]
    assert human_only.estimand == "topics" and human_only.n_unlabeled == 18
    auto_only = ev.intervals("AP")["auto-only"]  # the automatic mean over these topics is known
    assert np.all(auto_only.standard_error == 0)


def test_evaluation_with_every_topic_human_judged(judged):
    runs, auto, full = judged["runs"], judged["auto"], judged["full"]
    ev = pb.ppi_evaluate(runs, auto, full, ["AP"], estimand="topics")
    exact = pb.evaluate(runs, full, ["AP"]).groupby("name")["value"].mean()
    table = ev.table()
    np.testing.assert_allclose(table["AP"], exact[list("abc")], atol=1e-12)
    np.testing.assert_allclose(table["AP ci_low"], table["AP ci_high"], atol=1e-12)
    with pytest.raises(ValueError, match="only 0 topic.*estimand='topics'"):
        pb.ppi_evaluate(runs, auto, full, ["AP"])


def test_evaluation_and_experiment_refuse_an_unknown_estimand(judged):
    runs, auto, human = judged["runs"], judged["auto"], judged["human"]
    with pytest.raises(ValueError, match=r"'estimand' must be one of \['population', 'topics'\], got 'sample'"):
        pb.ppi_evaluate(runs, auto, human, ["AP"], estimand="sample")
    with pytest.raises(ValueError, match=r"'estimand' must be one of \['population', 'topics'\], got 'sample'"):
        pb.Experiment(runs, None, auto, ["AP"], human_qrels=human, estimand="sample")
    with pytest.raises(ValueError, match=r"'estimand' \('topics'\) chooses what prediction-powered intervals"):
        pb.Experiment(runs, None, auto, ["AP"], estimand="topics")
    with pytest.raises(ValueError, match=r"'estimand' \('topics'\) chooses what prediction-powered intervals"):
        pb.experiment_result(runs, None, auto, ["AP"], estimand="topics")


def test_experiment_door_takes_the_estimand(judged):
    runs, auto, human = judged["runs"], judged["auto"], judged["human"]
    table = pb.Experiment(runs, None, auto, ["AP"], human_qrels=human, estimand="topics", baseline=0, round=3)
    expected = pb.ppi_evaluate(runs, auto, human, ["AP"], estimand="topics").table(baseline="a")
    assert list(table["estimand"]) == ["topics"] * 3
    assert table["AP ci_low"].tolist() == pytest.approx(expected["AP ci_low"].round(3).tolist())
    default = pb.Experiment(runs, None, auto, ["AP"], human_qrels=human)
    assert list(default["estimand"]) == ["population"] * 3
    rich = pb.experiment_result(runs, None, auto, ["AP"], human_qrels=human, estimand="topics")
    assert rich.estimand == "topics"


def test_cli_estimand(judged, tmp_path, capsys):
    for name, run in judged["runs"].items():
        run.assign(iter="Q0", rank=1, tag=name)[["qid", "iter", "docno", "rank", "score", "tag"]].to_csv(
            tmp_path / f"{name}.run", sep=" ", header=False, index=False)
    for name in ("auto", "human"):
        judged[name].assign(iter=0)[["qid", "iter", "docno", "label"]].to_csv(
            tmp_path / f"{name}.qrels", sep=" ", header=False, index=False)
    args = ["ppi", "--auto-qrels", str(tmp_path / "auto.qrels"), "--human-qrels", str(tmp_path / "human.qrels"),
            *(str(tmp_path / f"{n}.run") for n in "abc"), "-m", "AP", "--quiet"]
    assert main([*args, "--estimand", "topics"]) == 0
    assert "18 judged only automatically; estimand 'topics': the mean over these 30 topics" in capsys.readouterr().out
    assert main(args) == 0
    assert "estimand 'population': the mean over the population" in capsys.readouterr().out
    assert main([*args, "--estimand", "topics", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = pb.ppi_evaluate(judged["runs"], judged["auto"], judged["human"], ["AP"], estimand="topics").table()
    assert list(frame["estimand"]) == ["topics"] * 3
    np.testing.assert_allclose(frame["AP ci_low"], expected["AP ci_low"], rtol=1e-5)
    assert main([*args, "--estimand", "sample"]) == 2
    assert "--estimand: invalid choice: 'sample'" in capsys.readouterr().err
