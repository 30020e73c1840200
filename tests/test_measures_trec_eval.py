"""evaluate() against trec_eval's own test suite (v9.0.8 expected outputs, as pytrec_eval/ir_measures)."""
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

from pyterrier_boot import evaluate, read_qrels, read_run
from pyterrier_boot.measures.lowering import lower

pytestmark = pytest.mark.integration


def _expected(name):
    """``{(measure, qid): value}`` from an ``out.*`` file of trec_eval's tests."""
    out = {}
    for line in shared_path("trec_eval-tests", "expected-v9.0.8", name).read_text().splitlines():
        measure, qid, value = line.split()
        try:
            out[(measure, qid)] = float(value)
        except ValueError:
            continue
    return out


def _kernel_trec_names(expected):
    """trec_eval names in ``expected`` that parse to one measure with a kernel."""
    names = []
    for measure in sorted({m for m, _ in expected}):
        try:
            parsed = ir_measures.parse_trec_measure(measure)
        except (ValueError, KeyError):
            continue
        if len(parsed) == 1 and lower(parsed[0]) is not None:
            names.append(measure)
    return names


def _check(run, qrels, expected, *, rel=None, averaged_over_qrels=False):
    names = _kernel_trec_names(expected)
    assert len(names) >= 20, names
    measures = [m if rel is None else _with_rel(m, rel) for m in names]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = evaluate(run, qrels, measures)
    judged = set(read_qrels(qrels).frame["qid"])
    missing = judged - set(run["qid"])  # judged topics without results: said once, counted (trec_eval -c)
    said = (f"1 of 1 run(s) have no results for some of the {len(judged)} topics in the qrels (at most {len(missing)} "
            "per run")
    assert [str(w.message)[:len(said)] for w in caught] == ([said] if missing else [])
    ours["measure"] = ours["measure"].map(dict(zip(measures, names)))
    compared = 0
    for (measure, qid), value in expected.items():
        if measure not in names:
            continue
        if qid == "all":
            rows = ours[ours["measure"] == measure]
            if not averaged_over_qrels:
                rows = rows[rows["qid"].isin(set(run["qid"]))]
            got = rows["value"].mean()
        else:
            got = ours.loc[(ours["measure"] == measure) & (ours["qid"] == qid), "value"].item()
        assert got == pytest.approx(value, abs=5.1e-5), (measure, qid)
        compared += 1
    return compared


def _with_rel(trec_name, rel):
    measure = ir_measures.parse_trec_measure(trec_name)[0]
    if "rel" in measure.SUPPORTED_PARAMS and measure.NAME != "nDCG":
        measure = measure(rel=rel)
    return str(measure)


def test_all_trec_per_topic():
    """``trec_eval -m all_trec -q qrels.test results.test``."""
    run = read_run(shared_path("trec_eval-tests", "results.test"))
    assert _check(run, shared_path("trec_eval-tests", "qrels.test"), _expected("out.test.aq")) >= 150


def test_relevance_level_two():
    """``trec_eval -m all_trec -q -l2 qrels.rel_level results.test``: rel=2 on binary measures."""
    run = read_run(shared_path("trec_eval-tests", "results.test"))
    assert _check(run, shared_path("trec_eval-tests", "qrels.rel_level"), _expected("out.test.aql"), rel=2) >= 150


def test_complete_averages_over_qrels_topics():
    """``-c``: topics of the qrels without results average in as 0 (our convention, pt.Experiment's)."""
    run = read_run(shared_path("trec_eval-tests", "results.trunc"))
    n = _check(run, shared_path("trec_eval-tests", "qrels.test"), _expected("out.test.aqc"), averaged_over_qrels=True)
    assert n >= 100


def test_max_retrieved_emulated_by_truncation():
    """``-c -M100``: keep each topic's top 100 in trec_eval's order, then evaluate."""
    run = read_run(shared_path("trec_eval-tests", "results.trunc"))
    ordered = run.sort_values(["qid", "score", "docno"], ascending=[True, False, False])
    top = ordered.groupby("qid").head(100)
    n = _check(top, shared_path("trec_eval-tests", "qrels.test"), _expected("out.test.aqcM"), averaged_over_qrels=True)
    assert n >= 100


def test_measure_parameters():
    """``out.test.meas_params``: P.5,7,3, recall.20,2000, ndcg_cut.10,20,23.4, success.2,5,20."""
    expected = _expected("out.test.meas_params")
    run = read_run(shared_path("trec_eval-tests", "results.test"))
    names = {"P_3": "P@3", "P_5": "P@5", "P_7": "P@7", "recall_20": "R@20", "recall_2000": "R@2000",
             "ndcg_cut_10": "nDCG@10", "ndcg_cut_20": "nDCG@20", "ndcg_cut_23": "nDCG@23",
             "success_2": "Success@2", "success_5": "Success@5", "success_20": "Success@20"}
    ours = evaluate(run, shared_path("trec_eval-tests", "qrels.test"), list(names.values()))
    means = ours.groupby("measure")["value"].mean()
    for trec, ours_name in names.items():
        assert means[ours_name] == pytest.approx(expected[(trec, "all")], abs=5.1e-5), trec


def test_gain_mapping_matches_ir_measures():
    """``nDCG(gains=...)`` relabels grades as ir_measures does before calling trec_eval."""
    qrels = read_qrels(shared_path("trec_eval-tests", "qrels.rel_level")).frame
    run = read_run(shared_path("trec_eval-tests", "results.test"))
    measure = ir_measures.parse_measure("nDCG(gains={1:3,2:9,3:1,4:4})@20")
    ours = evaluate(run, qrels, [measure]).set_index("qid")["value"]
    ir_qrels = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    ir_run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
    for metric in ir_measures.iter_calc([measure], ir_qrels, ir_run):
        assert ours[metric.query_id] == pytest.approx(metric.value, abs=1e-12)
    assert np.isfinite(ours.to_numpy()).all() and isinstance(ours, pd.Series)
