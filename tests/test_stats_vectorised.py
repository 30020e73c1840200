"""The vectorised forms of the rank tests, the corrections and Tukey's statistics (used by the test
audit over thousands of simulated rows) agree with their references row by row: scipy's
``wilcoxon`` on each row alone, ``binomtest``, statsmodels' ``multipletests`` and ``tukey_hsd``."""
import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pyterrier_boot.stats.correction import correct_pvalue_rows
from pyterrier_boot.stats.pvalues import sign_pvalues, wilcoxon_pvalues
from pyterrier_boot.stats.significance import sign_core, t_core, wilcoxon_core
from pyterrier_boot.stats.tukey import tukey_hsd, tukey_statistics


def _rows(n, count, rng):
    """Rows with zeros, ties, both, and an all-zero row: every route scipy's 'auto' takes."""
    D = rng.normal(size=(count, n))
    D[::3, :2] = 0
    D[1::3] = np.round(D[1::3], 1)
    D[4] = 0
    return D


def _scipy_rows(D, **options):
    statistic, pvalue = [], []
    for d in D:
        if not d.any():
            statistic.append(np.nan)
            pvalue.append(1.0)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy's notes on zeros and ties
            res = stats.wilcoxon(d, **options)
        statistic.append(res.statistic)
        pvalue.append(res.pvalue)
    return np.array(statistic), np.array(pvalue)


def _check_rows(D, options):
    statistic, pvalue = wilcoxon_pvalues(D, **options)
    ref_statistic, ref_pvalue = _scipy_rows(D, **options)
    assert np.array_equal(pvalue, ref_pvalue, equal_nan=True), options
    assert np.array_equal(statistic, ref_statistic, equal_nan=True), options


@pytest.mark.parametrize("n", [20, 50, 60])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_rows_equal_scipy_on_each_row_alone(n, alternative):
    D = _rows(n, 30, np.random.default_rng(n))
    for zero_method in ("wilcox", "pratt", "zsplit"):
        for correction in (False, True):
            _check_rows(D, dict(alternative=alternative, zero_method=zero_method, correction=correction))


def test_wilcoxon_rows_of_few_topics_with_ties_take_scipy_permutation_route():
    """n <= 13 with zeros or ties: scipy enumerates the sign flips, row by row (slow: a few rows)."""
    _check_rows(_rows(9, 6, np.random.default_rng(9)), dict(alternative="two-sided"))


@pytest.mark.slow
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_rows_of_few_topics_every_option(alternative):
    D = _rows(9, 12, np.random.default_rng(9))
    for zero_method in ("wilcox", "pratt", "zsplit"):
        for correction in (False, True):
            _check_rows(D, dict(alternative=alternative, zero_method=zero_method, correction=correction))


def test_scipy_vectorised_wilcoxon_differs_where_rows_differ_in_method():
    """Why the rows are grouped: scipy picks one method for the whole array (a fixed defect)."""
    D = _rows(30, 30, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = stats.wilcoxon(D[[0, 2]], axis=1).pvalue  # row 0 has zeros, row 2 has neither
    assert whole[1] != stats.wilcoxon(D[2]).pvalue
    assert wilcoxon_pvalues(D[[0, 2]])[1][1] == stats.wilcoxon(D[2]).pvalue


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_sign_pvalues_equal_binomtest(alternative):
    for m in (0, 1, 2, 5, 13, 50, 127):
        k = np.arange(m + 1)
        ref = [stats.binomtest(int(i), m, 0.5, alternative=alternative).pvalue if m else 1.0 for i in k]
        np.testing.assert_allclose(sign_pvalues(k, m - k, alternative), ref, rtol=1e-12, atol=0)


@pytest.mark.parametrize("core", [t_core, wilcoxon_core, sign_core])
def test_cores_without_intervals_give_the_same_pvalues(core):
    D = _rows(15, 9, np.random.default_rng(3))
    full, bare = core(D), core(D, intervals=False)
    np.testing.assert_array_equal(full["pvalue"], bare["pvalue"])
    assert np.isnan(bare["low"]).all() and np.isnan(bare["high"]).all()


@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh"])
def test_correction_rows_equal_statsmodels(method):
    rng = np.random.default_rng(1)
    P = rng.random((200, 10)) ** 3
    P[::4, 3] = P[::4, 5]  # ties
    ref = np.array([multipletests(p, method=method)[1] for p in P])
    np.testing.assert_allclose(correct_pvalue_rows(P, method), ref, rtol=1e-14, atol=1e-15)


def test_correction_rows_refuse_other_methods():
    with pytest.raises(ValueError, match="'method' must be one of 'bonferroni', 'holm', 'fdr_bh'; got 'sidak'"):
        correct_pvalue_rows([[0.1, 0.2]], "sidak")


def test_tukey_statistics_of_many_matrices_equal_tukey_hsd_on_each():
    rng = np.random.default_rng(2)
    X = rng.random((2, 3, 20)) + np.array([0, 0.05, 0.2])[:, None]
    means, mse, df = tukey_statistics(X)
    for f in range(X.shape[0]):
        res = tukey_hsd(X[f])
        np.testing.assert_allclose(means[f], res.means)
        assert mse[f] == pytest.approx(res.mse) and df == res.df
