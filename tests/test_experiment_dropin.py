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
    # another seed, other resamples (with 6 topics, 10,000 resamples put the ends on the same few
    # distinct means whatever the seed: 200 show the draw)
    kept, other = (ptb.Experiment(list(RUNS), TOPICS, QRELS, ["map"], names=["A", "B", "C"], baseline=0, rng=rng,
                                  n_resamples=200) for rng in (None, 7))
    assert not np.allclose(other[["map ci_low", "map ci_high"]], kept[["map ci_low", "map ci_high"]])


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


def _bad(**kwargs):
    """A call's arguments: pt.Experiment's four inputs (the module's runs) overridden by ``kwargs``."""
    call = {"retr_systems": list(RUNS), "topics": TOPICS, "qrels": QRELS, "eval_metrics": ["map"]}
    return call | kwargs


_EXISTING = "s1"  # a run file already in save_dir (save_mode="error")
BAD_ARGUMENTS = {
    "unknown measure name": _bad(eval_metrics=["foo"]),
    "measure as one unknown string": _bad(eval_metrics="foo"),
    "unknown ir_measures cutoff": _bad(eval_metrics=["nDCG@x"]),
    "unknown measure parameter": _bad(eval_metrics=["AP(rel=x)"]),
    "cutoff 0": _bad(eval_metrics=["P@0"]),
    "measure of another type": _bad(eval_metrics=[123]),
    "measure in a list": _bad(eval_metrics=[["map"]]),
    "no measure": _bad(eval_metrics=[]),
    "measures None": _bad(eval_metrics=None),
    "one frame for the systems": _bad(retr_systems=RUNS[0]),
    "a system of another type": _bad(retr_systems=[RUNS[0], 3]),
    "no system": _bad(retr_systems=[]),
    "a name as baseline with a list": _bad(baseline="a"),
    "baseline out of range": _bad(baseline=5),
    "negative baseline": _bad(baseline=-1),
    "unknown baseline name": _bad(retr_systems=dict(zip("abc", RUNS)), baseline="zz"),
    "fractional baseline": _bad(baseline=0.5),
    "baseline with per-query output": _bad(baseline=0, perquery=True),
    "baseline with both outputs": _bad(baseline=0, perquery="both"),
    "negative round": _bad(round=-1),
    "round of another type": _bad(round="x"),
    "fractional round": _bad(round=1.5),
    "negative round of a measure": _bad(round={"map": -1}),
    "per-measure round per query": _bad(round={"map": 2}, perquery=True),
    "correction without baseline": _bad(correction="holm"),
    "unknown correction": _bad(correction="nonsense", baseline=0),
    "correction_alpha not a number": _bad(correction="holm", baseline=0, correction_alpha="x"),
    "unknown test name": _bad(test="foo", baseline=0),
    "test of another type": _bad(test=3, baseline=0),
    "names of another length": _bad(names=["x"]),
    "missing save_dir": _bad(save_dir="/nonexistent/save_dir"),
    "save_dir with the tree plan": _bad(save_dir=True, plan="tree"),
    "save_dir with repeated names": _bad(save_dir=True, names=["x", "x", "y"]),
    "save_dir with a bad name": _bad(save_dir=True, names=["a/b", "c", "d"]),
    "unknown save_mode": _bad(retr_systems=[pt.Transformer.from_df(RUNS[0])], save_dir=True, names=[_EXISTING],
                              save_mode="zz"),
    "existing run with save_mode='error'": _bad(retr_systems=[pt.Transformer.from_df(RUNS[0])], save_dir=True,
                                                names=[_EXISTING], save_mode="error"),
    "unknown save_format": _bad(retr_systems=[pt.Transformer.from_df(RUNS[0])], save_format="zz", save_dir=True,
                                names=["t"]),
    "unknown keyword": _bad(foo=1),
    "bad verbose with the tree plan": _bad(plan="tree", verbose="x"),
    "batch_size 0": _bad(retr_systems=[pt.Transformer.from_df(RUNS[0])], batch_size=0),
    "negative batch_size": _bad(retr_systems=[pt.Transformer.from_df(RUNS[0])], batch_size=-1),
    "batch_size of another type": _bad(retr_systems=[pt.Transformer.from_df(RUNS[0])], batch_size="x"),
    "no topic in the qrels": _bad(topics=pd.DataFrame({"qid": ["zz"], "query": ["q"]}), filter_by_qrels=True),
    "no qrels for the topics": _bad(topics=pd.DataFrame({"qid": ["zz"], "query": ["q"]})),
    "a run lacking the measures' columns": _bad(retr_systems=[pd.DataFrame({"qid": ["1"], "query": ["q"]})],
                                                validate="error"),
    "a run without scores": _bad(retr_systems=[RUNS[0].drop(columns=["score"])]),
    "an empty run": _bad(retr_systems=[RUNS[0].iloc[:0]]),
    "qrels without labels": _bad(qrels=QRELS.drop(columns=["label"])),
    "qrels None": _bad(qrels=None),
    "topics None with a transformer": _bad(retr_systems=[pt.Transformer.from_df(RUNS[0])], topics=None),
}
# where pt.Experiment crashes inside pandas or Python on an input it never checks, ours raises its own
# error naming the argument instead (a missing file, topics without their columns)
PT_CRASHES = {
    "missing topics file": (_bad(topics="/nonexistent/topics.txt"), FileNotFoundError),  # pt: TypeError
    "missing qrels file": (_bad(qrels="/nonexistent/qrels.txt"), FileNotFoundError),  # pt: AttributeError
    "topics without qid": (_bad(topics=pd.DataFrame({"q": ["1"]})), ValueError),  # pt: KeyError
}


def _raised(experiment, arguments, tmp_path):
    arguments = dict(arguments)
    if arguments.get("save_dir") is True:
        tmp_path.mkdir(parents=True)
        arguments["save_dir"] = str(tmp_path)
        (tmp_path / f"{_EXISTING}.res.gz").touch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            experiment(**arguments)
        except Exception as error:  # noqa: BLE001 -- the type is what is compared
            return error
    return None


@pytest.mark.parametrize("case", BAD_ARGUMENTS)
def test_bad_argument_raises_an_error_pt_experiments_except_catches(case, tmp_path):
    """Issue 33: every error pt.Experiment raises for a bad argument is caught by the same ``except``
    with ours (``except ValueError`` around pt.Experiment(..., ["foo"]) keeps working after the swap)."""
    theirs = _raised(_evaluation.Experiment, BAD_ARGUMENTS[case], tmp_path / "pt")
    assert theirs is not None, f"pt.Experiment accepts {case}: not a bad argument"
    ours = _raised(ptb.Experiment, BAD_ARGUMENTS[case], tmp_path / "ours")
    assert isinstance(ours, type(theirs)), f"{case}: pt.Experiment raised {theirs!r}, ours {ours!r}"
    assert str(ours)  # a message, not an empty assertion


@pytest.mark.parametrize("case", PT_CRASHES)
def test_inputs_pt_experiment_crashes_on_get_an_error_naming_them(case, tmp_path):
    arguments, error = PT_CRASHES[case]
    theirs = _raised(_evaluation.Experiment, arguments, tmp_path / "pt")
    assert theirs is not None and not isinstance(theirs, error)  # the crash this case documents
    ours = _raised(ptb.Experiment, arguments, tmp_path / "ours")
    assert isinstance(ours, error) and ("topics" in str(ours) or "qrels" in str(ours)), repr(ours)


def test_retr_systems_may_be_a_tuple():
    """An extension: pt.Experiment refuses a tuple of systems (TypeError), ours takes it as a list."""
    with pytest.raises(TypeError):
        _evaluation.Experiment(tuple(RUNS), TOPICS, QRELS, ["map"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = ptb.Experiment(tuple(RUNS), TOPICS, QRELS, ["map"], bootstrap=None)
    assert len(table) == len(RUNS)


def _rag_output():
    """A RAG-style transformer's output: a context per topic, no documents (PyTerrier's
    test_expected_columns)."""
    return pt.Transformer.from_df(pd.DataFrame({"qid": ["1", "2"], "query": "q", "context": ["here", "there!"]}))


def test_outputs_without_documents_go_to_measures_that_read_them(tmp_path):
    """Issue 33: a transformer returning ``qid, query, context`` with a per-query measure reading
    ``context`` (``ir_measures.define_byquery``) works as in pt.Experiment, with an interval from its
    per-query values; with a ranking measure both refuse it with the same error type."""
    context_length = ir_measures.define_byquery(lambda qrels, run: len(run.iloc[0]["context"]),
                                                run_inputs=["context"], name="context_length")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _evaluation.Experiment([_rag_output()], TOPICS, QRELS, [context_length], names=["rag"])
        ours = ptb.Experiment([_rag_output()], TOPICS, QRELS, [context_length], names=["rag"], n_resamples=200)
    pd.testing.assert_frame_equal(ours[theirs.columns], theirs)
    assert ours.loc[0, "context_length"] == pytest.approx((4 + 6) / 6)  # two topics of the six judged
    assert ours.loc[0, "context_length ci_low"] <= ours.loc[0, "context_length"] <= ours.loc[0, "context_length ci_high"]
    for measures in (["map"], [context_length, "map"]):
        theirs_error = _raised(_evaluation.Experiment, _bad(retr_systems=[_rag_output()], eval_metrics=measures),
                               tmp_path / "pt")
        ours_error = _raised(ptb.Experiment, _bad(retr_systems=[_rag_output()], eval_metrics=measures), tmp_path / "o")
        assert isinstance(theirs_error, ValueError) and isinstance(ours_error, ValueError), (theirs_error, ours_error)


def test_outputs_without_documents_saved_as_pt_experiment_saves_them(tmp_path):
    """pt.Experiment's test_save_invalid_format: a TypeError naming the missing columns for a TREC run
    file; with save_format=pickle and a per-query measure the output is saved and evaluated."""
    import pickle

    dummy = ir_measures.define_byquery(lambda qrels, run: 0)
    for experiment, folder in ((_evaluation.Experiment, tmp_path / "pt"), (ptb.Experiment, tmp_path / "ours")):
        folder.mkdir()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError, match=r"'docno', 'score', 'rank'"):
                experiment([_rag_output()], TOPICS, QRELS, ["map"], save_dir=str(folder), names=["t"])
            table = experiment([_rag_output()], TOPICS, QRELS, [dummy], save_dir=str(folder), names=["t"],
                               save_format=pickle)
        assert table.loc[0, "<lambda>"] == 0
        assert (folder / "t.res.gz").exists() or any(folder.glob("t.*"))


@pytest.mark.parametrize("options", [
    {}, {"baseline": 0}, {"baseline": 1, "correction": "holm"}, {"baseline": [0, 2]},
    {"baseline": [0, 1], "correction": "bonferroni"}, {"bootstrap": None, "baseline": 0},
    {"bootstrap": "corpus", "baseline": 0, "correction": "holm"}, {"bootstrap": "both", "baseline": [1, 0]},
    {"bootstrap": None}, {"mrt": True, "baseline": 0}, {"round": 3, "baseline": 2},
])
def test_result_table_has_the_experiments_columns_in_its_order(options):
    """Issue 33: res.table() orders its columns exactly as pt.boot.Experiment's table (one order),
    with the same values."""
    options = dict(options)
    systems = [pt.Transformer.from_df(run) for run in RUNS] if options.pop("mrt", False) else list(RUNS)
    measures = ["map", "P_5"] + (["mrt"] if isinstance(systems[0], pt.Transformer) else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = ptb.Experiment(systems, TOPICS, QRELS, measures, names=["A", "B", "C"], n_resamples=200, **options)
        result = ptb.experiment_result(systems, TOPICS, QRELS, measures, names=["A", "B", "C"], n_resamples=200,
                                       **options).table()
    assert list(result.columns) == list(table.columns)
    fixed = [c for c in table.columns if c != "mrt"]  # the systems' running time differs between two runs
    pd.testing.assert_frame_equal(result[fixed], table[fixed], check_dtype=False)
