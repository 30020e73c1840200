"""audit_tests: the model (support, margins, copulas), the simulations, the test battery and the result."""
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from conftest import write_trec
from scipy import stats

import pyterrier_boot as pb
from pyterrier_boot import FitWarning, InputWarning
from pyterrier_boot.audit.battery import family_block, pvalues
from pyterrier_boot.audit.copulas import fit_pair_copulas, pseudo_observations
from pyterrier_boot.audit.goodness import goodness_of_fit
from pyterrier_boot.audit.margins import fit_margin
from pyterrier_boot.audit.model import fit_model
from pyterrier_boot.audit.simulation import pair_differences, pair_draws
from pyterrier_boot.audit.support import support_for
from pyterrier_boot.stats.resampling import resample_plan, sign_flip_plan

FAST = dict(n_simulations=200, n_families=40, n_resamples=100, verbose=False)


def _ap_like(n_systems=5, n_topics=30, seed=0):
    scores, _ = pb.simulate_scores(n_systems, n_topics, rng=seed)
    scores[:, :3] = 0.0  # topics nobody solves: an atom at 0
    frame = pd.DataFrame(scores, index=[f"s{i}" for i in range(n_systems)],
                         columns=pd.Index([str(q) for q in range(n_topics)], name="qid"))
    return frame


@pytest.fixture(scope="module")
def small_audit():
    return pb.audit_tests(_ap_like(), measure="AP", effects=(0.05, 0.1), rng=1, **FAST)


# ------------------------------------------------------------------------------------------------
# support and margins


def test_support_is_read_from_the_measure_or_the_scores():
    assert support_for("P@10", np.array([[0.1, 0.3]])).description == "multiples of 1/10"
    assert support_for(None, np.array([[0.2, 0.4, 0.0]])).description == "multiples of 1/5"
    rr = support_for(None, np.array([[1, 0.5, 1 / 3, 1 / 7, 0]]))
    assert rr.separate_zero and rr.description == "0 and 1/r for ranks r = 1..7"
    assert not support_for(None, np.array([[0.123, 0.45]])).discrete
    assert support_for("RR@5", np.array([[1.0]])).values.tolist() == [0, 0.2, 0.25, 1 / 3, 0.5, 1]


def test_support_refuses_scores_off_the_measure():
    with pytest.raises(ValueError, match=r"scores outside the range \[0, 1\] of 'AP': 1 in all, e.g. 1.2 for system 'b'"):
        support_for("AP", np.zeros((1, 2))).snap(np.array([[0.1, 0.2], [1.2, 0.3]]), ["a", "b"])
    with pytest.raises(ValueError, match=r"'P@10' takes only multiples of 1/10, but system 'a' scores \[0.15\]"):
        support_for("P@10", np.zeros((1, 2))).snap(np.array([[0.15, 0.2]]), ["a"])
    with pytest.raises(ValueError, match="summed over topics"):
        support_for("NumRet", np.zeros((1, 2)))


def test_continuous_margin_keeps_the_atoms_and_its_tilts_move_the_mean_exactly():
    rng = np.random.default_rng(3)
    x = np.concatenate([np.zeros(8), np.ones(2), rng.beta(0.8, 2.5, 40)])
    margin = fit_margin(x, support_for("AP", x[None, :]))
    assert margin.family in ("truncated normal", "beta", "kernel")
    assert margin.share(0.0) == pytest.approx(8 / 50) and margin.share(1.0) == pytest.approx(2 / 50)
    assert abs(margin.mean() - x.mean()) < x.std() / np.sqrt(x.size)
    draws = margin.ppf(rng.random(200_000))
    assert abs(draws.mean() - margin.mean()) < 0.003 and abs((draws == 0).mean() - 8 / 50) < 0.004
    for delta in (0.01, 0.1, -0.05):
        moved = margin.shifted(delta)
        assert moved.mean() - margin.mean() == pytest.approx(delta, abs=1e-9)
        assert moved.ppf(np.array([0.0, 1.0])).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("measure, values", [("P@10", np.arange(11) / 10), ("RR", None)])
def test_discrete_margins_draw_only_values_of_the_support(measure, values):
    rng = np.random.default_rng(4)
    if values is None:
        x = np.where(rng.random(60) < 0.3, 0.0, 1 / rng.geometric(0.4, 60))
    else:
        x = rng.binomial(10, 0.35, 60) / 10
    support = support_for(measure, x[None, :])
    margin = fit_margin(support.snap(x[None, :], ["s"])[0], support)
    draws = margin.ppf(rng.random(50_000))
    assert np.isin(draws, support.values).all()
    assert abs(margin.share(0.0) - (x == 0).mean()) < 0.1
    moved = margin.shifted(0.05)
    assert np.isin(moved.ppf(rng.random(1000)), support.values).all()
    assert moved.mean() - margin.mean() == pytest.approx(0.05, abs=1e-9)


def test_few_distinct_scores_give_the_empirical_margin():
    x = np.array([0.0] * 20 + [0.5] * 5 + [0.25] * 5)
    margin = fit_margin(x, support_for("AP", x[None, :]))
    assert margin.family == "empirical" and margin.mean() == pytest.approx(x.mean())


# ------------------------------------------------------------------------------------------------
# copulas, simulation


def test_pair_copula_draws_have_the_fitted_dependence_and_orientation():
    rng = np.random.default_rng(5)
    z = rng.multivariate_normal([0, 0, 0], [[1, 0.8, 0.2], [0.8, 1, 0.2], [0.2, 0.2, 1]], size=60).T
    U = pseudo_observations(z, rng)
    assert sorted(U[:, 0] * 61) == list(range(1, 61))
    pairs = fit_pair_copulas(U, ["a", "b", "c"])
    assert len(pairs.table) == 3
    w = rng.random((20_000, 2))
    tau = pairs.copulas[0, 1].tau
    assert stats.kendalltau(*pairs.draw(0, 1, w).T)[0] == pytest.approx(tau, abs=0.02)
    np.testing.assert_array_equal(pairs.draw(1, 0, w), pairs.draw(0, 1, w)[:, ::-1])


def test_null_pairs_go_through_one_margin_and_effects_add_delta():
    X = _ap_like(4, 40).to_numpy()
    support = support_for("AP", X)
    model = fit_model(X, list("abcd"), support, np.random.default_rng(0), joint=False)
    reference, other, U = pair_draws(model, 40, 2000, np.random.default_rng(1))
    assert (reference != other).all()
    null = pair_differences(model, reference, U, 0.0)
    assert abs(null.mean()) < 3 * null.mean(axis=1).std() / np.sqrt(2000)
    effect = pair_differences(model, reference, U, 0.05)
    expected = np.mean([model.effect_margins(0.05)[s][1].mean() - model.effect_margins(0.05)[s][0].mean()
                        for s in reference])
    assert expected == pytest.approx(0.05)
    assert effect.mean() == pytest.approx(0.05, abs=3 * effect.mean(axis=1).std() / np.sqrt(2000))


# ------------------------------------------------------------------------------------------------
# the battery: the package's own tests


def test_battery_pvalues_are_the_single_pair_functions_pvalues():
    rng = np.random.default_rng(6)
    D = rng.normal(0.02, 0.1, (6, 25))
    D[2, :4] = 0
    plans = {"resample": resample_plan(25, n_resamples=200, rng=1), "sign_flip": sign_flip_plan(25, n_resamples=200, rng=2)}
    single = {"t": lambda d: pb.t_test(d, 0 * d), "wilcoxon": lambda d: pb.wilcoxon_test(d, 0 * d),
              "sign": lambda d: pb.sign_test(d, 0 * d),
              "paired-bootstrap": lambda d: pb.paired_bootstrap_test(d, 0 * d, plan=plans["resample"]),
              "randomization": lambda d: pb.randomization_test(d, 0 * d, plan=plans["sign_flip"])}
    for test, function in single.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pb.BootWarning)  # few resamples
            expected = [function(d).pvalue for d in D]
        np.testing.assert_allclose(pvalues(D, test, "two-sided", plans), expected, rtol=1e-12, err_msg=test)


def test_family_outcomes_count_false_and_true_discoveries():
    X = _ap_like(5, 30).to_numpy()
    model = fit_model(X, list("abcde"), support_for("AP", X), np.random.default_rng(0), joint=True)
    null, effect = family_block((model, 30, 60, 5, np.random.SeedSequence(1), (0.3,), ("t",),
                                 ("none", "bonferroni", "holm", "fdr_bh", "tukey-hsd"), 0.05, 100))
    none, bonferroni = null["t", "none"], null["t", "bonferroni"]
    assert (bonferroni["any_false"] <= none["any_false"]).all()
    assert np.isnan(none["power"]).all()
    assert (null["t", "holm"]["any_false"] == bonferroni["any_false"]).all()  # same first step
    assert effect["t", "none"]["power"].mean() > 0.5  # a difference of 0.3 is found
    assert (effect["t", "holm"]["power"] >= effect["t", "bonferroni"]["power"]).all()


# ------------------------------------------------------------------------------------------------
# audit_tests and TestAudit


def test_table_has_one_row_per_test_and_correction_with_the_named_columns(small_audit):
    table = small_audit.table()
    for column in ("test", "correction", "alternative", "n_topics", "alpha", "type_i", "type_i_se", "type_iii",
                   "power@0.05", "power@0.1", "fdr@0.05"):
        assert column in table.columns
    pairs = table[table["systems"] == 2]
    assert pairs["test"].tolist() == ["t", "wilcoxon", "sign", "paired-bootstrap", "randomization"]
    families = table[table["systems"] == 5]
    assert set(families["correction"]) == {"none", "bonferroni", "holm", "fdr_bh", "tukey-hsd"}
    assert families[families["correction"] == "tukey-hsd"]["test"].tolist() == ["t"]
    assert table["type_i"].between(0, 1).all()
    assert (pairs["type_i_se"] == np.sqrt(pairs["type_i"] * (1 - pairs["type_i"]) / 200)).all()
    assert (pairs["power@0.1"] >= pairs["power@0.05"] - 0.05).all()


def test_the_same_rng_gives_the_same_audit_with_or_without_an_executor(small_audit):
    with ThreadPoolExecutor(2) as executor:
        again = pb.audit_tests(_ap_like(), measure="AP", effects=(0.05, 0.1), rng=1, executor=executor, **FAST)
    pd.testing.assert_frame_equal(again.table(), small_audit.table())


def test_recommendation_names_the_settings_and_the_rates(small_audit):
    text = small_audit.recommendation()
    assert text.startswith("On 5 systems x 30 topics of AP, 200 simulated sets of 30 topics")
    assert "at alpha = 0.05 (two-sided)" in text and text.endswith(".")
    best = small_audit.table().iloc[0]
    assert f"{best['type_i']:.3f}" in text or "kept" in text


def test_save_load_latex_html_and_plots(small_audit, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    path = small_audit.save(tmp_path / "audit.zip")
    loaded = pb.TestAudit.load(path)
    pd.testing.assert_frame_equal(loaded.table(), small_audit.table())
    np.testing.assert_array_equal(loaded.null_pvalues, small_audit.null_pvalues)
    assert loaded.recommendation() == small_audit.recommendation()
    latex = small_audit.to_latex(label="tab:audit")
    assert latex.startswith("\\begin{table}") and "\\label{tab:audit}" in latex and "paired-bootstrap" in latex
    assert "<table>" in small_audit._repr_html_()
    assert small_audit.plot().get_ylabel() == "Type I error rate"
    assert small_audit.plot("power").get_xlabel() == "true difference of means"
    curve = small_audit.type_i_curve([0.01, 0.05, 1.0])
    assert curve.loc[2, "t"] == 1.0 and (curve.loc[1, ["t", "sign"]] == small_audit.table()["type_i"][[0, 2]].values).all()
    (tmp_path / "other.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="'path': .* is not a saved test audit"):
        pb.TestAudit.load(tmp_path / "other.zip")


def test_several_topic_counts_and_alternatives():
    audit = pb.audit_tests(_ap_like(), measure="AP", n_topics=[10, 20], alternatives=["two-sided", "greater"],
                           tests=["t", "sign"], corrections=None, effects=(0.1,), rng=2, **FAST)
    table = audit.table()
    assert len(table) == 2 * 2 * 2 and set(table["n_topics"]) == {10, 20}
    greater = table[table["alternative"] == "greater"]
    assert greater["type_iii"].isna().all()
    assert audit.null_pvalues.shape == (2, 2, 2, 200)


def test_runs_and_qrels_are_evaluated_for_the_measure(tmp_path):
    sim = pb.simulate_collection(n_topics=12, n_systems=4, depth=50, pool_depth=10, rng=3)
    folder = write_trec(sim.runs, sim.qrels, tmp_path)
    audit = pb.audit_tests(str(folder / "runs"), str(folder / "qrels.txt"), "P@5", tests=["t"], corrections=None,
                           effects=(), rng=0, **FAST)
    assert audit.measure == "P@5" and audit.support == "multiples of 1/5" and len(audit.systems) == 4


# ------------------------------------------------------------------------------------------------
# bad input


def test_too_few_systems_or_topics_say_what_is_needed():
    with pytest.raises(ValueError, match="has 9 topics; fitting a model of the scores needs at least 10 topics"):
        pb.audit_tests(_ap_like(4, 9), measure="AP", **FAST)
    with pytest.raises(ValueError, match="fitting margins and copulas needs at least 3 systems"):
        pb.audit_tests(_ap_like(2, 20), measure="AP", **FAST)


def test_constant_scores_are_refused_and_constant_systems_left_out():
    flat = _ap_like(4, 20) * 0
    with pytest.raises(ValueError, match="the per-topic scores are constant"):
        pb.audit_tests(flat, measure="AP", **FAST)
    scores = _ap_like(5, 20)
    scores.iloc[0] = 0.0
    with pytest.warns(InputWarning, match=r"1 system\(s\) score the same on every topic and are left out.*: s0"):
        audit = pb.audit_tests(scores, measure="AP", tests=["t"], corrections=None, effects=(), **FAST)
    assert audit.systems == ("s1", "s2", "s3", "s4")


@pytest.mark.parametrize("options, message", [
    (dict(tests=["student"]), "'tests' must be one of 'paired_bootstrap'"),
    (dict(corrections=["sidak"]), "'corrections' must be one of 'none', 'bonferroni', 'holm', 'fdr_bh', 'tukey-hsd'"),
    (dict(effects=(0.05, 1.5)), "'effects' must be distinct differences of means in \\(0, 1\\)"),
    (dict(n_topics=3), "'n_topics' must be an integer >= 5"),
    (dict(alternatives="bigger"), "'alternatives' must be one of 'two-sided', 'greater', 'less'"),
    (dict(family_size=9), "'family_size' is 9 but only 5 systems are modelled"),
    (dict(alpha=1.5), "'alpha'"),
    (dict(n_simulations=5), "'n_simulations' must be an integer >= 10"),
])
def test_bad_arguments_name_the_argument(options, message):
    with pytest.raises(ValueError, match=message):
        pb.audit_tests(_ap_like(), measure="AP", **{**FAST, **options})


def test_bad_types_and_missing_measure():
    with pytest.raises(TypeError, match="'executor' must be a concurrent.futures.Executor"):
        pb.audit_tests(_ap_like(), measure="AP", executor="dask", **FAST)
    with pytest.raises(ValueError, match="'measure' is required"):
        pb.audit_tests({"a": pd.DataFrame()}, "qrels.txt", **FAST)


def test_a_model_that_misses_the_data_warns_naming_the_systems():
    X = _ap_like(4, 40).to_numpy()
    model = fit_model(X, list("abcd"), support_for("AP", X), np.random.default_rng(0), joint=False)
    shifted = np.clip(X + np.array([[0.0], [0.3], [0.0], [0.0]]), 0, 1)
    with pytest.warns(FitWarning, match=r"does not reproduce the scores of 1 system\(s\).*: b"):
        result = goodness_of_fit(model, shifted)
    assert result.systems["ok"].tolist() == [True, False, True, True] and not result.ok
    assert goodness_of_fit(model, X, warn=False).summary()["within_tolerance"].iloc[0] == 1.0


# ------------------------------------------------------------------------------------------------
# statistical properties: on a model whose null is exact, the simulated Type I errors are nominal


def _exact_null_model():
    """Beta margins and Gaussian pair copulas: both columns through one margin are exchangeable."""
    import pyvinecopulib as pv

    from pyterrier_boot.audit.copulas import PairCopulas
    from pyterrier_boot.audit.margins import Margin
    from pyterrier_boot.audit.model import ScoreModel

    u = np.linspace(0, 1, 20_001)
    betas = [(0.8, 2.5), (1.2, 2.0), (2.0, 2.0), (0.7, 1.2)]
    margins = tuple(Margin("beta", 0.0, 2.0, knots_u=u, knots_x=stats.beta.ppf(u, a, b)) for a, b in betas)
    copulas = {(i, j): pv.Bicop(pv.BicopFamily.gaussian, parameters=np.array([[0.4 + 0.1 * (i + j)]]))
               for i in range(4) for j in range(i + 1, 4)}
    return ScoreModel(tuple("abcd"), support_for("AP", np.zeros((1, 2))), margins,
                      PairCopulas(copulas, pd.DataFrame()), None, 50)


def _null_rates(n_simulations, tests, n_topics=30):
    from pyterrier_boot.audit.battery import pair_block

    model = _exact_null_model()
    seeds = np.random.SeedSequence(11).spawn(n_simulations // 500)
    p = np.concatenate([pair_block((model, n_topics, 500, s, (), tests, ("two-sided",), 200))["null"][0]
                        for s in seeds], axis=-1)
    return (p < 0.05).mean(axis=1), np.sqrt(0.05 * 0.95 / p.shape[1])


def test_exact_null_gives_nominal_type_i_errors():
    rates, se = _null_rates(1000, ("t", "randomization"))
    assert (np.abs(rates - 0.05) < 4 * se).all(), rates


@pytest.mark.slow
def test_exact_null_gives_nominal_type_i_errors_for_every_test():
    """20,000 simulations: the exact tests (randomisation, sign, Wilcoxon) at most nominal, the t-test
    and the bootstrap near it; Monte Carlo SE 0.0015."""
    tests = ("t", "wilcoxon", "sign", "paired-bootstrap", "randomization")
    rates, se = _null_rates(20_000, tests)
    found = dict(zip(tests, rates))
    assert abs(found["t"] - 0.05) < 4 * se and abs(found["randomization"] - 0.05) < 4 * se
    assert found["sign"] < 0.05 + 4 * se and found["wilcoxon"] < 0.05 + 4 * se
    assert abs(found["paired-bootstrap"] - 0.05) < 0.01


def test_missing_scores_follow_nan_policy():
    scores = _ap_like(4, 20)
    scores.iloc[1, 3] = np.nan
    with pytest.raises(ValueError, match="missing \\(NaN\\) scores for 1 topic\\(s\\) \\['3'\\].*nan_policy='omit'"):
        pb.audit_tests(scores, measure="AP", **FAST)
    with pytest.warns(InputWarning, match="dropped 1 topic"):
        audit = pb.audit_tests(scores, measure="AP", tests=["t"], corrections=None, effects=(), nan_policy="omit",
                               **FAST)
    assert audit.n_topics_observed == 19
    with pytest.raises(TypeError, match="'effects' must be numbers"):
        pb.audit_tests(_ap_like(4, 20), measure="AP", effects=("big",), **FAST)


@pytest.mark.slow
def test_audit_of_a_simulate_scores_matrix_matches_a_direct_monte_carlo_of_its_null():
    """The whole audit (fit and simulation) of a 30 x 25 matrix of ``simulate_scores`` against scipy's
    tests on 4,000 topic sets of the generator's own null (``simulate_null_scores``): within three
    standard errors, the matrix-to-matrix spread of the audit (SD 0.004, benchmarks/audit_validation.py)
    included."""
    matrix, _ = pb.simulate_scores(30, 25, rng=101)
    scores = pd.DataFrame(matrix, columns=pd.Index([str(q) for q in range(25)], name="qid"))
    audit = pb.audit_tests(scores, measure="AP", tests=["t", "wilcoxon", "sign"], corrections=None, effects=(),
                           n_simulations=4000, rng=3, verbose=False)
    rng = np.random.default_rng(4)
    pairs = np.array([pb.simulate_null_scores(2, 25, rng=rng)[0] for _ in range(4000)])
    d = pairs[:, 0] - pairs[:, 1]
    wins, losses = (d > 0).sum(axis=1), (d < 0).sum(axis=1)
    direct = np.array([stats.ttest_rel(pairs[:, 0], pairs[:, 1], axis=1).pvalue, stats.wilcoxon(d, axis=1).pvalue,
                       [stats.binomtest(w, w + v).pvalue for w, v in zip(wins, losses, strict=True)]]) < 0.05
    found, expected = audit.table()["type_i"].to_numpy(), direct.mean(axis=1)
    se = np.sqrt(found * (1 - found) / 4000 + expected * (1 - expected) / 4000 + 0.004 ** 2)
    assert (np.abs(found - expected) < 3 * se).all(), (found, expected)
