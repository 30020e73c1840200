"""pt.boot.Experiment is a drop-in pt.Experiment: a matrix of pt.Experiment's arguments, run through
both on small inline runs, gives the same type, shape, values, index and errors, apart from the
columns pyterrier_boot adds after pt.Experiment's.

The matrix: 4 measure lists x 6 (perquery, dataframe) shapes x 4 (baseline, correction) x 3 rounds,
less the baseline-with-perquery combinations pt.Experiment refuses for all but one measure list:
180 combinations, each also with one of 6 sets of the other arguments (names, duplicate names,
highlight, filter_by_qrels/topics, batch_size, precompute_prefix, save_dir/save_mode, round=3).
Errors count: where pt.Experiment raises, ours raises the same type."""
import itertools
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from pandas.io.formats.style import Styler
from pyterrier import _evaluation

import pyterrier_boot as ptb

QRELS = pd.DataFrame([(q, f"d{d}", (q * 7 + d * 3) % 3) for q in range(1, 7) for d in range(8)],
                     columns=["qid", "docno", "label"]).astype({"qid": str})
TOPICS = pd.DataFrame({"qid": [str(q) for q in range(1, 8)], "query": "a b"})  # topic 7 is unjudged


def _run(seed):
    rng = np.random.default_rng(seed)
    rows = [(str(q), f"d{d}", float(rng.normal())) for q in range(1, 8) for d in rng.permutation(10)[:6]]
    with warnings.catch_warnings():  # pyterrier 1.1's add_ranks uses DataFrame.drop(inplace=True), deprecated in pandas 3.1
        warnings.filterwarnings("ignore", "The inplace keyword in DataFrame", DeprecationWarning)
        return pt.model.add_ranks(pd.DataFrame(rows, columns=["qid", "docno", "score"]))


RUNS = [_run(1), _run(2), _run(3)]
MEASURES = {
    "trec names": ["map", "ndcg_cut_5", "P_5"],
    "ir_measures objects": [ir_measures.AP, ir_measures.nDCG @ 5, ir_measures.RR],
    "families and summed": ["P", "num_q", "map", "mrt"],
    "official": ["official"],
}
SHAPES = [(False, True), (False, False), (True, True), (True, False), ("both", True), ("both", False)]
TESTS = [(None, None), (0, None), (1, "holm"), (0, "bonferroni")]
# the remaining arguments, cycled over the cases (each value meets every shape)
OTHERS = [
    {},
    {"names": ["A", "B", "C"], "highlight": "bold"},
    {"filter_by_qrels": True, "batch_size": 2, "round": 3},
    {"filter_by_topics": False, "names": ["A", "A", "B"]},
    {"precompute_prefix": True, "highlight": "color"},
    {"save_dir": True, "save_mode": "overwrite", "names": ["x", "y", "z"]},
]
ROUNDS = [None, {"map": 2, "AP": 2}, 4]
# pt.Experiment refuses a baseline with per-query output (AssertionError): that error is compared
# for one measure list, the other combinations are those giving results
_product = [(measures, shape, test, rounding) for measures, shape, test, rounding
            in itertools.product(MEASURES, SHAPES, TESTS, ROUNDS)
            if not (test[0] is not None and shape[0] and measures != "trec names")]
CASES = [(*case, OTHERS[i % len(OTHERS)]) for i, case in enumerate(_product)]


def _call(experiment, measures, shape, test, rounding, others, tmp_path):
    kwargs = dict(others)
    if kwargs.get("save_dir"):
        tmp_path.mkdir(parents=True, exist_ok=True)
        kwargs["save_dir"] = str(tmp_path)
    perquery, dataframe = shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            kwargs.setdefault("round", rounding)
            return experiment(list(RUNS), TOPICS, QRELS, list(MEASURES[measures]), perquery=perquery,
                              dataframe=dataframe, baseline=test[0], correction=test[1], **kwargs)
        except Exception as error:  # noqa: BLE001 -- compared below: the same type as pt.Experiment's
            return error


def _same(ours, theirs, where="result"):
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), f"{where}: pt raised {theirs!r}, ours gave {ours!r}"
        return
    assert not isinstance(ours, Exception), f"{where}: pt gave a result, ours raised {ours!r}"
    assert type(ours) is type(theirs), where
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, Styler):
        _same(ours.data, theirs.data, f"{where}.data")
    elif isinstance(theirs, pd.DataFrame):
        assert list(ours.columns[:len(theirs.columns)]) == list(theirs.columns), where
        pd.testing.assert_frame_equal(ours[theirs.columns], theirs, check_exact=False, rtol=1e-12, atol=1e-12,
                                      obj=where)
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs), where
        for key in theirs:
            _same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, float) and np.isnan(theirs):
        assert np.isnan(ours), where
    else:
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12), where


@pytest.mark.parametrize(("measures", "shape", "test", "rounding", "others"), CASES)
def test_same_output_as_pt_experiment(measures, shape, test, rounding, others, tmp_path):
    theirs = _call(_evaluation.Experiment, measures, shape, test, rounding, others, tmp_path / "pt")
    ours = _call(ptb.Experiment, measures, shape, test, rounding, others, tmp_path / "ours")
    if isinstance(theirs, AttributeError) and "'Styler' object has no attribute 'style'" in str(theirs):
        # pt.Experiment 1.1.2 fails on perquery="both" with highlight (it styles a Styler); ours
        # gives the highlighted table: compare it with pt.Experiment's table without highlight
        plain = {k: v for k, v in others.items() if k != "highlight"}
        theirs = _call(_evaluation.Experiment, measures, shape, test, rounding, plain, tmp_path / "pt")
        assert isinstance(ours[0], Styler)
        ours = type(ours)(ours[0].data, ours[1])
    _same(ours, theirs)


def test_same_call_same_table():
    first = ptb.Experiment(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0)
    again = ptb.Experiment(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0)
    pd.testing.assert_frame_equal(first, again)
    seeded = ptb.Experiment(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0, rng=42)
    pd.testing.assert_frame_equal(first, seeded)  # rng=None is the documented seed 42
    other = ptb.Experiment(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0, rng=7)
    assert not np.allclose(other["map ci_low"], first["map ci_low"])


# pt.Experiment's own t-test against the baseline on one topic (scipy's variance of one value), as pt.Experiment does
@pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning",
                            "ignore:invalid value encountered in scalar multiply:RuntimeWarning")
def test_added_columns_follow_pts_and_one_topic_is_nan_with_one_warning():
    table = ptb.Experiment(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0)
    reference = pt.Experiment(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0)
    assert list(table.columns[:len(reference.columns)]) == list(reference.columns)
    assert {"map ci_low", "map ci_high", "map diff ci_low", "map diff ci_high"} <= set(table.columns)
    one = TOPICS.head(1)
    with pytest.warns(ptb.InputWarning, match="only 1 topic is judged") as record:
        table = ptb.Experiment(list(RUNS), one, QRELS, ["map"], names=["A", "B", "C"], baseline=0)
    assert len(record) == 1, [str(w.message) for w in record]  # not scipy's divide-by-zero in pt's t-test column
    assert table["map ci_low"].isna().all() and table["map"].notna().all()


def test_custom_measure_gets_topic_interval_from_its_per_query_values():
    lengths = ir_measures.define_byquery(lambda qrels, run: float(len(run)), name="depth")
    with pytest.warns(ptb.DegenerateWarning, match="the same on every topic for 3 interval"):  # 6 results per topic
        table = ptb.Experiment(list(RUNS), TOPICS, QRELS, [lengths], names=["A", "B", "C"])
    reference = pt.Experiment(list(RUNS), TOPICS, QRELS, [lengths], names=["A", "B", "C"])
    pd.testing.assert_frame_equal(table[reference.columns], reference)
    assert (table["depth ci_low"] <= table["depth"]).all() and (table["depth"] <= table["depth ci_high"]).all()


def test_rich_result_door():
    res = ptb.experiment_result(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0)
    assert isinstance(res, ptb.ExperimentResult)
    table = ptb.Experiment(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0)
    np.testing.assert_allclose(res.table()["map ci_low"], table["map ci_low"])
