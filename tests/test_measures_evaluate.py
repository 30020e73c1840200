"""evaluate(): conventions, labels, multiplicities, fallback, and bad input."""
import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest

from pyterrier_boot import FallbackWarning, InputWarning, evaluate, parse_measures
from pyterrier_boot.measures.materialisation import image_qrels, image_run
from pyterrier_boot.measures.parsing import require_mean_aggregated

QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2", "3"], "docno": ["a", "b", "c", "a", "d", "x"],
                      "label": [1, 0, 2, 1, 1, 0]})
RUN = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["a", "b", "c", "d", "e"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
# RUN has no result for the judged topic 3 (it scores 0 there): the warning saying so is asserted in
# test_long_frame_keeps_labels_order_and_qrels_topics and filtered in the other tests
MISSING_TOPIC_3 = r"(\d) of \1 run\(s\) have no results for some of the 3 topics in the qrels \(at most 1 per run, " \
                  r"e.g. '3'\)"
pytestmark = pytest.mark.filterwarnings(f"ignore:{MISSING_TOPIC_3}:pyterrier_boot._warnings.InputWarning")


def test_long_frame_keeps_labels_order_and_qrels_topics():
    with pytest.warns(InputWarning, match=MISSING_TOPIC_3):
        out = evaluate(RUN, QRELS, ["map", "nDCG@10", "P_1"])
    assert list(out.columns) == ["qid", "measure", "value"]
    assert out["qid"].tolist() == ["1"] * 3 + ["2"] * 3 + ["3"] * 3
    assert out["measure"].tolist()[:3] == ["map", "nDCG@10", "P_1"]
    # topic 3 is judged but not retrieved: every measure scores 0 (as pt.Experiment / ir_measures)
    assert (out.loc[out["qid"] == "3", "value"] == 0).all()
    # AP of topic 1: relevant a (rank 1) and c (rank 3) -> (1 + 2/3) / 2
    assert out.loc[(out["qid"] == "1") & (out["measure"] == "map"), "value"].item() == pytest.approx(5 / 6)


def test_several_runs_get_a_name_column():
    out = evaluate({"x": RUN, "y": RUN.assign(score=-RUN["score"])}, QRELS, ["AP"])
    assert list(out.columns) == ["name", "qid", "measure", "value"]
    assert out.groupby("name").size().to_dict() == {"x": 3, "y": 3}


@pytest.mark.parametrize("as_path", [str, lambda p: p], ids=["str", "Path"])
def test_a_folder_of_run_files_is_several_runs(tmp_path, as_path):
    """As pt_docs/measures.md says and CorpusBootstrap.evaluate does: a folder is read by read_runs
    (one run per file, named by its tag), the same numbers as the dict of the same runs."""
    folder = tmp_path / "runs"
    folder.mkdir()
    runs = {"x": RUN, "y": RUN.assign(score=-RUN["score"])}
    for name, run in runs.items():
        lines = [f"{q} Q0 {d} 0 {s} {name}\n" for q, d, s in run[["qid", "docno", "score"]].itertuples(index=False)]
        (folder / f"{name}.run").write_text("".join(lines))
    got = evaluate(as_path(folder), QRELS, ["AP", "nDCG@10"])
    pd.testing.assert_frame_equal(got, evaluate(runs, QRELS, ["AP", "nDCG@10"]))
    assert evaluate([as_path(folder)], QRELS, ["AP"])["name"].unique().tolist() == ["x", "y"]


def test_topics_not_in_qrels_are_ignored_with_a_warning():
    run = pd.concat([RUN, pd.DataFrame({"qid": ["9"], "docno": ["a"], "score": [1.0]})])
    with pytest.warns(InputWarning, match=r"1 of 1 run\(s\) have results for topics that are not in the qrels "
                                          r"\(at most 1 per run, e.g. '9'\)"):
        out = evaluate(run, QRELS, ["AP"])
    assert "9" not in set(out["qid"])


def test_multiplicity_equals_materialised_image_through_ir_measures():
    multiplicity = {"a": 2, "b": 0, "d": 3}
    ours = evaluate(RUN, QRELS, ["AP", "P@2", "nDCG@3"], multiplicity=multiplicity).set_index(["qid", "measure"])
    iq = image_qrels(QRELS, multiplicity).rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    ir = image_run(RUN, multiplicity).rename(columns={"qid": "query_id", "docno": "doc_id"})
    for metric in ir_measures.iter_calc(
        [ir_measures.AP, ir_measures.P @ 2, ir_measures.nDCG @ 3],
        iq[["query_id", "doc_id", "relevance"]], ir[["query_id", "doc_id", "score"]],
    ):
        label = {"AP": "AP", "P@2": "P@2", "nDCG@3": "nDCG@3"}[str(metric.measure)]
        assert ours.loc[(metric.query_id, label), "value"] == pytest.approx(metric.value, abs=1e-12)


def test_multiplicity_as_series_and_callable_agree():
    as_dict = evaluate(RUN, QRELS, ["AP"], multiplicity={"a": 0})
    as_series = evaluate(RUN, QRELS, ["AP"], multiplicity=pd.Series({"a": 0}))
    as_callable = evaluate(RUN, QRELS, ["AP"], multiplicity=lambda d: 0 if d == "a" else 1)
    pd.testing.assert_frame_equal(as_dict, as_series)
    pd.testing.assert_frame_equal(as_dict, as_callable)


def test_topic_whose_relevant_documents_vanish_scores_zero():
    out = evaluate(RUN, QRELS, ["AP", "nDCG", "RR", "P@1"], multiplicity={"a": 0, "c": 0})
    assert (out.loc[out["qid"] == "1", "value"] == 0).all()


@pytest.mark.parametrize("bad", [{"a": -1}, {"a": 1.5}, {"a": np.nan}])
def test_bad_multiplicity(bad):
    with pytest.raises(ValueError, match="'multiplicity' must map docnos to non-negative whole numbers"):
        evaluate(RUN, QRELS, ["AP"], multiplicity=bad)


def test_fallback_measure_on_an_image_warns_and_equals_ir_measures():
    multiplicity = {"a": 2, "c": 0}
    with pytest.warns(FallbackWarning, match="no fast kernel for 'SetP'"):
        ours = evaluate(RUN, QRELS, ["SetP", "AP"], multiplicity=multiplicity)
    iq = image_qrels(QRELS, multiplicity).rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    ir = image_run(RUN, multiplicity).rename(columns={"qid": "query_id", "docno": "doc_id"})
    expected = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.SetP], iq, ir)}
    got = ours[ours["measure"] == "SetP"].set_index("qid")["value"]
    for qid, value in expected.items():
        assert got[qid] == pytest.approx(value)


def test_fallback_on_the_collection_is_plain_ir_measures_without_warning(recwarn):
    out = evaluate(RUN, QRELS, ["infAP"])
    assert not [w for w in recwarn if issubclass(w.category, FallbackWarning)]
    iq = QRELS.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    ir = RUN.rename(columns={"qid": "query_id", "docno": "doc_id"})
    expected = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.infAP], iq, ir)}
    assert out.set_index("qid")["value"].to_dict() == pytest.approx({**expected, "3": 0.0})


def test_transformer_runs_on_topics():
    transformer = pt.Transformer.from_df(RUN.assign(query="q"))
    topics = pd.DataFrame({"qid": ["1", "2"], "query": ["q", "q"]})
    pd.testing.assert_frame_equal(evaluate(transformer, QRELS, ["AP"], topics=topics), evaluate(RUN, QRELS, ["AP"]))


@pytest.mark.parametrize(("measures", "message"), [
    (["ndcg@10"], r"unknown measure 'ndcg@10'.*did you mean 'nDCG@10'\?"),
    (["mapp"], r"unknown measure 'mapp'.*did you mean 'map'\?"),
    (["RBP(q=0.5)"], r"measure 'RBP\(q=0.5\)': unknown parameter\(s\) 'q'; RBP accepts @k, p, rel"),
    (["RBP(0.5)"], r"measure parameters must be named"),
    (["RBP@10"], r"cannot compute 'RBP@10'"),
    ([], r"'measures' is empty"),
    (["AP", "AP"], r"'measures' lists 'AP' more than once"),
])
def test_bad_measures(measures, message):
    with pytest.raises(ValueError, match=message):
        evaluate(RUN, QRELS, measures)


def test_measures_of_the_wrong_type():
    with pytest.raises(TypeError, match="'measures' must hold strings or ir_measures measures, got int"):
        evaluate(RUN, QRELS, ["AP", 3])


def test_err_refuses_grades_above_gdevals_range():
    qrels = QRELS.assign(label=QRELS["label"].replace({2: 5}))
    with pytest.raises(ValueError, match=r"ERR follows gdeval .* grades are 0..4, but the qrels hold grade 5"):
        evaluate(RUN, qrels, ["ERR@10"])


def test_summed_measures_refused_where_a_mean_is_meaningless():
    with pytest.raises(ValueError, match=r"'NumRet' is summed over topics, not averaged"):
        require_mean_aggregated(parse_measures(["AP", "NumRet"]))
    require_mean_aggregated(parse_measures(["AP", "nDCG@10"]))


def test_parse_measures_both_syntaxes():
    parsed = parse_measures(["map", "ndcg_cut_10", "P.5,10", "AP(rel=2)", "Q@1000", ir_measures.nDCG @ 5])
    assert [(m.label, str(m.measure)) for m in parsed] == [
        ("map", "AP"), ("ndcg_cut_10", "nDCG@10"), ("P@5", "P@5"), ("P@10", "P@10"),
        ("AP(rel=2)", "AP(rel=2)"), ("Q@1000", "Q@1000"), ("nDCG@5", "nDCG@5")]
