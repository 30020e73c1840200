"""pt.boot.Experiment builds pt.Experiment's output from the values it measured (the runs are
evaluated once): on random runs (topics in shuffled order, judged topics missing, unjudged topics,
tied scores, topics with no relevant document) and random options, the output equals
pt.Experiment's, dict order and per-query row order included, without pt.Experiment being called;
where the values do not hold every measure pt.Experiment shows, pt.Experiment is called."""
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
import statsmodels.stats.multitest as multitest
from pyterrier import _evaluation
from scipy import stats
from test_experiment_dropin import _same

import pyterrier_boot as ptb
from pyterrier_boot.experiment import dropin
from pyterrier_boot.experiment import experiment as experiment_module
from pyterrier_boot.stats.correction import METHODS

# measures with kernels that ir_measures evaluates through pytrec_eval (several pytrec_eval calls:
# rel=1 and rel=2), as trec_eval names and in ir_measures syntax
KERNEL_MEASURES = ["map", ir_measures.AP(rel=2), ir_measures.P(rel=2) @ 5, ir_measures.nDCG @ 10, "ndcg", "recip_rank",
                   ir_measures.R @ 5, "Rprec", "bpref", "P_3", "ndcg_cut_5", "success_3", ir_measures.RR(rel=2), "num_rel_ret", "num_q"]


def _collection(rng):
    qrels = pd.DataFrame([(str(q), f"d{d}", int(rng.integers(0, 4)) if q != 4 else 0)
                          for q in range(1, 9) for d in rng.choice(30, size=int(rng.integers(3, 12)), replace=False)],
                         columns=["qid", "docno", "label"]).drop_duplicates(["qid", "docno"])
    runs = []
    for _ in range(int(rng.integers(2, 5))):
        topics = rng.choice(np.arange(1, 11), size=int(rng.integers(4, 10)), replace=False)  # 9, 10 unjudged
        rows = [(str(q), f"d{d}", float(np.round(rng.normal(), 1)))  # rounded: ties, broken by docno
                for q in topics for d in rng.choice(40, size=int(rng.integers(1, 15)), replace=False)]
        run = pd.DataFrame(rows, columns=["qid", "docno", "score"])
        runs.append(run.iloc[rng.permutation(len(run))].reset_index(drop=True))  # topics interleaved
    topics = pd.DataFrame({"qid": [str(q) for q in rng.permutation(np.arange(1, 11))], "query": "a b"})
    return runs, topics, qrels


def _options(rng, n_runs):
    perquery = [False, True, "both"][int(rng.integers(3))]
    options = {"perquery": perquery, "dataframe": bool(rng.integers(2)), "round": [None, 3, {"map": 2}][
        int(rng.integers(2 if perquery else 3))], "filter_by_qrels": bool(rng.integers(2)),
        "filter_by_topics": bool(rng.integers(2))}
    if not perquery and rng.integers(2):
        options["baseline"] = int(rng.integers(n_runs))
        options["test"] = ["t", "wilcoxon"][int(rng.integers(2))]
        options["correction"] = [None, "holm", "bonferroni"][int(rng.integers(3))]
    if rng.integers(2):
        options["names"] = [f"s{i % 2}" for i in range(n_runs)]  # repeated names
    return options


def _refuse_pt(*args, **kwargs):
    raise AssertionError("pt.Experiment was called: the runs were evaluated twice")


def _both(runs, topics, qrels, measures, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _evaluation.Experiment([r.copy() for r in runs], topics, qrels, measures, **options)
        ours = ptb.Experiment([r.copy() for r in runs], topics, qrels, measures, bootstrap=None, **options)
    return ours, theirs


@pytest.mark.parametrize("seed", range(25))
def test_output_equals_pt_experiment_without_calling_it(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    runs, topics, qrels = _collection(rng)
    measures = [KERNEL_MEASURES[i] for i in rng.choice(len(KERNEL_MEASURES), size=int(rng.integers(1, 5)), replace=False)]
    if rng.integers(3) == 0:
        measures.append("mrt")
    options = _options(rng, len(runs))
    monkeypatch.setattr(dropin, "_pt_experiment", lambda: _refuse_pt)
    ours, theirs = _both(runs, topics, qrels, measures, options)
    _same(ours, theirs, f"{measures} {options}")


def test_unjudged_topics_warn_as_pt_experiment(monkeypatch):
    runs, topics, qrels = _collection(np.random.default_rng(0))
    monkeypatch.setattr(dropin, "_pt_experiment", lambda: _refuse_pt)
    with pytest.warns(UserWarning, match=r"^2 topic\(s\) not found in qrels"), \
            pytest.warns(ptb.InputWarning, match="have no results for some of the 8 topics"):
        table = ptb.Experiment(runs, topics, qrels, ["map"], perquery=True, bootstrap=None)
    assert table.loc[table["qid"] == "9", "value"].isna().all()


@pytest.mark.parametrize("measures", [["P"], ["map", ir_measures.AP], [ir_measures.Judged @ 10, "map"]])
def test_measures_our_values_lack_go_through_pt_experiment(measures):
    """A trec_eval family, one measure asked twice, measures pytrec_eval does not evaluate:
    pt.Experiment evaluates the runs, and the output is still its own."""
    runs, topics, qrels = _collection(np.random.default_rng(1))
    calls = []

    def spy(*args, **kwargs):
        calls.append(1)
        return _evaluation.Experiment(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dropin, "_pt_experiment", lambda: spy)
        ours, theirs = _both(runs, topics, qrels, measures, {"baseline": 0})
    assert calls
    _same(ours, theirs)


def test_integer_topic_ids_read_as_pt_experiment_reads_them(monkeypatch):
    runs, topics, qrels = _collection(np.random.default_rng(2))
    runs = [r.astype({"qid": int}) for r in runs]
    monkeypatch.setattr(dropin, "_pt_experiment", lambda: _refuse_pt)
    ours, theirs = _both(runs, topics, qrels, ["map", "P_3"], {"perquery": True, "dataframe": False})
    _same(ours, theirs)


def test_transformers_are_run_once_and_evaluated_once(monkeypatch):
    runs, topics, qrels = _collection(np.random.default_rng(3))
    systems = [pt.Transformer.from_df(run, uniform=False) for run in runs]
    monkeypatch.setattr(dropin, "_pt_experiment", lambda: _refuse_pt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ptb.Experiment(systems, topics, qrels, ["map", ir_measures.nDCG @ 10], names=["a", "b", "c", "d"][:len(runs)],
                              baseline=0, bootstrap=None)
        theirs = _evaluation.Experiment(runs, topics, qrels, ["map", ir_measures.nDCG @ 10], names=["a", "b", "c", "d"][:len(runs)],
                                        baseline=0)
    _same(ours, theirs)


# ------------------------------------------------------------------ the test columns: ours, computed once


def _simulated(tied=False):
    """Five simulated runs (and a copy of the first: NaN t-test p-values against it), qrels, measures."""
    sim = ptb.simulate_collection(n_topics=20, n_systems=5, depth=30, pool_depth=30, rng=3)
    runs = [run.copy() for run in sim.runs.values()]
    return runs + [runs[0].copy()] * tied, sim.qrels, ["map", "ndcg_cut_10", ir_measures.RR]


@pytest.mark.parametrize(("correction", "tied", "bootstrap"), [
    *((c, tied, None) for c in [*METHODS, "h", "fdr_i", "fdr_gbs"] for tied in (False, True)),
    *((c, tied, b) for c in ("holm", "fdr_bh", "h") for tied in (False, True) for b in ("topic", "corpus"))])
def test_corrected_pvalues_are_statsmodels_multipletests_of_the_pvalues(correction, tied, bootstrap):
    """Each measure's corrected p-values and rejections are statsmodels' multipletests of the
    p-values beside them, the baseline left out (pt.Experiment's family; with a system tied with
    the baseline, scipy's t-test gives NaN p-values, which the family includes)."""
    runs, qrels, measures = _simulated(tied)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a system tied with the baseline, 200 corpus images
        table = ptb.Experiment(runs, None, qrels, measures, baseline=0, correction=correction, correction_alpha=0.1,
                               bootstrap=bootstrap, n_resamples=200 if bootstrap else None,
                               test=stats.ttest_rel if tied else "t")
    for measure in ["map", "ndcg_cut_10", "RR"]:
        pvalues = table[f"{measure} p-value"].drop(0).to_numpy(float)
        with np.errstate(divide="ignore"):  # fdr_gbs divides by 1 - p, as the table's own call did
            reject, corrected, _, _ = multitest.multipletests(pvalues, alpha=0.1, method=correction)
        np.testing.assert_array_equal(table[f"{measure} p-value corrected"].drop(0).to_numpy(float), corrected)
        np.testing.assert_array_equal(table[f"{measure} reject"].drop(0).to_numpy(bool), reject)
    assert np.isnan(table["map p-value"].iloc[-1]) == (tied and bootstrap != "corpus")




@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_a_holm_correction_collects_no_garbage(test, monkeypatch):
    """statsmodels runs a full garbage collection at every Holm call (0.2-0.5 s in a PyTerrier
    session): pt.Experiment makes one call per measure; ours made three (compare, the drop-in's
    own correction, pt's renderer), and now computes Holm without one."""
    import gc

    runs, qrels, measures = _simulated()
    calls = []
    collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append(1) or collect(*a))
    topics = pd.DataFrame({"qid": qrels["qid"].unique(), "query": "a"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _evaluation.Experiment(runs, topics, qrels, measures, baseline=0, test=test, correction="holm")
        theirs = len(calls)
        ptb.Experiment(runs, topics, qrels, measures, baseline=0, test=test, correction="holm")
    assert theirs == len(measures) and len(calls) == theirs


def test_a_callable_test_is_called_as_often_as_by_pt_experiment(monkeypatch):
    """A user's test runs once per pair and measure (it ran again in pt's renderer, whose p-values ours replace)."""
    runs, qrels, measures = _simulated()
    calls = []

    def test(x, y):
        calls.append(1)
        return stats.ttest_rel(x, y)

    topics = pd.DataFrame({"qid": qrels["qid"].unique(), "query": "a"})
    _evaluation.Experiment(runs, topics, qrels, measures, baseline=0, test=test, correction="holm")
    theirs = len(calls)
    ptb.Experiment(runs, topics, qrels, measures, baseline=0, test=test, correction="holm")
    assert theirs == (len(runs) - 1) * len(measures) and len(calls) - theirs == theirs


def test_the_drop_in_computes_no_difference_replicates_it_does_not_show(monkeypatch):
    """The table shows each test's own interval: the bootstrap replicates of the differences are
    for experiment_result (plots, rank intervals, saving), not drawn for the drop-in."""
    runs, qrels, measures = _simulated()
    rich = ptb.experiment_result(runs, None, qrels, measures, baseline=0, n_resamples=500)
    assert rich.comparisons.distribution.shape == (500, len(runs) - 1, len(measures))

    def refuse(*args, **kwargs):
        raise AssertionError("difference replicates drawn for the drop-in table")

    monkeypatch.setattr(experiment_module, "difference_spreads", refuse)
    table = ptb.Experiment(runs, None, qrels, measures, baseline=0, n_resamples=500)
    np.testing.assert_array_equal(table["map diff ci_low"].to_numpy(float),
                                  rich.table()["map diff ci_low"].to_numpy(float))
