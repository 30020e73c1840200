"""Run and qrels frames of every column type a user may hold give the same numbers; bad frames are
errors naming the run (or qrels), the topic and the document, through every entry point."""
import decimal
import warnings

import numpy as np
import pandas as pd
import pytest

from pyterrier_boot import Experiment, evaluate, experiment_result, read_qrels, read_run, read_runs

MEASURES = ["AP", "nDCG@10", "P@2", "RR"]
QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2", "3"], "docno": ["10", "11", "12", "20", "21", "30"],
                      "label": [2, 1, 0, 1, 0, 1]})
RUN = pd.DataFrame({"qid": ["1", "1", "1", "2", "2", "3"], "docno": ["11", "12", "10", "21", "20", "31"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.5, 1.0]})


def _ids(column, kind):
    """``column`` (strings of digits) as a user's frame may hold it."""
    if kind == "str":
        return column.astype(object)
    if kind == "string":
        return column.astype("string")
    if kind == "category":
        return column.astype("category")
    if kind == "int":
        return column.astype("int64")
    if kind == "Int64":
        return column.astype("int64").astype("Int64")
    if kind == "category_int":
        return column.astype("int64").astype("category")
    if kind == "mixed":  # ints and strings in one object column
        return pd.Series([int(v) if i % 2 else v for i, v in enumerate(column)], dtype=object)
    if kind == "numpy_int":
        return pd.Series([np.int32(v) for v in column], dtype=object)
    raise AssertionError(kind)


KINDS = ["str", "string", "category", "int", "Int64", "category_int", "mixed", "numpy_int"]


@pytest.fixture(scope="module")
def expected():
    return evaluate(RUN, QRELS, MEASURES)["value"].to_numpy()


@pytest.mark.parametrize("column", ["qid", "docno"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("where", ["run", "qrels", "both"])
def test_id_column_types_give_the_same_numbers(expected, column, kind, where):
    run, qrels = RUN.copy(), QRELS.copy()
    if where in ("run", "both"):
        run[column] = _ids(RUN[column], kind)
    if where in ("qrels", "both"):
        qrels[column] = _ids(QRELS[column], kind)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no InputWarning: every topic is recognised
        got = evaluate(run, qrels, MEASURES)
    np.testing.assert_array_equal(got["value"].to_numpy(), expected)
    assert got["qid"].tolist() == evaluate(RUN, QRELS, MEASURES)["qid"].tolist()


@pytest.mark.parametrize("kind", KINDS)
def test_readers_return_string_ids(kind):
    run = RUN.assign(qid=_ids(RUN["qid"], kind), docno=_ids(RUN["docno"], kind))
    qrels = QRELS.assign(qid=_ids(QRELS["qid"], kind), docno=_ids(QRELS["docno"], kind))
    read = read_run(run)
    assert read["qid"].tolist() == RUN["qid"].tolist() and read["docno"].tolist() == RUN["docno"].tolist()
    frame = read_qrels(qrels).frame
    assert frame["qid"].tolist() == QRELS["qid"].tolist() and frame["docno"].tolist() == QRELS["docno"].tolist()


@pytest.mark.parametrize("kind", ["category", "int", "mixed", "string"])
def test_experiment_with_typed_frames(kind):
    run = RUN.assign(qid=_ids(RUN["qid"], kind), docno=_ids(RUN["docno"], kind))
    qrels = QRELS.assign(qid=_ids(QRELS["qid"], kind))
    got = Experiment([run, RUN], None, qrels, ["map", "ndcg_cut_10"], names=["typed", "plain"], bootstrap=None)
    assert got["map"].iloc[0] == got["map"].iloc[1] and got["ndcg_cut_10"].iloc[0] == got["ndcg_cut_10"].iloc[1]


SCORES = {
    "int": lambda s: s.mul(2).astype("int64"),
    "float32": lambda s: s.astype("float32"),
    "decimal": lambda s: s.map(lambda v: decimal.Decimal(str(v))),
    "numeric strings": lambda s: s.map(str),
    "Float64": lambda s: s.astype("Float64"),
    "Int64": lambda s: s.mul(2).astype("int64").astype("Int64"),
    "uint16": lambda s: s.mul(2).astype("uint16"),
    "object floats": lambda s: s.astype(object),
}


@pytest.mark.parametrize("kind", SCORES)
def test_score_types_give_the_same_numbers(expected, kind):
    got = evaluate(RUN.assign(score=SCORES[kind](RUN["score"])), QRELS, MEASURES)
    np.testing.assert_array_equal(got["value"].to_numpy(), expected)


BAD_SCORES = {
    "nan": np.nan, "inf": np.inf, "-inf": -np.inf, "None": None, "word": "high", "decimal nan": decimal.Decimal("NaN"),
    "empty string": "",
}


def _with_bad_score(value):
    scores = RUN["score"].astype(object).copy()
    scores.iloc[4] = value  # topic 2, document 20
    return RUN.assign(score=scores)


@pytest.mark.parametrize("kind", BAD_SCORES)
def test_bad_score_names_run_topic_and_document(kind):
    run = _with_bad_score(BAD_SCORES[kind])
    culprit = ["run 'bm25'", "qid '2' docno '20'", "finite score"]
    with pytest.raises(ValueError) as raised:
        evaluate({"bm25": run}, QRELS, MEASURES)
    assert all(text in str(raised.value) for text in culprit), raised.value
    with pytest.raises(ValueError) as raised:
        read_run(run, name="bm25")
    assert all(text in str(raised.value) for text in culprit), raised.value
    with pytest.raises(ValueError) as raised:
        Experiment([RUN, run], None, QRELS, ["map"], names=["plain", "bm25"], bootstrap=None)
    assert all(text in str(raised.value) for text in culprit), raised.value


# columns that hold no real numbers (TypeError), and values that are not (ValueError): trec_eval reads ASCII numbers
NOT_NUMBERS = {
    "datetime": (lambda s: pd.to_datetime(s * 1e9), TypeError, "column of datetime64"),
    "timedelta": (lambda s: pd.to_timedelta(s, unit="s"), TypeError, "column of timedelta64"),
    "complex": (lambda s: s + 0j, TypeError, "column of complex128"),
    "bool": (lambda s: s > 1, TypeError, "column of bool"),
    "object complex": (lambda s: s.astype(object).where(s.index != 4, 1 + 2j), ValueError, "(complex)"),
    "object timestamp": (lambda s: s.astype(object).where(s.index != 4, pd.Timestamp(2020, 1, 1)), ValueError,
                         "(Timestamp)"),
    "object bool": (lambda s: s.astype(object).where(s.index != 4, True), ValueError, "(bool)"),
    "bytes": (lambda s: s.astype(object).where(s.index != 4, b"1"), ValueError, "(bytes)"),
    "arabic-indic digits": (lambda s: s.map(str).where(s.index != 4, "\u0661"), ValueError, "'\u0661'"),
    "fullwidth digits": (lambda s: s.map(str).where(s.index != 4, "\uff11"), ValueError, "'\uff11'"),
    "no-break space": (lambda s: s.map(str).where(s.index != 4, "0\xa0"), ValueError, "'0\\xa0'"),
}


@pytest.mark.parametrize("kind", NOT_NUMBERS)
def test_what_is_not_a_number_is_refused(kind):
    make, error, text = NOT_NUMBERS[kind]
    run, qrels = RUN.assign(score=make(RUN["score"])), QRELS.assign(label=make(QRELS["label"]))
    row, judged = ([], []) if error is TypeError else (["qid '2' docno '20'"], ["qid '2' docno '21'"])  # row 4
    calls = [(lambda: read_run(run, name="bm25"), ["run 'bm25'", "score", *row]),
             (lambda: evaluate({"bm25": run}, QRELS, MEASURES), ["run 'bm25'", "score", *row]),
             (lambda: experiment_result({"bm25": run}, None, QRELS, ["AP"]), ["run 'bm25'", "score", *row]),
             (lambda: read_qrels(qrels), ["qrels frame", "label", *judged]),
             (lambda: evaluate(RUN, qrels, MEASURES), ["qrels frame", "label"])]
    for call, texts in calls:
        with pytest.raises(error) as raised:
            call()
        assert text in str(raised.value) and all(t in str(raised.value) for t in texts), raised.value


# (what is wrong, the run frame, text the error must contain)
BAD_RUNS = [
    ("no score column", RUN.drop(columns="score"), ["run 'r'", "missing column(s) 'score'"]),
    ("no docno column", RUN.drop(columns="docno"), ["run 'r'", "missing column(s) 'docno'"]),
    ("no qid column", RUN.drop(columns="qid"), ["run 'r'", "missing column(s) 'qid'"]),
    ("missing qid", RUN.assign(qid=[None, "1", "1", "2", "2", "3"]), ["run 'r'", "1 missing 'qid'", "row 0"]),
    ("missing docno", RUN.assign(docno=["11", np.nan, "10", "21", "20", "31"]), ["run 'r'", "missing 'docno'", "row 1"]),
    ("float qids", RUN.assign(qid=[1.0, 1.0, 1.0, 2.0, 2.0, 3.0]), ["run 'r'", "'qid' value(s) that are not strings",
                                                                     "1.0 (float)"]),
    ("bytes docnos", RUN.assign(docno=[b"11", b"12", b"10", b"21", b"20", b"31"]), ["run 'r'", "'docno'", "bytes"]),
    ("bool qids", RUN.assign(qid=[True, True, True, False, False, True]), ["run 'r'", "'qid'", "bool"]),
    ("repeated document", pd.concat([RUN, RUN.iloc[[1]]]), ["run 'r'", "same docno more than once",
                                                            "qid '1' docno '12'"]),
    ("empty", RUN.iloc[:0], ["run 'r'", "is empty"]),
    ("two score columns", pd.concat([RUN, RUN[["score"]]], axis=1), ["run 'r'", "2 columns named 'score'"]),
]


@pytest.mark.parametrize(("problem", "run", "texts"), BAD_RUNS, ids=[b[0] for b in BAD_RUNS])
def test_bad_run_frame(problem, run, texts):
    for call in (lambda: evaluate({"r": run}, QRELS, MEASURES), lambda: read_runs({"r": run})):
        with pytest.raises(ValueError) as raised:
            call()
        assert all(text in str(raised.value) for text in texts), raised.value


@pytest.mark.parametrize(("frame", "missing"), [
    (RUN.drop(columns="docno"), "'docno'"), (RUN.drop(columns=["qid", "docno"]), "'qid', 'docno'"),
    (RUN.set_axis([0, 1, 2], axis=1), "'qid', 'docno', 'score'"),
], ids=["no docno", "no qid and docno", "columns 0, 1, 2"])
@pytest.mark.parametrize("measures", [["AP"], ["AP", "NumRet"], ["NumRet"]], ids=["kernel", "both", "ir_measures"])
def test_experiment_names_the_system_missing_columns(frame, missing, measures):
    """Our message (the argument, the missing columns, the columns there), not ir_measures' on query_id."""
    calls = ((lambda: experiment_result([RUN, frame], None, QRELS, measures, bootstrap=None), r"retr_systems\[1\]"),
             (lambda: Experiment({"bm25": frame}, None, QRELS, measures, bootstrap=None), r"retr_systems\['bm25'\]"))
    for call, label in calls:
        with pytest.raises(ValueError, match=rf"{label} is missing column\(s\) {missing}; it has columns \["):
            call()


def test_experiment_checks_transformer_output_columns():
    import pyterrier as pt

    no_docno = pt.apply.generic(lambda topics: RUN.drop(columns="docno"))
    topics = pd.DataFrame({"qid": ["1", "2", "3"], "query": ["a", "b", "c"]})
    with pytest.raises(ValueError, match=r"run 'no docno' is missing column\(s\) 'docno'"):
        experiment_result({"no docno": no_docno}, topics, QRELS, ["NumRet", "AP"], validate="ignore", bootstrap=None)


BAD_QRELS = [
    ("fractional label", QRELS.assign(label=[2, 1.5, 0, 1, 0, 1]), ["qrels frame", "not integers",
                                                                   "qid '1' docno '11' has label 1.5"]),
    ("missing label", QRELS.assign(label=[2, None, 0, 1, 0, 1]), ["qrels frame", "not integers", "docno '11'"]),
    ("word label", QRELS.assign(label=[2, "rel", 0, 1, 0, 1]), ["qrels frame", "label 'rel'"]),
    ("infinite label", QRELS.assign(label=[2, 1, np.inf, 1, 0, 1]), ["qrels frame", "docno '12' has label inf"]),
    ("huge label", QRELS.assign(label=[2, 1, 1e300, 1, 0, 1]), ["qrels frame", "docno '12'"]),
    ("no label column", QRELS.drop(columns="label"), ["qrels frame", "missing column(s) 'label'"]),
    ("repeated judgement", pd.concat([QRELS, QRELS.iloc[[0]]]), ["qrels frame", "more than once",
                                                                 "qid '1' docno '10'"]),
    ("empty", QRELS.iloc[:0], ["qrels frame", "is empty"]),
    ("float docnos", QRELS.assign(docno=[10.0, 11.0, 12.0, 20.0, 21.0, 30.0]), ["qrels frame", "'docno'", "float"]),
]


@pytest.mark.parametrize(("problem", "qrels", "texts"), BAD_QRELS, ids=[b[0] for b in BAD_QRELS])
def test_bad_qrels_frame(problem, qrels, texts):
    for call in (lambda: evaluate(RUN, qrels, MEASURES), lambda: read_qrels(qrels)):
        with pytest.raises(ValueError) as raised:
            call()
        assert all(text in str(raised.value) for text in texts), raised.value


@pytest.mark.parametrize("source", [42, [RUN], {"qid": [1]}, None], ids=["int", "list", "dict", "None"])
def test_read_run_refuses_other_types(source):
    with pytest.raises(TypeError, match="'source' must be a path to a TREC run file or a DataFrame, got"):
        read_run(source)


@pytest.mark.parametrize("source", [42, [QRELS], None], ids=["int", "list", "None"])
def test_read_qrels_refuses_other_types(source):
    with pytest.raises(TypeError, match="'source' must be a Qrels, a DataFrame, a path"):
        read_qrels(source)


@pytest.mark.parametrize("scores", [[1e308, 1e300, 1.0], [-1e300, -1e308, -1.0], [1e39, 1e38, 0.0],
                                    [5e-324, 0.0, -5e-324], [2**60, 2**60 + 2**10, 7]],
                         ids=["huge", "huge negative", "around float32 max", "subnormal", "large integers"])
def test_extreme_run_scores_rank_as_trec_eval_does(scores):
    """pytrec_eval (through ir_measures) is the reference: scores are compared in single precision,
    so scores beyond its range tie (with one InputWarning saying so)."""
    import ir_measures

    qrels = pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "label": [0, 1, 2]})
    run = pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "score": scores})
    measures = [ir_measures.AP, ir_measures.RR, ir_measures.nDCG @ 2, ir_measures.P @ 1]
    reference = {m: 0.0 for m in measures}
    reference.update({r.measure: r.value for r in ir_measures.iter_calc(
        measures, qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}),
        run.rename(columns={"qid": "query_id", "docno": "doc_id"}))})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = evaluate({"extreme": run}, qrels, measures)["value"].tolist()
    assert got == pytest.approx([reference[m] for m in measures], abs=1e-12)
    beyond = any(abs(s) > float(np.finfo(np.float32).max) for s in scores)
    ours = [w for w in caught if issubclass(w.category, Warning) and "single precision" in str(w.message)]
    assert len(ours) == int(beyond) and not [w for w in caught if w.category is RuntimeWarning]
    if beyond:
        assert ours[0].message.cases == ("'extreme'",)
