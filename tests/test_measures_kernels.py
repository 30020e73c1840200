"""The numba kernels against their pure-Python twins and against ir_measures on materialised images."""
import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyterrier_boot.measures.arrays import JudgedRuns
from pyterrier_boot.measures.engine import Evaluator
from pyterrier_boot.measures.lowering import lower
from pyterrier_boot.measures.materialisation import image_qrels, image_run
from pyterrier_boot.measures.parsing import parse_measures
from pyterrier_boot.measures.reference import reference_values

# measures ir_measures computes through pytrec_eval (trec_eval's ranking and semantics)
TREC_MEASURES = [
    "AP", "AP@5", "AP(rel=2)", "nDCG", "nDCG@5", "nDCG(gains={0:0,1:1,2:4,3:9})@10",
    "nDCG(judged_only=True)@5", "P@1", "P@5", "P(rel=2)@5", "R@5", "R@100", "RR", "RR(rel=2)",
    "Rprec", "Rprec(rel=2)", "Success@1", "Success@5", "Bpref", "Bpref(rel=2)", "AP(judged_only=True)",
]
# measures ir_measures computes through other providers (their own tie-breaking: compared on
# materialised images, whose scores are distinct); gdeval prints 5 decimals
CWL_MEASURES = ["RBP(rel=1)", "RBP(rel=2,p=0.95)", "RBP(rel=1,p=0.5)", "INSQ(max_rel=3)",
                "INSQ(T=2.0,max_rel=3)", "INST(max_rel=3)", "INST(T=2.5,max_rel=3)", "INST(min_rel=1,max_rel=2)"]
OTHER_MEASURES = ["RR@3", "RR(rel=2)@5", "Judged@3", "Judged@10", "Judged"]
GDEVAL_MEASURES = ["ERR@5", "ERR@20", "nDCG(dcg='exp-log2')@5"]
OUR_MEASURES = ["Q", "Q(beta=0.5)@8", "Q(rel=2)", "nCG@5", "nCG(gains={1:1,2:5})@20", "RBP(p=0.9)",
                "nDCG(dcg='exp-log2')"]
ALL_MEASURES = TREC_MEASURES + CWL_MEASURES + OTHER_MEASURES + GDEVAL_MEASURES + OUR_MEASURES

# pytrec_eval crashes on labels <= -2 and may hang on a topic whose labels are all negative (both
# undefined behaviour in trec_eval), so oracle images use grades 0..3 and negative grades are
# compared with trec_eval only on the unchanged collection, where every topic keeps a grade >= 0
ORACLE_GRADES = [0, 0, 1, 1, 2, 3]
NEGATIVE_GRADES = [-1, 0, 1, 1, 2, 3]
GRADES = [-3, -2, -1] + ORACLE_GRADES
DOCS = [f"d{i}" for i in range(14)]


def _ir_frames(run, qrels):
    return (
        qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})[["query_id", "doc_id", "relevance"]],
        run.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]],
    )


@st.composite
def collections(draw, grades=ORACLE_GRADES):
    """Small qrels, 1-2 runs with ties in score, and multiplicities in 0..3."""
    qrels_rows = []
    for qid in ("1", "2", "3"):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
        labels = [draw(st.sampled_from(grades)) for _ in judged]
        if max(labels) < 0:
            labels[0] = 0
        qrels_rows += list(zip([qid] * len(judged), judged, labels))
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docno", "label"])
    runs = {}
    for name in ("a", "b")[: draw(st.integers(1, 2))]:
        rows = []
        # topic 4 is not judged; a run with no judged topic is refused (tests/test_inputs_overlap.py)
        for qid in draw(st.lists(st.sampled_from(["1", "2", "3", "4"]), unique=True, min_size=1)
                        .filter(lambda qids: qids != ["4"])):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
            rows += [(qid, d, float(draw(st.integers(0, 4)))) for d in docs]
        runs[name] = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    multiplicity = {d: draw(st.integers(0, 3)) for d in DOCS}
    return runs, qrels, multiplicity


def _ir_measures_values(measures, qrels, run):
    """ir_measures rows, with nDCG(gains=...) in a call of its own: ir_measures may otherwise mix it
    up with plain nDCG in one pytrec_eval invocation (depends on PYTHONHASHSEED)."""
    with_gains = [m for m in measures if m.params.get("gains")]
    rest = [m for m in measures if m not in with_gains]
    for group in (rest, with_gains):
        if group:
            yield from ir_measures.iter_calc(group, qrels, run)


def _kernel(arrays, measures, multiplicity):
    k = np.array([multiplicity.get(d, 1) for d in arrays.docnos], np.int32)
    return Evaluator(arrays, measures).evaluate(k[None, :])[0]


def _check_against_reference(case):
    runs, qrels, multiplicity = case
    arrays = JudgedRuns.build(runs, qrels, warn_unjudged=False, warn_missing=False)  # overlaps are drawn at random
    measures = parse_measures(ALL_MEASURES)
    k = np.array([multiplicity.get(d, 1) for d in arrays.docnos])
    expected = reference_values(arrays, k, [lower(m.measure) for m in measures])
    np.testing.assert_allclose(_kernel(arrays, measures, multiplicity), expected, rtol=0, atol=1e-12)


@pytest.mark.filterwarnings(r"ignore:\d+ topic\(s\) not in the qrels are ignored:pyterrier_boot.InputWarning")
@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(GRADES))
def test_kernels_equal_pure_python_reference(case):
    _check_against_reference(case)


@pytest.mark.slow  # 300 more collections (the default run draws 75)
@pytest.mark.filterwarnings(r"ignore:\d+ topic\(s\) not in the qrels are ignored:pyterrier_boot.InputWarning")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(GRADES))
def test_kernels_equal_pure_python_reference_on_more_collections(case):
    _check_against_reference(case)


@pytest.mark.filterwarnings("ignore::pyterrier_boot._warnings.InputWarning")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_kernels_equal_ir_measures_on_materialised_image(case):
    runs, qrels, multiplicity = case
    arrays = JudgedRuns.build(runs, qrels)
    measures = parse_measures(TREC_MEASURES + CWL_MEASURES + OTHER_MEASURES + GDEVAL_MEASURES)
    ours = _kernel(arrays, measures, multiplicity)
    ir_qrels = image_qrels(qrels, multiplicity)
    topics = {q: i for i, q in enumerate(arrays.qids)}
    for s, name in enumerate(arrays.systems):
        iq, ir = _ir_frames(image_run(runs[name], multiplicity), ir_qrels)
        seen = set()
        for metric in _ir_measures_values([m.measure for m in measures], iq, ir):
            if metric.query_id not in topics:
                continue
            j = [m.measure for m in measures].index(metric.measure)
            seen.add(metric.query_id)
            tolerance = 6e-6 if measures[j].label in GDEVAL_MEASURES else 1e-9
            assert ours[s, topics[metric.query_id], j] == pytest.approx(metric.value, abs=tolerance), (
                name, metric.query_id, str(metric.measure))
        # topics whose judged documents all vanished score 0 (METHODS.md §1)
        for q, i in topics.items():
            if q not in seen:
                assert not ir_qrels["qid"].eq(q).any()
                assert np.all(ours[s, i] == 0)


@pytest.mark.filterwarnings("ignore::pyterrier_boot._warnings.InputWarning")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(NEGATIVE_GRADES))
def test_identity_multiplicity_equals_ir_measures_on_the_run(case):
    runs, qrels, _ = case
    arrays = JudgedRuns.build(runs, qrels)
    measures = parse_measures(TREC_MEASURES)
    ours = _kernel(arrays, measures, {})
    iq = _ir_frames(runs["a"], qrels)[0]
    for metric in _ir_measures_values([m.measure for m in measures], iq, _ir_frames(runs["a"], qrels)[1]):
        if metric.query_id in arrays.qids:
            q = list(arrays.qids).index(metric.query_id)
            j = [m.measure for m in measures].index(metric.measure)
            assert ours[0, q, j] == pytest.approx(metric.value, abs=1e-9), (metric.query_id, str(metric.measure))


def test_q_measure_equals_ap_with_binary_relevance_and_no_late_relevant():
    """Sakai: with binary relevance, Q = AP when no relevant document is ranked below R."""
    qrels = pd.DataFrame({"qid": ["1"] * 4, "docno": ["a", "b", "c", "d"], "label": [1, 1, 1, 0]})
    run = pd.DataFrame({"qid": ["1"] * 4, "docno": ["a", "d", "b", "c"], "score": [4.0, 3, 2, 1]})
    arrays = JudgedRuns.build({"r": run}, qrels)
    values = _kernel(arrays, parse_measures(["Q", "AP"]), {})[0, 0]
    # relevant at ranks 1, 3, 4 with R = 3: rank 4 > R, so Q > AP (Sakai 2007 §2)
    assert values[0] > values[1]
    ap = (1 / 1 + 2 / 3 + 3 / 4) / 3
    q = ((1 + 1) / (1 + 1) + (2 + 2) / (3 + 3) + (3 + 3) / (3 + 4)) / 3
    assert values[1] == pytest.approx(ap)
    assert values[0] == pytest.approx(q)
