"""One verdict per row (issue 11): each test's interval is the one it inverts, so a row rejects
exactly when its interval excludes 0; checked against independent references (scipy's t interval,
brute-force inversion of scipy's Wilcoxon and binomial p-values and of our own randomisation test on
shifted data) and by a property test over random inputs, tests, alternatives and corrections."""
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import pyterrier_boot as ptb
from pyterrier_boot._warnings import DegenerateWarning, InputWarning
from pyterrier_boot.stats.comparison import compare
from pyterrier_boot.stats.resampling import resample_plan, sign_flip_plan
from pyterrier_boot.stats.significance import (
    paired_bootstrap_test,
    randomization_test,
    sign_test,
    t_test,
    wilcoxon_test,
)

TESTS = ("t", "paired_bootstrap", "randomization", "wilcoxon", "sign")


def _excludes_zero(low, high):
    """Whether the interval excludes 0; an empty one (both ends NaN: every shift rejected) does."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return (low > 0) | (high < 0) | (np.isnan(low) & np.isnan(high))


# ------------------------------------------------------------------ independent references


def test_t_interval_is_scipys():
    rng = np.random.default_rng(1)
    x, y = rng.random(15), rng.random(15)
    for level in (0.9, 0.95, 0.99):
        ours = t_test(x, y, confidence_level=level).confidence_interval
        ref = stats.ttest_rel(x, y).confidence_interval(level)
        assert (ours.low, ours.high) == pytest.approx((ref.low, ref.high), rel=1e-12)


def _brute_force(d, pvalue_at, low, high, alpha=0.05, margin=1e-9):
    """Every grid shift the reference test does not reject lies in [low, high], and every grid shift
    well inside (low, high) is not rejected."""
    grid = np.linspace(d.min() - 0.2, d.max() + 0.2, 401)
    accepted = np.array([pvalue_at(d - g) >= alpha for g in grid])
    assert accepted.any()
    assert grid[accepted].min() >= low - margin and grid[accepted].max() <= high + margin
    inside = (grid > low + 1e-6) & (grid < high - 1e-6)
    assert accepted[inside].all()


@pytest.mark.parametrize("seed", range(4))
def test_hodges_lehmann_interval_inverts_scipys_wilcoxon(seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(0.05, 0.1, 14)  # no ties: scipy's exact distribution everywhere but the breakpoints
    res = wilcoxon_test(d, np.zeros_like(d))
    i, j = np.triu_indices(d.size)
    assert res.estimate == pytest.approx(np.median((d[i] + d[j]) / 2))
    _brute_force(d, lambda z: stats.wilcoxon(z).pvalue, *res.confidence_interval)


@pytest.mark.parametrize("seed", range(4))
def test_sign_interval_inverts_scipys_binomtest(seed):
    rng = np.random.default_rng(seed)
    d = np.round(rng.normal(0.05, 0.1, 17), 2)

    def p(z):
        return stats.binomtest(int((z > 0).sum()), int((z != 0).sum()), 0.5).pvalue if (z != 0).any() else 1.0

    res = sign_test(d, np.zeros_like(d))
    assert res.estimate == pytest.approx(np.median(d))
    low, high = res.confidence_interval
    assert low in d and high in d  # an order-statistic interval
    _brute_force(d, p, low, high)


@pytest.mark.parametrize("n, exact", [(9, True), (20, False)])
def test_randomization_interval_inverts_the_test_on_shifted_data(n, exact):
    rng = np.random.default_rng(n)
    d = rng.normal(0.04, 0.1, n)
    plan = sign_flip_plan(n, n_resamples=2000, rng=3)
    assert plan.exact is exact
    res = randomization_test(d, np.zeros(n), plan=plan)
    _brute_force(d, lambda z: randomization_test(z, np.zeros(n), plan=plan).pvalue, *res.confidence_interval,
                 margin=1e-6)


def test_paired_bootstrap_interval_inverts_the_test_on_shifted_data():
    rng = np.random.default_rng(5)
    d = rng.normal(0.04, 0.1, 20)
    plan = resample_plan(20, n_resamples=999, rng=2)
    res = paired_bootstrap_test(d, np.zeros(20), plan=plan)
    _brute_force(d, lambda z: paired_bootstrap_test(z, np.zeros(20), plan=plan).pvalue,
                 *res.confidence_interval, margin=1e-6)


# ------------------------------------------------------------------ property: verdict == interval

def _matrices(min_topics):
    return st.integers(min_topics, 20).flatmap(lambda n: st.lists(
        st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.6, 0.75, 0.9, 1.0]) | st.floats(0, 1),
                 min_size=n, max_size=n), min_size=3, max_size=3))


scores = _matrices(3)


def _check_rows(test, matrix, alternative, correction, alpha):
    X = pd.DataFrame(np.array(matrix), columns=pd.Index(range(len(matrix[0])), name="qid"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            table = compare(X, test=test, correction=correction, alpha=alpha, alternative=alternative,
                            n_resamples=199, rng=0)
        except ValueError as error:  # differences too small for float64 variances: refused, documented
            assert "rescale them" in str(error)
            return
    excluded = _excludes_zero(table["ci_low"], table["ci_high"])
    if correction in (None, "bonferroni", "sidak"):  # a matching (simultaneous) interval exists
        assert (table["reject"].to_numpy() == excluded).all(), table
    else:  # step-wise: unadjusted intervals; a rejected row still excludes 0
        assert not (table["reject"].to_numpy() & ~excluded).any(), table


ROWS = dict(matrix=scores, alternative=st.sampled_from(["two-sided", "greater", "less"]),
            correction=st.sampled_from([None, "bonferroni", "sidak", "holm", "fdr_bh"]),
            alpha=st.sampled_from([0.05, 0.1, 0.2]))


@pytest.mark.parametrize("test", [t for t in TESTS if t != "wilcoxon"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**ROWS)
def test_no_row_rejects_beside_an_interval_holding_zero(test, matrix, alternative, correction, alpha):
    _check_rows(test, matrix, alternative, correction, alpha)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**{**ROWS, "matrix": _matrices(14)})
def test_no_wilcoxon_row_rejects_beside_an_interval_holding_zero(matrix, alternative, correction, alpha):
    # 14 topics or more here: scipy's p-value with ties on fewer is a 2^n permutation test (seconds to a
    # minute per input, its interval inverts it); every size from 3 topics, 100 inputs, under the slow mark
    _check_rows("wilcoxon", matrix, alternative, correction, alpha)


@pytest.mark.slow
@pytest.mark.parametrize("test", [t for t in TESTS if t != "wilcoxon"])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**ROWS)
def test_no_row_rejects_beside_an_interval_holding_zero_many_inputs(test, matrix, alternative, correction, alpha):
    _check_rows(test, matrix, alternative, correction, alpha)


def test_wilcoxon_that_rejects_every_shift_has_an_empty_interval():
    """Two of 14 differences non-zero: scipy drops the zeros (p = 0.18 at 0) and every shift is
    rejected at alpha = 0.2, so the confidence set is empty (NaN ends) beside reject = True."""
    matrix = [[0.0] * 14, [0.0] * 14, [0.0] * 12 + [0.1, 0.1]]
    X = pd.DataFrame(np.array(matrix), columns=pd.Index(range(14), name="qid"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare(X, test="wilcoxon", correction=None, alpha=0.2)
    rows = table[table["system_b"] == 2] if (table["system_b"] == 2).any() else table[table["system_a"] == 2]
    assert rows["reject"].all() and rows["ci_low"].isna().all() and rows["ci_high"].isna().all()
    _check_rows("wilcoxon", matrix, "two-sided", None, 0.2)


@pytest.mark.parametrize("alternative, sign", [("less", 1.0), ("greater", -1.0)])
def test_one_sided_wilcoxon_interval_moves_its_finite_end_past_zero(alternative, sign):
    """Systems 1 and 2 differ on 13 of 16 topics: scipy drops the 3 zeros at the shift 0 (p = 0.065,
    rejected at 0.2 / 3) but not at shifts just beside it (p = 0.080 at 0.0499), so the test is not
    monotone near 0. A one-sided interval can only move its finite end, here past 0 on its own side;
    found by the slow property test below (the interval was (-inf, 0.05] beside reject = True)."""
    one = [0.1, 0, 0.1, 0, 0.75, 0, 0.25, 0, 0, 0.1, 0.3, 0.1, 0, 0.1, 0, 0]
    two = [0, 0.5, 0, 0.5, 0.4375, 0.5, 0.1, 0.2, 0, 0, 0.3, 0.1, 0.3, 0, 0.2, 0.5]
    matrix = [[0.0] * 16, one, two] if sign > 0 else [[0.0] * 16, two, one]
    X = pd.DataFrame(np.array(matrix), columns=pd.Index(range(16), name="qid"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare(X, test="wilcoxon", correction="bonferroni", alpha=0.2, alternative=alternative)
    row = table[(table["system_a"] == 1) & (table["system_b"] == 2)].iloc[0]
    p = stats.wilcoxon(np.array(matrix[1]) - np.array(matrix[2]), alternative=alternative).pvalue
    assert row["p-value"] == pytest.approx(p) and p < 0.2 / 3 and row["reject"]
    assert (row["ci_high"] < 0) if sign > 0 else (row["ci_low"] > 0)
    _check_rows("wilcoxon", matrix, alternative, "bonferroni", 0.2)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**ROWS)
def test_no_wilcoxon_row_rejects_beside_an_interval_holding_zero_many_inputs(matrix, alternative, correction, alpha):
    # scipy's own p-value with ties on 13 topics or fewer is a 2^n permutation test (about 1 s each)
    _check_rows("wilcoxon", matrix, alternative, correction, alpha)


def test_bonferroni_intervals_are_simultaneous_at_alpha_over_m():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((4, 20)), columns=pd.Index(range(20), name="qid"))
    table = compare(X, test="t", correction="bonferroni", alpha=0.05)
    m = len(table)
    assert (table["ci_level"] == 1 - 0.05 / m).all()
    first = table.iloc[0]
    ref = stats.ttest_rel(X.iloc[int(first.system_a)], X.iloc[int(first.system_b)]).confidence_interval(1 - 0.05 / m)
    assert (first.ci_low, first.ci_high) == pytest.approx((ref.low, ref.high), rel=1e-9)


def test_unbounded_interval_warns_why():
    x, y = np.array([0.5, 0.6, 0.7, 0.8]), np.array([0.4, 0.4, 0.5, 0.5])
    with pytest.warns(DegenerateWarning, match="cannot reject"):
        table = compare(pd.DataFrame(np.vstack([x, y, y - 0.1]), columns=pd.Index(range(4), name="qid")),
                        test="randomization", correction=None)
    assert np.isinf(table["ci_low"]).any() or np.isinf(table["ci_high"]).any()


# ------------------------------------------------------------------ Experiment, every bootstrap mode


@pytest.fixture(scope="module")
def sim():
    return ptb.simulate_collection(n_topics=16, n_systems=4, rng=5)


MATRIX = [(b, t, c) for b in ("topic", "corpus", "both") for t in TESTS for c in (None, "bonferroni")]


@pytest.mark.parametrize("bootstrap, test, correction", MATRIX)
# P@5 on 16 topics: one pair's bootstrap-t cannot reach Bonferroni's alpha / 6 (it says so; the verdicts still agree)
@pytest.mark.filterwarnings("ignore:the paired_bootstrap test cannot reject some shifts:pyterrier_boot.DegenerateWarning")
def test_experiment_rows_tell_one_story(sim, bootstrap, test, correction):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = dict(names=list(sim.runs), baseline=0, bootstrap=bootstrap, test=test, correction=correction,
                    n_resamples=200, rng=2)
        res = ptb.experiment_result(list(sim.runs.values()), sim.topics, sim.qrels, ["map", "P_5"], **args)
        dropin = ptb.Experiment(list(sim.runs.values()), sim.topics, sim.qrels, ["map", "P_5"], **args)
    frame = res.comparisons.frame
    excluded = _excludes_zero(frame["ci_low"], frame["ci_high"])
    if correction is None:
        verdict = frame["p-value"].to_numpy() < 0.05
    else:
        verdict = frame["reject"].to_numpy()
    assert (verdict == excluded).all(), frame
    for table in (res.table(), dropin):
        for m in ("map", "P_5"):
            rows = table["name"] != list(sim.runs)[0]
            low, high = table.loc[rows, f"{m} diff ci_low"], table.loc[rows, f"{m} diff ci_high"]
            p = table.loc[rows, f"{m} p-value"].to_numpy()
            verdict = (p < 0.05) if correction is None else table.loc[rows, f"{m} reject"].to_numpy(bool)
            assert (verdict == _excludes_zero(low, high)).all()
    pairs = res.pairwise(test=test, correction="bonferroni", n_resamples=240, rng=1)  # enough for 99.17%
    assert (pairs["reject"].to_numpy() == _excludes_zero(pairs["ci_low"], pairs["ci_high"])).all()


# ------------------------------------------------------------------ orientation from labels (item 4)


@pytest.fixture
def long_frame():
    rng = np.random.default_rng(3)
    rows = [(s, f"q{q}", "map", float(rng.random())) for s in ("BM25", "DPH", "QLD") for q in range(10)]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def _systems(table):
    return sorted(set(table["system_a"]) | set(table["system_b"]))


def test_compare_reads_every_common_shape(long_frame):
    reference = compare(long_frame, test="t")
    pivot = long_frame.pivot(index="qid", columns="name", values="value")  # topics x systems
    shapes = {
        "topics x systems pivot": pivot,
        "pivot with a qid column": pivot.reset_index(),
        "systems x topics pivot": long_frame.pivot(index="name", columns="qid", values="value"),
        "long frame without measure": long_frame.drop(columns="measure"),
        "dict of pivots": {"map": pivot},
    }
    for label, scores in shapes.items():
        table = compare(scores, test="t")
        assert _systems(table) == ["BM25", "DPH", "QLD"], label
        np.testing.assert_allclose(table["p-value"], reference["p-value"], err_msg=label)
        assert np.isfinite(table[["ci_low", "ci_high"]].to_numpy()).all(), label


def test_compare_reads_pt_experiment_perquery(long_frame):
    table = compare(long_frame, test="t")  # pt.Experiment(perquery=True) has exactly these columns
    assert table["n_topics"].iloc[0] == 10 and len(table) == 3


def test_compare_refuses_an_ambiguous_bare_array(long_frame):
    pivot = long_frame.pivot(index="qid", columns="name", values="value").to_numpy()  # 10 x 3
    with pytest.raises(ValueError, match=r"ambiguous.*'qid'.*scores\.T"):
        compare(pivot)
    table = compare(pivot.T, test="t")  # systems x topics as documented
    assert len(table) == 3


def test_other_matrix_functions_read_labels(long_frame):
    pivot = long_frame.pivot(index="qid", columns="name", values="value")
    ci = ptb.bootstrap_ci(pivot, rng=1)
    assert list(ci.systems) == ["BM25", "DPH", "QLD"]
    from pyterrier_boot.meta._inputs import as_measure_scores

    data = as_measure_scores({"map": pivot})
    assert data.systems == ("BM25", "DPH", "QLD") and data.values.shape == (1, 3, 10)
    data = as_measure_scores({"map": pivot.reset_index()})
    assert data.values.shape == (1, 3, 10)


def test_default_interval_is_studentized_for_means_and_bca_otherwise():
    x = np.random.default_rng(0).random(12)
    assert ptb.bootstrap_ci(x, rng=1).method == "studentized"
    assert ptb.bootstrap_ci(x, statistic="median", rng=1).method == "bca"


def test_unbounded_default_interval_warns_why():
    sparse = np.r_[np.zeros(8), 0.4, 0.6]  # over 2.5% of resamples draw only zeros: t* is infinite
    with pytest.warns(DegenerateWarning, match="unbounded.*identical scores"):
        low, high = ptb.bootstrap_ci(sparse, rng=1).confidence_interval
    assert np.isinf(high) and np.isfinite(low)


def test_experiment_says_when_test_is_not_used(sim):
    with pytest.warns(InputWarning, match="is not used with"):
        ptb.Experiment(list(sim.runs.values()), sim.topics, sim.qrels, ["map"], names=list(sim.runs), baseline=0,
                       bootstrap="both", test="wilcoxon", n_resamples=50, rng=1)


def test_wilcoxon_interval_with_tied_topics_tests_the_shifts_near_zero_only(monkeypatch):
    """Topics where both systems score the same drop out of the test at 0 only, so it can reject at 0
    beside accepted shifts on both sides; the side kept is found walking out from 0 (the test made
    at a few shifts; at every Walsh average in [low, high] before: 225 calls of scipy's wilcoxon here)."""
    rng = np.random.default_rng(0)
    d = np.concatenate([np.zeros(40), rng.normal(0.03, 0.1, 53)]).round(3)
    calls = []
    wilcoxon = stats.wilcoxon
    monkeypatch.setattr(stats, "wilcoxon", lambda *a, **k: calls.append(1) or wilcoxon(*a, **k))
    res = wilcoxon_test(d, np.zeros_like(d))
    assert res.pvalue < 0.05 and 0 < res.confidence_interval.low < res.confidence_interval.high
    assert len(calls) < 50
    _brute_force(d, lambda z: stats.wilcoxon(z).pvalue if (z != 0).any() else 1.0, *res.confidence_interval)
