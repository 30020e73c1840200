"""Tables of a corpus-bootstrap result against numpy / scipy computations on the stored distribution."""
import dataclasses

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from pyterrier_boot import CorpusBootstrap
from pyterrier_boot.corpus.small_r import silver_bullet_limit

MEASURES = ["AP", "nDCG@10", "P@5", "RR"]


def collection(seed=1, n_topics=8, n_docs=80, systems=("a", "b", "c", "d")):
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in range(1, n_topics + 1)]
    docs = [f"d{i:03d}" for i in range(n_docs)]
    rows = []
    for q in qids:
        judged = rng.choice(n_docs, size=40, replace=False)
        rows += [(q, docs[d], int(g)) for d, g in zip(judged, rng.choice([0, 0, 1, 2], size=40))]
    qrels = pd.DataFrame(rows, columns=["qid", "docno", "label"])
    runs = {}
    for s, name in enumerate(systems):
        out = []
        for q in qids:
            grade = qrels[qrels.qid == q].set_index("docno")["label"].reindex(docs).fillna(0).to_numpy()
            score = grade * (0.3 + s) + rng.normal(0, 1.5, n_docs)
            if name == "d" and q == "1":  # retrieves only non-relevant documents: AP = 0 (small R)
                score = np.where(grade > 0, -np.inf, score)
            out += [(q, docs[d], float(60 - r)) for r, d in enumerate(np.argsort(-score)[:30])]
        runs[name] = pd.DataFrame(out, columns=["qid", "docno", "score"])
    return runs, qrels


@pytest.fixture(scope="module")
def res():
    runs, qrels = collection()
    return CorpusBootstrap(qrels, n_images=300, rng=5, verbose=False).evaluate(runs, MEASURES)


def test_unpacks_and_shapes(res):
    statistic, distribution = res
    assert statistic.shape == (4, 8, 4) and distribution.shape == (300, 4, 8, 4)
    assert res.jackknife_distribution.shape == (20, 4, 8, 4)
    assert res.systems == ("a", "b", "c", "d") and res.measures == tuple(MEASURES)
    assert "300 poisson images" in repr(res)
    np.testing.assert_allclose(res.standard_error, distribution.std(axis=0, ddof=1))


def test_per_topic_percentile_is_numpy_quantile(res):
    table = res.per_topic(method="percentile", confidence_level=0.9, small_r=False)
    assert list(table.columns) == ["name", "qid", "measure", "value", "standard_error", "ci_low", "ci_high", "small_r"]
    assert len(table) == 4 * 8 * 4
    low, high = np.quantile(res.bootstrap_distribution, [0.05, 0.95], axis=0)
    np.testing.assert_allclose(table["ci_low"], low.reshape(-1))
    np.testing.assert_allclose(table["ci_high"], high.reshape(-1))
    np.testing.assert_allclose(table["value"], res.statistic.reshape(-1))
    row = table[(table.name == "c") & (table.qid == "3") & (table.measure == "RR")].iloc[0]
    assert row.value == res.statistic[2, 2, 3]
    assert row.standard_error == pytest.approx(res.bootstrap_distribution[:, 2, 2, 3].std(ddof=1))


def test_per_topic_small_r_on_by_default_for_ap_only(res):
    table = res.per_topic(method="logit")
    cell = table[(table.name == "d") & (table.qid == "1")].set_index("measure")
    assert cell.loc["AP", "value"] == 0.0
    _, qrels = collection()
    R = int(((qrels.qid == "1") & (qrels.label >= 1)).sum())  # topic 1's relevant documents
    assert R > 0
    assert cell.loc["AP", "ci_low"] == 0.0
    assert cell.loc["AP", "ci_high"] == pytest.approx(float(silver_bullet_limit(R, 30)))
    assert bool(cell.loc["AP", "small_r"]) and not cell["small_r"].drop("AP").any()
    off = res.per_topic(method="logit", small_r=False)
    cell_off = off[(off.name == "d") & (off.qid == "1")].set_index("measure")
    assert cell_off.loc["AP", "ci_high"] == 0.0


def test_n_relevant_counts_the_qrels():
    runs, qrels = collection()
    res = CorpusBootstrap(qrels, n_images=2, rng=5, verbose=False).evaluate(runs, ["AP(rel=2)", "AP@10", "P@5"])
    relevant = qrels[qrels.label >= 1].groupby("qid").size()
    very = qrels[qrels.label >= 2].groupby("qid").size()
    np.testing.assert_array_equal(res.n_relevant[:, 1], relevant.reindex(res.qids).to_numpy())
    np.testing.assert_array_equal(res.n_relevant[:, 0], very.reindex(res.qids).fillna(0).to_numpy())
    assert (res.n_relevant[:, 2] == -1).all()
    assert (res.depth[..., 0] == 30).all() and (res.depth[..., 1] == 10).all()


def test_per_system_mean_gmean_and_lmap(res):
    for statistic, agg, forward, se in [
        ("mean", lambda x, axis: x.mean(axis=axis), lambda x: x, "se"),
        ("gmean", lambda x, axis: np.exp(np.log(x + 1e-5).mean(axis=axis)) - 1e-5,  # Sakai's GM
         lambda x: np.log(x + 1e-5), "se(log)"),
        ("logit_mean", lambda x, axis: special.expit(special.logit(np.clip(x, 1e-5, 1 - 1e-5)).mean(axis=axis)),
         lambda x: special.logit(np.clip(x, 1e-5, 1 - 1e-5)), "se(logit)"),
    ]:
        table = res.per_system(statistic=statistic, method="percentile")
        per_image = agg(res.bootstrap_distribution, 2)
        low, high = np.quantile(per_image, [0.025, 0.975], axis=0)
        np.testing.assert_allclose(table[MEASURES].to_numpy(), agg(res.statistic, 1), rtol=1e-12)
        np.testing.assert_allclose(table[[f"{m} ci_low" for m in MEASURES]].to_numpy(), low, rtol=1e-12)
        np.testing.assert_allclose(table[[f"{m} ci_high" for m in MEASURES]].to_numpy(), high, rtol=1e-12)
        # the standard error is on the scale where the statistic is a mean, and its column says so
        np.testing.assert_allclose(table[[f"{m} {se}" for m in MEASURES]].to_numpy(),
                                   forward(res.bootstrap_distribution).mean(axis=2).std(axis=0, ddof=1), atol=1e-12)
        assert list(table.columns[:5]) == ["name", "AP", "AP ci_low", "AP ci_high", f"AP {se}"]


def test_per_system_normal_logit_bca(res):
    mean = res.bootstrap_distribution.mean(axis=2)
    theta = res.statistic.mean(axis=1)
    normal = res.per_system(method="normal", measures=["AP"])
    z = stats.norm.ppf(0.975)
    np.testing.assert_allclose(normal["AP ci_low"], theta[:, 0] - z * mean[:, :, 0].std(axis=0, ddof=1))
    logit = res.per_system(method="logit", measures=["AP"])
    sd = special.logit(mean[:, :, 0]).std(axis=0, ddof=1)
    np.testing.assert_allclose(logit["AP ci_high"], special.expit(special.logit(theta[:, 0]) + z * sd))
    bca = res.per_system(method="bca")
    assert np.all(bca[[f"{m} ci_low" for m in MEASURES]].to_numpy() <= theta + 1e-12)
    assert np.all(bca[[f"{m} ci_high" for m in MEASURES]].to_numpy() >= theta - 1e-12)


def test_per_system_parametric_is_cormack_lynam_section_8(res):
    x = res.statistic[..., 0]  # AP [S, Q]
    var = special.logit(np.clip(res.bootstrap_distribution[..., 0], 1e-5, 1 - 1e-5)).var(axis=0, ddof=1)
    Q = x.shape[1]
    z = stats.norm.ppf(0.975)
    se_map = np.sqrt(((x - x**2) ** 2 * var).sum(axis=1)) / Q
    table = res.per_system(method="parametric", measures=["AP"], variance="logit")  # the paper's formula
    np.testing.assert_allclose(table["AP ci_low"], x.mean(axis=1) - z * se_map)
    np.testing.assert_allclose(table["AP se"], se_map)
    # default "mixed": cells whose images reach 0 or 1 take the variance of their image values
    images = res.bootstrap_distribution[..., 0]
    extreme = (images.min(axis=0) == 0) | (images.max(axis=0) == 1)
    assert extreme.any() and not extreme.all()
    mixed = np.where(extreme, images.var(axis=0, ddof=1), (x - x**2) ** 2 * var)
    np.testing.assert_allclose(res.per_system(method="parametric", measures=["AP"])["AP se"],
                               np.sqrt(mixed.sum(axis=1)) / Q)
    score = res.per_system(method="parametric", measures=["AP"], variance="score")["AP se"]
    np.testing.assert_allclose(score, np.sqrt(images.var(axis=0, ddof=1).sum(axis=1)) / Q)
    # "small_r": variances implied by the small-R-corrected logit intervals of per_topic
    topic = res.per_topic(method="logit", measures=["AP"])
    logit = special.logit(np.clip(topic[["ci_low", "ci_high"]].to_numpy(), 1e-5, 1 - 1e-5))
    implied = (((logit[:, 1] - logit[:, 0]) / (2 * z)) ** 2).reshape(x.shape)
    np.testing.assert_allclose(res.per_system(method="parametric", measures=["AP"], variance="small_r")["AP se"],
                               np.sqrt(((x - x**2) ** 2 * implied).sum(axis=1)) / Q)
    lmap = res.per_system(statistic="logit_mean", method="parametric", measures=["AP"], variance="logit")
    centre = special.logit(np.clip(x, 1e-5, 1 - 1e-5)).mean(axis=1)
    np.testing.assert_allclose(lmap["AP ci_high"], special.expit(centre + z * np.sqrt(var.sum(axis=1)) / Q))
    np.testing.assert_allclose(lmap["AP se(logit)"], np.sqrt(var.sum(axis=1)) / Q)
    for rule in ("mixed", "score"):  # L-MAP is a mean of logits: no delta method to mix
        np.testing.assert_allclose(res.per_system(statistic="logit_mean", method="parametric", measures=["AP"],
                                                  variance=rule)["AP se(logit)"], lmap["AP se(logit)"])


def test_lmap_small_r_rule(res):
    """L-MAP's ``"small_r"`` rule on AP: the logit-scale variances implied by the small-R-corrected
    per-topic logit intervals (limits clipped to [ε, 1 - ε]), summed over topics, recomputed here
    from per_topic's interval limits with numpy; on other measures the image variance of the logits."""
    topic = res.per_topic(method="logit", measures=["AP"])
    x = res.statistic[..., 0]
    Q = x.shape[1]
    z = stats.norm.ppf(0.975)
    logit = special.logit(np.clip(topic[["ci_low", "ci_high"]].to_numpy(), 1e-5, 1 - 1e-5))
    implied = (((logit[:, 1] - logit[:, 0]) / (2 * z)) ** 2).reshape(x.shape)
    assert topic["small_r"].any()  # the rule differs from "logit" on this fixture
    se = np.sqrt(implied.sum(axis=1)) / Q
    centre = special.logit(np.clip(x, 1e-5, 1 - 1e-5)).mean(axis=1)
    table = res.per_system(statistic="logit_mean", method="parametric", measures=["AP"], variance="small_r")
    np.testing.assert_allclose(table["AP se(logit)"], se)
    np.testing.assert_allclose(table["AP ci_low"], special.expit(centre - z * se))
    np.testing.assert_allclose(table["AP ci_high"], special.expit(centre + z * se))
    np.testing.assert_allclose(table["AP"], special.expit(centre))
    logit_rule = res.per_system(statistic="logit_mean", method="parametric", measures=["AP"], variance="logit")
    assert not np.allclose(table["AP se(logit)"], logit_rule["AP se(logit)"])
    # "logit": the image variance of the logits, on every measure
    other = [m for m in res.measures if m != "AP"][0]
    both = res.per_system(statistic="logit_mean", method="parametric", measures=["AP", other], variance="logit")
    var = special.logit(np.clip(res.bootstrap_distribution[..., res.measures.index(other)], 1e-5, 1 - 1e-5))
    np.testing.assert_allclose(both[f"{other} se(logit)"], np.sqrt(var.var(axis=0, ddof=1).sum(axis=1)) / Q)
    np.testing.assert_allclose(both["AP se(logit)"], logit_rule["AP se(logit)"])
    with pytest.raises(ValueError, match=r"'variance' must be one of"):
        res.per_system(method="parametric", variance="wide")
    with pytest.raises(ValueError, match=r"variance='logit' is not a rule for statistic='gmean'"):
        res.per_system(statistic="gmean", method="parametric", variance="logit")
    with pytest.raises(ValueError, match=r"variance='empirical_bayes' is not a rule for statistic='mean'"):
        res.per_system(method="parametric", variance="empirical_bayes")


FOUND_MEASURES = {  # measure -> (grades that count, depth: int, "R" or None for the whole ranking, judged only)
    "AP": ({1, 2}, None, False), "AP(rel=2)": ({2}, None, False), "nDCG@10": ({1, 2}, 10, False),
    "nDCG(gains={0:0,1:0,2:5})@10": ({2}, 10, False), "nCG(gains={-1:3,0:0,1:1,2:2})@10": ({-1, 1, 2}, 10, False),
    "P(judged_only=True)@5": ({1, 2}, 5, True),
    "Rprec": ({1, 2}, "R", False), "RBP(p=0.9)": ({1, 2}, None, False), "ERR@10": ({1, 2}, 10, False),
    "Success@3": ({1, 2}, 3, False), "R@20": ({1, 2}, 20, False), "RR(rel=2)": ({2}, None, False),
}


def test_relevant_found_counts_the_run_frames():
    """``found``: relevant documents in each run's top ``depth`` as each measure defines them (grades
    >= rel, or with a positive gain, a negative grade's too; R for Rprec; ranks among judged
    documents for judged_only),
    counted with pandas from frames with tied scores (trec_eval breaks ties by docno, descending),
    unjudged documents and a negative grade (unjudged for trec_eval); each such measure is 0
    exactly when its count is. Bpref can be 0 with relevant documents retrieved: -1."""
    rng = np.random.default_rng(8)
    qids, docs = ["1", "2", "3", "4", "5"], [f"d{i:02d}" for i in range(40)]
    qrels = pd.DataFrame([(q, docs[d], int(g)) for q in qids for d, g in
                          zip(rng.choice(40, 25, replace=False), rng.choice([-1, 0, 0, 0, 1, 2], 25))],
                         columns=["qid", "docno", "label"])
    runs = {name: pd.DataFrame([(q, docs[d], float(np.round(rng.normal(), 1))) for q in qids
                                for d in rng.choice(40, 30, replace=False)], columns=["qid", "docno", "score"])
            for name in "xyz"}
    res = CorpusBootstrap(qrels, n_images=10, rng=5, verbose=False).evaluate(runs, list(FOUND_MEASURES) + ["Bpref"])
    labels = qrels.set_index(["qid", "docno"])["label"]
    R = qrels[qrels.label >= 1].groupby("qid").size().reindex(qids, fill_value=0)
    for s, name in enumerate(res.systems):
        frame = runs[name].sort_values(["qid", "score", "docno"], ascending=[True, False, False])
        grade = labels.reindex(list(zip(frame.qid, frame.docno))).to_numpy()
        for m, (counted, depth, judged_only) in enumerate(FOUND_MEASURES.values()):
            ranked = frame[grade >= 0] if judged_only else frame
            g = (grade[grade >= 0] if judged_only else grade)
            rank = ranked.groupby("qid").cumcount().to_numpy()
            limit = (R.reindex(ranked.qid).to_numpy() if depth == "R" else np.inf if depth is None else depth)
            hit = np.isin(g, list(counted)) & (rank < limit)
            expected = pd.Series(hit).groupby(ranked.qid.to_numpy()).sum().reindex(qids, fill_value=0)
            np.testing.assert_array_equal(res.found[s, :, m], expected.to_numpy(), err_msg=res.measures[m])
    M = len(FOUND_MEASURES)
    np.testing.assert_array_equal(res.found[..., :M] == 0, res.statistic[..., :M] == 0)  # the jump the rule models
    assert (res.found[..., :M] > 0).any() and (res.found[..., :M] == 0).any()
    assert (res.found[..., M] == -1).all()  # Bpref


def test_empirical_bayes_rule_of_lmap_and_gmap(res):
    """``variance="empirical_bayes"``: the per-cell variances of
    :func:`~pyterrier_boot.corpus.empirical_bayes.replicate_variance` on the logit (L-MAP) or log
    (G-MAP) scale with the statistic's own ε (whatever ``eps``), summed over topics: the default
    interval of both. Cells at 0 get a variance (the image variance gives them none); G-MAP's limits
    stay in [0, 1]."""
    from pyterrier_boot.corpus.empirical_bayes import (
        fit_rate_prior,
        replicate_variance,
        zero_chance,
    )

    Q = len(res.qids)
    z = stats.norm.ppf(0.975)
    for statistic, f, back, suffix in (
            ("logit_mean", lambda v: special.logit(np.clip(v, 1e-5, 1 - 1e-5)), special.expit, "se(logit)"),
            ("gmean", lambda v: np.log(v + 1e-5), lambda u: np.clip(np.exp(u) - 1e-5, 0, 1), "se(log)")):
        table = res.per_system(statistic=statistic, variance="empirical_bayes", eps=1e-3)
        for m, label in enumerate(MEASURES):
            k = res.found[..., m]
            v = replicate_variance(f(res.statistic[..., m]), f(res.bootstrap_distribution[..., m]), k,
                                   zero_chance(k, fit_rate_prior(k)), float(f(0.0)))
            assert (v[k == 0] > 0).all() and (k == 0).any()
            se = np.sqrt(v.sum(axis=1)) / Q
            np.testing.assert_allclose(table[f"{label} {suffix}"], se)
            centre = f(res.statistic[..., m]).mean(axis=1)
            np.testing.assert_allclose(table[f"{label} ci_low"], back(centre - z * se))
            np.testing.assert_allclose(table[f"{label} ci_high"], back(centre + z * se))
        assert (table.filter(like="ci_").to_numpy() >= 0).all() and (table.filter(like="ci_").to_numpy() <= 1).all()
        # the default interval; G-MAP's other rule: the image variance of the logs
        pd.testing.assert_frame_equal(res.per_system(statistic=statistic), table)
    assert (table.filter(like="ci_high").to_numpy() == 1).any()  # clipped: exp(.) - ε passes 1 on 8 topics
    images = res.per_system(statistic="gmean", variance="score")
    np.testing.assert_allclose(images["AP se(log)"], np.sqrt(
        np.log(res.bootstrap_distribution[..., 0] + 1e-5).var(axis=0, ddof=1).sum(axis=1)) / Q)
    pd.testing.assert_frame_equal(res.per_system(), res.per_system(method="percentile"))


def test_per_system_rules_and_their_errors(res):
    """``variance=`` implies the parametric method and is refused with another; a measure that can
    be 0 with relevant documents retrieved (Bpref: no count) takes the image variance by default
    and refuses the empirical-Bayes rule by name; results without counts say what to do."""
    assert res.per_system(variance="score").equals(res.per_system(method="parametric", variance="score"))
    with pytest.raises(ValueError, match=r"'variance' is a rule of method='parametric'; got method='normal' with "
                                         r"variance='score'"):
        res.per_system(method="normal", variance="score")
    with pytest.raises(ValueError, match=r"'method' must be one of 'percentile', .*; got 'foo'"):
        res.per_system(method="foo", variance="score")
    with pytest.raises(ValueError, match=r"variance='small_r' is not a rule for statistic='gmean'"):
        res.per_system(statistic="gmean", variance="small_r")
    no_count = dataclasses.replace(res, found=np.where(np.arange(4) == 3, -1, res.found))  # RR as if Bpref
    default = no_count.per_system(statistic="logit_mean")
    image = no_count.per_system(statistic="logit_mean", variance="score")
    np.testing.assert_allclose(default["RR se(logit)"], image["RR se(logit)"])
    np.testing.assert_allclose(default["AP se(logit)"], res.per_system(statistic="logit_mean")["AP se(logit)"])
    with pytest.raises(ValueError, match=r"and 'RR' is not \(Bpref, Judged and measures without a kernel are not\); "
                                         r"leave variance=None \(it picks the image variance there\) or pick measures"):
        no_count.per_system(statistic="gmean", variance="empirical_bayes")
    for bad, error in ((0, ValueError), (-1, ValueError), (0.5, ValueError), ("1e-5", TypeError)):
        with pytest.raises(error, match=r"'eps' must be"):
            res.per_system(method="parametric", eps=bad)
        with pytest.raises(error, match=r"'eps' must be"):
            res.per_topic(method="logit", eps=bad)
    old = dataclasses.replace(res, found=None)
    with pytest.raises(ValueError, match=r"which this result lacks \(saved by an older version or built by hand\): "
                                         r"rerun CorpusBootstrap.evaluate, or pass method='normal'"):
        old.per_system(statistic="gmean")


def test_difference_is_paired_within_images(res):
    d = res.difference("c", "a", method="percentile")
    statistic, pvalue = d
    x = res.bootstrap_distribution
    per_image = x[:, 2].mean(axis=1) - x[:, 0].mean(axis=1)
    np.testing.assert_allclose(d.bootstrap_distribution, per_image)
    np.testing.assert_allclose(statistic, res.statistic[2].mean(axis=0) - res.statistic[0].mean(axis=0))
    low, high = np.quantile(per_image, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(d.confidence_interval.low, low)
    np.testing.assert_allclose(d.confidence_interval.high, high)
    np.testing.assert_allclose(pvalue, np.minimum(1, 2 * np.minimum((per_image <= 0).sum(0) + 1,
                                                                     (per_image >= 0).sum(0) + 1) / 301))
    np.testing.assert_allclose(d.topic_bootstrap_distribution, x[:, 2] - x[:, 0])
    np.testing.assert_allclose(d.topic_statistic, res.statistic[2] - res.statistic[0])
    assert d.topic_pvalue.shape == (8, 4)
    # the paired t-tests over topics (Zobel & Rashidi Fig. 6), as scipy.stats.ttest_rel
    reference = stats.ttest_rel(res.statistic[2], res.statistic[0], axis=0)
    np.testing.assert_allclose(d.ttest_statistic, reference.statistic)
    np.testing.assert_allclose(d.ttest_pvalue, reference.pvalue)
    for b in (0, 17, 299):
        np.testing.assert_allclose(d.image_ttest_pvalues[b], stats.ttest_rel(x[b, 2], x[b, 0], axis=0).pvalue)
    frame = d.to_frame()
    assert list(frame.columns) == ["a", "b", "measure", "scale", "difference", "ci_low", "ci_high",
                                   "standard_error", "pvalue", "ttest_pvalue"]
    assert (frame["scale"] == "score").all() and d.scale == "score"
    assert len(d.to_frame(per_topic=True)) == 8 * 4


def test_difference_normal_and_bca(res):
    normal = res.difference("b", "a", method="normal")
    sd = normal.bootstrap_distribution.std(axis=0, ddof=1)
    np.testing.assert_allclose(normal.pvalue, 2 * stats.norm.sf(np.abs(normal.statistic) / sd))
    bca = res.difference("b", "a", method="bca", statistic="logit_mean")
    assert bca.statistic_name == "logit_mean" and np.all((bca.pvalue > 0) & (bca.pvalue <= 1))


def test_logit_mean_uses_one_scale_for_differences_and_per_system(res):
    """L-MAP differences are log odds ratios (Cormack & Lynam §9): per topic logit x_a - logit x_b,
    aggregated as logit(L-MAP_a) - logit(L-MAP_b); per_system's normal interval and se(logit) use
    the same scale, so their standard errors agree with the difference's."""
    def logit(x):
        return special.logit(np.clip(x, 1e-5, 1 - 1e-5))

    d = res.difference("b", "a", statistic="logit_mean", method="normal")
    assert d.scale == "logit" and (d.to_frame(per_topic=True)["scale"] == "logit").all()
    np.testing.assert_allclose(d.topic_statistic, logit(res.statistic[1]) - logit(res.statistic[0]))
    lmap = res.per_system(statistic="logit_mean", method="normal")
    np.testing.assert_allclose(d.statistic, special.logit(lmap[MEASURES].to_numpy()[1])
                               - special.logit(lmap[MEASURES].to_numpy()[0]), atol=1e-12)
    images = logit(res.bootstrap_distribution)
    per_image = images[:, 1].mean(axis=1) - images[:, 0].mean(axis=1)
    np.testing.assert_allclose(d.bootstrap_distribution, per_image)
    np.testing.assert_allclose(d.pvalue, 2 * stats.norm.sf(np.abs(d.statistic) / per_image.std(axis=0, ddof=1)))
    np.testing.assert_allclose(d.ttest_pvalue, stats.ttest_rel(logit(res.statistic[1]), logit(res.statistic[0]),
                                                               axis=0).pvalue)
    g = res.difference("b", "a", statistic="gmean")
    assert g.scale == "log"
    np.testing.assert_allclose(g.topic_statistic, np.log(res.statistic[1] + 1e-5) - np.log(res.statistic[0] + 1e-5))


def test_ranks_are_scipy_rankdata_per_image(res):
    ranks = res.ranks()
    means = res.bootstrap_distribution.mean(axis=2)
    np.testing.assert_array_equal(ranks.bootstrap_distribution, stats.rankdata(-means, axis=1))
    np.testing.assert_array_equal(ranks.statistic, stats.rankdata(-res.statistic.mean(axis=1), axis=0))
    low, high = ranks.confidence_interval
    inside = (ranks.bootstrap_distribution >= low) & (ranks.bootstrap_distribution <= high)
    assert np.all(inside.mean(axis=0) >= 0.95)
    table = ranks.to_frame()
    assert list(table.columns) == ["name", "measure", "rank", "mean_rank", "min", "q1", "median", "q3", "max",
                                   "ci_low", "ci_high", "p_first"]
    first = table[table.measure == "AP"].iloc[0]
    assert first["rank"] == 1 and first["p_first"] == pytest.approx((ranks.bootstrap_distribution[:, :, 0] == 1)
                                                                    [:, res.systems.index(first["name"])].mean())
    freq = ranks.frequencies()
    assert np.allclose(freq.groupby(["name", "measure"])["share"].sum(), 1.0)


def test_to_frame_long_forms(res):
    frame = res.to_frame()
    assert list(frame.columns) == ["name", "qid", "measure", "value", "image_mean", "standard_error"]
    np.testing.assert_allclose(frame["image_mean"], res.bootstrap_distribution.mean(axis=0).reshape(-1))
    images = res.to_frame(images=True)
    assert len(images) == 300 * 4 * 8 * 4
    pick = images[(images.name == "b") & (images.image == 7) & (images.qid == "5") & (images.measure == "P@5")]
    assert pick["value"].item() == res.bootstrap_distribution[7, 1, 4, 2]
    html = res._repr_html_()
    assert "Corpus bootstrap: 300 poisson images" in html and "<table" in html


def test_bad_arguments(res):
    with pytest.raises(ValueError, match=r"unknown system 'x' for 'a': expected one of \['a', 'b', 'c', 'd'\]"):
        res.difference("x", "a")
    with pytest.raises(ValueError, match=r"'a' and 'b' are the same system \('a'\)"):
        res.difference("a", "a")
    with pytest.raises(ValueError, match=r"method='logit' is not available for differences, which lie in \[-1, 1\]"):
        res.difference("a", "b", method="logit")
    with pytest.raises(ValueError, match=r"'method' must be one of 'percentile', 'normal', 'logit', 'bca'; got 't'"):
        res.per_topic(method="t")
    with pytest.raises(ValueError, match=r"'statistic' must be one of 'mean', 'gmean', 'logit_mean'; got 'median'"):
        res.per_system(statistic="median")
    with pytest.raises(ValueError, match=r"unknown measure 'MAP' in 'measures': expected one of \['AP', "):
        res.per_topic(measures=["MAP"])
    unbounded = dataclasses.replace(res, unit=(False, True, True, True))
    with pytest.raises(ValueError, match=r"method='logit' needs scores in \[0, 1\], and \['AP'\] is not known to lie "
                                         r"in \[0, 1\]; use 'percentile', 'normal' or 'bca', or pick measures"):
        unbounded.per_topic(method="logit")
    assert len(unbounded.per_topic(method="logit", measures=["RR"])) == 32
    with pytest.raises(ValueError, match=r"the default method='parametric' of statistic='gmean' needs scores in "
                                         r"\[0, 1\], and \['AP'\] is not known"):
        unbounded.per_system(statistic="gmean")
    assert len(unbounded.per_system(statistic="gmean", method="normal")) == 4
