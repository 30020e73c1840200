"""Bad input to the meta-evaluation functions: each message pinned."""
import numpy as np
import pandas as pd
import pytest
from pyterrier_boot.meta.discriminative_power import discriminative_power
from pyterrier_boot.meta.rank_correlation import kendall_tau, rank_correlations, tau_ap
from pyterrier_boot.meta.stability import stability_method
from pyterrier_boot.meta.swap import swap_method

FUNCTIONS = [discriminative_power, swap_method, stability_method, rank_correlations]


def _frame(values, systems, topics):
    """``values`` (systems x topics) as a frame of one row per topic and one column per system."""
    return pd.DataFrame(np.asarray(values, dtype=float).T, index=topics, columns=systems)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_fewer_than_three_systems(function):
    scores = {"AP": np.random.default_rng(0).random((2, 10))}
    with pytest.raises(ValueError, match=r"'scores_by_measure' has 2 system\(s\); meta-evaluation needs at least 3 \(it compares measures over many system pairs and rankings\)"):
        function(scores)


def test_rank_correlation_of_fewer_than_three_systems():
    with pytest.raises(ValueError, match="a rank correlation needs at least 3 systems, got 2"):
        kendall_tau([0.1, 0.2], [0.2, 0.3])
    with pytest.raises(ValueError, match="a rank correlation needs at least 3 systems, got 2"):
        tau_ap([0.1, 0.2], [0.2, 0.3])


@pytest.mark.parametrize("function", FUNCTIONS)
def test_measures_with_different_topic_sets(function):
    rng = np.random.default_rng(0)
    systems = ["a", "b", "c"]
    ap = _frame(rng.random((3, 4)), systems, ["301", "302", "303", "304"])
    p10 = _frame(rng.random((3, 4)), systems, ["301", "302", "303", "305"])
    with pytest.raises(ValueError, match=r"'scores_by_measure': the measures cover different topics: 1 of 'AP''s topics missing from 'P@10' \['304'\]; 1 topics of 'P@10' not scored by 'AP' \['305'\]; every measure must score the same topics"):
        function({"AP": ap, "P@10": p10})


def test_measures_with_different_topic_counts_as_arrays():
    with pytest.raises(ValueError, match=r"'scores_by_measure': the measures cover different topics: 'AP' is 3 systems x 10 topics but 'RR' is 3 x 9; every measure must score the same systems and topics"):
        discriminative_power({"AP": np.zeros((3, 10)), "RR": np.zeros((3, 9))})


def test_measures_with_different_systems():
    rng = np.random.default_rng(0)
    ap = _frame(rng.random((3, 4)), ["a", "b", "c"], list("wxyz"))
    rr = _frame(rng.random((3, 4)), ["a", "b", "d"], list("wxyz"))
    with pytest.raises(ValueError, match=r"the measures cover different systems: 1 of 'AP''s systems missing from 'RR' \['c'\]; 1 systems of 'RR' not scored by 'AP' \['d'\]"):
        swap_method({"AP": ap, "RR": rr})


def test_long_frame_with_different_topic_sets():
    long = pd.DataFrame({
        "name": ["a", "b", "c"] * 4,
        "qid": ["1"] * 3 + ["2"] * 3 + ["1"] * 3 + ["3"] * 3,
        "measure": ["AP"] * 6 + ["RR"] * 6,
        "value": np.linspace(0, 1, 12),
    })
    with pytest.raises(ValueError, match=r"the measures cover different topics: 1 of 'AP''s topics missing from 'RR' \['2'\]"):
        discriminative_power(long)


def test_missing_cell_in_a_measure():
    scores = {"AP": _frame([[0.1, np.nan, 0.3], [0.2, 0.2, 0.2], [0.3, 0.1, 0.5]], list("abc"), ["1", "2", "3"])}
    with pytest.raises(ValueError, match=r"scores_by_measure\['AP'\] has missing \(NaN\) scores for 1 topic\(s\) \['2'\]: every measure must score every system on every topic"):
        discriminative_power(scores)


def test_unknown_test_and_too_few_resamples():
    scores = {"AP": np.random.default_rng(0).random((3, 10))}
    with pytest.raises(ValueError, match="'test' must be one of 'paired_bootstrap', 'unpaired_bootstrap', 'randomization', 't', 'wilcoxon', 'sign'; got 'bootstrap'"):
        discriminative_power(scores, test="bootstrap")
    # the spelling with hyphens is accepted
    hyphen = discriminative_power(scores, test="paired-bootstrap", rng=3)
    underscore = discriminative_power(scores, test="paired_bootstrap", rng=3)
    np.testing.assert_array_equal(hyphen.asl, underscore.asl)
    with pytest.raises(ValueError, match=r"'n_resamples'=10 is too small for alpha=0.05: no pair can reach ASL < alpha; use n_resamples >= 20"):
        discriminative_power(scores, n_resamples=10)
    with pytest.raises(ValueError, match="'statistic'='gmean' needs test='unpaired_bootstrap'"):
        discriminative_power(scores, statistic="gmean")
    with pytest.raises(ValueError, match="'plan' is only used by test='paired_bootstrap' or 'randomization', not test='t'"):
        discriminative_power(scores, test="t", plan=object())
    with pytest.raises(TypeError, match=r"'scores_by_measure' must be a dict \{measure: systems x topics matrix\} or a long DataFrame"):
        discriminative_power(np.zeros((3, 10)))


def test_swap_and_stability_options():
    scores = {"AP": np.random.default_rng(0).random((3, 10))}
    with pytest.raises(ValueError, match="'bin_width' must be a positive number, got 0"):
        swap_method(scores, bin_width=0)
    with pytest.raises(ValueError, match=r"'fuzziness' values must be in \[0, 1\), got \[0.1, 1.5\]"):
        stability_method(scores, fuzziness=[0.1, 1.5])
