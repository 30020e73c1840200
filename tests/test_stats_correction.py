"""correct_pvalues equals statsmodels' multipletests."""
import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from pyterrier_boot.stats.correction import ALIASES, METHODS, correct_pvalues, multiple_tests


@pytest.mark.parametrize("method", METHODS)
def test_equals_statsmodels(method):
    p = np.random.default_rng(3).uniform(0, 0.2, size=25)
    reject, corrected = correct_pvalues(p, method=method, alpha=0.1)
    ref_reject, ref_corrected, _, _ = multipletests(p, alpha=0.1, method=method)
    np.testing.assert_array_equal(reject, ref_reject)
    np.testing.assert_array_equal(corrected, ref_corrected)


@pytest.mark.parametrize("seed", range(20))
def test_holm_equals_statsmodels_with_ties_ones_and_every_size(seed):
    """Holm is computed here (statsmodels runs gc.collect() after it: seconds on a large heap)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 40))
    p = np.round(rng.uniform(0, 0.3, m) ** 2, 3)  # ties
    p[rng.random(m) < 0.1] = 1.0
    for alpha in (0.01, 0.05, 0.2):
        reject, corrected = correct_pvalues(p, method="holm", alpha=alpha)
        ref_reject, ref_corrected, _, _ = multipletests(p, alpha=alpha, method="holm")
        np.testing.assert_array_equal(reject, ref_reject)
        np.testing.assert_array_equal(corrected, ref_corrected)


def test_nan_pvalues_stay_out_of_the_family():
    p = np.array([0.01, np.nan, 0.04, 0.03])
    res = correct_pvalues(p, method="bonferroni")
    assert np.isnan(res.pvalues[1]) and not res.reject[1]
    np.testing.assert_allclose(res.pvalues[[0, 2, 3]], [0.03, 0.12, 0.09])


def test_bad_input_messages():
    with pytest.raises(ValueError, match="'method' must be one of 'bonferroni', 'sidak', 'holm', .* got 'BH'"):
        correct_pvalues([0.1], method="BH")
    with pytest.raises(ValueError, match=r"'pvalues' must lie in \[0, 1\]"):
        correct_pvalues([0.1, 1.5])
    with pytest.raises(ValueError, match="'pvalues' must be one-dimensional"):
        correct_pvalues([[0.1]])


def _pvalues(rng):
    """p-values with ties, NaN (statsmodels counts them in the family), ones and values at Holm's thresholds."""
    n = int(rng.integers(0, 30))
    p = np.round(rng.uniform(0, 0.3, n), int(rng.integers(1, 4)))
    p[rng.random(n) < 0.1] = np.nan
    p[rng.random(n) < 0.1] = 1.0
    if n:
        p[0] = 0.05 / n
    return p


@pytest.mark.parametrize("method", [*METHODS, *(a for a, m in ALIASES.items() if m == "holm"), "HOLM"])
@pytest.mark.parametrize("seed", range(12))
def test_multiple_tests_is_statsmodels_multipletests(method, seed):
    """The same booleans and floats as statsmodels (Holm computed without it: see the next test)."""
    rng = np.random.default_rng(seed)
    p, alpha = _pvalues(rng), float(rng.choice([0.01, 0.05, 0.1]))
    with np.errstate(divide="ignore", invalid="ignore"):  # statsmodels' Sidak and fdr_gbs at p = 1
        reject, corrected = multiple_tests(p, method=method, alpha=alpha)
        ref_reject, ref_corrected, _, _ = multipletests(p, alpha=alpha, method=method)
    np.testing.assert_array_equal(reject, ref_reject)
    np.testing.assert_array_equal(corrected, ref_corrected)


def test_holm_collects_no_garbage(monkeypatch):
    """statsmodels' Holm runs gc.collect() at every call, a pass over every object of the session."""
    import gc

    def refuse(*args):
        raise AssertionError("a garbage collection")

    monkeypatch.setattr(gc, "collect", refuse)
    reject, corrected = correct_pvalues([0.01, 0.04, 0.03], method="holm")
    assert corrected.tolist() == pytest.approx([0.03, 0.06, 0.06]) and reject.tolist() == [True, False, False]
