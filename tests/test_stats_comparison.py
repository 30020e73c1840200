"""compare(): the long table over systems and measures, one shared plan, corrections per measure."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pyterrier_boot._warnings import DegenerateWarning, InputWarning
from pyterrier_boot.stats import significance
from pyterrier_boot.stats.comparison import COLUMNS, compare
from pyterrier_boot.stats.resampling import resample_plan, sign_flip_plan
from pyterrier_boot.stats.significance import (
    paired_bootstrap_test,
    randomization_test,
    sign_test,
    t_test,
    wilcoxon_test,
)

SYSTEMS = ["bm25", "dph", "monot5", "splade"]


@pytest.fixture
def matrices():
    rng = np.random.default_rng(5)
    topic = rng.beta(1, 2, size=(2, 1, 18))
    shift = np.array([0.0, 0.01, 0.08, 0.1])[None, :, None]
    values = np.clip(topic + shift + rng.normal(0, 0.07, size=(2, 4, 18)), 0, 1)
    return {"AP": values[0], "nDCG@10": values[1]}


@pytest.fixture
def long_frame(matrices):
    rows = []
    for measure, X in matrices.items():
        for s, name in enumerate(SYSTEMS):
            for q in range(X.shape[1]):
                rows.append((name, f"q{q}", measure, X[s, q]))
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def test_long_frame_all_pairs(long_frame, matrices):
    table = compare(long_frame, rng=1, n_resamples=500)
    assert list(table.columns) == COLUMNS
    assert len(table) == 2 * 6
    assert table["measure"].unique().tolist() == ["AP", "nDCG@10"]
    first = table.iloc[0]
    assert (first.system_a, first.system_b) == ("bm25", "dph")
    X = matrices["AP"]
    assert first.mean_a == pytest.approx(X[0].mean()) and first.difference == pytest.approx((X[0] - X[1]).mean())
    assert (first.wins, first.ties, first.losses) == ((X[0] > X[1]).sum(), 0, (X[0] < X[1]).sum())


@pytest.mark.parametrize("test,single,plan_factory", [
    ("paired_bootstrap", paired_bootstrap_test, lambda n: resample_plan(n, n_resamples=700, rng=3)),
    ("randomization", randomization_test, lambda n: sign_flip_plan(n, n_resamples=700, rng=3)),
    ("t", t_test, None),
    ("wilcoxon", wilcoxon_test, None),
    ("sign", sign_test, None),
])
def test_rows_equal_the_single_pair_functions(matrices, test, single, plan_factory):
    plan = plan_factory(18) if plan_factory else None
    table = compare(matrices, test=test, plan=plan, correction=None)
    for _, row in table.iterrows():
        X = matrices[row.measure]
        kwargs = {"plan": plan} if plan is not None else {}
        ref = single(X[row.system_a], X[row.system_b], **kwargs)
        assert row["p-value"] == ref.pvalue
        assert row.statistic == pytest.approx(ref.statistic, rel=1e-12, nan_ok=True)
        assert (row.ci_low, row.ci_high) == (ref.confidence_interval.low, ref.confidence_interval.high)
        assert row.effect_size == pytest.approx(ref.effect_size, rel=1e-12)


def test_results_do_not_depend_on_chunking(matrices, monkeypatch):
    full = compare(matrices, rng=4, n_resamples=1000)
    monkeypatch.setattr(significance, "_CELLS", 1000 * 32)  # one block of 32 pairs at a time
    np.testing.assert_array_equal(compare(matrices, rng=4, n_resamples=1000).to_numpy(), full.to_numpy())


@pytest.mark.parametrize("baseline,expected", [
    (0, [(1, 0), (2, 0), (3, 0)]),
    (-1, [(0, 3), (1, 3), (2, 3)]),
    ([0, 2], [(1, 0), (2, 0), (3, 0), (0, 2), (1, 2), (3, 2)]),
])
def test_baselines_by_position(matrices, baseline, expected):
    table = compare(matrices["AP"], baseline=baseline, test="t")
    assert list(zip(table.system_a, table.system_b, strict=True)) == expected
    assert (table.measure == "score").all()


def test_baseline_by_name(long_frame):
    table = compare(long_frame, baseline="monot5", test="t")
    assert set(table.system_b) == {"monot5"}
    assert table.system_a.tolist()[:3] == ["bm25", "dph", "splade"]
    with pytest.raises(ValueError, match=r"'baseline' 'BM25' is neither a system name nor a row position; systems are \['bm25', 'dph', 'monot5', 'splade'\]"):
        compare(long_frame, baseline="BM25")


def test_corrections_per_measure_and_across(matrices):
    table = compare(matrices, test="t", correction="holm", alpha=0.1)
    for _, group in table.groupby("measure", sort=False):
        reject, corrected, _, _ = multipletests(group["p-value"], alpha=0.1, method="holm")
        np.testing.assert_array_equal(group["p-value corrected"], corrected)
        np.testing.assert_array_equal(group["reject"], reject)
    table_all = compare(matrices, test="t", correction="fdr_bh", correction_scope="all")
    _, corrected, _, _ = multipletests(table_all["p-value"], method="fdr_bh")
    np.testing.assert_array_equal(table_all["p-value corrected"], corrected)
    uncorrected = compare(matrices, test="t", correction=None)
    np.testing.assert_array_equal(uncorrected["p-value corrected"], uncorrected["p-value"])


def test_callable_test_reads_result_1(matrices):
    table = compare(matrices, test=stats.ttest_rel, correction=None)
    reference = compare(matrices, test="t", correction=None)
    np.testing.assert_array_equal(table["p-value"], reference["p-value"])


def test_mismatched_topics(long_frame):
    broken = long_frame.drop(long_frame.index[(long_frame.name == "dph") & (long_frame.qid == "q3")])
    with pytest.raises(ValueError, match=r"'scores' has missing \(NaN\) scores for 1 topic\(s\) \['q3'\]: every system must be scored on the same topics; pass nan_policy='omit'"):
        compare(broken)
    with pytest.warns(InputWarning, match=r"dropped 1 topic\(s\) not scored for every system in 'scores': \['q3'\]"):
        table = compare(broken, nan_policy="omit", test="t")
    assert (table.n_topics == 17).all()


def test_degenerate_pairs_warn_once_per_measure(matrices):
    X = matrices["AP"].copy()
    X[1] = X[0]
    with pytest.warns(DegenerateWarning, match=r"all paired differences are 0 for 1 pair\(s\): score: 0 vs 1;"):
        table = compare(X, rng=1, n_resamples=200)
    assert table["p-value"].iloc[0] == 1.0


def test_bad_options(matrices):
    with pytest.raises(ValueError, match="'test' must be one of 'paired_bootstrap', 'randomization', 't', 'wilcoxon', 'sign'; got 'ttest'"):
        compare(matrices, test="ttest")
    with pytest.raises(ValueError, match="'correction' must be one of 'none', 'bonferroni'"):
        compare(matrices, correction="BH")
    with pytest.raises(ValueError, match="'correction_scope' must be one of 'measure', 'all'"):
        compare(matrices, correction_scope="global")
    with pytest.raises(ValueError, match="'scores' needs at least 2 systems to compare, got 1"):
        compare(np.ones((1, 5)))
    with pytest.raises(ValueError, match=r"'scores' matrices must all have the same shape"):
        compare({"a": np.ones((2, 5)), "b": np.ones((2, 6))})
    with pytest.raises(ValueError, match="'plan' resamples 5 topics but the scores have 18 topics"):
        compare(matrices, plan=resample_plan(5, n_resamples=10))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare(matrices, test="t")


def test_a_resampling_test_that_cannot_reject_after_holm_warns_once():
    # 20 systems: Holm over 190 pairs needs p < 0.05 / 190 = 2.6e-4 for a first rejection, below the
    # paired bootstrap's smallest p-value 1 / 1001; the same scores with the t-test reject
    from pyterrier_boot._warnings import BootWarning

    rng = np.random.default_rng(3)
    scores = 0.3 * rng.random((20, 30)) + np.linspace(0, 1, 20)[:, None]
    with pytest.warns(BootWarning, match="no difference can be significant") as caught:
        table = compare(scores, test="paired_bootstrap", n_resamples=1000, rng=1)
    assert sum("no difference can be significant" in str(w.message) for w in caught) == 1
    assert not table["reject"].any()
    with warnings.catch_warnings():
        warnings.simplefilter("error", BootWarning)
        assert compare(scores, test="t")["reject"].any()
        compare(scores, test="paired_bootstrap", n_resamples=1000, rng=1, correction="fdr_bh")  # reachable


def test_a_wide_frame_is_one_row_per_topic_and_one_column_per_system_everywhere():
    """Issue 33: a frame of 20 rows (topics) and 3 columns (systems), the layout of
    ``pivot(index="qid", columns="name")``, is 3 systems on 20 topics wherever scores are taken (it
    was read as 20 systems on 3 topics); a systems x topics array keeps its layout, and labels that
    say systems are rows are read as they say."""
    import pyterrier_boot as pb

    rng = np.random.default_rng(17)
    wide = pd.DataFrame(rng.beta(2, 5, (20, 3)) + [0.0, 0.05, 0.1], columns=["system1", "system2", "system3"])
    array = wide.to_numpy().T  # systems x topics
    by_name = wide.T.rename_axis(index="name")  # systems as rows, said by the index name
    other = {"AP": wide, "P@10": wide * 0.9 + 0.05}
    for scores in (wide, array, by_name):
        table = compare(scores, test="t")
        assert len(table) == 3 and (table["n_topics"] == 20).all()
        assert pb.bootstrap_ci(scores, method="t").statistic.shape == (3,)
        assert pb.tukey_hsd(scores).statistic.shape == (3, 3)
        assert pb.standardize(scores).shape == np.shape(scores)  # in the layout it came in
    np.testing.assert_allclose(compare(wide, test="t")["p-value"], compare(array, test="t")["p-value"])
    assert pb.topic_set_size(wide, difference=0.05, rng=1).topics_needed == pb.topic_set_size(
        array, difference=0.05, rng=1).topics_needed
    assert pb.kendall_tau(wide, wide * 2).n_systems == 3
    assert len(pb.rank_correlations(other)) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        power = pb.discriminative_power(other, n_resamples=200, rng=1).to_frame()
    assert len(power) == 2 * 3 and set(power["system_a"]) | set(power["system_b"]) == set(wide.columns)
    assert pb.kendall_tau(other["AP"], other["P@10"]).statistic == 1.0  # the same ranking of 3 systems
    assert pb.stability_method(other, n_resamples=50, rng=1) is not None
    assert pb.swap_method(other, n_resamples=50, rng=1) is not None
