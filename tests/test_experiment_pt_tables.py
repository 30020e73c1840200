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
from pyterrier import _evaluation
from test_experiment_dropin import _same

import pyterrier_boot as ptb
from pyterrier_boot.experiment import dropin

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
